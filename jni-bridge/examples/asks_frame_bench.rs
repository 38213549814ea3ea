//! The bridge's asks path from Rust (`ops::asks_frame`: decode, then apply under the core's
//! lock), without the JVM: a 5,002-row change of RmPathBench's shape (one host a node, 4,999
//! split hosts by name), and the refusal of a 200,000-row snapshot over the default
//! `locus.app.max-ask-rows`, which the header check refuses before decoding a row.
//!
//! `cargo run --release -p locus-jni --example asks_frame_bench`

use std::time::Instant;

use locus_core::frame::{encode, KIND_CHANGED, KIND_SNAPSHOT};
use locus_core::{Ask, Resource};
use locus_jni::ops;

const APP: &str = "application_1700000000000_0001";

fn row(name: String, count: u32) -> Ask {
    Ask {
        priority: 20,
        allocation_request_id: 0,
        resource_name: name,
        capability: Resource::new(1024, 1),
        count,
        relax_locality: true,
    }
}

/// `h1`, 4,999 hosts no node carries, the rack and `*`, each host wanting `n`.
fn maps(n: u32) -> Vec<Ask> {
    let mut rows = vec![row("h1".into(), n)];
    rows.extend((1..5000).map(|i| row(format!("node-{i}.example"), n)));
    rows.push(row("/default-rack".into(), 5000 * n));
    rows.push(row("*".into(), 5000 * n));
    rows
}

fn micros(sorted: &[u64], at: usize) -> u64 {
    sorted[at] / 1000
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = ops::create("{}")?;
    ops::events(
        h,
        &format!(
            r#"[{{"type":"node_added","node":"h1:8041","host":"h1","rack":"/default-rack","capability":{{"memory_mb":8192,"vcores":8}}}},
               {{"type":"app_added","app":"{APP}","queue":"default","user":"u"}},
               {{"type":"attempt_added","app":"{APP}","attempt":"appattempt_1700000000000_0001_000001"}}]"#
        ),
    )?;
    ops::asks_frame(h, &encode(KIND_SNAPSHOT, APP, &maps(1), None))?;
    // Two changes alternated, so every call changes every row.
    let changes = [
        encode(KIND_CHANGED, APP, &maps(2), None),
        encode(KIND_CHANGED, APP, &maps(1), None),
    ];
    let mut medians = Vec::new();
    for round in 0..8 {
        let mut times = Vec::new();
        for i in 0..200 {
            let start = Instant::now();
            ops::asks_frame(h, &changes[i % 2])?;
            times.push(start.elapsed().as_nanos() as u64);
        }
        times.sort_unstable();
        // Two rounds of warm-up.
        if round >= 2 {
            medians.push(times[times.len() / 2]);
        }
    }
    medians.sort_unstable();
    println!(
        "5,002-row change: per-round medians {:?} us, median {} us",
        medians.iter().map(|m| m / 1000).collect::<Vec<_>>(),
        micros(&medians, medians.len() / 2)
    );

    let big: Vec<Ask> = (0..200_000)
        .map(|i| row(format!("split-host-{i}.example.com"), 1))
        .collect();
    let frame = encode(KIND_SNAPSHOT, APP, &big, None);
    let mut times = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        let refused = ops::asks_frame(h, &frame).expect_err("over locus.app.max-ask-rows");
        times.push(start.elapsed().as_nanos() as u64);
        assert!(
            refused.to_string().contains("200000 rows in one message"),
            "{refused}"
        );
    }
    times.sort_unstable();
    println!(
        "refused 200,000-row snapshot ({} bytes): median {} ns, slowest {} ns",
        frame.len(),
        times[times.len() / 2],
        times[times.len() - 1]
    );
    ops::close(h)?;
    Ok(())
}
