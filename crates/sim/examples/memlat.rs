//! This machine's memory latency by working-set size: a pointer chase through one random cycle
//! over a buffer of each size (every load depends on the one before, so no two overlap), with
//! 4 KiB pages and with transparent huge pages (`madvise(MADV_HUGEPAGE)`).
//! `cargo run --release -p ndncc-sim --example memlat [MiB ...]`
//!
//! It shows where the event loop's cold visits fall: the size at which loads stop hitting the
//! caches is the size of network state past which a visit to a node costs a trip to memory
//! (`benches/README.md`, ninth sitting).

#[cfg(target_os = "linux")]
use std::time::Instant;

/// Lines per chase (enough for a steady figure, ≈ 1 s at 200 ns a load).
#[cfg(target_os = "linux")]
const LOADS: usize = 4_000_000;
#[cfg(target_os = "linux")]
const LINE: usize = 64;

fn main() {
    let sizes: Vec<usize> = {
        let given: Vec<usize> = std::env::args()
            .skip(1)
            .map(|a| match a.parse() {
                Ok(mib) if mib > 0 => mib,
                _ => {
                    eprintln!("memlat: sizes are whole MiB, at least 1 (got '{a}')");
                    std::process::exit(2);
                }
            })
            .collect();
        if given.is_empty() {
            vec![1, 2, 4, 8, 12, 16, 32, 64, 128]
        } else {
            given
        }
    };
    println!("| working set (MiB) | ns per load, 4 KiB pages | ns per load, 2 MiB pages |");
    println!("|---|---|---|");
    for mib in sizes {
        let small = chase(mib << 20, false);
        let huge = chase(mib << 20, true);
        println!("| {mib} | {small:.1} | {huge:.1} |");
    }
}

/// Elsewhere than Linux: no `madvise(MADV_HUGEPAGE)`, so no figures.
#[cfg(not(target_os = "linux"))]
fn chase(_bytes: usize, _huge: bool) -> f64 {
    f64::NAN
}

/// Mean ns per dependent load through a random cycle over `bytes` (one pointer per line).
#[cfg(target_os = "linux")]
fn chase(bytes: usize, huge: bool) -> f64 {
    let lines = bytes / LINE;
    // SAFETY: a private anonymous mapping of our own, unmapped below; every pointer written
    // into it points into it
    unsafe {
        let base = libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert!(base != libc::MAP_FAILED, "mmap of {bytes} B failed");
        if huge {
            libc::madvise(base, bytes, libc::MADV_HUGEPAGE);
        }
        let base = base.cast::<u8>();
        // a random order of the lines (xorshift Fisher-Yates, fixed seed), chained in a cycle
        let mut order: Vec<usize> = (0..lines).collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in (1..lines).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for k in 0..lines {
            let here = base.add(order[k] * LINE).cast::<*const u8>();
            *here = base.add(order[(k + 1) % lines] * LINE);
        }
        let mut p = base.add(order[0] * LINE) as *const u8;
        // one lap to warm what fits, then the timed chase
        for _ in 0..lines.min(LOADS) {
            p = *p.cast::<*const u8>();
        }
        let t = Instant::now();
        for _ in 0..LOADS {
            p = *p.cast::<*const u8>();
        }
        let ns = t.elapsed().as_nanos() as f64 / LOADS as f64;
        std::hint::black_box(p);
        libc::munmap(base.cast(), bytes);
        ns
    }
}
