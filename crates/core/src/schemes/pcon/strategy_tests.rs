//! The PCON strategy's ratio law, pick, probing and reactions, on one forwarder.

use super::*;
use crate::forwarder::Forwarder;
use crate::packet::Packet;
use crate::schemes::testkit::{self, data, interest, weights};
use crate::schemes::RouterModule;

/// Downstream face 0, upstream faces 1.. with the given costs; returns the forwarder and the
/// prefix.
fn node(cfg: PconStrategyConfig, costs: &[u32]) -> (Forwarder, NameId) {
    node_seeded(cfg, costs, 7)
}

/// As [`node`], with the run seed `seed`.
fn node_seeded(cfg: PconStrategyConfig, costs: &[u32], seed: u64) -> (Forwarder, NameId) {
    let strategy = |rng| PconStrategy::new(cfg, rng);
    testkit::node(strategy, RouterModule::None, costs, seed)
}

/// Drains every upstream queue; returns how many Interests each face (index) sent.
fn drain(f: &mut Forwarder, now: Instant) -> Vec<u64> {
    let n = f.faces().len();
    let mut sent = vec![0; n];
    for (k, s) in sent.iter_mut().enumerate() {
        while let Some(p) = f.poll_transmit(now, FaceId(k as u32)) {
            if matches!(p, Packet::Interest(_)) {
                *s += 1;
            }
        }
    }
    sent
}

fn ratios(f: &Forwarder) -> Vec<f64> {
    f.faces()
        .iter()
        .skip(1)
        .map(|face| {
            let mut g = [f64::NAN];
            f.strategy.face_gauges(face.id, &mut g);
            g[0]
        })
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
}

/// One Interest answered by a (marked) Data on the face it went out on.
fn round_trip(f: &mut Forwarder, prefix: NameId, seq: u64, mark: bool) -> usize {
    let now = Instant(seq * 1000);
    f.handle_interest(now, FaceId(0), interest(prefix, seq));
    let sent = drain(f, now);
    let up = sent.iter().position(|&s| s > 0).expect("sent upstream");
    f.handle_data(now, FaceId(up as u32), data(prefix, seq, mark));
    drain(f, now);
    up
}

#[test]
fn starts_on_the_cheapest_and_shifts_two_percent_of_p_per_marked_data() {
    let (mut f, p) = node(
        PconStrategyConfig {
            probe: 0.0,
            ..Default::default()
        },
        &[5, 1, 5],
    );
    assert!(
        ratios(&f).iter().all(|r| r.is_nan()),
        "no ratios before traffic"
    );
    // face 2 (cost 1) takes everything
    assert_eq!(round_trip(&mut f, p, 0, false), 2);
    assert!(close(&ratios(&f), &[0.0, 1.0, 0.0]));
    // a marked Data from face 2: Δ = 0.02·1, split over faces 1 and 3
    round_trip(&mut f, p, 1, true);
    assert!(close(&ratios(&f), &[0.01, 0.98, 0.01]));
    // the FIB weights mirror the ratios
    let w = weights(&f, p);
    assert!(close(&w, &[0.98, 0.01, 0.01]), "{w:?} (cost order)");
    // unmarked Data changes nothing
    f.handle_interest(Instant(5000), FaceId(0), interest(p, 2));
    let sent = drain(&mut f, Instant(5000));
    let up = sent.iter().position(|&s| s > 0).unwrap();
    f.handle_data(Instant(5000), FaceId(up as u32), data(p, 2, false));
    let before = ratios(&f);
    // a second marked Data on face 2 takes 2 % of 0.98
    let mut seq = 3;
    loop {
        let up = round_trip(&mut f, p, seq, false);
        seq += 1;
        if up == 2 {
            break;
        }
    }
    assert!(close(&ratios(&f), &before));
    f.handle_interest(Instant(9000), FaceId(0), interest(p, 100));
    let sent = drain(&mut f, Instant(9000));
    let up = sent.iter().position(|&s| s > 0).unwrap();
    f.handle_data(Instant(9000), FaceId(up as u32), data(p, 100, true));
    let d = 0.02 * before[up - 1];
    let mut want = before.clone();
    for (k, w) in want.iter_mut().enumerate() {
        *w += if k == up - 1 { -d } else { d / 2.0 };
    }
    assert!(close(&ratios(&f), &want), "{:?} vs {want:?}", ratios(&f));
}

#[test]
fn an_expired_interest_moves_two_percent_absolute_from_its_face() {
    let (mut f, p) = node(
        PconStrategyConfig {
            probe: 0.0,
            ..Default::default()
        },
        &[1, 2],
    );
    f.handle_interest(Instant(0), FaceId(0), interest(p, 0));
    drain(&mut f, Instant(0));
    assert!(close(&ratios(&f), &[1.0, 0.0]));
    // the lifetime (1 s) passes unanswered
    let t = f.poll_timeout().unwrap();
    f.on_timeout(t);
    assert!(close(&ratios(&f), &[0.98, 0.02]));
    assert_eq!(f.core.counters.timed_out, 1);
}

#[test]
fn interests_follow_the_ratios_and_probes_duplicate_on_every_other_hop() {
    let (mut f, p) = node(
        PconStrategyConfig {
            probe: 0.0,
            ..Default::default()
        },
        &[1, 2],
    );
    // 25 marked Data from face 1: p_1 = 0.98^25
    // (an Interest that went to face 2 is answered unmarked: it moves nothing)
    let (mut marks, mut s) = (0, 0);
    while marks < 25 {
        let now = Instant(s * 1000);
        f.handle_interest(now, FaceId(0), interest(p, s));
        let up = drain(&mut f, now).iter().position(|&k| k > 0).unwrap();
        f.handle_data(now, FaceId(up as u32), data(p, s, up == 1));
        marks += u32::from(up == 1);
        s += 1;
    }
    let p1 = 0.98f64.powi(25);
    assert!(close(&ratios(&f), &[p1, 1.0 - p1]));
    let n = 20_000u64;
    let mut on1 = 0;
    for s in 100..100 + n {
        f.handle_interest(Instant(s), FaceId(0), interest(p, s));
        let sent = drain(&mut f, Instant(s));
        assert_eq!(
            sent.iter().sum::<u64>(),
            1,
            "one face per Interest without probing"
        );
        on1 += sent[1];
    }
    let share = on1 as f64 / n as f64;
    let sigma = (p1 * (1.0 - p1) / n as f64).sqrt();
    assert!((share - p1).abs() < 4.0 * sigma, "{share} vs {p1}");

    // probing always: every Interest goes out on both next hops
    let (mut f, p) = node(
        PconStrategyConfig {
            probe: 1.0,
            ..Default::default()
        },
        &[1, 2],
    );
    f.handle_interest(Instant(0), FaceId(0), interest(p, 0));
    assert_eq!(drain(&mut f, Instant(0)), [0, 1, 1]);
    // the default probability 0.001: about 20 probes in 20 000 Interests
    let (mut f, p) = node(PconStrategyConfig::default(), &[1, 2]);
    let mut dup = 0;
    for s in 0..n {
        f.handle_interest(Instant(s), FaceId(0), interest(p, s));
        dup += u64::from(drain(&mut f, Instant(s)).iter().sum::<u64>() == 2);
    }
    assert!((5..=40).contains(&dup), "{dup} probes");
}

#[test]
fn marked_data_from_a_local_face_or_with_one_next_hop_moves_nothing() {
    let (mut f, p) = node(PconStrategyConfig::default(), &[1]);
    round_trip(&mut f, p, 0, true);
    assert!(close(&ratios(&f), &[1.0]), "a single next hop keeps 100 %");
}

#[test]
fn the_same_seed_draws_the_same_choices_and_another_seed_others() {
    // probe 0.5 on two next hops: each Interest draws once; whether it is duplicated (r <= 0.5)
    // and, once the ratios are split, which face it takes both come from that draw
    let choices = |seed: u64| {
        let (mut f, p) = node_seeded(
            PconStrategyConfig {
                probe: 0.5,
                ..Default::default()
            },
            &[1, 2],
            seed,
        );
        let mut out = Vec::new();
        for s in 0..128u64 {
            let now = Instant(s * 1000);
            f.handle_interest(now, FaceId(0), interest(p, s));
            let sent = drain(&mut f, now);
            let up = sent.iter().position(|&k| k > 0).unwrap();
            // answered marked: the ratios move off [1, 0], so the pick is a draw too
            f.handle_data(now, FaceId(up as u32), data(p, s, true));
            drain(&mut f, now);
            out.push(sent);
        }
        out
    };
    let a = choices(7);
    assert_eq!(a, choices(7), "same seed, same choices");
    let b = choices(8);
    assert_ne!(a, b, "seeds 7 and 8 drew the same 128 choices");
    assert_ne!(b, choices(9), "seeds 8 and 9 drew the same 128 choices");
    assert!(
        a.iter().any(|s| s[1..].iter().sum::<u64>() == 2)
            && a.iter().any(|s| s[1..].iter().sum::<u64>() == 1),
        "both outcomes occur: the draws matter"
    );
}
