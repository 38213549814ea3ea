//! A MapReduce AM changing all 5,002 rows of its asks (one row per host of 5,000, its rack and
//! `*`) in one binary asks frame, as the shim sends it: the frame decoded, then applied.
//! Alternates between 1 and 2 maps per host so every row changes each time. Two cluster shapes:
//! no host a node the core knows (rows wait as unknown names) and every host a node, the latter
//! also with each host row numbered by the id the core published (`frame::FLAG_NAME_IDS`), and
//! the former also with each waiting host numbered by the id the core taught for it
//! (`Core::learned_ids`).
//! Plain loop, CPU of this thread only: `cargo bench -p locus-core --bench asks_frame`.

use std::collections::BTreeMap;
use std::time::Instant;

use locus_core::frame;
use locus_core::{Ask, Core, Event, Resource};

const HOSTS: usize = 5_000;
const APP: &str = "application_1700000000000_0001";
const ROUNDS: usize = 7;
const PER_ROUND: usize = 100;

fn rows(each: u32) -> Vec<Ask> {
    let ask = |name: String, count: u32| Ask {
        priority: 20,
        allocation_request_id: 0,
        resource_name: name,
        capability: Resource::new(1024, 1),
        count,
        relax_locality: true,
    };
    let mut out: Vec<Ask> = (0..HOSTS)
        .map(|i| ask(format!("node-{i}.example"), each))
        .collect();
    out.push(ask("/default-rack".into(), HOSTS as u32 * each));
    out.push(ask("*".into(), HOSTS as u32 * each));
    out
}

fn core(nodes: usize) -> Core {
    let mut core = Core::new(&BTreeMap::new()).expect("default settings");
    for i in 0..nodes.max(1) {
        core.handle(Event::NodeAdded {
            node: format!("node-{i}.example:1234"),
            host: format!("node-{i}.example"),
            rack: "/default-rack".into(),
            capability: Resource::new(8192, 8),
        })
        .expect("node");
    }
    core.handle(Event::AppAdded {
        app: APP.into(),
        queue: "default".into(),
        user: "bench".into(),
        name: "wordcount".into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms: 0,
        priority: 0,
        recovered: false,
    })
    .expect("app");
    core.handle(Event::AttemptAdded {
        app: APP.into(),
        attempt: "appattempt_1700000000000_0001_000001".into(),
    })
    .expect("attempt");
    core
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn run(label: &str, nodes: usize, numbered: bool) {
    let mut core = core(nodes);
    // The waiting names' ids, as the shim learns them: from the core's answer to a numbered
    // frame that sets their rows by name.
    let mut waiting: std::collections::HashMap<String, u32> = Default::default();
    if numbered && nodes <= 1 {
        let first = rows(1);
        let (epoch, _) = core.name_ids([]);
        let f = frame::encode_numbered(frame::KIND_CHANGED, APP, &first, None, Some(epoch), |_| {
            None
        });
        let decoded = frame::decode_view(&f).expect("frame");
        for outcome in core.handle_asks_frame(&decoded) {
            outcome.expect("asks");
        }
        for &(row, id) in core.learned_ids() {
            waiting.insert(first[row as usize].resource_name.clone(), id);
        }
    }
    let encode = |asks: &[Ask]| {
        if !numbered {
            return frame::encode(frame::KIND_CHANGED, APP, asks, None);
        }
        // As the shim: the ids the core published for its nodes' hosts.
        let hosts: Vec<&str> = asks.iter().map(|a| a.resource_name.as_str()).collect();
        let (epoch, ids) = core.name_ids(hosts.iter().copied());
        let by_host: std::collections::HashMap<&str, u32> = hosts
            .iter()
            .zip(ids)
            .filter_map(|(h, id)| Some((*h, id?)))
            .filter(|(h, _)| !h.starts_with('/'))
            .collect();
        frame::encode_numbered(frame::KIND_CHANGED, APP, asks, None, Some(epoch), |n| {
            by_host.get(n).or_else(|| waiting.get(n)).copied()
        })
    };
    let frames = [encode(&rows(1)), encode(&rows(2))];
    let (mut decode, mut apply) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS + 2 {
        let (mut d, mut a) = (0u128, 0u128);
        for i in 0..PER_ROUND {
            let t0 = Instant::now();
            let decoded = frame::decode_view(&frames[i & 1]).expect("frame");
            let t1 = Instant::now();
            for outcome in core.handle_asks_frame(&decoded) {
                outcome.expect("asks");
            }
            drop(decoded);
            let t2 = Instant::now();
            d += (t1 - t0).as_nanos();
            a += (t2 - t1).as_nanos();
        }
        if round >= 2 {
            decode.push(d as f64 / PER_ROUND as f64 / 1000.0);
            apply.push(a as f64 / PER_ROUND as f64 / 1000.0);
        }
    }
    println!(
        "{label}: decode median {:.1} us, apply median {:.1} us (per 5,002-row frame)",
        median(decode),
        median(apply)
    );
}

fn main() {
    run("no host known", 0, false);
    run("no host known, waiting hosts numbered", 0, true);
    run("every host a node", HOSTS, false);
    run("every host a node, numbered", HOSTS, true);
}
