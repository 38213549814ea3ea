//! Resource names (hosts, racks, `*`) as small integers.
//!
//! Every heartbeat looks up the node's host, its rack and `*` in every pending scheduler key;
//! hashing and comparing strings there dominated the heartbeat's cost. Names are interned once,
//! when asks or nodes arrive, and heartbeats hash integers (see [`crate::fast_hash`]).
//!
//! The ids of names a live node carries (its host, its rack) are also published to the shim
//! ([`Names::published`]), which then sends such a row as the id instead of the name's bytes:
//! the core skips hashing the name (docs/design/architecture.md, "Binary asks frame"). An id is only
//! good for the core that gave it: each table has a random [`Names::epoch`], which a frame
//! with numbered names must carry.

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::fast_hash::FastMap;
use crate::state::ask::ANY;

/// An interned resource name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// `*` is interned first, so its id is fixed.
pub const ANY_ID: NameId = NameId(0);

pub type IdMap<V> = FastMap<NameId, V>;

/// Longest name a [`Key`] holds in place.
const SHORT: usize = 22;

/// A name as the interning map's key. Host and rack names are usually short and then live in
/// the map's entry itself: every row of every ask message is looked up here, and comparing
/// bytes in the entry just probed avoids following a pointer to each name, a cache miss per row
/// on a cluster of thousands of hosts.
#[derive(Debug, Clone)]
enum Key {
    Short { len: u8, bytes: [u8; SHORT] },
    Long(Box<str>),
}

impl Key {
    fn new(name: &str) -> Key {
        let b = name.as_bytes();
        if b.len() <= SHORT {
            let mut bytes = [0u8; SHORT];
            bytes[..b.len()].copy_from_slice(b);
            Key::Short {
                len: b.len() as u8,
                bytes,
            }
        } else {
            Key::Long(name.into())
        }
    }

    /// The name's bytes: lookups compare bytes, which needs no UTF-8 check per comparison.
    fn bytes(&self) -> &[u8] {
        match self {
            Key::Short { len, bytes } => &bytes[..*len as usize],
            Key::Long(s) => s.as_bytes(),
        }
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.bytes()
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Key {}

#[derive(Debug, Clone)]
pub struct Names {
    /// Keyed by names an AM chose (host and rack rows), so hashed with std's SipHash under a
    /// per-process random key: with the predictable [`crate::fast_hash`] hasher an AM could
    /// send names that all share one hash and make every lookup walk all of them (see
    /// `fast_hash::colliding_names`). Only ask messages and node registrations hash names;
    /// heartbeats use the ids.
    ids: HashMap<Key, NameId, RandomState>,
    names: Vec<String>,
    /// Per id, how many live nodes carry the name (as host or rack): a name with none is not
    /// published, and an ask row naming it by id is refused. Bounded like `names`.
    carriers: Vec<u32>,
    /// Which table numbered the ids: random per table, so a frame numbered by a core that was
    /// replaced (a rebuild) is refused instead of read against another numbering.
    epoch: i64,
}

/// A fresh random epoch: std's `RandomState` keys are random per process and differ per
/// instance, so hashing a constant under a new one gives a new value (no new dependency).
fn random_epoch() -> i64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    RandomState::new().hash_one(nanos) as i64
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names {
            ids: HashMap::default(),
            names: Vec::new(),
            carriers: Vec::new(),
            epoch: random_epoch(),
        };
        n.intern(ANY);
        n
    }
}

impl Names {
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name.as_bytes()) {
            return id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.carriers.push(0);
        self.ids.insert(Key::new(name), id);
        id
    }

    /// One more live node carries `id` (as host or rack).
    pub fn carry(&mut self, id: NameId) {
        if let Some(c) = self.carriers.get_mut(id.0 as usize) {
            *c += 1;
        }
    }

    /// One live node fewer carries `id`.
    pub fn uncarry(&mut self, id: NameId) {
        if let Some(c) = self.carriers.get_mut(id.0 as usize) {
            *c = c.saturating_sub(1);
        }
    }

    /// `raw` as an id this table gave to a name some live node carries now; `None` for an id
    /// it never gave, or whose nodes are all gone. An array index: no hashing.
    pub fn published(&self, raw: u32) -> Option<NameId> {
        match self.carriers.get(raw as usize) {
            Some(&c) if c > 0 => Some(NameId(raw)),
            _ => None,
        }
    }

    /// The id of `name` if a live node carries it (what the shim may send instead of it).
    pub fn published_id(&self, name: &str) -> Option<NameId> {
        self.id(name).and_then(|id| self.published(id.0))
    }

    /// Which numbering this table's ids belong to (see the field).
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    // Kept out of line: inlined into `ask::check_rows` it made a by-name row about 20 ns
    // slower (benches/asks_frame.rs, both cluster shapes).
    #[inline(never)]
    pub fn id(&self, name: &str) -> Option<NameId> {
        self.ids.get(name.as_bytes()).copied()
    }

    pub fn name(&self, id: NameId) -> &str {
        self.names.get(id.0 as usize).map_or("?", String::as_str)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The hash the interning map gives `name`, to test its hasher.
    #[cfg(test)]
    fn hash_of(&self, name: &str) -> u64 {
        use std::hash::BuildHasher;
        self.ids.hasher().hash_one(name.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 40,000 such names made one `asks_updated` take 30 s under the core lock: every lookup
    /// probed a chain of all the others.
    #[test]
    fn crafted_names_do_not_share_a_hash() {
        let crafted = crate::fast_hash::colliding_names(200);
        let (a, b) = (Names::default(), Names::default());
        let spread: std::collections::HashSet<u64> = crafted.iter().map(|n| a.hash_of(n)).collect();
        assert!(
            spread.len() > 190,
            "{} distinct hashes for 200 crafted names",
            spread.len()
        );
        // Per-process (here per-table) keys: what one table does with a name says nothing
        // about another's.
        let same = crafted
            .iter()
            .filter(|n| a.hash_of(n) == b.hash_of(n))
            .count();
        assert!(same < 10, "{same} of 200 names hash alike in two tables");
    }

    /// Only names a live node carries are published; two tables number apart.
    #[test]
    fn published_ids_follow_live_nodes() {
        let mut n = Names::default();
        let h = n.intern("h1");
        assert_eq!(n.published(h.0), None, "interned, no node yet");
        n.carry(h);
        n.carry(h);
        assert_eq!((n.published(h.0), n.published_id("h1")), (Some(h), Some(h)));
        n.uncarry(h);
        assert_eq!(
            n.published(h.0),
            Some(h),
            "one of two nodes on the host left"
        );
        n.uncarry(h);
        assert_eq!(n.published(h.0), None, "the last one left");
        assert_eq!(n.published(7_000_000), None, "never given");
        assert_ne!(n.epoch(), Names::default().epoch());
    }

    #[test]
    fn interning_is_stable() {
        let mut n = Names::default();
        assert_eq!(n.id("*"), Some(ANY_ID));
        let a = n.intern("h1");
        let b = n.intern("/r1");
        assert_eq!(n.intern("h1"), a);
        assert_ne!(a, b);
        assert_eq!(n.name(b), "/r1");
        let mut m: IdMap<u32> = IdMap::default();
        for i in 0..1000 {
            m.insert(NameId(i), i);
        }
        assert!((0..1000).all(|i| m.get(&NameId(i)) == Some(&i)));
        // Names that differ only past the first eight bytes, or only in length, stay apart.
        let hosts: Vec<String> = (0..2000).map(|i| format!("host-000000{i}")).collect();
        let ids: Vec<NameId> = hosts.iter().map(|h| n.intern(h)).collect();
        assert!(hosts
            .iter()
            .zip(&ids)
            .all(|(h, id)| n.id(h) == Some(*id) && n.name(*id) == h));
        assert_ne!(n.intern("ab"), n.intern("ab\0"));
        // Names longer than a key holds in place are found all the same.
        let long = "ip-10-0-100-200.eu-west-1.compute.internal";
        let id = n.intern(long);
        assert_eq!((n.id(long), n.name(id)), (Some(id), long));
        assert_eq!(n.id("ip-10-0-100-200.eu-west-1.compute.interna"), None);
    }
}
