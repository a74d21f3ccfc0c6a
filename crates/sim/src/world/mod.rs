//! Building a network from a [`ScenarioSpec`] and running its event loop.
//!
//! * `build` — nodes, faces, links, routes and apps from the resolved spec;
//! * `events` — the events' keys, scheduling, links (serialization, propagation, loss) and the loop;
//! * `queue` — the event queue: a binary heap, or on large networks the `calendar` (a small heap
//!   for the current time slot, later events in time buckets);
//! * `wire` — the packets in flight on every link (one store, a FIFO per direction);
//! * `sample` — the time-series tables, sampled every trace bin;
//! * `report` — the summary and the metadata of faces and apps;
//! * `prefetch` — asking for the next events' cache lines while the current one runs;
//! * `control` — controller components and the control links that join them to nodes.

mod build;
mod calendar;
mod control;
#[cfg(feature = "event-cost")]
pub(crate) mod cost;
mod events;
mod prefetch;
mod queue;
mod report;
mod sample;
mod wire;

use crate::output::SimOutput;
use crate::spec::{ScenarioSpec, SpecError};
pub use control::ControlLink;
use control::ControlPlane;
use events::{Event, LinkDir};
use ndncc_core::control::ControllerComponent;
use ndncc_core::schemes::RouterHooks;
use ndncc_core::{FaceId, Instant, Node};
use sample::Series;

/// Options of one run that are not part of the scenario.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Build the time-series and delay tables (off for benchmarks).
    pub tables: bool,
    /// Call the progress callback every this many events.
    pub progress_every: u64,
    /// Run the network as a large one (buffer pools, prefetching, the calendar event queue) or
    /// not; `None` (the default): from [`crate::LARGE_NETWORK_NODES`] nodes. A speed choice
    /// only — results are the same either way (a test runs scenarios both ways).
    pub large_network: Option<bool>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            tables: true,
            progress_every: 1 << 16,
            large_network: None,
        }
    }
}

/// Parts of a run given as code rather than by the scenario: router modules of your own for some
/// nodes (replacing the scenario's), and controller components with their control links. For
/// experiments and tests in Rust ([`run_with`]).
#[derive(Default)]
pub struct Parts {
    /// (node index, module).
    pub modules: Vec<(usize, Box<dyn RouterHooks + Send>)>,
    pub controllers: Vec<Box<dyn ControllerComponent + Send>>,
    pub control_links: Vec<ControlLink>,
}

/// Where a global app index lives.
#[derive(Clone, Copy)]
struct AppLoc {
    node: u32,
    slot: u32,
}

struct World<'a> {
    spec: &'a ScenarioSpec,
    nodes: Vec<Node>,
    links: Vec<LinkDir>,
    wire: wire::Wire,
    apps: Vec<AppLoc>,
    events: queue::Events<Event>,
    seq: u64,
    node_sched: Vec<Option<Instant>>,
    ready: Vec<FaceId>,
    now: Instant,
    processed: u64,
    packet_hops: u64,
    link_losses: u64,
    series: Series,
    control: ControlPlane,
    /// Prefetching the next events' state (large networks).
    ahead: prefetch::Ahead,
    /// Time per event by kind of event (feature `event-cost`).
    #[cfg(feature = "event-cost")]
    cost: cost::Tally,
}

/// Why a run produced no output.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    Spec(SpecError),
    /// The progress callback asked to stop.
    Interrupted,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Spec(e) => e.fmt(f),
            SimError::Interrupted => write!(f, "run interrupted"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<SpecError> for SimError {
    fn from(e: SpecError) -> Self {
        SimError::Spec(e)
    }
}

/// Runs a scenario to its end. `progress` receives the simulated time in seconds from time to
/// time and once at the end; returning false stops the run.
pub fn run(
    spec: &ScenarioSpec,
    opts: &RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<SimOutput, SimError> {
    run_with(spec, opts, Parts::default(), progress)
}

/// [`run`] with parts given as code ([`Parts`]).
pub fn run_with(
    spec: &ScenarioSpec,
    opts: &RunOptions,
    parts: Parts,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<SimOutput, SimError> {
    run_inner(spec, opts, parts, progress, false).map(|(out, _)| out)
}

/// The network of a finished run, still allocated (nodes, links, packets in flight, event
/// queue): [`run_deferred`] hands it back so that it can be dropped elsewhere
/// ([`crate::deferred::drop_later`]). Dropping it frees it.
pub struct Leftovers(#[allow(dead_code)] Box<dyn Send>);

/// [`run`], but the finished network is not dropped: it is returned beside the output, to be
/// dropped off the caller's path. `phases.teardown_s` is then only the time to move it out.
pub fn run_deferred(
    spec: &ScenarioSpec,
    opts: &RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<(SimOutput, Leftovers), SimError> {
    run_inner(spec, opts, Parts::default(), progress, true)
        .map(|(out, left)| (out, left.expect("deferred run keeps its network")))
}

fn run_inner(
    spec: &ScenarioSpec,
    opts: &RunOptions,
    parts: Parts,
    progress: &mut dyn FnMut(f64) -> bool,
    defer: bool,
) -> Result<(SimOutput, Option<Leftovers>), SimError> {
    use crate::phases::{lap, Phases};
    let mut phases = Phases::default();
    let mut t = std::time::Instant::now();
    let large = opts.large_network.unwrap_or(crate::is_large_network(spec));
    let mut w = World::build(spec, parts, large, &mut phases.routes_s)?;
    phases.build_s = lap(&mut t) - phases.routes_s;
    if !w.run(opts, progress) {
        return Err(SimError::Interrupted);
    }
    phases.loop_s = lap(&mut t);
    let (summary, meta) = w.report();
    phases.report_s = lap(&mut t);
    let tables = if opts.tables { w.tables() } else { Vec::new() };
    phases.tables_s = lap(&mut t);
    let left = if defer {
        Some(w.into_leftovers())
    } else {
        drop(w);
        None
    };
    phases.teardown_s = lap(&mut t);
    let out = SimOutput {
        summary,
        meta,
        tables,
        phases,
    };
    Ok((out, left))
}

impl World<'_> {
    /// Everything the world owns (all of it but the spec it borrows).
    fn into_leftovers(self) -> Leftovers {
        let World {
            spec: _,
            nodes,
            links,
            wire,
            apps,
            events,
            node_sched,
            ready,
            series,
            control,
            ..
        } = self;
        Leftovers(Box::new((
            nodes, links, wire, apps, events, node_sched, ready, series, control,
        )))
    }
}
