//! A tiny run of the reproduction suite: every paper's experiment completes and prints our
//! figure beside the paper's, with a verdict per claim.

use clap::Parser;
use locus_sim::run::Args;
use locus_sim::suite;

fn args() -> Args {
    Args::try_parse_from(["locus-sim", "--no-progress", "--no-timing", "--suite-quick"]).unwrap()
}

#[test]
fn quick_suite_runs_every_paper_and_prints_published_figures_beside_ours() {
    let out = suite::run(&args(), "all").unwrap();
    for title in [
        "JoSS (small workload",
        "JoSS: inter-datacenter traffic",
        "TD (20 GB queues",
        "Matchmaking (loadgen",
        "Matchmaking (wordcount",
        "FRESH TABLE II",
        "FRESH Fig. 5/6",
        "MROSA Fig. 4",
        "MROSA Fig. 5",
        "demo batch",
    ] {
        assert!(out.contains(title), "missing {title:?} in\n{out}");
    }
    // Published figures appear in parentheses beside ours.
    assert!(out.contains("(1.55)"), "JoSS-J Grep of Table 8\n{out}");
    assert!(out.contains("(108.7)"), "FIFO small of TD Table I\n{out}");
    assert!(out.contains("(1936)"), "FIFO of FRESH Table II\n{out}");
    // The capacity baselines run: JoSS's Capa row and FRESH's comparison with Capacity.
    assert!(out.contains("(1.37)"), "Capa Grep of JoSS Table 8\n{out}");
    assert!(!out.contains("not run"), "{out}");
    assert!(out.contains("below Capacity's"), "{out}");
    assert!(
        out.contains("(78.0%)"),
        "Fair at 148 s of MROSA Fig. 4\n{out}"
    );
    assert!(
        out.contains("COSHIC") && out.contains("90.0%"),
        "MROSA Fig. 5\n{out}"
    );
    // Every claim gets a verdict, and no experiment left a job unfinished without saying so.
    let verdicts = out.matches("; ours: ").count();
    assert!(verdicts >= 10, "{verdicts} verdicts\n{out}");
    // Same seed, same report.
    assert_eq!(
        suite::run(&args(), "fresh").unwrap(),
        suite::run(&args(), "fresh").unwrap()
    );
}

#[test]
fn an_unknown_paper_is_named() {
    let e = suite::run(&args(), "hadoop").unwrap_err();
    assert!(
        e.contains("\"hadoop\"") && e.contains("joss, td, matchmaking, fresh, mrosa"),
        "{e}"
    );
}

/// The demo's batch in the simulator, beside the real `./locus demo` figures, under both of the
/// demo's configurations, every job finished and its error printed.
#[test]
fn demo_validation_prints_real_and_simulated_figures_per_job() {
    let out = suite::run(&args(), "demo").unwrap();
    for want in [
        "demo batch, Locus default (fsp + delay)",
        "demo batch, CapacityScheduler 3.5 defaults (cs-default)",
        "ex-terasort",
        "mean turnaround",
        "map locality",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    // CapacityScheduler's real wc-small: 52.6 s, 2 node-local maps.
    assert!(out.contains("52.6"), "{out}");
    // two tables per overhead setting (the simulator's defaults, the measured ones), teragen's
    // "no input" twice in each
    assert_eq!(out.matches("no input").count(), 8, "{out}");
    assert!(out.contains("18.3 s"), "the measured overheads' run\n{out}");
}
