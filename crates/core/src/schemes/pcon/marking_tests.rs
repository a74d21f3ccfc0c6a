//! PCON marking follows the reference schedule packet by packet.

use super::*;
use crate::face::{FaceKind, QueueLimit};
use crate::name::{Name, NameId};
use crate::packet::{Interest, Nack, NackReason};
use crate::schemes::testkit::{self, is_marked};

const MS: u64 = 1_000_000;

fn at(ms: f64) -> Instant {
    Instant((ms * MS as f64).round() as u64)
}

fn marker(threshold: u64) -> PconMarker {
    PconMarker::new(PconConfig {
        threshold,
        ..Default::default()
    })
}

/// NFD's schedule: first packet over the threshold arms next_mark = now + 100 ms; marks at
/// next_mark, then next_mark += 100 ms/√(n+1) with n the marks so far; a packet with the queue
/// at (not above) the threshold resets.
#[test]
fn nfd_schedule_packet_by_packet() {
    let mut m = marker(1000);
    let f = FaceId(0);
    let s2 = 70_710_678; // 100 ms / √2 in ns (truncated)
    let s3 = 57_735_026; // 100 ms / √3
    let s4 = 50_000_000; // 100 ms / √4
                         // (time, queued bytes before the packet, marked?)
    let steps: Vec<(Instant, u64, bool)> = vec![
        (at(0.0), 500, false),
        (at(10.0), 1001, false), // over: next_mark = 110 ms
        (at(50.0), 5000, false),
        (Instant(110 * MS - 1), 5000, false),
        (at(110.0), 5000, true), // n = 1, next = 110 + s2
        (Instant(110 * MS + s2 - 1), 5000, false),
        (Instant(110 * MS + s2), 5000, true), // n = 2, next += s3
        (Instant(110 * MS + s2 + s3 - 1), 5000, false),
        (Instant(110 * MS + s2 + s3), 5000, true), // n = 3, next += s4
        (Instant(110 * MS + s2 + s3 + s4 - 1), 2000, false),
        (at(250.0), 1000, false), // at the threshold: reset
        (at(260.0), 1001, false), // a new episode: next = 360 ms
        (at(359.0), 1001, false),
        (at(360.0), 1001, true), // n = 1 again: next = 360 + s2
        // late: the next mark is still counted from the previous next_mark, not from now
        (at(500.0), 1001, true), // n = 2, next = 360 + s2 + s3 ≈ 488.4 ms
        (at(489.0), 1001, true), // (time only moves forward in a run; the rule reads next_mark)
        (at(490.0), 1001, false),
    ];
    for (i, &(t, q, want)) in steps.iter().enumerate() {
        assert_eq!(m.nfd_step(t, f, q), want, "step {i} at {t:?} with {q} B");
    }
    // the schedule of each face is its own
    assert!(!m.nfd_step(at(600.0), FaceId(1), 5000));
}

fn face_with(bytes: u32) -> Face {
    let mut f = Face::new(
        FaceId(0),
        FaceKind::Net { peer: 1, link: 0 },
        QueueLimit::Packets(1000),
    );
    if bytes > 0 {
        f.enqueue(Instant::ZERO, interest(bytes));
    }
    f
}

fn interest(size: u32) -> Packet {
    Packet::Interest(Interest::new(
        Name::new(NameId(1), 0),
        0,
        Duration::from_secs(1),
        size,
    ))
}

fn data(mark: bool) -> Packet {
    Packet::Data(testkit::data(NameId(1), 0, mark))
}

/// Through the hook: every packet type runs the schedule (an Interest or a Nack spends a mark),
/// only Data carry it, the queue is read before the packet joins, and a marked Data stays
/// marked.
#[test]
fn every_packet_type_runs_the_schedule_at_enqueue() {
    let mut m = marker(1000);
    let f = FaceId(0);
    let busy = [face_with(1500)];
    let idle = [face_with(0)];
    // the packet's own size does not count: 999 B queued + a 1100 B Data is not congested
    let mut d = data(false);
    assert!(m.on_enqueue(at(0.0), f, &mut d, &[face_with(999)]));
    assert!(!is_marked(&d));
    let mut i = interest(50);
    m.on_enqueue(at(1.0), f, &mut i, &busy); // arms: next = 101 ms
    let mut n = Packet::Nack(Nack {
        reason: NackReason::Congestion,
        interest: Interest::new(Name::new(NameId(1), 0), 0, Duration::from_secs(1), 50),
        size: 54,
    });
    m.on_enqueue(at(101.0), f, &mut n, &busy); // the Nack takes mark 1
    let mut d = data(false);
    m.on_enqueue(at(102.0), f, &mut d, &busy);
    assert!(!is_marked(&d), "the mark went to the Nack");
    let mut g = [f64::NAN; 2];
    m.face_gauges(at(102.0), f, &mut g);
    assert_eq!(g, [1.0, 1.0]);
    let mut d = data(false);
    m.on_enqueue(at(101.0 + 70.710_678), f, &mut d, &busy);
    assert!(is_marked(&d), "mark 2 goes to the Data");
    // an arriving mark survives an idle queue (and the idle queue resets the schedule)
    let mut d = data(true);
    m.on_enqueue(at(300.0), f, &mut d, &idle);
    assert!(is_marked(&d));
    m.face_gauges(at(300.0), f, &mut g);
    assert_eq!(g, [2.0, 0.0]);
    // NFD's rule ignores dequeue
    let mut d = data(false);
    m.on_dequeue(at(400.0), f, &mut d, Duration::from_secs(1), &busy);
    assert!(!is_marked(&d));
}

/// The CoDel-style option: sojourn ≥ target for one interval, then marks spaced
/// 1.1·interval/√count from the last mark; a sojourn under target ends the episode; enqueue
/// does nothing.
#[test]
fn codel_option_marks_from_sojourn_times() {
    let mut m = PconMarker::new(PconConfig {
        codel: true,
        ..Default::default()
    });
    let f = FaceId(0);
    let busy = [face_with(100_000)];
    let mut d = data(false);
    m.on_enqueue(at(0.0), f, &mut d, &busy);
    assert!(!is_marked(&d), "no marking at enqueue");
    let high = Duration::from_millis(5);
    let low = Duration(5 * MS - 1);
    let g1 = 110_000_000; // 1.1·100 ms/√1
    let g2 = 77_781_745; // 1.1·100 ms/√2 (truncated)
    assert!(!m.codel_step(at(0.0), f, low));
    assert!(
        !m.codel_step(at(10.0), f, high),
        "standing: first mark due at 110 ms"
    );
    assert!(!m.codel_step(Instant(110 * MS - 1), f, high));
    assert!(
        m.codel_step(at(110.0), f, high),
        "first mark at 110 ms, count 1"
    );
    assert!(!m.codel_step(Instant(110 * MS + g1 - 1), f, high));
    let t2 = 110 * MS + g1 + 5;
    assert!(m.codel_step(Instant(t2), f, high), "count 2");
    // counted from the mark (now +), not from the previous due time
    assert!(!m.codel_step(Instant(t2 + g2 - 1), f, high));
    assert!(m.codel_step(Instant(t2 + g2), f, high));
    // below target: reset, the next standing episode waits a full interval again
    assert!(!m.codel_step(at(400.0), f, low));
    assert!(!m.codel_step(at(401.0), f, high));
    assert!(!m.codel_step(at(500.0), f, high));
    assert!(m.codel_step(at(501.0), f, high));
    // through the hook: the packet leaving is marked
    let mut d = data(false);
    m.on_dequeue(at(700.0), f, &mut d, high, &busy);
    assert!(is_marked(&d));
}

fn face_limited(limit: QueueLimit, queued: u64) -> Face {
    let mut f = Face::new(FaceId(0), FaceKind::Net { peer: 1, link: 0 }, limit);
    let mut left = queued;
    while left > 0 {
        let size = left.min(1000);
        f.enqueue(Instant::ZERO, interest(size as u32));
        left -= size;
    }
    f
}

/// `cap_half_queue` (NFD 0.6.1–0.6.6) caps the threshold at half the send queue's capacity (a
/// packet-limited queue counting 1500 B per place, as ndnSIM's net-device transport reports
/// it): a 50-packet queue, whose 50 places never hold 64 KiB of 1 KB Data, is congested above
/// 37 500 B; a queue of 30 000 B above 15 000 B; a 1000-packet queue keeps the configured
/// 65 536 B. Without it (NFD 0.7, ndnSIM 2.8) the threshold is the configured one everywhere.
#[test]
fn cap_half_queue_makes_the_threshold_follow_the_faces_buffer() {
    let capped = |threshold| {
        PconMarker::new(PconConfig {
            threshold,
            cap_half_queue: true,
            ..Default::default()
        })
    };
    let m = capped(65_536);
    assert_eq!(m.threshold_for(QueueLimit::Packets(50)), 37_500);
    assert_eq!(m.threshold_for(QueueLimit::Packets(87)), 65_250);
    assert_eq!(m.threshold_for(QueueLimit::Packets(1000)), 65_536);
    assert_eq!(m.threshold_for(QueueLimit::Bytes(30_000)), 15_000);
    assert_eq!(m.threshold_for(QueueLimit::Bytes(30_001)), 15_000);
    assert_eq!(
        capped(10_000).threshold_for(QueueLimit::Packets(50)),
        10_000
    );
    let plain = marker(65_536);
    assert_eq!(plain.threshold_for(QueueLimit::Packets(50)), 65_536);
    assert_eq!(plain.threshold_for(QueueLimit::Bytes(30_000)), 65_536);
    // through the hook: just above the capped threshold is congestion, at it is not
    let f = FaceId(0);
    for (limit, over, at_cap) in [
        (QueueLimit::Packets(50), 37_501, 37_500),
        (QueueLimit::Bytes(30_000), 15_001, 15_000),
        (QueueLimit::Packets(1000), 65_537, 65_536),
    ] {
        for (mut m, capped_run) in [(capped(65_536), true), (marker(65_536), false)] {
            let busy = [face_limited(limit, over)];
            let full = [face_limited(limit, at_cap)];
            let mut d = data(false);
            m.on_enqueue(at(0.0), f, &mut d, &busy); // arms: next = 100 ms
            m.on_enqueue(at(100.0), f, &mut d, &busy);
            let want = capped_run || over > 65_536;
            assert_eq!(
                is_marked(&d),
                want,
                "{limit:?}, capped {capped_run}: {over} B"
            );
            let mut d = data(false);
            m.on_enqueue(at(150.0), f, &mut d, &full); // at the threshold: reset
            m.on_enqueue(at(300.0), f, &mut d, &full);
            assert!(!is_marked(&d), "{limit:?}: {at_cap} B queued is not");
        }
    }
}
