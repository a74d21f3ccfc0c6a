//! The `event-cost` feature's tally (built and run by `make test` with the feature on).
#![cfg(feature = "event-cost")]

use ndncc_sim::{run, RunOptions, ScenarioSpec, SimOutput};

/// A consumer, a router and a producer on a line (the `icp-line` scenario, 2 s).
const SPEC: &str = r#"{"name": "icp-line", "duration_ns": 2000000000, "seed": 1, "run": 0, "packets": {"interest_size": 40, "data_overhead": 0, "nack_overhead": 4}, "nodes": [{"name": "C", "strategy": "best-route", "cs_capacity": 0, "schemes": {}}, {"name": "R", "strategy": "best-route", "cs_capacity": 0, "schemes": {}}, {"name": "P", "strategy": "best-route", "cs_capacity": 0, "schemes": {}}], "links": [{"a": 0, "b": 1, "bandwidth_bps": 10000000, "delay_ns": 10000000, "queue_ab": {"packets": 30}, "queue_ba": {"packets": 30}, "loss": 0.0, "cost": 1}, {"a": 1, "b": 2, "bandwidth_bps": 10000000, "delay_ns": 10000000, "queue_ab": {"packets": 30}, "queue_ba": {"packets": 30}, "loss": 0.0, "cost": 1}], "routing": {"mode": "shortest", "metric": "delay"}, "routes": [], "apps": [{"name": "consumer", "node": 0, "start_ns": 0, "stop_ns": null, "app": {"kind": "consumer", "prefix": "/p", "controller": {"type": "icp", "initial_window": 1.0, "ssthresh": 20.0, "increase": 1.0, "decrease": 0.5, "min_window": 1.0, "tau": 300000000, "one_decrease_per_tau": true, "tau_srtt_factor": 0.0, "tau_rto": false}, "engine": {"type": "ideal"}, "clock": {"type": "ideal"}, "lifetime_ns": 4000000000, "timeout_ns": null, "retx_on_timeout": false, "retx_on_nack": false, "max_transmissions": 4294967295, "start_seq": 0, "max_seq": null, "chunk_segments": null}}, {"name": "producer", "node": 2, "start_ns": 0, "stop_ns": null, "app": {"kind": "producer", "prefix": "/p", "payload_size": 1000, "freshness_ns": 0, "content_segments": null, "processing_delay_ns": 0}}], "trace": {"bin_ns": 100000000, "delays": true}}"#;

/// [`SPEC`] run without tables (the feature's figures then in `event_cost::last()`).
fn run_line() -> SimOutput {
    let spec = ScenarioSpec::from_json(SPEC).expect("spec");
    let opts = RunOptions {
        tables: false,
        ..Default::default()
    };
    run(&spec, &opts, &mut |_| true).expect("run")
}

/// Every event is counted once, in some kind, with a positive time, and the shares add up.
#[test]
fn every_event_is_counted_in_one_kind() {
    let out = run_line();
    let kinds = ndncc_sim::event_cost::last();
    let events: u64 = kinds.iter().map(|k| k.events).sum();
    assert_eq!(events, out.summary.events, "{kinds:?}");
    assert!(
        kinds.iter().all(|k| k.events > 0 && k.ns_per_event > 0.0),
        "{kinds:?}"
    );
    let share: f64 = kinds.iter().map(|k| k.share).sum();
    assert!((share - 1.0).abs() < 1e-9, "{share}");
    // on a line of three every node has at most 4 faces: all count as edge nodes
    assert!(kinds
        .iter()
        .any(|k| k.class.starts_with("arrival at an edge node")));
    assert!(!kinds.iter().any(|k| k.class.contains("hub")), "{kinds:?}");
}

/// The times are calibrated to the loop's wall time: the events' time adds up to no more than
/// the loop's (the events run inside it) and to a good part of it (most of a loop is events).
#[test]
fn the_events_time_fits_in_the_loops() {
    let out = run_line();
    let events_ns: f64 = ndncc_sim::event_cost::last()
        .iter()
        .map(|k| k.ns_per_event * k.events as f64)
        .sum();
    let loop_ns = out.phases.loop_s * 1e9;
    assert!(
        events_ns <= loop_ns + 1.0,
        "{events_ns} ns of events, {loop_ns} ns of loop"
    );
    assert!(
        events_ns >= 0.1 * loop_ns,
        "{events_ns} ns of events, {loop_ns} ns of loop"
    );
}

/// The kinds tell what the events are: every Data or Nack arriving at a node answers an
/// Interest that arrived upstream before it (so Data arrivals never outnumber Interest
/// arrivals, and each kind holds at least both links' worth of the Data the consumer got), and
/// the consumer's own wake-ups count as timers with an app due.
#[test]
fn the_kinds_tell_interests_from_data_and_app_timers() {
    let out = run_line();
    let kinds = ndncc_sim::event_cost::last();
    let count = |class: &str| {
        kinds
            .iter()
            .find(|k| k.class == class)
            .map_or(0, |k| k.events)
    };
    let interests = count("arrival at an edge node: Interest");
    let data = count("arrival at an edge node: Data or Nack");
    let received = out.summary.apps[0].data_received;
    assert!(received > 100, "{received}");
    assert!(data >= 2 * received && interests >= data, "{kinds:?}");
    assert!(count("timer at an edge node, an app due") > 0, "{kinds:?}");
}
