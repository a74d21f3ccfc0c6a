//! Forwarder pipeline tests: a forwarder with a few faces, fed chosen packets at chosen instants.

use super::*;
use crate::control::ControlBody;
use crate::face::FaceKind;
use crate::packet::{ChunkRequest, DataExt, SegmentInfo};
use crate::rng::StreamKind;
use crate::schemes::{ModuleAction, RouterHooks};
use strategy::StrategyHooks;

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
    std::iter::from_fn(|| f.poll_transmit(Instant::ZERO, face)).collect()
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
    /// How many held Interests the next tick releases.
    release: usize,
    data_out: u32,
    /// The Interests it holds, and those it lets go at the last tick.
    held: std::collections::VecDeque<(FaceId, Interest)>,
    out: Vec<ModuleAction>,
}

fn refuse(refuse: FaceId, queue: Option<FaceId>) -> Refuse {
    Refuse {
        refuse,
        queue,
        release: 0,
        data_out: 0,
        held: Default::default(),
        out: Vec::new(),
    }
}

impl RouterHooks for Refuse {
    fn on_interest_out(
        &mut self,
        _: Instant,
        face: FaceId,
        _: NameId,
        interest: &Interest,
        _: &[Face],
    ) -> InterestVerdict {
        if face == self.refuse {
            InterestVerdict::Nack(NackReason::Congestion)
        } else if Some(face) == self.queue {
            self.held.push_back((face, *interest));
            InterestVerdict::Hold
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
    fn on_tick(&mut self, _: Instant, _: &[Face]) {
        for _ in 0..std::mem::replace(&mut self.release, 0) {
            if let Some((face, interest)) = self.held.pop_front() {
                self.out.push(ModuleAction::SendInterest { face, interest });
            }
        }
    }
    fn poll_action(&mut self) -> Option<ModuleAction> {
        self.out.pop()
    }
    fn on_control(&mut self, _: Instant, msg: &ControlBody, _: &[Face]) {
        if let ControlBody::NextHopValue { value, .. } = msg {
            self.release = *value as usize;
        }
    }
}

/// The one packet `down` received is a Nack(Congestion), and it ended the only PIT entry.
fn congestion_nack_ends_the_entry(f: &mut Forwarder, down: FaceId) {
    match drain(f, down)[..] {
        [Packet::Nack(n)] => assert_eq!(n.reason, NackReason::Congestion),
        ref other => panic!("{other:?}"),
    }
    assert!(f.core.pit.is_empty());
    assert_eq!(f.core.counters.rejected, 1);
}

#[test]
fn refused_face_falls_back_to_the_next_hop_then_nacks_downstream() {
    let module = RouterModule::Custom(Box::new(refuse(UP1, None)));
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
    congestion_nack_ends_the_entry(&mut f, DOWN1);
}

#[test]
fn best_route_skips_the_incoming_face_and_nacks_with_the_refusal_reason() {
    // from UP1 (the cheapest next hop itself): the next one, UP2
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.handle_interest(Instant(0), UP1, interest(p, 1, 7));
    assert!(drain(&mut f, UP1).is_empty());
    assert_eq!(drain(&mut f, UP2).len(), 1);
    // from UP2, UP1 is the only candidate and the module refuses it with Nack(Congestion): the
    // downstream gets that reason, and the entry ends
    let module = RouterModule::Custom(Box::new(refuse(UP1, None)));
    let (mut f, p) = setup(Strategy::BestRoute, module);
    f.handle_interest(Instant(0), UP2, interest(p, 1, 7));
    assert!(drain(&mut f, UP1).is_empty());
    congestion_nack_ends_the_entry(&mut f, UP2);
}

#[test]
fn every_strategy_nacks_with_the_refusal_reason_when_its_only_next_hop_refuses() {
    // from UP2, UP1 is the only candidate and the module refuses it with Nack(Congestion):
    // whichever built-in strategy (and `forward_or_reject` behind the ones other than
    // best-route) tried it, the downstream gets that reason and the entry ends
    for strategy in [
        Strategy::Multicast,
        Strategy::WeightedMultipath,
        Strategy::ClassMultipath,
    ] {
        let module = RouterModule::Custom(Box::new(refuse(UP1, None)));
        let (mut f, p) = setup(strategy, module);
        f.handle_interest(Instant(0), UP2, interest(p, 1, 7));
        assert!(drain(&mut f, UP1).is_empty());
        congestion_nack_ends_the_entry(&mut f, UP2);
    }
}

/// Tells the test module (over the control plane) how many held Interests its next tick
/// releases.
fn release(f: &mut Forwarder, now: Instant, n: usize) {
    let msg = ControlBody::NextHopValue {
        prefix: NameId(0),
        face: UP1,
        value: n as f64,
    };
    f.handle_control(now, &msg);
}

#[test]
fn held_interests_wait_for_the_module_and_data_out_is_marked() {
    let module = RouterModule::Custom(Box::new(refuse(FaceId(99), Some(UP1))));
    let (mut f, p) = setup(Strategy::BestRoute, module);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    assert!(drain(&mut f, UP1).is_empty());
    assert_eq!(f.poll_timeout(), Some(Instant(10_000_000)));
    // from now on the module lets one go: it leaves at the next tick
    release(&mut f, Instant(1), 1);
    assert!(drain(&mut f, UP1).is_empty());
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
fn a_held_interest_whose_entry_was_replaced_is_not_sent() {
    let module = RouterModule::Custom(Box::new(refuse(FaceId(99), Some(UP1))));
    let (mut f, p) = setup(Strategy::BestRoute, module);
    f.handle_interest(Instant(0), DOWN1, interest(p, 1, 7));
    // the entry expires while its Interest is held; a new Interest of the same name comes
    f.on_timeout(Instant(1_000_000_000));
    assert!(f.core.pit.is_empty());
    f.handle_interest(Instant(1_000_000_001), DOWN1, interest(p, 1, 8));
    release(&mut f, Instant(1_000_000_002), 2);
    f.on_timeout(Instant(1_010_000_000));
    // only the transmission the entry waits for leaves: nonce 8, not the stale nonce 7
    match drain(&mut f, UP1)[..] {
        [Packet::Interest(i)] => assert_eq!(i.nonce, 8),
        ref other => panic!("{other:?}"),
    }
    // both held copies were released: nothing is left to send
    release(&mut f, Instant(1_010_000_001), 5);
    f.on_timeout(Instant(1_020_000_000));
    assert!(drain(&mut f, UP1).is_empty());
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

/// A queue discipline in a module: refuses Interests at enqueue beyond two waiting, marks Data
/// that waited at least 1 ms at dequeue, and wakes itself every 5 ms.
#[derive(Debug, Default)]
struct Qdisc {
    wakes: Vec<Instant>,
    sojourns: Vec<Duration>,
}

impl RouterHooks for Qdisc {
    fn on_enqueue(&mut self, _: Instant, face: FaceId, p: &mut Packet, faces: &[Face]) -> bool {
        let waiting = faces[face.0 as usize]
            .occupancy(crate::packet::PacketType::Interest)
            .0;
        !matches!(p, Packet::Interest(_)) || waiting < 2
    }
    fn on_dequeue(&mut self, _: Instant, _: FaceId, p: &mut Packet, sojourn: Duration, _: &[Face]) {
        self.sojourns.push(sojourn);
        if let Packet::Data(d) = p {
            d.ext.mark = sojourn >= Duration::from_millis(1);
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Some(Instant(5_000_000 * (self.wakes.len() as u64 + 1)))
    }
    fn on_timeout(&mut self, now: Instant, _: &[Face]) {
        self.wakes.push(now);
    }
    fn gauge_names(&self) -> &'static [&'static str] {
        &["wakes"]
    }
    fn face_gauges(&mut self, _: Instant, _: FaceId, out: &mut [f64]) {
        out[0] = self.wakes.len() as f64;
    }
}

#[test]
fn a_module_is_a_queue_discipline_with_its_own_timers() {
    let (mut f, p) = setup(
        Strategy::BestRoute,
        RouterModule::Custom(Box::<Qdisc>::default()),
    );
    for seq in 0..4 {
        f.handle_interest(Instant(0), DOWN1, interest(p, seq, seq as u32));
    }
    // two Interests wait on UP1; the enqueue step refused the other two (counted as drops)
    assert_eq!(f.faces()[UP1.0 as usize].counters.drops, 2);
    assert_eq!(
        f.faces()[UP1.0 as usize]
            .occupancy(crate::packet::PacketType::Interest)
            .0,
        2
    );
    // the module's timer
    assert_eq!(f.poll_timeout(), Some(Instant(5_000_000)));
    f.on_timeout(Instant(5_000_000));
    assert_eq!(f.poll_timeout(), Some(Instant(10_000_000)));
    // two Data queue on DOWN1 at t = 1 ms; the one that leaves at 1.5 ms is unmarked
    // (0.5 ms), the one that leaves at 2.5 ms marked (1.5 ms), and counted
    f.handle_data(Instant(1_000_000), UP1, data(p, 0, None));
    f.handle_data(Instant(1_000_000), UP1, data(p, 1, None));
    let first = f.poll_transmit(Instant(1_500_000), DOWN1);
    let second = f.poll_transmit(Instant(2_500_000), DOWN1);
    match (first, second) {
        (Some(Packet::Data(a)), Some(Packet::Data(b))) => assert!(!a.ext.mark && b.ext.mark),
        other => panic!("{other:?}"),
    }
    assert_eq!(f.faces()[DOWN1.0 as usize].counters.marks, 1);
    let mut g = [f64::NAN];
    f.core.module_mut().face_gauges(Instant(0), DOWN1, &mut g);
    assert_eq!(g, [1.0]);
    let (_, module) = f.core.faces_and_module_mut();
    assert!(module.is_some_and(|m| m.gauge_names().len() == 1));
}

/// The sampler asks every node for its faces and module every trace bin: a node that runs no
/// module gets none, and keeps holding no module block (no `RouterModule::None` boxed for it).
#[test]
fn a_plain_node_lends_no_module_to_the_sampler() {
    let (mut f, _) = setup(Strategy::BestRoute, RouterModule::None);
    for _ in 0..2 {
        let (faces, module) = f.core.faces_and_module_mut();
        assert!(!faces.is_empty() && module.is_none());
    }
    assert!(f.core.module.0.is_none(), "no module block");
}

/// A stateful strategy: counts its triggers and moves weight away from a face that drops.
#[derive(Debug, Default)]
struct Counting {
    data: u32,
    dropped: u32,
}

impl StrategyHooks for Counting {
    fn after_receive_interest(&mut self, core: &mut FwCore, now: Instant, name: Name, _: FaceId) {
        let hops = core.nexthops(name);
        let best = hops
            .iter()
            .max_by(|a, b| a.weight.total_cmp(&b.weight))
            .expect("a next hop");
        core.send_interest(now, name, best.face);
    }
    fn after_receive_data(&mut self, _: &mut FwCore, _: Instant, _: Name, _: FaceId, _: &Data) {
        self.data += 1;
    }
    fn on_dropped_interest(&mut self, core: &mut FwCore, _: Instant, face: FaceId, i: &Interest) {
        self.dropped += 1;
        assert!(core.set_nexthop_weight(i.name, face, 0.0));
    }
}

#[test]
fn a_stateful_strategy_gets_data_and_drops_and_sets_weights() {
    let (mut f, p) = setup(
        Strategy::Custom(Box::<Counting>::default()),
        RouterModule::None,
    );
    f.core.fib.set_weight(p, UP1, 2.0);
    f.core.fib.set_weight(p, UP2, 1.0);
    // UP1's 100-packet queue overflows at the 101st Interest: the strategy moves to UP2
    for seq in 0..103 {
        f.handle_interest(Instant(0), DOWN1, interest(p, seq, seq as u32));
    }
    assert_eq!(f.faces()[UP1.0 as usize].queue_len(), 100);
    assert_eq!(f.faces()[UP2.0 as usize].queue_len(), 2);
    f.handle_data(Instant(1), UP1, data(p, 0, None));
    match &f.strategy {
        Strategy::Custom(s) => {
            let s = format!("{s:?}");
            assert!(s.contains("data: 1") && s.contains("dropped: 1"), "{s}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_full_pit_drops_new_interests_and_keeps_serving_old_ones() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.core.pit.set_limit(2);
    let t = Instant::ZERO;
    for seq in 0..5 {
        f.handle_interest(t, DOWN1, interest(p, seq, seq as u32 + 10));
    }
    assert_eq!(f.core.pit.len(), 2);
    assert_eq!(f.core.counters.pit_full, 3);
    assert_eq!(drain(&mut f, UP1).len(), 2);
    // an Interest for a pending name still aggregates
    f.handle_interest(t, DOWN2, interest(p, 1, 99));
    assert_eq!(f.core.counters.aggregated, 1);
    f.handle_data(t, UP1, data(p, 1, None));
    assert_eq!(drain(&mut f, DOWN1).len(), 1);
    assert_eq!(drain(&mut f, DOWN2).len(), 1);
    assert_eq!(f.core.pit.len(), 1);
    f.handle_interest(t, DOWN1, interest(p, 7, 70));
    assert_eq!(f.core.pit.len(), 2, "room again after a Data");
}

#[test]
fn closing_a_face_removes_its_routes_and_queue_and_nothing_else() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    let t = Instant::ZERO;
    f.handle_interest(t, DOWN1, interest(p, 1, 1));
    f.handle_interest(t, DOWN2, interest(p, 2, 2));
    assert_eq!(f.close_face(UP1), 1);
    assert!(f.core.faces[UP1.0 as usize].is_closed());
    assert_eq!(f.core.faces[UP1.0 as usize].queue_len(), 0);
    assert!(drain(&mut f, UP1).is_empty());
    // the next Interest goes to the remaining route
    f.handle_interest(t, DOWN1, interest(p, 3, 3));
    assert_eq!(drain(&mut f, UP2).len(), 1);
    // a downstream that closes: the other still gets its Data
    f.close_face(DOWN1);
    f.handle_data(t, UP2, data(p, 2, None));
    assert_eq!(drain(&mut f, DOWN2).len(), 1);
    f.handle_data(t, UP2, data(p, 1, None));
    assert!(drain(&mut f, DOWN1).is_empty());
    assert_eq!(f.core.faces[DOWN1.0 as usize].counters.drops, 1);
}

/// The Content Store holds one Data per name and a chunk's segments share the chunk's name, so
/// it could only answer a chunk Interest with one segment (the last one cached) while the
/// receiver waits for all it asked: segments are not cached, so a chunk Interest — a
/// re-expression after the chunk passed, here — goes upstream, where the whole answer is.
#[test]
fn the_content_store_neither_keeps_segments_nor_answers_chunk_interests() {
    let (mut f, p) = setup(Strategy::BestRoute, RouterModule::None);
    f.core.set_cs(ContentStore::new(100));
    let chunk = |nonce| {
        let mut i = interest(p, 1, nonce);
        i.ext.set_chunk(Some(ChunkRequest {
            segments: 3,
            mask: 0b111,
        }));
        i
    };
    f.handle_interest(Instant(0), DOWN1, chunk(7));
    assert_eq!(drain(&mut f, UP1).len(), 1);
    for index in 0..3 {
        let seg = Some(SegmentInfo { index, count: 3 });
        f.handle_data(Instant(10), UP1, data(p, 1, seg));
    }
    assert_eq!(drain(&mut f, DOWN1).len(), 3);
    assert!(f.core.pit.is_empty());
    assert!(f.core.cs().is_empty(), "no segment cached");
    f.handle_interest(Instant(20), DOWN1, chunk(8));
    assert!(drain(&mut f, DOWN1).is_empty(), "no answer from the store");
    assert_eq!(
        drain(&mut f, UP1).len(),
        1,
        "the re-expression goes upstream"
    );
    // a plain Data is still cached and answers a plain Interest
    f.handle_interest(Instant(30), DOWN2, interest(p, 2, 9));
    f.handle_data(Instant(40), UP1, data(p, 2, None));
    assert_eq!(f.core.cs().len(), 1);
    drain(&mut f, DOWN2);
    f.handle_interest(Instant(50), DOWN1, interest(p, 2, 10));
    assert_eq!(drain(&mut f, DOWN1).len(), 1);
}

/// A hub's face → link hints name each net face's own link (a wrong one would only prefetch
/// the wrong link: same results, lost speed — no output test could catch it); a node with
/// few faces, or without the link hint, keeps none.
#[test]
fn a_hubs_face_links_name_each_faces_link() {
    let (mut f, _) = setup(Strategy::BestRoute, RouterModule::None);
    f.core.set_link_hint(0x1000, 128);
    assert!(f.core.face_links.is_empty(), "4 faces: not a hub");
    let app = f.add_face(FaceKind::App { app: 0 }, QueueLimit::Packets(10));
    f.add_face(FaceKind::Net { peer: 9, link: 40 }, QueueLimit::Packets(10));
    f.core.set_link_hint(0, 0);
    assert!(f.core.face_links.is_empty(), "no hint, no links");
    f.core.set_link_hint(0x1000, 128);
    let want: Vec<u32> = vec![0, 1, 2, 3, NO_LINK, 40];
    assert_eq!(f.core.face_links, want);
    assert_eq!(f.core.face_links[app.0 as usize], NO_LINK);
}
