//! What a fuzz case is made of. Actions are at the level of the ResourceManager (a node joins,
//! an AM sends its asks, a node heartbeats); the model turns each into the core's events and
//! executes the decisions, so a shrunk sequence stays meaningful: an action naming something
//! that no longer exists is skipped rather than sent.

use locus_core::Ask;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    AddNode {
        host: u32,
        rack: u32,
        memory_mb: u64,
        vcores: u32,
        /// The node's GPUs: the core's first resource type beyond memory and vcores.
        #[serde(default, skip_serializing_if = "is_zero")]
        gpus: u64,
    },
    RemoveNode {
        host: u32,
    },
    ResizeNode {
        host: u32,
        memory_mb: u64,
        vcores: u32,
        #[serde(default, skip_serializing_if = "is_zero")]
        gpus: u64,
    },
    AddApp {
        app: u32,
        queue: String,
        app_type: String,
        tags: Vec<String>,
    },
    RemoveApp {
        app: u32,
    },
    AddAttempt {
        app: u32,
    },
    /// `yarn application -updatePriority` (`app_priority_changed`).
    SetPriority {
        app: u32,
        priority: i32,
    },
    /// `moveApplication` to another queue (`app_moved`); the RM shows a refusal (a queue
    /// at its application limit) to the user and the app stays where it was.
    Move {
        app: u32,
        queue: String,
    },
    RemoveAttempt {
        app: u32,
    },
    /// A full snapshot (`asks_updated`).
    Snapshot {
        app: u32,
        asks: Vec<Ask>,
    },
    /// Changed rows only (`asks_changed`).
    Change {
        app: u32,
        asks: Vec<Ask>,
    },
    /// The blacklist in force for the app (`app_blacklist`): these hosts and every host of
    /// these racks; replaces the last.
    Blacklist {
        app: u32,
        hosts: Vec<u32>,
        racks: Vec<u32>,
    },
    /// The node's label (`node_partition`): 0 none, 1 the exclusive `X`, 2 the
    /// non-exclusive `Y` (see [`crate::model::PARTITIONS`]).
    Label {
        host: u32,
        label: u8,
    },
    /// The partition one scheduler key `(priority, 0)` of the app asks for
    /// (`key_partitions`, the app's whole list sent again), labels as in [`Action::Label`].
    KeyPartition {
        app: u32,
        priority: i32,
        label: u8,
    },
    Heartbeat {
        host: u32,
    },
    /// An async sweep's offer of the node (`locus.scheduling.mode=async`): decided like a
    /// heartbeat but not a scheduling opportunity, and no completions are reported with it. At
    /// an odd step it is an eager offer instead (`heartbeat` mode's, `Heartbeat::eager`).
    Sweep {
        host: u32,
    },
    /// The nodes' heartbeats (each releasing its finished containers) offered to the core in
    /// one batch (`Core::offers`), their decisions executed only after the batch, as the shim's
    /// scheduling thread does.
    Offers {
        hosts: Vec<u32>,
    },
    /// Switch to the layer combination at this index of [`crate::combos::valid`].
    Reconfigure {
        combo: usize,
    },
    /// A preemption round (the RM's scheduling monitor under `capacity`): the containers it
    /// chooses are checked, and those whose wait is over are killed.
    PreemptionRound {
        /// `total_preemption_per_round`, in percent.
        total_percent: u32,
        /// `natural_termination_factor`, in percent.
        factor_percent: u32,
        /// `max_wait_before_kill`, in heartbeats (1 s each).
        wait_rounds: u32,
        /// Intra-queue preemption on, with these settings (off when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intra: Option<IntraDraw>,
    },
}

/// The `intra-queue-preemption.*` settings of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntraDraw {
    /// `preemption-order-policy=priority_first` (else `userlimit_first`).
    pub priority_first: bool,
    /// `max-allowable-limit`, in percent.
    pub allowable_percent: u32,
    /// `minimum-threshold`, in percent.
    pub threshold_percent: u32,
}

impl IntraDraw {
    pub fn draw(rng: &mut crate::rng::Rng) -> Option<IntraDraw> {
        rng.chance(50).then(|| IntraDraw {
            priority_first: rng.chance(50),
            allowable_percent: rng.range(0, 100) as u32,
            threshold_percent: rng.range(0, 100) as u32,
        })
    }
}

/// A whole case: replayable from this alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub seed: u64,
    /// Index into [`crate::combos::valid`] the core starts with.
    pub combo: usize,
    pub actions: Vec<Action>,
    /// Heartbeat every node this many rounds after the actions, checking liveness.
    pub drain: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
