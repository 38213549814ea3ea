//! The same heartbeat round trips as `java-shim`'s `JniBench`, but called from Rust through the
//! bridge's `ops` layer (JSON parse → core → JSON), without the JVM. The difference between the
//! two is what JNI itself (string copies, the call, exception checks) costs.
//!
//! `cargo run --release -p locus-jni --example ops_bench [iterations] [rounds]`

use std::time::Instant;

use locus_jni::ops;

const NODE: &str = "bench-h1:8041";
const APP: &str = "application_1700000000000_0001";
const DECISIONS: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let iterations: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(20_000);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(10);
    let warmup = 3;
    println!(
        "ops-layer heartbeat (no JVM): {warmup} warm-up + {rounds} timed rounds x {iterations} ops"
    );

    let idle = ops::create("{}")?;
    ops::events(idle, &format!("[{}]", node_added()))?;
    let hb = heartbeat();
    let response = ops::heartbeat(idle, &hb)?;
    assert_eq!(containers(&response), 0, "{response}");
    report(
        "heartbeat, 0 decisions",
        measure(
            iterations,
            warmup,
            rounds,
            || ops::heartbeat(idle, &hb),
            || Ok(()),
        ),
    )?;
    ops::close(idle)?;

    let busy = ops::create("{}")?;
    ops::events(
        busy,
        &format!(
            "[{},{},{},{}]",
            node_added(),
            app_added(),
            attempt_added(),
            asks_updated()
        ),
    )?;
    let first = ops::heartbeat(busy, &hb)?;
    assert_eq!(containers(&first), DECISIONS, "{first}");
    let allocate = allocate_and_release(&first)?;
    let restore = format!("[{}]", asks_updated());
    let reset = || -> Result<(), Box<dyn std::error::Error>> {
        ops::events(busy, &allocate)?;
        ops::events(busy, &restore)?;
        Ok(())
    };
    reset()?;
    let second = ops::heartbeat(busy, &hb)?;
    assert_eq!(
        containers(&second),
        DECISIONS,
        "reset did not restore the asks: {second}"
    );
    reset()?;
    report(
        "heartbeat, 10 decisions",
        measure(
            iterations,
            warmup,
            rounds,
            || ops::heartbeat(busy, &hb),
            reset,
        ),
    )?;
    report(
        "asks_updated event (10 asks)",
        measure(
            iterations,
            warmup,
            rounds,
            || ops::events(busy, &restore).map(|_| String::new()),
            || Ok(()),
        ),
    )?;
    ops::close(busy)?;
    Ok(())
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Mean ns/op per timed round; only `op` is inside the clock.
fn measure<E: Into<Box<dyn std::error::Error>>>(
    iterations: usize,
    warmup: usize,
    rounds: usize,
    mut op: impl FnMut() -> Result<String, E>,
    mut reset: impl FnMut() -> Res<()>,
) -> Res<Vec<f64>> {
    let mut per_round = Vec::with_capacity(rounds);
    let mut sink = 0usize;
    for r in 0..warmup + rounds {
        let mut total = 0u128;
        for _ in 0..iterations {
            let t0 = Instant::now();
            sink = sink.wrapping_add(op().map_err(Into::into)?.len());
            total += t0.elapsed().as_nanos();
            reset()?;
        }
        if r >= warmup {
            per_round.push(total as f64 / iterations as f64);
        }
    }
    std::hint::black_box(sink);
    Ok(per_round)
}

fn report(name: &str, per_round: Res<Vec<f64>>) -> Res<()> {
    let per_round = per_round?;
    let mut sorted = per_round.clone();
    sorted.sort_by(f64::total_cmp);
    let n = per_round.len().max(1) as f64;
    let mean = per_round.iter().sum::<f64>() / n;
    let var = per_round.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let rounds: Vec<String> = per_round.iter().map(|x| format!("{x:.0}")).collect();
    println!(
        "{name:<28} median {:>8.0} ns/op  mean {mean:>8.0}  stddev {:>6.0}  min {:>8.0}  max {:>8.0}  rounds: {}",
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN),
        var.sqrt(),
        sorted.first().copied().unwrap_or(f64::NAN),
        sorted.last().copied().unwrap_or(f64::NAN),
        rounds.join(" ")
    );
    Ok(())
}

fn containers(response: &str) -> usize {
    serde_json::from_str::<locus_core::HeartbeatResponse>(response)
        .map(|r| r.decisions.iter().map(|d| d.count as usize).sum())
        .unwrap_or(usize::MAX)
}

fn allocate_and_release(response: &str) -> Res<String> {
    let r: locus_core::HeartbeatResponse = serde_json::from_str(response)?;
    let mut allocated = Vec::new();
    let mut released = Vec::new();
    let mut id = 0;
    for d in &r.decisions {
        for _ in 0..d.count {
            id += 1;
            let container = format!("container_1700000000000_0001_01_{id:06}");
            allocated.push(serde_json::json!({
                "type": "container_allocated", "container": container, "app": d.app, "node": d.node,
                "priority": d.priority, "resource": d.capability, "locality": d.locality,
            }));
            released.push(serde_json::json!({
                "type": "container_released", "app": d.app, "container": container,
                "node": d.node, "resource": d.capability,
            }));
        }
    }
    allocated.extend(released);
    Ok(serde_json::to_string(&allocated)?)
}

fn node_added() -> String {
    format!(
        r#"{{"type":"node_added","node":"{NODE}","host":"bench-h1","rack":"/rack1","capability":{{"memory_mb":10240,"vcores":10}}}}"#
    )
}

fn app_added() -> String {
    format!(
        r#"{{"type":"app_added","app":"{APP}","queue":"default","user":"bench","name":"bench","app_type":"YARN","submit_ms":1}}"#
    )
}

fn attempt_added() -> String {
    format!(
        r#"{{"type":"attempt_added","app":"{APP}","attempt":"appattempt_1700000000000_0001_000001"}}"#
    )
}

fn asks_updated() -> String {
    let asks: Vec<String> = (1..=DECISIONS)
        .map(|p| {
            format!(
                r#"{{"priority":{p},"allocation_request_id":0,"resource_name":"*","capability":{{"memory_mb":1024,"vcores":1}},"count":1,"relax_locality":true}}"#
            )
        })
        .collect();
    format!(
        r#"{{"type":"asks_updated","app":"{APP}","asks":[{}]}}"#,
        asks.join(",")
    )
}

fn heartbeat() -> String {
    format!(r#"{{"node":"{NODE}","unallocated":{{"memory_mb":10240,"vcores":10}},"now_ms":1000}}"#)
}
