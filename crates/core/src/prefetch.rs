//! Software prefetch: hints that bring a cache line in ahead of its use.
//!
//! A driver that knows which state its next events will touch (the simulator does: they sit at
//! the top of its event heap) can ask for those lines while the current event runs, so that
//! the misses of tens of thousands of cold nodes overlap instead of following one another.
//! A prefetch reads nothing a program can see and never faults, whatever the address: it
//! cannot change a result, only when a line arrives. On targets other than x86-64 these are
//! no-ops.

/// Bytes of a cache line (x86-64).
pub const LINE: usize = 64;

/// Asks for the cache line holding `p` (into every cache level).
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it neither reads memory visibly nor faults, for any
    // address (dangling, null or unmapped included).
    #[allow(unused_unsafe)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks for every cache line that the `bytes` bytes from `p` overlap.
#[inline(always)]
pub fn span<T>(p: *const T, bytes: usize) {
    let p = p.cast::<u8>();
    let skew = p as usize % LINE;
    let mut off = 0;
    while off < skew + bytes {
        line(p.wrapping_add(off).wrapping_sub(skew));
        off += LINE;
    }
}
