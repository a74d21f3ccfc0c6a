use super::*;

const MS: u64 = 1_000_000;

fn chunk(rtt_ms: u64, marked: u32) -> DataSignal {
    DataSignal {
        seq: 0,
        rtt: Duration::from_millis(rtt_ms),
        retransmitted: false,
        marked: marked > 0,
        rate_stamp: None,
        class: 0,
        segments: 32,
        marked_segments: marked,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn at(ms: u64) -> Instant {
    Instant(ms * MS)
}

#[test]
fn defaults_are_seed_001s() {
    let c = RicConfig::default();
    assert_eq!(
        (c.ssthresh, c.alpha, c.beta0, c.beta1, c.beta2, c.sigma, c.delta),
        (20.0, 1.0, 0.5, 0.5, 0.8, 0.7, 6.0)
    );
    assert!(c.validate().is_empty());
    let bad = RicConfig {
        beta1: 0.9,
        ..Default::default()
    };
    assert_eq!(bad.validate()[0].keys, ["beta1", "beta2"]);
}

#[test]
fn slow_start_plus_one_per_chunk_to_ssthresh_then_alpha_every_w_chunks() {
    let mut c = Ric::new(RicConfig::default());
    for i in 1..=19 {
        assert!(c.slow_start);
        c.on_data(at(0), &chunk(10, 0));
        assert_eq!(c.window, 1.0 + f64::from(i));
    }
    assert!(!c.slow_start, "slow start ends at ssthresh");
    // congestion avoidance: W = 20 holds for 19 chunks, the 20th adds α
    for _ in 0..19 {
        c.on_data(at(0), &chunk(10, 0));
        assert_eq!(c.window, 20.0);
    }
    c.on_data(at(0), &chunk(10, 0));
    assert_eq!(c.window, 21.0);
    for _ in 0..20 {
        c.on_data(at(0), &chunk(10, 0));
    }
    assert_eq!(c.window, 21.0);
    c.on_data(at(0), &chunk(10, 0));
    assert_eq!(c.window, 22.0);
    let mut c = Ric::new(RicConfig {
        alpha: 2.5,
        ssthresh: 4.0,
        ..Default::default()
    });
    for _ in 0..3 + 4 {
        c.on_data(at(0), &chunk(10, 0));
    }
    assert_eq!(c.window, 6.5, "α is the additive step");
}

#[test]
fn marked_chunk_decreases_in_proportion_to_its_marked_packets() {
    let c = Ric::new(RicConfig::default());
    assert_eq!(c.mark_beta(32, 32), 0.5, "all marked: β₁");
    assert!(close(c.mark_beta(16, 32), 0.65));
    assert!(close(c.mark_beta(8, 32), 0.725));
    assert!(close(c.mark_beta(1, 32), 0.8 - 0.3 / 32.0));
    let mut c = Ric::new(RicConfig {
        initial_window: 40.0,
        ..Default::default()
    });
    assert!(!c.slow_start);
    c.on_data(at(100), &chunk(10, 8));
    assert!(
        close(c.window, 40.0 * 0.725),
        "a marked chunk brings no increase"
    );
    assert_eq!(c.reductions, 1);
}

#[test]
fn timeout_halves_and_a_marked_chunk_ends_slow_start() {
    let mut c = Ric::new(RicConfig::default());
    for _ in 0..7 {
        c.on_data(at(0), &chunk(10, 0));
    }
    assert_eq!(c.window, 8.0);
    c.on_data(at(5), &chunk(10, 32));
    assert_eq!(c.window, 4.0);
    assert!(!c.slow_start, "congestion ends slow start below ssthresh");
    c.on_timeout(at(100), 0);
    assert_eq!(c.window, 2.0, "β₀ = ½");
    c.on_timeout(at(200), 1);
    c.on_timeout(at(300), 2);
    assert_eq!(c.window, 1.0, "never below W_min");
}

/// `timeout_slow_start`: a timeout halves W and slow start goes on below ssthresh (+1 per
/// chunk), a marked chunk still ends it; by default a timeout ends it (+α every W chunks).
#[test]
fn a_timeout_resumes_slow_start_only_when_asked_to() {
    for (resume, want) in [(true, [5.0, 6.0]), (false, [4.0, 4.0])] {
        let mut c = Ric::new(RicConfig {
            timeout_slow_start: resume,
            ..Default::default()
        });
        for _ in 0..7 {
            c.on_data(at(0), &chunk(10, 0));
        }
        c.on_timeout(at(100), 0);
        assert_eq!(c.window, 4.0, "β₀ = ½ either way");
        assert_eq!(c.slow_start, resume);
        for (i, w) in want.iter().enumerate() {
            c.on_data(at(101 + i as u64), &chunk(10, 0));
            assert_eq!(c.window, *w, "timeout_slow_start = {resume}, chunk {i}");
        }
        c.on_data(at(200), &chunk(10, 32));
        assert!(!c.slow_start, "a marked chunk ends slow start");
    }
    // slow start goes on only below ssthresh
    let mut c = Ric::new(RicConfig {
        initial_window: 60.0,
        timeout_slow_start: true,
        ..Default::default()
    });
    c.on_timeout(at(0), 0);
    assert_eq!((c.window, c.slow_start), (30.0, false));
}

#[test]
fn at_most_one_reduction_per_average_rtt() {
    let mut c = Ric::new(RicConfig {
        initial_window: 40.0,
        ..Default::default()
    });
    c.on_data(at(0), &chunk(100, 0)); // R̄TT = 100 ms
    c.on_timeout(at(1_000), 0);
    assert_eq!(c.window, 20.0);
    c.on_data(at(1_050), &chunk(100, 32));
    c.on_timeout(at(1_099), 1);
    assert_eq!((c.window, c.ignored), (20.0, 2), "within R̄TT: ignored");
    c.on_timeout(at(1_100), 2);
    assert_eq!(c.window, 10.0, "one R̄TT later: applied");
    let mut free = Ric::new(RicConfig {
        initial_window: 40.0,
        one_reduction_per_rtt: false,
        ..Default::default()
    });
    free.on_data(at(0), &chunk(100, 0));
    free.on_timeout(at(1_000), 0);
    free.on_timeout(at(1_001), 1);
    assert_eq!(free.window, 10.0);
}

#[test]
fn average_rtt_is_an_ewma_and_timeout_is_delta_times_it() {
    let mut c = Ric::new(RicConfig::default());
    let est = RttEstimator::default();
    assert_eq!(c.rto(&est), Some(Duration::from_secs(1)), "before a sample");
    c.on_data(at(0), &chunk(100, 0));
    assert_eq!(c.avg_rtt(), Some(Duration::from_millis(100)));
    assert_eq!(c.rto(&est), Some(Duration::from_millis(600)));
    c.on_data(at(0), &chunk(200, 0));
    // 0.7·100 + 0.3·200
    assert_eq!(c.avg_rtt(), Some(Duration::from_millis(130)));
    assert_eq!(c.rto(&est), Some(Duration::from_millis(780)));
    // a re-asked chunk's RTT is ambiguous: no sample
    c.on_data(
        at(0),
        &DataSignal {
            retransmitted: true,
            ..chunk(1_000, 0)
        },
    );
    assert_eq!(c.avg_rtt(), Some(Duration::from_millis(130)));
    let mut c2 = Ric::new(RicConfig {
        delta: 2.0,
        ..Default::default()
    });
    c2.on_data(at(0), &chunk(100, 0));
    assert_eq!(c2.rto(&est), Some(Duration::from_millis(200)));
    assert_eq!(c.retransmit(at(0), 0, Loss::Timeout), Some(true));
    assert_eq!(c.retransmit(at(0), 0, Loss::Nack), None);
}

/// `sample_reasked`: a chunk asked at 0 ms, timed out and re-asked at 80 ms, complete at 110 ms
/// gives the sample 110 ms (from its first Interest), not 30 ms (from the re-ask); under Karn's
/// rule (the default) it gives none.
#[test]
fn a_reasked_chunk_samples_from_its_first_interest_when_asked_to() {
    // 0.7·40 + 0.3·110 = 61 ms from the first Interest; Karn: R̄TT unchanged
    for (sample_reasked, want) in [(true, 61), (false, 40)] {
        let mut c = Ric::new(RicConfig {
            sample_reasked,
            ..Default::default()
        });
        c.on_data(at(0), &chunk(40, 0)); // R̄TT = 40 ms
        c.on_send(at(0), 7, false);
        c.on_timeout(at(80), 7);
        c.on_send(at(80), 7, true);
        let sig = DataSignal {
            seq: 7,
            retransmitted: true,
            ..chunk(30, 0)
        };
        c.on_data(at(110), &sig);
        assert_eq!(
            c.avg_rtt(),
            Some(Duration::from_millis(want)),
            "sample_reasked = {sample_reasked}"
        );
    }
}

/// Two nodes, 10 ms each way, chunks of 32 × 1 KB: slow start doubles W each RTT to 20,
/// congestion avoidance adds 1 every W chunks; segment 5 of chunk 100's first answer is lost,
/// so at its deadline (δ·R̄TT = 120 ms after it was sent) W halves and the chunk is asked again
/// for offset 5 only; 8 of chunk 300's 32 segments are marked by the producer's node, and W is
/// multiplied by 0.8 − 0.3·8/32 = 0.725 when that chunk completes.
#[test]
fn harness_slow_start_avoidance_timeout_and_marked_chunk() {
    use crate::face::{Face, FaceId};
    use crate::harness::TwoNode;
    use crate::packet::{Data, Packet};
    use crate::schemes::registry::Controller;
    use crate::schemes::{RouterHooks, RouterModule};
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    const LOST: u64 = 100;
    const MARKED: u64 = 300;

    #[derive(Debug)]
    struct MarkChunk;
    impl RouterHooks for MarkChunk {
        fn on_data_out(&mut self, _: Instant, _: FaceId, d: &mut Data, _: &[Face]) {
            if d.name.seq == Some(MARKED) && d.ext.segment.unwrap().index < 8 {
                d.ext.mark = true;
            }
        }
    }

    let mut h = TwoNode::new(
        Controller::Chopcop(Ric::new(RicConfig::default())),
        Duration::from_millis(10),
        1000,
        |cfg| {
            cfg.chunk_segments = Some(32);
            cfg.max_seq = Some(400);
        },
    );
    h.nodes[1]
        .fwd
        .core
        .set_module(RouterModule::Custom(Box::new(MarkChunk)));
    let sent = Rc::new(Cell::new(None));
    let masks: Rc<RefCell<Vec<u64>>> = Rc::default();
    let (s, m) = (sent.clone(), masks.clone());
    let mut dropped = false;
    h.drop_when(move |now, p| match p {
        Packet::Interest(i) if i.name.seq == Some(LOST) => {
            s.set(s.get().or(Some(now)));
            m.borrow_mut().push(i.ext.chunk().unwrap().mask);
            false
        }
        Packet::Data(d) if d.name.seq == Some(LOST) && d.ext.segment.unwrap().index == 5 => {
            !std::mem::replace(&mut dropped, true)
        }
        _ => false,
    });
    // (time, chunks completed, W, at which chunk the change happened)
    let mut trace: Vec<(Instant, usize, f64)> = Vec::new();
    h.run_until(Instant(Duration::from_secs(3).0), |h| {
        let c = h.consumer();
        let w = c.target_window().unwrap();
        if trace.last().is_none_or(|&(_, _, last)| last != w) {
            trace.push((h.now, c.delays.len(), w));
        }
    });
    let c = h.consumer();
    assert_eq!(c.stats.data_received, 400 * 32, "every segment once");
    assert_eq!((c.stats.timeouts, c.stats.retransmissions), (1, 1));
    assert_eq!(
        *masks.borrow(),
        [u64::from(u32::MAX), 1 << 5],
        "re-asks offset 5"
    );
    assert_eq!(c.stats.marks, 8);

    // slow start: the window doubles every RTT (20 ms) up to ssthresh
    let w_at = |t: u64| {
        trace
            .iter()
            .take_while(|&&(at, _, _)| at <= Instant(t * MS))
            .last()
            .unwrap()
            .2
    };
    assert_eq!(trace[0].2, 1.0);
    assert_eq!(
        [20, 40, 60, 80].map(w_at),
        [2.0, 4.0, 8.0, 16.0],
        "doubling per RTT"
    );
    assert_eq!(
        w_at(100),
        20.0,
        "ssthresh reached, 12 chunks into the first W"
    );
    let start_ca = trace.iter().position(|e| e.2 == 20.0).unwrap();
    assert_eq!(trace[start_ca].1, 19, "19 chunks from 1 to 20");

    let deadline = sent.get().unwrap() + Duration::from_millis(120);
    let cut = (1..trace.len())
        .find(|&i| trace[i].2 < trace[i - 1].2)
        .expect("a cut");
    assert_eq!(
        trace[cut].0, deadline,
        "at the lost chunk's deadline, δ·R̄TT after it was sent"
    );
    assert_eq!(trace[cut].2, trace[cut - 1].2 / 2.0, "timeout: β₀ = ½");
    let mark = (cut + 1..trace.len())
        .find(|&i| trace[i].2 < trace[i - 1].2)
        .expect("the marked chunk's cut");
    assert!(
        close(trace[mark].2, trace[mark - 1].2 * 0.725),
        "marked chunk: {:?}",
        &trace[mark - 1..=mark]
    );
    assert_eq!(trace.iter().filter(|e| e.2 == 0.0).count(), 0);
    // congestion avoidance between the cuts and after: +α exactly every W chunks
    for range in [start_ca..cut, cut..mark, mark..trace.len()] {
        let steps = &trace[range];
        for pair in steps.windows(2) {
            let ((_, n0, w0), (_, n1, w1)) = (pair[0], pair[1]);
            assert_eq!(w1, w0 + 1.0, "+α");
            assert_eq!((n1 - n0) as f64, w0.ceil(), "after W chunks: {pair:?}");
        }
    }
    assert!(trace.len() - mark > 3, "grows again after the mark");
}
