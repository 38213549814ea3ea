//! A core rebuilt in the place of one that failed takes over what that core parsed from its
//! side files (`locus.profile.store`, `locus.datacenter.mapping.file`,
//! `locus.mrosa.public.file`) instead of reading them again: a file that became unreadable since
//! the start must not keep the cluster unscheduled.

mod common;

use std::path::{Path, PathBuf};

use common::{add_node, core_with, heartbeat_free, node_id, props, set_small_asks};
use locus_core::config::SideFiles;
use locus_core::{Core, Event};

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("locus-rebuild-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The file at `path` becomes unreadable: a directory takes its place.
fn break_file(path: &Path) {
    std::fs::remove_file(path).ok();
    std::fs::create_dir(path).unwrap();
}

#[test]
fn a_rebuild_after_every_side_file_became_unreadable_still_places_containers() {
    let dir = tmp_dir("unreadable");
    let mapping = dir.join("mapping.txt");
    std::fs::write(&mapping, "vps1 east\n").unwrap();
    let public = dir.join("public.txt");
    std::fs::write(&public, "h9 ec2-2c 0.000027 4800 1.25\n").unwrap();
    let store = dir.join("profiles.json");
    let settings = [
        ("locus.policy", "mrosa"),
        ("locus.datacenter.mapping.file", mapping.to_str().unwrap()),
        ("locus.mrosa.public.file", public.to_str().unwrap()),
        ("locus.profile.store", store.to_str().unwrap()),
    ];
    let mut old = core_with(&settings);
    add_node(&mut old, "vps1", "/rack1", 8, 8);
    common::add_app_in(
        &mut old,
        "app_1",
        "default",
        "alice",
        "wc",
        0,
        "MAPREDUCE",
        &[],
    );
    set_small_asks(&mut old, "app_1", &[(20, "*", 1)]);
    let ds = heartbeat_free(&mut old, "vps1", 8, 8, 1_000);
    let ids = common::execute(&mut old, &ds, &mut 0);
    common::release(&mut old, "app_1", &ids[0], "vps1", 1, 1);
    heartbeat_free(&mut old, "vps1", 8, 8, 5_000);
    old.handle(Event::AppRemoved {
        app: "app_1".into(),
    })
    .unwrap();
    assert_eq!(old.stats().profiles, 1);
    let full = props(&settings);
    let mut full_props = full.clone();
    full_props.insert("locus.locality".into(), "hadoop".into());

    for f in [&mapping, &public, &store] {
        break_file(f);
    }
    let start = Core::new(&full_props)
        .err()
        .expect("an unreadable file stops a start");
    assert!(
        start.to_string().contains("cannot read"),
        "a start still reads its files: {start}"
    );

    let carried: SideFiles = old.into_side_files();
    let mut c = Core::rebuilt(&full_props, carried).expect("the rebuild reads no file");
    assert_eq!(c.stats().profiles, 1, "the old core's profiles");
    assert_eq!(
        c.config().mrosa.pool.nodes.len(),
        1,
        "the old core's public pool"
    );
    add_node(&mut c, "vps1", "/rack1", 8, 8);
    assert_eq!(
        c.state().node(&node_id("vps1")).unwrap().datacenter,
        "east",
        "the old core's datacenter mapping"
    );
    common::add_app_in(
        &mut c,
        "app_2",
        "default",
        "bob",
        "sort",
        0,
        "MAPREDUCE",
        &[],
    );
    set_small_asks(&mut c, "app_2", &[(20, "*", 2)]);
    let placed: u32 = heartbeat_free(&mut c, "vps1", 8, 8, 10_000)
        .iter()
        .map(|d| d.count)
        .sum();
    assert_eq!(placed, 2, "containers placed after the rebuild");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_rebuild_whose_settings_name_another_file_reads_that_one() {
    let dir = tmp_dir("moved");
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&a, "vps1 east\n").unwrap();
    std::fs::write(&b, "vps1 west\n").unwrap();
    let old = core_with(&[("locus.datacenter.mapping.file", a.to_str().unwrap())]);
    let carried = old.into_side_files();
    let settings = props(&[
        ("locus.policy", "fifo"),
        ("locus.locality", "hadoop"),
        ("locus.datacenter.mapping.file", b.to_str().unwrap()),
    ]);
    let mut c = Core::rebuilt(&settings, carried).unwrap();
    add_node(&mut c, "vps1", "/rack1", 8, 8);
    assert_eq!(c.state().node(&node_id("vps1")).unwrap().datacenter, "west");
    std::fs::remove_dir_all(&dir).ok();
}
