//! ConsumerPcon's window law, conservative window adaptation and RTO, step by step and
//! through the two-node harness.

use super::*;

fn data(seq: u64, marked: bool, rtt_ms: u64) -> DataSignal {
    DataSignal::one(seq, Duration::from_millis(rtt_ms), marked)
}

/// What the consumer does with a Data: `on_data`, then `on_mark` when marked.
fn receive(c: &mut ConsumerPcon, now: Instant, seq: u64, marked: bool) {
    let sig = data(seq, marked, 20);
    c.on_data(now, &sig);
    if marked {
        c.on_mark(now, &sig);
    }
}

fn send(c: &mut ConsumerPcon, seqs: std::ops::Range<u64>) {
    for s in seqs {
        c.on_send(Instant::ZERO, s, false);
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn aimd_slow_start_halving_and_one_decrease_per_window() {
    let mut c = ConsumerPcon::new(ConsumerPconConfig::default());
    let t = Instant::ZERO;
    send(&mut c, 0..10);
    for s in 0..5 {
        receive(&mut c, t, s, false);
    }
    assert_eq!(c.window, 6.0, "slow start: +1 per Data from W_0 = 1");
    receive(&mut c, t, 5, true);
    assert_eq!((c.window, c.ssthresh), (3.0, 3.0));
    assert_eq!(c.rec_point, 12.5, "10 + 0.5·(10 − 5)");
    receive(&mut c, t, 6, true);
    assert_eq!(
        c.window, 3.0,
        "suppressed (6 ≤ 12.5), and a marked Data does not grow W"
    );
    send(&mut c, 10..15);
    receive(&mut c, t, 7, false);
    assert!(
        close(c.window, 3.0 + 1.0 / 3.0),
        "congestion avoidance from W = ssthresh"
    );
    c.on_timeout(t, 8);
    assert!(
        close(c.window, 10.0 / 3.0),
        "a timeout is gated too (7 ≤ 12.5)"
    );
    assert_eq!(c.retransmit(t, 8, Loss::Timeout), Some(true));
    receive(&mut c, t, 13, true);
    assert!(close(c.window, 5.0 / 3.0) && close(c.ssthresh, 5.0 / 3.0));
    assert_eq!(c.rec_point, 16.0, "15 + 0.5·(15 − 13)");
    assert_eq!((c.decreases, c.suppressed), (2, 2));
    // the window never goes below W_0 (ssthresh may)
    send(&mut c, 15..40);
    receive(&mut c, t, 20, true);
    assert_eq!(c.window, 1.0);
    assert!(close(c.ssthresh, 5.0 / 6.0));
    // without CWA every mark decreases
    let mut c = ConsumerPcon::new(ConsumerPconConfig {
        use_cwa: false,
        initial_window: 8.0,
        ..Default::default()
    });
    send(&mut c, 0..10);
    receive(&mut c, t, 1, true);
    receive(&mut c, t, 2, true);
    assert_eq!(c.window, 8.0, "halved twice, floored at W_0 = 8");
    assert_eq!(c.decreases, 2);
    // marks ignored when told to: neither decrease nor increase
    let mut c = ConsumerPcon::new(ConsumerPconConfig {
        react_to_marks: false,
        ..Default::default()
    });
    send(&mut c, 0..10);
    receive(&mut c, t, 1, true);
    assert_eq!((c.window, c.decreases), (1.0, 0));
}

#[test]
fn cubic_growth_from_the_last_decrease_and_its_decrease() {
    let mut c = ConsumerPcon::new(ConsumerPconConfig {
        cubic: true,
        ..Default::default()
    });
    let s = |x: f64| Instant((x * 1e9) as u64);
    send(&mut c, 0..10);
    for q in 0..5 {
        receive(&mut c, s(0.5), q, false);
    }
    assert_eq!(c.window, 6.0, "slow start below ssthresh = ∞");
    receive(&mut c, s(1.0), 5, true);
    assert_eq!(c.cubic_wmax, 6.0);
    assert!(close(c.window, 4.8) && close(c.ssthresh, 4.8), "β_c = 0.8");
    // 0.5 s later: K = ∛(6·0.2/0.4) = ∛3, W_cubic = 0.4·(0.5 − K)³ + 6 ≈ 5.66538
    receive(&mut c, s(1.5), 6, false);
    assert!((c.window - 4.980_29).abs() < 1e-5, "{}", c.window);
    // a window already above W_cubic does not grow (no TCP-friendly region)
    let mut d = c.clone();
    d.window = 5.9;
    receive(&mut d, s(1.5), 7, false);
    assert_eq!(d.window, 5.9);
    // suppressed within the window of Data (7 ≤ 12.5), timeouts included
    receive(&mut c, s(1.6), 7, true);
    c.on_timeout(s(1.7), 3);
    assert_eq!(c.decreases, 1);
    assert_eq!(c.suppressed, 2);
    // the next decrease: W_max = W (fast convergence off), ssthresh = 0.8·W
    send(&mut c, 10..20);
    let w = c.window;
    receive(&mut c, s(3.0), 13, true);
    assert!(close(c.cubic_wmax, w) && close(c.window, 0.8 * w));
    // with fast convergence a smaller W_max than the last one is lowered further
    let mut f = ConsumerPcon::new(ConsumerPconConfig {
        cubic: true,
        cubic_fast_convergence: true,
        use_cwa: false,
        ..Default::default()
    });
    send(&mut f, 0..20);
    for q in 0..9 {
        receive(&mut f, s(0.5), q, false);
    }
    assert_eq!(f.window, 10.0);
    receive(&mut f, s(1.0), 10, true); // W_max = 10, W = 8
    assert!(close(f.cubic_wmax, 10.0) && close(f.window, 8.0));
    receive(&mut f, s(1.1), 11, true); // 8 < 10·0.99: W_max = 8·(1 + 0.8)/2
    assert!(close(f.cubic_wmax, 7.2) && close(f.window, 6.4));
}

/// Two nodes, 10 ms each way. The producer's node marks the Data of seqs 30, 31, 32 and 100
/// and the first answer of seq 150 is lost: one decrease for the burst of marks (the others
/// are within the same window of Data), one for seq 100, one at seq 150's timeout, which is
/// re-expressed. AIMD halves W, CUBIC takes it to 0.8·W.
#[test]
fn harness_marks_and_a_timeout_with_conservative_window_adaptation() {
    use crate::face::{Face, FaceId};
    use crate::harness::TwoNode;
    use crate::packet::{Data, Packet};
    use crate::schemes::registry::Controller;
    use crate::schemes::{RouterHooks, RouterModule};

    #[derive(Debug)]
    struct MarkSeqs(Vec<u64>);
    impl RouterHooks for MarkSeqs {
        fn on_data_out(&mut self, _: Instant, _: FaceId, d: &mut Data, _: &[Face]) {
            if d.name.seq.is_some_and(|s| self.0.contains(&s)) {
                d.ext.mark = true;
            }
        }
    }

    for cubic in [false, true] {
        let cfg = ConsumerPconConfig {
            cubic,
            ..Default::default()
        };
        let mut h = TwoNode::new(
            Controller::Pcon(ConsumerPcon::new(cfg)),
            Duration::from_millis(10),
            1000,
            |_| {},
        );
        h.nodes[1]
            .fwd
            .core
            .set_module(RouterModule::Custom(Box::new(MarkSeqs(vec![
                30, 31, 32, 100,
            ]))));
        let mut lost = false;
        h.drop_when(move |_, p| match p {
            Packet::Data(d) if d.name.seq == Some(150) && !lost => {
                lost = true;
                true
            }
            _ => false,
        });
        let mut trace: Vec<(Instant, f64)> = Vec::new();
        h.run_until(Instant(Duration::from_secs(2).0), |h| {
            let w = h.consumer().target_window().unwrap();
            if trace.last().is_none_or(|&(_, last)| last != w) {
                trace.push((h.now, w));
            }
        });
        let cuts: Vec<(Instant, f64, f64)> = trace
            .windows(2)
            .filter(|p| p[1].1 < p[0].1)
            .map(|p| (p[1].0, p[0].1, p[1].1))
            .collect();
        assert_eq!(cuts.len(), 3, "cubic={cubic}: {cuts:?}");
        let factor = if cubic { 0.8 } else { 0.5 };
        for &(_, before, after) in &cuts {
            assert!(
                close(after, factor * before),
                "cubic={cubic}: {before} -> {after}"
            );
        }
        // slow start (+1 per Data) up to the first mark: 1 + 30 Data
        assert_eq!(cuts[0].1, 31.0);
        let Controller::Pcon(c) = &h.consumer().controller else {
            unreachable!()
        };
        assert_eq!((c.decreases, c.suppressed), (3, 2), "cubic={cubic}");
        let st = h.consumer().stats;
        assert_eq!((st.timeouts, st.retransmissions), (1, 1), "cubic={cubic}");
        // the timeout's cut comes one RTO (≥ 200 ms) after the others
        assert!(cuts[2].0.saturating_since(cuts[1].0) >= Duration::from_millis(200));
    }
}

/// ndnSIM's checks re-read the RTO: ten Interests time out together at 1 s (m = 64), are sent
/// again and answered at 1.03 s, and the new ones sent then go out under a 64·1 s RTO; the
/// sample at 1.05 s (20 ms) resets m and the RTO to 200 ms, so the next checks declare every Interest older
/// than 200 ms — seq 11 (sent at 1.03 s) at the check of 1.25 s, not 64 s after its send.
#[test]
fn an_interest_sent_at_multiplier_64_is_declared_once_a_sample_shrinks_the_rto() {
    use crate::app::bench::{s, Bench};
    use crate::schemes::registry::Controller;
    let cfg = ConsumerPconConfig {
        initial_window: 10.0,
        ..Default::default()
    };
    let mut b = Bench::new(Controller::Pcon(ConsumerPcon::new(cfg)), |_| {});
    b.run(
        s(2.0),
        |sent, seq, nth| match (seq, nth) {
            (0..=9, 1) => None,                                   // the first ten are lost
            (0..=9, _) => Some(sent + Duration::from_millis(30)), // their re-sends answered
            (10, _) => Some(s(1.05)),                             // the sample: 20 ms
            _ => None,                                            // the rest lost
        },
        |_| Duration::ZERO,
    );
    assert_eq!(b.sent_at(s(0.0)), (0..10).collect::<Vec<_>>());
    assert_eq!(b.sends_of(10), [s(1.03)]);
    assert_eq!(
        b.sends_of(11),
        [s(1.03), s(1.25)],
        "declared at 1.25 s, sent again"
    );
    assert!(b.c.stats.timeouts >= 11);
}

/// A Data for an Interest that already timed out, while its re-send waits for room in the
/// window: ndnSIM counts it (delay recorded with one send, the re-send cancelled, no RTT
/// sample). Slow start from W = 1 with 100 ms answers puts seqs 3..=6 out at 0.2 s; seq 3's
/// answer comes at 0.47 s, after its timeout at the check of 0.4 s (RTO 200 ms), which halves
/// W from 7 to 3.5 with six Interests (7..=12, answered at 0.5 s) still out: its re-send waits.
#[test]
fn a_late_data_answers_its_timed_out_interest_and_cancels_the_resend() {
    use crate::app::bench::{s, Bench};
    use crate::schemes::registry::Controller;
    let pcon = ConsumerPcon::new(ConsumerPconConfig::default());
    let mut b = Bench::new(Controller::Pcon(pcon), |c| c.max_seq = Some(13));
    b.run(
        s(2.0),
        |sent, seq, nth| match (seq, nth) {
            (3, 1) => Some(s(0.47)),
            (7.., 1) => Some(s(0.5)),
            _ => Some(sent + Duration::from_millis(100)),
        },
        |_| Duration::ZERO,
    );
    assert_eq!(b.sent_at(s(0.2)), [3, 4, 5, 6]);
    assert_eq!(b.sent_at(s(0.3)), [7, 8, 9, 10, 11, 12]);
    assert_eq!(b.c.stats.timeouts, 1);
    assert_eq!(
        b.sends_of(3),
        [s(0.2)],
        "the late Data cancelled seq 3's re-send"
    );
    let r =
        b.c.delays
            .iter()
            .find(|r| r.seq == 3)
            .expect("seq 3 answered");
    assert_eq!((r.time, r.transmissions), (s(0.47), 1));
    assert_eq!((b.c.stats.completed, b.c.stats.late_data), (13, 0));
    let Controller::Pcon(p) = &b.c.controller else {
        unreachable!()
    };
    assert_eq!(p.decreases, 1);
    assert!(
        p.window > 3.5,
        "the late Data grew the window: {}",
        p.window
    );
}

/// ndnSIM compares its in-flight count with W itself: W = 2.5 keeps three Interests out, not
/// ⌊W⌋ = 2.
#[test]
fn a_fractional_window_sends_while_in_flight_is_below_w() {
    use crate::app::bench::{s, Bench};
    use crate::schemes::registry::Controller;
    let cfg = ConsumerPconConfig {
        initial_window: 2.5,
        ..Default::default()
    };
    let mut b = Bench::new(Controller::Pcon(ConsumerPcon::new(cfg)), |_| {});
    b.run(s(0.5), |_, _, _| None, |_| Duration::ZERO);
    assert_eq!(b.sent_at(s(0.0)), [0, 1, 2]);
}

/// On a real clock every wake-up lands after the instant asked for (here 7 ms): a check that
/// wakes late still declares what is due, at the instant it wakes.
#[test]
fn checks_that_wake_off_the_50_ms_grid_still_declare_timeouts() {
    use crate::app::bench::{s, Bench};
    use crate::schemes::registry::Controller;
    let mut b = Bench::new(
        Controller::Pcon(ConsumerPcon::new(ConsumerPconConfig::default())),
        |_| {},
    );
    b.run(
        s(1.2),
        |sent, seq, nth| (seq != 0 || nth > 1).then_some(sent + Duration::from_millis(20)),
        |_| Duration::from_millis(7),
    );
    assert!(b.wakes.iter().all(|&(a, f)| f > a), "every wake-up late");
    assert_eq!(b.c.stats.timeouts, 1);
    assert_eq!(
        b.sends_of(0),
        [s(0.0), s(1.007)],
        "declared at the late wake-up after 1 s"
    );
}
