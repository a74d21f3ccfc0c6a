//! Time per event by kind of event (feature `event-cost`, off by default): which events a
//! large network makes dearer, measured rather than guessed. Each event is timed with the
//! processor's time-stamp counter (x86-64; the OS clock elsewhere), the counter calibrated
//! against the OS clock over the loop, and the figures of the last run on this thread kept
//! for [`crate::event_cost::last`]. The timing itself costs ≈ 20–40 ns per event, so loop
//! times measured with the feature on are not the bench's. No result depends on it.

use super::events::EventKind;
use super::World;
use ndncc_core::Packet;
use std::cell::RefCell;

/// The kinds of events told apart: where (an edge node, at most 4 faces, or a hub) and what.
const CLASSES: [&str; 10] = [
    "arrival at an edge node: Interest",
    "arrival at an edge node: Data or Nack",
    "arrival at a hub: Interest",
    "arrival at a hub: Data or Nack",
    "link free (next packet) at an edge node",
    "link free (next packet) at a hub",
    "timer at an edge node, an app due",
    "timer at an edge node, the forwarder's alone",
    "timer at a hub",
    "other (sampling, control plane)",
];

/// One kind of event's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassCost {
    pub class: &'static str,
    pub events: u64,
    /// Mean wall time per event of this kind (nanoseconds).
    pub ns_per_event: f64,
    /// Share of the time of all events.
    pub share: f64,
}

#[derive(Default)]
struct Tally {
    events: [u64; CLASSES.len()],
    ticks: [u64; CLASSES.len()],
    start: Option<(u64, std::time::Instant)>,
    ns_per_tick: f64,
}

thread_local! {
    static TALLY: RefCell<Tally> = RefCell::new(Tally::default());
}

#[inline]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: reads the time-stamp counter; no memory is touched.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static T0: OnceLock<std::time::Instant> = OnceLock::new();
        T0.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
    }
}

/// Starts a run's tally (forgets the last one).
pub(super) fn begin() {
    TALLY.with(|t| {
        *t.borrow_mut() = Tally {
            start: Some((ticks(), std::time::Instant::now())),
            ..Tally::default()
        }
    });
}

/// Ends the run's tally: calibrates the counter against the OS clock over the loop.
pub(super) fn end() {
    TALLY.with(|t| {
        let mut t = t.borrow_mut();
        if let Some((t0, i0)) = t.start.take() {
            let n = ticks().saturating_sub(t0).max(1);
            t.ns_per_tick = i0.elapsed().as_nanos() as f64 / n as f64;
        }
    });
}

/// An event being timed.
pub(super) struct Probe {
    class: usize,
    t0: u64,
}

impl Probe {
    /// Classifies the event (`kind`, `idx`) about to run at `now_ns` and starts its clock.
    pub(super) fn start(w: &World, kind: EventKind, idx: u32, now_ns: u64) -> Probe {
        let hub = |n: u32| w.nodes[n as usize].fwd.faces().len() > 4;
        let class = match kind {
            EventKind::Arrive => {
                let l = &w.links[idx as usize];
                let interest =
                    matches!(w.wire.front_packet(&l.in_flight), Some(Packet::Interest(_)));
                2 * hub(l.to) as usize + !interest as usize
            }
            EventKind::TxDone => 4 + hub(w.links[idx as usize].from) as usize,
            EventKind::NodeTimer if hub(idx) => 8,
            EventKind::NodeTimer => {
                6 + !w.nodes[idx as usize].app_due(ndncc_core::Instant(now_ns)) as usize
            }
            _ => 9,
        };
        Probe { class, t0: ticks() }
    }

    /// Stops the clock and counts the event.
    pub(super) fn stop(self) {
        let dt = ticks().saturating_sub(self.t0);
        TALLY.with(|t| {
            let mut t = t.borrow_mut();
            t.events[self.class] += 1;
            t.ticks[self.class] += dt;
        });
    }
}

/// The figures of the last run on this thread, by kind of event (kinds that did not occur
/// left out); empty before any run.
pub fn last() -> Vec<ClassCost> {
    TALLY.with(|t| {
        let t = t.borrow();
        let all: u64 = t.ticks.iter().sum();
        (0..CLASSES.len())
            .filter(|&c| t.events[c] > 0)
            .map(|c| ClassCost {
                class: CLASSES[c],
                events: t.events[c],
                ns_per_event: t.ticks[c] as f64 * t.ns_per_tick / t.events[c] as f64,
                share: t.ticks[c] as f64 / all.max(1) as f64,
            })
            .collect()
    })
}
