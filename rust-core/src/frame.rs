//! The binary asks frame: what an AM's allocate() changed, as the shim sends it on the hot path
//! instead of JSON (`contract/wire.json` defines the layout and `tests/contract.rs` checks this
//! module against it; the shim's `AsksFrame.java` writes it).
//!
//! Little-endian, fixed layout:
//!
//! ```text
//! header (20 bytes)
//!   0  u32  magic 0x314B_534C (the bytes "LSK1")
//!   4  u8   kind: 1 = asks_changed (rows set), 2 = asks_updated (full snapshot)
//!   5  u8   flags: bit 0 = an asks_digest follows the rows; bit 1 = rows may carry numbered
//!           names (the names epoch below follows the application id); other bits 0
//!   6  u16  A, bytes of the application id (1..=255)
//!   8  u32  N, rows
//!  12  i64  digest (see `digest`; 0 without flag bit 0)
//!  20  A bytes: the application id, UTF-8
//!  with flag bit 1: i64 names epoch, the core's (`Names::epoch`) whose ids the rows use
//! then N rows of 32 bytes plus the name and the extra types:
//!   i32 priority, i64 allocation_request_id, i64 memory_mb (>= 0), i32 vcores (>= 0),
//!   i32 count (>= 0), u8 relax_locality (0 or 1), u16 L (1..=1024), L bytes resource name UTF-8
//!   or, with flag bit 1 only, L = 0 and a u32 name id instead of the name: below 2^31 one the
//!   core published (a live node's host or rack: `Names::published`), with bit 31 set one of
//!   the application's waiting names (`waiting::WAITING_ID`, taught by `Core::learned_ids`),
//!   then u8 K (at most `MAX_EXTRA_TYPES`) and K i64 (>= 0): the extra resource types
//!   (`yarn.io/gpu`, ...) in the order the shim announced them, trailing zeros left out
//! ```
//!
//! Decoding is bounded by the frame's own length: the row count is checked against the bytes
//! left before anything is allocated for it, every length is checked before it is read, and a
//! frame must end exactly after its last row. A malformed frame is refused whole, with the
//! offset and what was wrong; nothing of it is applied.

use crate::error::CoreError;
use crate::protocol::{Ask, AskRef, Event, Resource, MAX_EXTRA_TYPES};
use crate::state::ask::{MAX_ASK_ROWS_KEY, MAX_NAME_BYTES};

pub const MAGIC: u32 = 0x314B_534C;
pub const KIND_CHANGED: u8 = 1;
pub const KIND_SNAPSHOT: u8 = 2;
pub const FLAG_DIGEST: u8 = 1;
/// Rows may name a resource by the id the core published for it (see the layout).
pub const FLAG_NAME_IDS: u8 = 2;
pub const HEADER_BYTES: usize = 20;
/// A row without its name and with no extra resource types (the list's count byte counted).
pub const ROW_FIXED_BYTES: usize = 32;
/// What a row's extra types are called in a refusal.
const ROW_EXTRA: &str = "row's extra resource types";
/// Application ids are `application_<cluster timestamp>_<sequence>`: far below this.
pub const MAX_APP_BYTES: usize = 255;

/// Why a frame was refused: the byte offset where decoding stopped and what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    pub offset: usize,
    pub what: String,
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for FrameError {}

impl From<FrameError> for FrameRefused {
    fn from(e: FrameError) -> Self {
        FrameRefused::Malformed(e)
    }
}

/// A bounds-checked little-endian reader over one frame (shared with `offers`).
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn fail<T, E: From<FrameError>>(&self, what: impl Into<String>) -> Result<T, E> {
        Err(FrameError {
            offset: self.at,
            what: what.into(),
        }
        .into())
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], FrameError> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return self.fail(format!(
                "{what} needs {n} bytes, {left} left (truncated frame)"
            ));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    pub(crate) fn array<const K: usize>(&mut self, what: &str) -> Result<[u8; K], FrameError> {
        let mut out = [0u8; K];
        out.copy_from_slice(self.take(K, what)?);
        Ok(out)
    }

    /// Reads the frame's leading magic; another is refused at byte 0, naming `frame`
    /// (e.g. "an asks frame") so a shim and core of different layouts say what they got.
    pub(crate) fn magic(&mut self, expected: u32, frame: &str) -> Result<(), FrameError> {
        let magic = self.u32("magic")?;
        if magic != expected {
            self.at = 0;
            return self.fail(format!(
                "magic {magic:#010x} is not {frame}'s {expected:#010x}"
            ));
        }
        Ok(())
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, FrameError> {
        Ok(self.array::<1>(what)?[0])
    }
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, FrameError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, FrameError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn i32(&mut self, what: &str) -> Result<i32, FrameError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn i64(&mut self, what: &str) -> Result<i64, FrameError> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// A resource's extra types (`list8_i64`): at most [`MAX_EXTRA_TYPES`], none negative.
    pub(crate) fn extra(&mut self, what: &str) -> Result<[u64; MAX_EXTRA_TYPES], FrameError> {
        let n = self.u8(what)? as usize;
        if n > MAX_EXTRA_TYPES {
            self.at -= 1;
            return self.fail(format!(
                "{what}: {n} resource types beyond memory and vcores (at most {MAX_EXTRA_TYPES})"
            ));
        }
        let mut out = [0u64; MAX_EXTRA_TYPES];
        for (i, slot) in out.iter_mut().take(n).enumerate() {
            let v = self.i64(what)?;
            if v < 0 {
                self.at -= 8;
                return self.fail(format!(
                    "{what}: resource type {i} is {v}, must not be negative"
                ));
            }
            *slot = v as u64;
        }
        Ok(out)
    }

    pub(crate) fn text(&mut self, n: usize, what: &str) -> Result<&'a str, FrameError> {
        let start = self.at;
        let raw = self.take(n, what)?;
        match std::str::from_utf8(raw) {
            Ok(s) => Ok(s),
            Err(e) => Err(FrameError {
                offset: start,
                what: format!("{what} is not UTF-8: {e}"),
            }),
        }
    }
}

/// Writes `r`'s extra types as a `list8_i64`: those up to the last one not zero (none for a
/// resource of memory and vcores only, one byte).
pub fn put_extra(out: &mut Vec<u8>, r: &Resource) {
    let used = r.extra_used();
    out.push(used.len() as u8);
    for &v in used {
        out.extend_from_slice(&(v.min(i64::MAX as u64) as i64).to_le_bytes());
    }
}

fn i64_at(f: &[u8], at: usize) -> i64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&f[at..at + 8]);
    i64::from_le_bytes(b)
}

/// A decoded frame whose names point into the frame's bytes (no `String` per row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsksFrame<'a> {
    /// `asks_updated` (a full snapshot) rather than `asks_changed`.
    pub snapshot: bool,
    pub app: &'a str,
    pub rows: Vec<AskRef<'a>>,
    pub digest: Option<i64>,
    /// With numbered names: the epoch of the core whose ids the rows use.
    pub names_epoch: Option<i64>,
}

impl AsksFrame<'_> {
    /// The events the frame stands for: `asks_changed` or `asks_updated`, then `asks_digest`
    /// when flagged. Applied like the same events in JSON.
    pub fn to_events(&self) -> Vec<Event> {
        let app = self.app.to_string();
        let asks: Vec<Ask> = self.rows.iter().map(AskRef::to_ask).collect();
        let mut events = Vec::with_capacity(2);
        events.push(if self.snapshot {
            Event::AsksUpdated {
                app: app.clone(),
                asks,
            }
        } else {
            Event::AsksChanged {
                app: app.clone(),
                asks,
            }
        });
        if let Some(digest) = self.digest {
            events.push(Event::AsksDigest { app, digest });
        }
        events
    }
}

/// The events a frame stands for (see [`AsksFrame::to_events`]). A frame with numbered names
/// is refused: only the core that published the ids can read it (`Core::handle_asks_frame`).
pub fn decode(bytes: &[u8]) -> Result<Vec<Event>, FrameError> {
    let f = decode_view(bytes)?;
    if f.names_epoch.is_some() {
        return Err(FrameError {
            offset: 5,
            what: "numbered names need the core that published them".into(),
        });
    }
    Ok(f.to_events())
}

/// Decodes a frame without copying its names, whatever its row count (tests, the fuzzer).
pub fn decode_view(bytes: &[u8]) -> Result<AsksFrame<'_>, FrameError> {
    decode_view_within(bytes, usize::MAX).map_err(|e| match e {
        FrameRefused::Malformed(e) => e,
        // No u32 count passes usize::MAX; named as a frame error rather than a panic.
        FrameRefused::OverLimit { error, .. } => FrameError {
            offset: 8,
            what: error.to_string(),
        },
    })
}

/// Why [`decode_view_within`] refused a frame.
#[derive(Debug)]
pub enum FrameRefused {
    /// Not a well-formed frame (the shim's bug or garbage): nothing of it is applied.
    Malformed(FrameError),
    /// More rows than `locus.app.max-ask-rows`: the application's refusal, worded as the core
    /// words it after applying (`ask::check_rows`), of an `asks_updated` frame when `snapshot`.
    OverLimit { snapshot: bool, error: CoreError },
}

/// Decodes a frame without copying its names: what the core applies on the hot path. A frame
/// announcing more than `max_rows` rows (the application's `locus.app.max-ask-rows`) is refused
/// from its header, before a row is read or anything is reserved for them. The same bound
/// serves both kinds: a snapshot's rows are the table, and a change naming more rows than the
/// table may hold is refused by the core whatever its rows say (`ask::check_rows`), so the
/// frame's bytes (at least 32 a row) are not the only bound on what is reserved.
pub fn decode_view_within(bytes: &[u8], max_rows: usize) -> Result<AsksFrame<'_>, FrameRefused> {
    let mut r = Reader { bytes, at: 0 };
    r.magic(MAGIC, "an asks frame")?;
    let kind = r.u8("kind")?;
    if kind != KIND_CHANGED && kind != KIND_SNAPSHOT {
        r.at -= 1;
        return r.fail(format!(
            "kind {kind} is neither 1 (asks_changed) nor 2 (asks_updated)"
        ));
    }
    let flags = r.u8("flags")?;
    if flags & !(FLAG_DIGEST | FLAG_NAME_IDS) != 0 {
        r.at -= 1;
        return r.fail(format!("flags {flags:#04x} set bits no frame defines"));
    }
    let app_len = r.u16("application id length")? as usize;
    if app_len == 0 || app_len > MAX_APP_BYTES {
        r.at -= 2;
        return r.fail(format!(
            "application id of {app_len} bytes (1 to {MAX_APP_BYTES})"
        ));
    }
    let rows = r.u32("row count")? as usize;
    let digest = r.i64("digest")?;
    let app = r.text(app_len, "application id")?;
    let numbered = flags & FLAG_NAME_IDS != 0;
    let names_epoch = if numbered {
        Some(r.i64("names epoch")?)
    } else {
        None
    };
    let left = bytes.len() - r.at;
    if rows > left / ROW_FIXED_BYTES {
        return r.fail(format!(
            "{rows} rows announced, but {left} bytes left hold at most {}",
            left / ROW_FIXED_BYTES
        ));
    }
    if rows > max_rows {
        return Err(FrameRefused::OverLimit {
            snapshot: kind == KIND_SNAPSHOT,
            error: CoreError::OverLimit {
                app: app.to_string(),
                key: MAX_ASK_ROWS_KEY,
                limit: max_rows,
                found: format!("{rows} rows in one message"),
            },
        });
    }
    let mut asks = Vec::with_capacity(rows);
    for i in 0..rows {
        // The fixed part of a row taken in one bounds check, its fields read at constant
        // offsets (a field at a time cost a check and a copy each, a third of the decode).
        let start = r.at;
        // The count byte of the extra types follows the name: read after it.
        let f = r.take(ROW_FIXED_BYTES - 1, "row")?;
        let priority = i32::from_le_bytes([f[0], f[1], f[2], f[3]]);
        let allocation_request_id = i64_at(f, 4);
        let memory_mb = i64_at(f, 12);
        let vcores = i32::from_le_bytes([f[20], f[21], f[22], f[23]]);
        let count = i32::from_le_bytes([f[24], f[25], f[26], f[27]]);
        if memory_mb < 0 || vcores < 0 || count < 0 {
            // Named only on failure: formatting per row would cost more than decoding it.
            let (field, v, at) = if memory_mb < 0 {
                ("memory_mb", memory_mb, 12)
            } else if vcores < 0 {
                ("vcores", vcores as i64, 20)
            } else {
                ("count", count as i64, 24)
            };
            r.at = start + at;
            return r.fail(format!("row {i}: {field} is {v}, must not be negative"));
        }
        let (memory_mb, vcores, count) = (memory_mb as u64, vcores as u32, count as u32);
        let relax_locality = match f[28] {
            0 => false,
            1 => true,
            other => {
                r.at = start + 28;
                return r.fail(format!(
                    "row {i}: relax_locality {other} is neither 0 nor 1"
                ));
            }
        };
        let name_len = u16::from_le_bytes([f[29], f[30]]) as usize;
        if name_len == 0 && numbered {
            // The name as the core's id: checked against the core's names when applied.
            let id = r.u32("name id")?;
            if id == AskRef::BY_NAME {
                r.at -= 4;
                return r.fail(format!("row {i}: name id {id} is no id"));
            }
            let extra = r.extra(ROW_EXTRA)?;
            asks.push(AskRef {
                priority,
                allocation_request_id,
                resource_name: "",
                capability: Resource {
                    memory_mb,
                    vcores,
                    extra,
                },
                count,
                relax_locality,
                name_id: id,
            });
            continue;
        }
        if name_len == 0 || name_len > MAX_NAME_BYTES {
            r.at -= 2;
            return r.fail(format!(
                "row {i}: resource_name of {name_len} bytes (1 to {MAX_NAME_BYTES})"
            ));
        }
        let resource_name = r.text(name_len, "resource_name")?;
        let extra = r.extra(ROW_EXTRA)?;
        asks.push(AskRef {
            priority,
            allocation_request_id,
            resource_name,
            capability: Resource {
                memory_mb,
                vcores,
                extra,
            },
            count,
            relax_locality,
            name_id: AskRef::BY_NAME,
        });
    }
    if r.at != bytes.len() {
        return r.fail(format!("{} bytes after the last row", bytes.len() - r.at));
    }
    Ok(AsksFrame {
        snapshot: kind == KIND_SNAPSHOT,
        app,
        rows: asks,
        digest: (flags & FLAG_DIGEST != 0).then_some(digest),
        names_epoch,
    })
}

/// Writes `asks` for `app` as a frame (the shim's encoder in Rust: tests, benches, the fuzzer).
pub fn encode(kind: u8, app: &str, asks: &[Ask], digest: Option<i64>) -> Vec<u8> {
    encode_numbered(kind, app, asks, digest, None, |_| None)
}

/// [`encode`] with numbered names: with `epoch`, each row whose name `id_of` numbers carries
/// the id instead of the name (as the shim does with the ids the core published).
pub fn encode_numbered(
    kind: u8,
    app: &str,
    asks: &[Ask],
    digest: Option<i64>,
    epoch: Option<i64>,
    id_of: impl Fn(&str) -> Option<u32>,
) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(HEADER_BYTES + 8 + app.len() + asks.len() * (ROW_FIXED_BYTES + 16));
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(kind);
    let flags = if digest.is_some() { FLAG_DIGEST } else { 0 }
        | if epoch.is_some() { FLAG_NAME_IDS } else { 0 };
    out.push(flags);
    out.extend_from_slice(&(app.len() as u16).to_le_bytes());
    out.extend_from_slice(&(asks.len() as u32).to_le_bytes());
    out.extend_from_slice(&digest.unwrap_or(0).to_le_bytes());
    out.extend_from_slice(app.as_bytes());
    if let Some(e) = epoch {
        out.extend_from_slice(&e.to_le_bytes());
    }
    for a in asks {
        out.extend_from_slice(&a.priority.to_le_bytes());
        out.extend_from_slice(&a.allocation_request_id.to_le_bytes());
        out.extend_from_slice(&(a.capability.memory_mb as i64).to_le_bytes());
        out.extend_from_slice(&(a.capability.vcores as i32).to_le_bytes());
        out.extend_from_slice(&(a.count as i32).to_le_bytes());
        out.push(a.relax_locality as u8);
        match epoch.and(id_of(&a.resource_name)) {
            Some(id) => {
                out.extend_from_slice(&0u16.to_le_bytes());
                out.extend_from_slice(&id.to_le_bytes());
            }
            None => {
                out.extend_from_slice(&(a.resource_name.len() as u16).to_le_bytes());
                out.extend_from_slice(a.resource_name.as_bytes());
            }
        }
        put_extra(&mut out, &a.capability);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(name: &str, count: u32) -> Ask {
        Ask {
            priority: 20,
            allocation_request_id: 3,
            resource_name: name.into(),
            capability: Resource::new(1024, 1),
            count,
            relax_locality: name != "h2",
        }
    }

    const APP: &str = "application_1700000000000_0001";

    fn sample() -> Vec<u8> {
        encode(
            KIND_CHANGED,
            APP,
            &[ask("h1", 1), ask("h2", 0), ask("*", 5)],
            Some(-7),
        )
    }

    #[test]
    fn round_trips_rows_and_digest() {
        let events = decode(&sample()).unwrap();
        assert_eq!(
            events,
            vec![
                Event::AsksChanged {
                    app: APP.into(),
                    asks: vec![ask("h1", 1), ask("h2", 0), ask("*", 5)]
                },
                Event::AsksDigest {
                    app: APP.into(),
                    digest: -7
                }
            ]
        );
        let snap = decode(&encode(KIND_SNAPSHOT, APP, &[], None)).unwrap();
        assert_eq!(
            snap,
            vec![Event::AsksUpdated {
                app: APP.into(),
                asks: vec![]
            }]
        );
    }

    /// A frame announcing more rows than the application may hold is refused from its header,
    /// in the core's own words, before a row is read or anything is reserved for them: its
    /// first row here is malformed, and the refusal is still the row limit's.
    #[test]
    fn a_frame_over_the_row_limit_is_refused_from_its_header() {
        let rows: Vec<Ask> = (0..101).map(|i| ask(&format!("h{i}"), 1)).collect();
        for kind in [KIND_CHANGED, KIND_SNAPSHOT] {
            let mut f = encode(kind, APP, &rows, None);
            assert_eq!(decode_view_within(&f, 101).unwrap().rows.len(), 101);
            let count_at = HEADER_BYTES + APP.len() + 24;
            f[count_at..count_at + 4].copy_from_slice(&(-1i32).to_le_bytes());
            match decode_view_within(&f, 100) {
                Err(FrameRefused::OverLimit { snapshot, error }) => {
                    assert_eq!(snapshot, kind == KIND_SNAPSHOT);
                    assert_eq!(
                        error.to_string(),
                        format!(
                            "application {APP}: ask update refused, 101 rows in one message, \
                             over locus.app.max-ask-rows = 100; its previous asks stay in force"
                        )
                    );
                }
                other => panic!("expected the row limit's refusal, got {other:?}"),
            }
        }
    }

    /// Numbered names (their bytes are checked against `contract/wire.json` by
    /// `tests/contract.rs`): rows the encoder cannot number keep their names in the same frame,
    /// and an id no core gives is refused.
    #[test]
    fn numbered_rows_decode_to_ids() {
        let id_of = |n: &str| (n == "h").then_some(7u32);
        let f = encode_numbered(
            KIND_CHANGED,
            "a",
            &[ask("h", 2), ask("*", 2)],
            None,
            Some(-5),
            id_of,
        );
        let v = decode_view(&f).unwrap();
        assert_eq!(v.names_epoch, Some(-5));
        assert_eq!(
            (v.rows[0].numbered(), v.rows[0].resource_name),
            (Some(7), "")
        );
        assert_eq!((v.rows[1].numbered(), v.rows[1].resource_name), (None, "*"));
        let mut reserved = f.clone();
        let id_at = HEADER_BYTES + 1 + 8 + ROW_FIXED_BYTES - 1;
        reserved[id_at..id_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_view(&reserved)
            .unwrap_err()
            .what
            .contains("is no id"));
        // Only the core that numbered the names can read them.
        assert!(decode(&f).unwrap_err().what.contains("numbered names"));
        for n in 0..f.len() {
            let err = decode_view(&f[..n]).unwrap_err();
            assert!(
                err.what.contains("truncated") || err.what.contains("rows announced"),
                "prefix of {n} bytes: {err}"
            );
        }
    }

    /// A row's extra resource types cross after its name (or id), trailing zeros left out;
    /// more types than the bound and a negative amount are refused, naming the row's types.
    #[test]
    fn extra_types_round_trip_and_bad_ones_are_named() {
        let mut gpu = ask("*", 2);
        gpu.capability = Resource::with_extra(2048, 1, &[0, 3]);
        let rows = [ask("h1", 1), gpu.clone()];
        let f = encode(KIND_SNAPSHOT, APP, &rows, None);
        match &decode(&f).unwrap()[0] {
            Event::AsksUpdated { asks, .. } => assert_eq!(asks, &rows.to_vec()),
            other => panic!("{other:?}"),
        }
        let numbered = encode_numbered(KIND_CHANGED, APP, &[gpu], None, Some(1), |_| Some(4));
        let v = decode_view(&numbered).unwrap();
        assert_eq!(v.rows[0].capability.extra_used(), &[0, 3]);
        // The last row's list: its count byte, then two i64.
        let count_at = f.len() - 17;
        let mut too_many = f.clone();
        too_many[count_at] = (MAX_EXTRA_TYPES + 1) as u8;
        let e = decode(&too_many).unwrap_err().to_string();
        assert!(e.contains("at most 4"), "{e}");
        let mut negative = f.clone();
        negative[count_at + 9..].copy_from_slice(&(-1i64).to_le_bytes());
        let e = decode(&negative).unwrap_err().to_string();
        assert!(e.contains("resource type 1 is -1"), "{e}");
    }

    /// Every prefix of a good frame is refused as truncated (or, for the empty prefix, short of
    /// a magic), never read past its end and never half applied.
    #[test]
    fn every_truncation_is_refused_with_a_clear_error() {
        let good = sample();
        for n in 0..good.len() {
            let err = decode(&good[..n]).unwrap_err();
            assert!(
                err.what.contains("truncated") || err.what.contains("rows announced"),
                "prefix of {n} bytes: {err}"
            );
            assert!(err.offset <= n, "prefix of {n}: offset {}", err.offset);
        }
    }

    #[test]
    fn bad_fields_are_named() {
        let good = sample();
        let with = |at: usize, bytes: &[u8]| {
            let mut f = good.clone();
            f[at..at + bytes.len()].copy_from_slice(bytes);
            decode(&f).unwrap_err().to_string()
        };
        assert!(with(0, b"JSON").contains("magic"));
        assert!(with(4, &[9]).contains("kind 9"));
        assert!(with(5, &[0x81]).contains("flags"));
        assert!(with(6, &0u16.to_le_bytes()).contains("application id of 0 bytes"));
        let e = with(8, &u32::MAX.to_le_bytes());
        assert!(e.contains("4294967295 rows announced"), "{e}");
        let e = with(8, &4u32.to_le_bytes());
        assert!(
            e.contains("truncated") || e.contains("rows announced"),
            "{e}"
        );
        let e = with(8, &2u32.to_le_bytes());
        assert!(e.contains("bytes after the last row"), "{e}");
        let row0 = HEADER_BYTES + APP.len();
        assert!(with(row0 + 12, &(-1i64).to_le_bytes()).contains("row 0: memory_mb is -1"));
        assert!(with(row0 + 20, &(-2i32).to_le_bytes()).contains("row 0: vcores is -2"));
        assert!(with(row0 + 24, &(-3i32).to_le_bytes()).contains("row 0: count is -3"));
        assert!(with(row0 + 28, &[7]).contains("relax_locality 7"));
        assert!(with(row0 + 29, &0u16.to_le_bytes()).contains("resource_name of 0 bytes"));
        assert!(with(row0 + 29, &2000u16.to_le_bytes()).contains("resource_name of 2000 bytes"));
        assert!(with(row0 + 31, &[0xff]).contains("not UTF-8"));
        assert!(with(HEADER_BYTES, &[0xc3]).contains("application id is not UTF-8"));
    }

    /// Garbage of every length, from a fixed-seed generator: refused or decoded, never a panic,
    /// and nothing is allocated beyond what the bytes can hold.
    #[test]
    fn garbage_never_panics() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed = crate::digest::mix(seed.wrapping_add(0x9e37_79b9_7f4a_7c15));
            seed
        };
        let good = sample();
        for round in 0..20_000 {
            let len = (next() % 200) as usize;
            let mut f: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 2 == 0 && len >= 4 {
                // Past the magic check, so the fields behind it are exercised too.
                f[..4].copy_from_slice(&MAGIC.to_le_bytes());
            }
            if round % 3 == 0 {
                // A good frame with a few bytes flipped.
                f = good.clone();
                for _ in 0..1 + next() % 4 {
                    let at = (next() as usize) % f.len();
                    f[at] ^= next() as u8 | 1;
                }
            }
            if let Ok(events) = decode(&f) {
                assert!(!events.is_empty() && events.len() <= 2);
            }
        }
    }
}
