//! What a `container_released` costs its caller (the RM's dispatcher, an allocate() thread) while
//! the scheduling thread keeps the core busy: the synchronous `events` path (before deferral)
//! against `events_deferrable`. A stand-in pass holds the core's lock for `PASS_US`
//! (an offers call of 32 nodes under a slow policy), then lets go for `GAP_US`, back to back. It
//! sleeps while holding, and the caller sleeps between calls, so on a loaded machine neither
//! thread's CPU share decides the figures: only waiting for the lock does.
//!
//! `cargo bench -p locus-jni --features test-hooks --bench deferred_events`

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use locus_jni::ops;

const PASS_US: u64 = 2_000;
const GAP_US: u64 = 50;
const CALLS: usize = 2_000;
/// Between two releases, as completions arrive spread over a pass.
const SPACING_US: u64 = 100;

fn release(i: usize) -> String {
    format!(
        r#"[{{"type":"container_released","app":"application_1_0001","container":"container_1_0001_01_{i:06}","node":"h1:8041","resource":{{"memory_mb":1024,"vcores":1}}}}]"#
    )
}

fn run(name: &str, deferrable: bool) {
    let h = ops::create("{}").expect("core");
    let stop = Arc::new(AtomicBool::new(false));
    let pass = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                locus_jni::handle::hold_core_for_tests(h, || {
                    std::thread::sleep(Duration::from_micros(PASS_US));
                    Ok(())
                })
                .expect("pass");
                std::thread::sleep(Duration::from_micros(GAP_US));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(20));
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let json = release(i);
        let start = Instant::now();
        if deferrable {
            ops::events_deferrable(h, &json).expect("release");
        } else {
            ops::events(h, &json).expect("release");
        }
        times.push(start.elapsed());
        std::thread::sleep(Duration::from_micros(SPACING_US));
    }
    stop.store(true, Ordering::Relaxed);
    pass.join().expect("pass thread");
    ops::close(h).expect("close");
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = times.iter().map(|d| us(*d)).sum::<f64>() / times.len() as f64;
    let waited = times.iter().filter(|d| us(**d) > 100.0).count();
    println!(
        "{name:<30} median {:>7.1} us  p99 {:>8.1} us  max {:>8.1} us  mean {:>7.1} us  >100 us: {:>4.1}%",
        us(times[times.len() / 2]),
        us(times[times.len() * 99 / 100]),
        us(times[times.len() - 1]),
        mean,
        100.0 * waited as f64 / times.len() as f64
    );
}

fn main() {
    println!(
        "container_released while a pass holds the core {PASS_US} us of every {} us ({CALLS} calls)",
        PASS_US + GAP_US
    );
    for _ in 0..2 {
        run("events (synchronous, before)", false);
        run("events_deferrable (after)", true);
    }
}
