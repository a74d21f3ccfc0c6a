//! Times the phases of one run of a resolved spec (JSON file), for profiling:
//! `cargo run --release -p ndncc-sim --example profile -- spec.json [repeat]`
//! (`perf record -g` on it shows the simulator alone, without Python).

use ndncc_sim::{run, RunOptions, ScenarioSpec};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: profile SPEC.json [repeat]");
    let repeat: usize = args.next().map_or(1, |r| r.parse().expect("repeat"));
    let text = std::fs::read_to_string(&path).expect("read spec");
    for _ in 0..repeat {
        let t = Instant::now();
        let spec = ScenarioSpec::from_json(&text).expect("spec");
        let parsed = t.elapsed();
        let t = Instant::now();
        let out = run(
            &spec,
            &RunOptions {
                tables: false,
                ..Default::default()
            },
            &mut |_| true,
        )
        .expect("run");
        let ran = t.elapsed();
        let events = out.summary.events;
        let p = out.phases;
        let t = Instant::now();
        let json = serde_json::to_string(&out.summary).expect("summary").len()
            + serde_json::to_string(&out.meta).expect("meta").len();
        let serialized = t.elapsed();
        println!(
            "parse {:.3}s  build+run {:.3}s  events {}  {:.2} M events/s  (routes {:.3} build {:.3} \
             loop {:.3} report {:.3} teardown {:.3} serialize {:.3}: {} B)",
            parsed.as_secs_f64(),
            ran.as_secs_f64(),
            events,
            events as f64 / ran.as_secs_f64() / 1e6,
            p.routes_s,
            p.build_s,
            p.loop_s,
            p.report_s,
            p.teardown_s,
            serialized.as_secs_f64(),
            json
        );
    }
}
