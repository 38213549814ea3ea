//! The guard against a real JVM: errors and panics must arrive in Java as the right exception
//! class with the right message, and the native method must return normally.
//!
//! Needs the shim's compiled classes (`gradle :java-shim:classes`) and the Hadoop/SLF4J jars in
//! the Gradle cache. Without them the tests say so and pass, unless `LOCUS_REQUIRE_JVM_TESTS`
//! is set (CI sets it so a missing JVM cannot hide a regression).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jni::objects::{JClass, JObject, JString, JThrowable};
use jni::{InitArgsBuilder, JNIEnv, JNIVersion, JavaVM};
use locus_core::CoreError;
use locus_jni::error::BridgeError;
use locus_jni::guard::with_guard;

fn find_jar(group: &str, artifact: &str, file: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let base = Path::new(&home)
        .join(".gradle/caches/modules-2/files-2.1")
        .join(group)
        .join(artifact);
    for version in std::fs::read_dir(base).ok()? {
        for hash in std::fs::read_dir(version.ok()?.path()).ok()? {
            let candidate = hash.ok()?.path().join(file);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn classpath() -> Option<String> {
    let classes =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../java-shim/build/classes/java/main");
    if !classes
        .join("org/locus/yarn/LocusException.class")
        .is_file()
    {
        return None;
    }
    let yarn_api = find_jar(
        "org.apache.hadoop",
        "hadoop-yarn-api",
        "hadoop-yarn-api-3.5.0.jar",
    )?;
    let slf4j = find_jar("org.slf4j", "slf4j-api", "slf4j-api-1.7.36.jar")?;
    Some(
        [classes, yarn_api, slf4j]
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
    )
}

/// One JVM per process (JNI allows no second one).
fn jvm() -> Option<&'static JavaVM> {
    static JVM: OnceLock<Option<JavaVM>> = OnceLock::new();
    JVM.get_or_init(|| {
        let Some(cp) = classpath() else {
            assert!(
                std::env::var_os("LOCUS_REQUIRE_JVM_TESTS").is_none(),
                "shim classes or Gradle jars missing; run gradle :java-shim:classes"
            );
            eprintln!("skipping JVM tests: run `gradle --no-daemon :java-shim:classes` first");
            return None;
        };
        let args = InitArgsBuilder::new()
            .version(JNIVersion::V8)
            .option(format!("-Djava.class.path={cp}"))
            .option("-Xmx128m")
            .build()
            .expect("JVM init args");
        Some(JavaVM::new(args).expect("start JVM"))
    })
    .as_ref()
}

/// Takes the pending exception: (class name, message).
fn take_exception(env: &mut JNIEnv) -> Option<(String, String)> {
    if !env.exception_check().unwrap() {
        return None;
    }
    let ex: JThrowable = env.exception_occurred().unwrap();
    env.exception_clear().unwrap();
    let class = env.get_object_class(&ex).unwrap();
    let name = env
        .call_method(&class, "getName", "()Ljava/lang/String;", &[])
        .unwrap()
        .l()
        .unwrap();
    let name: String = env.get_string(&JString::from(name)).unwrap().into();
    let msg = env
        .call_method(&ex, "getMessage", "()Ljava/lang/String;", &[])
        .unwrap()
        .l()
        .unwrap();
    let msg: String = env.get_string(&JString::from(msg)).unwrap().into();
    Some((name, msg))
}

#[test]
fn a_panic_becomes_locus_exception_and_the_call_returns_the_default() {
    let Some(vm) = jvm() else { return };
    let mut env = vm.attach_current_thread_permanently().unwrap();
    let out = with_guard(&mut env, -1i64, |_| -> Result<i64, BridgeError> {
        panic!("lost track of node {}", "h1:8041")
    });
    assert_eq!(out, -1);
    let (class, msg) = take_exception(&mut env).expect("an exception is pending");
    assert_eq!(class, "org.locus.yarn.LocusException");
    assert_eq!(msg, "Locus core panicked: lost track of node h1:8041");
}

#[test]
fn config_errors_become_locus_config_exception() {
    let Some(vm) = jvm() else { return };
    let mut env = vm.attach_current_thread_permanently().unwrap();
    with_guard(&mut env, (), |_| {
        Err(BridgeError::Core(CoreError::Config {
            key: "locus.policy".into(),
            message: "unknown value 'fair'; allowed: fifo".into(),
        }))
    });
    let (class, msg) = take_exception(&mut env).expect("an exception is pending");
    assert_eq!(class, "org.locus.yarn.LocusConfigException");
    assert!(msg.contains("locus.policy"), "{msg}");

    assert_eq!(with_guard(&mut env, 7, |_| Ok(7)), 7);
    assert!(
        take_exception(&mut env).is_none(),
        "success must not leave an exception"
    );
}

#[test]
fn entry_points_reject_bad_input_with_an_exception_not_a_crash() {
    let Some(vm) = jvm() else { return };
    let env = vm.attach_current_thread_permanently().unwrap();
    // SAFETY: the same thread's env, used strictly one call at a time.
    let call_env = || unsafe { env.unsafe_clone() };
    let no_class = || JClass::from(JObject::null());

    let bad = env.new_string("{not json").unwrap();
    let h = locus_jni::Java_org_locus_yarn_LocusNative_create(call_env(), no_class(), bad);
    assert_eq!(h, 0);
    let (class, msg) = take_exception(&mut call_env()).unwrap();
    assert_eq!(class, "org.locus.yarn.LocusException");
    assert!(msg.starts_with("malformed properties JSON"), "{msg}");

    let null = JString::from(JObject::null());
    locus_jni::Java_org_locus_yarn_LocusNative_create(call_env(), no_class(), null);
    let (_, msg) = take_exception(&mut call_env()).unwrap();
    assert_eq!(msg, "propertiesJson must not be null");

    let stats = locus_jni::Java_org_locus_yarn_LocusNative_stats(call_env(), no_class(), 0);
    assert!(stats.is_null());
    let (_, msg) = take_exception(&mut call_env()).unwrap();
    assert!(msg.starts_with("invalid or closed Locus handle"), "{msg}");

    let empty = env.new_string("{}").unwrap();
    let h = locus_jni::Java_org_locus_yarn_LocusNative_create(call_env(), no_class(), empty);
    assert!(take_exception(&mut call_env()).is_none());
    assert_ne!(h, 0);
    let stats = locus_jni::Java_org_locus_yarn_LocusNative_stats(call_env(), no_class(), h);
    let stats: String = call_env()
        .get_string(&unsafe { JString::from_raw(stats) })
        .unwrap()
        .into();
    assert!(stats.contains("\"heartbeats\":0"), "{stats}");
    locus_jni::Java_org_locus_yarn_LocusNative_close(call_env(), no_class(), h);
    assert!(take_exception(&mut call_env()).is_none());
    locus_jni::Java_org_locus_yarn_LocusNative_close(call_env(), no_class(), h);
    assert!(take_exception(&mut call_env())
        .unwrap()
        .1
        .starts_with("invalid or closed Locus handle"));
}

#[test]
fn logging_from_a_thread_java_never_saw_does_not_crash() {
    let Some(vm) = jvm() else { return };
    let env = vm.attach_current_thread_permanently().unwrap();
    locus_jni::Java_org_locus_yarn_LocusNative_initLogging(
        unsafe { env.unsafe_clone() },
        JClass::from(JObject::null()),
        5,
    );
    assert!(take_exception(&mut unsafe { env.unsafe_clone() }).is_none());
    // A plain Rust thread: the forwarder must attach it (as a daemon) to reach Java.
    std::thread::spawn(|| log::info!(target: "locus_jni", "from a native thread"))
        .join()
        .unwrap();
    log::trace!(target: "locus_jni", "from a Java-attached thread");
    assert!(take_exception(&mut unsafe { env.unsafe_clone() }).is_none());
}

#[test]
fn logging_from_a_thread_local_destructor_does_not_abort() {
    let Some(vm) = jvm() else { return };
    let env = vm.attach_current_thread_permanently().unwrap();
    locus_jni::Java_org_locus_yarn_LocusNative_initLogging(
        unsafe { env.unsafe_clone() },
        JClass::from(JObject::null()),
        3,
    );
    struct LogsOnDrop;
    impl Drop for LogsOnDrop {
        fn drop(&mut self) {
            log::warn!(target: "locus_jni", "logged while the thread's locals are destroyed");
        }
    }
    thread_local!(static GUARD: LogsOnDrop = const { LogsOnDrop });
    for attach_first in [false, true] {
        std::thread::spawn(move || {
            if attach_first {
                log::warn!(target: "locus_jni", "attaches this thread as a daemon");
            }
            GUARD.with(|_| ());
        })
        .join()
        .unwrap();
    }
}

#[test]
fn capacity_queues_is_null_outside_capacity_and_json_under_it() {
    let Some(vm) = jvm() else { return };
    let env = vm.attach_current_thread_permanently().unwrap();
    // SAFETY: the same thread's env, used strictly one call at a time.
    let call_env = || unsafe { env.unsafe_clone() };
    let no_class = || JClass::from(JObject::null());
    let read = |raw: jni::sys::jstring| -> String {
        call_env()
            .get_string(&unsafe { JString::from_raw(raw) })
            .unwrap()
            .into()
    };

    let fifo = env.new_string("{}").unwrap();
    let h = locus_jni::Java_org_locus_yarn_LocusNative_create(call_env(), no_class(), fifo);
    let queues =
        locus_jni::Java_org_locus_yarn_LocusNative_capacityQueues(call_env(), no_class(), h);
    assert!(queues.is_null(), "fifo has no capacity queues");
    assert!(
        take_exception(&mut call_env()).is_none(),
        "null is an answer, not an error"
    );

    let capacity = env
        .new_string(r#"{"locus.policy":"capacity","locus.capacity.queues":"a:50:90,b:50:90"}"#)
        .unwrap();
    locus_jni::Java_org_locus_yarn_LocusNative_reconfigure(call_env(), no_class(), h, capacity);
    assert!(take_exception(&mut call_env()).is_none());
    let queues =
        locus_jni::Java_org_locus_yarn_LocusNative_capacityQueues(call_env(), no_class(), h);
    assert!(take_exception(&mut call_env()).is_none());
    let json: serde_json::Value = serde_json::from_str(&read(queues)).unwrap();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| q["name"].as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(json[1]["maximum_capacity"].as_f64(), Some(90.0));

    locus_jni::Java_org_locus_yarn_LocusNative_close(call_env(), no_class(), h);
    let gone = locus_jni::Java_org_locus_yarn_LocusNative_capacityQueues(call_env(), no_class(), h);
    assert!(gone.is_null());
    let (class, msg) = take_exception(&mut call_env()).expect("a closed handle throws");
    assert_eq!(class, "org.locus.yarn.LocusException");
    assert!(msg.starts_with("invalid or closed Locus handle"), "{msg}");
}

// Needs the `test-hooks` feature (`./locus test` enables it): the shipped library has no trigger.
#[cfg(feature = "test-hooks")]
#[test]
fn a_core_panic_poisons_the_handle_and_java_sees_locus_core_poisoned_exception() {
    let Some(vm) = jvm() else { return };
    let env = vm.attach_current_thread_permanently().unwrap();
    // SAFETY: the same thread's env, used strictly one call at a time.
    let call_env = || unsafe { env.unsafe_clone() };
    let no_class = || JClass::from(JObject::null());

    let h = locus_jni::ops::create("{}").unwrap();
    let message = env.new_string("invariant broken").unwrap();
    locus_jni::Java_org_locus_yarn_CoreFaults_injectPanic(call_env(), no_class(), h, message);
    let (class, msg) = take_exception(&mut call_env()).expect("the panicking call throws");
    assert_eq!(class, "org.locus.yarn.LocusCorePoisonedException");
    assert!(
        msg.contains("out of service after a panic (invariant broken)"),
        "{msg}"
    );

    // Every later call on the handle throws the same class; the core is not trusted again.
    let stats = locus_jni::Java_org_locus_yarn_LocusNative_stats(call_env(), no_class(), h);
    assert!(stats.is_null());
    let (class, _) = take_exception(&mut call_env()).expect("a poisoned core refuses stats");
    assert_eq!(class, "org.locus.yarn.LocusCorePoisonedException");
    locus_jni::Java_org_locus_yarn_LocusNative_close(call_env(), no_class(), h);
    assert!(
        take_exception(&mut call_env()).is_none(),
        "a poisoned core still closes"
    );
}
