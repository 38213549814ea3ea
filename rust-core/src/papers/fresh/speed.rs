//! What keeps FRESH's adapters cheap per heartbeat, kept apart from the model in [`super`] and
//! the adapters in [`super::yarn`] and [`super::slots`]: answers remembered until what they were
//! computed from changes.

use std::cell::RefCell;

use super::JobPhase;
use crate::fast_hash::FastMap;
use crate::state::app::Arrival;

/// Each application's phase in the model, remembered until the model next changes: `admit` asks
/// for every key of every app on every heartbeat, and each lookup in the model hashed and
/// compared an application id. Whoever changes the model calls [`forget`](Self::forget).
#[derive(Debug, Default)]
pub(super) struct PhaseMemo(RefCell<FastMap<Arrival, Option<JobPhase>>>);

impl PhaseMemo {
    /// `app`'s phase, from `look_up` the first time it is asked for since the last `forget`.
    pub(super) fn get(
        &self,
        app: Arrival,
        look_up: impl FnOnce() -> Option<JobPhase>,
    ) -> Option<JobPhase> {
        *self.0.borrow_mut().entry(app).or_insert_with(look_up)
    }

    pub(super) fn forget(&mut self) {
        self.0.get_mut().clear();
    }
}

/// Algorithm 1's `s_m` for one set of jobs and one `S`: it is solved again only when the jobs
/// present (in submission order) or `S` change, not at every heartbeat.
#[derive(Debug, Default)]
pub(super) struct PlanMemo(Option<(Vec<Arrival>, u32, u32)>);

impl PlanMemo {
    /// The `s_m` remembered for exactly these jobs and this `S`.
    pub(super) fn get(&self, jobs: &[Arrival], total: u32) -> Option<u32> {
        match &self.0 {
            Some((ids, s, sm)) if ids.as_slice() == jobs && *s == total => Some(*sm),
            _ => None,
        }
    }

    pub(super) fn set(&mut self, jobs: Vec<Arrival>, total: u32, s_m: u32) {
        self.0 = Some((jobs, total, s_m));
    }

    pub(super) fn forget(&mut self) {
        self.0 = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_is_looked_up_once_until_forgotten() {
        let mut memo = PhaseMemo::default();
        let mut lookups = 0;
        for _ in 0..3 {
            let got = memo.get(Arrival(7), || {
                lookups += 1;
                Some(JobPhase::Map)
            });
            assert_eq!(got, Some(JobPhase::Map));
        }
        assert_eq!(lookups, 1);
        memo.forget();
        assert_eq!(
            memo.get(Arrival(7), || Some(JobPhase::Reduce)),
            Some(JobPhase::Reduce)
        );
    }

    #[test]
    fn a_plan_is_reused_only_for_the_same_jobs_and_slots() {
        let mut memo = PlanMemo::default();
        assert_eq!(memo.get(&[Arrival(1), Arrival(2)], 10), None);
        memo.set(vec![Arrival(1), Arrival(2)], 10, 6);
        assert_eq!(memo.get(&[Arrival(1), Arrival(2)], 10), Some(6));
        assert_eq!(
            memo.get(&[Arrival(2), Arrival(1)], 10),
            None,
            "order matters: Algorithm 1 reads it"
        );
        assert_eq!(memo.get(&[Arrival(1), Arrival(2)], 12), None);
        assert_eq!(memo.get(&[Arrival(1)], 10), None);
        memo.forget();
        assert_eq!(memo.get(&[Arrival(1), Arrival(2)], 10), None);
    }
}
