use super::*;

fn data(seq: u64) -> DataSignal {
    DataSignal::one(seq, Duration::from_millis(10), false)
}

fn at(ms: u64) -> Instant {
    Instant(ms * 1_000_000)
}

#[test]
fn slow_start_then_one_over_cwnd() {
    let mut c = Ictp::new(IctpConfig {
        initial_ssthresh: 4.0,
        ..Default::default()
    });
    for s in 0..3 {
        c.on_data(at(0), &data(s));
    }
    assert_eq!(c.window, 4.0);
    c.on_data(at(0), &data(3));
    assert_eq!(c.window, 4.25);
    c.on_data(at(0), &data(4));
    assert_eq!(c.window, 4.25 + 1.0 / 4.25);
    let mut open = Ictp::new(IctpConfig::default());
    for s in 0..100 {
        open.on_data(at(0), &data(s));
    }
    assert_eq!(open.window, 101.0, "no ssthresh at the start");
}

#[test]
fn timeout_sets_ssthresh_to_half_and_cwnd_to_one_once_per_rto() {
    let mut c = Ictp::new(IctpConfig {
        initial_window: 10.0,
        ..Default::default()
    });
    let mut est = RttEstimator::default();
    est.add_sample(Duration::from_millis(100));
    assert_eq!(
        c.rto(&est),
        Some(Duration::from_millis(300)),
        "SRTT + 4·RTTVAR"
    );
    assert_eq!(c.retransmit(at(0), 7, Loss::Timeout), Some(true));
    assert_eq!(c.retransmit(at(0), 7, Loss::Nack), None);
    c.on_timeout(at(1_000), 7);
    assert_eq!((c.ssthresh, c.window), (5.0, 1.0));
    c.on_timeout(at(1_299), 8);
    assert_eq!(c.ssthresh, 5.0, "within the RTO: the same loss event");
    c.on_timeout(at(1_300), 9);
    assert_eq!((c.ssthresh, c.window), (2.0, 1.0), "max(cwnd/2, 2)");
    // slow start back to ssthresh, then congestion avoidance
    c.on_data(at(1_400), &data(100));
    assert_eq!(c.window, 2.0);
    c.on_data(at(1_400), &data(101));
    assert_eq!(c.window, 2.5);
}

#[test]
fn three_later_segments_declare_a_hole_lost_once() {
    let mut c = Ictp::new(IctpConfig {
        initial_ssthresh: 100.0,
        ..Default::default()
    });
    for s in 0..5 {
        c.on_data(at(0), &data(s));
    }
    assert_eq!(c.window, 6.0);
    c.on_data(at(1), &data(6)); // 5 missing: one later segment
    c.on_data(at(1), &data(7));
    assert_eq!((c.poll_loss(), c.window), (None, 8.0));
    c.on_data(at(1), &data(8)); // the third
    assert_eq!(c.poll_loss(), Some(5));
    assert_eq!(c.poll_loss(), None);
    assert_eq!(
        (c.ssthresh, c.window),
        (4.0, 4.0),
        "fast recovery: cwnd = ssthresh"
    );
    // reordering of the same window while recovering: retransmitted, no second reduction
    c.on_data(at(2), &data(10));
    c.on_data(at(2), &data(11));
    c.on_data(at(2), &data(12));
    assert_eq!(c.poll_loss(), Some(9));
    assert_eq!(c.ssthresh, 4.0);
    // the retransmitted segment ends the recovery; a new hole reduces again
    c.on_data(at(3), &data(5));
    c.on_data(at(3), &data(9));
    for s in 14..17 {
        c.on_data(at(4), &data(s));
    }
    assert_eq!(c.poll_loss(), Some(13));
    assert_eq!(c.fast_retransmits, 3);
    assert!(c.window < 4.0 + 6.0 && c.ssthresh > 2.0);
    let mut none = Ictp::new(IctpConfig {
        dup_threshold: 0,
        ..Default::default()
    });
    for s in [0, 2, 3, 4, 5, 6] {
        none.on_data(at(0), &data(s));
    }
    assert_eq!(
        none.poll_loss(),
        None,
        "dup_threshold = 0: no fast retransmit"
    );
}

/// Two nodes, 10 ms each way, 200 segments: the first answer of seq 100 is lost and three later
/// Data make the consumer send 100 again at once (before any timeout, and although the halved
/// window is full), halving cwnd; the first answer of seq 199, the last, is lost with no later
/// Data, so it times out: cwnd = 1.
#[test]
fn harness_fast_retransmit_and_timeout() {
    use crate::harness::TwoNode;
    use crate::packet::Packet;
    use crate::schemes::registry::Controller;
    use std::cell::RefCell;
    use std::rc::Rc;

    let mut h = TwoNode::new(
        Controller::Ictp(Ictp::new(IctpConfig {
            initial_ssthresh: 8.0,
            ..Default::default()
        })),
        Duration::from_millis(10),
        1000,
        |cfg| cfg.max_seq = Some(200),
    );
    // (time, seq) of every Interest for 100 and 199, and (time, 10 000 + seq) of later Data
    let sends: Rc<RefCell<Vec<(Instant, u64)>>> = Rc::default();
    let s = sends.clone();
    let mut dropped = [false; 2];
    h.drop_when(move |now, p| match p {
        Packet::Interest(i) if matches!(i.name.seq, Some(100 | 199)) => {
            s.borrow_mut().push((now, i.name.seq.unwrap()));
            false
        }
        Packet::Data(d) if d.name.seq == Some(100) => !std::mem::replace(&mut dropped[0], true),
        Packet::Data(d) if d.name.seq == Some(199) => !std::mem::replace(&mut dropped[1], true),
        Packet::Data(d) if d.name.seq.is_some_and(|q| q > 100) => {
            s.borrow_mut().push((now, 10_000 + d.name.seq.unwrap()));
            false
        }
        _ => false,
    });
    let mut trace: Vec<(Instant, usize, f64)> = Vec::new();
    h.run_until(Instant(Duration::from_secs(5).0), |h| {
        let c = h.consumer();
        let w = c.target_window().unwrap();
        if trace.last().is_none_or(|&(_, _, last)| last != w) {
            trace.push((h.now, c.delays.len(), w));
        }
    });
    let c = h.consumer();
    assert_eq!(c.stats.data_received, 200);
    assert_eq!((c.stats.timeouts, c.stats.retransmissions), (1, 2));
    let sends = sends.borrow();
    let lost: Vec<_> = sends.iter().filter(|e| e.1 == 100).map(|e| e.0).collect();
    assert_eq!(lost.len(), 2);
    // the third Data after 100 (in arrival order) arrives 10 ms after it crossed the link:
    // 100 is sent again right then, long before its RTO (≥ 200 ms)
    let third_later = sends.iter().filter(|e| e.1 > 10_100).nth(2).unwrap().0;
    assert_eq!(
        lost[1],
        third_later + Duration::from_millis(10),
        "fast retransmit at the third later Data"
    );
    assert!(lost[1] - lost[0] < Duration::from_millis(200));
    // slow start 1 → 8 (+1 per Data), then +1/cwnd
    assert_eq!(trace[0].2, 1.0);
    assert_eq!(trace[1], (Instant(Duration::from_millis(20).0), 1, 2.0));
    let ss_end = trace.iter().position(|e| e.2 == 8.0).unwrap();
    for pair in trace[..=ss_end].windows(2) {
        assert_eq!(pair[1].2, pair[0].2 + 1.0);
    }
    let cut = (1..trace.len())
        .find(|&i| trace[i].2 < trace[i - 1].2)
        .unwrap();
    assert_eq!(trace[cut].0, lost[1], "halved when 100 is declared lost");
    let before = trace[cut - 1].2;
    assert_eq!(trace[cut].2, (before / 2.0).max(2.0));
    for pair in trace[ss_end..cut].windows(2) {
        let (w0, w1) = (pair[0].2, pair[1].2);
        assert!((w1 - (w0 + 1.0 / w0)).abs() < 1e-12, "{w0} -> {w1}");
    }
    // the last segment times out at its RTO: cwnd = 1
    let last = sends
        .iter()
        .filter(|e| e.1 == 199)
        .map(|e| e.0)
        .collect::<Vec<_>>();
    assert_eq!(last.len(), 2);
    let to = trace.iter().position(|e| e.0 == last[1]).unwrap();
    assert_eq!(trace[to].2, 1.0);
    assert!(
        last[1] - last[0] >= Duration::from_millis(200),
        "after the RTO"
    );
}
