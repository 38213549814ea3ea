//! Delta debugging over a failing case's actions: drop chunks (halves, quarters, ...), then
//! single actions, keeping a removal whenever the smaller case still fails with the same class.

use crate::action::Case;
use crate::failure::Failure;
use crate::runner;

/// Stops a shrink that would otherwise take very long on a slow failure.
pub const MAX_SHRINK_RUNS: usize = 2_000;

pub fn shrink(case: &Case, failure: &Failure) -> (Case, Failure) {
    let mut best = case.clone();
    let mut best_failure = failure.clone();
    // Actions after the failing step cannot matter (the drain is kept if it failed there).
    if failure.step < best.actions.len() {
        best.actions.truncate(failure.step + 1);
        best.drain = false;
        if let Err(f) = runner::run(&best) {
            if f.class == failure.class {
                best_failure = f;
            } else {
                best = case.clone();
            }
        } else {
            best = case.clone();
        }
    }
    let mut runs = 0;
    let mut chunk = best.actions.len() / 2;
    while chunk >= 1 && runs < MAX_SHRINK_RUNS {
        let mut i = 0;
        let mut removed_any = false;
        while i < best.actions.len() && runs < MAX_SHRINK_RUNS {
            let mut trial = best.clone();
            let end = (i + chunk).min(trial.actions.len());
            trial.actions.drain(i..end);
            runs += 1;
            match runner::run(&trial) {
                Err(f) if f.class == failure.class => {
                    best = trial;
                    best_failure = f;
                    removed_any = true;
                }
                _ => i += chunk,
            }
        }
        if !removed_any {
            chunk /= 2;
        }
    }
    (best, best_failure)
}
