//! Native handles: the `jlong` Java holds is `Box::into_raw(Box<NativeScheduler>)`.
//!
//! Java can hand back anything: 0 after `LocusCore.close`, a handle closed by another thread,
//! or garbage. Every handle ever issued and not yet closed is in `LIVE`, and a call holds the
//! registry's read lock for its whole duration, so `close` (write lock) waits for running calls
//! to leave before it frees the box. A dereference therefore only happens on a live pointer.
//!
//! Known limit: once a handle is closed its address may be reused by a later `create`, so a
//! caller that keeps using a closed handle could reach the newer scheduler. `LocusCore` rules
//! this out on the Java side: it zeroes its handle on close under a lock its calls hold.

use std::collections::BTreeSet;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use locus_core::Core;
use parking_lot::{Mutex, MutexGuard, RwLock, RwLockReadGuard};

use crate::deferred::DeferredEvents;
use crate::error::BridgeError;
use crate::guard::panic_message;

/// One scheduler instance. The core is not thread-safe; the RM calls in from many IPC threads
/// (allocate) and the dispatcher thread (events, heartbeats), so every call takes the mutex,
/// through [`NativeScheduler::lock_core`] only: events that no caller waits on may be queued in
/// `deferred` while the core is busy, and every holder of the lock must apply them first.
pub struct NativeScheduler {
    /// Private so no path can take the lock without draining `deferred` first.
    core: Mutex<Core>,
    /// Events queued while another call held `core` (see [`crate::deferred`]). Belongs to this
    /// handle: a rebuilt core is a new handle and never sees the queue of the old one.
    deferred: DeferredEvents,
    /// Set by the first panic inside a call on this scheduler, with the panic's message. A
    /// panic can leave the core half-updated (parking_lot's mutex does not poison), so from
    /// then on every call but `close` fails with `BridgeError::Poisoned`. A panic while the
    /// core's lock is held sets it before the lock is released ([`CoreGuard`]), and
    /// [`NativeScheduler::lock_core`] looks at it once it has the lock: a call that was already
    /// waiting for the lock is refused too.
    poisoned: Mutex<Option<String>>,
    /// The core's `locus.app.max-ask-rows`, read without its lock: an asks frame announcing more
    /// rows is refused from its header before it is decoded (outside the lock) or anything is
    /// reserved for it. Set from the core's settings at creation and after every reconfigure.
    ask_row_limit: AtomicUsize,
}

/// The core's lock, held by one call. Dropped while the call unwinds from a panic, it poisons
/// the scheduler before the lock is released, so no call waiting for the lock gets the core.
pub struct CoreGuard<'a> {
    core: MutexGuard<'a, Core>,
    poisoned: &'a Mutex<Option<String>>,
}

impl std::ops::Deref for CoreGuard<'_> {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

impl std::ops::DerefMut for CoreGuard<'_> {
    fn deref_mut(&mut self) -> &mut Core {
        &mut self.core
    }
}

impl Drop for CoreGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut poisoned = self.poisoned.lock();
            if poisoned.is_none() {
                *poisoned = Some(crate::guard::last_panic_message());
            }
        }
    }
}

impl NativeScheduler {
    /// The core, after applying every event queued while it was busy (in the order queued).
    /// The only way to the core: a call that skipped the queue could see a core behind the RM.
    /// `Poisoned` when a call panicked while this one waited for the lock.
    pub fn lock_core(&self) -> Result<CoreGuard<'_>, BridgeError> {
        self.ready(self.core.lock())
    }

    /// As [`Self::lock_core`] but `Ok(None)`, queueing nothing, when another call holds the
    /// core.
    pub fn try_lock_core(&self) -> Result<Option<CoreGuard<'_>>, BridgeError> {
        self.core
            .try_lock()
            .map(|core| self.ready(core))
            .transpose()
    }

    fn ready<'a>(&'a self, core: MutexGuard<'a, Core>) -> Result<CoreGuard<'a>, BridgeError> {
        if let Some(cause) = self.poisoned.lock().clone() {
            return Err(BridgeError::Poisoned {
                handle: self as *const NativeScheduler as i64,
                cause,
            });
        }
        let mut core = CoreGuard {
            core,
            poisoned: &self.poisoned,
        };
        self.deferred.drain_into(&mut core);
        Ok(core)
    }

    pub fn deferred(&self) -> &DeferredEvents {
        &self.deferred
    }

    pub fn ask_row_limit(&self) -> usize {
        self.ask_row_limit.load(Ordering::Relaxed)
    }

    /// The core took new settings: caller holds its lock, so no frame is applied meanwhile.
    pub fn settings_changed(&self, core: &Core) {
        self.ask_row_limit
            .store(core.config().app_limits.max_rows, Ordering::Relaxed);
    }
}

static LIVE: RwLock<BTreeSet<usize>> = RwLock::new(BTreeSet::new());

/// Hands ownership of `core` to the registry and returns the handle Java will hold.
pub fn register(core: Core) -> i64 {
    let ask_row_limit = AtomicUsize::new(core.config().app_limits.max_rows);
    let ptr = Box::into_raw(Box::new(NativeScheduler {
        core: Mutex::new(core),
        deferred: DeferredEvents::default(),
        poisoned: Mutex::new(None),
        ask_row_limit,
    }));
    LIVE.write().insert(ptr as usize);
    ptr as i64
}

/// Runs `f` on the scheduler behind `handle`, or fails if the handle is not live or its core
/// is poisoned. A panic in `f` poisons the core and comes back as `BridgeError::Poisoned`.
pub fn with_scheduler<T>(
    handle: i64,
    f: impl FnOnce(&NativeScheduler) -> Result<T, BridgeError>,
) -> Result<T, BridgeError> {
    run(handle, LIVE.read(), f)
}

/// As [`with_scheduler`], for calls that must never wait on another call (the deferrable
/// events): parking_lot's registry lock makes new readers wait behind a writer (a `create` or
/// `close` on any thread), and the writer waits for every running call, so a plain read would
/// wait for a scheduling pass after all. These calls are microseconds long and only slip in
/// beside readers already in, so they cannot keep a waiting `close` out for long.
pub fn with_scheduler_without_waiting<T>(
    handle: i64,
    f: impl FnOnce(&NativeScheduler) -> Result<T, BridgeError>,
) -> Result<T, BridgeError> {
    run(handle, LIVE.read_recursive(), f)
}

fn run<T>(
    handle: i64,
    live: RwLockReadGuard<'_, BTreeSet<usize>>,
    f: impl FnOnce(&NativeScheduler) -> Result<T, BridgeError>,
) -> Result<T, BridgeError> {
    if handle == 0 || !live.contains(&(handle as usize)) {
        return Err(BridgeError::InvalidHandle(handle));
    }
    // SAFETY: the handle is in LIVE, so it came from `register` and `close` has not freed it;
    // `close` needs the write lock, which cannot be taken while `live` is held.
    let scheduler = unsafe { &*(handle as usize as *const NativeScheduler) };
    if let Some(cause) = scheduler.poisoned.lock().clone() {
        return Err(BridgeError::Poisoned { handle, cause });
    }
    match panic::catch_unwind(AssertUnwindSafe(|| f(scheduler))) {
        Ok(result) => result,
        Err(payload) => {
            let cause = panic_message(payload.as_ref());
            // A guard that saw the unwind may have set a shorter cause already: this one has
            // the payload.
            *scheduler.poisoned.lock() = Some(cause.clone());
            Err(BridgeError::Poisoned { handle, cause })
        }
    }
}

/// Test support: panics inside the core's lock, as a core bug would, so tests can watch the
/// handle get poisoned and the shim rebuild. Not compiled into the shipped library.
#[cfg(any(test, feature = "test-hooks"))]
pub fn inject_panic_for_tests(handle: i64, message: &str) -> Result<(), BridgeError> {
    with_scheduler(handle, |s| {
        let _core = s.lock_core()?;
        panic!("{message}");
    })
}

/// Test support: runs `during` while holding the core's lock, as a long scheduling pass
/// (`offers`) does, so tests can call in from other threads meanwhile. Not shipped.
#[cfg(any(test, feature = "test-hooks"))]
pub fn hold_core_for_tests<T>(
    handle: i64,
    during: impl FnOnce() -> Result<T, BridgeError>,
) -> Result<T, BridgeError> {
    with_scheduler(handle, |s| {
        let _core = s.lock_core()?;
        during()
    })
}

/// Frees the scheduler exactly once and returns its core (poisoned or not); a second close of
/// the same handle is an error.
pub fn close(handle: i64) -> Result<Core, BridgeError> {
    let removed = {
        let mut live = LIVE.write();
        handle != 0 && live.remove(&(handle as usize))
    };
    if !removed {
        return Err(BridgeError::InvalidHandle(handle));
    }
    // SAFETY: the handle was live and has just been removed under the write lock, so no call
    // is using it and no later call or close can reach it.
    let scheduler = unsafe { Box::from_raw(handle as usize as *mut NativeScheduler) };
    Ok(scheduler.core.into_inner())
}

/// How many schedulers are open; tests use it to prove close frees exactly once.
pub fn live_count() -> usize {
    LIVE.read().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn core() -> Core {
        Core::new(&BTreeMap::new()).unwrap()
    }

    #[test]
    fn zero_and_unknown_handles_are_rejected() {
        assert!(matches!(
            with_scheduler(0, |_| Ok(())),
            Err(BridgeError::InvalidHandle(0))
        ));
        assert!(matches!(
            with_scheduler(0x1234, |_| Ok(())),
            Err(BridgeError::InvalidHandle(_))
        ));
        assert!(matches!(close(0), Err(BridgeError::InvalidHandle(0))));
    }

    #[test]
    fn a_handle_is_usable_until_closed_and_closes_once() {
        let h = register(core());
        assert!(with_scheduler(h, |s| Ok(s.lock_core()?.stats().heartbeats)).is_ok());
        close(h).unwrap();
        let again = close(h).err().unwrap();
        assert!(
            again.to_string().contains("invalid or closed Locus handle"),
            "{again}"
        );
        assert!(matches!(
            with_scheduler(h, |_| Ok(())),
            Err(BridgeError::InvalidHandle(_))
        ));
    }

    #[test]
    fn a_panic_poisons_the_handle_for_every_later_call_but_close() {
        crate::guard::install_panic_hook();
        let h = register(core());
        let err = inject_panic_for_tests(h, "half-updated core").unwrap_err();
        assert!(
            matches!(&err, BridgeError::Poisoned { cause, .. } if cause == "half-updated core"),
            "{err}"
        );
        let later = with_scheduler(h, |s| Ok(s.lock_core()?.stats().nodes)).unwrap_err();
        assert!(
            later
                .to_string()
                .contains("out of service after a panic (half-updated core)"),
            "{later}"
        );
        close(h).unwrap();
    }

    #[test]
    fn close_waits_for_a_running_call() {
        use std::sync::mpsc;
        let h = register(core());
        let (entered_tx, entered_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let call = std::thread::spawn(move || {
            with_scheduler(h, |s| {
                entered_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                // Still dereferenceable: close cannot have freed it yet.
                Ok(s.lock_core()?.stats().nodes)
            })
        });
        entered_rx.recv().unwrap();
        let closer = std::thread::spawn(move || close(h));
        release_tx.send(()).unwrap();
        assert!(call.join().unwrap().is_ok());
        assert!(closer.join().unwrap().is_ok());
        assert!(with_scheduler(h, |_| Ok(())).is_err());
    }

    #[test]
    fn a_call_waiting_on_the_lock_of_a_core_that_panics_is_refused() {
        use std::sync::mpsc;
        crate::guard::install_panic_hook();
        let h = register(core());
        let (held_tx, held_rx) = mpsc::channel();
        let (waiting_tx, waiting_rx) = mpsc::channel();
        let panicking = std::thread::spawn(move || {
            with_scheduler::<()>(h, |s| {
                let _core = s.lock_core()?;
                held_tx.send(()).unwrap();
                // The other call has passed every check made before the lock by now.
                waiting_rx.recv().unwrap();
                panic!("half-updated core");
            })
        });
        held_rx.recv().unwrap();
        // Without waiting on the registry: the panicking call holds its read lock until this
        // one signals, and a `register` or `close` queued meanwhile by a test on another
        // thread would make a plain read wait behind that writer, and the writer behind the
        // panicking call: a cycle the RM's calls never form (none waits on another call).
        let waiting = std::thread::spawn(move || {
            with_scheduler_without_waiting(h, |s| {
                waiting_tx.send(()).unwrap();
                Ok(s.lock_core()?.stats().nodes)
            })
        });
        assert!(matches!(
            panicking.join().unwrap(),
            Err(BridgeError::Poisoned { .. })
        ));
        let late = waiting.join().unwrap();
        assert!(
            matches!(&late, Err(BridgeError::Poisoned { cause, .. }) if cause == "half-updated core"),
            "a call that waited for the lock ran on the core that panicked: {late:?}"
        );
        close(h).unwrap();
    }
}
