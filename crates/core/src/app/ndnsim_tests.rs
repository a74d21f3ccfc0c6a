//! ndnSIM's consumer machinery: the estimator's arithmetic, and ConsumerCbr's timeouts and
//! re-sends through a hand-driven consumer.

use super::*;
use crate::app::bench::{s, Bench};
use crate::app::controller::NdnsimCbr;
use crate::schemes::registry::Controller;

fn close(a: Duration, b: f64) -> bool {
    (a.as_secs_f64() - b).abs() < 1e-9
}

#[test]
fn mean_deviation_estimator_as_ndnsim() {
    let mut e = RttMeanDeviation::new(&NdnsimRetxConfig::default());
    assert_eq!(e.rto(), Duration::from_secs(1), "1 s before any sample");
    e.increase_multiplier();
    assert_eq!(
        e.rto(),
        Duration::from_secs(2),
        "m applies before any sample too"
    );
    e.sample(Duration::from_millis(100));
    assert_eq!(e.multiplier, 1, "a sample resets m");
    assert!(
        close(e.rto(), 0.1 + 4.0 * 0.05),
        "first: SRTT = r, deviation = r/2"
    );
    e.sample(Duration::from_millis(200));
    // SRTT = 0.1 + 0.1/8, deviation = 0.05 + (0.1 − 0.05)/4
    assert!(close(e.rto(), 0.1125 + 4.0 * 0.0625));
    e.increase_multiplier();
    assert!(close(e.rto(), 2.0 * 0.3625));
    for _ in 0..10 {
        e.increase_multiplier();
    }
    assert_eq!(e.multiplier, 64, "capped at MaxMultiplier");
    assert!(close(e.rto(), 64.0 * 0.3625));
    let mut small = RttMeanDeviation::new(&NdnsimRetxConfig::default());
    small.sample(Duration::from_millis(1));
    assert_eq!(small.rto(), Duration::from_millis(200), "MinRTO");
    small.increase_multiplier();
    assert_eq!(small.rto(), Duration::from_millis(400), "MinRTO·m");
    let mut big = RttMeanDeviation::new(&NdnsimRetxConfig::default());
    big.sample(Duration::from_secs(100));
    assert_eq!(big.rto(), Duration::from_secs(200), "MaxRTO");
    big.reset();
    assert_eq!(big.rto(), Duration::from_secs(1));
}

/// The estimator's state, bit for bit, is ndnSIM's incremental form on samples in seconds,
/// as written before the arithmetic moved into `MeanDeviation`; its RTO and SRTT follow.
#[test]
fn mean_deviation_keeps_the_incremental_form_bit_for_bit() {
    let cfg = NdnsimRetxConfig::default();
    let mut e = RttMeanDeviation::new(&cfg);
    let (mut srtt, mut var, mut first) = (cfg.initial_rtt.as_secs_f64(), 0.0_f64, true);
    for (k, ns) in crate::mechanisms::rtt_estimator::tests::samples_ns(5_000)
        .into_iter()
        .enumerate()
    {
        e.sample(Duration(ns));
        let m = Duration(ns).as_secs_f64();
        if first {
            (srtt, var, first) = (m, m / 2.0, false);
        } else {
            let err = m - srtt;
            srtt += 0.125 * err;
            var += 0.25 * (err.abs() - var);
        }
        let t = e.est.timeout().unwrap();
        assert_eq!(t.to_bits(), (srtt + 4.0 * var).to_bits(), "sample {k}");
        for _ in 0..k % 4 {
            e.increase_multiplier();
        }
        let mult = f64::from(e.multiplier);
        let rto = (mult * (srtt + 4.0 * var)).max(mult * 0.2).min(200.0);
        assert_eq!(e.rto(), Duration::from_secs_f64(rto), "sample {k}");
        assert_eq!(e.srtt(), Duration::from_secs_f64(srtt));
    }
}

/// The checks: every 50 ms from 0, the RTO read once per check (its own timeouts double m
/// after the read), every outstanding Interest of age ≥ that RTO declared, oldest first.
#[test]
fn a_check_reads_the_rto_once_and_declares_every_interest_due() {
    let mut n = NdnsimRetx::new(NdnsimRetxConfig::default());
    assert_eq!(n.poll_timeout(), None, "nothing outstanding");
    for (t, q) in [(0.01, 0), (0.02, 1), (0.03, 2)] {
        n.on_send(s(t), q);
    }
    n.rtt.sample(Duration::from_millis(100)); // RTO 300 ms
    assert_eq!(n.poll_timeout(), Some(s(0.05)));
    assert!(
        n.check(s(0.3), |_, _| true).is_empty(),
        "0.3 − 0.01 < 0.3 s"
    );
    assert_eq!(n.poll_timeout(), Some(s(0.35)));
    assert_eq!(n.check(s(0.35), |_, _| true), [0, 1, 2]);
    assert_eq!(
        n.rtt.multiplier, 8,
        "one doubling per timeout, after the read"
    );
    assert_eq!(n.in_flight, 0);
    // a late wake-up runs the check due, at the instant it wakes; an early one does nothing
    n.on_send(s(0.36), 3);
    n.rtt.sample(Duration::from_millis(100));
    assert_eq!(n.poll_timeout(), Some(s(0.4)));
    assert!(n.check(s(0.39), |_, _| true).is_empty());
    assert_eq!(n.check(s(0.6637), |_, _| true), [3]);
    assert_eq!(n.poll_timeout(), None);
    // stale entries (answered, or sent again) are skipped
    n.on_send(s(1.0), 4);
    n.on_send(s(1.0), 5);
    assert_eq!(n.check(s(2.0), |q, _| q == 5), [5]);
}

fn cbr(frequency: f64) -> Controller {
    Controller::NdnsimCbr(NdnsimCbr {
        rate: crate::time::PacketRate(frequency),
        retx_timer: Duration::from_millis(50),
    })
}

/// ConsumerCbr at 10 Interests/s, 20 ms answers, seqs 0 and 1 lost once: the sample of seq 2
/// (0.22 s) shrinks the RTO from 1 s to 200 ms, so seq 0 (sent under 1 s) is declared at the
/// check of 0.25 s and re-sent in the next slot (0.3 s) instead of a new number; seq 1 (RTO
/// now 400 ms) at 0.5 s, re-sent at 0.5 s. The timeouts follow the RTO, not the 4 s lifetime.
#[test]
fn cbr_resends_timed_out_numbers_before_new_ones_on_the_rto() {
    let mut b = Bench::new(cbr(10.0), |_| {});
    b.run(
        s(0.75),
        |sent, seq, nth| (seq > 1 || nth > 1).then_some(sent + Duration::from_millis(20)),
        |_| Duration::ZERO,
    );
    let order: Vec<u64> = b.sent.iter().map(|&(_, q)| q).collect();
    assert_eq!(order, [0, 1, 2, 0, 3, 1, 4, 5]);
    assert_eq!(b.sends_of(0), [s(0.0), s(0.3)]);
    assert_eq!(b.sends_of(1), [s(0.1), s(0.5)]);
    assert_eq!(b.c.stats.timeouts, 2);
    assert_eq!(b.c.stats.retransmissions, 2);
    let r =
        b.c.delays
            .iter()
            .find(|r| r.seq == 0)
            .expect("seq 0 answered");
    assert_eq!(
        (r.transmissions, r.full_delay),
        (2, Duration::from_millis(320))
    );
}

/// Without a sample the RTO is 1 s (then 2 s, 4 s: the multiplier), whatever the lifetime.
#[test]
fn cbr_times_out_on_the_rto_not_the_lifetime() {
    for lifetime in [Duration::from_millis(300), Duration::from_secs(4)] {
        let mut b = Bench::new(cbr(1.0), |c| {
            c.lifetime = lifetime;
            c.timeout = lifetime;
            c.max_seq = Some(1);
        });
        b.run(s(8.0), |_, _, _| None, |_| Duration::ZERO);
        assert_eq!(
            b.sends_of(0),
            [s(0.0), s(1.0), s(3.0), s(7.0)],
            "{lifetime:?}"
        );
    }
}

/// A late Data for a timed-out number whose re-send waits for its slot: it answers the number
/// (one send, recorded), and the slot goes to a new number.
#[test]
fn cbr_late_data_cancels_the_resend() {
    let mut b = Bench::new(cbr(2.0 / 3.0), |_| {}); // slots at 0, 1.5, 3 s
    b.run(
        s(3.2),
        |sent, seq, _| {
            Some(if seq == 0 {
                s(1.2)
            } else {
                sent + Duration::from_millis(20)
            })
        },
        |_| Duration::ZERO,
    );
    assert_eq!(b.c.stats.timeouts, 1, "seq 0 at 1 s");
    assert_eq!(b.sends_of(0), [s(0.0)]);
    assert_eq!(b.sent_at(s(1.5)), [1]);
    let r =
        b.c.delays
            .iter()
            .find(|r| r.seq == 0)
            .expect("seq 0 answered");
    assert_eq!((r.time, r.transmissions), (s(1.2), 1));
    assert_eq!(b.c.stats.completed, 3);
    let n = b.c.ndnsim.as_ref().unwrap();
    assert_eq!(n.rtt.samples(), 2, "no sample from the late Data");
    assert_eq!(n.rtt.multiplier, 1, "reset by the sample of seq 1");
}

/// Numbers that wait together are re-sent smallest first, whatever order they timed out in:
/// ConsumerCbr at 10 Interests/s, 150 ms answers, seq 2 lost twice and seq 5 once. Seq 2 is
/// declared at 0.55 s and re-sent at 0.6 s; the sample of seq 6 (0.85 s) resets the
/// multiplier, and the check of 0.85 s declares seq 5 (sent 0.5 s) then seq 2 (sent 0.6 s):
/// 2 goes at 0.9 s, 5 at 1 s.
#[test]
fn cbr_resends_the_smallest_waiting_number_first() {
    let mut b = Bench::new(cbr(10.0), |_| {});
    b.run(
        s(1.5),
        |sent, seq, nth| {
            let lost = (seq == 2 && nth <= 2) || (seq == 5 && nth == 1);
            (!lost).then_some(sent + Duration::from_millis(150))
        },
        |_| Duration::ZERO,
    );
    assert_eq!(b.sends_of(2), [s(0.2), s(0.6), s(0.9)]);
    assert_eq!(b.sends_of(5), [s(0.5), s(1.0)]);
    assert_eq!(b.c.stats.timeouts, 3);
    let order: Vec<u64> = b.sent.iter().map(|&(_, q)| q).take(11).collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5, 2, 6, 7, 2, 5]);
}
