//! Wall-clock time of a run's phases, for `ndncc bench` (measurements of this machine, never
//! part of the summary, the metadata or the tables, which stay a pure function of the scenario).

use std::time::Instant;

/// Seconds spent in each phase of one [`crate::run`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Computing the routes (`routing::routes`, within the build).
    pub routes_s: f64,
    /// Building the network (nodes, faces, links, apps, control plane), routes excluded.
    pub build_s: f64,
    /// The event loop (`World::run`).
    pub loop_s: f64,
    /// The summary and the metadata (Rust values, not yet JSON).
    pub report_s: f64,
    /// The time-series and delay tables (0 when tables are off).
    pub tables_s: f64,
    /// Dropping the network (nodes, links, packets still in flight).
    pub teardown_s: f64,
}

/// Seconds since `t`, and restarts `t` (so consecutive phases are timed back to back).
pub(crate) fn lap(t: &mut Instant) -> f64 {
    let now = Instant::now();
    let s = now.duration_since(*t).as_secs_f64();
    *t = now;
    s
}
