//! Every layer combination the settings accept (policy x locality x hotspot x slots, with
//! capacity's queues), found by asking `Core::new` itself so the list follows the config rules,
//! each with both values of `locus.delay.idle-room` where the locality layer reads it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use locus_core::config::{HotspotKind, JobPolicyKind, LocalityKind, SlotsKind, DELAY_IDLE_ROOM};
use locus_core::{Config, Core};

/// Queues the capacity combinations use; the model checks their maxima.
pub const CAPACITY_QUEUES: &str = "default:60:90,etl:40:70";
/// (name, maximum-capacity %) of [`CAPACITY_QUEUES`].
pub const QUEUE_MAXIMA: [(&str, u64); 2] = [("default", 90), ("etl", 70)];
/// (name, capacity %) of [`CAPACITY_QUEUES`]: what preemption may never take a queue below.
pub const QUEUE_GUARANTEES: [(&str, u64); 2] = [("default", 60), ("etl", 40)];

pub type Props = BTreeMap<String, String>;

fn props_for(policy: &str, locality: &str, hotspot: &str, slots: &str) -> Props {
    let mut p: Props = [
        ("locus.policy", policy),
        ("locus.locality", locality),
        ("locus.hotspot", hotspot),
        ("locus.slots", slots),
        ("locus.td.split-bytes", "1000"),
        ("locus.td.bandwidth", "1000"),
        ("locus.delay.node-locality-threshold", "0.5"),
        ("locus.delay.rack-locality-threshold", "0.5"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    if policy == "capacity" {
        p.insert("locus.capacity.queues".into(), CAPACITY_QUEUES.into());
    }
    p
}

/// `p` once `locus.delay.idle-room` is drawn: both of its values (the default `true` first)
/// where the locality layer in force, given or by default, reads it (`delay`, `delay-room`);
/// `p` alone elsewhere, where the key changes nothing.
pub fn with_idle_room(p: Props) -> Vec<Props> {
    let reads = Config::from_properties(&p)
        .is_ok_and(|c| matches!(c.locality, LocalityKind::Delay | LocalityKind::DelayRoom));
    if !reads {
        return vec![p];
    }
    [true, false]
        .iter()
        .map(|v| {
            let mut q = p.clone();
            q.insert(DELAY_IDLE_ROOM.into(), v.to_string());
            q
        })
        .collect()
}

/// Every accepted combination, in a fixed order (an index names one in a reproducer). The
/// `locus.delay.idle-room=false` variants come after all the others, so the indexes that
/// reproducers written before the fuzzer drew that key name keep their layers.
pub fn valid() -> &'static [Props] {
    static VALID: OnceLock<Vec<Props>> = OnceLock::new();
    VALID.get_or_init(|| {
        let mut out = Vec::new();
        let mut later = Vec::new();
        for policy in JobPolicyKind::ALLOWED {
            for locality in LocalityKind::ALLOWED {
                for hotspot in HotspotKind::ALLOWED {
                    for slots in SlotsKind::ALLOWED {
                        let p = props_for(policy, locality, hotspot, slots);
                        if Core::new(&p).is_err() {
                            continue;
                        }
                        let mut variants = with_idle_room(p).into_iter();
                        out.extend(variants.next());
                        later.extend(variants);
                    }
                }
            }
        }
        out.append(&mut later);
        // `static` with a map share, after every combination above so their indexes keep
        // their layers: the only slot split the model can recompute (`map_share`).
        let shared: Vec<Props> = out
            .iter()
            .filter(|p| p.get("locus.slots").is_some_and(|s| s == "static"))
            .map(|p| {
                let mut q = p.clone();
                q.insert(MAP_SHARE.into(), "0.5".into());
                q
            })
            .filter(|p| Core::new(p).is_ok())
            .collect();
        out.extend(shared);
        // Size-based preemption on, for every fsp and fair combination above, last again.
        let size_based: Vec<Props> = out
            .iter()
            .filter(|p| {
                matches!(
                    p.get("locus.policy").map(String::as_str),
                    Some("fsp") | Some("fair")
                )
            })
            .map(|p| {
                let mut q = p.clone();
                q.insert(SIZE_BASED.into(), "true".into());
                q
            })
            .filter(|p| Core::new(p).is_ok())
            .collect();
        out.extend(size_based);
        // Every capacity combination under the dominant resource calculator, last again.
        let dominant: Vec<Props> = out
            .iter()
            .filter(|p| is_capacity(p))
            .map(|p| {
                let mut q = p.clone();
                q.remove("locus.capacity.queues");
                q.insert("locus.capacity.tree".into(), dominant_tree());
                q
            })
            .filter(|p| Core::new(p).is_ok())
            .collect();
        out.extend(dominant);
        out
    })
}

/// [`CAPACITY_QUEUES`] as a capacity-scheduler.xml's tree with
/// `resource-calculator=DominantResourceCalculator`: the queues' maxima hold in every type.
/// No partition is divided (the dominant calculator is refused with divided ones). The last
/// queue orders its applications fairly (`ordering-policy=fair`).
fn dominant_tree() -> String {
    let entry = |path: &str, cap: u64, max: u64, more: &str| {
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.5,"maximum_applications":-1{more}}}"#
        )
    };
    let mut queues = vec![entry("root", 100, 100, "")];
    let n = QUEUE_MAXIMA.len();
    for (i, ((name, max), (_, cap))) in QUEUE_MAXIMA.iter().zip(QUEUE_GUARANTEES).enumerate() {
        let more = if i + 1 == n {
            r#","ordering":"fair""#
        } else {
            ""
        };
        queues.push(entry(&format!("root.{name}"), cap, *max, more));
    }
    format!(
        r#"{{"maximum_applications":10000,"resource_calculator":"dominant","queues":[{}]}}"#,
        queues.join(",")
    )
}

/// Whether `p` runs `capacity` under the dominant resource calculator.
pub fn is_dominant(p: &Props) -> bool {
    is_capacity(p)
        && p.get("locus.capacity.tree")
            .is_some_and(|t| t.contains(r#""resource_calculator":"dominant""#))
}

/// `locus.preemption.size-based`; the combinations that set it come last in [`valid`].
pub const SIZE_BASED: &str = locus_core::config::PREEMPTION_SIZE_BASED;

/// Whether preemption rounds may take containers outside `capacity`'s queues.
pub fn is_size_based(p: &Props) -> bool {
    p.get(SIZE_BASED).is_some_and(|v| v == "true")
}

/// The static split's key; the combinations that set it come last in [`valid`].
pub const MAP_SHARE: &str = "locus.slots.map-share";

/// The share of the cluster `static` gives map containers, when set.
pub fn map_share(p: &Props) -> Option<f64> {
    if p.get("locus.slots").is_some_and(|s| s == "static") {
        p.get(MAP_SHARE).and_then(|v| v.parse().ok())
    } else {
        None
    }
}

pub fn describe(p: &Props) -> String {
    let mut shown = [
        "locus.policy",
        "locus.locality",
        "locus.hotspot",
        "locus.slots",
    ]
    .iter()
    .map(|k| {
        format!(
            "{}={}",
            &k[6..],
            p.get(*k).map(String::as_str).unwrap_or("?")
        )
    })
    .collect::<Vec<_>>();
    if let Some(v) = p.get(DELAY_IDLE_ROOM) {
        shown.push(format!("{}={v}", &DELAY_IDLE_ROOM[6..]));
    }
    if let Some(v) = p.get(MAP_SHARE) {
        shown.push(format!("{}={v}", &MAP_SHARE[6..]));
    }
    if let Some(v) = p.get(SIZE_BASED) {
        shown.push(format!("{}={v}", &SIZE_BASED[6..]));
    }
    if is_dominant(p) {
        shown.push("resource-calculator=dominant".into());
    }
    shown.join(" ")
}

pub fn is_capacity(p: &Props) -> bool {
    p.get("locus.policy").map(String::as_str) == Some("capacity")
}

/// The capacity queues' shares of the labelled partitions X and Y
/// ([`crate::model::PARTITIONS`]), drawn per case: per partition, per queue of
/// [`QUEUE_MAXIMA`], (absolute capacity %, absolute maximum-capacity %) there; and per queue
/// its `ordering-policy` (0: fifo, 1: fair, 2: fair with size-based weight); and the
/// running-application limits the tree sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartitionShares(pub [[(u64, u64); 2]; 2], pub [u64; 2], pub ParallelLimits);

/// `max-parallel-apps` of root, of each queue of [`QUEUE_MAXIMA`], of every user, and of
/// `user0` (`None`: not set). Small, so that applications are held and released often.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParallelLimits {
    pub root: Option<u32>,
    pub queues: [Option<u32>; 2],
    pub user_default: Option<u32>,
    pub user0: Option<u32>,
}

impl ParallelLimits {
    /// From its own stream of the seed, so the shares drawn before keep their values.
    fn draw(seed: u64) -> ParallelLimits {
        let mut r = crate::rng::Rng::new(crate::rng::mix(&[seed, 0x9a28]));
        let mut one = || (r.range(0, 1) == 0).then(|| r.range(1, 2) as u32);
        ParallelLimits {
            root: one(),
            queues: [one(), one()],
            user_default: one(),
            user0: one(),
        }
    }

    /// The limit of user `user` (`user0`'s own, else every user's).
    pub fn user(&self, user: &str) -> Option<u32> {
        if user == "user0" {
            self.user0.or(self.user_default)
        } else {
            self.user_default
        }
    }

    /// The limit of the queue named `queue` (`None`: none, or not one of [`QUEUE_MAXIMA`]).
    pub fn queue(&self, queue: &str) -> Option<u32> {
        let q = QUEUE_MAXIMA.iter().position(|(n, _)| *n == queue)?;
        self.queues[q]
    }
}

impl PartitionShares {
    /// From the case's seed alone, so a shrunk case keeps them.
    pub fn draw(seed: u64) -> PartitionShares {
        let mut r = crate::rng::Rng::new(crate::rng::mix(&[seed, 0x9a27]));
        let mut out = [[(0, 0); 2]; 2];
        for shares in &mut out {
            let c = r.range(0, 10) * 10;
            for (q, cap) in [c, 100 - c].into_iter().enumerate() {
                shares[q] = (cap, r.range(1, 10) * 10);
            }
        }
        let ordering = [r.range(0, 3), r.range(0, 3)];
        PartitionShares(out, ordering, ParallelLimits::draw(seed))
    }

    /// `queue`'s maximum-capacity % in the partition of label `label` (1: X, 2: Y); `None`
    /// for the default partition or another queue.
    pub fn maximum(&self, queue: &str, label: u8) -> Option<u64> {
        let q = QUEUE_MAXIMA.iter().position(|(n, _)| *n == queue)?;
        let p = (label as usize).checked_sub(1).filter(|p| *p < 2)?;
        Some(self.0[p][q].1)
    }
}

/// `p` with `capacity`'s queues as a capacity-scheduler.xml's tree (`locus.capacity.tree`, as
/// the shim hands it over) with the same default-partition shares, dividing X and Y by
/// `shares`; any other combination as it is.
pub fn with_partition_shares(mut p: Props, shares: &PartitionShares) -> Props {
    if !is_capacity(&p) || is_dominant(&p) {
        return p;
    }
    p.remove("locus.capacity.queues");
    let parallel = |limit: Option<u32>| {
        limit.map_or(String::new(), |n| format!(r#","max_parallel_apps":{n}"#))
    };
    let entry = |path: &str,
                 cap: u64,
                 max: u64,
                 x: (u64, u64),
                 y: (u64, u64),
                 order: u64,
                 limit: Option<u32>| {
        let ordering = match order {
            1 => r#","ordering":"fair""#,
            2 => r#","ordering":"fair","size_based_weight":true"#,
            _ => "",
        };
        format!(
            r#"{{"path":"{path}","capacity":{cap},"maximum_capacity":{max},"user_limit_factor":-1,"minimum_user_limit_percent":100,"maximum_am_resource_percent":0.5,"maximum_applications":-1,"partitions":{{"X":[{},{}],"Y":[{},{}]}}{ordering}{}}}"#,
            x.0,
            x.1,
            y.0,
            y.1,
            parallel(limit)
        )
    };
    let limits = shares.2;
    let mut queues = vec![entry(
        "root",
        100,
        100,
        (100, 100),
        (100, 100),
        0,
        limits.root,
    )];
    for (q, ((name, max), (_, cap))) in QUEUE_MAXIMA.iter().zip(QUEUE_GUARANTEES).enumerate() {
        queues.push(entry(
            &format!("root.{name}"),
            cap,
            *max,
            shares.0[0][q],
            shares.0[1][q],
            shares.1[q],
            limits.queues[q],
        ));
    }
    let mut users = String::new();
    if let Some(n) = limits.user_default {
        users.push_str(&format!(r#","user_max_parallel_apps":{n}"#));
    }
    if let Some(n) = limits.user0 {
        users.push_str(&format!(r#","users_max_parallel_apps":{{"user0":{n}}}"#));
    }
    p.insert(
        "locus.capacity.tree".into(),
        format!(
            r#"{{"maximum_applications":10000,"partitions":["X","Y"]{users},"queues":[{}]}}"#,
            queues.join(",")
        ),
    );
    p
}

/// Off-switch containers one heartbeat may hold for asks that name hosts or racks. TD and JoSS
/// pick a job per slot, local or not, and lift the limit by design (policy/td.rs, joss.rs).
pub fn off_switch_limit(p: &Props) -> u32 {
    let policy = p.get("locus.policy").map(String::as_str).unwrap_or("fifo");
    if matches!(policy, "td" | "joss-t" | "joss-j") {
        return u32::MAX;
    }
    p.get("locus.off-switch-per-heartbeat")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locality(p: &Props) -> &str {
        p.get("locus.locality").map(String::as_str).unwrap_or("?")
    }

    #[test]
    fn the_delay_layers_come_with_both_idle_room_values_and_the_rest_without_it() {
        let all = valid();
        for p in all {
            let reads = matches!(locality(p), "delay" | "delay-room");
            assert_eq!(p.contains_key(DELAY_IDLE_ROOM), reads, "{}", describe(p));
            if reads {
                let mut other = p.clone();
                let flipped = if p[DELAY_IDLE_ROOM] == "true" {
                    "false"
                } else {
                    "true"
                };
                other.insert(DELAY_IDLE_ROOM.into(), flipped.into());
                assert!(all.contains(&other), "{} has no twin", describe(p));
            }
        }
        assert!(all.iter().any(|p| locality(p) == "delay-room"));
    }

    #[test]
    fn the_idle_room_false_variants_follow_every_other_combination() {
        let all = valid();
        let first_false = all
            .iter()
            .position(|p| p.get(DELAY_IDLE_ROOM).is_some_and(|v| v == "false"))
            .expect("some combination draws idle-room=false");
        let first_shared = all
            .iter()
            .position(|p| p.contains_key(MAP_SHARE))
            .expect("some combination sets a map share");
        assert!(all[first_false..first_shared]
            .iter()
            .all(|p| p.get(DELAY_IDLE_ROOM).is_some_and(|v| v == "false")));
        let first_size_based = all
            .iter()
            .position(is_size_based)
            .expect("some combination turns size-based preemption on");
        assert!(all[first_shared..first_size_based]
            .iter()
            .all(|p| map_share(p) == Some(0.5)));
        let first_dominant = all
            .iter()
            .position(is_dominant)
            .expect("some combination runs capacity under the dominant calculator");
        assert!(all[first_size_based..first_dominant]
            .iter()
            .all(is_size_based));
        assert!(all[first_dominant..].iter().all(is_dominant));
    }
}
