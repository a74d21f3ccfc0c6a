use super::*;
use crate::face::FaceKind;
use crate::packet::ChunkRequest;
use crate::rng::StreamKind;

const KB: f64 = 1000.0;
const DOWN: FaceId = FaceId(0);
const UP: FaceId = FaceId(1);

/// C = 100 KB: Q_release = 30 KB, Q_min = 40 KB, Q_max = 90 KB; chunks of 32 × 1 KB.
fn params() -> FispParams {
    FispParams {
        gamma: 1.0,
        capacity: 100.0 * KB,
        q_release: 0.3,
        q_min: 0.4,
        q_max: 0.9,
        p0: 0.3,
        period: Duration::from_millis(10),
        delay: Duration::from_millis(50),
        fallback: Duration::from_millis(100),
        segment_bytes: KB,
        window: false,
        pace: true,
    }
}

fn faces() -> Vec<Face> {
    [DOWN, UP]
        .map(|id| {
            Face::new(
                id,
                FaceKind::Net {
                    peer: id.0 + 1,
                    link: id.0,
                },
                QueueLimit::Bytes(1_000_000),
            )
        })
        .to_vec()
}

fn data(flow: u32, seq: u64) -> Data {
    Data {
        name: Name::new(NameId(flow), seq),
        payload: 1000,
        size: 1000,
        freshness: Duration::ZERO,
        created: Instant::ZERO,
        ext: Default::default(),
    }
}

fn chunk(flow: u32, seq: u64) -> Interest {
    let mut i = Interest::new(
        Name::new(NameId(flow), seq),
        seq as u32,
        Duration::from_secs(4),
        40,
    );
    i.ext.set_chunk(Some(ChunkRequest::all(32)));
    i
}

fn rng() -> RngStream {
    RngStream::new(1, 0, StreamKind::Node, 0)
}

fn ms(t: u64) -> Instant {
    Instant(t * 1_000_000)
}

/// `kb` KB of flow `flow`'s Data waiting on the downstream face.
fn queue(f: &mut Fisp, faces: &mut [Face], flow: u32, kb: u32) {
    for s in 0..kb {
        let p = Packet::Data(data(flow, 1_000_000 + u64::from(s)));
        f.on_queue(DOWN, &p, true, faces);
        assert!(faces[0].enqueue(Instant::ZERO, p));
    }
}

/// A FISP whose flows 1 and 2 leave on the downstream face.
fn fisp(p: FispParams) -> Fisp {
    let mut f = Fisp::new(p);
    let fs = faces();
    f.on_data_out(&fs[0], &data(1, 0));
    f.on_data_out(&fs[0], &data(2, 0));
    f
}

#[test]
fn delay_probability_from_p0_at_q_min_to_one() {
    let p = params();
    assert!(
        (p.delay_probability(40.0 * KB, p.capacity) - 0.3).abs() < 1e-12,
        "P₀ at Q_min"
    );
    assert!((p.delay_probability(50.0 * KB, p.capacity) - 0.5).abs() < 1e-12);
    assert!((p.delay_probability(65.0 * KB, p.capacity) - 0.8).abs() < 1e-12);
    assert_eq!(
        p.delay_probability(75.0 * KB, p.capacity),
        1.0,
        "capped at 1"
    );
    assert_eq!(p.delay_probability(0.0, p.capacity), 0.0, "never below 0");
}

#[test]
fn q_counts_queued_data_and_data_owed_to_interests_sent() {
    let mut f = fisp(FispParams {
        gamma: 0.5,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    assert_eq!(
        f.on_interest_out(ms(0), UP, &chunk(1, 1), &fs, &mut r),
        InterestVerdict::Admit
    );
    assert_eq!(f.ifaces[0].q_i(), 32.0 * KB, "a chunk owes 32 segments");
    let mut reask = chunk(2, 1);
    reask.ext.set_chunk(Some(ChunkRequest {
        segments: 32,
        mask: 0b1011,
    }));
    f.on_interest_out(ms(0), UP, &reask, &fs, &mut r);
    assert_eq!(
        f.ifaces[0].q_i(),
        35.0 * KB,
        "a re-ask owes its missing segments"
    );
    for _ in 0..3 {
        f.on_data_in(ms(1), &data(2, 1));
    }
    queue(&mut f, &mut fs, 1, 10);
    assert_eq!(f.q(0, &fs), 10.0 * KB + 0.5 * 32.0 * KB, "Q = q_d + γ·q_i");
    assert_eq!(f.q_flow(0, NameId(1)), 10.0 * KB + 0.5 * 32.0 * KB);
    assert_eq!(f.q_flow(0, NameId(2)), 0.0);
    // a segment back: q_i shrinks by its size; the RTT is sampled
    f.on_data_in(ms(30), &data(1, 1));
    assert_eq!(f.ifaces[0].q_i(), 31.0 * KB);
    for _ in 0..31 {
        f.on_data_in(ms(30), &data(1, 1));
    }
    assert_eq!(f.ifaces[0].q_i(), 0.0);
    // a Data leaving the queue leaves q_d
    let (p, _) = fs[0].dequeue(ms(1)).unwrap();
    f.on_queue(DOWN, &p, false, &fs);
    assert_eq!(f.q_flow(0, NameId(1)), 9.0 * KB);
    // an Interest never answered stops counting after its lifetime
    f.on_interest_out(ms(0), UP, &chunk(2, 7), &fs, &mut r);
    f.on_timeout(ms(3_990), &fs);
    assert_eq!(f.ifaces[0].q_i(), 32.0 * KB);
    f.on_timeout(ms(4_000), &fs);
    assert_eq!(f.ifaces[0].q_i(), 0.0);
}

#[test]
fn phase_1_starts_shaping_only_at_the_periodic_check_above_q_min() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    queue(&mut f, &mut fs, 1, 60);
    // Q = 60 KB > Q_min, but shaping waits for phase 1
    for s in 0..100 {
        assert_eq!(
            f.on_interest_out(ms(0), UP, &chunk(2, s), &fs, &mut r),
            InterestVerdict::Admit
        );
    }
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    queue(&mut f, &mut fs, 1, 40);
    f.on_timeout(ms(0), &fs);
    assert!(!f.ifaces[0].shaping, "Q = Q_min: not above it");
    queue(&mut f, &mut fs, 1, 1);
    f.on_timeout(ms(5), &fs);
    assert!(!f.ifaces[0].shaping, "between checks");
    f.on_timeout(ms(10), &fs);
    assert!(f.ifaces[0].shaping, "the next period");
    assert_eq!(f.poll_timeout(), Some(ms(20)));
}

/// How many of `n` new Interests of `flow` phases 2 and 3 delay (while shaping, the others
/// join the flow's outgoing queue: held too, but not delayed).
fn delays(f: &mut Fisp, fs: &[Face], flow: u32, n: u64, r: &mut RngStream) -> u64 {
    let before = f.ifaces[0].delayed_total;
    for s in 0..n {
        f.on_interest_out(ms(1), UP, &chunk(flow, s), fs, r);
    }
    f.ifaces[0].delayed_total - before
}

#[test]
fn phase_2_delays_flows_over_their_fair_share_with_probability_p() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    // Q = 65 KB: P = 0.8; flow 1 has it all, flow 2 has nothing queued
    queue(&mut f, &mut fs, 1, 65);
    f.on_timeout(ms(0), &fs);
    let n = 20_000;
    let delayed = delays(&mut f, &fs, 1, n, &mut r);
    let share = delayed as f64 / n as f64;
    assert!((share - 0.8).abs() < 0.01, "{share}");
    assert_eq!(f.ifaces[0].delayed_len() as u64, delayed);
    // the others joined flow 1's outgoing queue (shaping): no bandwidth, all sent at once
    assert_eq!(
        std::iter::from_fn(|| f.poll_action()).count() as u64,
        n - delayed
    );
    // flow 2 is below Q_min / n: never delayed (n = 1 active flow: flow 1)
    assert_eq!(delays(&mut f, &fs, 2, 1000, &mut r), 0);
    // the fair share is Q_min / n: with two active flows, 20 KB each
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    queue(&mut f, &mut fs, 1, 45);
    queue(&mut f, &mut fs, 2, 15);
    f.on_timeout(ms(0), &fs);
    assert_eq!(delays(&mut f, &fs, 2, 2000, &mut r), 0, "15 KB < 40 KB / 2");
    let n = delays(&mut f, &fs, 1, 2000, &mut r);
    assert!((1300..1500).contains(&n), "P = 0.7 at Q = 60 KB: {n}");
    // 25 KB ≥ 40 KB / 2: over its fair share though below Q_min (P = 0.9 at Q = 70 KB)
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    queue(&mut f, &mut fs, 1, 45);
    queue(&mut f, &mut fs, 2, 25);
    f.on_timeout(ms(0), &fs);
    let n = delays(&mut f, &fs, 2, 2000, &mut r);
    assert!((1700..1900).contains(&n), "{n}");
}

#[test]
fn phase_3_delays_everything_above_q_max() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    queue(&mut f, &mut fs, 1, 91);
    // no periodic check needed, and whatever the flow's share
    for s in 0..100 {
        assert_eq!(
            f.on_interest_out(ms(0), UP, &chunk(2, s), &fs, &mut r),
            InterestVerdict::Hold
        );
    }
    assert_eq!(f.ifaces[0].delayed_total, 100);
    // a flow whose interface is not known yet (no Data seen) is not shaped
    assert_eq!(
        f.on_interest_out(ms(0), UP, &chunk(9, 0), &fs, &mut r),
        InterestVerdict::Admit
    );
}

#[test]
fn delayed_interests_rejoin_their_queue_after_the_interval_held_there_above_q_max() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    queue(&mut f, &mut fs, 1, 91);
    for s in 0..5 {
        f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r);
    }
    assert_eq!(f.poll_timeout(), Some(ms(0)), "the first check");
    f.on_timeout(ms(0), &fs);
    assert_eq!(f.poll_timeout(), Some(ms(10)));
    // at the end of the interval (50 ms) they rejoin their flow's outgoing queue (seed 001:
    // "will re-enter outgoing Interest queues after a certain interval"), where Q above Q_max
    // holds them (phase 3 at the queues' head): none is sent
    f.on_timeout(ms(50), &fs);
    assert_eq!(f.ifaces[0].delayed_len(), 0);
    assert_eq!((f.ifaces[0].queued_len(), f.poll_action()), (5, None));
    assert_eq!(f.ifaces[0].delayed_total, 5, "counted once");
    // the queue drains to 90 KB, still not below Q_max: held
    let (p, _) = fs[0].dequeue(ms(55)).unwrap();
    f.on_queue(DOWN, &p, false, &fs);
    f.on_timeout(ms(55), &fs);
    assert_eq!((f.ifaces[0].queued_len(), f.poll_action()), (5, None));
    // 89 KB < Q_max: the DRR serves them (no bandwidth here: no pace)
    let (p, _) = fs[0].dequeue(ms(60)).unwrap();
    f.on_queue(DOWN, &p, false, &fs);
    f.on_timeout(ms(60), &fs);
    let sent: Vec<_> = std::iter::from_fn(|| f.poll_action()).collect();
    assert_eq!(sent.len(), 5);
    assert_eq!(
        sent[0],
        ModuleAction::SendInterest {
            face: UP,
            interest: chunk(1, 0)
        }
    );
    assert_eq!(
        f.ifaces[0].q_i(),
        5.0 * 32.0 * KB,
        "sent: now owed (γ = 0 here)"
    );
    // phase 4: below Q_release every delayed Interest goes at the next check
    let mut f = fisp(params());
    let mut fs = faces();
    queue(&mut f, &mut fs, 1, 91);
    for s in 0..3 {
        f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r);
    }
    for _ in 0..62 {
        let (p, _) = fs[0].dequeue(ms(1)).unwrap();
        f.on_queue(DOWN, &p, false, &fs);
    }
    f.on_timeout(ms(1), &fs);
    // 29 KB < Q_release: all three rejoin the queue; the DRR serves while Q ≤ Q_max, and Q
    // counts what a sent one owes (γ = 1): 29 → 61 → 93 KB, the third waits
    assert_eq!(f.ifaces[0].delayed_len(), 0, "29 KB < Q_release: released");
    assert_eq!(std::iter::from_fn(|| f.poll_action()).count(), 2);
    assert_eq!(f.ifaces[0].queued_len(), 1);
    assert_eq!(f.ifaces[0].q_i(), 2.0 * 32.0 * KB, "sent: now owed");
}

#[test]
fn interval_is_the_interfaces_smoothed_rtt_and_stale_copies_are_dropped() {
    let mut f = fisp(FispParams {
        delay: Duration::ZERO,
        ..params()
    });
    let mut fs = faces();
    let mut r = rng();
    assert_eq!(f.delay_interval(0), Duration::from_millis(100), "fallback");
    f.on_interest_out(ms(0), UP, &chunk(1, 1), &fs, &mut r);
    f.on_data_in(ms(80), &data(1, 1));
    assert_eq!(f.delay_interval(0), Duration::from_millis(80));
    f.on_data_in(ms(160), &data(1, 1));
    // 7/8·80 + 1/8·160
    assert_eq!(f.delay_interval(0), Duration::from_millis(90));
    queue(&mut f, &mut fs, 1, 95);
    let first = chunk(1, 2);
    assert_eq!(
        f.on_interest_out(ms(0), UP, &first, &fs, &mut r),
        InterestVerdict::Hold
    );
    // the consumer's retransmission (new nonce) supersedes the delayed copy
    let mut again = first;
    again.nonce = 99;
    f.on_interest_out(ms(1), UP, &again, &fs, &mut r);
    assert_eq!(f.ifaces[0].delayed_len(), 1);
    assert_eq!(f.ifaces[0].delayed[0].interest.nonce, 99);
    // one that waited its whole lifetime is discarded
    for _ in 0..95 {
        let (p, _) = fs[0].dequeue(ms(1)).unwrap();
        f.on_queue(DOWN, &p, false, &fs);
    }
    f.on_timeout(ms(4_001), &fs);
    assert_eq!((f.poll_action(), f.ifaces[0].expired), (None, 1));
}

/// Multi-source (seed 001 Fig. 7): an Interest to a local producer owes nothing (a producer
/// that does not hold the chunk never answers); multicast copies of one Interest on two
/// upstream faces are delayed independently and owe one chunk, not two.
#[test]
fn local_producers_owe_nothing_and_multicast_copies_are_distinct() {
    let mut f = fisp(params());
    let mut fs = faces();
    fs.push(Face::new(
        FaceId(2),
        FaceKind::App { app: 0 },
        QueueLimit::Packets(100),
    ));
    let mut r = rng();
    assert_eq!(
        f.on_interest_out(ms(0), FaceId(2), &chunk(1, 1), &fs, &mut r),
        InterestVerdict::Admit
    );
    assert_eq!(f.ifaces[0].q_i(), 0.0, "nothing owed to a local producer");
    // two upstream faces (multicast): one chunk owed
    let up2 = FaceId(3);
    fs.push(Face::new(
        up2,
        FaceKind::Net { peer: 9, link: 9 },
        QueueLimit::Bytes(1_000_000),
    ));
    f.on_interest_out(ms(0), UP, &chunk(1, 2), &fs, &mut r);
    f.on_interest_out(ms(0), up2, &chunk(1, 2), &fs, &mut r);
    assert_eq!(f.ifaces[0].q_i(), 32.0 * KB, "one chunk owed, not two");
    // above Q_max both copies are held, each for its own face
    queue(&mut f, &mut fs, 1, 95);
    for up in [UP, up2] {
        assert_eq!(
            f.on_interest_out(ms(1), up, &chunk(1, 3), &fs, &mut r),
            InterestVerdict::Hold
        );
    }
    assert_eq!(f.ifaces[0].delayed_len(), 2);
}

/// A zero smoothed RTT (a producer answering at once) must not give a zero delay interval:
/// the interval is never shorter than phase 1's period.
#[test]
fn the_delay_interval_is_at_least_the_period() {
    let mut f = fisp(FispParams {
        delay: Duration::ZERO,
        ..params()
    });
    let fs = faces();
    let mut r = rng();
    f.on_interest_out(ms(0), UP, &chunk(1, 1), &fs, &mut r);
    f.on_data_in(ms(0), &data(1, 1));
    assert_eq!(f.delay_interval(0), Duration::from_millis(10));
    let mut g = fisp(FispParams {
        delay: Duration::from_millis(3),
        ..params()
    });
    g.on_interest_out(ms(0), UP, &chunk(1, 1), &fs, &mut r);
    assert_eq!(g.delay_interval(0), Duration::from_millis(10));
}

/// The outgoing queues (the seed's DRR): released Interests leave one per the time their Data
/// take on the interface's link, round robin over the flows; a new Interest that finds them
/// non-empty waits behind them.
#[test]
fn released_interests_leave_at_the_data_rate_round_robin() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        ..params()
    });
    let mut fs = faces();
    fs[0].bandwidth = Some(crate::time::BitRate(32_000_000)); // a 32 KB chunk: 8 ms
    let mut r = rng();
    queue(&mut f, &mut fs, 1, 91);
    for (flow, s) in [(1, 0), (1, 1), (1, 2), (2, 0)] {
        assert_eq!(
            f.on_interest_out(ms(0), UP, &chunk(flow, s), &fs, &mut r),
            InterestVerdict::Hold
        );
    }
    // phase 4: the queue drains below Q_release, all four are released at the first check (0)
    for _ in 0..91 {
        let (p, _) = fs[0].dequeue(ms(1)).unwrap();
        f.on_queue(DOWN, &p, false, &fs);
    }
    f.on_timeout(ms(0), &fs);
    let mut times = Vec::new();
    let mut t = 0;
    while times.len() < 4 && t < 100 {
        if f.poll_timeout().is_some_and(|w| w <= ms(t)) {
            f.on_timeout(ms(t), &fs);
        }
        while let Some(ModuleAction::SendInterest { interest, .. }) = f.poll_action() {
            times.push((t, interest.name.base.0, interest.name.seq.unwrap()));
        }
        // a new Interest of flow 2 while the queues hold some: it waits its turn
        if t == 1 {
            assert_eq!(
                f.on_interest_out(ms(1), UP, &chunk(2, 1), &fs, &mut r),
                InterestVerdict::Hold
            );
        }
        t += 1;
    }
    assert_eq!(
        times,
        vec![(0, 1, 0), (8, 2, 0), (16, 1, 1), (24, 2, 1)],
        "one per 8 ms, flows alternating"
    );
}

/// C = 0 follows each interface's outbound Data buffer (seed 001 §V-B: a 1 500 KB queue gives
/// Q_max = 0.9·C = 1 350 KB, Q_min = 600 KB); a limit in packets counts packets × the segment
/// size; an explicit C overrides the face's.
#[test]
fn c_is_the_faces_outbound_buffer_unless_set() {
    let p = FispParams {
        gamma: 0.0,
        capacity: 0.0,
        ..params()
    };
    let mut fs = faces();
    fs[0] = Face::new(
        DOWN,
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Bytes(1_500_000),
    );
    let mut f = fisp(p.clone());
    f.on_data_out(&fs[0], &data(1, 0)); // a Data leaves on the 1 500 KB face
    assert_eq!(f.capacity(0), 1_500_000.0);
    let mut r = rng();
    // phase 3 at Q_max = 1 350 KB, without a periodic check
    queue(&mut f, &mut fs, 1, 1350);
    assert_eq!(
        f.on_interest_out(ms(0), UP, &chunk(2, 0), &fs, &mut r),
        InterestVerdict::Admit,
        "Q = Q_max: not above it"
    );
    queue(&mut f, &mut fs, 1, 1);
    assert_eq!(
        f.on_interest_out(ms(0), UP, &chunk(2, 1), &fs, &mut r),
        InterestVerdict::Hold
    );
    assert_eq!(f.ifaces[0].delayed_total, 1);
    // phase 1 at Q_min = 600 KB
    let mut f = fisp(p.clone());
    let mut fs2 = fs.clone();
    while fs2[0].dequeue(ms(0)).is_some() {}
    f.on_data_out(&fs2[0], &data(1, 0));
    queue(&mut f, &mut fs2, 1, 600);
    f.on_timeout(ms(0), &fs2);
    assert!(!f.ifaces[0].shaping);
    queue(&mut f, &mut fs2, 1, 1);
    f.on_timeout(ms(10), &fs2);
    assert!(f.ifaces[0].shaping);
    // P from the face's C: P₀ at Q_min, 1 from Q_min + 0.7·(Q_max − Q_min) = 1 125 KB
    let c = f.capacity(0);
    assert!((p.delay_probability(600_000.0, c) - 0.3).abs() < 1e-12);
    assert!((p.delay_probability(975_000.0, c) - 0.8).abs() < 1e-12);
    // a limit in packets: packets × the Data's wire size
    assert_eq!(
        p.capacity_of(QueueLimit::Packets(1000), 1000.0),
        1_000_000.0
    );
    // an explicit C overrides the face's
    let set = FispParams {
        capacity: 2_600_000.0,
        ..p
    };
    assert_eq!(set.capacity_of(fs[0].limit(), 1000.0), 2_600_000.0);
    assert_eq!(
        set.capacity_of(QueueLimit::Packets(1000), 1000.0),
        2_600_000.0
    );
}

/// A buffer of 1 000 packets holds 1 000 Data on the wire: with 1 000 B of payload and a 100 B
/// header that is 1 100 KB of Q's q_d (occupancy counts wire bytes), so C is 1 100 KB, not
/// 1 000 × `segment_bytes`; it follows the face's limit when that changes, at the next check.
#[test]
fn a_packets_limited_c_counts_the_datas_wire_size() {
    let mut fs = faces();
    fs[0] = Face::new(
        DOWN,
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Packets(1000),
    );
    let mut f = Fisp::new(FispParams {
        capacity: 0.0,
        ..params()
    });
    let mut d = data(1, 0);
    d.size = 1100; // payload 1 000 B + 100 B of header
    f.on_data_out(&fs[0], &d);
    assert_eq!(f.capacity(0), 1_100_000.0);
    // a chunk Interest owes (and DRR charges) its segments' wire bytes
    let mut r = rng();
    f.on_interest_out(ms(0), UP, &chunk(1, 1), &fs, &mut r);
    assert_eq!(f.ifaces[0].q_i(), 32.0 * 1100.0);
    // the face's limit changes: C follows at phase 1's next check
    fs[0] = Face::new(
        DOWN,
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Packets(500),
    );
    f.on_timeout(ms(0), &fs);
    assert_eq!(f.capacity(0), 550_000.0);
}

fn held(flow: u32, seq: u64, cost_kb: f64) -> Delayed {
    Delayed {
        until: Instant::ZERO,
        since: Instant::ZERO,
        face: UP,
        interest: chunk(flow, seq),
        cost: cost_kb * KB,
    }
}

/// The deficit arithmetic (Shreedhar & Varghese's DRR, charged the Data size): a visit adds the
/// quantum once; the head goes while the deficit covers its charge, and the charge is taken
/// off; what is left carries over to the flow's next visit; an emptied queue leaves the list
/// with its deficit reset.
#[test]
fn drr_deficit_carries_over_and_resets_when_a_queue_empties() {
    let mut f = Iface::default();
    // flow 1: three Interests bringing 20 KB each; flow 2: one bringing 32 KB (the quantum)
    for s in 0..3 {
        f.enqueue(held(1, s, 20.0));
    }
    f.enqueue(held(2, 0, 32.0));
    assert_eq!(f.quantum, 32.0 * KB, "the largest Data asked");
    let mut order = Vec::new();
    let mut deficits = Vec::new();
    while let Some(d) = f.next_drr(ms(0)) {
        order.push((d.interest.name.base.0, d.interest.name.seq.unwrap()));
        deficits.push((f.deficit(NameId(1)) / KB, f.deficit(NameId(2)) / KB));
    }
    // visit 1: flow 1 gets 32, sends one (12 left; 20 > 12 ends the visit); flow 2 gets 32,
    // sends its only one (0, queue empty). Visit 2: flow 1 has 12 + 32 = 44: two go (4 left),
    // then its queue is empty: reset to 0
    assert_eq!(order, vec![(1, 0), (2, 0), (1, 1), (1, 2)]);
    assert_eq!(
        deficits,
        vec![(12.0, 0.0), (12.0, 0.0), (24.0, 0.0), (0.0, 0.0)]
    );
    assert!(f.rr.is_empty() && !f.granted);
    // an expired Interest at the head is discarded uncharged
    f.enqueue(held(1, 9, 20.0));
    f.enqueue(held(1, 10, 20.0));
    f.outq.get_mut(&NameId(1)).unwrap().q[0].interest.lifetime = Duration::from_millis(1);
    let d = f.next_drr(ms(2)).unwrap();
    assert_eq!((d.interest.name.seq, f.expired), (Some(10), 1));
    assert_eq!(f.deficit(NameId(1)), 0.0, "32 − 20, then emptied: reset");
}

/// The DRR through FISP: while the interface shapes, every Interest of every flow queues; the
/// deficit is charged the Data an Interest brings back (a whole chunk: 32 segments; a re-ask:
/// its missing segments), so a flow of 4-segment re-asks sends 8 per chunk of the other flow,
/// and each waits the time its Data take on the link (32 Mbit/s: a chunk 8 ms, a re-ask 1 ms).
#[test]
fn drr_charges_each_flow_the_data_its_interests_bring_back() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        p0: 0.0,
        ..params()
    });
    let mut fs = faces();
    fs[0].bandwidth = Some(crate::time::BitRate(32_000_000));
    let mut r = rng();
    // flow 3's Data hold Q = 45 KB > Q_min: shaping; flows 1 and 2 have no Data queued (γ = 0:
    // Q_j = 0), so phase 2 never delays them
    f.on_data_out(&fs[0], &data(3, 0));
    queue(&mut f, &mut fs, 3, 45);
    f.on_timeout(ms(0), &fs);
    assert!(f.ifaces[0].shaping);
    for s in 0..3 {
        f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r);
    }
    for s in 0..16 {
        let mut reask = chunk(2, s);
        reask.ext.set_chunk(Some(ChunkRequest {
            segments: 32,
            mask: 0b1111 << 8,
        }));
        assert_eq!(
            f.on_interest_out(ms(0), UP, &reask, &fs, &mut r),
            InterestVerdict::Hold
        );
    }
    assert_eq!(f.ifaces[0].delayed_total, 0);
    let mut sent = Vec::new();
    for t in 0..60 {
        if f.poll_timeout().is_some_and(|w| w <= ms(t)) {
            f.on_timeout(ms(t), &fs);
        }
        while let Some(ModuleAction::SendInterest { interest, .. }) = f.poll_action() {
            sent.push((t, interest.name.base.0));
        }
    }
    let mut want = vec![(0, 1), (8, 1)];
    want.extend((16..24).map(|t| (t, 2)));
    want.push((24, 1));
    want.extend((32..40).map(|t| (t, 2)));
    assert_eq!(sent, want);
}

/// An Interest that waited so long in the DRR queue that its Data could not come back within
/// its lifetime (age + the interface's smoothed upstream RTT ≥ lifetime), or that waited half
/// its lifetime, is discarded, not sent: its Data would find no PIT entry here or downstream
/// and waste the link's turn.
#[test]
fn drr_discards_interests_that_cannot_be_answered_in_their_lifetime() {
    let discarded_at = |srtt_ms: f64, at: u64| {
        let mut f = Iface {
            srtt: Some(srtt_ms * 1e6),
            ..Iface::default()
        };
        let mut old = held(1, 0, 32.0);
        old.interest.lifetime = Duration::from_millis(1000);
        f.enqueue(old);
        f.enqueue(held(1, 1, 32.0)); // lifetime 4 s
        let d = f.next_drr(ms(at)).unwrap();
        match d.interest.name.seq {
            Some(0) => false,
            _ => {
                assert_eq!(f.expired, 1);
                true
            }
        }
    };
    // srtt 600 ms: at 399 ms, 399 + 600 < 1 000, still worth sending; at 400 ms its Data would
    // come back at its lifetime's end
    assert!(!discarded_at(600.0, 399));
    assert!(discarded_at(600.0, 400));
    // srtt 100 ms: half the lifetime is the bound (500 ms)
    assert!(!discarded_at(100.0, 499));
    assert!(discarded_at(100.0, 500));
}

/// The interface's RTT is the upstream round trip from when FISP *sent* the Interest: the
/// forwarder's out-record holds when FISP took it (InterestVerdict::Hold), and an Interest that
/// waited 8 ms in the DRR queue and 50 ms upstream is a 50 ms sample, not 58 (a sample that
/// counted the wait would lengthen the delay interval and discard queued Interests early).
#[test]
fn the_rtt_sample_starts_when_fisp_sends_the_interest() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        p0: 0.0,
        delay: Duration::ZERO,
        ..params()
    });
    let mut fs = faces();
    fs[0].bandwidth = Some(crate::time::BitRate(32_000_000)); // a 32 KB chunk: 8 ms
    let mut r = rng();
    f.on_data_out(&fs[0], &data(3, 0));
    queue(&mut f, &mut fs, 3, 45); // shaping: Q = 45 KB > Q_min
    f.on_timeout(ms(0), &fs);
    for s in 0..2 {
        assert_eq!(
            f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r),
            InterestVerdict::Hold
        );
    }
    f.poll_action();
    assert_eq!(f.poll_timeout(), Some(ms(8)), "the second waits its turn");
    f.on_timeout(ms(8), &fs);
    assert!(matches!(
        f.poll_action(),
        Some(ModuleAction::SendInterest { interest, .. }) if interest.name.seq == Some(1)
    ));
    f.on_data_in(ms(58), &data(1, 1));
    assert_eq!(f.delay_interval(0), Duration::from_millis(50));
}

/// The DRR's window (`window = true`): an Interest is served only while the Data committed to
/// the interface's link, q_d + q_i, are below what the link carries in one upstream round trip
/// plus a quantum. 32 Mbit/s × 10 ms = 40 KB, + a 32 KB chunk = 72 KB: the third chunk (64 KB
/// committed before it) goes, the fourth waits (96 KB) until Data leave the link, whatever the
/// rate pacing allows.
#[test]
fn drr_window_holds_what_the_link_cannot_carry_in_a_round_trip() {
    let mut f = fisp(FispParams {
        gamma: 0.0,
        p0: 0.0,
        window: true,
        ..params()
    });
    let mut fs = faces();
    fs[0].bandwidth = Some(crate::time::BitRate(32_000_000)); // a 32 KB chunk: 8 ms
    let mut r = rng();
    f.on_data_out(&fs[0], &data(3, 0));
    queue(&mut f, &mut fs, 3, 45); // Q = 45 KB > Q_min: shaping
    f.on_timeout(ms(0), &fs);
    for _ in 0..45 {
        let (p, _) = fs[0].dequeue(ms(0)).unwrap();
        f.on_queue(DOWN, &p, false, &fs); // the queue drains: q_d = 0
    }
    f.ifaces[0].srtt = Some(10e6);
    for s in 0..5 {
        f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r);
    }
    let mut sent = Vec::new();
    for t in 0..40 {
        if f.poll_timeout().is_some_and(|w| w <= ms(t)) {
            f.on_timeout(ms(t), &fs);
        }
        while let Some(ModuleAction::SendInterest { interest, .. }) = f.poll_action() {
            sent.push((t, interest.name.seq.unwrap()));
        }
    }
    assert_eq!(
        sent,
        vec![(0, 0), (8, 1), (16, 2)],
        "96 KB ≥ 72 KB: the fourth waits"
    );
    // the first chunk's Data come back and leave on the link: 64 KB committed, room again
    for _ in 0..32 {
        f.on_data_in(ms(40), &data(1, 0));
    }
    f.ifaces[0].srtt = Some(10e6); // (the samples would have raised it to ≈ 40 ms)
    let mut next = Vec::new();
    for t in 40..80 {
        if f.poll_timeout().is_some_and(|w| w <= ms(t)) {
            f.on_timeout(ms(t), &fs);
        }
        next.extend(std::iter::from_fn(|| f.poll_action()));
    }
    assert_eq!(
        next.len(),
        1,
        "one more chunk: 64 + 32 = 96 KB ≥ 72 KB again"
    );
}

/// Unpaced (`pace = false`, the default), the DRR serves its queues while Q ≤ Q_max (phase 3
/// at the queues' head), in deficit order, every Interest it sends adding γ·(its Data) to Q:
/// the Data queue is held near Q_max − γ·q_i (seed 001 Fig. 6's ≈ 1 050 KB of 1 500 KB).
#[test]
fn unpaced_drr_serves_while_q_is_at_most_q_max_in_deficit_order() {
    let mut f = fisp(FispParams {
        pace: false,
        ..params()
    });
    let mut fs = faces();
    fs[0].bandwidth = Some(crate::time::BitRate(32_000_000)); // no pace: unused
    let mut r = rng();
    // flow 3's Data: Q = 91 KB > Q_max: every Interest of flows 1 and 2 is delayed (phase 3)
    f.on_data_out(&fs[0], &data(3, 0));
    queue(&mut f, &mut fs, 3, 91);
    f.on_timeout(ms(0), &fs);
    for s in 0..3 {
        f.on_interest_out(ms(0), UP, &chunk(1, s), &fs, &mut r);
    }
    for s in 0..8 {
        let mut reask = chunk(2, s);
        reask.ext.set_chunk(Some(ChunkRequest {
            segments: 32,
            mask: 0b1111,
        }));
        f.on_interest_out(ms(0), UP, &reask, &fs, &mut r);
    }
    assert_eq!(f.ifaces[0].delayed_total, 11);
    // the interval (50 ms) ends: they rejoin their queues, held while Q > Q_max
    f.on_timeout(ms(50), &fs);
    assert_eq!((f.ifaces[0].queued_len(), f.poll_action()), (11, None));
    let drain = |f: &mut Fisp, fs: &mut Vec<Face>, kb: usize, t: u64| {
        for _ in 0..kb {
            let (p, _) = fs[0].dequeue(ms(t)).unwrap();
            f.on_queue(DOWN, &p, false, fs);
        }
        f.on_timeout(ms(t), fs);
        std::iter::from_fn(|| f.poll_action())
            .map(|a| match a {
                ModuleAction::SendInterest { interest, .. } => interest.name.base.0,
                _ => unreachable!(),
            })
            .collect::<Vec<_>>()
    };
    // q_d drains to 45 KB: Q (γ = 1) 45 → 77 (flow 1's chunk spends its quantum) → 81, 85, 89,
    // 93 (flow 2's 4 KB re-asks) → above Q_max: held, all at the same instant (no pace)
    assert_eq!(drain(&mut f, &mut fs, 46, 60), vec![1, 2, 2, 2, 2]);
    assert_eq!(f.ifaces[0].queued_len(), 6);
    // 40 KB more leave: Q = 53 KB; flow 2's visit goes on with the 16 KB left of its quantum
    // (57, 61, 65, 69; its queue empties), then flow 1's next chunk: 101 KB, held
    assert_eq!(drain(&mut f, &mut fs, 40, 61), vec![2, 2, 2, 2, 1]);
    assert_eq!(f.ifaces[0].queued_len(), 1);
}
