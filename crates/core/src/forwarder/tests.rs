//! Forwarder pipeline tests: a forwarder with a few faces, fed chosen packets at chosen instants.

use super::*;
use crate::face::FaceKind;
use crate::packet::{DataExt, SegmentInfo};
use crate::rng::StreamKind;
use crate::schemes::RouterHooks;

const DOWN1: FaceId = FaceId(0);
const DOWN2: FaceId = FaceId(1);
const UP1: FaceId = FaceId(2);
const UP2: FaceId = FaceId(3);

fn setup(strategy: Strategy, module: RouterModule) -> (Forwarder, NameId) {
    let mut names = NameTable::new();
    let p = names.intern("/p");
    let cfg = ForwarderConfig {
        strategy,
        cs_capacity: 0,
        nack_overhead: 4,
    };
    let mut f = Forwarder::new(
        Arc::new(names),
        cfg,
        module,
        RngStream::new(1, 0, StreamKind::Node, 0),
    );
    for peer in 0..4 {
        f.add_face(FaceKind::Net { peer, link: peer }, QueueLimit::Packets(100));
    }
    f.add_route(p, UP1, 1);
    f.add_route(p, UP2, 2);
    (f, p)
}

fn interest(p: NameId, seq: u64, nonce: u32) -> Interest {
    Interest::new(Name::new(p, seq), nonce, Duration::from_secs(1), 40)
}

fn data(p: NameId, seq: u64, segment: Option<SegmentInfo>) -> Data {
    Data {
        name: Name::new(p, seq),
        payload: 1000,
        size: 1000,
        freshness: Duration::ZERO,
        created: Instant::ZERO,
        ext: DataExt {
            segment,
            ..DataExt::default()
        },
    }
}

fn drain(f: &mut Forwarder, face: FaceId) -> Vec<Packet> {
    std::iter::from_fn(|| f.poll_transmit(face)).collect()
}

#[test]
fn best_route_forwards_on_the_cheapest_face_and_data_returns() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert_eq!(f.core.ready, vec![UP1]);
    assert!(matches!(drain(&mut f, UP1)[..], [Packet::Interest(_)]));
    assert!(drain(&mut f, UP2).is_empty());
    f.handle_data(Instant(10), UP1, data(p, 1, None));
    let back = drain(&mut f, DOWN1);
    match back[..] {
        [Packet::Data(d)] => assert_eq!(d.ext.hops, 1),
        _ => panic!("{back:?}"),
    }
    assert!(f.core.pit.is_empty());
    assert_eq!(f.core.counters.satisfied, 1);
    assert_eq!(f.faces()[DOWN1.0 as usize].counters.in_satisfied, 1);
    assert_eq!(f.faces()[UP1.0 as usize].counters.out_satisfied, 1);
}

#[test]
fn aggregation_forwards_once_and_answers_both_downstreams() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    f.handle_interest(Instant(1), DOWN2, interest(p, 1, 8));
    assert_eq!(drain(&mut f, UP1).len(), 1);
    assert_eq!(f.core.counters.aggregated, 1);
    f.handle_data(Instant(10), UP1, data(p, 1, None));
    assert_eq!(drain(&mut f, DOWN1).len(), 1);
    assert_eq!(drain(&mut f, DOWN2).len(), 1);
}

#[test]
fn duplicate_nonce_from_another_face_is_a_loop_and_gets_nack_duplicate() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    f.handle_interest(Instant(1), DOWN2, interest(p, 1, 7));
    match drain(&mut f, DOWN2)[..] {
        [Packet::Nack(n)] => {
            assert_eq!(n.reason, NackReason::Duplicate);
            assert_eq!(n.size, 44);
        }
        ref other => panic!("{other:?}"),
    }
    // the same nonce again on the same face is a plain duplicate: dropped silently
    f.handle_interest(Instant(2), DOWN1, interest(p, 1, 7));
    assert!(drain(&mut f, DOWN1).is_empty());
    assert_eq!((f.core.counters.loops, f.core.counters.duplicates), (1, 1));
}

#[test]
fn pit_entries_expire_after_the_lifetime() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert_eq!(f.poll_timeout(), Some(Instant(1_000_000_000)));
    f.on_timeout(Instant(999_999_999));
    assert_eq!(f.core.pit.len(), 1);
    f.on_timeout(Instant(1_000_000_000));
    assert!(f.core.pit.is_empty());
    assert_eq!(f.core.counters.timed_out, 1);
    assert_eq!(f.faces()[UP1.0 as usize].counters.out_timed_out, 1);
    // Data after expiry is unsolicited
    f.handle_data(Instant(2_000_000_000), UP1, data(p, 1, None));
    assert_eq!(f.core.counters.unsolicited_data, 1);
}

#[test]
fn multi_segment_answer_keeps_the_entry_until_the_last_segment() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    for i in 0..3 {
        assert_eq!(f.core.pit.len(), 1, "segment {i}");
        f.handle_data(
            Instant(10 + i),
            UP1,
            data(
                p,
                1,
                Some(SegmentInfo {
                    index: i as u32,
                    count: 3,
                }),
            ),
        );
    }
    assert!(f.core.pit.is_empty());
    assert_eq!(drain(&mut f, DOWN1).len(), 3);
    assert_eq!(f.core.counters.satisfied, 1);
}

#[test]
fn no_route_gives_nack_no_route() {
    let (mut f, _) = setup(Strategy::BestRoute, RouterModule::None);
    let mut names = NameTable::clone(&f.core.names);
    let q = names.intern("/q");
    f.core.names = Arc::new(names);
    f.handle_interest(Instant(0), DOWN1, interest(q, 1, 7));
    match drain(&mut f, DOWN1)[..] {
        [Packet::Nack(n)] => assert_eq!(n.reason, NackReason::NoRoute),
        ref other => panic!("{other:?}"),
    }
    assert_eq!(f.core.counters.rejected, 1);
    assert!(f.core.pit.is_empty());
}

#[test]
fn a_duplicate_segment_does_not_end_the_entry_early() {
    // multicast: both upstreams answer, so segment 0 arrives twice
    let (mut f, p) = setup(Strategy::Multicast, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    let seg = |index| Some(SegmentInfo { index, count: 3 });
    f.handle_data(Instant(10), UP1, data(p, 1, seg(0)));
    f.handle_data(Instant(11), UP2, data(p, 1, seg(0)));
    f.handle_data(Instant(12), UP2, data(p, 1, seg(1)));
    assert_eq!(f.core.pit.len(), 1, "segment 2 is still due");
    f.handle_data(Instant(13), UP1, data(p, 1, seg(2)));
    assert!(f.core.pit.is_empty());
    // each segment went downstream once; the second copy of segment 0 was unsolicited
    assert_eq!(drain(&mut f, DOWN1).len(), 3);
    assert_eq!(f.core.counters.unsolicited_data, 1);
    assert_eq!(f.core.counters.satisfied, 1);
}

#[test]
fn a_segment_beyond_the_count_does_not_end_the_entry() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    let seg = |index| Some(SegmentInfo { index, count: 3 });
    for (t, i) in [(10, 0), (11, 1), (12, 5), (13, u32::MAX)] {
        f.handle_data(Instant(t), UP1, data(p, 1, seg(i)));
    }
    assert_eq!(f.core.pit.len(), 1, "segment 2 is still due");
    assert_eq!(f.core.counters.unsolicited_data, 2);
    f.handle_data(Instant(14), UP1, data(p, 1, seg(2)));
    assert!(f.core.pit.is_empty());
}

/// Refuses Interests on one face with Nack(Congestion); queues them on another.
#[derive(Debug)]
struct Refuse {
    refuse: FaceId,
    queue: Option<FaceId>,
    release: usize,
    data_out: u32,
}

impl RouterHooks for Refuse {
    fn on_interest_out(
        &mut self,
        _: Instant,
        face: FaceId,
        _: NameId,
        _: &Interest,
        _: &[Face],
    ) -> InterestVerdict {
        if face == self.refuse {
            InterestVerdict::Nack(NackReason::Congestion)
        } else if Some(face) == self.queue {
            InterestVerdict::Queue
        } else {
            InterestVerdict::Admit
        }
    }
    fn on_data_out(&mut self, _: Instant, _: FaceId, data: &mut Data, faces: &[Face]) {
        self.data_out += 1;
        data.ext.mark = faces.len() == 4;
    }
    fn tick_interval(&self) -> Option<Duration> {
        Some(Duration::from_millis(10))
    }
    fn release_interests(&mut self, _: Instant, _: FaceId, queued: usize, _: &[Face]) -> usize {
        std::mem::replace(&mut self.release, 0).min(queued)
    }
}

#[test]
fn refused_face_falls_back_to_the_next_hop_then_nacks_downstream() {
    let module = RouterModule::Custom(Box::new(Refuse {
        refuse: UP1,
        queue: None,
        release: 0,
        data_out: 0,
    }));
    let (mut f, p) = setup(Strategy::BestRoute, module);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert!(drain(&mut f, UP1).is_empty());
    assert_eq!(drain(&mut f, UP2).len(), 1);
    // a Nack from UP2 leaves no untried face: Nack(Congestion) goes downstream
    let i = interest(p, 1, 7);
    f.handle_nack(
        Instant(5),
        UP2,
        Nack {
            reason: NackReason::Congestion,
            interest: i,
            size: 44,
        },
    );
    match drain(&mut f, DOWN1)[..] {
        [Packet::Nack(n)] => assert_eq!(n.reason, NackReason::Congestion),
        ref other => panic!("{other:?}"),
    }
    assert!(f.core.pit.is_empty());
    assert_eq!(f.core.counters.rejected, 1);
}

#[test]
fn queued_interests_wait_for_the_module_and_data_out_is_marked() {
    let module = RouterModule::Custom(Box::new(Refuse {
        refuse: FaceId(99),
        queue: Some(UP1),
        release: 0,
        data_out: 0,
    }));
    let (mut f, p) = setup(Strategy::BestRoute, module);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert!(drain(&mut f, UP1).is_empty());
    assert_eq!(f.faces()[UP1.0 as usize].interest_queue.len(), 1);
    assert_eq!(f.poll_timeout(), Some(Instant(10_000_000)));
    // from now on the module lets one go: it leaves at the next tick
    f.core.module = RouterModule::Custom(Box::new(Refuse {
        refuse: FaceId(99),
        queue: Some(UP1),
        release: 1,
        data_out: 0,
    }));
    f.on_timeout(Instant(10_000_000));
    assert_eq!(drain(&mut f, UP1).len(), 1);
    f.handle_data(Instant(20_000_000), UP1, data(p, 1, None));
    match drain(&mut f, DOWN1)[..] {
        [Packet::Data(d)] => assert!(d.ext.mark),
        ref other => panic!("{other:?}"),
    }
    assert_eq!(f.faces()[DOWN1.0 as usize].counters.marks, 1);
}

#[test]
fn a_queued_interest_whose_entry_was_replaced_is_not_released() {
    let hold = |release| {
        RouterModule::Custom(Box::new(Refuse {
            refuse: FaceId(99),
            queue: Some(UP1),
            release,
            data_out: 0,
        }))
    };
    let (mut f, p) = setup(Strategy::BestRoute, hold(0));
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    // the entry expires while its Interest is held; a new Interest of the same name comes
    f.on_timeout(Instant(1_000_000_000));
    assert!(f.core.pit.is_empty());
    f.handle_interest(Instant(1_000_000_001), DOWN1, interest(p, 1, 8));
    assert_eq!(f.faces()[UP1.0 as usize].interest_queue.len(), 2);
    // a budget of one is enough: the stale copy does not use it up
    f.core.module = hold(1);
    f.on_timeout(Instant(1_010_000_000));
    // only the transmission the entry waits for leaves: nonce 8, not the stale nonce 7
    match drain(&mut f, UP1)[..] {
        [Packet::Interest(i)] => assert_eq!(i.nonce, 8),
        ref other => panic!("{other:?}"),
    }
    assert!(f.faces()[UP1.0 as usize].interest_queue.is_empty());
}

#[test]
fn multicast_sends_on_every_next_hop() {
    let (mut f, p) = setup(Strategy::Multicast, RouterModule::None);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert_eq!(drain(&mut f, UP1).len(), 1);
    assert_eq!(drain(&mut f, UP2).len(), 1);
}

#[test]
fn weighted_multipath_follows_the_weights() {
    let (mut f, p) = setup(Strategy::WeightedMultipath, RouterModule::None);
    f.core.fib.set_weight(p, UP1, 3.0);
    f.core.fib.set_weight(p, UP2, 1.0);
    for seq in 0..4000 {
        f.handle_interest(Instant(0), DOWN1, interest(p, seq, seq as u32));
    }
    // the 100-packet queues overflow: count what was offered to UP1 (sent + dropped)
    let sent1 = drain(&mut f, UP1).len() as u64 + f.faces()[UP1.0 as usize].counters.drops;
    let frac = sent1 as f64 / 4000.0;
    assert!((frac - 0.75).abs() < 0.03, "{frac}");
}
