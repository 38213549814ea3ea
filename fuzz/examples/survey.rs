//! Which failure signatures seeds 1..=N reach at a given case length, with example seeds:
//! how fixed_seeds.rs's seed set was chosen.
//!   cargo run --release -p locus-fuzz --example survey -- 2500 200
use locus_fuzz::{gen, runner};

fn main() {
    locus_fuzz::quiet_panics();
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let steps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let mut by = std::collections::BTreeMap::<String, Vec<u64>>::new();
    for s in 1..=n {
        if let Err(f) = runner::run(&gen::case(s, steps)) {
            by.entry(f.signature()).or_default().push(s);
        }
    }
    for (k, v) in by {
        println!("{k}: {} seeds, e.g. {:?}", v.len(), &v[..v.len().min(5)]);
    }
}
