//! Locus scheduling core. Owns the scheduling state and every decision; knows nothing of JNI.
//! The shim (over JNI), the simulator and the tests all drive it through [`Core`].
//!
//! By layer, each depending only on the layers below it:
//!
//! - [`core`]: the API (`Core::new/reconfigure/handle/heartbeat/stats`) and event handling rules;
//!   [`schedule`]: the decision procedure run on each node heartbeat (YARN's counting rules);
//!   [`preemption`]: inter-queue preemption rounds under `capacity` (CapacityScheduler's
//!   `ProportionalCapacityPreemptionPolicy`, its keys, what to mark and what to kill).
//! - [`policy`]: the four policy layers the procedure consults (traits) and Hadoop's own
//!   behaviour for each (FIFO, fair, fsp, capacity queues, delay scheduling, static slots).
//! - [`papers`]: the seed papers' algorithms over plain data, each with its YARN adapter beside it.
//! - [`profile`]: job profiles learned from container run times, the store every profile-based
//!   policy reads, and its writer off the scheduling thread.
//! - [`state`]: nodes, applications (with MapReduce's [`TaskKind`]), their asks, running
//!   containers, queues, interned names, topology, decisions in flight, rejections.
//! - [`config`]: the `locus.*` settings, their defaults and validation; [`hints`]: the `locus.*`
//!   application tags; [`side_files`]: bounded reads of the files the settings name.
//! - The wire: [`protocol`] (events and decisions), [`frame`] (the asks frame),
//!   [`events_frame`], [`decisions_frame`], [`offers`], [`digest`] (the asks digest the shim and
//!   the core compare).
//! - [`error`], [`fast_hash`] (the hasher of the hot maps).

pub mod config;
pub mod core;
pub mod decisions_frame;
pub mod digest;
pub mod error;
pub mod events_frame;
pub mod fast_hash;
pub mod frame;
pub mod hints;
pub mod layers;
pub mod offers;
pub mod papers;
pub mod policy;
pub mod preemption;
pub mod profile;
pub mod protocol;
pub mod schedule;
pub mod side_files;
pub mod state;

pub use crate::config::Config;
pub use crate::core::{Core, Stats};
pub use crate::error::CoreError;
pub use crate::protocol::*;
pub use crate::state::app::{SlotKind, TaskKind, MAX_BLACKLIST_PLACES, MAX_KEY_PARTITIONS};
