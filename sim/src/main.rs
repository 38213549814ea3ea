use std::process::ExitCode;

use clap::Parser;
use locus_sim::report;
use locus_sim::run::{self, Args};

/// Exit status for bad input (a flag, a trace line, an output path), as clap uses for a bad
/// command line; documented in `--help` and docs/design/simulator.md.
const BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(e) = run::check_args(&args) {
        eprintln!("locus-sim: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    if let Some(path) = &args.write_pool {
        let text = if args.workload == "mrosa-exp3" {
            locus_sim::workload::mrosa::exp3_pool_file_text()
        } else {
            locus_sim::workload::mrosa::pool_file_text()
        };
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("locus-sim: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    if let Some(which) = &args.suite {
        return match locus_sim::suite::run(&args, which) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("locus-sim: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let w = match run::workload(&args) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("locus-sim: {e}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    if let Err(e) = run::config(&args, &w.cluster) {
        eprintln!("locus-sim: {e}");
        return ExitCode::from(BAD_INPUT);
    }
    let outcome = match run::run_on(&args, w) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("locus-sim: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", outcome.table);
    if let Some(path) = &args.json {
        let written = run::json(&outcome).and_then(|text| {
            std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {path}: {e}"))
        });
        if let Err(e) = written {
            eprintln!("locus-sim: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.report {
        let page = report::html(
            &outcome.workload.name,
            &outcome.table,
            &outcome.summaries,
            &outcome.raws,
        );
        if let Err(e) = std::fs::write(path, page) {
            eprintln!("locus-sim: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if outcome.summaries.iter().any(|s| s.finished < s.jobs) {
        eprintln!("locus-sim: some jobs did not finish (see the table)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
