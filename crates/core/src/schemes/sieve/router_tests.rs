//! Unit tests of the router options that read §4.1 differently (`queue_alone`,
//! `beta_on_arrival`, `mark_on_enqueue`, `beta_windows`, `beta_gain`).

use super::tests::{at, data, net_face, router as default_router, send};
use super::*;
use crate::face::{Face, FaceId};
use crate::packet::Packet;
use crate::schemes::RouterHooks;

/// Offers `bytes` to the router's enqueue step on `face` in Data packets of 1 000 B; returns
/// how many joined marked.
fn offer(r: &mut SieveRouter, faces: &[Face], face: u32, bytes: u64) -> u32 {
    let mut marked = 0;
    for _ in 0..bytes / 1000 {
        let mut p = Packet::Data(data(1000));
        assert!(r.on_enqueue(at(0), FaceId(face), &mut p, faces));
        if let Packet::Data(d) = p {
            marked += u32::from(d.ext.mark);
        }
    }
    marked
}

#[test]
fn with_queue_alone_a_long_queue_marks_whatever_the_last_window_averaged() {
    let cfg = SieveRouterConfig {
        queue_alone: true,
        ..Default::default()
    };
    let mut r = SieveRouter::new(cfg);
    let (short, long) = ([net_face(0, 30)], [net_face(0, 31)]);
    // before any window (β = 0) and after a window with β = 0.5
    assert_eq!(send(&mut r, &long, 0, 10_000), 10, "ε > th2 marks at β = 0");
    assert_eq!(send(&mut r, &short, 0, 10_000), 0, "ε = th2 does not");
    send(&mut r, &short, 0, 40_000); // 60 kB in the window: β = 0.48
    r.on_timeout(at(100), &short);
    assert!((r.measures(FaceId(0)).0 - 0.48).abs() < 1e-12);
    assert_eq!(r.state(FaceId(0)), State::Free, "the state keeps Table 2");
    assert_eq!(send(&mut r, &long, 0, 5_000), 5);
    assert_eq!(send(&mut r, &short, 0, 5_000), 0);
}

#[test]
fn beta_on_arrival_counts_what_joins_the_queue_and_not_what_leaves() {
    let cfg = SieveRouterConfig {
        beta_on_arrival: true,
        ..Default::default()
    };
    let mut r = SieveRouter::new(cfg);
    let faces = [net_face(0, 0)];
    // 250 kB offered in 100 ms (twice the link), 50 kB sent: β = 2
    offer(&mut r, &faces, 0, 250_000);
    send(&mut r, &faces, 0, 50_000);
    r.on_timeout(at(100), &faces);
    assert!((r.measures(FaceId(0)).0 - 2.0).abs() < 1e-12);
    // the default counts what leaves: the same traffic gives β = 0.4
    let mut d = default_router();
    offer(&mut d, &faces, 0, 250_000);
    send(&mut d, &faces, 0, 50_000);
    d.on_timeout(at(100), &faces);
    assert!((d.measures(FaceId(0)).0 - 0.4).abs() < 1e-12);
}

#[test]
fn mark_on_enqueue_marks_data_joining_a_long_queue_and_not_when_it_leaves() {
    let cfg = SieveRouterConfig {
        mark_on_enqueue: true,
        queue_alone: true,
        ..Default::default()
    };
    let mut r = SieveRouter::new(cfg);
    let (short, long) = ([net_face(0, 30)], [net_face(0, 31)]);
    assert_eq!(offer(&mut r, &long, 0, 10_000), 10);
    assert_eq!(offer(&mut r, &short, 0, 10_000), 0);
    assert_eq!(
        send(&mut r, &long, 0, 10_000),
        0,
        "nothing marked on the way out"
    );
    // the default marks on the way out only
    let mut d = SieveRouter::new(SieveRouterConfig {
        queue_alone: true,
        ..Default::default()
    });
    assert_eq!(offer(&mut d, &long, 0, 10_000), 0);
    assert_eq!(send(&mut d, &long, 0, 10_000), 10);
}

#[test]
fn beta_averages_the_last_windows_and_forgets_by_its_gain() {
    let faces = [net_face(0, 0)];
    // windows of 100 ms carrying 25, 50, 100 and 0 kB: utilisation 0.2, 0.4, 0.8, 0
    let run = |windows: u32, gain: f64| {
        let mut r = SieveRouter::new(SieveRouterConfig {
            beta_windows: windows,
            beta_gain: gain,
            ..Default::default()
        });
        let mut betas = Vec::new();
        for (k, kb) in [25_000, 50_000, 100_000, 0].into_iter().enumerate() {
            send(&mut r, &faces, 0, kb);
            r.on_timeout(at(100 * (k as u64 + 1)), &faces);
            betas.push(r.measures(FaceId(0)).0);
        }
        betas
    };
    let close = |a: Vec<f64>, b: [f64; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
    assert!(
        close(run(1, 1.0), [0.2, 0.4, 0.8, 0.0]),
        "the last window alone"
    );
    assert!(
        close(run(2, 1.0), [0.2, 0.3, 0.6, 0.4]),
        "the mean of the last two"
    );
    assert!(
        close(run(3, 1.0), [0.2, 0.3, 1.4 / 3.0, 0.4]),
        "the mean of the last three"
    );
    // EWMA, gain 0.5 from β = 0: 0.1, 0.25, 0.525, 0.2625
    assert!(
        close(run(1, 0.5), [0.1, 0.25, 0.525, 0.2625]),
        "{:?}",
        run(1, 0.5)
    );
}
