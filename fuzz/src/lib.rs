//! locus-fuzz: random and hostile event sequences against locus-core, executed by a model of
//! the ResourceManager, with invariants after every step, a liveness drain, delta-debugging
//! shrinking and replayable JSON reproducers. See docs/design/fuzzing.md.

pub mod action;
pub mod combos;
pub mod contention;
pub mod failure;
pub mod gen;
pub mod hostile;
pub mod model;
pub mod repro;
pub mod rng;
pub mod runner;
pub mod shrink;

pub use action::{Action, Case};
pub use failure::Failure;

/// Silences the default panic message while the fuzzer provokes panics on purpose (they are
/// caught and reported as failures); `LOCUS_FUZZ_PANICS=1` shows them.
pub fn quiet_panics() {
    if std::env::var_os("LOCUS_FUZZ_PANICS").is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
}
