//! Integration tests of the simulator: link model against arithmetic, sharing, determinism,
//! forwarding behaviour end to end.

use ndncc_core::app::controller::{ConstantRateConfig, FixedWindowConfig};
use ndncc_core::schemes::ControllerConfig;
use ndncc_sim::spec::*;
use ndncc_sim::{run, Column, RunOptions, SimOutput};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn node(name: &str) -> NodeSpec {
    NodeSpec {
        name: name.into(),
        strategy: "best-route".into(),
        cs_capacity: 0,
        schemes: Default::default(),
    }
}

fn link(a: usize, b: usize, bps: u64, delay_ns: u64, queue: u32) -> LinkSpec {
    LinkSpec {
        a,
        b,
        bandwidth_bps: bps,
        delay_ns,
        queue_ab: QueueSpec::Packets(queue),
        queue_ba: QueueSpec::Packets(queue),
        loss: 0.0,
        cost: 0,
    }
}

fn route(node: usize, prefix: &str, link: usize) -> RouteSpec {
    RouteSpec {
        node,
        prefix: prefix.into(),
        link,
        cost: 0,
    }
}

fn consumer(name: &str, node: usize, prefix: &str, rate: f64) -> AppSpec {
    AppSpec {
        name: name.into(),
        node,
        start_ns: 0,
        stop_ns: None,
        app: AppKind::Consumer(ConsumerSpec {
            prefix: prefix.into(),
            controller: ControllerConfig::ConstantRate(ConstantRateConfig { rate }),
            engine: EngineSpec::Ideal,
            clock: ClockSpec::Ideal,
            lifetime_ns: 4 * S,
            timeout_ns: None,
            retx_on_timeout: false,
            retx_on_nack: false,
            max_transmissions: u32::MAX,
            start_seq: 0,
            max_seq: None,
            chunk_segments: None,
        }),
    }
}

fn producer(name: &str, node: usize, prefix: &str, payload: u32) -> AppSpec {
    AppSpec {
        name: name.into(),
        node,
        start_ns: 0,
        stop_ns: None,
        app: AppKind::Producer(ProducerSpec {
            prefix: prefix.into(),
            payload_size: payload,
            freshness_ns: 0,
            content_segments: None,
            processing_delay_ns: 0,
            share: None,
            placement_block: None,
        }),
    }
}

/// C — R1 — R2 — P with the given per-link bandwidths.
fn line(bw: [u64; 3], delay_ns: u64, rate: f64, duration_ns: u64) -> ScenarioSpec {
    ScenarioSpec {
        name: "line".into(),
        duration_ns,
        seed: 1,
        run: 0,
        packets: PacketSpec::default(),
        nodes: vec![node("C"), node("R1"), node("R2"), node("P")],
        links: (0..3)
            .map(|i| link(i, i + 1, bw[i], delay_ns, 100))
            .collect(),
        routing: RoutingSpec::default(),
        routes: (0..3).map(|i| route(i, "/p", i)).collect(),
        apps: vec![consumer("c", 0, "/p", rate), producer("p", 3, "/p", 1250)],
        trace: TraceSpec::default(),
        components: vec![],
    }
}

fn go(spec: &ScenarioSpec) -> SimOutput {
    run(spec, &RunOptions::default(), &mut |_| true).expect("run")
}

/// Every table as raw bytes (NaN-safe comparison).
fn bytes(out: &SimOutput) -> Vec<Vec<u8>> {
    out.tables
        .iter()
        .flat_map(|(_, t)| t.columns.iter().map(|(_, c)| c.to_le_bytes()))
        .collect()
}

fn f64s<'a>(out: &'a SimOutput, table: &str, col: &str) -> &'a [f64] {
    match out.table(table).unwrap().column(col).unwrap() {
        Column::F64(v) => v,
        c => panic!("{col} is {c:?}"),
    }
}

fn u32s<'a>(out: &'a SimOutput, table: &str, col: &str) -> &'a [u32] {
    match out.table(table).unwrap().column(col).unwrap() {
        Column::U32(v) => v,
        c => panic!("{col} is {c:?}"),
    }
}

#[test]
fn below_capacity_every_delay_is_the_sum_of_serialization_and_propagation() {
    let spec = line([10_000_000; 3], 10 * MS, 500.0, 5 * S);
    let out = go(&spec);
    // Interest 40 B at 10 Mb/s = 32 µs; Data 1250 B = 1 ms; 3 links each way, 10 ms each.
    let expected = 3.0 * (32e-6 + 0.010) + 3.0 * (1e-3 + 0.010);
    let delays = f64s(&out, "delays", "full_delay_s");
    assert!(!delays.is_empty());
    for d in delays {
        assert!((d - expected).abs() < 1e-12, "delay {d} != {expected}");
    }
    let a = &out.summary.apps[0];
    // Every Interest sent more than one RTT before the end is answered; nothing is lost.
    let rtt_slots = (expected * 500.0).ceil() as u64;
    assert_eq!(a.interests_sent, 2500);
    assert!(a.data_received >= 2500 - rtt_slots && a.data_received < 2500);
    assert_eq!(a.nacks_received + a.timeouts, 0);
    assert!(out.summary.faces.iter().all(|f| f.drops == 0));
}

#[test]
fn above_capacity_delivers_the_bottleneck_rate_and_drops_the_excess() {
    // Middle link 10 Mb/s = 1000 Data/s; consumer asks 1500/s; 100-packet queues.
    let duration = 10 * S;
    let spec = line(
        [100_000_000, 10_000_000, 100_000_000],
        10 * MS,
        1500.0,
        duration,
    );
    let out = go(&spec);
    let times = f64s(&out, "delays", "time_s");
    // Steady state: Data received per second in [2 s, 10 s).
    let n = times.iter().filter(|&&t| t >= 2.0).count() as f64;
    let rate = n / 8.0;
    assert!((rate - 1000.0).abs() <= 1.0, "delivered {rate} Data/s");
    // Drops: Data reach R2 at 1500/s from t0 and leave at 1000/s; the excess is dropped, up to
    // what the queue (100) and the packet on the wire hold at the end.
    let r2_to_r1 = out
        .summary
        .faces
        .iter()
        .find(|f| f.node == "R2" && f.peer.as_deref() == Some("R1"))
        .unwrap();
    let t0 = 3.0 * 0.010 + 32e-6 + 4e-6 + 32e-6 + 2.0 * 0.010 + 2.0 * 100e-6; // first Data at R2
    let excess = 500.0 * (duration as f64 * 1e-9 - t0);
    let drops = r2_to_r1.drops as f64;
    assert!(
        drops <= excess && excess - drops <= 101.0 + 1.0,
        "drops {drops} vs excess {excess}"
    );
    assert_eq!(r2_to_r1.max_queue_pkts, 100);
}

#[test]
fn two_flows_at_twice_capacity_share_the_bottleneck_fully() {
    // C1, C2 — R1 — R2 — P1, P2; bottleneck R1–R2 10 Mb/s (1000 Data/s); each flow asks 1000/s.
    let mut spec = ScenarioSpec {
        name: "dumbbell".into(),
        duration_ns: 20 * S,
        seed: 1,
        run: 0,
        packets: PacketSpec::default(),
        nodes: ["C1", "C2", "R1", "R2", "P1", "P2"].map(node).to_vec(),
        links: vec![
            link(0, 2, 100_000_000, 10 * MS, 100),
            link(1, 2, 100_000_000, 10 * MS, 100),
            link(2, 3, 10_000_000, 10 * MS, 100),
            link(3, 4, 100_000_000, 10 * MS, 100),
            link(3, 5, 100_000_000, 10 * MS, 100),
        ],
        routing: RoutingSpec::default(),
        routes: vec![],
        apps: vec![
            consumer("c1", 0, "/p1", 1000.0),
            consumer("c2", 1, "/p2", 1000.0),
            producer("p1", 4, "/p1", 1250),
            producer("p2", 5, "/p2", 1250),
        ],
        trace: TraceSpec::default(),
        components: vec![],
    };
    for (c, p, first, last) in [(0, "/p1", 0, 3), (1, "/p2", 1, 4)] {
        spec.routes.push(route(c, p, first));
        spec.routes.push(route(2, p, 2));
        spec.routes.push(route(3, p, last));
    }
    let out = go(&spec);
    let times = f64s(&out, "delays", "time_s");
    let apps = u32s(&out, "delays", "app");
    let window = (2.0, 20.0);
    let mut per_flow = [0.0f64; 2];
    for (t, a) in times.iter().zip(apps) {
        if *t >= window.0 {
            per_flow[*a as usize] += 1250.0 * 8.0;
        }
    }
    let secs = window.1 - window.0;
    let total_mbps = (per_flow[0] + per_flow[1]) / secs / 1e6;
    assert!((total_mbps - 10.0).abs() <= 0.1, "total {total_mbps} Mb/s");
}

#[test]
fn same_seed_same_output_other_seed_other_random_stream() {
    let mut spec = line([10_000_000; 3], 5 * MS, 800.0, 3 * S);
    for l in &mut spec.links {
        l.loss = 0.02;
    }
    let a = go(&spec);
    let b = go(&spec);
    assert_eq!(a.summary, b.summary);
    assert!(bytes(&a) == bytes(&b));
    spec.seed = 2;
    let c = go(&spec);
    assert_ne!(a.summary.link_losses, 0);
    assert!(bytes(&a) != bytes(&c));
    spec.seed = 1;
    spec.run = 1;
    let d = go(&spec);
    assert!(bytes(&a) != bytes(&d));
}

#[test]
fn missing_route_gives_nack_no_route_to_the_consumer() {
    let mut spec = line([10_000_000; 3], 5 * MS, 100.0, S);
    spec.routes.retain(|r| r.node != 1); // R1 has no route
    let out = go(&spec);
    let a = &out.summary.apps[0];
    assert_eq!(a.data_received, 0);
    // every Interest is Nacked by R1 after one C–R1 round trip (the last one is still on its way)
    assert_eq!(a.nacks_received, a.interests_sent - 1);
    let r1 = out.summary.faces.iter().find(|f| f.node == "R1").unwrap();
    assert_eq!(r1.out_nacks, a.interests_sent);
}

#[test]
fn window_consumer_keeps_the_window_in_flight() {
    let mut spec = line([10_000_000; 3], 10 * MS, 1.0, 2 * S);
    if let AppKind::Consumer(c) = &mut spec.apps[0].app {
        c.controller = ControllerConfig::FixedWindow(FixedWindowConfig { window: 4 });
    }
    let out = go(&spec);
    let a = &out.summary.apps[0];
    // RTT = 63.096 ms: about 4 Data per RTT.
    let per_rtt = a.data_received as f64 / (2.0 / 0.063096);
    assert!((per_rtt - 4.0).abs() < 0.1, "{per_rtt}");
    let inflight = out
        .table("app_series")
        .unwrap()
        .column("in_flight")
        .unwrap();
    match inflight {
        Column::U64(v) => assert!(v.iter().all(|&x| x == 4)),
        _ => panic!(),
    }
}

/// Three nodes, 5 % loss on the second link, a consumer that re-asks after 200 ms (lifetime
/// 150 ms) for 400 segments.
fn lossy_line_with_retransmission() -> ScenarioSpec {
    let mut spec = line([10_000_000; 3], 5 * MS, 200.0, 4 * S);
    spec.links[1].loss = 0.05;
    if let AppKind::Consumer(c) = &mut spec.apps[0].app {
        c.retx_on_timeout = true;
        c.timeout_ns = Some(200 * MS);
        c.lifetime_ns = 150 * MS;
        c.max_seq = Some(400);
    }
    spec
}

#[test]
fn random_loss_with_retransmission_recovers_every_segment() {
    let out = go(&lossy_line_with_retransmission());
    let a = &out.summary.apps[0];
    assert_eq!(a.data_received, 400);
    assert!(a.retransmissions > 0);
    assert_eq!(a.delivery_ratio, Some(1.0));
}

#[test]
fn bad_spec_is_an_error_not_a_panic() {
    let mut spec = line([10_000_000; 3], 5 * MS, 100.0, S);
    spec.links[0].b = 99;
    assert!(run(&spec, &RunOptions::default(), &mut |_| true).is_err());
    assert!(ScenarioSpec::from_json("{\"name\": 3}").is_err());
}

#[test]
fn adding_a_node_in_front_does_not_change_other_random_streams() {
    let mut spec = line([10_000_000; 3], 5 * MS, 800.0, 2 * S);
    for l in &mut spec.links {
        l.loss = 0.05;
    }
    let before = go(&spec);
    // insert an unrelated node at index 0 and shift every index
    spec.nodes.insert(0, node("X"));
    for l in &mut spec.links {
        l.a += 1;
        l.b += 1;
    }
    for r in &mut spec.routes {
        r.node += 1;
    }
    for a in &mut spec.apps {
        a.node += 1;
    }
    let after = go(&spec);
    assert_eq!(before.summary.link_losses, after.summary.link_losses);
    assert!(before.table("delays") == after.table("delays"));
}

#[test]
fn send_loops_on_a_coarse_clock_rmc_holds_the_rate_rfc3448_without_bursts_does_not() {
    // 20 000 Interests/s over 1 Gb/s links; the consumer's loop sleeps on a 1 ms clock with a
    // 50 µs mean waiting time.
    let clock = ClockSpec::Os {
        tg_ns: MS,
        wait: WaitSpec::Exponential { mean_ns: 50_000 },
        load: None,
    };
    let sent = |engine: EngineSpec| {
        let mut spec = line([1_000_000_000; 3], MS, 20_000.0, S);
        if let AppKind::Consumer(c) = &mut spec.apps[0].app {
            c.engine = engine;
            c.clock = clock.clone();
        }
        go(&spec).summary.apps[0].interests_sent as f64
    };
    let rmc = sent(EngineSpec::Rmc {
        kr: 1.0,
        period_ns: MS,
    });
    let no_burst = sent(EngineSpec::Rfc3448 {
        burst: false,
        granularity_ns: None,
        max_owed: None,
    });
    let burst = sent(EngineSpec::Rfc3448 {
        burst: true,
        granularity_ns: None,
        max_owed: None,
    });
    assert!((rmc - 20_000.0).abs() / 20_000.0 < 0.005, "rmc {rmc}");
    assert!(no_burst < 0.1 * 20_000.0, "no burst {no_burst}");
    assert!(burst > 0.9 * 20_000.0, "burst {burst}");
}

mod control_plane {
    use super::*;
    use ndncc_core::control::{ControlBody, ControlMessage, ControllerComponent};
    use ndncc_core::face::{Face, FaceId};
    use ndncc_core::schemes::{ModuleAction, RouterHooks};
    use ndncc_core::{Duration, Instant, NameId};
    use ndncc_sim::{run_with, ControlLink, Parts};
    use std::sync::{Arc, Mutex};

    type Log = Arc<Mutex<Vec<(&'static str, u64, f64)>>>;

    /// Reports its Data out counter to its controller every 100 ms; logs what comes back.
    #[derive(Debug)]
    struct Reporter {
        log: Log,
        next: Instant,
        out: Vec<ModuleAction>,
    }

    impl RouterHooks for Reporter {
        fn poll_timeout(&self) -> Option<Instant> {
            Some(self.next)
        }
        fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
            if now < self.next {
                return;
            }
            self.next = now + Duration::from_millis(100);
            let sent = faces[0].counters.out_pkts[1] as f64;
            self.log.lock().unwrap().push(("report", now.0, sent));
            self.out
                .push(ModuleAction::Control(ControlBody::FaceReport {
                    face: FaceId(0),
                    values: vec![("data_out", sent)],
                }));
        }
        fn poll_action(&mut self) -> Option<ModuleAction> {
            self.out.pop()
        }
        fn on_control(&mut self, now: Instant, msg: &ControlBody, _: &[Face]) {
            if let ControlBody::NextHopValue { value, .. } = msg {
                self.log.lock().unwrap().push(("reply", now.0, *value));
            }
        }
    }

    /// Answers every report with the number of reports so far.
    #[derive(Debug)]
    struct Counter {
        log: Log,
        seen: u32,
        out: Vec<ControlMessage>,
    }

    impl ControllerComponent for Counter {
        fn handle_message(&mut self, now: Instant, msg: &ControlMessage) {
            self.seen += 1;
            self.log
                .lock()
                .unwrap()
                .push(("heard", now.0, msg.node as f64));
            self.out.push(ControlMessage {
                node: msg.node,
                body: ControlBody::NextHopValue {
                    prefix: NameId(0),
                    face: FaceId(0),
                    value: f64::from(self.seen),
                },
            });
        }
        fn poll_message(&mut self) -> Option<ControlMessage> {
            self.out.pop()
        }
    }

    /// A module on R1 reports every 100 ms over a 7 ms control link; the controller hears each
    /// report 7 ms later and the module gets the answer another 7 ms later.
    #[test]
    fn messages_cross_control_links_with_their_delay() {
        let spec = line([10_000_000; 3], 5 * MS, 100.0, S);
        let log: Log = Arc::default();
        let parts = Parts {
            modules: vec![(
                1,
                Box::new(Reporter {
                    log: log.clone(),
                    next: Instant(100 * MS),
                    out: Vec::new(),
                }),
            )],
            controllers: vec![Box::new(Counter {
                log: log.clone(),
                seen: 0,
                out: Vec::new(),
            })],
            control_links: vec![ControlLink {
                node: 1,
                controller: 0,
                delay: Duration::from_millis(7),
            }],
        };
        let out = run_with(&spec, &RunOptions::default(), parts, &mut |_| true).unwrap();
        let log = log.lock().unwrap().clone();
        let at =
            |what: &str| -> Vec<u64> { log.iter().filter(|e| e.0 == what).map(|e| e.1).collect() };
        let reports = at("report");
        assert_eq!(reports.len(), 9, "at 0.1, 0.2, … 0.9 s");
        let heard: Vec<u64> = reports.iter().map(|t| t + 7 * MS).collect();
        assert_eq!(at("heard"), heard);
        let replies: Vec<u64> = reports.iter().map(|t| t + 14 * MS).collect();
        assert_eq!(at("reply"), replies);
        let values: Vec<f64> = log.iter().filter(|e| e.0 == "reply").map(|e| e.2).collect();
        assert_eq!(values, (1..=9).map(f64::from).collect::<Vec<_>>());
        assert!(
            log.iter().any(|e| e.0 == "report" && e.2 > 0.0),
            "Data went through R1"
        );
        // a run without the parts has no control events: the same traffic, fewer events
        let plain = go(&spec);
        assert_eq!(
            out.summary.apps[0].data_received,
            plain.summary.apps[0].data_received
        );
    }

    #[test]
    fn a_control_link_to_a_missing_node_is_an_error() {
        let spec = line([10_000_000; 3], 5 * MS, 100.0, S);
        let parts = Parts {
            control_links: vec![ControlLink {
                node: 9,
                controller: 0,
                delay: Duration::ZERO,
            }],
            ..Default::default()
        };
        assert!(run_with(&spec, &RunOptions::default(), parts, &mut |_| true).is_err());
    }
}

/// Router modules' named gauges become `scheme_<name>` columns: values on the faces of the node
/// that runs the module, NaN on the others.
#[test]
fn named_gauges_are_columns_of_the_face_table() {
    use ndncc_core::schemes::sf::SfConfig;
    use ndncc_core::schemes::RouterConfig;
    let mut spec = line([10_000_000; 3], 5 * MS, 100.0, S);
    spec.nodes[1].schemes = SchemesSpec(vec![RouterConfig::Sf(SfConfig::default())]);
    let out = go(&spec);
    let rate = f64s(&out, "face_series", "scheme_rate");
    let bucket = f64s(&out, "face_series", "scheme_bucket");
    let node = match out.table("face_series").unwrap().column("node").unwrap() {
        Column::U32(v) => v.clone(),
        other => panic!("{other:?}"),
    };
    // R1's net face towards R2 polices at the line rate, 1 000 Data/s, from its first Interest
    let r1: Vec<f64> = rate
        .iter()
        .zip(&node)
        .filter(|(r, &n)| n == 1 && r.is_finite())
        .map(|(r, _)| *r)
        .collect();
    assert!(!r1.is_empty() && r1.iter().all(|&r| r >= 1000.0), "{r1:?}");
    assert!(rate.iter().zip(&node).all(|(r, &n)| n == 1 || r.is_nan()));
    assert!(bucket
        .iter()
        .zip(&node)
        .any(|(b, &n)| n == 1 && b.is_finite()));
    // a scenario without router modules has no gauge columns
    let plain = go(&line([10_000_000; 3], 5 * MS, 100.0, S));
    assert!(plain
        .table("face_series")
        .unwrap()
        .column("scheme_rate")
        .is_none());
}

/// The phases tile the call: each is a non-negative span, routes apart from the rest of the
/// build, and together they fit within the wall time measured around `run` (routes counted
/// twice, or a phase left out of the laps, would break one or the other). No bound on speed.
#[test]
fn the_timed_phases_are_disjoint_and_fit_within_the_call() {
    let spec = line([10_000_000; 3], MS, 100.0, S / 10);
    let started = std::time::Instant::now();
    let out = go(&spec);
    let whole = started.elapsed().as_secs_f64();
    let p = out.phases;
    let parts = [
        p.routes_s,
        p.build_s,
        p.loop_s,
        p.report_s,
        p.tables_s,
        p.teardown_s,
    ];
    assert!(parts.iter().all(|&s| s >= 0.0), "{p:?}");
    assert!(p.routes_s > 0.0 && p.loop_s > 0.0, "{p:?}");
    let sum: f64 = parts.iter().sum();
    assert!(
        sum <= whole + 1e-9,
        "phases {sum} s > the call's {whole} s: {p:?}"
    );
}

/// A re-asked Interest's delay record: the full delay runs from its first send, the last delay
/// from its last, at least a timeout (200 ms) apart; an Interest sent once has the two equal.
#[test]
fn a_reasked_interest_records_its_full_delay_from_the_first_send() {
    let out = go(&lossy_line_with_retransmission());
    let full = f64s(&out, "delays", "full_delay_s");
    let last = f64s(&out, "delays", "last_delay_s");
    let tx = u32s(&out, "delays", "transmissions");
    assert!(tx.iter().any(|&t| t > 1), "some Interest was re-asked");
    for ((f, l), t) in full.iter().zip(last).zip(tx) {
        if *t > 1 {
            assert!(
                f - l >= 0.2 - 1e-12,
                "full {f} s, last {l} s after {t} sends"
            );
        } else {
            assert_eq!(f, l);
        }
    }
}

/// A run three times as long as the calendar queue's ring looks ahead (≈ 4.3 s): the consumer
/// stops at 6 s and a second one, on R1, starts at 9 s, both scheduled from the start.
fn long_line_with_a_late_start() -> ScenarioSpec {
    let mut spec = line([10_000_000; 3], 5 * MS, 600.0, 13 * S);
    spec.apps[0].stop_ns = Some(6 * S);
    let mut late = consumer("late", 1, "/p", 300.0);
    late.start_ns = 9 * S;
    spec.apps.push(late);
    spec
}

/// The large networks' speed choices (buffer pools, prefetching, the calendar event queue;
/// `RunOptions::large_network`) change no result: the same summary, metadata and tables
/// either way, on a line below and above capacity, on a lossy line with retransmissions and
/// over a run longer than the calendar's ring, with apps starting and stopping past it.
#[test]
fn the_large_network_path_gives_the_same_results() {
    let specs = [
        line([10_000_000; 3], 5 * MS, 800.0, 3 * S),
        line(
            [100_000_000, 10_000_000, 100_000_000],
            10 * MS,
            2_000.0,
            3 * S,
        ),
        lossy_line_with_retransmission(),
        long_line_with_a_late_start(),
    ];
    for spec in &specs {
        let runs: Vec<SimOutput> = [false, true]
            .into_iter()
            .map(|large| {
                let opts = RunOptions {
                    large_network: Some(large),
                    ..RunOptions::default()
                };
                run(spec, &opts, &mut |_| true).expect("run")
            })
            .collect();
        let json = |o: &SimOutput| {
            (
                serde_json::to_string(&o.summary).unwrap(),
                serde_json::to_string(&o.meta).unwrap(),
            )
        };
        assert!(runs[0].summary.events > 1_000, "{}", spec.name);
        for a in &runs[0].summary.apps {
            assert!(a.data_received > 0, "{} of {}", a.name, spec.name);
        }
        assert_eq!(json(&runs[0]), json(&runs[1]), "{}", spec.name);
        assert_eq!(bytes(&runs[0]), bytes(&runs[1]), "{}", spec.name);
    }
}
