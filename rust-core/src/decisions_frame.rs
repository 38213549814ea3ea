//! The binary decisions frame: the core's answer to an offers frame (`offers`), read by the
//! shim's `DecisionsFrame.java` without a JSON parser or a tree of objects per call
//! (`contract/wire.json` defines the layout, `tests/contract.rs` checks it).
//!
//! A decision names its node by its index in the offers frame it answers: the shim holds the
//! node objects of that frame in the same order, so it neither parses a node id nor looks one
//! up. Little-endian, fixed layout:
//!
//! ```text
//! header (12 bytes)
//!   0  u32  magic 0x3144_534C (the bytes "LSD1")
//!   4  u32  D, decisions
//!   8  u32  R, refused nodes
//! then D decisions of 56 bytes plus two texts, K ancestors, E extra types and T type maxima:
//!   u32 node index (< the offers frame's node count), u8 locality (0 node_local,
//!   1 rack_local, 2 off_switch), i32 priority, i64 allocation_request_id, u32 count,
//!   i64 memory_mb, i32 vcores, u16 A + A bytes application id, u16 L + L bytes resource name,
//!   then the limits to re-check at commit (`CommitLimits`, -1 for none): i64 queue_max_mb,
//!   i64 user_limit_mb, u8 K (at most MAX_ANCESTORS), K x i64 ancestor_max_mb (parent first),
//!   u8 E (at most `MAX_EXTRA_TYPES`), E x i64: the capability's extra resource types,
//!   u8 T (a multiple of `TYPE_STRIDE`, at most `MAX_TYPE_MAXIMA`), T x i64: the limits'
//!   `type_maxima` (the leaf's then each ancestor's maxima in vcores and the extra types)
//! then R refused nodes: u32 node index, u16 L + L bytes reason (UTF-8, at most
//!   MAX_REASON_BYTES, cut at a character boundary)
//! ```
//!
//! The frame is written by the core from its own decisions, so the writer checks what the
//! layout cannot hold (a node outside the batch, a text over 65,535 bytes) and refuses the
//! answer as a core error rather than write a frame the shim would misread.

use crate::frame::{FrameError, Reader};
use crate::protocol::{
    CommitLimits, Decision, Heartbeat, Locality, OffersResponse, RefusedOffer, Resource,
    MAX_TYPE_MAXIMA, TYPE_STRIDE,
};

pub const MAGIC: u32 = 0x3144_534C;
pub const HEADER_BYTES: usize = 12;
/// A decision without its two texts' bytes, its ancestors' maxima, its extra types and its
/// type maxima.
pub const DECISION_FIXED_BYTES: usize = 56;
/// Ancestors' maxima one decision carries at most (a queue tree is at most
/// `capacity_tree::MAX_TREE_DEPTH` deep).
pub const MAX_ANCESTORS: usize = 255;
/// A refused node without its reason's bytes.
pub const REFUSED_FIXED_BYTES: usize = 6;
/// A refusal's reason is cut to this many bytes: it is logged, never parsed.
pub const MAX_REASON_BYTES: usize = 4096;

pub fn locality_code(l: Locality) -> u8 {
    match l {
        Locality::NodeLocal => 0,
        Locality::RackLocal => 1,
        Locality::OffSwitch => 2,
    }
}

pub fn locality_of(code: u8) -> Option<Locality> {
    match code {
        0 => Some(Locality::NodeLocal),
        1 => Some(Locality::RackLocal),
        2 => Some(Locality::OffSwitch),
        _ => None,
    }
}

/// Why the core could not write its answer (a defect of the core, never of the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// The answer to `offers` as a frame. Decisions come in the order of the nodes they name
/// (`Core::offers` decides the nodes in turn), so each node's index is found by walking the
/// batch forward once; a decision naming a node out of that order is still found (a second
/// walk), and one naming no node of the batch is refused.
pub fn encode(offers: &[Heartbeat], response: &OffersResponse) -> Result<Vec<u8>, EncodeError> {
    let mut out =
        Vec::with_capacity(HEADER_BYTES + response.decisions.len() * (DECISION_FIXED_BYTES + 48));
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&count(response.decisions.len(), "decisions")?.to_le_bytes());
    out.extend_from_slice(&count(response.refused.len(), "refused nodes")?.to_le_bytes());
    let mut at = 0usize;
    for d in &response.decisions {
        at = index_of(offers, &d.node, at)?;
        out.extend_from_slice(&count(at, "node index")?.to_le_bytes());
        out.push(locality_code(d.locality));
        out.extend_from_slice(&d.priority.to_le_bytes());
        out.extend_from_slice(&d.allocation_request_id.to_le_bytes());
        out.extend_from_slice(&d.count.to_le_bytes());
        out.extend_from_slice(&size(d.capability.memory_mb, "memory_mb")?.to_le_bytes());
        out.extend_from_slice(&(d.capability.vcores.min(i32::MAX as u32) as i32).to_le_bytes());
        text(&mut out, &d.app, "application id")?;
        text(&mut out, &d.resource_name, "resource name")?;
        limits(&mut out, d.limits.as_ref())?;
        crate::frame::put_extra(&mut out, &d.capability);
        type_maxima(&mut out, d.limits.as_ref())?;
    }
    let mut at = 0usize;
    for r in &response.refused {
        at = index_of(offers, &r.node, at)?;
        out.extend_from_slice(&count(at, "node index")?.to_le_bytes());
        text(&mut out, cut(&r.reason, MAX_REASON_BYTES), "reason")?;
    }
    Ok(out)
}

fn limits(out: &mut Vec<u8>, l: Option<&CommitLimits>) -> Result<(), EncodeError> {
    let ceiling = |mb: Option<u64>, what: &str| match mb {
        Some(mb) => size(mb, what),
        None => Ok(-1),
    };
    let none = CommitLimits::default();
    let l = l.unwrap_or(&none);
    out.extend_from_slice(&ceiling(l.queue_max_mb, "queue_max_mb")?.to_le_bytes());
    out.extend_from_slice(&ceiling(l.user_limit_mb, "user_limit_mb")?.to_le_bytes());
    if l.ancestor_max_mb.len() > MAX_ANCESTORS {
        return Err(EncodeError(format!(
            "{} ancestors' maxima do not fit a decision (at most {MAX_ANCESTORS})",
            l.ancestor_max_mb.len()
        )));
    }
    out.push(l.ancestor_max_mb.len() as u8);
    for &mb in &l.ancestor_max_mb {
        out.extend_from_slice(&size(mb, "ancestor_max_mb")?.to_le_bytes());
    }
    Ok(())
}

fn type_maxima(out: &mut Vec<u8>, l: Option<&CommitLimits>) -> Result<(), EncodeError> {
    let m = l.map_or(&[][..], |l| &l.type_maxima[..]);
    if m.len() > MAX_TYPE_MAXIMA || m.len() % TYPE_STRIDE != 0 {
        return Err(EncodeError(format!(
            "{} type maxima do not fit a decision (whole queues of {TYPE_STRIDE}, at most \
             {MAX_TYPE_MAXIMA})",
            m.len()
        )));
    }
    out.push(m.len() as u8);
    for &v in m {
        out.extend_from_slice(&size(v, "type maximum")?.to_le_bytes());
    }
    Ok(())
}

fn count(n: usize, what: &str) -> Result<u32, EncodeError> {
    u32::try_from(n).map_err(|_| EncodeError(format!("{n} {what} do not fit the decisions frame")))
}

fn size(n: u64, what: &str) -> Result<i64, EncodeError> {
    i64::try_from(n).map_err(|_| EncodeError(format!("{what} {n} does not fit an i64")))
}

fn index_of(offers: &[Heartbeat], node: &str, from: usize) -> Result<usize, EncodeError> {
    (from..offers.len())
        .chain(0..from.min(offers.len()))
        .find(|&i| offers[i].node == node)
        .ok_or_else(|| {
            EncodeError(format!(
                "a decision names node {node}, not offered in the batch"
            ))
        })
}

fn text(out: &mut Vec<u8>, s: &str, what: &str) -> Result<(), EncodeError> {
    let len = u16::try_from(s.len())
        .map_err(|_| EncodeError(format!("{what} of {} bytes (at most 65,535)", s.len())))?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// `s` cut to at most `max` bytes at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Reads a frame back against the batch it answers (tests, the simulator's checks): the
/// response as the core made it, reasons cut as written.
pub fn decode(bytes: &[u8], offers: &[Heartbeat]) -> Result<OffersResponse, FrameError> {
    let mut r = Reader { bytes, at: 0 };
    r.magic(MAGIC, "a decisions frame")?;
    let decisions = r.u32("decision count")? as usize;
    let refused = r.u32("refused count")? as usize;
    let left = bytes.len() - r.at;
    if decisions > left / DECISION_FIXED_BYTES {
        return r.fail(format!(
            "{decisions} decisions announced, {left} bytes left"
        ));
    }
    let mut out = OffersResponse {
        decisions: Vec::with_capacity(decisions),
        refused: Vec::new(),
    };
    let node = |r: &mut Reader, i: usize| -> Result<String, FrameError> {
        let index = r.u32("node index")? as usize;
        match offers.get(index) {
            Some(hb) => Ok(hb.node.clone()),
            None => {
                r.at -= 4;
                r.fail(format!(
                    "entry {i}: node index {index} outside the {} offered",
                    offers.len()
                ))
            }
        }
    };
    for i in 0..decisions {
        let node = node(&mut r, i)?;
        let code = r.u8("locality")?;
        let Some(locality) = locality_of(code) else {
            r.at -= 1;
            return r.fail(format!("decision {i}: locality {code}"));
        };
        let priority = r.i32("priority")?;
        let allocation_request_id = r.i64("allocation_request_id")?;
        let count = r.u32("count")?;
        let memory_mb = r.i64("memory_mb")?;
        let vcores = r.i32("vcores")?;
        if memory_mb < 0 || vcores < 0 {
            return r.fail(format!("decision {i}: negative capability"));
        }
        let len = r.u16("application id length")? as usize;
        let app = r.text(len, "application id")?.to_string();
        let len = r.u16("resource name length")? as usize;
        let resource_name = r.text(len, "resource name")?.to_string();
        let queue_max_mb = r.i64("queue_max_mb")?;
        let user_limit_mb = r.i64("user_limit_mb")?;
        let ancestors = r.u8("ancestor count")? as usize;
        let mut ancestor_max_mb = Vec::with_capacity(ancestors);
        for _ in 0..ancestors {
            let mb = r.i64("ancestor_max_mb")?;
            if mb < 0 {
                return r.fail(format!("decision {i}: negative ancestor maximum {mb}"));
            }
            ancestor_max_mb.push(mb as u64);
        }
        let extra = r.extra("capability's extra resource types")?;
        let n = r.u8("type maxima count")? as usize;
        if n > MAX_TYPE_MAXIMA || n % TYPE_STRIDE != 0 {
            r.at -= 1;
            return r.fail(format!(
                "decision {i}: {n} type maxima (whole queues of {TYPE_STRIDE}, at most \
                 {MAX_TYPE_MAXIMA})"
            ));
        }
        let mut type_maxima = Vec::with_capacity(n);
        for _ in 0..n {
            let v = r.i64("type maximum")?;
            if v < 0 {
                return r.fail(format!("decision {i}: negative type maximum {v}"));
            }
            type_maxima.push(v as u64);
        }
        let ceiling = |mb: i64| (mb >= 0).then_some(mb as u64);
        let limits = CommitLimits {
            queue_max_mb: ceiling(queue_max_mb),
            ancestor_max_mb,
            user_limit_mb: ceiling(user_limit_mb),
            type_maxima,
        };
        out.decisions.push(Decision {
            app,
            priority,
            allocation_request_id,
            resource_name,
            node,
            locality,
            count,
            capability: Resource {
                memory_mb: memory_mb as u64,
                vcores: vcores as u32,
                extra,
            },
            limits: (limits != CommitLimits::default()).then_some(limits),
        });
    }
    let left = bytes.len() - r.at;
    if refused > left / REFUSED_FIXED_BYTES {
        return r.fail(format!(
            "{refused} refused nodes announced, {left} bytes left"
        ));
    }
    for i in 0..refused {
        let node = node(&mut r, i)?;
        let len = r.u16("reason length")? as usize;
        let reason = r.text(len, "reason")?.to_string();
        out.refused.push(RefusedOffer { node, reason });
    }
    if r.at != bytes.len() {
        return r.fail(format!("{} bytes after the last entry", bytes.len() - r.at));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(node: &str) -> Heartbeat {
        Heartbeat {
            node: node.into(),
            unallocated: Resource::new(8192, 8),
            now_ms: 1,
            sweep: false,
            eager: false,
        }
    }

    fn decision(node: &str, locality: Locality, name: &str) -> Decision {
        Decision {
            app: "application_1_0001".into(),
            priority: 20,
            allocation_request_id: -7,
            resource_name: name.into(),
            node: node.into(),
            locality,
            count: 3,
            capability: Resource::new(1024, 1),
            limits: None,
        }
    }

    fn batch() -> (Vec<Heartbeat>, OffersResponse) {
        let offers = vec![offer("h1:8041"), offer("h2:8041"), offer("h3:8041")];
        let mut response = OffersResponse {
            decisions: vec![
                decision("h1:8041", Locality::NodeLocal, "h1"),
                decision("h1:8041", Locality::OffSwitch, "*"),
                decision("h3:8041", Locality::RackLocal, "/r1"),
            ],
            refused: vec![RefusedOffer {
                node: "h2:8041".into(),
                reason: "node h2:8041 is not known".into(),
            }],
        };
        response.decisions[2].limits = Some(CommitLimits {
            queue_max_mb: Some(3276),
            ancestor_max_mb: vec![4096, 6553],
            user_limit_mb: Some(2048),
            type_maxima: vec![4, 2, 0, 0, 0, 8, 2, 0, 0, 0, 12, 3, 0, 0, 1],
        });
        response.decisions[1].limits = Some(CommitLimits {
            queue_max_mb: Some(8192),
            ancestor_max_mb: Vec::new(),
            user_limit_mb: None,
            type_maxima: Vec::new(),
        });
        (offers, response)
    }

    #[test]
    fn round_trips_decisions_and_refusals_naming_nodes_by_index() {
        let (offers, response) = batch();
        let frame = encode(&offers, &response).unwrap();
        // h3 is the third offer: its index, not its name, is in the frame.
        assert!(!frame.windows(7).any(|w| w == b"h3:8041"));
        assert_eq!(decode(&frame, &offers).unwrap(), response);
        let empty = encode(&offers, &OffersResponse::default()).unwrap();
        assert_eq!(empty.len(), HEADER_BYTES);
    }

    #[test]
    fn a_decision_out_of_node_order_is_still_placed_on_its_node() {
        let (offers, mut response) = batch();
        response
            .decisions
            .push(decision("h1:8041", Locality::NodeLocal, "h1"));
        let frame = encode(&offers, &response).unwrap();
        assert_eq!(decode(&frame, &offers).unwrap(), response);
    }

    #[test]
    fn a_decision_for_a_node_not_offered_is_the_cores_error_not_a_wrong_node() {
        let (offers, mut response) = batch();
        response.decisions[1].node = "h9:8041".into();
        let err = encode(&offers, &response).unwrap_err();
        assert!(err.0.contains("h9:8041"), "{err}");
    }

    #[test]
    fn commit_limits_cross_with_their_decision_and_none_is_all_minus_one() {
        let (offers, response) = batch();
        let frame = encode(&offers, &response).unwrap();
        let back = decode(&frame, &offers).unwrap();
        assert_eq!(back.decisions[0].limits, None);
        assert_eq!(back.decisions[2].limits, response.decisions[2].limits);
        // The first decision, without limits: -1, -1, no ancestors after its texts.
        let first = HEADER_BYTES + DECISION_FIXED_BYTES - 19 + 18 + 2;
        assert_eq!(&frame[first..first + 8], &(-1i64).to_le_bytes());
        assert_eq!(&frame[first + 8..first + 16], &(-1i64).to_le_bytes());
        assert_eq!(frame[first + 16], 0);
        let mut deep = response.clone();
        deep.decisions[0].limits = Some(CommitLimits {
            queue_max_mb: None,
            ancestor_max_mb: vec![1; MAX_ANCESTORS + 1],
            user_limit_mb: None,
            type_maxima: Vec::new(),
        });
        assert!(encode(&offers, &deep).unwrap_err().0.contains("ancestors"));
        // Type maxima come in whole queues.
        deep.decisions[0].limits = Some(CommitLimits {
            type_maxima: vec![1; TYPE_STRIDE + 1],
            ..CommitLimits::default()
        });
        assert!(encode(&offers, &deep)
            .unwrap_err()
            .0
            .contains("type maxima"));
    }

    #[test]
    fn a_long_reason_is_cut_at_a_character_boundary() {
        let (offers, mut response) = batch();
        response.refused[0].reason = "é".repeat(MAX_REASON_BYTES);
        let frame = encode(&offers, &response).unwrap();
        let back = decode(&frame, &offers).unwrap();
        assert_eq!(back.refused[0].reason.len(), MAX_REASON_BYTES);
        assert!(back.refused[0].reason.chars().all(|c| c == 'é'));
    }

    #[test]
    fn every_truncation_and_a_bad_index_are_refused() {
        let (offers, response) = batch();
        let frame = encode(&offers, &response).unwrap();
        for cut in 0..frame.len() {
            assert!(decode(&frame[..cut], &offers).is_err(), "cut at {cut}");
        }
        let mut bad = frame.clone();
        bad[HEADER_BYTES..HEADER_BYTES + 4].copy_from_slice(&3u32.to_le_bytes());
        let err = decode(&bad, &offers).unwrap_err();
        assert!(
            err.what.contains("node index 3 outside the 3 offered"),
            "{err}"
        );
        let mut huge = frame;
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&huge, &offers)
            .unwrap_err()
            .what
            .contains("decisions announced"));
    }
}
