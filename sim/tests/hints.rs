//! The paper workloads' hint tags reach the core in `app_added` and change its decisions.

use std::collections::BTreeMap;

use clap::Parser;
use locus_sim::engine::Engine;
use locus_sim::report;
use locus_sim::rng::Rng;
use locus_sim::run::{self, Args};
use locus_sim::workload::joss;

fn off_datacenter_share(w: &locus_sim::workload::Workload) -> f64 {
    let args = Args::try_parse_from(["locus-sim", "--no-progress"]).unwrap();
    let cfg = run::config(&args, &w.cluster).unwrap();
    let props: BTreeMap<String, String> =
        [("locus.policy".to_string(), "joss-t".to_string())].into();
    let raw = Engine::new(w, &cfg, "joss-t", props)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(raw.finished, w.jobs.len());
    report::summarise(&raw, None, true, false)
        .map_locality
        .off_share
}

#[test]
fn joss_classifies_jobs_from_their_fp_tags_and_keeps_maps_in_their_datacenter() {
    let tagged = joss::generate("small", &mut Rng::new(5)).unwrap();
    let mut untagged = tagged.clone();
    for j in &mut untagged.jobs {
        j.tags.clear();
    }
    let with = off_datacenter_share(&tagged);
    let without = off_datacenter_share(&untagged);
    // Without a filtering percentage JoSS cannot classify a job and runs it through its FIFO
    // queues, which ignore datacenters: about half the single-replica blocks are elsewhere.
    assert!(
        with + 0.1 < without,
        "off-datacenter maps with tags {with:.3}, without {without:.3}"
    );
}
