use locus_fuzz::{combos, repro, runner};
fn main() {
    let r = repro::read(std::path::Path::new(&std::env::args().nth(1).unwrap())).unwrap();
    println!(
        "initial {} ",
        combos::describe(&combos::valid()[r.case.combo % 78])
    );
    for a in &r.case.actions {
        if let locus_fuzz::Action::Reconfigure { combo } = a {
            println!("reconf {}", combos::describe(&combos::valid()[combo % 78]));
        }
    }
    let mut c = r.case.clone();
    c.actions
        .retain(|a| !matches!(a, locus_fuzz::Action::Reconfigure { .. }));
    println!("without reconfigure: {:?}", runner::run(&c).err());
    for i in 0..78 {
        let mut c = c.clone();
        c.combo = i;
        if let Err(f) = runner::run(&c) {
            println!("{} -> {}", combos::describe(&combos::valid()[i]), f.class);
        }
    }
}
