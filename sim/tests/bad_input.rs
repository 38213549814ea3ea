//! The binary refuses bad input before running: exit status 2, a message naming the flag or the
//! trace line and column, nothing on stdout (no table of a run that should not have happened).

use std::path::PathBuf;
use std::process::Command;

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn sim(args: &[&str]) -> Ran {
    let out = Command::new(env!("CARGO_BIN_EXE_locus-sim"))
        .arg("--no-progress")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start locus-sim: {e}"));
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh directory for this test's files.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("locus-sim-bad-{}-{test}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

fn trace(test: &str, text: &str) -> String {
    let p = dir(test).join("trace.tsv");
    if let Err(e) = std::fs::write(&p, text) {
        panic!("cannot write {}: {e}", p.display());
    }
    p.to_string_lossy().into_owned()
}

/// Refused as bad input: status 2, every `needle` in stderr, no run output.
fn refused(r: &Ran, needles: &[&str]) {
    assert_eq!(r.code, Some(2), "stderr: {}", r.stderr);
    for n in needles {
        assert!(r.stderr.contains(n), "{n:?} not in stderr: {}", r.stderr);
    }
    assert!(
        r.stdout.is_empty(),
        "nothing runs, so no table: {}",
        r.stdout
    );
    assert!(
        !r.stderr.contains("panicked") && !r.stderr.contains("memory allocation"),
        "{}",
        r.stderr
    );
}

const GOOD: &str = "job0\t1\t1\t1000\t0\t0\n";

#[test]
fn input_bytes_near_u64_max_name_the_trace_line_and_column() {
    let t = trace(
        "bytes",
        &format!("{GOOD}job1\t2\t1\t18446744073709551000\t0\t0\n"),
    );
    let r = sim(&["--workload", "swim", "--trace", &t]);
    refused(&r, &[&format!("{t}:2"), "input bytes"]);
    let t = trace(
        "shuffle",
        &format!("{GOOD}{GOOD}job2\t2\t1\t10\t18446744073709551000\t0\n"),
    );
    let r = sim(&["--workload", "swim", "--trace", &t]);
    refused(&r, &[&format!("{t}:3"), "shuffle bytes"]);
}

#[test]
fn submit_times_past_the_horizon_name_the_line() {
    // a year in seconds, and a value whose milliseconds overflow u64
    for (n, submit) in [("year", "31536000"), ("overflow", "18446744073709551")] {
        let t = trace(n, &format!("{GOOD}job1\t{submit}\t1\t1000\t0\t0\n"));
        let r = sim(&["--workload", "swim", "--trace", &t]);
        refused(&r, &[&format!("{t}:2"), "submit", "horizon"]);
    }
}

#[test]
fn counts_too_large_to_simulate_name_the_flag() {
    refused(
        &sim(&["--workload", "synthetic", "--jobs", "100000000"]),
        &["--jobs"],
    );
    refused(&sim(&["--nodes", "100000000"]), &["--nodes"]);
    refused(
        &sim(&["--workload", "td-small", "--input-gb", "100000000"]),
        &["--input-gb"],
    );
}

#[test]
fn zero_sizes_are_refused_not_coerced() {
    refused(&sim(&["--replication", "0"]), &["--replication"]);
    refused(&sim(&["--block-mb", "0"]), &["--block-mb"]);
    refused(
        &sim(&["--bytes-per-reduce-mb", "0"]),
        &["--bytes-per-reduce-mb"],
    );
    refused(&sim(&["--sample-ms", "0"]), &["--sample-ms"]);
    refused(&sim(&["--stall-s", "0"]), &["--stall-s"]);
    refused(
        &sim(&["--nodes", "4", "--replication", "5"]),
        &["--replication", "4"],
    );
    refused(
        &sim(&["--workload", "swim", "--limit-jobs", "0"]),
        &["--limit-jobs"],
    );
    refused(&sim(&["--fail-node-at", "1@-5"]), &["--fail-node-at"]);
}

#[test]
fn unwritable_outputs_are_refused_before_the_run() {
    let missing = dir("out").join("no-such-dir").join("x");
    let missing = missing.to_string_lossy();
    refused(&sim(&["--json", &missing]), &["--json", &missing]);
    refused(&sim(&["--report", &missing]), &["--report", &missing]);
    refused(
        &sim(&["--suite", "fresh", "--suite-quick", "--json", &missing]),
        &["--json"],
    );
}

#[test]
fn help_documents_the_exit_codes() {
    let r = sim(&["--help"]);
    assert_eq!(r.code, Some(0));
    for n in ["Exit status", "0 ", "1 ", "2 "] {
        assert!(r.stdout.contains(n), "{n:?} not in --help: {}", r.stdout);
    }
}
