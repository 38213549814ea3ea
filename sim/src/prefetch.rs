//! A hint to the processor to start loading a value's cache line now, for the re-timing and
//! event loops whose data is scattered over tables too large for the core's own caches: a
//! plain load used as a hint (`black_box`) holds up the loop until the line arrives, a
//! prefetch does not.

/// Starts loading the cache line holding `value`. Only a hint: it changes no result.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 reads nothing into the program and never faults, whatever the
    // address; `value` is a live reference anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
