//! Time the scheduling thread spends on a finished application when `locus.profile.store` is
//! set: `app_removed` folds the run into the store and hands a copy of the store to the writer
//! thread (the disk write itself is off this thread). The copy grows with the number of job
//! signatures in the store, so it is measured for stores of 1,000, 10,000 and 100,000.
//!
//! Each iteration runs one map of a job whose signature is already in the store, so the store
//! keeps its size; only `app_removed` is timed.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use locus_core::papers::joss::{JobObservation, ProfileStore};
use locus_core::profile::{job_signature, store_to_json};
use locus_core::{Ask, ContainerInfo, Core, Event, Heartbeat, Locality, Resource};

const GB: u64 = 1024;

fn core_with_store(profiles: u64, dir: &std::path::Path) -> Core {
    let mut store = ProfileStore::new();
    let mut run = JobObservation::default();
    run.map_finished(10_000, 0, 0);
    for i in 0..profiles {
        store.record_run(
            job_signature("alice", &format!("job{i}"), "MAPREDUCE", ""),
            &run,
        );
    }
    let path = dir.join(format!("profiles-{profiles}.json"));
    std::fs::write(&path, store_to_json(&store).unwrap()).unwrap();
    let props: BTreeMap<String, String> = [(
        "locus.profile.store".to_string(),
        path.to_string_lossy().into_owned(),
    )]
    .into();
    let mut c = Core::new(&props).unwrap();
    c.handle(Event::NodeAdded {
        node: "h1:8041".into(),
        host: "h1".into(),
        rack: "/r1".into(),
        capability: Resource::new(8 * GB, 8),
    })
    .unwrap();
    c
}

fn one_finished_job(c: &mut Core, n: u64) -> Duration {
    let app = format!("application_1_{n:06}");
    c.handle(Event::AppAdded {
        app: app.clone(),
        queue: "default".into(),
        user: "alice".into(),
        name: "job0".into(),
        app_type: "MAPREDUCE".into(),
        tags: vec![],
        submit_ms: n,
        priority: 0,
        recovered: false,
    })
    .unwrap();
    let one = Resource::new(GB, 1);
    c.handle(Event::AsksUpdated {
        app: app.clone(),
        asks: vec![Ask {
            priority: 20,
            allocation_request_id: 0,
            resource_name: "*".into(),
            capability: one,
            count: 1,
            relax_locality: true,
        }],
    })
    .unwrap();
    let hb = |now_ms| Heartbeat {
        node: "h1:8041".into(),
        unallocated: Resource::new(8 * GB, 8),
        now_ms,
        sweep: false,
        eager: false,
    };
    let ds = c.heartbeat(&hb(n * 10)).unwrap().decisions;
    let container = format!("container_{n}");
    c.handle(Event::ContainerAllocated {
        container: ContainerInfo {
            container: container.clone(),
            app: app.clone(),
            node: "h1:8041".into(),
            priority: 20,
            resource: one,
        },
        locality: ds.first().map_or(Locality::OffSwitch, |d| d.locality),
        allocation_request_id: ds.first().map_or(0, |d| d.allocation_request_id),
        recovered: false,
    })
    .unwrap();
    c.handle(Event::ContainerReleased {
        app: app.clone(),
        container,
        node: "h1:8041".into(),
        resource: one,
    })
    .unwrap();
    c.heartbeat(&hb(n * 10 + 5)).unwrap();
    let start = Instant::now();
    c.handle(Event::AppRemoved { app }).unwrap();
    start.elapsed()
}

fn bench(cr: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("locus-bench-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for profiles in [1_000u64, 10_000, 100_000] {
        let mut c = core_with_store(profiles, &dir);
        let mut n = 0;
        cr.bench_function(&format!("app_removed/{profiles}_profiles"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    n += 1;
                    total += one_finished_job(&mut c, n);
                }
                total
            })
        });
        assert!(c.flush_profiles(Duration::from_secs(60)));
    }
    std::fs::remove_dir_all(&dir).ok();
}

criterion_group!(benches, bench);
criterion_main!(benches);
