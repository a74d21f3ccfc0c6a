use super::*;
use crate::face::{FaceKind, QueueLimit};
use crate::packet::ChunkRequest;
use crate::time::BitRate;

const UP: FaceId = FaceId(0);

fn faces(bw: Option<u64>) -> Vec<Face> {
    let mut f = Face::new(
        UP,
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Packets(100),
    );
    f.bandwidth = bw.map(BitRate);
    vec![f]
}

fn interest(flow: u32, seq: u64, chunk: bool) -> Interest {
    let mut i = Interest::new(
        Name::new(NameId(flow), seq),
        seq as u32,
        Duration::from_secs(1),
        40,
    );
    i.ext.set_chunk(chunk.then(|| ChunkRequest::all(32)));
    i
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

fn ms(t: u64) -> Instant {
    Instant(t * 1_000_000)
}

fn shaper(quota: u32, queue_limit: u32) -> HbhShaper {
    HbhShaper::new(HrIcpConfig {
        quota,
        queue_limit,
        ..Default::default()
    })
}

fn out(s: &mut HbhShaper, fs: &[Face], flow: u32, seq: u64, chunk: bool) -> InterestVerdict {
    s.on_interest_out(ms(0), UP, NameId(0), &interest(flow, seq, chunk), fs)
}

fn answer(s: &mut HbhShaper, fs: &[Face], flow: u32, seq: u64, at: u64) {
    s.on_data_in(ms(at), UP, NameId(0), &mut data(flow, seq), Some(ms(0)), fs);
}

#[test]
fn a_flow_keeps_at_most_its_quota_pending_and_queues_the_rest() {
    let fs = faces(None);
    let mut s = shaper(2, 2);
    assert_eq!(out(&mut s, &fs, 1, 1, false), InterestVerdict::Admit);
    assert_eq!(out(&mut s, &fs, 1, 2, false), InterestVerdict::Admit);
    assert_eq!(out(&mut s, &fs, 1, 3, false), InterestVerdict::Hold);
    assert_eq!(out(&mut s, &fs, 1, 4, false), InterestVerdict::Hold);
    assert_eq!(
        out(&mut s, &fs, 1, 5, false),
        InterestVerdict::Drop,
        "queue full"
    );
    assert_eq!((s.held, s.dropped), (2, 1));
    // another flow has its own quota
    assert_eq!(out(&mut s, &fs, 2, 1, false), InterestVerdict::Admit);
    // an answer lets the next queued Interest of the flow go, in order
    assert_eq!(s.poll_action(), None);
    answer(&mut s, &fs, 1, 1, 10);
    assert_eq!(
        s.poll_action(),
        Some(ModuleAction::SendInterest {
            face: UP,
            interest: interest(1, 3, false)
        })
    );
    assert_eq!(s.poll_action(), None, "one for one");
    answer(&mut s, &fs, 2, 1, 10);
    assert_eq!(
        s.poll_action(),
        None,
        "flow 2's answer does not release flow 1"
    );
}

#[test]
fn a_chunk_is_answered_by_all_its_segments() {
    let fs = faces(None);
    let mut s = shaper(1, 10);
    assert_eq!(out(&mut s, &fs, 1, 1, true), InterestVerdict::Admit);
    assert_eq!(out(&mut s, &fs, 1, 2, true), InterestVerdict::Hold);
    for _ in 0..31 {
        answer(&mut s, &fs, 1, 1, 10);
    }
    assert_eq!(s.poll_action(), None);
    answer(&mut s, &fs, 1, 1, 10);
    assert!(s.poll_action().is_some(), "the 32nd segment completes it");
}

#[test]
fn derived_quota_is_the_fair_share_of_the_bandwidth_delay_product() {
    // 40 Mbps × 100 ms = 500 KB; a chunk brings 32 KB: ⌈500/32⌉ = 16 for one flow
    let fs = faces(Some(40_000_000));
    let mut s = shaper(0, 100);
    assert_eq!(out(&mut s, &fs, 1, 1, true), InterestVerdict::Admit);
    assert_eq!(
        s.quota(0, &fs[0], 32),
        8,
        "before an RTT sample: initial_quota"
    );
    for _ in 0..32 {
        answer(&mut s, &fs, 1, 1, 100);
    }
    assert_eq!(s.quota(0, &fs[0], 32), 16);
    assert_eq!(
        s.quota(0, &fs[0], 1),
        500,
        "single-segment Interests: 500 KB / 1 KB"
    );
    // two flows pending: half each
    out(&mut s, &fs, 1, 2, true);
    out(&mut s, &fs, 2, 1, true);
    assert_eq!(s.quota(0, &fs[0], 32), 8);
    let admitted = (3..40)
        .filter(|&q| out(&mut s, &fs, 1, q, true) == InterestVerdict::Admit)
        .count();
    assert_eq!(admitted, 7, "flow 1 fills its 8");
    // a 200 ms sample (queueing) after 100 ms: the BDP keeps the smallest RTT, 100 ms: 16;
    // with quota_min_rtt = false, R̄TT is an EWMA (⅛): 112.5 ms, ⌈562.5/32⌉ = 18
    for (min_rtt, want) in [(true, 16), (false, 18)] {
        let mut e = HbhShaper::new(HrIcpConfig {
            queue_limit: 100,
            quota_min_rtt: min_rtt,
            ..Default::default()
        });
        out(&mut e, &fs, 1, 1, false);
        answer(&mut e, &fs, 1, 1, 100);
        out(&mut e, &fs, 1, 2, false);
        answer(&mut e, &fs, 1, 2, 200);
        assert_eq!(e.quota(0, &fs[0], 32), want, "quota_min_rtt = {min_rtt}");
    }
    // no bandwidth known: initial_quota
    let mut t = shaper(0, 100);
    let nobw = faces(None);
    out(&mut t, &nobw, 1, 1, false);
    answer(&mut t, &nobw, 1, 1, 100);
    assert_eq!(t.quota(0, &nobw[0], 32), 8);
}

/// Flow 1 queues behind its share (8 of 16) while flow 2 is pending; when flow 2 is done the
/// quota doubles, and flow 1's queue goes first, in order, up to it.
#[test]
fn a_grown_quota_releases_the_queue_first() {
    let fs = faces(Some(40_000_000));
    let mut s = shaper(0, 100);
    out(&mut s, &fs, 3, 1, false);
    answer(&mut s, &fs, 3, 1, 100); // R̄TT 100 ms
    assert_eq!(out(&mut s, &fs, 2, 1, true), InterestVerdict::Admit);
    let verdicts: Vec<_> = (1..=12).map(|q| out(&mut s, &fs, 1, q, true)).collect();
    assert_eq!(verdicts[..8], [InterestVerdict::Admit; 8]);
    assert_eq!(verdicts[8..], [InterestVerdict::Hold; 4]);
    // flow 2 done: one flow left, quota 16: the 4 queued go, in order
    for _ in 0..32 {
        answer(&mut s, &fs, 2, 1, 100);
    }
    let sent: Vec<u64> = std::iter::from_fn(|| s.poll_action())
        .map(|a| match a {
            ModuleAction::SendInterest { interest, .. } => interest.name.seq.unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sent, [9, 10, 11, 12]);
    for q in 13..=16 {
        assert_eq!(out(&mut s, &fs, 1, q, true), InterestVerdict::Admit);
    }
    assert_eq!(out(&mut s, &fs, 1, 17, true), InterestVerdict::Hold);
}

/// A longer R̄TT (from another flow's answer; `quota_min_rtt = false`) grows every share; a
/// queued flow's next Interest first releases what its new quota allows.
#[test]
fn an_arrival_releases_what_a_grown_quota_allows() {
    let fs = faces(Some(40_000_000));
    let mut s = HbhShaper::new(HrIcpConfig {
        queue_limit: 100,
        quota_min_rtt: false,
        ..Default::default()
    });
    out(&mut s, &fs, 3, 1, false);
    answer(&mut s, &fs, 3, 1, 100); // R̄TT 100 ms
    out(&mut s, &fs, 2, 1, true);
    out(&mut s, &fs, 2, 2, true);
    let held = (1..=10)
        .filter(|&q| out(&mut s, &fs, 1, q, true) == InterestVerdict::Hold)
        .count();
    assert_eq!(held, 2, "8 of 16 each");
    // flow 2's first chunk took 300 ms: R̄TT 125 ms, ⌈625/2/32⌉ = 10 each
    for _ in 0..32 {
        answer(&mut s, &fs, 2, 1, 300);
    }
    assert_eq!(s.poll_action(), None, "flow 1 is not told");
    assert_eq!(out(&mut s, &fs, 1, 11, true), InterestVerdict::Hold);
    assert_eq!(std::iter::from_fn(|| s.poll_action()).count(), 2);
}

#[test]
fn expired_and_retransmitted_interests() {
    let fs = faces(None);
    let mut s = shaper(1, 10);
    out(&mut s, &fs, 1, 1, false);
    assert_eq!(out(&mut s, &fs, 1, 2, false), InterestVerdict::Hold);
    // the receiver retransmits the queued one: the new copy replaces it in the queue
    assert_eq!(out(&mut s, &fs, 1, 2, false), InterestVerdict::Hold);
    // and the pending one: admitted again without counting twice
    assert_eq!(out(&mut s, &fs, 1, 1, false), InterestVerdict::Admit);
    assert_eq!(s.poll_timeout(), Some(ms(0)));
    s.on_timeout(ms(0), &fs);
    s.on_timeout(ms(990), &fs);
    assert_eq!(s.poll_action(), None, "not expired yet");
    s.on_timeout(ms(1_000), &fs);
    assert_eq!(
        s.poll_action(),
        Some(ModuleAction::SendInterest {
            face: UP,
            interest: interest(1, 2, false)
        }),
        "an expired Interest frees its place"
    );
    assert_eq!(s.poll_action(), None);
    answer(&mut s, &fs, 1, 2, 1_010);
    assert_eq!(s.poll_action(), None, "the queue held one copy");
}

/// Multi-source (seed 001 Fig. 7): a multicast Interest is pending on both faces; the Data of
/// its holder (face 0) ends both, so the silent face keeps no place for ever.
#[test]
fn a_multicast_interest_answered_on_one_face_frees_both() {
    let mut fs = faces(None);
    let other = FaceId(1);
    fs.push(Face::new(
        other,
        FaceKind::Net { peer: 2, link: 1 },
        QueueLimit::Packets(100),
    ));
    let mut s = shaper(1, 10);
    for face in [UP, other] {
        let v = s.on_interest_out(ms(0), face, NameId(0), &interest(1, 1, false), &fs);
        assert_eq!(v, InterestVerdict::Admit);
    }
    // both faces are at their quota of 1
    for face in [UP, other] {
        let v = s.on_interest_out(ms(0), face, NameId(0), &interest(1, 2, false), &fs);
        assert_eq!(v, InterestVerdict::Hold, "{face:?}");
    }
    answer(&mut s, &fs, 1, 1, 10);
    // each face releases its queued copy of seq 2
    let mut released = Vec::new();
    while let Some(ModuleAction::SendInterest { face, interest }) = s.poll_action() {
        released.push((face, interest.name.seq));
    }
    assert_eq!(released, vec![(UP, Some(2)), (other, Some(2))]);
}

/// The fair-rate variant: a flow's Interests leave at B/(n·S) — one per 8 ms of 1 000-byte
/// Data at 1 Mbit/s with one flow, one per 16 ms each once a second flow is queued.
#[test]
fn fair_rate_variant_paces_each_flow_at_its_share() {
    let fs = faces(Some(1_000_000));
    let mut s = HbhShaper::new(HrIcpConfig {
        fair_rate: true,
        ..Default::default()
    });
    assert_eq!(out(&mut s, &fs, 1, 1, false), InterestVerdict::Admit);
    for seq in 2..5 {
        assert_eq!(out(&mut s, &fs, 1, seq, false), InterestVerdict::Hold);
    }
    s.on_timeout(ms(0), &fs); // the expiry sweep (next at 10 ms)
    assert_eq!(s.poll_timeout(), Some(ms(8)), "S·8/B = 8 ms");
    let mut sent = Vec::new();
    for t in 1..=40 {
        if s.poll_timeout().is_some_and(|w| w <= ms(t)) {
            s.on_timeout(ms(t), &fs);
        }
        while let Some(ModuleAction::SendInterest { interest, .. }) = s.poll_action() {
            sent.push((t, interest.name.seq.unwrap()));
        }
    }
    // seq 2 at 8 ms; then seq 1 and 2 are pending and answered never: n = 1 flow, 8 ms apart
    assert_eq!(sent, vec![(8, 2), (16, 3), (24, 4)]);
    // a second flow active: each flow's gap doubles
    let mut s = HbhShaper::new(HrIcpConfig {
        fair_rate: true,
        ..Default::default()
    });
    out(&mut s, &fs, 1, 1, false);
    out(&mut s, &fs, 2, 1, false);
    out(&mut s, &fs, 1, 2, false);
    out(&mut s, &fs, 1, 3, false);
    s.on_timeout(ms(8), &fs); // seq 2 leaves (its gap was set while flow 1 was alone)
    assert!(matches!(
        s.poll_action(),
        Some(ModuleAction::SendInterest { .. })
    ));
    s.on_timeout(ms(16), &fs);
    assert_eq!(s.poll_action(), None, "two flows pending: 16 ms per flow");
    assert_eq!(
        s.poll_timeout(),
        Some(ms(18)),
        "the sweep, before the flow's 24 ms"
    );
    s.on_timeout(ms(24), &fs);
    assert!(matches!(
        s.poll_action(),
        Some(ModuleAction::SendInterest { .. })
    ));
}

/// The smallest RTT takes only Interests sent once: a resent Interest answered 10 ms after its
/// last copy (the first copy's Data) would make the quota 2 instead of 16 for good.
#[test]
fn a_resent_interest_gives_no_smallest_rtt_sample() {
    let fs = faces(Some(40_000_000));
    let mut s = shaper(0, 100);
    out(&mut s, &fs, 1, 1, false);
    answer(&mut s, &fs, 1, 1, 100);
    assert_eq!(s.quota(0, &fs[0], 32), 16);
    out(&mut s, &fs, 1, 2, false);
    out(&mut s, &fs, 1, 2, false); // resent while pending
    answer(&mut s, &fs, 1, 2, 10);
    assert_eq!(s.quota(0, &fs[0], 32), 16);
    // sent once, a shorter RTT does count: 40 Mbps × 50 ms / 32 KB = 7.6 → 8
    out(&mut s, &fs, 1, 3, false);
    answer(&mut s, &fs, 1, 3, 50);
    assert_eq!(s.quota(0, &fs[0], 32), 8);
}
