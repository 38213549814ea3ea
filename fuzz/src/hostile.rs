//! Hostile inputs: what an AM, a submitter or a broken shim could send. Each case asserts that
//! the core refuses cleanly (an error naming the problem) or stays bounded (decisions within
//! the node, names held within the input's size, errors within a size) — by work and size
//! bounds, never by timing. Each runs in a child process (`locus-fuzz --hostile NAME`) under an
//! address-space limit and a generous deadline, because today's core can abort the process
//! (an allocation of one element per outstanding map cannot be caught) or wedge it (crafted
//! colliding names): the parent reports those as `abort` and `wedge` failures.

use std::collections::BTreeMap;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use locus_core::config::DELAY_IDLE_ROOM;
use locus_core::{Ask, Core, Event, Heartbeat, Resource};

use crate::action::Action;
use crate::combos::Props;
use crate::failure::Failure;
use crate::model::{app_id, Model};

/// Deadline of one hostile child. Generous: the slowest honest case takes a few seconds in a
/// debug build on a loaded machine; a wedge takes minutes.
pub const CHILD_DEADLINE: Duration = Duration::from_secs(60);
/// Address space of a hostile child (KiB, for `ulimit -v`): enough for 100,000 names ten times
/// over, far below what one element per outstanding map (2^31-1) needs.
pub const CHILD_MEMORY_KIB: u64 = 3 * 1024 * 1024;
/// Distinct host names in the many-names cases (the hostile-input target's figure).
pub const MANY_NAMES: usize = 100_000;
/// Crafted names sharing one hash under today's fast_hash in the collision case.
pub const COLLIDING_NAMES: usize = 30_000;
/// The longest error text one refused call may produce: a log line, not a dump.
pub const MAX_ERROR_BYTES: usize = 64 * 1024;

pub struct HostileCase {
    pub name: &'static str,
    pub run: fn() -> Result<(), Failure>,
}

pub fn cases() -> Vec<HostileCase> {
    vec![
        HostileCase {
            name: "huge_count_fifo",
            run: || huge_count("fifo", false),
        },
        HostileCase {
            name: "huge_count_joss_t",
            run: || huge_count("joss-t", false),
        },
        HostileCase {
            name: "huge_count_joss_j",
            run: || huge_count("joss-j", false),
        },
        HostileCase {
            name: "huge_count_mrosa_deadline",
            run: || huge_count("mrosa", true),
        },
        HostileCase {
            name: "huge_count_td",
            run: || huge_count("td", false),
        },
        HostileCase {
            name: "huge_count_fresh",
            run: || huge_count("fresh", false),
        },
        HostileCase {
            name: "huge_sizes_fifo",
            run: || huge_sizes("fifo"),
        },
        HostileCase {
            name: "huge_sizes_fair",
            run: || huge_sizes("fair"),
        },
        HostileCase {
            name: "huge_sizes_capacity",
            run: || huge_sizes("capacity"),
        },
        HostileCase {
            name: "huge_sizes_mrosa",
            run: || huge_sizes("mrosa"),
        },
        HostileCase {
            name: "many_names_freed",
            run: many_names,
        },
        HostileCase {
            name: "colliding_names",
            run: colliding_names,
        },
        HostileCase {
            name: "malformed_json_into_bridge",
            run: malformed_json,
        },
        HostileCase {
            name: "bridge_error_size_bounded",
            run: bridge_error_size,
        },
    ]
}

fn props(policy: &str) -> Props {
    let mut p: Props = BTreeMap::new();
    p.insert("locus.policy".into(), policy.into());
    p
}

fn mr_app(m: &mut Model, app: u32, tags: Vec<String>) -> Result<(), Failure> {
    m.apply(
        0,
        &Action::AddApp {
            app,
            queue: "default".into(),
            app_type: "MAPREDUCE".into(),
            tags,
        },
    )?;
    m.apply(0, &Action::AddAttempt { app })
}

fn row(priority: i32, name: &str, cap: Resource, count: u32) -> Ask {
    Ask {
        priority,
        allocation_request_id: 0,
        resource_name: name.into(),
        capability: cap,
        count,
        relax_locality: true,
    }
}

/// Applies an ask update an attacker sends: a clean refusal ends the case as a pass.
fn hostile_asks(m: &mut Model, step: usize, action: Action) -> Result<bool, Failure> {
    match m.apply(step, &action) {
        Ok(()) => Ok(true),
        Err(f) if f.class == "refused_valid_event" && !f.detail.is_empty() => Ok(false),
        Err(f) => Err(f),
    }
}

/// Runs `case` under `policy`'s settings with each value of `locus.delay.idle-room` its
/// locality layer reads; a failure names the value it showed under.
fn under_each_idle_room(
    policy: &str,
    mut case: impl FnMut(Props) -> Result<(), Failure>,
) -> Result<(), Failure> {
    for p in crate::combos::with_idle_room(props(policy)) {
        let mut layers = format!("policy={policy}");
        if let Some(v) = p.get(DELAY_IDLE_ROOM) {
            layers.push_str(&format!(" {}={v}", &DELAY_IDLE_ROOM[6..]));
        }
        case(p).map_err(|mut f| {
            f.layers = layers;
            f
        })?;
    }
    Ok(())
}

/// An AM asking for 2^31-1 maps at each host and u32::MAX at `*`, then heartbeats under the
/// model's invariants: the core must refuse the rows or schedule within the nodes.
fn huge_count(policy: &str, deadline: bool) -> Result<(), Failure> {
    under_each_idle_room(policy, |p| huge_count_under(p, deadline))
}

fn huge_count_under(p: Props, deadline: bool) -> Result<(), Failure> {
    let mut m = Model::new(p)?;
    for host in 0..4 {
        m.apply(
            0,
            &Action::AddNode {
                host,
                rack: host % 2,
                memory_mb: 16384,
                vcores: 16,
                gpus: 0,
            },
        )?;
    }
    let tags = if deadline {
        vec!["locus.deadline=600".to_string()]
    } else {
        vec![]
    };
    mr_app(&mut m, 0, tags)?;
    mr_app(&mut m, 1, vec![])?;
    let cap = Resource::new(1024, 1);
    let big = (1u32 << 31) - 1;
    let asks = vec![
        row(20, "h0", cap, big),
        row(20, "h1", cap, big),
        row(20, "/r0", cap, u32::MAX),
        row(20, "/r1", cap, big),
        row(20, "*", cap, u32::MAX),
        row(10, "*", cap, big),
    ];
    if !hostile_asks(&mut m, 1, Action::Snapshot { app: 0, asks })? {
        return Ok(());
    }
    m.apply(
        2,
        &Action::Snapshot {
            app: 1,
            asks: vec![row(20, "*", cap, 3)],
        },
    )?;
    for round in 0..8 {
        for host in 0..4 {
            m.apply(3 + round, &Action::Heartbeat { host })?;
        }
    }
    Ok(())
}

/// Nodes and asks with sizes near the integer limits: sums (cluster capacity, AM share, map
/// demand) must not overflow, decisions must stay within the node.
fn huge_sizes(policy: &str) -> Result<(), Failure> {
    under_each_idle_room(policy, huge_sizes_under)
}

fn huge_sizes_under(mut p: Props) -> Result<(), Failure> {
    if crate::combos::is_capacity(&p) {
        p.insert(
            "locus.capacity.queues".into(),
            crate::combos::CAPACITY_QUEUES.into(),
        );
    }
    let mut m = Model::new(p)?;
    m.apply(
        0,
        &Action::AddNode {
            host: 0,
            rack: 0,
            memory_mb: u64::MAX,
            vcores: u32::MAX,
            gpus: 0,
        },
    )?;
    m.apply(
        0,
        &Action::AddNode {
            host: 1,
            rack: 0,
            memory_mb: u64::MAX - 1,
            vcores: u32::MAX,
            gpus: 0,
        },
    )?;
    m.apply(
        0,
        &Action::AddNode {
            host: 2,
            rack: 1,
            memory_mb: i64::MAX as u64,
            vcores: i32::MAX as u32,
            gpus: 0,
        },
    )?;
    mr_app(&mut m, 0, vec![])?;
    mr_app(&mut m, 1, vec![])?;
    let huge = Resource::new(u64::MAX / 2, u32::MAX / 2);
    let asks = vec![
        row(0, "*", huge, 1),
        row(20, "h0", huge, u32::MAX),
        row(20, "/r0", huge, u32::MAX),
        row(20, "*", huge, u32::MAX),
        row(10, "*", Resource::new(u64::MAX, u32::MAX), u32::MAX),
    ];
    if !hostile_asks(&mut m, 1, Action::Snapshot { app: 0, asks })? {
        return Ok(());
    }
    let other = vec![row(
        20,
        "*",
        Resource::new(i64::MAX as u64, 1),
        i32::MAX as u32,
    )];
    if !hostile_asks(
        &mut m,
        2,
        Action::Snapshot {
            app: 1,
            asks: other,
        },
    )? {
        return Ok(());
    }
    for round in 0..4 {
        for host in 0..3 {
            m.apply(3 + round, &Action::Heartbeat { host })?;
        }
    }
    Ok(())
}

fn guard<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Failure::new("panic", 0, format!("{what}: {msg}"))
    })
}

fn simple_core() -> Result<Core, Failure> {
    simple_core_under(&props("fifo"))
}

fn simple_core_under(p: &Props) -> Result<Core, Failure> {
    let mut c = Core::new(p).map_err(|e| Failure::new("refused_valid_config", 0, e.to_string()))?;
    let ev = |e: Event, c: &mut Core| {
        c.handle(e)
            .map_err(|e| Failure::new("refused_valid_event", 0, e.to_string()))
    };
    ev(
        Event::NodeAdded {
            node: "h0:8041".into(),
            host: "h0".into(),
            rack: "/r0".into(),
            capability: Resource::new(8192, 8),
        },
        &mut c,
    )?;
    ev(
        Event::AppAdded {
            app: app_id(0),
            queue: "default".into(),
            user: "u".into(),
            name: "j".into(),
            app_type: "MAPREDUCE".into(),
            tags: vec![],
            submit_ms: 0,
            priority: 0,
            recovered: false,
        },
        &mut c,
    )?;
    ev(
        Event::AttemptAdded {
            app: app_id(0),
            attempt: "appattempt_1700000000000_0000_000001".into(),
        },
        &mut c,
    )?;
    Ok(c)
}

fn name_rows(names: impl Iterator<Item = String>) -> Vec<Ask> {
    let cap = Resource::new(1024, 1);
    let mut rows: Vec<Ask> = names.map(|n| row(20, &n, cap, 1)).collect();
    rows.push(row(20, "*", cap, rows.len() as u32));
    rows
}

/// Ten snapshots of 100,000 new host names each: the core may refuse them, but the names it
/// holds afterwards must be bounded by what the app asks for now, not by history.
fn many_names() -> Result<(), Failure> {
    let mut c = simple_core()?;
    for round in 0..10 {
        let rows = name_rows((0..MANY_NAMES).map(|i| format!("r{round}-node{i:06}.example.com")));
        let _ = guard("asks_updated", || {
            c.handle(Event::AsksUpdated {
                app: app_id(0),
                asks: rows,
            })
        })?;
        let held = c.state().names().len();
        let bound = MANY_NAMES + 16;
        if held > bound {
            return Err(Failure::new(
                "names_unbounded",
                round,
                format!("after {} snapshots of {MANY_NAMES} new names the core holds {held} names (bound {bound})", round + 1),
            ));
        }
    }
    Ok(())
}

const SEED: u64 = 0x517c_c1b7_2722_0a95;

fn legacy_write(h: &mut u64, bytes: &[u8]) {
    {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            *h = (h.rotate_left(5) ^ w).wrapping_mul(SEED);
        }
        let mut w = [0u8; 8];
        let rest = chunks.remainder();
        w[..rest.len()].copy_from_slice(rest);
        let x = (h.rotate_left(5) ^ u64::from_le_bytes(w) ^ (bytes.len() as u64) << 56)
            .wrapping_mul(SEED);
        *h = x ^ (x >> 32);
    }
}

/// The state today's fast_hash reaches after names.rs's key hashes its length prefix
/// (`[u8]`'s Hash: `write_usize(len)`, which IdHasher takes through `write`).
fn legacy_prefix(len: usize) -> u64 {
    let mut h = 0u64;
    legacy_write(&mut h, &len.to_ne_bytes());
    h
}

/// Today's fast_hash of an interned name as names.rs feeds it (length prefix, then the bytes),
/// kept here so the crafted names stay crafted against the unkeyed hasher they attacked,
/// whatever replaces it.
pub fn legacy_hash(s: &str) -> u64 {
    let mut h = legacy_prefix(s.len());
    legacy_write(&mut h, s.as_bytes());
    h
}

/// 24-byte names (ASCII, some control bytes) that all share one 64-bit hash under
/// [`legacy_hash`]: the third word cancels what the first two contributed.
pub fn colliding(n: usize) -> Vec<String> {
    let w1 = u64::from_le_bytes(*b"evilhost");
    let h1 = (legacy_prefix(24).rotate_left(5) ^ w1).wrapping_mul(SEED);
    let mut out = Vec::with_capacity(n);
    let mut i: u64 = 0;
    while out.len() < n {
        // The second word: printable digits of a counter.
        let mut w2b = [b'0'; 8];
        let mut k = i;
        for b in w2b.iter_mut() {
            *b = b'0' + (k % 64) as u8;
            k /= 64;
        }
        i += 1;
        let w2 = u64::from_le_bytes(w2b);
        let h2 = (h1.rotate_left(5) ^ w2).wrapping_mul(SEED);
        // rotl(h2, 5) ^ w3 == 0 for every name: w3 = rotl(h2, 5), usable when all its bytes are ASCII.
        let w3 = h2.rotate_left(5);
        if w3.to_le_bytes().iter().all(|b| *b < 0x80) {
            let mut bytes = Vec::with_capacity(24);
            bytes.extend_from_slice(b"evilhost");
            bytes.extend_from_slice(&w2b);
            bytes.extend_from_slice(&w3.to_le_bytes());
            out.push(String::from_utf8(bytes).expect("ASCII"));
        }
    }
    out
}

/// Crafted colliding names in one snapshot: must finish (the child's deadline catches a wedge).
fn colliding_names() -> Result<(), Failure> {
    let names = colliding(COLLIDING_NAMES);
    let h = legacy_hash(&names[0]);
    if names.iter().any(|n| legacy_hash(n) != h) {
        return Err(Failure::new(
            "fuzzer_bug",
            0,
            "crafted names do not collide",
        ));
    }
    under_each_idle_room("fifo", |p| {
        let mut c = simple_core_under(&p)?;
        let rows = name_rows(names.iter().cloned());
        let _ = guard("asks_updated", || {
            c.handle(Event::AsksUpdated {
                app: app_id(0),
                asks: rows,
            })
        })?;
        let hb = Heartbeat {
            node: "h0:8041".into(),
            unallocated: Resource::new(8192, 8),
            now_ms: 1000,
            sweep: false,
            eager: false,
        };
        let _ = guard("heartbeat", || c.heartbeat(&hb))?;
        Ok(())
    })
}

/// Malformed and adversarial JSON into the bridge's ops: every call returns an error (or a
/// valid answer), none panics, and each error names the culprit within a bounded size.
fn malformed_json() -> Result<(), Failure> {
    use locus_jni::ops;
    let ok = |r: Result<(), String>| r;
    let h = guard("create", || ops::create("{}"))?
        .map_err(|e| Failure::new("refused_valid_config", 0, e.to_string()))?;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let long = format!(
        "[{{\"type\":\"node_removed\",\"node\":\"{}\"}}]",
        "x".repeat(1 << 20)
    );
    let bad_events: Vec<String> = vec![
        String::new(),
        "nul".into(),
        "[".into(),
        "{}".into(),
        "[1,2,3]".into(),
        "[{\"type\":\"no_such_event\"}]".into(),
        "[{\"type\":\"node_added\",\"node\":\"\",\"host\":\"\",\"rack\":\"\",\"capability\":{\"memory_mb\":1,\"vcores\":1}}]".into(),
        "[{\"type\":\"node_added\",\"node\":\"a:1\",\"host\":\"a\",\"rack\":\"/r\",\"capability\":{\"memory_mb\":-1,\"vcores\":1}}]".into(),
        "[{\"type\":\"node_added\",\"node\":\"a:1\",\"host\":\"a\",\"rack\":\"/r\",\"capability\":{\"memory_mb\":1e400,\"vcores\":1}}]".into(),
        "[{\"type\":\"asks_updated\",\"app\":\"nope\",\"asks\":[{\"priority\":1,\"resource_name\":\"*\",\"capability\":{\"memory_mb\":1,\"vcores\":1},\"count\":99999999999}]}]".into(),
        "[{\"type\":\"asks_updated\",\"app\":\"nope\",\"asks\":[{\"priority\":-2147483648,\"resource_name\":\"*\",\"capability\":{\"memory_mb\":18446744073709551615,\"vcores\":4294967295},\"count\":4294967295}]}]".into(),
        "[{\"type\":\"container_released\",\"app\":\"a\",\"container\":\"c\",\"node\":\"n\",\"resource\":{\"memory_mb\":18446744073709551615,\"vcores\":4294967295}}]".into(),
        "[{\"type\":\"app_added\",\"app\":\"a\",\"queue\":\"\",\"user\":\"\",\"extra\":1}]".into(),
        "[{\"type\":\"decision_rejected\",\"decision\":{},\"executed\":4294967295,\"reason\":\"\"}]".into(),
        deep.clone(),
        long,
    ];
    for (i, e) in bad_events.iter().enumerate() {
        let r = guard("events", || ops::events(h, e))?;
        if let Err(err) = r {
            let text = err.to_string();
            if text.is_empty() || text.len() > MAX_ERROR_BYTES + (1 << 20) {
                return Err(Failure::new(
                    "bridge_error_unbounded",
                    i,
                    format!("{} bytes of error", text.len()),
                ));
            }
        }
    }
    let bad_heartbeats = [
        "",
        "{}",
        "[]",
        "{\"node\":\"h\",\"unallocated\":{\"memory_mb\":1,\"vcores\":1},\"now_ms\":-1}",
        &deep,
    ];
    for (i, hb) in bad_heartbeats.iter().enumerate() {
        if guard("heartbeat", || ops::heartbeat(h, hb))?.is_ok() {
            return Err(Failure::new(
                "bridge_accepted_garbage",
                i,
                format!("heartbeat {:?} accepted", crate::model::truncate(hb, 80)),
            ));
        }
    }
    for (i, p) in [
        "",
        "[]",
        "{\"locus.policy\":1}",
        "{\"locus.policy\":\"nope\"}",
        &deep,
    ]
    .iter()
    .enumerate()
    {
        if guard("reconfigure", || ops::reconfigure(h, p))?.is_ok() {
            return Err(Failure::new(
                "bridge_accepted_garbage",
                i,
                format!("properties {:?} accepted", crate::model::truncate(p, 80)),
            ));
        }
        if guard("create", || ops::create(p))?.is_ok() {
            return Err(Failure::new(
                "bridge_accepted_garbage",
                i,
                format!("create {:?} accepted", crate::model::truncate(p, 80)),
            ));
        }
    }
    for bad in [0i64, -1, i64::MIN, i64::MAX, h + 1_000_000] {
        ok(guard("stats", || ops::stats(bad))?
            .map(|_| ())
            .map_err(|e| e.to_string()))
        .ok();
        if guard("heartbeat", || {
            ops::heartbeat(
                bad,
                "{\"node\":\"h\",\"unallocated\":{\"memory_mb\":1,\"vcores\":1},\"now_ms\":1}",
            )
        })?
        .is_ok()
        {
            return Err(Failure::new(
                "bridge_accepted_garbage",
                0,
                format!("handle {bad} accepted"),
            ));
        }
    }
    guard("close", || ops::close(h))?
        .map_err(|e| Failure::new("refused_valid_event", 0, e.to_string()))?;
    if guard("close twice", || ops::close(h))?.is_ok() {
        return Err(Failure::new(
            "bridge_accepted_garbage",
            0,
            "a closed handle closed again",
        ));
    }
    Ok(())
}

/// 100,000 malformed events in one batch: the error must stay a log line, not a dump.
fn bridge_error_size() -> Result<(), Failure> {
    use locus_jni::ops;
    let h = guard("create", || ops::create("{}"))?
        .map_err(|e| Failure::new("refused_valid_config", 0, e.to_string()))?;
    let one = "{\"type\":\"node_removed\",\"nodes\":\"h\"}";
    let batch = format!("[{}]", vec![one; 100_000].join(","));
    let r = guard("events", || ops::events(h, &batch))?;
    let _ = ops::close(h);
    match r {
        Ok(_) => Err(Failure::new(
            "bridge_accepted_garbage",
            0,
            "100,000 malformed events accepted",
        )),
        Err(e) => {
            let n = e.to_string().len();
            if n > MAX_ERROR_BYTES {
                Err(Failure::new(
                    "bridge_error_unbounded",
                    0,
                    format!("refusing 100,000 malformed events produced a {n}-byte error (bound {MAX_ERROR_BYTES})"),
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// Runs one case in this process (the child side); prints the failure as JSON on stdout.
pub fn run_here(name: &str) -> Result<(), Failure> {
    let case = cases()
        .into_iter()
        .find(|c| c.name == name)
        .ok_or_else(|| Failure::new("usage", 0, format!("no hostile case {name:?}")))?;
    (case.run)()
}

/// Runs one case in a child process of `exe` under [`CHILD_MEMORY_KIB`] and [`CHILD_DEADLINE`].
pub fn run_in_child(exe: &std::path::Path, name: &str) -> Result<(), Failure> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {CHILD_MEMORY_KIB}; exec \"$0\" --hostile {name}"
        ))
        .arg(exe)
        .env("LOCUS_FUZZ_CHILD", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Failure::new(
                "fuzzer_bug",
                0,
                format!("cannot start {}: {e}", exe.display()),
            )
        })?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| Failure::new("fuzzer_bug", 0, e.to_string()))?
        {
            break s;
        }
        if start.elapsed() > CHILD_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::new(
                "wedge",
                0,
                format!(
                    "hostile case {name} still running after {}s",
                    CHILD_DEADLINE.as_secs()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    let mut err = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    if status.success() {
        return Ok(());
    }
    if let Some(line) = out.lines().rev().find(|l| l.starts_with('{')) {
        if let Ok(mut f) = serde_json::from_str::<Failure>(line) {
            if f.layers.is_empty() {
                f.layers = format!("hostile case {name}");
            }
            return Err(f);
        }
    }
    // The line that says why (an allocation failure or a panic message), else the last ones.
    let tail: String = match err.lines().find(|l| {
        l.contains("memory allocation") || l.contains("panicked") || l.contains("overflow")
    }) {
        Some(l) => l.to_string(),
        None => err.lines().rev().take(3).collect::<Vec<_>>().join(" | "),
    };
    let mut f = Failure::new(
        "abort",
        0,
        format!("hostile case {name} killed the process ({status}): {tail}"),
    );
    f.layers = format!("hostile case {name}");
    Err(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crafted names must collide under the unkeyed hasher the core used before names were keyed.
    #[test]
    fn crafted_names_collide_under_the_legacy_hasher() {
        use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
        #[derive(Default)]
        struct Legacy(u64);
        impl Hasher for Legacy {
            fn finish(&self) -> u64 {
                self.0
            }
            fn write(&mut self, bytes: &[u8]) {
                legacy_write(&mut self.0, bytes);
            }
        }
        let names = colliding(50);
        let b = BuildHasherDefault::<Legacy>::default();
        let h = b.hash_one(names[0].as_bytes());
        assert!(names
            .iter()
            .all(|n| b.hash_one(n.as_bytes()) == h && legacy_hash(n) == h));
        assert_eq!(
            names
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            50
        );
    }
}
