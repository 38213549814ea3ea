//! `locus-fuzz` (run through `./locus fuzz`):
//!   --minutes N     random seeds until N minutes are up (default 1)
//!   --seed S        run one seed (and shrink it if it fails)
//!   --steps N       actions per case (default 300)
//!   --out DIR       where reproducers go (default target/fuzz-failures)
//!   --replay FILE   run a reproducer again and print what it shows
//!   --hostile NAME  run one hostile case in this process (the child side; see hostile.rs)
//!   --no-hostile    skip the hostile cases (run in child processes before the random seeds)
//!   --keep-going    do not stop at the first failure: one reproducer per distinct finding
//!                   (class + policy + slots), then exit 1 if there was any
//!   --policy P,Q    only layer combinations with one of these policies (td, joss-t, ...)
//!   --slots S,T     only these slot layers (off, static, static:0.5 for `static` with
//!                   locus.slots.map-share=0.5, fresh-static, fresh-dynamic)
//!   --large N       percent of cases on the large shape (16 hosts, 16 apps, many blockers;
//!                   default 25)
//!   --long N        percent of cases that are long (default 0): jobs through their whole
//!                   life on 13-16 nodes with two-level racks, priority changes, moves,
//!                   many keys no node can serve; --long-steps actions each (default 6000)
//!   --contention N  percent of cases where one queue fills the cluster, the other asks and
//!                   preemption rounds run (default 10)
//! Exit status 1 when a failure was found (its reproducer path is printed), 2 on bad usage.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use locus_fuzz::{combos, gen, hostile, quiet_panics, repro, runner, shrink};

/// Contention cases in a random run unless told otherwise (the fixed seeds draw none).
const CONTENTION_PERCENT: u64 = 10;

struct Args {
    minutes: f64,
    seed: Option<u64>,
    steps: usize,
    out: PathBuf,
    replay: Option<PathBuf>,
    keep_going: bool,
    hostile: Option<String>,
    no_hostile: bool,
    policies: Vec<String>,
    slots: Vec<String>,
    large: u64,
    long: u64,
    long_steps: usize,
    contention: u64,
}

fn list(v: String) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        minutes: 1.0,
        seed: None,
        steps: 300,
        out: "target/fuzz-failures".into(),
        replay: None,
        keep_going: false,
        hostile: None,
        no_hostile: false,
        policies: Vec::new(),
        slots: Vec::new(),
        large: gen::Options::default().large_percent,
        long: gen::Options::default().long_percent,
        long_steps: gen::LONG_STEPS,
        contention: CONTENTION_PERCENT,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--minutes" => a.minutes = v()?.parse().map_err(|e| format!("--minutes: {e}"))?,
            "--seed" => a.seed = Some(v()?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--steps" => a.steps = v()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--out" => a.out = v()?.into(),
            "--replay" => a.replay = Some(v()?.into()),
            "--keep-going" => a.keep_going = true,
            "--hostile" => a.hostile = Some(v()?),
            "--no-hostile" => a.no_hostile = true,
            "--policy" => a.policies = list(v()?),
            "--slots" => a.slots = list(v()?),
            "--large" => {
                a.large = v()?.parse().map_err(|e| format!("--large: {e}"))?;
                if a.large > 100 {
                    return Err("--large: a percentage, 0 to 100".into());
                }
            }
            "--long" => {
                a.long = v()?.parse().map_err(|e| format!("--long: {e}"))?;
                if a.long > 100 {
                    return Err("--long: a percentage, 0 to 100".into());
                }
            }
            "--contention" => {
                a.contention = v()?.parse().map_err(|e| format!("--contention: {e}"))?;
                if a.contention > 100 {
                    return Err("--contention: a percentage, 0 to 100".into());
                }
            }
            "--long-steps" => {
                a.long_steps = v()?.parse().map_err(|e| format!("--long-steps: {e}"))?
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(a)
}

fn usage() {
    eprintln!("usage: locus-fuzz [--minutes N] [--seed S] [--steps N] [--out DIR] [--replay FILE] [--keep-going] [--no-hostile] [--hostile NAME] [--policy P,Q] [--slots S,T] [--large PERCENT] [--long PERCENT] [--long-steps N] [--contention PERCENT]");
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("locus-fuzz: {e}");
            }
            usage();
            return ExitCode::from(2);
        }
    };
    quiet_panics();
    if let Some(name) = &args.hostile {
        return match hostile::run_here(name) {
            Ok(()) => ExitCode::SUCCESS,
            Err(f) => {
                println!("{}", serde_json::to_string(&f).unwrap_or_default());
                ExitCode::FAILURE
            }
        };
    }
    if let Some(file) = &args.replay {
        if let Ok(name) = repro::read_hostile(file) {
            println!("replaying hostile case {name} in a child process");
            let exe = std::env::current_exe().expect("own path");
            return match hostile::run_in_child(&exe, &name) {
                Ok(()) => {
                    println!("now: passes");
                    ExitCode::SUCCESS
                }
                Err(f) => {
                    println!("now: {f}");
                    ExitCode::FAILURE
                }
            };
        }
        let r = match repro::read(file) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("locus-fuzz: {e}");
                return ExitCode::from(2);
            }
        };
        println!(
            "replaying {} ({} actions, {})",
            file.display(),
            r.case.actions.len(),
            combos::describe(&r.config)
        );
        println!("recorded: {}", r.failure);
        return match runner::run(&r.case) {
            Ok(_) => {
                println!("now: passes");
                ExitCode::SUCCESS
            }
            Err(f) => {
                println!("now: {f}");
                ExitCode::FAILURE
            }
        };
    }
    let opts = gen::Options {
        large_percent: args.large,
        combos: gen::select_combos(&args.policies, &args.slots),
        long_percent: args.long,
        long_steps: args.long_steps,
        contention_percent: args.contention,
    };
    if opts.combos.is_empty() {
        eprintln!(
            "locus-fuzz: no layer combination has policy {:?} and slots {:?}",
            args.policies, args.slots
        );
        return ExitCode::from(2);
    }
    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let mut seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let mut cases = 0u64;
    let mut found = std::collections::BTreeSet::new();
    if !args.no_hostile && args.seed.is_none() {
        let exe = std::env::current_exe().expect("own path");
        for c in hostile::cases() {
            match hostile::run_in_child(&exe, c.name) {
                Ok(()) => println!("hostile {}: ok", c.name),
                Err(f) => {
                    println!("hostile {}: {f}", c.name);
                    match repro::write_hostile(&args.out, c.name, &f) {
                        Ok(p) => println!(
                            "reproducer: {} (./locus fuzz --replay {})",
                            p.display(),
                            p.display()
                        ),
                        Err(e) => eprintln!("locus-fuzz: could not write the reproducer: {e}"),
                    }
                    if !args.keep_going {
                        return ExitCode::FAILURE;
                    }
                    found.insert(format!("{} hostile={}", f.class, c.name));
                }
            }
        }
    }
    loop {
        let case = gen::case_with(seed, args.steps, &opts);
        cases += 1;
        if let Err(f) = runner::run(&case) {
            if !found.insert(f.signature()) {
                seed = seed.wrapping_add(1);
                if Instant::now() >= deadline {
                    break;
                }
                continue;
            }
            println!("seed {seed}: {f}");
            println!("shrinking {} actions...", case.actions.len());
            let (small, sf) = shrink::shrink(&case, &f);
            match repro::write(&args.out, &small, &sf) {
                Ok(p) => {
                    println!("minimised to {} actions: {sf}", small.actions.len());
                    println!("reproducer: {}", p.display());
                    println!("replay with: ./locus fuzz --replay {}", p.display());
                }
                Err(e) => eprintln!("locus-fuzz: could not write the reproducer: {e}"),
            }
            if !args.keep_going || args.seed.is_some() {
                return ExitCode::FAILURE;
            }
        }
        if args.seed.is_some() || Instant::now() >= deadline {
            break;
        }
        seed = seed.wrapping_add(1);
    }
    if !found.is_empty() {
        println!("{cases} cases, {} distinct findings:", found.len());
        for f in &found {
            println!("  {f}");
        }
        return ExitCode::FAILURE;
    }
    println!(
        "{cases} cases passed (last seed {seed}), {} of {} layer combinations, {}% large, {}% long",
        opts.combos.len(),
        combos::valid().len(),
        opts.large_percent,
        opts.long_percent
    );
    ExitCode::SUCCESS
}
