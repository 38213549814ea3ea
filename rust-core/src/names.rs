//! Resource names (hosts, racks, `*`) as small integers.
//!
//! Every heartbeat looks up the node's host, its rack and `*` in every pending scheduler key;
//! hashing and comparing strings there dominated the heartbeat's cost. Names are interned once,
//! when asks or nodes arrive, and heartbeats hash integers with a multiplicative hasher.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::ask::ANY;

/// An interned resource name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// `*` is interned first, so its id is fixed.
pub const ANY_ID: NameId = NameId(0);

/// Hashes one integer by multiplying with an odd 64-bit constant (Fibonacci hashing): distinct
/// ids keep distinct low bits and the high bits hashbrown uses for its tags are well mixed.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only reached if a non-integer key is ever used; stay correct, if slower.
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub type IdMap<V> = HashMap<NameId, V, BuildHasherDefault<IdHasher>>;

#[derive(Debug, Clone)]
pub struct Names {
    ids: HashMap<String, NameId>,
    names: Vec<String>,
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names {
            ids: HashMap::new(),
            names: Vec::new(),
        };
        n.intern(ANY);
        n
    }
}

impl Names {
    pub fn intern(&mut self, name: &str) -> NameId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    pub fn id(&self, name: &str) -> Option<NameId> {
        self.ids.get(name).copied()
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
