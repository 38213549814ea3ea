//! Locus scheduling core. Owns the scheduling state and every decision; knows nothing of JNI.
//! The shim (over JNI), the simulator and the tests all drive it through [`Core`].
//!
//! - [`core`]: the API (`Core::new/reconfigure/handle/heartbeat/stats`) and event handling rules.
//! - [`config`]: the `locus.*` settings, their defaults and validation.
//! - [`state`]: nodes ([`node`]), applications ([`app`], with MapReduce's [`TaskKind`]),
//!   their asks ([`ask`]), running containers ([`container`]) and queues ([`queue`]).
//! - [`topology`]: rack and datacenter of a node; the host → datacenter mapping file.
//! - [`schedule`]: the decision procedure run on each node heartbeat (YARN's counting rules).
//! - [`policy`]: the four policy layers the procedure consults.
//! - [`preemption`]: inter-queue preemption rounds under `capacity` (CapacityScheduler's
//!   `ProportionalCapacityPreemptionPolicy`, its keys, what to mark and what to kill).
//! - [`inflight`]: decisions the shim has not executed or rejected yet.
//! - [`digest`]: the per-application asks digest the shim and the core compare.
//! - [`frame`]: the binary asks frame the shim sends on the allocate() path.
//! - [`rejections`]: backing an app off a node where the shim keeps rejecting it.
//! - [`hints`]: the `locus.*` application tags (deadline, budget, demand, fp, input type).
//! - [`profile`]: job profiles learned from container run times, persisted across restarts.
//! - [`profile_writer`]: writes the profile store off the scheduling thread, atomically.
//! - [`side_files`]: bounded reads of the files the settings name; what a rebuilt core takes over.
//! - [`names`]: interned host/rack names for cheap heartbeat lookups.
//! - [`fast_hash`]: the hasher of the hot maps (ids and names from the RM).

pub mod app;
pub mod ask;
pub mod config;
pub mod container;
pub mod core;
pub mod decisions_frame;
pub mod digest;
pub mod error;
pub mod events_frame;
pub mod fast_hash;
pub mod frame;
pub mod hints;
pub mod inflight;
pub mod names;
pub mod node;
pub mod offers;
pub mod papers;
pub mod policy;
pub mod preemption;
pub mod profile;
pub mod profile_writer;
pub mod protocol;
pub mod queue;
pub mod rejections;
pub mod schedule;
pub mod side_files;
pub mod state;
pub mod topology;
mod waiting;

pub use crate::app::{SlotKind, TaskKind, MAX_BLACKLIST_PLACES, MAX_KEY_PARTITIONS};
pub use crate::config::Config;
pub use crate::core::{Core, Stats};
pub use crate::error::CoreError;
pub use crate::protocol::*;
