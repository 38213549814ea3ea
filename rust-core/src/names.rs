//! Resource names (hosts, racks, `*`) as small integers.
//!
//! Every heartbeat looks up the node's host, its rack and `*` in every pending scheduler key;
//! hashing and comparing strings there dominated the heartbeat's cost. Names are interned once,
//! when asks or nodes arrive, and heartbeats hash integers (see [`crate::fast_hash`]).

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::ask::ANY;
use crate::fast_hash::FastMap;

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
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names {
            ids: HashMap::default(),
            names: Vec::new(),
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
        self.ids.insert(Key::new(name), id);
        id
    }

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
