//! Time per event by kind of event (feature `event-cost`, off by default): which events a
//! large network makes dearer, measured rather than guessed. Each event is timed with the
//! processor's time-stamp counter (x86-64; the OS clock elsewhere) from before it is told
//! apart (a node's kind, hub or edge, from a table made as the loop starts, so that telling
//! reads no more of the node than the event itself does) to after it ran, the counter
//! calibrated against the OS clock over the loop, and the figures of the last run on this
//! thread kept for [`crate::event_cost::last`]. The timing itself costs time per event, so
//! loop times measured with the feature on are not the bench's (compare kinds, and the same
//! kind across runs). No result depends on it.

use super::events::EventKind;
use super::World;
use ndncc_core::Packet;
use std::cell::RefCell;

/// The kinds of events told apart: where (an edge node, at most
/// [`ndncc_core::node::EDGE_FACES`] faces, or a hub) and what.
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

/// A run's tally, kept in the world (no thread-local access per event).
#[derive(Default)]
pub(super) struct Tally {
    events: [u64; CLASSES.len()],
    ticks: [u64; CLASSES.len()],
    start: Option<(u64, std::time::Instant)>,
    /// Per node: a hub (not [`ndncc_core::Node::is_edge`]).
    hub: Vec<bool>,
}

thread_local! {
    /// The last run's figures on this thread.
    static LAST: RefCell<Vec<ClassCost>> = const { RefCell::new(Vec::new()) };
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

/// Starts the world's tally.
pub(super) fn begin(w: &mut World) {
    w.cost = Tally {
        start: Some((ticks(), std::time::Instant::now())),
        hub: w.nodes.iter().map(|n| !n.is_edge()).collect(),
        ..Tally::default()
    };
}

/// Ends the world's tally: calibrates the counter against the OS clock over the loop and
/// keeps the figures for [`last`].
pub(super) fn end(w: &mut World) {
    let t = &mut w.cost;
    let Some((t0, i0)) = t.start.take() else {
        return;
    };
    let ns_per_tick = i0.elapsed().as_nanos() as f64 / ticks().saturating_sub(t0).max(1) as f64;
    let all: u64 = t.ticks.iter().sum();
    let figures = (0..CLASSES.len())
        .filter(|&c| t.events[c] > 0)
        .map(|c| ClassCost {
            class: CLASSES[c],
            events: t.events[c],
            ns_per_event: t.ticks[c] as f64 * ns_per_tick / t.events[c] as f64,
            share: t.ticks[c] as f64 / all.max(1) as f64,
        })
        .collect();
    LAST.with(|l| *l.borrow_mut() = figures);
}

/// An event being timed.
pub(super) struct Probe {
    class: usize,
    t0: u64,
}

impl Probe {
    /// Starts the clock of the event (`kind`, `idx`) about to run at `now_ns`, and tells its
    /// kind.
    #[inline]
    pub(super) fn start(w: &World, kind: EventKind, idx: u32, now_ns: u64) -> Probe {
        let t0 = ticks();
        let hub = |n: u32| w.cost.hub.get(n as usize).copied().unwrap_or(false);
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
        Probe { class, t0 }
    }

    /// Stops the clock and counts the event.
    #[inline]
    pub(super) fn stop(self, w: &mut World) {
        w.cost.events[self.class] += 1;
        w.cost.ticks[self.class] += ticks().saturating_sub(self.t0);
    }
}

/// The figures of the last run on this thread, by kind of event (kinds that did not occur
/// left out); empty before any run.
pub fn last() -> Vec<ClassCost> {
    LAST.with(|l| l.borrow().clone())
}
