//! ndncc-sim: the deterministic discrete-event driver of ndncc-core.
//!
//! * Virtual time in integer nanoseconds; an event queue keyed `(time, seq)`: events at the same
//!   instant run in the order they were scheduled (FIFO ties), so a run is a pure function of the
//!   scenario and its seed.
//! * Links per `../shared/specs/substrate.md`: full duplex point-to-point, a packet waits in the
//!   sender face's drop-tail queue, takes `size·8/bandwidth` to serialize (rounded up to the
//!   nanosecond), then the propagation delay to arrive; optional random loss per direction.
//! * One seeded random stream per component (node, app, link direction), derived from
//!   `(seed, run, kind, index)`.

pub mod compact;
pub mod deferred;
pub mod engines;
/// Time per event by kind of event (feature `event-cost`): `event_cost::last()` after a run.
#[cfg(feature = "event-cost")]
pub mod event_cost {
    pub use crate::world::cost::{last, ClassCost};
}
pub mod hugepages;
pub mod output;
pub mod phases;
pub mod routing;
pub mod spec;
pub mod summary;
mod world;

pub use output::{Column, SimOutput, Table};

/// From this many nodes a network counts as large: the simulator pools emptied buffers,
/// prefetches its next events' state and keeps its events in a calendar queue, and the binding
/// frees a finished run on a background thread ([`deferred`]). Below it each costs more than
/// it saves. Speed only: results are the same either way (`benches/README.md`: sixth and
/// eighth sittings; ninth for the move from 4 096 to 1 024, which made scale-1000's 2 002-node
/// loop ≈ 15 % faster).
pub const LARGE_NETWORK_NODES: usize = 1024;

/// Whether `spec`'s network counts as large ([`LARGE_NETWORK_NODES`] nodes or more): what
/// [`RunOptions::large_network`] defaults to, and when a driver frees a run on a background
/// thread ([`deferred`]) and prepares the heap for huge pages ([`hugepages`]).
pub fn is_large_network(spec: &ScenarioSpec) -> bool {
    spec.nodes.len() >= LARGE_NETWORK_NODES
}
pub use phases::Phases;
pub use spec::{ScenarioSpec, SpecError};
pub use world::{run, run_deferred, run_with, ControlLink, Leftovers, Parts, RunOptions, SimError};

/// A name prefix must be a URI starting with `/`.
pub(crate) fn check_prefix(p: &str) -> Result<(), String> {
    if p.starts_with('/') {
        Ok(())
    } else {
        Err(format!("prefix '{p}' must start with '/'"))
    }
}
