//! An AM asking for 2^31-1 or 2^32-1 maps must not make JoSS or MROSA materialise one
//! element per outstanding map (that aborted the process: "memory allocation of 103079215080
//! bytes failed"); the job gets a container on the next heartbeat like any other.
//! Its own test binary, so that such an abort takes down only these tests.

mod common;

use common::{core_with, set_small_asks};
use locus_core::{Core, Decision};

const HUGE: [u32; 2] = [i32::MAX as u32, u32::MAX];

fn cluster(pairs: &[(&str, &str)]) -> Core {
    let mut c = core_with(pairs);
    for (host, rack) in [("a1", "/cen1/r1"), ("b1", "/cen2/r1")] {
        common::add_node(&mut c, host, rack, 8, 8);
    }
    c
}

fn maps_given(ds: &[Decision], app: &str) -> u32 {
    ds.iter()
        .filter(|d| d.app == app && d.priority == 20)
        .map(|d| d.count)
        .sum()
}

fn assert_huge_job_runs(pairs: &[(&str, &str)], tags: &[&str]) {
    for count in HUGE {
        let mut c = cluster(pairs);
        common::add_app_named(&mut c, "app_1", "huge", 1, "MAPREDUCE", tags);
        // Every map's block on a1 as well as anywhere: the per-host count is as large as the job.
        set_small_asks(
            &mut c,
            "app_1",
            &[(20, "a1", count), (20, "/cen1/r1", count), (20, "*", count)],
        );
        let ds = common::heartbeat_free(&mut c, "a1", 8, 8, 1_000);
        assert_eq!(
            maps_given(&ds, "app_1"),
            8,
            "{pairs:?} count {count}: {ds:?}"
        );
        // Off the data (TD rations non-local slots): some of the node, and no abort.
        let ds = common::heartbeat_free(&mut c, "b1", 8, 8, 2_000);
        assert!(
            maps_given(&ds, "app_1") > 0,
            "{pairs:?} count {count}: {ds:?}"
        );
    }
}

#[test]
fn joss_t_gives_a_huge_job_containers() {
    assert_huge_job_runs(&[("locus.policy", "joss-t")], &[]);
}

#[test]
fn joss_j_gives_a_huge_job_containers() {
    assert_huge_job_runs(&[("locus.policy", "joss-j")], &[]);
}

#[test]
fn mrosa_gives_a_huge_deadline_job_containers() {
    assert_huge_job_runs(&[("locus.policy", "mrosa")], &["locus.deadline=600"]);
}

#[test]
fn td_gives_a_huge_job_containers() {
    assert_huge_job_runs(&[("locus.policy", "td")], &[]);
}
