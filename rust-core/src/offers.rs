//! The binary offers frame: the nodes the shim's scheduling thread offers the core in one pass,
//! each with its real unallocated resource, instead of one JSON heartbeat and one JNI crossing
//! per node (`contract/wire.json` defines the layout, `tests/contract.rs` checks it; the
//! shim's `OffersFrame.java` writes it).
//!
//! Little-endian, fixed layout:
//!
//! ```text
//! header (16 bytes)
//!   0  u32  magic 0x324F_534C (the bytes "LSO2")
//!   4  u32  N, nodes
//!   8  i64  now_ms (>= 0), the RM clock of the pass
//! then N nodes of 16 bytes plus the id and the extra types:
//!   i64 unallocated memory_mb (>= 0), i32 unallocated vcores (>= 0),
//!   u8 offer kind (0 = the node's heartbeat, 1 = an async sweep's extra offer, 2 = a sweep's
//!      offer for the keys with nothing to wait for, under `heartbeat` mode),
//!   u16 L (1..=1024), L bytes node id (`host:port`) UTF-8,
//!   u8 K (at most `MAX_EXTRA_TYPES`), K i64 (>= 0): the unallocated extra resource types
//! ```
//!
//! The kind is what lets the locality layers count scheduling opportunities in heartbeats in
//! both scheduling modes ([`Heartbeat::sweep`]); the magic changed with it (`LSO1` had none), so a
//! shim and core of different layouts refuse each other's frames by name.
//!
//! Decoding is bounded by the frame's own length exactly as the asks frame's is (the node count
//! is checked against the bytes left before anything is allocated for it); a malformed frame is
//! refused whole, and nothing of it reaches the core.

use crate::frame::{FrameError, Reader};
use crate::protocol::{Heartbeat, Resource};
use crate::state::ask::MAX_NAME_BYTES;

pub const MAGIC: u32 = 0x324F_534C;
pub const HEADER_BYTES: usize = 16;
/// A node without its id and with no extra resource types.
pub const NODE_FIXED_BYTES: usize = 16;
/// The offer kinds of a node's kind byte.
pub const KIND_HEARTBEAT: u8 = 0;
pub const KIND_SWEEP: u8 = 1;
pub const KIND_EAGER: u8 = 2;

/// The heartbeats a frame stands for, in the frame's order, all at the frame's `now_ms`.
pub fn decode(bytes: &[u8]) -> Result<Vec<Heartbeat>, FrameError> {
    let mut r = Reader { bytes, at: 0 };
    r.magic(MAGIC, "an offers frame")?;
    let count = r.u32("node count")? as usize;
    let now_ms = r.i64("now_ms")?;
    if now_ms < 0 {
        r.at -= 8;
        return r.fail(format!("now_ms is {now_ms}, must not be negative"));
    }
    let left = bytes.len() - r.at;
    if count > left / NODE_FIXED_BYTES {
        return r.fail(format!(
            "{count} nodes announced, but {left} bytes left hold at most {}",
            left / NODE_FIXED_BYTES
        ));
    }
    let mut offers = Vec::with_capacity(count);
    for i in 0..count {
        let memory_mb = r.i64("memory_mb")?;
        let vcores = r.i32("vcores")?;
        if memory_mb < 0 || vcores < 0 {
            let (field, v, back) = if memory_mb < 0 {
                ("memory_mb", memory_mb, 12)
            } else {
                ("vcores", vcores as i64, 4)
            };
            r.at -= back;
            return r.fail(format!(
                "node {i}: unallocated {field} is {v}, must not be negative"
            ));
        }
        let (sweep, eager) = match r.u8("offer kind")? {
            KIND_HEARTBEAT => (false, false),
            KIND_SWEEP => (true, false),
            KIND_EAGER => (true, true),
            other => {
                r.at -= 1;
                return r.fail(format!(
                    "node {i}: offer kind {other} (0 = heartbeat, 1 = sweep, 2 = eager sweep)"
                ));
            }
        };
        let id_len = r.u16("node id length")? as usize;
        if id_len == 0 || id_len > MAX_NAME_BYTES {
            r.at -= 2;
            return r.fail(format!(
                "node {i}: node id of {id_len} bytes (1 to {MAX_NAME_BYTES})"
            ));
        }
        let node = r.text(id_len, "node id")?.to_string();
        let extra = r.extra("unallocated extra resource types")?;
        offers.push(Heartbeat {
            node,
            unallocated: Resource {
                memory_mb: memory_mb as u64,
                vcores: vcores as u32,
                extra,
            },
            now_ms: now_ms as u64,
            sweep,
            eager,
        });
    }
    if r.at != bytes.len() {
        return r.fail(format!("{} bytes after the last node", bytes.len() - r.at));
    }
    Ok(offers)
}

/// Writes `offers` as a frame of heartbeats at `now_ms` (the shim's encoder in Rust: tests and
/// benches).
pub fn encode(now_ms: u64, offers: &[(&str, Resource)]) -> Vec<u8> {
    let marked: Vec<(&str, Resource, bool)> = offers.iter().map(|(n, r)| (*n, *r, false)).collect();
    encode_marked(now_ms, &marked)
}

/// As [`encode`], each node with whether its offer is a sweep's (`true`) or its heartbeat.
pub fn encode_marked(now_ms: u64, offers: &[(&str, Resource, bool)]) -> Vec<u8> {
    let kinds: Vec<(&str, Resource, u8)> = offers
        .iter()
        .map(|(n, r, sweep)| (*n, *r, if *sweep { KIND_SWEEP } else { KIND_HEARTBEAT }))
        .collect();
    encode_kinds(now_ms, &kinds)
}

/// As [`encode`], each node with its offer kind byte (`KIND_*`).
pub fn encode_kinds(now_ms: u64, offers: &[(&str, Resource, u8)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + offers.len() * (NODE_FIXED_BYTES + 24));
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&(offers.len() as u32).to_le_bytes());
    out.extend_from_slice(&(now_ms as i64).to_le_bytes());
    for (node, free, kind) in offers {
        out.extend_from_slice(&(free.memory_mb as i64).to_le_bytes());
        out.extend_from_slice(&(free.vcores as i32).to_le_bytes());
        out.push(*kind);
        out.extend_from_slice(&(node.len() as u16).to_le_bytes());
        out.extend_from_slice(node.as_bytes());
        crate::frame::put_extra(&mut out, free);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Vec<u8> {
        encode_marked(
            77,
            &[
                ("h1:8041", Resource::new(8192, 8), false),
                ("h2:8041", Resource::new(0, 0), true),
            ],
        )
    }

    #[test]
    fn round_trips_every_node_in_order() {
        let got = decode(&two()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].node, "h1:8041");
        assert_eq!(got[0].unallocated, Resource::new(8192, 8));
        assert_eq!(got[1].node, "h2:8041");
        assert!(got.iter().all(|h| h.now_ms == 77));
        assert_eq!((got[0].sweep, got[1].sweep), (false, true));
        let plain = encode(5, &[("h1:8041", Resource::new(1, 1))]);
        assert!(
            !decode(&plain).unwrap()[0].sweep,
            "encode writes heartbeats"
        );
        assert!(decode(&encode(5, &[])).unwrap().is_empty());
        let got = &decode(&encode_kinds(
            5,
            &[("h1:8041", Resource::new(1, 1), KIND_EAGER)],
        ))
        .unwrap()[0];
        assert!(
            got.sweep && got.eager,
            "an eager offer is a sweep's: {got:?}"
        );
        assert!(!decode(&two()).unwrap().iter().any(|h| h.eager));
        let gpus = Resource::with_extra(1, 1, &[2]);
        let got = decode(&encode(5, &[("g:1", gpus)])).unwrap();
        assert_eq!(got[0].unallocated, gpus);
    }

    #[test]
    fn every_truncation_is_refused_with_its_offset() {
        let frame = two();
        for cut in 0..frame.len() {
            let err = decode(&frame[..cut]).unwrap_err();
            assert!(err.offset <= cut, "cut {cut}: {err}");
        }
        let mut long = frame.clone();
        long.push(0);
        assert!(decode(&long)
            .unwrap_err()
            .what
            .contains("after the last node"));
    }

    #[test]
    fn a_huge_node_count_is_refused_before_anything_is_allocated() {
        let mut frame = two();
        frame[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = decode(&frame).unwrap_err();
        assert!(err.what.contains("nodes announced"), "{err}");
    }

    #[test]
    fn negative_sizes_bad_ids_and_wrong_magic_are_named() {
        let mut neg = two();
        neg[HEADER_BYTES..HEADER_BYTES + 8].copy_from_slice(&(-1i64).to_le_bytes());
        let err = decode(&neg).unwrap_err();
        assert_eq!(err.offset, HEADER_BYTES);
        assert!(err.what.contains("memory_mb is -1"), "{err}");

        let mut cores = two();
        cores[HEADER_BYTES + 8..HEADER_BYTES + 12].copy_from_slice(&(-3i32).to_le_bytes());
        assert!(decode(&cores).unwrap_err().what.contains("vcores is -3"));

        let mut empty_id = two();
        empty_id[HEADER_BYTES + 13..HEADER_BYTES + 15].copy_from_slice(&0u16.to_le_bytes());
        assert!(decode(&empty_id)
            .unwrap_err()
            .what
            .contains("node id of 0 bytes"));

        let mut utf = two();
        utf[HEADER_BYTES + 15] = 0xff;
        assert!(decode(&utf).unwrap_err().what.contains("not UTF-8"));

        let mut kind = two();
        kind[HEADER_BYTES + 12] = 3;
        let err = decode(&kind).unwrap_err();
        assert_eq!(err.offset, HEADER_BYTES + 12);
        assert!(err.what.contains("node 0: offer kind 3"), "{err}");

        let mut old = two();
        old[0..4].copy_from_slice(&0x314F_534Cu32.to_le_bytes());
        assert!(
            decode(&old)
                .unwrap_err()
                .what
                .contains("not an offers frame"),
            "a frame of the layout without offer kinds (LSO1) is refused"
        );

        let mut magic = two();
        magic[0] ^= 1;
        let err = decode(&magic).unwrap_err();
        assert_eq!(err.offset, 0);
        assert!(err.what.contains("not an offers frame"), "{err}");

        let mut clock = two();
        clock[8..16].copy_from_slice(&(-5i64).to_le_bytes());
        assert!(decode(&clock).unwrap_err().what.contains("now_ms is -5"));
    }

    #[test]
    fn random_garbage_never_panics() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let base = two();
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut f = base.clone();
            let at = (seed as usize) % f.len();
            f[at] ^= (seed >> 32) as u8 | 1;
            let _ = decode(&f);
            let len = (seed >> 40) as usize % 64;
            let junk: Vec<u8> = (0..len).map(|i| (seed >> (i % 56)) as u8).collect();
            let _ = decode(&junk);
        }
    }
}
