//! Times the phases of one run of a resolved spec (JSON file), for profiling:
//! `cargo run --release -p ndncc-sim --example profile -- spec.json [repeat]`
//! (`perf record -g` on it shows the simulator alone, without Python). With
//! `--features ndncc-sim/event-cost` it also prints the time per event by kind of event.

use ndncc_sim::{deferred, run, run_deferred, RunOptions, ScenarioSpec};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: profile SPEC.json [repeat]");
    let repeat: usize = args.next().map_or(1, |r| r.parse().expect("repeat"));
    let text = std::fs::read_to_string(&path).expect("read spec");
    for _ in 0..repeat {
        // the previous run's memory first (as the binding does), and how long freeing it took
        let pending = deferred::settle();
        let t = Instant::now();
        let spec = ScenarioSpec::from_json(&text).expect("spec");
        let parsed = t.elapsed();
        let t = Instant::now();
        let opts = RunOptions {
            tables: false,
            ..Default::default()
        };
        // as the Python binding does: a large run is freed on a background thread
        let big = ndncc_sim::is_large_network(&spec);
        if big {
            // as the binding does (NDNCC_HUGE_PAGES=1)
            ndncc_sim::hugepages::prepare_if_requested();
        }
        let (out, left) = if big {
            let (out, left) = run_deferred(&spec, &opts, &mut |_| true).expect("run");
            (out, Some(left))
        } else {
            (run(&spec, &opts, &mut |_| true).expect("run"), None)
        };
        let ran = t.elapsed();
        let events = out.summary.events;
        let p = out.phases;
        let t = Instant::now();
        let s = serde_json::to_string(&out.summary).expect("summary");
        let m = serde_json::to_string(&out.meta).expect("meta");
        let json = s.len() + m.len();
        let serialized = t.elapsed();
        let t = Instant::now();
        #[cfg(feature = "event-cost")]
        for c in ndncc_sim::event_cost::last() {
            println!(
                "  {:46} {:8} events {:7.1} ns/event {:5.1} % of the events' time",
                c.class,
                c.events,
                c.ns_per_event,
                100.0 * c.share
            );
        }
        match left {
            Some(left) => deferred::drop_later((left, out, spec, s, m)),
            None => drop((out, spec, s, m)),
        }
        let freed = t.elapsed();
        println!(
            "parse {:.3}s  build+run {:.3}s  events {}  {:.2} M events/s  (routes {:.3} build {:.3} \
             loop {:.3} report {:.3} teardown {:.3} serialize {:.3}: {} B, free {:.3}; \
             background free of the run before {})",
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
            json,
            freed.as_secs_f64(),
            pending.map_or("-".to_string(), |s| format!("{s:.3}")),
        );
    }
}
