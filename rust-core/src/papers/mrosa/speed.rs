//! What keeps MROSA's plan cheap on a large cluster, kept apart from the adapter in
//! [`super::yarn`]: the earliest-ready rooms picked by merging the nodes' ready times instead of
//! sorting every room, checked against that sort.

/// The `keep` earliest-ready rooms of `nodes` nodes as (node index, room), in ready order, ties
/// in node order then room order: what a stable sort of every room by ready time would list
/// first, at O(nodes + keep · log nodes) instead of O(rooms · log rooms). Node `p` has
/// `rooms(p)` rooms whose `ready(p, i)` never decreases with `i`.
pub(super) fn earliest_rooms(
    nodes: usize,
    rooms: impl Fn(usize) -> u32,
    ready: impl Fn(usize, u32) -> f64,
    keep: usize,
) -> Vec<(usize, u32)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // f64 is not Ord; ready times are ≥ 0 (anything else counts as 0, as `rooms` never makes
    // one), and the bits of non-negative floats order like the floats.
    let key = |p: usize, i: u32| {
        let r = ready(p, i);
        if r > 0.0 {
            r.to_bits()
        } else {
            0
        }
    };
    let mut heap: BinaryHeap<Reverse<(u64, usize, u32)>> = (0..nodes)
        .filter(|&p| rooms(p) > 0)
        .map(|p| Reverse((key(p, 0), p, 0)))
        .collect();
    let mut out = Vec::with_capacity(keep.min(heap.len()));
    while out.len() < keep {
        let Some(Reverse((_, p, i))) = heap.pop() else {
            break;
        };
        out.push((p, i));
        if i + 1 < rooms(p) {
            heap.push(Reverse((key(p, i + 1), p, i + 1)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `private_containers` did before the merge: list every room of every node in node
    /// order, sort them stably by ready time, keep the first `keep`.
    fn by_sorting(rooms: &[Vec<f64>], keep: usize) -> Vec<(usize, u32)> {
        let mut all: Vec<(usize, u32, f64)> = rooms
            .iter()
            .enumerate()
            .flat_map(|(p, r)| r.iter().enumerate().map(move |(i, &t)| (p, i as u32, t)))
            .collect();
        all.sort_by(|a, b| a.2.total_cmp(&b.2));
        all.into_iter().take(keep).map(|(p, i, _)| (p, i)).collect()
    }

    #[test]
    fn merged_rooms_are_the_sorted_rooms_first_keep() {
        let mut seed = 11u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..500 {
            let nodes = next(12) as usize;
            // Per node: some free rooms, then ascending ends with repeats (ties across nodes).
            let rooms: Vec<Vec<f64>> = (0..nodes)
                .map(|_| {
                    let free = next(4) as usize;
                    let mut busy: Vec<f64> = (0..next(5)).map(|_| next(6) as f64 * 0.5).collect();
                    busy.sort_by(|a, b| a.total_cmp(b));
                    std::iter::repeat_n(0.0, free).chain(busy).collect()
                })
                .collect();
            let keep = next(30) as usize;
            let merged = earliest_rooms(
                nodes,
                |p| rooms[p].len() as u32,
                |p, i| rooms[p][i as usize],
                keep,
            );
            assert_eq!(merged, by_sorting(&rooms, keep), "{rooms:?} keep {keep}");
        }
    }
}
