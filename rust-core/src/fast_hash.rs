//! The hasher of the core's hot maps: resource names, container and node ids, app arrivals.
//!
//! Every container start and finish looks up its container id, app and node in several maps;
//! with std's SipHash that hashing was a twentieth of a large simulation.
//!
//! This hasher is unseeded and predictable: anyone can compute keys that share one hash (see
//! [`colliding_names`]). Use it only for keys no application or submitter chooses: integer ids
//! the core hands out (`NameId`, `Arrival`) and ids the ResourceManager assigns (node ids
//! `host:port` of registered NodeManagers, `application_…` and `container_…` ids). Names an
//! AM sends (host and rack rows of its asks) go through [`crate::state::names::Names`], which hashes
//! with a per-process random key. Iteration order is fixed by the keys, which no caller relies on.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Integers: multiplied by an odd 64-bit constant (Fibonacci hashing), so distinct ids keep
/// distinct low bits and the high bits hashbrown uses for its tags are well mixed. Strings:
/// eight bytes a step, as FxHash does, then the high half folded into the low one: hashbrown
/// picks the bucket from the low bits, which a multiplication only fills from below, so
/// without the fold names that differ in their first bytes ("node00123", "node00456") shared
/// a few hundred buckets among ten thousand hosts.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

const SEED: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
        }
        let mut w = [0u8; 8];
        let rest = chunks.remainder();
        w[..rest.len()].copy_from_slice(rest);
        let h = (self.0.rotate_left(5) ^ u64::from_le_bytes(w) ^ (bytes.len() as u64) << 56)
            .wrapping_mul(SEED);
        self.0 = h ^ (h >> 32);
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// `n` distinct 24-byte ASCII names that all share one [`IdHasher`] hash, as an attacker who
/// read this file would send them: after the length prefix and the first eight bytes the state
/// is known, so the next eight bytes can be chosen to cancel it (the XOR before the multiply),
/// leaving every name in the same state. Only about one first chunk in 256 gives an ASCII
/// second chunk, so this costs about 256·n steps. For the tests, the benchmark and the fuzzer:
/// it shows why no map keyed by names from applications may use this hasher.
#[doc(hidden)]
pub fn colliding_names(n: usize) -> Vec<String> {
    const ALPHABET: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    const TARGET: u64 = 0x4141_4141_4141_4141;
    let mut start = IdHasher::default();
    start.write_usize(24);
    let mut out = Vec::with_capacity(n);
    let mut i: u64 = 0;
    while out.len() < n {
        let mut first = [0u8; 8];
        for (k, b) in first.iter_mut().enumerate() {
            *b = ALPHABET[((i >> (6 * k)) & 63) as usize];
        }
        i += 1;
        let h1 = (start.0.rotate_left(5) ^ u64::from_le_bytes(first)).wrapping_mul(SEED);
        let second = (h1.rotate_left(5) ^ TARGET).to_le_bytes();
        if second.iter().all(u8::is_ascii) {
            let mut name = Vec::with_capacity(24);
            name.extend_from_slice(&first);
            name.extend_from_slice(&second);
            name.extend_from_slice(b".example");
            // ASCII throughout, so always valid UTF-8.
            out.push(String::from_utf8(name).unwrap_or_default());
        }
    }
    out
}
pub type FastSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// How many of `keys` share a bucket of a table with `buckets` slots (a power of two).
    fn collisions(keys: &[String], buckets: u64) -> usize {
        let b = BuildHasherDefault::<IdHasher>::default();
        let used: HashSet<u64> = keys.iter().map(|k| b.hash_one(k) & (buckets - 1)).collect();
        keys.len() - used.len()
    }

    #[test]
    fn host_names_spread_over_the_buckets() {
        // 10,000 hosts in 16,384 buckets: a random hash leaves about 2,500 sharing one.
        let hosts: Vec<String> = (1..=10_000).map(|i| format!("node{i:05}")).collect();
        let c = collisions(&hosts, 16_384);
        assert!(c < 3_200, "{c} of 10,000 host names share a bucket");
        let containers: Vec<String> = (1..=10_000)
            .map(|i| format!("container_1700000000000_0001_01_{i:06}"))
            .collect();
        let c = collisions(&containers, 16_384);
        assert!(c < 3_200, "{c} of 10,000 container ids share a bucket");
    }

    #[test]
    fn crafted_names_share_one_hash() {
        let b = BuildHasherDefault::<IdHasher>::default();
        let names = colliding_names(100);
        let hashes: HashSet<u64> = names.iter().map(|n| b.hash_one(n.as_bytes())).collect();
        let distinct: HashSet<&String> = names.iter().collect();
        assert_eq!((distinct.len(), hashes.len()), (100, 1));
        assert!(names.iter().all(|n| n.len() == 24));
    }

    #[test]
    fn maps_find_what_they_hold() {
        let mut m: FastMap<String, usize> = FastMap::default();
        let keys: Vec<String> = (0..2000).map(|i| format!("host-000000{i}")).collect();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.clone(), i);
        }
        assert!(keys.iter().enumerate().all(|(i, k)| m.get(k) == Some(&i)));
        // Differing only in length (a trailing NUL) is still a different key.
        m.insert("ab".into(), 1);
        m.insert("ab\0".into(), 2);
        assert_eq!((m.get("ab"), m.get("ab\0")), (Some(&1), Some(&2)));
    }
}
