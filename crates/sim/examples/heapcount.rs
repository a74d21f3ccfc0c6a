//! The world's live heap at the first progress callback of `run` (after the build, a few
//! thousand events into the loop), counted by a global allocator that records every block:
//! `cargo run --release -p ndncc-sim --example heapcount -- SPEC.json [every]`
//!
//! Prints the live bytes and blocks before `run` (the parsed spec) and at the first progress
//! callback (`every` events, default 65 536), their difference (the world), a histogram of the
//! live blocks by power-of-two size class, and the exact block sizes holding the most bytes
//! (to tell which type they are: `sizes` example).

use ndncc_sim::{run, RunOptions, ScenarioSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};

/// Exact sizes counted individually below this many bytes; larger blocks by class only.
const EXACT: usize = 1 << 14;
const CLASSES: usize = 48;

struct Counting;
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);
static LIVE_BLOCKS: AtomicI64 = AtomicI64::new(0);
static BY_SIZE: [AtomicI64; EXACT] = [const { AtomicI64::new(0) }; EXACT];
static BY_CLASS: [AtomicI64; CLASSES] = [const { AtomicI64::new(0) }; CLASSES];
static BYTES_BY_CLASS: [AtomicI64; CLASSES] = [const { AtomicI64::new(0) }; CLASSES];

fn count(size: usize, sign: i64) {
    LIVE_BYTES.fetch_add(sign * size as i64, Relaxed);
    LIVE_BLOCKS.fetch_add(sign, Relaxed);
    if size < EXACT {
        BY_SIZE[size].fetch_add(sign, Relaxed);
    }
    let class = (usize::BITS - size.max(1).leading_zeros() - 1) as usize;
    BY_CLASS[class].fetch_add(sign, Relaxed);
    BYTES_BY_CLASS[class].fetch_add(sign * size as i64, Relaxed);
}

thread_local! {
    static IN_TRACE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
/// `HEAPCOUNT_TRACE=SIZE`: print where three blocks of exactly SIZE bytes come from (after
/// skipping the first `HEAPCOUNT_SKIP` allocated by `run`, default 100); `HEAPCOUNT_TRACE=-SIZE`:
/// of every block of at least SIZE bytes.
static TRACE_SIZE: AtomicI64 = AtomicI64::new(0);
static TRACED: AtomicI64 = AtomicI64::new(0);

fn trace(size: usize) {
    let want = TRACE_SIZE.load(Relaxed);
    // a negative size: every block of at least that many bytes
    if (want == size as i64 && TRACED.fetch_add(1, Relaxed) < 3 || want < 0 && size as i64 >= -want)
        && want != 0
        && !IN_TRACE.with(|t| t.replace(true))
    {
        eprintln!(
            "block of {size} B:\n{}",
            std::backtrace::Backtrace::force_capture()
        );
        IN_TRACE.with(|t| t.set(false));
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        trace(l.size());
        count(l.size(), 1);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        trace(l.size());
        count(l.size(), 1);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(l.size(), -1);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        count(l.size(), -1);
        trace(new);
        count(new, 1);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

struct Snapshot {
    bytes: i64,
    blocks: i64,
    by_size: Vec<i64>,
    by_class: Vec<(i64, i64)>,
}

fn snapshot() -> Snapshot {
    Snapshot {
        bytes: LIVE_BYTES.load(Relaxed),
        blocks: LIVE_BLOCKS.load(Relaxed),
        by_size: BY_SIZE.iter().map(|c| c.load(Relaxed)).collect(),
        by_class: (0..CLASSES)
            .map(|i| (BY_CLASS[i].load(Relaxed), BYTES_BY_CLASS[i].load(Relaxed)))
            .collect(),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: heapcount SPEC.json [every]");
    let every: u64 = args.next().map_or(1 << 16, |r| r.parse().expect("every"));
    let text = std::fs::read_to_string(&path).expect("read spec");
    let spec = ScenarioSpec::from_json(&text).expect("spec");
    drop(text);
    let before = snapshot();
    let skip: i64 = std::env::var("HEAPCOUNT_SKIP").map_or(100, |s| s.parse().expect("skip"));
    TRACED.store(-skip, Relaxed);
    if let Ok(s) = std::env::var("HEAPCOUNT_TRACE") {
        TRACE_SIZE.store(
            s.parse().expect("HEAPCOUNT_TRACE: a size in bytes"),
            Relaxed,
        );
    }
    let mut at: Option<Snapshot> = None;
    let out = run(
        &spec,
        &RunOptions {
            tables: false,
            progress_every: every,
            ..RunOptions::default()
        },
        &mut |_| {
            if at.is_none() {
                at = Some(snapshot());
            }
            true
        },
    )
    .expect("run");
    let at = at.expect("no progress callback");
    let mb = |b: i64| b as f64 / 1e6;
    println!(
        "spec: {:.2} MB in {} blocks; at the first progress callback: {:.2} MB in {} blocks",
        mb(before.bytes),
        before.blocks,
        mb(at.bytes),
        at.blocks
    );
    println!(
        "world: {:.2} MB in {} blocks ({} events in the run)",
        mb(at.bytes - before.bytes),
        at.blocks - before.blocks,
        out.summary.events
    );
    println!("live blocks of the world by size class (bytes):");
    for (i, (a, b)) in at.by_class.iter().zip(&before.by_class).enumerate() {
        let (n, bytes) = (a.0 - b.0, a.1 - b.1);
        if n != 0 {
            println!(
                "  {:>9}-{:<9} {:>8} blocks {:>8.2} MB",
                1u64 << i,
                (1u64 << (i + 1)) - 1,
                n,
                mb(bytes)
            );
        }
    }
    let mut exact: Vec<(i64, usize, i64)> = (0..EXACT)
        .map(|s| {
            let n = at.by_size[s] - before.by_size[s];
            (n * s as i64, s, n)
        })
        .filter(|e| e.2 != 0)
        .collect();
    exact.sort_by_key(|e| std::cmp::Reverse(e.0));
    println!("exact block sizes holding the most bytes (world):");
    for (bytes, s, n) in exact.iter().take(20) {
        println!("  {:>6} B x {:>7} = {:>7.2} MB", s, n, mb(*bytes));
    }
}
