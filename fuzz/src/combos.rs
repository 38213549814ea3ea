//! Every layer combination the settings accept (policy x locality x hotspot x slots, with
//! capacity's queues), found by asking `Core::new` itself so the list follows the config rules.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use locus_core::config::{HotspotKind, JobPolicyKind, LocalityKind, SlotsKind};
use locus_core::Core;

/// Queues the capacity combinations use; the model checks their maxima.
pub const CAPACITY_QUEUES: &str = "default:60:90,etl:40:70";
/// (name, maximum-capacity %) of [`CAPACITY_QUEUES`].
pub const QUEUE_MAXIMA: [(&str, u64); 2] = [("default", 90), ("etl", 70)];

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

/// Every accepted combination, in a fixed order (an index names one in a reproducer).
pub fn valid() -> &'static [Props] {
    static VALID: OnceLock<Vec<Props>> = OnceLock::new();
    VALID.get_or_init(|| {
        let mut out = Vec::new();
        for policy in JobPolicyKind::ALLOWED {
            for locality in LocalityKind::ALLOWED {
                for hotspot in HotspotKind::ALLOWED {
                    for slots in SlotsKind::ALLOWED {
                        let p = props_for(policy, locality, hotspot, slots);
                        if Core::new(&p).is_ok() {
                            out.push(p);
                        }
                    }
                }
            }
        }
        out
    })
}

pub fn describe(p: &Props) -> String {
    [
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
    .collect::<Vec<_>>()
    .join(" ")
}

pub fn is_capacity(p: &Props) -> bool {
    p.get("locus.policy").map(String::as_str) == Some("capacity")
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
