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
    /// The layer combination in effect when it failed (cases reconfigure mid-run).
    #[serde(default)]
    pub layers: String,
}

impl Failure {
    pub fn new(class: &str, step: usize, detail: impl Into<String>) -> Failure {
        Failure {
            class: class.to_string(),
            detail: detail.into(),
            step,
            layers: String::new(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at step {} under {}: {}",
            self.class, self.step, self.layers, self.detail
        )
    }
}

impl Failure {
    /// What makes two failures the same finding: the class and the policy/slots layers.
    pub fn signature(&self) -> String {
        let keep: Vec<&str> = self
            .layers
            .split(' ')
            .filter(|p| p.starts_with("policy=") || p.starts_with("slots="))
            .collect();
        format!("{} {}", self.class, keep.join(" "))
    }
}
