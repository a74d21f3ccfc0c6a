//! Deferred destruction frees everything: with a counting allocator, the heap's live bytes
//! after a deferred run (its network, spec and outputs handed to `deferred::drop_later`, then
//! `deferred::settle`) are what they were before it. A test binary of its own, because the
//! counting allocator is process-wide.

use ndncc_sim::{deferred, run_deferred, RunOptions, ScenarioSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::SeqCst);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::SeqCst);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::SeqCst);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// A dumbbell of `pairs` consumer–producer pairs (compact lists), 1 s.
fn dumbbell(pairs: usize) -> String {
    let n = 2 * pairs + 2;
    let names: Vec<String> = (0..n).map(|i| format!("\"N{i}\"")).collect();
    // node 0 and 1 are the routers; consumer i on 2+2i, producer i on 3+2i
    let (mut a, mut b) = (vec![0], vec![1]);
    for i in 0..pairs {
        a.extend([2 + 2 * i, 3 + 2 * i]);
        b.extend([0, 1]);
    }
    let mut app_names = Vec::new();
    let (mut node, mut prefix, mut template) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..pairs {
        app_names.extend([format!("\"c{i}\""), format!("\"p{i}\"")]);
        node.extend([2 + 2 * i, 3 + 2 * i]);
        prefix.extend([format!("\"/p{i}\""), format!("\"/p{i}\"")]);
        template.extend(["0", "1"]);
    }
    let j = |v: &[String]| v.join(",");
    let k = |v: &[usize]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"name": "d", "duration_ns": 1000000000, "routing": {{"mode": "shortest"}},
        "nodes": {{"rows": {n}, "templates": [{{"name": "N0"}}], "columns": {{"name": [{}]}}}},
        "links": {{"rows": {}, "templates": [{{"a": 0, "b": 1, "bandwidth_bps": 100000000,
                   "delay_ns": 1000000}}], "columns": {{"a": [{}], "b": [{}]}}}},
        "apps": {{"rows": {}, "template": [{}], "templates": [
            {{"name": "c", "node": 2, "app": {{"kind": "consumer", "prefix": "/p",
              "controller": {{"type": "constant_rate", "rate": 50.0}}}}}},
            {{"name": "p", "node": 3, "app": {{"kind": "producer", "prefix": "/p",
              "payload_size": 1000}}}}],
            "columns": {{"name": [{}], "node": [{}], "prefix": [{}]}}}}}}"#,
        j(&names),
        a.len(),
        k(&a),
        k(&b),
        2 * pairs,
        template.join(","),
        j(&app_names),
        k(&node),
        j(&prefix),
    )
}

fn deferred_run(text: &str) -> u64 {
    let spec = ScenarioSpec::from_json(text).expect("spec");
    let opts = RunOptions::default();
    let (out, left) = run_deferred(&spec, &opts, &mut |_| true).expect("run");
    let events = out.summary.events;
    deferred::drop_later((left, out, spec));
    events
}

#[test]
fn a_deferred_run_frees_all_it_allocated() {
    // one run first: lazily made statics (registries, thread-locals) stay for the process
    let text = dumbbell(50);
    let first = deferred_run(&text);
    assert!(first > 10_000, "the run did something: {first} events");
    deferred::settle().expect("a drop was pending");
    let before = LIVE.load(Ordering::SeqCst);
    for _ in 0..3 {
        assert_eq!(deferred_run(&text), first);
        assert!(deferred::settle().is_some());
        assert_eq!(
            LIVE.load(Ordering::SeqCst),
            before,
            "live heap bytes after a run"
        );
    }
}
