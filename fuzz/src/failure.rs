//! A failure the fuzzer found: its class (what the shrinker must keep reproducing) and the
//! detail a developer reads.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// Stable name, e.g. `decision_beyond_free_resource`, `starvation`, `panic`.
    pub class: String,
    pub detail: String,
    /// Index of the action that showed it (actions.len() and above: the drain phase).
    pub step: usize,
}

impl Failure {
    pub fn new(class: &str, step: usize, detail: impl Into<String>) -> Failure {
        Failure { class: class.to_string(), detail: detail.into(), step }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at step {}: {}", self.class, self.step, self.detail)
    }
}
