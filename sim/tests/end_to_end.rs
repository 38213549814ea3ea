//! Whole runs through the command-line entry point, against the real core.

use clap::Parser;
use locus_sim::run::{self, Args};

fn args(extra: &[&str]) -> Args {
    let mut v = vec!["locus-sim", "--no-progress"];
    v.extend_from_slice(extra);
    match Args::try_parse_from(v) {
        Ok(a) => a,
        Err(e) => panic!("bad test arguments: {e}"),
    }
}

fn outcome(extra: &[&str]) -> run::Outcome {
    match run::run(&args(extra)) {
        Ok(o) => o,
        Err(e) => panic!("run failed: {e}"),
    }
}

#[test]
fn small_facebook_schedule_finishes_every_job_with_sane_metrics() {
    let o = outcome(&["--fb-bins", "5", "--nodes", "12", "--racks", "3"]);
    let s = &o.summaries[0];
    assert_eq!(s.jobs, 82, "bins 1-5 of Table 4 hold 38+16+14+8+6 jobs");
    assert_eq!(s.finished, s.jobs);
    let m = &s.map_locality;
    let maps: u64 = o.workload.jobs.iter().map(|j| j.maps.len() as u64).sum();
    assert_eq!(
        m.node + m.rack + m.datacenter + m.remote,
        maps,
        "every map counted once (no failures)"
    );
    assert!((m.node_share + m.rack_or_dc_share + m.off_share - 1.0).abs() < 1e-9);
    assert!(m.node_share > 0.0);
    assert!(s.turnaround.p50_s <= s.turnaround.p95_s && s.turnaround.p95_s <= s.turnaround.p99_s);
    assert!(s.makespan_s >= s.turnaround.p99_s);
    assert_eq!(
        s.rejected_decisions, 0,
        "the simulator only executes decisions it can"
    );
    // every container the core placed ran an AM or a task attempt, or the AM gave it back
    assert_eq!(
        s.core_locality.values().sum::<u64>(),
        s.jobs as u64 + s.task_attempts + s.unused_containers
    );
    let reduces: u64 = o.workload.jobs.iter().map(|j| j.reduces.len() as u64).sum();
    assert_eq!(s.task_attempts, maps + reduces + s.preempted_reduces);
}

#[test]
fn same_seed_gives_identical_json_and_another_seed_differs() {
    let a = [
        "--workload",
        "synthetic",
        "--jobs",
        "40",
        "--nodes",
        "20",
        "--racks",
        "4",
        "--no-timing",
        "--seed",
        "7",
    ];
    let one = run::json(&outcome(&a)).unwrap_or_default();
    let two = run::json(&outcome(&a)).unwrap_or_default();
    assert!(!one.is_empty());
    assert_eq!(one, two);
    let mut b = a;
    b[b.len() - 1] = "8";
    assert_ne!(one, run::json(&outcome(&b)).unwrap_or_default());
}

#[test]
fn node_failure_reruns_lost_work_and_every_job_still_finishes() {
    let base = ["--fb-bins", "4", "--nodes", "8", "--racks", "2"];
    let healthy = outcome(&base);
    let mut failing = base.to_vec();
    failing.extend_from_slice(&["--fail-node-at", "3@120", "--fail-node-at", "node006@300"]);
    let o = outcome(&failing);
    let s = &o.summaries[0];
    assert_eq!(s.finished, s.jobs);
    assert!(
        s.lost_tasks > 0,
        "the failures hit running or finished work"
    );
    let h = &healthy.summaries[0];
    assert!(
        s.task_attempts > h.task_attempts,
        "lost work ran again: {} vs {}",
        s.task_attempts,
        h.task_attempts
    );
}

#[test]
fn several_policies_run_side_by_side_and_unknown_ones_are_named() {
    let o = outcome(&[
        "--fb-bins",
        "3",
        "--nodes",
        "6",
        "--policy",
        "fifo,fifo;locus.assign-multiple=false",
    ]);
    assert_eq!(o.summaries.len(), 2);
    assert!(o.table.contains("fifo;locus.assign-multiple=false"));
    assert_eq!(o.summaries[0].turnaround.normalised_mean, 1.0);
    let err = run::run(&args(&["--policy", "no-such-policy"]))
        .err()
        .unwrap_or_default();
    assert!(
        err.contains("locus.policy") && err.contains("no-such-policy"),
        "{err}"
    );
}

#[test]
fn a_capacity_run_spreads_jobs_over_its_queues_and_finishes_every_job() {
    let o = outcome(&[
        "--fb-bins",
        "4",
        "--nodes",
        "8",
        "--policy",
        "capacity;locus.capacity.queues=a:50:90,b:50:90,fifo",
    ]);
    let (cap, fifo) = (&o.raws[0], &o.raws[1]);
    assert_eq!(o.summaries[0].finished, o.summaries[0].jobs);
    // In submission order the jobs alternate between the queues.
    let mut order: Vec<usize> = (0..cap.jobs).collect();
    order.sort_by_key(|&i| (cap.submit_ms[i], i));
    for (k, &i) in order.iter().enumerate() {
        let want = if k % 2 == 0 { "a" } else { "b" };
        assert_eq!(cap.job_queues[i], want, "job {i}, {k}th submitted");
    }
    // Both queues ran work, neither beyond its maximum-capacity.
    assert_eq!(cap.queue_peak_share.len(), 2, "{:?}", cap.queue_peak_share);
    for (q, share) in &cap.queue_peak_share {
        assert!(
            *share > 0.0 && *share <= 0.9 + 1e-9,
            "queue {q} peaked at {share}"
        );
    }
    // Other policies keep the workload's queue.
    assert!(fifo.job_queues.iter().all(|q| q == "default"));
    assert!(fifo.queue_peak_share.is_empty());

    let err = run::run(&args(&["--queue-assignment", "random"]))
        .err()
        .unwrap_or_default();
    assert!(
        err.contains("random") && err.contains("round-robin"),
        "{err}"
    );
}

#[test]
fn bad_input_is_named() {
    let e = run::run(&args(&["--fail-node-at", "99@5"]))
        .err()
        .unwrap_or_default();
    assert!(e.contains("99"), "{e}");
    let e = run::run(&args(&["--map-memory-mb", "99999"]))
        .err()
        .unwrap_or_default();
    assert!(
        e.contains("map container") && e.contains("bigger than any node"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("locus-sim-test-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let bad = dir.join("bad.tsv");
    let _ = std::fs::write(&bad, "job0\t1\t1\t10\t0\t0\njob1\t2\tx\n");
    let e = run::run(&args(&[
        "--workload",
        "swim",
        "--trace",
        bad.to_str().unwrap_or(""),
    ]))
    .err()
    .unwrap_or_default();
    assert!(e.contains("line 2"), "{e}");
}

#[test]
fn sls_trace_replays_with_trace_hosts_and_durations() {
    let dir = std::env::temp_dir().join(format!("locus-sim-sls-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("jobs.json");
    let trace = r#"
{"am.type":"mapreduce","job.start.ms":0,"job.end.ms":60000,"job.queue.name":"default","job.id":"job_1","job.user":"alice",
 "job.tasks":[
  {"container.host":"/default-rack/node1","container.start.ms":5000,"container.end.ms":15000,"container.priority":20,"container.type":"map"},
  {"container.host":"/default-rack/node2","container.start.ms":5000,"container.end.ms":25000,"container.priority":20,"container.type":"map"},
  {"container.host":"/default-rack/node3","container.start.ms":30000,"container.end.ms":40000,"container.priority":10,"container.type":"reduce"}]}
{"am.type":"mapreduce","job.start.ms":"1000","job.id":"job_2","job.tasks":[
  {"container.host":"/rack2/node4","container.duration.ms":"3000","container.type":"map","count":"3"}]}
"#;
    let _ = std::fs::write(&path, trace);
    let o = outcome(&["--workload", "sls", "--trace", path.to_str().unwrap_or("")]);
    assert_eq!(o.workload.cluster.nodes.len(), 4);
    assert_eq!(o.workload.cluster.racks.len(), 2);
    assert_eq!(o.workload.jobs[1].maps.len(), 3);
    let s = &o.summaries[0];
    assert_eq!(s.finished, 2);
    // job 1 cannot finish before its 20 s map and 10 s reduce ran one after the other
    assert!(s.turnaround.p99_s >= 30.0, "{}", s.turnaround.p99_s);
}

#[test]
fn readers_of_one_node_share_its_bandwidth_so_a_hot_block_slows_maps() {
    let base = [
        "--fb-bins",
        "4",
        "--nodes",
        "10",
        "--replication",
        "1",
        "--no-timing",
    ];
    let mut hot = base.to_vec();
    hot.extend_from_slice(&["--dataset-blocks", "1"]);
    let mut spread = base.to_vec();
    spread.extend_from_slice(&["--dataset-blocks", "500"]);
    let (h, s) = (outcome(&hot), outcome(&spread));
    let (h, s) = (&h.summaries[0], &s.summaries[0]);
    assert_eq!(h.finished, h.jobs);
    assert!(h.hotspots > 0, "one node serving every map is a hotspot");
    assert!(
        h.map_task_mean_s > 2.0 * s.map_task_mean_s,
        "maps reading one node take {:.1} s against {:.1} s when the data is spread",
        h.map_task_mean_s,
        s.map_task_mean_s
    );
}

#[test]
fn public_cost_is_every_task_second_on_a_public_node_times_its_price() {
    let dir = std::env::temp_dir().join(format!("locus-sim-cost-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let trace = dir.join("jobs.json");
    // SLS tasks run exactly their trace durations: 10 s + 20 s + 3 x 3 s = 39 task seconds.
    let _ = std::fs::write(
        &trace,
        r#"
{"am.type":"mapreduce","job.start.ms":0,"job.id":"job_1","job.tasks":[
  {"container.host":"/cloud/pub1","container.duration.ms":10000,"container.type":"map"},
  {"container.host":"/cloud/pub1","container.duration.ms":20000,"container.type":"map"}]}
{"am.type":"mapreduce","job.start.ms":5000,"job.id":"job_2","job.tasks":[
  {"container.host":"/cloud/pub1","container.duration.ms":3000,"container.type":"map","count":3}]}
"#,
    );
    let pool = dir.join("pool.txt");
    // ec2-2c of TABLE IV: 27 x 10^-6 $/s.
    let _ = std::fs::write(&pool, "pub1 ec2-2c 0.000027 4800 1.25\n");
    let (trace, pool) = (trace.to_str().unwrap_or(""), pool.to_str().unwrap_or(""));
    let o = outcome(&["--workload", "sls", "--trace", trace, "--public-pool", pool]);
    let s = &o.summaries[0];
    assert_eq!(s.finished, 2);
    assert_eq!(s.public_tasks, Some(5));
    let cost = s.public_cost.unwrap_or(f64::NAN);
    assert!((cost - 39.0 * 27e-6).abs() < 1e-12, "{cost}");
    assert!(o.table.contains("public cost ($)"), "{}", o.table);

    // Without a pool nothing is public and the rows stay out of the table.
    let plain = outcome(&["--workload", "sls", "--trace", trace]);
    assert_eq!(plain.summaries[0].public_cost, None);
    assert!(!plain.table.contains("public cost"));

    // A pool naming a host the cluster lacks is refused, naming the host.
    let _ = std::fs::write(dir.join("other.txt"), "pub9 ec2-2c 0.000027 4800 1.25\n");
    let other = dir.join("other.txt");
    let e = match run::run(&args(&[
        "--workload",
        "sls",
        "--trace",
        trace,
        "--public-pool",
        other.to_str().unwrap_or(""),
    ])) {
        Ok(_) => panic!("a pool host outside the cluster was accepted"),
        Err(e) => e,
    };
    assert!(e.contains("pub9"), "{e}");
}

#[test]
fn mrosa_exp3_needs_its_pool_and_prices_every_policy_on_the_same_instances() {
    let e = match run::run(&args(&["--workload", "mrosa-exp3", "--mrosa-maps", "16"])) {
        Ok(_) => panic!("mrosa-exp3 ran without a public pool"),
        Err(e) => e,
    };
    assert!(
        e.contains("--public-pool") && e.contains("--write-pool"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("locus-sim-exp3-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let pool = dir.join("pool.txt");
    let _ = std::fs::write(&pool, locus_sim::workload::mrosa::exp3_pool_file_text());
    let pool = pool.to_str().unwrap_or("");
    let base = [
        "--workload",
        "mrosa-exp3",
        "--mrosa-maps",
        "16",
        "--public-pool",
        pool,
    ];
    let mut a = base.to_vec();
    a.extend_from_slice(&["--policy", "mrosa,fifo"]);
    let o = outcome(&a);
    // Only the mrosa run tells the core about the pool (the core refuses it under fifo) ...
    let props = |i: usize| {
        o.summaries[i]
            .properties
            .get("locus.mrosa.public.file")
            .cloned()
    };
    assert_eq!(props(0).as_deref(), Some(pool));
    assert_eq!(props(1), None);
    // ... but both are priced on it.
    for s in &o.summaries {
        assert_eq!(s.finished, s.jobs);
        assert!(
            s.public_cost.is_some() && s.public_tasks.is_some(),
            "{}",
            s.label
        );
    }
    // FIFO spreads maps over the public instances too, and pays for them.
    assert!(o.summaries[1].public_tasks > Some(0));
    assert!(o.summaries[1].public_cost > Some(0.0));
    // An mrosa item naming another pool would be priced from a pool it does not schedule with.
    let mut a = base.to_vec();
    a.extend_from_slice(&["--policy", "mrosa;locus.mrosa.public.file=/elsewhere"]);
    let e = match run::run(&args(&a)) {
        Ok(_) => panic!("a second pool was accepted"),
        Err(e) => e,
    };
    assert!(
        e.contains("/elsewhere") && e.contains("--public-pool"),
        "{e}"
    );
}

#[test]
fn without_policy_the_run_is_the_resource_managers_default() {
    let runs = run::policies(&args(&[])).unwrap();
    assert_eq!(runs.len(), 1);
    let (label, props) = &runs[0];
    // Neither key set: the core's own defaults decide, as in an RM without locus.* keys.
    assert!(
        !props.contains_key("locus.policy") && !props.contains_key("locus.locality"),
        "{label}: {props:?}"
    );
    let d = locus_core::Config::default();
    assert_eq!(
        label,
        &format!(
            "{};locus.locality={}",
            d.policy.as_str(),
            d.locality.as_str()
        )
    );
    let o = outcome(&["--fb-bins", "2", "--nodes", "6", "--racks", "2"]);
    assert_eq!(o.summaries[0].finished, o.summaries[0].jobs);
}

#[test]
fn size_based_preemption_kills_tasks_that_run_again_and_every_job_finishes() {
    let run = |policy: &str| {
        let o = outcome(&[
            "--workload",
            "fresh-b",
            "--nodes",
            "10",
            "--no-timing",
            "--policy",
            policy,
        ]);
        let s = o.summaries[0].clone();
        let tasks: u64 = o
            .workload
            .jobs
            .iter()
            .map(|j| (j.maps.len() + j.reduces.len()) as u64)
            .sum();
        (s, tasks)
    };
    let (off, _) = run("fsp;locus.locality=delay");
    assert_eq!(off.preempted_containers, 0);
    let (on, tasks) = run("fsp;locus.locality=delay;locus.preemption.size-based=true");
    assert_eq!(on.finished, on.jobs);
    assert!(on.preempted_containers > 0, "a round took nothing");
    assert!(on.preempted_work_s > 0.0);
    // Each killed task ran again: one more attempt per container taken.
    assert_eq!(
        on.task_attempts,
        tasks + on.preempted_reduces + on.preempted_containers
    );
}
