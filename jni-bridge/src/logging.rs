//! Forwards Rust `log` records to the ResourceManager's log: `LocusNative.log(int, String,
//! String)` → SLF4J logger `org.locus.core`, so operators control Locus's verbosity in the
//! RM's own log4j settings. Java passes the level that logger has enabled via `initLogging`.
//!
//! Logging must never throw into Java nor panic: it runs inside the panic hook too, where a
//! second panic would abort the ResourceManager. Every failure falls back to one stderr line.

use std::cell::Cell;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use jni::objects::{GlobalRef, JStaticMethodID, JValue};
use jni::signature::{Primitive, ReturnType};
use jni::{JNIEnv, JavaVM};
use log::{Level, LevelFilter, Log, Metadata, Record};

use crate::error::BridgeError;

const NATIVE_CLASS: &str = "org/locus/yarn/LocusNative";
const LOG_METHOD: &str = "log";
const LOG_SIGNATURE: &str = "(ILjava/lang/String;Ljava/lang/String;)V";

/// Cached once: looking the class up from a thread with no Java frames (or under a different
/// class loader) would fail, and method lookup on every record is needless work.
struct JavaSink {
    vm: JavaVM,
    class: GlobalRef,
    method: JStaticMethodID,
}

static SINK: OnceLock<JavaSink> = OnceLock::new();
static LOGGER: JavaLogger = JavaLogger;

thread_local! {
    /// Set while this thread is inside the Java callback, so a record logged from within it
    /// (e.g. the panic hook firing there) goes to stderr instead of recursing.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// 0 off, 1 error, 2 warn, 3 info, 4 debug, 5 trace — the ints documented in the architecture.
pub fn level_filter(max_level: i32) -> Result<LevelFilter, BridgeError> {
    Ok(match max_level {
        0 => LevelFilter::Off,
        1 => LevelFilter::Error,
        2 => LevelFilter::Warn,
        3 => LevelFilter::Info,
        4 => LevelFilter::Debug,
        5 => LevelFilter::Trace,
        other => {
            return Err(BridgeError::BadJson {
                what: "log level",
                detail: format!("{other} is not one of 0 (off), 1 (error) .. 5 (trace)"),
            })
        }
    })
}

pub fn level_int(level: Level) -> i32 {
    match level {
        Level::Error => 1,
        Level::Warn => 2,
        Level::Info => 3,
        Level::Debug => 4,
        Level::Trace => 5,
    }
}

/// Called from Java (a thread with a Java frame) on every `LocusCore.open`/`reconfigure`, so a
/// level changed at run time in the RM takes effect on the next refresh.
pub fn init(env: &mut JNIEnv, max_level: i32) -> Result<(), BridgeError> {
    let filter = level_filter(max_level)?;
    if SINK.get().is_none() {
        let vm = env.get_java_vm()?;
        let class = env.find_class(NATIVE_CLASS)?;
        let method = env.get_static_method_id(&class, LOG_METHOD, LOG_SIGNATURE)?;
        let class = env.new_global_ref(class)?;
        // Losing this race is fine: the winner cached an equivalent sink.
        let _ = SINK.set(JavaSink { vm, class, method });
    }
    // Fails only if some other logger was installed in this process first; then records go
    // there, which is still better than nowhere.
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(filter);
    Ok(())
}

/// True once Java has asked for the core's records and error records are enabled.
pub fn is_forwarding() -> bool {
    SINK.get().is_some() && log::max_level() >= LevelFilter::Error
}

struct JavaLogger;

impl Log for JavaLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        // The `jni` crate traces every JNI call it makes, including the ones this forwarder
        // makes: at debug level that would double the RM log and recurse into the forwarder.
        metadata.level() <= log::max_level()
            && (metadata.level() <= Level::Warn || !metadata.target().starts_with("jni"))
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let message = record.args().to_string();
        let level = level_int(record.level());
        // `try_with`: records are also logged while a thread's locals are being destroyed
        // (the jni crate detaches daemon threads from a TLS destructor); `with` would panic
        // there, and a panic in a TLS destructor aborts the process. Such records go to stderr.
        let reentered = IN_CALLBACK.try_with(|c| c.replace(true)).unwrap_or(true);
        // Attaching a thread that is already tearing down its locals panics inside the jni
        // crate; a panic escaping a logger (or a TLS destructor) would abort the RM.
        let delivered = !reentered
            && panic::catch_unwind(AssertUnwindSafe(|| {
                forward(level, record.target(), &message)
            }))
            .unwrap_or(false);
        if !reentered {
            let _ = IN_CALLBACK.try_with(|c| c.set(false));
        }
        if !delivered {
            to_stderr(record.level(), record.target(), &message);
        }
    }

    fn flush(&self) {}
}

fn to_stderr(level: Level, target: &str, message: &str) {
    let _ = writeln!(std::io::stderr(), "[locus {level}] {target}: {message}");
}

/// True when Java took the record.
fn forward(level: i32, target: &str, message: &str) -> bool {
    let Some(sink) = SINK.get() else {
        return false;
    };
    // Threads calling into the core come from Java and are attached; any other thread is
    // attached as a daemon so it never keeps the RM from exiting.
    let mut env = match sink.vm.get_env() {
        Ok(env) => env,
        Err(_) => match sink.vm.attach_current_thread_as_daemon() {
            Ok(env) => env,
            Err(_) => return false,
        },
    };
    // Calling Java with an exception pending is illegal; the record goes to stderr instead.
    if env.exception_check().unwrap_or(true) {
        return false;
    }
    // A local frame, because a long native call may log many records and each JString would
    // otherwise stay referenced until the call returns to Java.
    let result = env.with_local_frame(4, |env| -> Result<(), jni::errors::Error> {
        let target = env.new_string(target)?;
        let message = env.new_string(message)?;
        let args = [
            JValue::Int(level).as_jni(),
            JValue::Object(&target).as_jni(),
            JValue::Object(&message).as_jni(),
        ];
        // SAFETY: `method` was looked up on `class` with LOG_SIGNATURE, which matches `args`
        // (int, String, String) and the void return type.
        unsafe {
            env.call_static_method_unchecked(
                &sink.class,
                sink.method,
                ReturnType::Primitive(Primitive::Void),
                &args,
            )?;
        }
        Ok(())
    });
    // LocusNative.log catches everything, but an Error (e.g. OutOfMemoryError) could still
    // escape it; it must not surface as a failure of the scheduler call that logged.
    if env.exception_check().unwrap_or(false) {
        let _ = env.exception_clear();
        return false;
    }
    result.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_ints_match_the_documented_contract() {
        assert_eq!(level_filter(0).unwrap(), LevelFilter::Off);
        assert_eq!(level_filter(1).unwrap(), LevelFilter::Error);
        assert_eq!(level_filter(5).unwrap(), LevelFilter::Trace);
        for level in [
            Level::Error,
            Level::Warn,
            Level::Info,
            Level::Debug,
            Level::Trace,
        ] {
            assert_eq!(
                level_filter(level_int(level)).unwrap(),
                level.to_level_filter()
            );
        }
        let err = level_filter(9).unwrap_err().to_string();
        assert!(err.contains('9') && err.contains("log level"), "{err}");
    }

    #[test]
    fn without_a_jvm_records_fall_back_instead_of_failing() {
        assert!(!forward(3, "locus_jni", "no JVM here"));
        // Must not panic even though no sink exists.
        LOGGER.log(
            &Record::builder()
                .level(Level::Error)
                .target("locus_jni")
                .args(format_args!("fallback"))
                .build(),
        );
    }
}
