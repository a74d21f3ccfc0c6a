//! Transparent huge pages for a large network's heap (Linux with glibc; elsewhere a no-op).
//!
//! At 10 000 pairs the network is ≈ 70 MB in ≈ 200 000 heap blocks and nearly every event
//! visits a cold node: with 4 KiB pages each such visit also misses the TLB, and the page walk
//! is one more trip to memory; building and reporting such a network take ≈ 20 000 page faults.
//! With 2 MiB pages the whole network is covered by a few dozen TLB entries and faults.
//!
//! Linux gives 2 MiB pages only to memory marked with `madvise(MADV_HUGEPAGE)` when the system
//! setting `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` (the common default), and
//! glibc's allocator does not mark its heap (its `glibc.malloc.hugetlb` tunable must be set
//! before the process starts, which a Python extension cannot do). So [`prepare_heap`], once
//! per process, before the first large network is built:
//!
//! 1. makes allocations of up to 32 MiB come from the main heap rather than from their own
//!    mappings (`M_MMAP_THRESHOLD`; glibc's own threshold moves there anyway after the first
//!    large free), and keeps freed memory in the heap for the next run (`M_TRIM_THRESHOLD`);
//! 2. grows the heap once by [`RESERVE`] of address space (`M_TOP_PAD`, then back to glibc's
//!    default) — address space only: a page takes memory when it is first written;
//! 3. marks the whole heap `MADV_HUGEPAGE`.
//!
//! The kernel then backs the heap with huge pages as it is written. This is the main thread's
//! heap: a network built on another thread comes from that thread's glibc arena and keeps
//! 4 KiB pages. Where the system setting is `never`, or the heap outgrows the reserve, pages
//! are 4 KiB as before. A speed choice only: no result depends on it.
//!
//! **Off unless asked for** (`NDNCC_HUGE_PAGES=1`). Measured on this project's machine (a KVM
//! guest; `benches/README.md`, ninth sitting, and `benches/results-ninth-sitting-ab.md`): a
//! large run in a process that already ran one is a little faster with huge pages (at 10 000
//! pairs the loop ≈ 3–5 %, the JSON about halved), but the first one — every run of `ndncc
//! bench`, every one-shot CLI call — is slower (in `ndncc bench` the loop 0.17–0.18 → 0.21 s,
//! the report and JSON phases ≈ 3× as long): a fresh 2 MiB page costs far more to fault in
//! than the 4 KiB pages glibc recycles. The other cost: memory a large run frees stays with the
//! process (reused by the next run) instead of going back to the system.

/// Address space the heap is grown by, once (a run at 10 000 pairs peaks at ≈ 220 MB: its
/// ≈ 70 MB network, the parsed spec and the outputs).
pub const RESERVE: usize = 1 << 30;

/// True if the environment asks for huge pages (`NDNCC_HUGE_PAGES=1`), read once.
fn requested() -> bool {
    static ASKED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ASKED.get_or_init(|| std::env::var_os("NDNCC_HUGE_PAGES").is_some_and(|v| v == "1"))
}

/// [`prepare_heap`] if the environment holds `NDNCC_HUGE_PAGES=1` (read once): what a driver
/// calls before building a large network.
pub fn prepare_if_requested() {
    if requested() {
        prepare_heap();
    }
}

/// Prepares the heap for large networks (see the module's documentation); the first call does
/// the work, later ones nothing. True if the heap is now marked for huge pages.
pub fn prepare_heap() -> bool {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DONE.get_or_init(imp::prepare)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    use super::RESERVE;

    /// glibc's defaults for `M_TOP_PAD` (128 KiB).
    const DEFAULT_TOP_PAD: libc::c_int = 128 << 10;
    /// glibc's largest `M_MMAP_THRESHOLD` on 64-bit targets (32 MiB).
    const MAX_MMAP_THRESHOLD: libc::c_int = 32 << 20;
    /// Huge page size (x86-64 and most 64-bit targets: 2 MiB).
    const HUGE: usize = 2 << 20;

    pub(super) fn prepare() -> bool {
        // SAFETY: mallopt only changes the allocator's parameters; malloc/free of a block we
        // own; the block is kept opaque to the optimizer so the heap really grows.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MAX_MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
            libc::mallopt(libc::M_TOP_PAD, RESERVE as libc::c_int);
            // just under the mmap threshold, so from the heap: unless the heap already has a
            // free block that large (then it is large already), it grows — by the pad too
            let p = std::hint::black_box(libc::malloc(MAX_MMAP_THRESHOLD as usize - (64 << 10)));
            libc::free(p);
            libc::mallopt(libc::M_TOP_PAD, DEFAULT_TOP_PAD);
        }
        let Some((start, end)) = heap_bounds() else {
            return false;
        };
        // madvise wants a page-aligned start; huge pages come only in aligned 2 MiB frames
        let start = start.next_multiple_of(HUGE);
        if end <= start {
            return false;
        }
        // SAFETY: advice on a range of our own mapped heap; it changes no content.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) == 0 }
    }

    /// The main heap's address range (`[heap]` in `/proc/self/maps`).
    fn heap_bounds() -> Option<(usize, usize)> {
        let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
        let line = maps.lines().find(|l| l.ends_with("[heap]"))?;
        let (a, b) = line.split_whitespace().next()?.split_once('-')?;
        Some((
            usize::from_str_radix(a, 16).ok()?,
            usize::from_str_radix(b, 16).ok()?,
        ))
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    pub(super) fn prepare() -> bool {
        false
    }
}
