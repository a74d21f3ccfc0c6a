//! Unit tests of FleCom-recon's formulas (sojourn trend, shaping, ratio shift, the window cut
//! sized by the congestion level) and of the multipath-or-shaping choice on one forwarder.

use super::consumer::cut_factor;
use super::router::projected;
use super::strategy::shift_ratio;
use super::*;
use crate::app::controller::{CongestionController, DataSignal};
use crate::face::{Face, FaceId, FaceKind, QueueLimit};
use crate::forwarder::Forwarder;
use crate::name::NameId;
use crate::packet::Packet;
use crate::schemes::testkit::{self, data, interest, weights};
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks, RouterModule};
use crate::time::{Duration, Instant};

const P: NameId = NameId(1);

fn ms(t: u64) -> Instant {
    Instant(t * 1_000_000)
}

fn faces() -> Vec<Face> {
    (0..2)
        .map(|k| {
            Face::new(
                FaceId(k),
                FaceKind::Net {
                    peer: k + 1,
                    link: k,
                },
                QueueLimit::Packets(100),
            )
        })
        .collect()
}

/// `n` Data leave face 0 with sojourn `sojourn_ms`; returns how many left marked.
fn leave(r: &mut FlecomRouter, faces: &[Face], n: u32, sojourn_ms: f64) -> u32 {
    let mut marked = 0;
    for k in 0..n {
        let mut p = Packet::Data(data(P, k.into(), false));
        let s = Duration::from_secs_f64(sojourn_ms / 1e3);
        r.on_dequeue(Instant::ZERO, FaceId(0), &mut p, s, faces);
        marked += u32::from(matches!(p, Packet::Data(d) if d.ext.mark));
    }
    marked
}

#[test]
fn the_projection_follows_the_trend_one_window_ahead() {
    assert_eq!(projected(4.0, 2.0), 6.0);
    assert_eq!(projected(8.0, 10.0), 6.0);
    assert_eq!(projected(3.0, 3.0), 3.0);
}

#[test]
fn a_rising_sojourn_below_target_is_congestion_a_falling_one_above_is_not() {
    let mut r = FlecomRouter::new(FlecomRouterConfig::default()); // 20 ms windows, 5 ms target
    let f = faces();
    // window 1: 2 ms; window 2: 4 ms (below the target, rising by 2: ŝ = 6 ms)
    assert_eq!(leave(&mut r, &f, 10, 2.0), 0);
    r.on_timeout(ms(20), &f);
    assert!(!r.congested(FaceId(0)), "ŝ = 4 ms");
    assert_eq!(leave(&mut r, &f, 10, 4.0), 0);
    r.on_timeout(ms(40), &f);
    let (s, p) = r.sojourn(FaceId(0));
    assert!(
        (s - 0.004).abs() < 1e-12 && (p - 0.006).abs() < 1e-12,
        "{s} {p}"
    );
    assert!(r.congested(FaceId(0)));
    // while congested every Data leaving is marked
    assert_eq!(leave(&mut r, &f, 10, 9.0), 10);
    r.on_timeout(ms(60), &f);
    // 9 ms → 6.5 ms: above the target but falling fast (ŝ = 4 ms): not congested (the Data
    // of this window still leave marked: the last window said congested)
    assert_eq!(leave(&mut r, &f, 10, 6.5), 10);
    r.on_timeout(ms(80), &f);
    assert!(!r.congested(FaceId(0)), "{:?}", r.sojourn(FaceId(0)));
    // a standing sojourn above the target is congestion (ŝ = s)
    assert_eq!(leave(&mut r, &f, 10, 6.5), 0);
    r.on_timeout(ms(100), &f);
    assert!(r.congested(FaceId(0)));
    // a window without Data counts as sojourn 0
    r.on_timeout(ms(120), &f);
    assert!(!r.congested(FaceId(0)));
    assert_eq!(r.sojourn(FaceId(0)).0, 0.0);
}

fn release_all(r: &mut FlecomRouter) -> Vec<u64> {
    let mut v = Vec::new();
    while let Some(a) = r.poll_action() {
        match a {
            ModuleAction::SendInterest { face, interest } => {
                assert_eq!(face, FaceId(1));
                v.push(interest.name.seq.expect("a sequence"));
            }
            other => panic!("{other:?}"),
        }
    }
    v
}

#[test]
fn shaping_paces_interests_at_a_share_of_the_data_rate_then_lets_the_rest_go() {
    let mut r = FlecomRouter::new(FlecomRouterConfig::default());
    let mut f = faces();
    // no Data received yet: nothing to shape to
    assert!(!r.shape(ms(0), FaceId(1)));
    // 20 Data in the 20 ms window on face 1: 1000 Data/s; shaping at 0.9 of it
    for k in 0..20 {
        r.on_data_in(ms(1), FaceId(1), P, &mut data(P, k, false), None, &f);
    }
    r.on_timeout(ms(20), &f);
    assert!(r.shape(ms(20), FaceId(1)));
    assert!((r.shaping_rate(ms(20), FaceId(1)).unwrap() - 900.0).abs() < 1e-9);
    assert_eq!(r.shaping_rate(ms(20), FaceId(0)), None);
    let gap = Duration::from_secs_f64(1.0 / 900.0);
    let out = |r: &mut FlecomRouter, t: Instant, s: u64, f: &[Face]| {
        r.on_interest_out(t, FaceId(1), P, &interest(P, s), f)
    };
    assert_eq!(out(&mut r, ms(20), 0, &f), InterestVerdict::Admit);
    assert_eq!(out(&mut r, ms(20), 1, &f), InterestVerdict::Hold);
    assert_eq!(out(&mut r, ms(20), 2, &f), InterestVerdict::Hold);
    // face 0 is not shaped
    assert_eq!(
        r.on_interest_out(ms(20), FaceId(0), P, &interest(P, 9), &f),
        InterestVerdict::Admit
    );
    // one leaves per 1/r, in order
    let t1 = ms(20) + gap;
    assert_eq!(r.poll_timeout(), Some(t1));
    r.on_timeout(Instant(t1.0 - 1), &f);
    assert!(release_all(&mut r).is_empty());
    r.on_timeout(t1, &f);
    assert_eq!(release_all(&mut r), [1]);
    // a further request keeps the rate (no compounding) and extends the shaping
    for k in 0..5 {
        r.on_data_in(ms(21), FaceId(1), P, &mut data(P, k, false), None, &f);
    }
    r.on_timeout(ms(40), &f); // the window's Data rate is now 250 Data/s
    assert_eq!(release_all(&mut r), [2]);
    assert!(r.shape(ms(40), FaceId(1)));
    assert!((r.shaping_rate(ms(40), FaceId(1)).unwrap() - 900.0).abs() < 1e-9);
    // a full shaping queue refuses
    let mut small = FlecomRouter::new(FlecomRouterConfig {
        shape_queue: 1,
        ..Default::default()
    });
    for k in 0..20 {
        small.on_data_in(ms(1), FaceId(1), P, &mut data(P, k, false), None, &f);
    }
    small.on_timeout(ms(20), &f);
    small.shape(ms(20), FaceId(1));
    assert_eq!(out(&mut small, ms(20), 0, &f), InterestVerdict::Admit);
    assert_eq!(out(&mut small, ms(20), 1, &f), InterestVerdict::Hold);
    assert_eq!(out(&mut small, ms(20), 2, &f), InterestVerdict::Drop);
    assert_eq!(small.refused, 1);
    // when the shaping ends (100 ms after the last request) the waiting ones go at once
    for s in 10..14 {
        assert_eq!(out(&mut r, ms(40), s, &f), InterestVerdict::Hold);
    }
    r.on_timeout(ms(140), &f);
    assert_eq!(release_all(&mut r), [10, 11, 12, 13]);
    assert_eq!(r.shaping_rate(ms(140), FaceId(1)), None);
    assert_eq!(out(&mut r, ms(140), 20, &f), InterestVerdict::Admit);
    f.truncate(2);
}

#[test]
fn a_marked_data_moves_a_share_of_its_ratio_to_the_uncongested_alternatives() {
    // (face, p, m)
    let mut hops = [
        (FaceId(1), 0.8, 0.5),
        (FaceId(2), 0.2, 0.0),
        (FaceId(3), 0.0, 0.05),
    ];
    assert!(shift_ratio(&mut hops, 0, 0.05, 0.1));
    let want = [0.8 - 0.04, 0.2 + 0.02, 0.02];
    for (h, w) in hops.iter().zip(want) {
        assert!((h.1 - w).abs() < 1e-12, "{hops:?}");
    }
    // an alternative at or above `free` takes nothing
    let mut hops = [(FaceId(1), 0.8, 0.5), (FaceId(2), 0.2, 0.1)];
    assert!(!shift_ratio(&mut hops, 0, 0.05, 0.1));
    assert_eq!(hops[0].1, 0.8);
}

/// Downstream face 0, upstream faces 1.. with the given costs, the FleCom-recon strategy
/// (g = 0.05, shift 0.05) and router module.
fn node(costs: &[u32]) -> (Forwarder, NameId) {
    let cfg = FlecomStrategyConfig {
        gain: 0.05,
        shift: 0.05,
        ..Default::default()
    };
    let strategy = |rng| FlecomStrategy::new(cfg, rng);
    let module = RouterModule::FlecomRecon(FlecomRouter::new(Default::default()));
    testkit::node(strategy, module, costs, 5)
}

/// One Interest at `now`, answered on the face it left on (marked if `mark(face)`); the
/// face, or None if the module held it.
fn round_trip(
    f: &mut Forwarder,
    p: NameId,
    seq: u64,
    now: Instant,
    mark: impl Fn(u32) -> bool,
) -> Option<u32> {
    f.handle_interest(now, FaceId(0), interest(p, seq));
    let mut up = None;
    for k in 1..f.faces().len() as u32 {
        while let Some(pk) = f.poll_transmit(now, FaceId(k)) {
            if matches!(pk, Packet::Interest(_)) {
                up = Some(k);
            }
        }
    }
    let k = up?;
    f.handle_data(now, FaceId(k), data(p, seq, mark(k)));
    while f.poll_transmit(now, FaceId(0)).is_some() {}
    Some(k)
}

fn gauges(f: &Forwarder, face: u32) -> [f64; 2] {
    let mut g = [f64::NAN; 2];
    f.strategy.face_gauges(FaceId(face), &mut g);
    g
}

fn module(f: &Forwarder) -> &FlecomRouter {
    match f.core.module() {
        RouterModule::FlecomRecon(m) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn with_an_uncongested_alternative_marks_move_traffic_without_one_they_shape() {
    // two next hops: a marked Data from face 1 moves 5 % of its ratio to face 2
    let (mut f, p) = node(&[1, 5]);
    assert_eq!(round_trip(&mut f, p, 0, ms(0), |_| true), Some(1));
    assert!((gauges(&f, 1)[0] - 0.95).abs() < 1e-12);
    assert!((gauges(&f, 2)[0] - 0.05).abs() < 1e-12);
    assert!((gauges(&f, 1)[1] - 0.05).abs() < 1e-12, "marked share g·1");
    assert_eq!(module(&f).shapings, 0);
    // the FIB weights mirror the ratios (weighted tools read them)
    let w = weights(&f, p);
    assert!((w[0] - 0.95).abs() < 1e-12 && (w[1] - 0.05).abs() < 1e-12);
    // once both next hops return marks, a mark shapes instead of moving
    let mut seq = 1;
    while gauges(&f, 2)[1] < 0.1 || gauges(&f, 1)[1] < 0.1 {
        round_trip(&mut f, p, seq, ms(1), |_| true);
        seq += 1;
    }
    let ratios = (gauges(&f, 1)[0], gauges(&f, 2)[0]);
    f.on_timeout(ms(20)); // a window with Data received: a rate to shape to
    round_trip(&mut f, p, seq, ms(20), |_| true);
    assert_eq!(module(&f).shapings, 1);
    assert_eq!(
        (gauges(&f, 1)[0], gauges(&f, 2)[0]),
        ratios,
        "no ratio moved"
    );

    // one next hop (the dumbbell): marks shape at once
    let (mut g, p) = node(&[1]);
    for s in 0..10 {
        round_trip(&mut g, p, s, ms(1), |_| false);
    }
    g.on_timeout(ms(20));
    round_trip(&mut g, p, 10, ms(20), |_| true);
    assert_eq!(module(&g).shapings, 1);
    let rate = module(&g).shaping_rate(ms(20), FaceId(1)).unwrap();
    assert!((rate - 0.9 * 10.0 / 0.02).abs() < 1e-9, "{rate}");
    // the next Interests wait for the pace
    assert_eq!(round_trip(&mut g, p, 11, ms(20), |_| false), Some(1));
    assert_eq!(round_trip(&mut g, p, 12, ms(20), |_| false), None, "held");
}

fn sig(seq: u64, marked: bool) -> DataSignal {
    DataSignal::one(seq, Duration::from_millis(100), marked)
}

fn deliver(c: &mut FlecomConsumer, seq: u64, marked: bool) {
    let s = sig(seq, marked);
    c.on_data(Instant::ZERO, &s);
    if marked {
        c.on_mark(Instant::ZERO, &s);
    }
}

#[test]
fn the_cut_is_sized_by_the_congestion_level() {
    assert_eq!(cut_factor(1.0), 0.5);
    assert_eq!(cut_factor(0.0), 1.0);
    assert_eq!(cut_factor(0.25), 0.875);
    let mut c = FlecomConsumer::new(FlecomConsumerConfig::default());
    for s in 0..7 {
        deliver(&mut c, s, false);
    }
    assert_eq!(c.window, 8.0, "slow start");
    // three observation windows closed without marks (1, 2 and 4 Data): α = α₀·(15/16)³
    let alpha = (1.0f64 - 0.0625).powi(3);
    assert!((c.alpha - alpha).abs() < 1e-12, "{}", c.alpha);
    // the first mark in slow start: cut at once by 1 − α/2
    deliver(&mut c, 7, true);
    assert!(
        (c.window - 8.0 * (1.0 - alpha / 2.0)).abs() < 1e-12,
        "{}",
        c.window
    );
    assert!(!c.slow_start);
    assert_eq!(c.decreases, 1);
    // a window of 4 Data with one mark: F = 1/4
    let mut c = FlecomConsumer::new(FlecomConsumerConfig {
        initial_window: 4.0,
        initial_alpha: 0.0,
        ..Default::default()
    });
    c.slow_start = false;
    let w0 = c.window;
    deliver(&mut c, 0, false);
    deliver(&mut c, 1, false);
    deliver(&mut c, 2, false);
    let w3 = w0 + 1.0 / w0;
    let w3 = w3 + 1.0 / w3;
    let w3 = w3 + 1.0 / w3;
    assert!((c.window - w3).abs() < 1e-12);
    deliver(&mut c, 3, true); // the window's 4th Data closes it: α = g·1/4
    let alpha = 0.0625 * 0.25;
    assert!((c.alpha - alpha).abs() < 1e-12);
    assert!(
        (c.window - w3 * (1.0 - alpha / 2.0)).abs() < 1e-12,
        "{}",
        c.window
    );
    // a window without marks: α decays, no cut
    let w = c.window;
    let n = w.ceil() as u64;
    for s in 0..n {
        deliver(&mut c, 10 + s, false);
    }
    assert!((c.alpha - alpha * (1.0 - 0.0625)).abs() < 1e-12);
    assert!(c.window > w);
    assert_eq!(c.decreases, 1);
}

#[test]
fn a_timeout_halves_once_per_observation_window() {
    let mut c = FlecomConsumer::new(FlecomConsumerConfig {
        initial_window: 10.0,
        ..Default::default()
    });
    c.on_timeout(Instant::ZERO, 0);
    assert_eq!(c.window, 5.0);
    c.on_timeout(Instant::ZERO, 1);
    assert_eq!(c.window, 5.0, "once per window");
    assert!(!c.slow_start);
    // after the observation window (10 Data) closes, a timeout halves again; the window's
    // marks are none, so the close itself cuts nothing
    for s in 0..10 {
        deliver(&mut c, s, false);
    }
    let w = c.window;
    c.on_timeout(Instant::ZERO, 2);
    assert!((c.window - w / 2.0).abs() < 1e-12);
    let mut floor = FlecomConsumer::new(FlecomConsumerConfig::default());
    floor.on_timeout(Instant::ZERO, 0);
    assert_eq!(floor.window, 1.0);
}
