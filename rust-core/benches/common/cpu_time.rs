//! Shared by the hostile and policies benches (a `#[path]` module: cargo would take a file
//! directly in benches/ for a bench of its own).

use std::time::Duration;

/// Time this thread has spent on a CPU (Linux's CLOCK_THREAD_CPUTIME_ID, from the C library
/// std already links), which, unlike the wall clock, does not count the time the machine's
/// other work held the CPU; `None` elsewhere.
pub fn cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    if !cfg!(all(target_os = "linux", target_pointer_width = "64")) {
        return None;
    }
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.sec as u64, ts.nsec as u32))
}
