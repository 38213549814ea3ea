//! The bounded fuzz run of `./locus test`: a fixed seed set of random cases over the layer
//! combinations, and every hostile case in a child process. Each failure class is its own
//! test, so a red run names what broke; fuzz/FINDINGS.md lists the ones today's core still
//! fails (defects other branches fix). Reproduce a random one with `./locus fuzz --seed S`.
//! Panics are not silenced here (the core's would hide the assertion messages with them).

use std::sync::OnceLock;

use locus_fuzz::{gen, hostile, repro, runner, Failure};

/// Seeds 1..=60, plus seeds that reached a finding when the set was chosen (FINDINGS.md):
/// 380 starves a job under fair with slots=fresh-static. Case length 200 actions; the whole
/// set takes well under a minute in a debug build.
fn seeds() -> impl Iterator<Item = u64> {
    (1..=60).chain([380])
}
const STEPS: usize = 200;

fn random_failures() -> &'static Vec<(u64, Failure)> {
    static RUN: OnceLock<Vec<(u64, Failure)>> = OnceLock::new();
    RUN.get_or_init(|| {
        seeds()
            .filter_map(|s| runner::run(&gen::case(s, STEPS)).err().map(|f| (s, f)))
            .collect()
    })
}

fn assert_no(class: &str) {
    let hits: Vec<String> = random_failures()
        .iter()
        .filter(|(_, f)| f.class == class)
        .map(|(s, f)| {
            format!(
                "seed {s} (./locus fuzz --seed {s} --steps {STEPS}): {}",
                truncate(&f.to_string())
            )
        })
        .collect();
    assert!(
        hits.is_empty(),
        "{} of {} seeds: {class}\n{}",
        hits.len(),
        seeds().count(),
        hits.join("\n")
    );
}

fn truncate(s: &str) -> String {
    locus_fuzz::model::truncate(s, 600)
}

#[test]
fn no_panic_in_the_core() {
    assert_no("panic");
}

#[test]
fn valid_events_and_configs_are_accepted() {
    assert_no("refused_valid_event");
    assert_no("refused_valid_config");
}

#[test]
fn no_decision_beyond_the_nodes_free_resource() {
    assert_no("decision_beyond_free_resource");
}

#[test]
fn no_decision_beyond_the_outstanding_asks() {
    assert_no("decision_beyond_outstanding_asks");
    assert_no("decision_for_unknown_app");
    assert_no("decision_for_other_node");
    assert_no("decision_for_zero_containers");
    assert_no("decision_names_wrong_row");
    assert_no("decision_capability_differs");
}

#[test]
fn relax_locality_is_respected() {
    assert_no("decision_ignores_relax_locality");
}

#[test]
fn blacklisted_nodes_get_no_decisions() {
    assert_no("decision_for_blacklisted_node");
}

/// A key is placed only in its partition; an exclusive partition's nodes run nothing else.
#[test]
fn decisions_stay_in_their_partition() {
    assert_no("decision_outside_its_partition");
}

#[test]
fn off_switch_limit_is_respected() {
    assert_no("off_switch_limit_exceeded");
}

#[test]
fn capacity_queue_maxima_are_respected() {
    assert_no("queue_maximum_exceeded");
}

#[test]
fn slot_pool_caps_are_respected() {
    assert_no("slot_cap_exceeded");
}

#[test]
fn core_counters_equal_the_model() {
    assert_no("counter_mismatch");
}

#[test]
fn every_app_that_can_run_gets_a_container_in_the_drain() {
    assert_no("starvation");
}

/// Cases under `capacity`, whose preemption rounds take room back between queues and, in half
/// of them, within queues: a container is chosen once, what goes to another queue leaves no
/// queue below its guarantee, and what is taken within a queue is no AM container, stays
/// within `max-allowable-limit` and leaves no user at or below its user limit.
#[test]
fn preemption_rounds_under_capacity_keep_guarantees_and_user_limits() {
    let opts = gen::Options {
        combos: gen::select_combos(&["capacity".into()], &[]),
        ..gen::Options::default()
    };
    assert!(!opts.combos.is_empty());
    let failed: Vec<String> = (1..=40u64)
        .filter_map(|s| {
            runner::run(&gen::case_with(s, STEPS, &opts))
                .err()
                .filter(|f| f.class.starts_with("preempted"))
                .map(|f| {
                    format!(
                        "seed {s} (./locus fuzz --seed {s} --steps {STEPS} --policy capacity): {}",
                        truncate(&f.to_string())
                    )
                })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Cases under `capacity`, whose trees draw running-application limits (`max-parallel-apps`
/// of root, the queues and the users): an application is held only while a limit on its way
/// is full, a held one is given nothing, the running ones stay within the limits, and in the
/// drain every held application runs once the others end. The seeds hold and release
/// applications, so the checks are not vacuous.
#[test]
fn running_application_limits_hold_and_release() {
    let opts = gen::Options {
        combos: gen::select_combos(&["capacity".into()], &[]),
        ..gen::Options::default()
    };
    let classes = [
        "held_with_room",
        "held_without_limits",
        "parallel_limit_exceeded",
        "decision_for_held_app",
        "starvation",
    ];
    let (mut held_cases, mut released) = (0, 0u64);
    let failed: Vec<String> = (1..=40u64)
        .filter_map(|s| {
            let mut was_held = std::collections::BTreeSet::new();
            let mut ran = std::collections::BTreeSet::new();
            let r = runner::run_observed(&gen::case_with(s, STEPS, &opts), &mut |m| {
                for &app in m.apps.keys() {
                    if m.held(app) {
                        was_held.insert(app);
                    } else if was_held.contains(&app) {
                        ran.insert(app);
                    }
                }
            });
            held_cases += usize::from(!was_held.is_empty());
            released += ran.len() as u64;
            r.err()
                .filter(|f| classes.contains(&f.class.as_str()))
                .map(|f| {
                    format!(
                        "seed {s} (./locus fuzz --seed {s} --steps {STEPS} --policy capacity): {}",
                        truncate(&f.to_string())
                    )
                })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        held_cases >= 5 && released >= 3,
        "{held_cases} cases held an application, {released} held applications ran later"
    );
}

/// Preemption rounds under `capacity` with the dominant resource calculator (the rounds between
/// queues weigh every type): the cases draw such rounds, and none takes a type past the
/// round's part of the cluster or leaves a queue below its guarantee by dominant share.
#[test]
fn preemption_rounds_under_the_dominant_calculator_keep_guarantees_by_dominant_share() {
    let all = locus_fuzz::combos::valid();
    let opts = gen::Options {
        combos: gen::select_combos(&["capacity".into()], &[])
            .into_iter()
            .filter(|&i| locus_fuzz::combos::is_dominant(&all[i]))
            .collect(),
        contention_percent: 100,
        ..gen::Options::default()
    };
    assert!(!opts.combos.is_empty());
    let mut rounds = 0;
    let failed: Vec<String> = (1..=40u64)
        .filter_map(|s| {
            let case = gen::case_with(s, STEPS, &opts);
            rounds += case
                .actions
                .iter()
                .filter(|a| matches!(a, locus_fuzz::Action::PreemptionRound { .. }))
                .count();
            runner::run(&case)
                .err()
                .filter(|f| f.class.starts_with("preempted"))
                .map(|f| format!("seed {s}: {}", truncate(&f.to_string())))
        })
        .collect();
    assert!(rounds > 0, "no preemption round drawn");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Large cases (up to 16 hosts of up to 48 GB, most jobs holding keys no node can serve)
/// under the policies that pick map slots per node (TD, JoSS) with a capped slot pool: where an
/// outside random run saw satisfiable asks starve on an idle cluster. Every check, not only
/// the drain's.
#[test]
fn large_cases_with_blockers_under_picking_policies_and_capped_pools_pass() {
    let opts = gen::Options {
        large_percent: 100,
        combos: gen::select_combos(
            &["td".into(), "joss-t".into(), "joss-j".into()],
            &["fresh-static".into(), "static:0.5".into()],
        ),
        ..gen::Options::default()
    };
    assert!(!opts.combos.is_empty());
    let failed: Vec<String> = (1..=24u64)
        .filter_map(|s| {
            runner::run(&gen::case_with(s, STEPS, &opts))
                .err()
                .map(|f| format!("seed {s} (./locus fuzz --seed {s} --steps {STEPS} --large 100 --policy td,joss-t,joss-j --slots fresh-static,static:0.5): {}", truncate(&f.to_string())))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The minimised reproducers kept in fuzz/findings/ (FINDINGS.md says what each showed and
/// what fixed it) are regression seeds: each replays clean. Subdirectories (open/ for
/// untriaged reproducers) are not replayed.
/// Long cases (jobs through their whole life on 13-16 nodes with two-level racks, priority
/// changes, moves, profiles learned, many keys no node can serve): two seeds, shortened to
/// 1,000 actions so a debug build runs them in seconds. Every check, the drain's included.
#[test]
fn long_cases_pass() {
    let opts = gen::Options {
        contention_percent: 100,
        ..gen::Options::default()
    };
    let failed: Vec<String> = (1..=2u64)
        .filter_map(|s| {
            runner::run(&gen::case_with(s, STEPS, &opts))
                .err()
                .map(|f| {
                    format!(
                        "seed {s} (./locus fuzz --seed {s} --long 100 --long-steps 1000): {}",
                        truncate(&f.to_string())
                    )
                })
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn every_kept_reproducer_replays_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("findings");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/findings/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reproducer in {}", dir.display());
    let failed: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let shown = p.file_name().unwrap_or_default().to_string_lossy();
            match repro::read(p) {
                Err(e) => Some(format!("{shown}: {e}")),
                Ok(r) => runner::run(&r.case)
                    .err()
                    .map(|f| format!("{shown}: {}", truncate(&f.to_string()))),
            }
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} reproducers in fuzz/findings/ fail again (./locus fuzz --replay fuzz/findings/FILE):\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

#[test]
fn no_failure_class_the_checks_above_do_not_name() {
    let known = [
        "panic",
        "refused_valid_event",
        "refused_valid_config",
        "decision_beyond_free_resource",
        "decision_beyond_outstanding_asks",
        "decision_for_unknown_app",
        "decision_for_other_node",
        "decision_for_zero_containers",
        "decision_names_wrong_row",
        "decision_capability_differs",
        "decision_ignores_relax_locality",
        "decision_for_blacklisted_node",
        "decision_outside_its_partition",
        "off_switch_limit_exceeded",
        "queue_maximum_exceeded",
        "slot_cap_exceeded",
        "counter_mismatch",
        "starvation",
        "held_with_room",
        "held_without_limits",
        "parallel_limit_exceeded",
        "decision_for_held_app",
    ];
    let other: Vec<String> = random_failures()
        .iter()
        .filter(|(_, f)| !known.contains(&f.class.as_str()))
        .map(|(s, f)| format!("seed {s}: {}", truncate(&f.to_string())))
        .collect();
    assert!(other.is_empty(), "{}", other.join("\n"));
}

fn hostile_case(name: &str) {
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_locus-fuzz"));
    if let Err(f) = hostile::run_in_child(exe, name) {
        panic!("{f}\nreplay: ./locus fuzz --no-hostile --replay <(echo '{{\"hostile\":\"{name}\"}}') or cargo run -p locus-fuzz -- --hostile {name}");
    }
}

#[test]
fn hostile_huge_count_fifo() {
    hostile_case("huge_count_fifo");
}
#[test]
fn hostile_huge_count_joss_t() {
    hostile_case("huge_count_joss_t");
}
#[test]
fn hostile_huge_count_joss_j() {
    hostile_case("huge_count_joss_j");
}
#[test]
fn hostile_huge_count_mrosa_deadline() {
    hostile_case("huge_count_mrosa_deadline");
}
#[test]
fn hostile_huge_count_td() {
    hostile_case("huge_count_td");
}
#[test]
fn hostile_huge_count_fresh() {
    hostile_case("huge_count_fresh");
}
#[test]
fn hostile_huge_sizes_fifo() {
    hostile_case("huge_sizes_fifo");
}
#[test]
fn hostile_huge_sizes_fair() {
    hostile_case("huge_sizes_fair");
}
#[test]
fn hostile_huge_sizes_capacity() {
    hostile_case("huge_sizes_capacity");
}
#[test]
fn hostile_huge_sizes_mrosa() {
    hostile_case("huge_sizes_mrosa");
}
#[test]
fn hostile_many_names_freed() {
    hostile_case("many_names_freed");
}
#[test]
fn hostile_colliding_names() {
    hostile_case("colliding_names");
}
#[test]
fn hostile_malformed_json_into_bridge() {
    hostile_case("malformed_json_into_bridge");
}
#[test]
fn hostile_bridge_error_size_bounded() {
    hostile_case("bridge_error_size_bounded");
}

/// Every hostile case has a test above.
#[test]
fn every_hostile_case_is_tested() {
    let src = include_str!("fixed_seeds.rs");
    for c in hostile::cases() {
        assert!(
            src.contains(&format!("hostile_case(\"{}\")", c.name)),
            "no test for hostile case {}",
            c.name
        );
    }
}
