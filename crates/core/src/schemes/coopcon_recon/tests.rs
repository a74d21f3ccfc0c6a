//! Unit tests of CoopCon-recon's formulas (marking, divert share, gradual window) and of the
//! strategy on one forwarder.

use super::strategy::divert_share;
use super::*;
use crate::app::controller::{CongestionController, DataSignal};
use crate::face::{Face, FaceId, FaceKind, QueueLimit};
use crate::forwarder::Forwarder;
use crate::name::{Name, NameId};
use crate::packet::{Interest, Packet};
use crate::schemes::testkit::{self, data, is_marked};
use crate::schemes::{RouterHooks, RouterModule};
use crate::time::{Duration, Instant};

fn face_with(queued: u32) -> Face {
    let mut f = Face::new(
        FaceId(0),
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Packets(100),
    );
    for k in 0..queued {
        assert!(f.enqueue(
            Instant::ZERO,
            Packet::Data(data(NameId(1), k.into(), false))
        ));
    }
    f
}

fn leaves_marked(r: &mut CoopconRouter, faces: &[Face], p: Packet) -> Packet {
    let mut p = p;
    r.on_dequeue(Instant::ZERO, FaceId(0), &mut p, Duration::ZERO, faces);
    p
}

#[test]
fn the_router_marks_data_leaving_a_queue_filled_above_the_threshold() {
    let mut r = CoopconRouter::new(CoopconRouterConfig::default()); // th_mark = 0.2
    let at = [face_with(20)]; // ε = 0.2: not above
    let above = [face_with(21)];
    assert!(!is_marked(&leaves_marked(
        &mut r,
        &at,
        Packet::Data(data(NameId(1), 0, false))
    )));
    assert!(is_marked(&leaves_marked(
        &mut r,
        &above,
        Packet::Data(data(NameId(1), 0, false))
    )));
    // a marked Data stays marked on a short queue; Interests are never touched
    assert!(is_marked(&leaves_marked(
        &mut r,
        &at,
        Packet::Data(data(NameId(1), 0, true))
    )));
    let i = Interest::new(Name::new(NameId(1), 0), 1, Duration::from_secs(1), 40);
    assert_eq!(
        leaves_marked(&mut r, &above, Packet::Interest(i)),
        Packet::Interest(i)
    );
    let mut g = [f64::NAN];
    r.face_gauges(Instant::ZERO, FaceId(0), &mut g);
    assert_eq!(g[0], 1.0, "one Data marked here");
    // byte-limited queues read bytes
    let mut b = Face::new(
        FaceId(0),
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Bytes(10_000),
    );
    for k in 0..2 {
        assert!(b.enqueue(Instant::ZERO, Packet::Data(data(NameId(1), k, false))));
    }
    assert!((router::fill(&b) - 0.22).abs() < 1e-12);
    assert!(r.marks(&b));
}

#[test]
fn the_divert_share_is_zero_up_to_severe_then_grows_to_its_cap() {
    assert_eq!(divert_share(0.0, 0.5, 0.5), 0.0);
    assert_eq!(divert_share(0.5, 0.5, 0.5), 0.0, "severe is strictly above");
    assert!((divert_share(0.75, 0.5, 0.5) - 0.25).abs() < 1e-12);
    assert!((divert_share(0.6, 0.2, 0.4) - 0.2).abs() < 1e-12);
    assert_eq!(
        divert_share(1.0, 0.5, 0.5),
        0.5,
        "the optimal path keeps half"
    );
    assert_eq!(divert_share(1.0, 0.0, 0.3), 0.3);
}

/// Downstream face 0, upstream faces 1 (cost 1, the optimal path) and 2 (cost 5).
fn node(cfg: CoopconStrategyConfig) -> (Forwarder, NameId) {
    let strategy = |rng| CoopconStrategy::new(cfg, rng);
    testkit::node(strategy, RouterModule::None, &[1, 5], 3)
}

/// One Interest, answered on the face it left on (marked if `mark(face)`); returns that face.
fn round_trip(f: &mut Forwarder, p: NameId, seq: u64, mark: impl Fn(u32) -> bool) -> u32 {
    let now = Instant(seq * 1000);
    f.handle_interest(
        now,
        FaceId(0),
        Interest::new(Name::new(p, seq), seq as u32, Duration::from_secs(1), 40),
    );
    let mut up = None;
    for k in 1..3 {
        while let Some(pk) = f.poll_transmit(now, FaceId(k)) {
            if matches!(pk, Packet::Interest(_)) {
                up = Some(k);
            }
        }
    }
    let up = up.expect("sent upstream");
    f.handle_data(now, FaceId(up), data(p, seq, mark(up)));
    while f.poll_transmit(now, FaceId(0)).is_some() {}
    up
}

fn share(f: &Forwarder, face: u32) -> f64 {
    let mut g = [f64::NAN];
    f.strategy.face_gauges(FaceId(face), &mut g);
    g[0]
}

#[test]
fn the_optimal_path_takes_everything_until_its_marks_say_severe() {
    let (mut f, p) = node(CoopconStrategyConfig {
        gain: 0.05,
        ..Default::default()
    });
    // every Data from the optimal path marked, but the share stays below severe (0.5) for
    // the first 13 (1 − 0.95^13 = 0.487): nothing moves
    for s in 0..13 {
        assert_eq!(round_trip(&mut f, p, s, |_| true), 1, "Interest {s}");
    }
    assert!((share(&f, 1) - (1.0 - 0.95f64.powi(13))).abs() < 1e-12);
    // marks go on (from face 1 only): once the share passes severe, part of the Interests go
    // to face 2, never more than d_max = 0.5 of them
    let (mut alt, n) = (0, 2000);
    for s in 13..13 + n {
        let up = round_trip(&mut f, p, s, |face| face == 1);
        alt += u64::from(up == 2);
    }
    let m = share(&f, 1);
    assert!(m > 0.99, "{m}");
    let frac = alt as f64 / n as f64;
    assert!((0.45..0.55).contains(&frac), "{frac} of Interests diverted");
    // the congestion clears: the optimal path's share decays below severe and it takes
    // everything again
    for s in 3000..3100 {
        round_trip(&mut f, p, s, |_| false);
    }
    assert!(share(&f, 1) < 0.5);
    for s in 3100..3200 {
        assert_eq!(round_trip(&mut f, p, s, |_| false), 1);
    }
}

fn sig(seq: u64, rtt_ms: u64, marked: bool) -> DataSignal {
    DataSignal::one(seq, Duration::from_millis(rtt_ms), marked)
}

fn deliver(c: &mut CoopconConsumer, now_ms: u64, seq: u64, marked: bool) {
    let now = Instant(now_ms * 1_000_000);
    let s = sig(seq, 100, marked);
    c.on_data(now, &s);
    if marked {
        c.on_mark(now, &s);
    }
}

#[test]
fn the_consumer_starts_fast_then_decreases_gradually_once_per_srtt() {
    let mut c = CoopconConsumer::new(CoopconConsumerConfig::default());
    for s in 0..9 {
        deliver(&mut c, s, s, false);
    }
    assert_eq!(c.window, 10.0, "+1 per Data in slow start");
    assert_eq!(c.srtt, Some(0.1));
    deliver(&mut c, 10, 9, true);
    assert!((c.window - 9.0).abs() < 1e-12, "×0.9: {}", c.window);
    assert!(!c.slow_start);
    // another mark within one SRTT (100 ms) changes nothing
    deliver(&mut c, 100, 10, true);
    assert!((c.window - 9.0).abs() < 1e-12);
    assert_eq!(c.suppressed, 1);
    // an unmarked Data: +1/cwnd
    deliver(&mut c, 105, 11, false);
    assert!((c.window - (9.0 + 1.0 / 9.0)).abs() < 1e-12);
    // one SRTT after the decrease, a timeout decreases again
    let w = c.window;
    c.on_timeout(Instant(110 * 1_000_000), 12);
    assert!((c.window - 0.9 * w).abs() < 1e-12);
    assert_eq!(c.decreases, 2);
    // the floor
    let mut d = CoopconConsumer::new(CoopconConsumerConfig::default());
    d.on_timeout(Instant::ZERO, 0);
    assert_eq!(d.window, 1.0);
}

#[test]
fn the_consumer_srtt_skips_retransmitted_samples() {
    let mut c = CoopconConsumer::new(CoopconConsumerConfig::default());
    c.on_data(Instant::ZERO, &sig(0, 80, false));
    c.on_data(Instant::ZERO, &sig(1, 160, false));
    assert!((c.srtt.unwrap() - (0.875 * 0.08 + 0.125 * 0.16)).abs() < 1e-12);
    let mut r = sig(2, 900, false);
    r.retransmitted = true;
    let before = c.srtt;
    c.on_data(Instant::ZERO, &r);
    assert_eq!(c.srtt, before);
}
