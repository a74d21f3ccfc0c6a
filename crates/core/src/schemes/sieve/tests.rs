//! Unit tests of ndnSieve's formulas and of the reactions to one congestion event.

use super::controller::link_cost;
use super::router::{occupancy, utilisation};
use super::*;
use crate::app::controller::{CongestionController, DataSignal, Loss, Target};
use crate::control::{ControlBody, ControlMessage, ControllerComponent};
use crate::face::{Face, FaceId, FaceKind, QueueLimit};
use crate::name::{Name, NameId};
use crate::packet::{Data, Interest, Packet};
use crate::schemes::components::{TopoFace, TopoNode, Topology};
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks};
use crate::time::{BitRate, Duration, Instant};

const P: NameId = NameId(1);

pub(super) fn at(ms: u64) -> Instant {
    Instant(ms * 1_000_000)
}

pub(super) fn data(size: u32) -> Data {
    Data {
        name: Name::new(P, 0),
        payload: size,
        size,
        freshness: Duration::ZERO,
        created: Instant::ZERO,
        ext: Default::default(),
    }
}

pub(super) fn net_face(id: u32, queued: u32) -> Face {
    let mut f = Face::new(
        FaceId(id),
        FaceKind::Net { peer: 9, link: id },
        QueueLimit::Packets(100),
    );
    f.bandwidth = Some(BitRate(10_000_000));
    for _ in 0..queued {
        assert!(f.enqueue(Instant::ZERO, Packet::Data(data(1000))));
    }
    f
}

fn signal(seq: u64, marked: bool) -> DataSignal {
    DataSignal::one(seq, Duration::from_millis(40), marked)
}

/// Sends `bytes` through the router's dequeue step on `face` in Data packets of 1 000 B;
/// returns how many left marked.
pub(super) fn send(r: &mut SieveRouter, faces: &[Face], face: u32, bytes: u64) -> u32 {
    let mut marked = 0;
    for _ in 0..bytes / 1000 {
        let mut p = Packet::Data(data(1000));
        r.on_dequeue(at(0), FaceId(face), &mut p, Duration::ZERO, faces);
        if let Packet::Data(d) = p {
            marked += u32::from(d.ext.mark);
        }
    }
    marked
}

fn actions(r: &mut SieveRouter) -> Vec<ControlBody> {
    let mut v = Vec::new();
    while let Some(a) = r.poll_action() {
        match a {
            ModuleAction::Control(b) => v.push(b),
            other => panic!("{other:?}"),
        }
    }
    v
}

fn value(body: &ControlBody, key: &str) -> f64 {
    match body {
        ControlBody::FaceReport { values, .. } => values.iter().find(|(k, _)| *k == key).unwrap().1,
        other => panic!("{other:?}"),
    }
}

#[test]
fn utilisation_is_bits_over_what_the_link_carries_in_the_window() {
    // 125 000 B in 100 ms = 10 Mbit/s on a 10 Mbit/s link
    assert!((utilisation(125_000, 10_000_000, Duration::from_millis(100)) - 1.0).abs() < 1e-12);
    assert!((utilisation(50_000, 10_000_000, Duration::from_millis(100)) - 0.4).abs() < 1e-12);
    assert!((utilisation(50_000, 20_000_000, Duration::from_millis(200)) - 0.1).abs() < 1e-12);
    assert_eq!(utilisation(50_000, 0, Duration::from_millis(100)), 0.0);
}

#[test]
fn occupancy_is_the_queue_over_its_capacity() {
    assert!((occupancy(&net_face(0, 30)) - 0.3).abs() < 1e-12);
    assert_eq!(occupancy(&net_face(0, 0)), 0.0);
    let mut f = Face::new(
        FaceId(0),
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Bytes(10_000),
    );
    f.enqueue(Instant::ZERO, Packet::Data(data(2500)));
    assert!((occupancy(&f) - 0.25).abs() < 1e-12);
}

#[test]
fn the_state_follows_table_2() {
    let (th1, th2) = (0.9, 0.3);
    assert_eq!(State::of(0.9, 0.9, th1, th2), State::Free);
    assert_eq!(State::of(0.5, 0.0, th1, th2), State::Free);
    assert_eq!(State::of(0.95, 0.3, th1, th2), State::Mild);
    assert_eq!(State::of(0.95, 0.0, th1, th2), State::Mild);
    assert_eq!(State::of(0.95, 0.31, th1, th2), State::Severe);
}

#[test]
fn the_link_metric_is_beta_times_ten_times_e_to_the_eps() {
    assert!((link_cost(0.5, 0.0) - 5.0).abs() < 1e-12);
    assert!((link_cost(1.0, 1.0) - 10.0 * std::f64::consts::E).abs() < 1e-12);
    assert!((link_cost(0.8, 0.25) - 8.0 * 0.25f64.exp()).abs() < 1e-12);
    assert_eq!(link_cost(0.0, 0.9), 0.0);
}

pub(super) fn router() -> SieveRouter {
    SieveRouter::new(SieveRouterConfig::default())
}

#[test]
fn a_busy_link_signals_once_when_it_becomes_busy_and_reports_every_poll() {
    let mut r = router();
    let faces = [net_face(0, 10), net_face(1, 0)];
    // window 1: 120 kB on face 0 (β = 0.96), 10 kB on face 1
    send(&mut r, &faces, 0, 120_000);
    send(&mut r, &faces, 1, 10_000);
    assert_eq!(r.poll_timeout(), Some(at(100)));
    r.on_timeout(at(100), &faces);
    let msgs = actions(&mut r);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(matches!(
        msgs[0],
        ControlBody::FaceReport {
            face: FaceId(0),
            ..
        }
    ));
    assert!((value(&msgs[0], BETA) - 0.96).abs() < 1e-9);
    assert!((value(&msgs[0], EPS) - 0.1).abs() < 1e-9);
    assert_eq!(value(&msgs[0], SIGNAL), 1.0);
    assert_eq!(r.state(FaceId(0)), State::Mild);
    assert_eq!(r.state(FaceId(1)), State::Free);
    // still busy in the same state: no new signal
    for w in 2..5 {
        send(&mut r, &faces, 0, 120_000);
        r.on_timeout(at(100 * w), &faces);
        assert!(actions(&mut r).is_empty());
    }
    // at T_p = 500 ms: a report of every net face, no signal
    send(&mut r, &faces, 0, 120_000);
    r.on_timeout(at(500), &faces);
    let msgs = actions(&mut r);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs.iter().all(|m| value(m, SIGNAL) == 0.0));
    assert_eq!(r.signals, 1);
}

#[test]
fn signal_changes_decides_whether_mild_to_severe_signals_again() {
    for changes in [true, false] {
        let mut r = SieveRouter::new(SieveRouterConfig {
            signal_changes: changes,
            ..Default::default()
        });
        let mild = [net_face(0, 10)];
        let severe = [net_face(0, 50)];
        let idle = [net_face(0, 0)];
        let mut signals = Vec::new();
        // busy and mild, busy and severe, busy and mild, free, busy and severe
        for (w, (faces, bytes)) in [
            (&mild, 120_000),
            (&severe, 120_000),
            (&mild, 120_000),
            (&idle, 10_000),
            (&severe, 120_000),
        ]
        .into_iter()
        .enumerate()
        {
            send(&mut r, faces, 0, bytes);
            r.on_timeout(at(100 * (w as u64 + 1)), faces);
            let n = actions(&mut r)
                .iter()
                .filter(|m| value(m, SIGNAL) == 1.0)
                .count();
            signals.push(n);
        }
        let want = if changes {
            vec![1, 1, 1, 0, 1]
        } else {
            vec![1, 0, 0, 0, 1]
        };
        assert_eq!(signals, want, "signal_changes = {changes}");
    }
}

#[test]
fn data_is_marked_only_in_severe_congestion() {
    let mut r = router();
    let short = [net_face(0, 30)]; // ε = 0.3: not above th2
    let long = [net_face(0, 31)];
    // before any window: β = 0, nothing marked whatever the queue
    assert_eq!(send(&mut r, &long, 0, 10_000), 0);
    send(&mut r, &short, 0, 100_000); // β = 0.8
    r.on_timeout(at(100), &short);
    assert_eq!(send(&mut r, &long, 0, 10_000), 0, "β ≤ th1 is free");
    send(&mut r, &short, 0, 100_000);
    r.on_timeout(at(200), &short);
    r.on_timeout(at(200), &short);
    send(&mut r, &short, 0, 115_000); // β = 0.92 for the next window
    r.on_timeout(at(300), &short);
    assert_eq!(send(&mut r, &short, 0, 10_000), 0, "mild: no mark");
    assert_eq!(
        send(&mut r, &long, 0, 10_000),
        10,
        "severe: every Data marked"
    );
    let mut i = Packet::Interest(Interest::new(
        Name::new(P, 1),
        1,
        Duration::from_secs(1),
        40,
    ));
    r.on_dequeue(at(300), FaceId(0), &mut i, Duration::ZERO, &long);
    assert!(matches!(i, Packet::Interest(_)));
}

#[test]
fn a_prefix_leaves_on_the_interface_with_the_lowest_metric() {
    let mut r = router();
    let faces = [net_face(0, 0), net_face(1, 0)];
    let i = Interest::new(Name::new(P, 3), 7, Duration::from_secs(1), 40);
    let other = NameId(2);
    let verdict = |r: &mut SieveRouter, face: u32, prefix: NameId| {
        r.on_interest_out(at(0), FaceId(face), prefix, &i, &faces)
    };
    assert_eq!(
        verdict(&mut r, 0, P),
        InterestVerdict::Admit,
        "no metric yet"
    );
    for (face, value) in [(0, 9.6), (1, 0.4)] {
        r.on_control(
            at(0),
            &ControlBody::NextHopValue {
                prefix: P,
                face: FaceId(face),
                value,
            },
            &faces,
        );
    }
    assert_eq!(verdict(&mut r, 0, P), InterestVerdict::Drop);
    assert_eq!(verdict(&mut r, 1, P), InterestVerdict::Admit);
    assert_eq!(
        verdict(&mut r, 0, other),
        InterestVerdict::Admit,
        "other prefix"
    );
    // the metrics refresh: traffic moves back
    r.on_control(
        at(500),
        &ControlBody::NextHopValue {
            prefix: P,
            face: FaceId(1),
            value: 12.0,
        },
        &faces,
    );
    assert_eq!(verdict(&mut r, 0, P), InterestVerdict::Admit);
    assert_eq!(verdict(&mut r, 1, P), InterestVerdict::Drop);
    assert_eq!(r.metric(P, FaceId(1)), Some(12.0));
}

/// Multipath scenario 1: C1(0) — R1(1); R1 — R2(2), R1 — R3(3); R2 — P1(4), R3 — P2(5).
/// Links 0: C1–R1, 1: R1–R2, 2: R1–R3, 3: R2–P1, 4: R3–P2. Faces in link order.
pub(super) fn multipath1() -> Topology {
    let f = |face: u32, link: u32, peer: u32| TopoFace {
        face: FaceId(face),
        link,
        peer,
    };
    let node = |faces: Vec<TopoFace>, hops: Vec<u32>| TopoNode {
        faces,
        routes: if hops.is_empty() {
            Vec::new()
        } else {
            vec![(P, hops.into_iter().map(FaceId).collect())]
        },
    };
    Topology {
        nodes: vec![
            node(vec![f(0, 0, 1)], vec![0]),
            node(vec![f(0, 0, 0), f(1, 1, 2), f(2, 2, 3)], vec![1, 2]),
            node(vec![f(0, 1, 1), f(1, 3, 4)], vec![1]),
            node(vec![f(0, 2, 1), f(1, 4, 5)], vec![1]),
            node(vec![f(0, 3, 2)], vec![]),
            node(vec![f(0, 4, 3)], vec![]),
        ],
    }
}

fn report(node: u32, face: u32, beta: f64, eps: f64, signal: bool) -> ControlMessage {
    ControlMessage {
        node,
        body: ControlBody::FaceReport {
            face: FaceId(face),
            values: vec![
                (BETA, beta),
                (EPS, eps),
                (SIGNAL, if signal { 1.0 } else { 0.0 }),
            ],
        },
    }
}

fn drain(c: &mut SieveController) -> Vec<ControlMessage> {
    std::iter::from_fn(|| c.poll_message()).collect()
}

#[test]
fn the_shunt_router_is_the_first_downstream_router_with_several_next_hops() {
    let c = SieveController::new(SieveControllerConfig::default(), multipath1());
    // P1's face to R2 (Data direction P1 → R2): R2 has one next hop, R1 two
    assert_eq!(c.prefixes_on(4, FaceId(0)), vec![P]);
    assert_eq!(c.shunt_routers(4, FaceId(0), P), vec![1]);
    // R2's face to R1: R1 itself
    assert_eq!(c.shunt_routers(2, FaceId(0), P), vec![1]);
    // R1's face to C1: nobody downstream has a choice
    assert_eq!(c.shunt_routers(1, FaceId(0), P), Vec::<u32>::new());
    // C1's face carries no Data of the prefix
    assert!(c.prefixes_on(0, FaceId(0)).is_empty());
}

#[test]
fn metrics_are_the_largest_link_cost_behind_each_interface() {
    let mut c = SieveController::new(SieveControllerConfig::default(), multipath1());
    c.handle_message(at(0), &report(4, 0, 0.7, 0.2, false)); // P1 → R2
    c.handle_message(at(0), &report(2, 0, 0.5, 0.0, false)); // R2 → R1
    c.handle_message(at(0), &report(3, 0, 0.1, 0.0, false)); // R3 → R1
    c.handle_message(at(0), &report(5, 0, 0.2, 0.1, false)); // P2 → R3
    let via_r2 = 7.0 * 0.2f64.exp();
    let via_r3 = 2.0 * 0.1f64.exp();
    assert!((c.metric(1, FaceId(1), P) - via_r2).abs() < 1e-12);
    assert!((c.metric(1, FaceId(2), P) - via_r3).abs() < 1e-12);
    assert!(drain(&mut c).is_empty(), "reports alone change nothing");
}

#[test]
fn the_filter_passes_mild_congestion_only_and_the_metrics_go_to_the_shunt_router() {
    let mut c = SieveController::new(SieveControllerConfig::default(), multipath1());
    // severe: ε = 0.5 > th2 → left to the consumers
    c.handle_message(at(0), &report(4, 0, 0.98, 0.5, true));
    assert!(drain(&mut c).is_empty());
    // mild: ε = 0.1 → metrics for R1's two next hops
    c.handle_message(at(1), &report(4, 0, 0.98, 0.1, true));
    let msgs = drain(&mut c);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs.iter().all(|m| m.node == 1));
    let metric = |face: u32| {
        msgs.iter()
            .find_map(|m| match m.body {
                ControlBody::NextHopValue {
                    prefix,
                    face: f,
                    value,
                } if f == FaceId(face) => {
                    assert_eq!(prefix, P);
                    Some(value)
                }
                _ => None,
            })
            .unwrap()
    };
    assert!((metric(1) - 9.8 * 0.1f64.exp()).abs() < 1e-12);
    assert_eq!(metric(2), 0.0);
    assert_eq!(
        c.reactions,
        controller::Reactions {
            signals: 2,
            mild: 1,
            severe: 1,
            rerouted: 1,
            metrics_sent: 2
        }
    );
    // every poll the steered router gets fresh metrics
    assert_eq!(c.poll_timeout(), Some(at(500)));
    c.handle_message(at(400), &report(4, 0, 0.1, 0.0, false));
    c.handle_message(at(400), &report(5, 0, 0.95, 0.0, false));
    c.on_timeout(at(500));
    let msgs = drain(&mut c);
    assert_eq!(msgs.len(), 2);
    match (&msgs[0].body, &msgs[1].body) {
        (
            ControlBody::NextHopValue { value: a, .. },
            ControlBody::NextHopValue { value: b, .. },
        ) => assert!(a < b, "the R2 path is now the better one: {a} {b}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.poll_timeout(), Some(at(1000)));
}

#[test]
fn the_consumer_adds_one_per_unmarked_data_and_takes_one_per_mark() {
    let mut w = SieveConsumer::new(SieveConsumerConfig::default());
    assert_eq!(w.target(), Target::Window(1.0));
    for s in 0..5 {
        w.on_data(at(s), &signal(s, false));
    }
    assert_eq!(w.window, 6.0);
    for s in 5..8 {
        let sig = signal(s, true);
        w.on_data(at(s), &sig);
        w.on_mark(at(s), &sig);
    }
    assert_eq!(w.window, 3.0);
    for s in 8..20 {
        let sig = signal(s, true);
        w.on_data(at(s), &sig);
        w.on_mark(at(s), &sig);
    }
    assert_eq!(w.window, 1.0, "floor");
    // timeouts: no change, the Interest is sent again
    w.on_timeout(at(30), 3);
    assert_eq!(w.window, 1.0);
    assert_eq!(w.retransmit(at(30), 3, Loss::Timeout), Some(true));
    assert_eq!(w.retransmit(at(30), 3, Loss::Nack), None);
    // +1 per window of Data
    let mut w = SieveConsumer::new(SieveConsumerConfig {
        per_window: true,
        initial_window: 4.0,
        ..Default::default()
    });
    for s in 0..4 {
        w.on_data(at(s), &signal(s, false));
    }
    assert!((w.window - 5.0).abs() < 0.1, "{}", w.window);
    // start_per_data: +1 per Data until the first mark, then +1 per window
    let mut w = SieveConsumer::new(SieveConsumerConfig {
        per_window: true,
        start_per_data: true,
        ..Default::default()
    });
    for s in 0..7 {
        w.on_data(at(s), &signal(s, false));
    }
    assert_eq!(w.window, 8.0, "per Data before any mark");
    let sig = signal(7, true);
    w.on_data(at(7), &sig);
    w.on_mark(at(7), &sig);
    assert_eq!(w.window, 7.0);
    for s in 8..15 {
        w.on_data(at(s), &signal(s, false));
    }
    assert!(
        (w.window - 8.0).abs() < 0.1,
        "per window after the mark: {}",
        w.window
    );
    // without per_window the option changes nothing (+1 per Data throughout)
    let mut w = SieveConsumer::new(SieveConsumerConfig {
        start_per_data: true,
        ..Default::default()
    });
    let sig = signal(0, true);
    w.on_data(at(0), &sig);
    w.on_mark(at(0), &sig);
    for s in 1..4 {
        w.on_data(at(s), &signal(s, false));
    }
    assert_eq!(w.window, 4.0);
}

/// One congestion event, end to end through the parts: the router's module, the controller and
/// a consumer. A mild event (busy link, short queue) makes the controller move the traffic and
/// leaves the consumer alone; a severe event (busy link, long queue) makes the consumer slow
/// down, one step per marked Data, and leaves the controller alone.
#[test]
fn one_congestion_event_gets_one_reaction() {
    for severe in [false, true] {
        let mut p1 = router(); // P1 (node 4): its face 0 towards R2
        let mut r1 = router(); // R1 (node 1): the shunt router
        let mut ctl = SieveController::new(SieveControllerConfig::default(), multipath1());
        let mut cons = SieveConsumer::new(SieveConsumerConfig {
            initial_window: 20.0,
            ..Default::default()
        });
        let queued = if severe { 60 } else { 10 };
        let faces = [net_face(0, queued)];
        send(&mut p1, &faces, 0, 120_000);
        p1.on_timeout(at(100), &faces);
        for body in actions(&mut p1) {
            ctl.handle_message(at(101), &ControlMessage { node: 4, body });
        }
        let pushed = drain(&mut ctl);
        let r1_faces = [net_face(0, 0), net_face(1, 0), net_face(2, 0)];
        for m in &pushed {
            assert_eq!(m.node, 1);
            r1.on_control(at(102), &m.body, &r1_faces);
        }
        // the next 50 Data leave P1 and reach the consumer
        let mut marks = 0;
        for s in 0..50 {
            let mut p = Packet::Data(data(1000));
            p1.on_dequeue(at(110), FaceId(0), &mut p, Duration::ZERO, &faces);
            let Packet::Data(d) = p else { unreachable!() };
            marks += u32::from(d.ext.mark);
            let sig = signal(s, d.ext.mark);
            cons.on_data(at(150), &sig);
            if d.ext.mark {
                cons.on_mark(at(150), &sig);
            }
        }
        let i = Interest::new(Name::new(P, 9), 1, Duration::from_secs(1), 40);
        let via_r2 = r1.on_interest_out(at(120), FaceId(1), P, &i, &r1_faces);
        let r = ctl.reactions;
        assert_eq!(r.signals, 1);
        if severe {
            assert_eq!((r.mild, r.severe, r.rerouted), (0, 1, 0));
            assert!(pushed.is_empty());
            assert_eq!(via_r2, InterestVerdict::Admit, "R1 keeps its path");
            assert_eq!(marks, 50);
            assert_eq!(cons.marks, 50);
            assert_eq!(cons.window, 1.0);
        } else {
            assert_eq!((r.mild, r.severe, r.rerouted), (1, 0, 1));
            assert_eq!(pushed.len(), 2);
            assert_eq!(via_r2, InterestVerdict::Drop, "R1 moves to R3");
            assert_eq!(marks, 0);
            assert_eq!(cons.marks, 0);
            assert_eq!(cons.window, 70.0);
        }
    }
}

fn best_of(msgs: &[ControlMessage]) -> FaceId {
    msgs.iter()
        .filter_map(|m| match m.body {
            ControlBody::NextHopValue { face, value, .. } => Some((face, value)),
            _ => None,
        })
        .fold(None::<(FaceId, f64)>, |b, (f, v)| match b {
            Some((_, bv)) if bv <= v => b,
            _ => Some((f, v)),
        })
        .unwrap()
        .0
}

#[test]
fn hold_keeps_a_move_in_place_before_metrics_that_undo_it_are_sent() {
    for hold_ms in [0, 1200] {
        let cfg = SieveControllerConfig {
            hold: Duration::from_millis(hold_ms),
            ..Default::default()
        };
        let mut c = SieveController::new(cfg, multipath1());
        // t = 0.1 s: the R2 path is busy → R1 moves to R3
        c.handle_message(at(100), &report(4, 0, 0.98, 0.1, true));
        assert_eq!(best_of(&drain(&mut c)), FaceId(2));
        // the R3 path fills, the R2 path empties: every poll would move back
        c.handle_message(at(400), &report(4, 0, 0.0, 0.0, false));
        c.handle_message(at(400), &report(5, 0, 0.98, 0.1, false));
        c.on_timeout(at(500));
        let at_500 = drain(&mut c);
        c.on_timeout(at(1000));
        let at_1000 = drain(&mut c);
        c.on_timeout(at(1500));
        let at_1500 = drain(&mut c);
        if hold_ms == 0 {
            assert_eq!(best_of(&at_500), FaceId(1), "as the paper: back at once");
            assert!(at_1000.is_empty(), "nothing more to gain");
        } else {
            assert!(at_500.is_empty() && at_1000.is_empty(), "held");
            assert_eq!(best_of(&at_1500), FaceId(1), "after the hold");
        }
    }
}

/// A controller restarted while R1 forwards on R3 (metrics of the old controller): told the
/// metrics R1 holds, it weighs the next mild congestion of the R3 path against R3 and moves
/// the traffic back to R2; not told, it believes R1 on R2 and does nothing.
#[test]
fn a_controller_told_a_routers_metrics_weighs_moves_against_them() {
    for told in [false, true] {
        let mut c = SieveController::new(SieveControllerConfig::default(), multipath1());
        if told {
            for (face, value) in [(1, 9.0), (2, 0.5)] {
                c.handle_message(
                    at(0),
                    &ControlMessage {
                        node: 1,
                        body: ControlBody::NextHopValue {
                            prefix: P,
                            face: FaceId(face),
                            value,
                        },
                    },
                );
            }
            assert!(drain(&mut c).is_empty(), "learning sends nothing");
        }
        // the R3 path is mildly congested (P2 → R3 busy, short queue)
        c.handle_message(at(100), &report(5, 0, 0.98, 0.1, true));
        let msgs = drain(&mut c);
        if told {
            assert_eq!(best_of(&msgs), FaceId(1), "back to R2: {msgs:?}");
            assert_eq!(c.reactions.rerouted, 1);
        } else {
            assert!(msgs.is_empty(), "{msgs:?}");
            assert_eq!(c.reactions.rerouted, 0);
        }
    }
}

#[test]
fn one_mild_signal_moves_one_prefix_unless_told_to_move_them_all() {
    // multipath 1 with a second prefix Q routed like P
    const Q: NameId = NameId(2);
    let mut topo = multipath1();
    for n in &mut topo.nodes {
        if let Some((_, hops)) = n.routes.first().cloned() {
            n.routes.push((Q, hops));
        }
    }
    for one_prefix in [true, false] {
        let cfg = SieveControllerConfig {
            one_prefix,
            ..Default::default()
        };
        let mut c = SieveController::new(cfg, topo.clone());
        assert_eq!(c.prefixes_on(4, FaceId(0)), vec![P, Q]);
        c.handle_message(at(100), &report(4, 0, 0.98, 0.1, true));
        let msgs = drain(&mut c);
        let prefixes: std::collections::BTreeSet<NameId> = msgs
            .iter()
            .filter_map(|m| match m.body {
                ControlBody::NextHopValue { prefix, .. } => Some(prefix),
                _ => None,
            })
            .collect();
        if one_prefix {
            assert_eq!(prefixes.into_iter().collect::<Vec<_>>(), vec![P]);
            // nothing to gain: no move
            c.handle_message(at(200), &report(4, 0, 0.98, 0.1, false));
            c.handle_message(at(200), &report(5, 0, 0.98, 0.1, false));
            c.handle_message(at(300), &report(4, 0, 0.98, 0.1, true));
            assert!(drain(&mut c).is_empty());
        } else {
            assert_eq!(prefixes.into_iter().collect::<Vec<_>>(), vec![P, Q]);
        }
    }
}

/// Consumer settings that would change nothing are refused by the rules between parameters:
/// `start_per_data` without `per_window`, and a floor above the start (ICP refuses the same).
#[test]
fn consumer_settings_that_mean_nothing_are_refused() {
    use crate::schemes::params::SchemeConfig;
    let keys = |c: SieveConsumerConfig| -> Vec<Vec<String>> {
        c.validate().into_iter().map(|p| p.keys).collect()
    };
    let alone = keys(SieveConsumerConfig {
        start_per_data: true,
        ..Default::default()
    });
    assert_eq!(alone, vec![vec!["start_per_data", "per_window"]]);
    let above = keys(SieveConsumerConfig {
        initial_window: 2.0,
        min_window: 4.0,
        ..Default::default()
    });
    assert_eq!(above, vec![vec!["initial_window", "min_window"]]);
    let fine = keys(SieveConsumerConfig {
        per_window: true,
        start_per_data: true,
        initial_window: 4.0,
        min_window: 4.0,
    });
    assert!(fine.is_empty(), "{fine:?}");
}
