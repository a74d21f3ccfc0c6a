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

#[test]
fn rto_follows_ndnsim_with_back_off() {
    let mut c = ConsumerPcon::new(ConsumerPconConfig::default());
    let t = Instant::ZERO;
    assert_eq!(
        c.current_rto(),
        Duration::from_secs(1),
        "1 s before any sample"
    );
    c.on_data(t, &data(0, false, 100));
    assert!(close(c.current_rto().as_secs_f64(), 0.1 + 4.0 * 0.05));
    c.on_data(t, &data(1, false, 200));
    // srtt = 0.1 + 0.1/8, var = 0.05 + (0.1 − 0.05)/4
    assert!(close(c.current_rto().as_secs_f64(), 0.1125 + 4.0 * 0.0625));
    c.on_timeout(t, 2);
    assert!(close(c.current_rto().as_secs_f64(), 2.0 * 0.3625));
    for _ in 0..10 {
        c.on_timeout(t, 2);
    }
    assert_eq!(c.multiplier, 64);
    assert!(close(c.current_rto().as_secs_f64(), 64.0 * 0.3625));
    // Karn: a retransmitted Interest's Data gives no sample and keeps the back-off
    let mut r = data(2, false, 5000);
    r.retransmitted = true;
    c.on_data(t, &r);
    assert_eq!(c.multiplier, 64);
    // a valid sample resets it; the floor is min_rto·m
    c.on_data(t, &data(3, false, 1));
    assert_eq!(c.multiplier, 1);
    let mut small = ConsumerPcon::new(ConsumerPconConfig::default());
    small.on_data(t, &data(0, false, 1));
    assert_eq!(small.current_rto(), Duration::from_millis(200));
    small.on_timeout(t, 1);
    assert_eq!(small.current_rto(), Duration::from_millis(400));
    // the ceiling
    let mut big = ConsumerPcon::new(ConsumerPconConfig::default());
    big.on_data(t, &data(0, false, 100_000)); // 100 s + 4·50 s
    assert_eq!(big.current_rto(), Duration::from_secs(200));
    assert_eq!(c.rto(&RttEstimator::default()), Some(c.current_rto()));
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

/// ndnSIM's timeout check: every 50 ms from the start, against the RTO read at that check (once
/// per check, before its timeouts double m); an Interest whose send + RTO is later waits for the
/// first check after it.
#[test]
fn timeouts_are_declared_at_50_ms_checks_against_the_current_rto() {
    let ms = |x: u64| Instant(x * 1_000_000);
    let mut c = ConsumerPcon::new(ConsumerPconConfig::default());
    let est = RttEstimator::default();
    c.on_data(ms(0), &data(0, false, 100)); // RTO 300 ms
                                            // the timer set at the send (1 010 ms + 300 ms) fires between checks: put off to 1 350 ms
    assert_eq!(c.timeout_at(ms(1310), 1, ms(1010), &est), Some(ms(1350)));
    assert_eq!(c.timeout_at(ms(1350), 1, ms(1010), &est), None);
    c.on_timeout(ms(1350), 1); // m = 2: RTO 600 ms from now on
                               // the same check reads the RTO it started with: 1 020 + 300 ≤ 1 350
    assert_eq!(c.timeout_at(ms(1350), 2, ms(1020), &est), None);
    c.on_timeout(ms(1350), 2); // m = 4
                               // the next check reads the backed-off RTO (1 200 ms): put off to the check after 2 280 ms
    assert_eq!(c.timeout_at(ms(1400), 3, ms(1080), &est), Some(ms(2300)));
    // exact deadlines with check_interval = 0
    let mut e = ConsumerPcon::new(ConsumerPconConfig {
        check_interval: Duration::ZERO,
        ..Default::default()
    });
    e.on_data(ms(0), &data(0, false, 100));
    e.on_timeout(ms(1000), 0); // m = 2: a later RTO does not delay a timer already set
    assert_eq!(e.timeout_at(ms(1310), 1, ms(1010), &est), None);
}
