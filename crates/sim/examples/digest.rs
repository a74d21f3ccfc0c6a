//! Prints a digest of each part of a run's whole output (summary, metadata, every table's
//! bytes) for resolved specs (JSON files), to check that a change to the simulator leaves every
//! output byte the same: run it from two builds on the same specs and `diff` the two listings.
//! `cargo run --release -p ndncc-sim --example digest -- a.json b.json ...`
//! (the digests are `std`'s `DefaultHasher`: compare builds of one toolchain.)
use ndncc_sim::{run, RunOptions, ScenarioSpec};
use std::hash::{Hash, Hasher};
fn h(b: &[u8]) -> u64 {
    let mut s = std::collections::hash_map::DefaultHasher::new();
    b.hash(&mut s);
    s.finish()
}
fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = ScenarioSpec::from_json(&text).unwrap();
        let out = run(&spec, &RunOptions::default(), &mut |_| true).unwrap();
        let summary = serde_json::to_string(&out.summary).unwrap();
        let meta = serde_json::to_string(&out.meta).unwrap();
        let mut tabs = 0u64;
        for (name, t) in &out.tables {
            for (c, col) in &t.columns {
                tabs ^= h(name.as_bytes()).wrapping_mul(31)
                    ^ h(c.as_bytes()).rotate_left(7)
                    ^ h(&col.to_le_bytes()).rotate_left(13);
            }
        }
        println!(
            "{path} events={} summary={:016x} meta={:016x} tables={:016x} ntables={}",
            out.summary.events,
            h(summary.as_bytes()),
            h(meta.as_bytes()),
            tabs,
            out.tables.len()
        );
    }
}
