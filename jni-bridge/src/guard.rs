//! The one place where a native call's failures are turned into something Java can handle.
//! A Rust panic must never unwind into the JVM (undefined behaviour) nor abort the
//! ResourceManager, so every entry point runs its body through [`with_guard`].

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use jni::JNIEnv;

use crate::error::BridgeError;

pub const LOCUS_EXCEPTION: &str = "org/locus/yarn/LocusException";
pub const LOCUS_CONFIG_EXCEPTION: &str = "org/locus/yarn/LocusConfigException";
pub const LOCUS_CORE_POISONED_EXCEPTION: &str = "org/locus/yarn/LocusCorePoisonedException";

/// Runs `f`, turning a panic into `BridgeError::Panic` with the panic's message.
pub fn catch_panics<T>(f: impl FnOnce() -> Result<T, BridgeError>) -> Result<T, BridgeError> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(BridgeError::Panic(panic_message(payload.as_ref()))),
    }
}

pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// The Java exception class a failure maps to.
pub fn exception_class(err: &BridgeError) -> &'static str {
    if err.is_config() {
        LOCUS_CONFIG_EXCEPTION
    } else if matches!(err, BridgeError::Poisoned { .. }) {
        LOCUS_CORE_POISONED_EXCEPTION
    } else {
        LOCUS_EXCEPTION
    }
}

/// Body of every `extern "system"` entry point: runs `f`, and on error or panic throws the
/// matching Java exception and returns `default` (which Java never sees, as the exception is
/// pending when the native method returns).
pub fn with_guard<'local, T>(
    env: &mut JNIEnv<'local>,
    default: T,
    f: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, BridgeError>,
) -> T {
    install_panic_hook();
    match catch_panics(|| f(env)) {
        Ok(value) => value,
        Err(err) => {
            throw(env, &err);
            default
        }
    }
}

fn throw(env: &mut JNIEnv, err: &BridgeError) {
    // A JNI failure may already have left a Java exception pending (e.g. OutOfMemoryError from
    // NewStringUTF); that one is more accurate than ours, and throwing over it is illegal.
    if env.exception_check().unwrap_or(true) {
        return;
    }
    let message = err.to_string();
    if env.throw_new(exception_class(err), &message).is_err() {
        // Our class could not be loaded (broken classpath): NoClassDefFoundError is pending,
        // which still fails the call; keep the real cause in the native log.
        log::error!(target: "locus_jni", "could not throw {}: {message}", exception_class(err));
    }
}

thread_local! {
    /// The message of this thread's latest panic, recorded by the hook before the unwind.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The message of the panic this thread is unwinding from (recorded by the hook of
/// [`install_panic_hook`]), for what must name it before the payload is caught.
pub fn last_panic_message() -> String {
    LAST_PANIC
        .with(|m| m.borrow().clone())
        .unwrap_or_else(|| "a call panicked while holding the core".to_string())
}

/// Panics inside the core are reported once through `log` (so they land in the RM log with
/// the location) instead of the default hook's stderr crash dump; the guard then turns them
/// into `LocusException`.
pub fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        // Until Java forwards logging (and in plain `cargo test`), the default hook's report
        // is the only place the message and location would appear.
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            LAST_PANIC.with(|m| *m.borrow_mut() = Some(panic_message(info.payload())));
            if !crate::logging::is_forwarding() {
                previous(info);
                return;
            }
            let location = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            log::error!(
                target: "locus_jni",
                "Locus core panicked{location}: {}",
                panic_message(info.payload())
            );
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_core::CoreError;

    #[test]
    fn a_panic_becomes_a_locus_exception_with_its_message() {
        install_panic_hook();
        let err = catch_panics::<()>(|| panic!("node {} vanished", "h1:8041")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Locus core panicked: node h1:8041 vanished"
        );
        assert_eq!(exception_class(&err), LOCUS_EXCEPTION);

        let err = catch_panics::<()>(|| std::panic::panic_any(7u8)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Locus core panicked: non-string panic payload"
        );
    }

    #[test]
    fn errors_pass_through_and_pick_the_exception_class() {
        let config = BridgeError::Core(CoreError::Config {
            key: "locus.policy".into(),
            message: "unknown value".into(),
        });
        assert_eq!(exception_class(&config), LOCUS_CONFIG_EXCEPTION);
        let err = catch_panics::<()>(|| Err(config)).unwrap_err();
        assert!(err.to_string().contains("locus.policy"));

        let other = BridgeError::Core(CoreError::UnknownNode("h9:1".into()));
        assert_eq!(exception_class(&other), LOCUS_EXCEPTION);
        assert_eq!(catch_panics(|| Ok(5)).unwrap(), 5);
    }

    #[test]
    fn a_panic_while_holding_the_core_lock_takes_the_core_out_of_service() {
        use std::collections::BTreeMap;
        install_panic_hook();
        let h = crate::handle::register(locus_core::Core::new(&BTreeMap::new()).unwrap());
        let err = catch_panics::<()>(|| {
            crate::handle::with_scheduler(h, |s| {
                let _core = s.lock_core()?;
                panic!("boom inside the core");
            })
        })
        .unwrap_err();
        assert!(err.to_string().contains("(boom inside the core)"), "{err}");
        assert_eq!(exception_class(&err), LOCUS_CORE_POISONED_EXCEPTION);
        // The core may be half-updated (parking_lot's mutex does not poison): every later
        // call is refused with the same typed error, and close still frees it.
        let later = crate::ops::stats(h).unwrap_err();
        assert_eq!(
            exception_class(&later),
            LOCUS_CORE_POISONED_EXCEPTION,
            "{later}"
        );
        let events = crate::ops::events(h, "[]").unwrap_err();
        assert!(matches!(events, BridgeError::Poisoned { .. }), "{events}");
        crate::ops::close(h).unwrap();
    }
}
