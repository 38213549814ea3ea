use locus_fuzz::{repro, runner, Action};
fn main() {
    let r = repro::read(std::path::Path::new(&std::env::args().nth(1).unwrap())).unwrap();
    let mut c = r.case.clone();
    let nodes: Vec<Action> = c.actions.iter().filter(|a| matches!(a, Action::AddNode{..})).cloned().collect();
    c.actions.retain(|a| !matches!(a, Action::AddNode{..}));
    let mut c2 = c.clone(); c2.actions.splice(0..0, nodes);
    println!("nodes first: {:?}", runner::run(&c2).err().map(|f| f.class));
    // without the count-0 rows
    let mut c3 = r.case.clone();
    for a in c3.actions.iter_mut() { if let Action::Change{asks,..} = a { asks.retain(|r| r.count > 0); } }
    println!("no zero rows: {:?}", runner::run(&c3).err().map(|f| f.class));
    let mut c4 = r.case.clone();
    for a in c4.actions.iter_mut() { if let Action::Change{app,asks} = a { let asks2: Vec<_> = asks.iter().filter(|r| r.count>0).cloned().collect(); *a = Action::Snapshot{app:*app, asks: asks2}; } }
    println!("as snapshot: {:?}", runner::run(&c4).err().map(|f| f.class));
}
