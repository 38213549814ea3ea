//! Locus scheduling core. Owns the scheduling state and every decision; knows nothing of JNI.
//! The shim (over JNI), the simulator and the tests all drive it through [`Core`].

pub mod app;
pub mod ask;
pub mod config;
pub mod container;
pub mod core;
pub mod error;
pub mod inflight;
pub mod names;
pub mod node;
pub mod papers;
pub mod policy;
pub mod protocol;
pub mod queue;
pub mod schedule;
pub mod state;
pub mod topology;

pub use crate::app::{SlotKind, TaskKind};
pub use crate::config::Config;
pub use crate::core::{Core, Stats};
pub use crate::error::CoreError;
pub use crate::protocol::*;
