//! Locus scheduling core. Owns the scheduling state and every decision; knows nothing of JNI.
//! The shim (over JNI), the simulator and the tests all drive it through [`Core`].

pub mod core;
pub mod error;
pub mod papers;
pub mod protocol;

pub use crate::core::{Core, Stats};
pub use crate::error::CoreError;
pub use crate::protocol::*;
