use locus_fuzz::{gen, runner};
fn main() {
    locus_fuzz::quiet_panics();
    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let steps: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let mut by = std::collections::BTreeMap::<String, Vec<u64>>::new();
    for s in 1..=n {
        if let Err(f) = runner::run(&gen::case(s, steps)) {
            by.entry(f.signature()).or_default().push(s);
        }
    }
    for (k, v) in by {
        println!("{k}: {} e.g. {:?}", v.len(), &v[..v.len().min(5)]);
    }
}
