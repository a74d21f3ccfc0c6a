//! The *resolved* scenario: what the simulator runs.
//!
//! Users write TOML (see `docs/scenario.md`); the `ndncc.scenario` package validates it, converts
//! every unit to integers (nanoseconds, bits per second, bytes), computes routes, and hands this
//! structure over as JSON. Scheme configs are the core's own types (`ndncc_core::schemes`), whose
//! defaults and bounds the Python side reads from the registry's schema. Everything here is
//! already checked by Python; [`ScenarioSpec::check`] (run once, by [`crate::run`]) re-checks the
//! invariants the simulator relies on so that a hand-written spec gets an error, never a panic.
//!
//! Indices (`node`, `link`, `app`) are positions in the corresponding vectors.

use ndncc_core::packet::ChunkRequest;
use ndncc_core::schemes::components::ComponentConfig;
use ndncc_core::schemes::registry::scheme_tag;
use ndncc_core::schemes::strategies;
use ndncc_core::schemes::{ControllerConfig, RouterConfig};
use serde::{Deserialize, Serialize};

/// A whole resolved scenario.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Scenario name, copied into the summary.
    pub name: String,
    /// Simulated duration in nanoseconds.
    pub duration_ns: u64,
    /// Base seed (ns-3's `RngSeed`).
    #[serde(default)]
    pub seed: u64,
    /// Replication number selecting independent streams (ns-3's `RngRun`).
    #[serde(default)]
    pub run: u64,
    #[serde(default)]
    pub packets: PacketSpec,
    /// A JSON array, or its compact form ([`crate::compact`]), as are `links` and `apps`.
    #[serde(deserialize_with = "crate::compact::rows")]
    pub nodes: Vec<NodeSpec>,
    #[serde(default, deserialize_with = "crate::compact::rows")]
    pub links: Vec<LinkSpec>,
    /// How FIB entries are made besides `routes` (default: only `routes`).
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Static FIB entries (`[[routes]]`); computed ones are added by [`crate::routing`].
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    #[serde(default, deserialize_with = "crate::compact::rows")]
    pub apps: Vec<AppSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
    /// Controller components (`[sdn.<name>]`: an SDN controller) with their control links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentSpec>,
}

/// A controller component and the nodes it is joined to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ComponentSpec {
    /// The component's config, keyed by its name (`{"sieve": {...}}`).
    pub config: ComponentConfig,
    /// The nodes with a control link to it (a node has at most one).
    pub nodes: Vec<usize>,
    /// One-way delay of each control link, in nanoseconds.
    #[serde(default)]
    pub delay_ns: u64,
}

/// Packet sizes used by the simulator (it carries sizes, never payload bytes).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PacketSpec {
    /// Wire size of every Interest in bytes (ndnSIM's `avgInterest`: 40).
    #[serde(default = "default_interest_size")]
    pub interest_size: u32,
    /// Bytes added to a producer's payload to form the Data wire size (default 0: the payload
    /// size *is* the wire size, as in the Kato experiments' "1250-byte Data").
    #[serde(default)]
    pub data_overhead: u32,
    /// Wire size of a Nack header added to the Interest it carries, in bytes.
    #[serde(default = "default_nack_overhead")]
    pub nack_overhead: u32,
}

fn default_interest_size() -> u32 {
    40
}
fn default_nack_overhead() -> u32 {
    4
}

impl Default for PacketSpec {
    fn default() -> Self {
        PacketSpec {
            interest_size: default_interest_size(),
            data_overhead: 0,
            nack_overhead: default_nack_overhead(),
        }
    }
}

/// One forwarding node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    /// Forwarding strategy: a name of the strategy registry (`ndncc_core::schemes::strategies`):
    /// "best-route", "multicast", "weighted-multipath", "class-multipath", "pcon", ….
    #[serde(default = "default_strategy")]
    pub strategy: String,
    /// Content Store capacity in Data packets; 0 = off (the default in every seed experiment).
    #[serde(default)]
    pub cs_capacity: u32,
    /// Router-side congestion-control scheme of this node, keyed by scheme name (at most one).
    #[serde(default)]
    pub schemes: SchemesSpec,
}

/// The router-side schemes of a node, as a table keyed by scheme name (`{"sf": {...}}`);
/// the configs are the core's ([`RouterConfig`]), validated by the registry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemesSpec(pub Vec<RouterConfig>);

impl Serialize for SchemesSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for c in &self.0 {
            // each config serializes as a one-entry map {name: config}
            let v = serde_json::to_value(c).map_err(serde::ser::Error::custom)?;
            map.serialize_entry(c.name(), &v[c.name()])?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SchemesSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        map.into_iter()
            .map(|(k, v)| {
                // a scheme's name as the scenario writes it ("hr-icp") or its tag ("hr_icp")
                let one = serde_json::Value::Object([(scheme_tag(&k), v)].into_iter().collect());
                serde_json::from_value(one).map_err(serde::de::Error::custom)
            })
            .collect::<Result<_, _>>()
            .map(SchemesSpec)
    }
}

fn default_strategy() -> String {
    "best-route".to_string()
}

/// Queue capacity of one link direction (drop-tail).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum QueueSpec {
    /// Capacity in packets (ns-3's DropTail default: 100).
    Packets(u32),
    /// Capacity in bytes.
    Bytes(u64),
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Packets(100)
    }
}

/// A full-duplex point-to-point link between nodes `a` and `b`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    /// Bits per second, both directions.
    pub bandwidth_bps: u64,
    /// One-way propagation delay in nanoseconds.
    pub delay_ns: u64,
    /// Queue of the a→b direction (in a's face).
    #[serde(default)]
    pub queue_ab: QueueSpec,
    /// Queue of the b→a direction (in b's face).
    #[serde(default)]
    pub queue_ba: QueueSpec,
    /// Probability in [0, 1) that a packet is lost in flight, each direction independently.
    #[serde(default)]
    pub loss: f64,
    /// Routing cost of the link (the `cost` metric of computed routes).
    #[serde(default)]
    pub cost: u32,
}

/// Which routes the simulator computes (`docs/scenario.md`, "How routes are computed").
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    pub mode: RoutingMode,
    #[serde(default)]
    pub metric: RoutingMetric,
}

/// `Static`: only the listed routes; `Shortest`: plus shortest-path routes towards every
/// producer prefix, at the nodes a consumer's Interests can reach.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMode {
    #[default]
    Static,
    Shortest,
}

/// What "shortest" minimises: total link delay, hops, or total link cost.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMetric {
    #[default]
    Delay,
    Hops,
    Cost,
}

/// A FIB entry: at `node`, Interests under `prefix` may go out on the face of `link`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub node: usize,
    pub prefix: String,
    pub link: usize,
    /// Routing cost; lower is preferred by best-route.
    #[serde(default)]
    pub cost: u32,
}

/// One application on a node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub name: String,
    pub node: usize,
    #[serde(default)]
    pub start_ns: u64,
    /// Stop time; `None` = until the end of the run.
    #[serde(default)]
    pub stop_ns: Option<u64>,
    pub app: AppKind,
}

impl AppSpec {
    /// The prefix the app produces or fetches.
    pub fn prefix(&self) -> &str {
        match &self.app {
            AppKind::Producer(p) => &p.prefix,
            AppKind::Consumer(c) => &c.prefix,
        }
    }
}

/// What an application does.
// A consumer spec embeds the largest registered controller config; specs are few and built
// once, so their size does not matter (boxing would change every match on them).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum AppKind {
    Producer(ProducerSpec),
    Consumer(ConsumerSpec),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    pub prefix: String,
    /// Payload size of each Data in bytes.
    pub payload_size: u32,
    /// FreshnessPeriod in nanoseconds (matters only with a Content Store).
    #[serde(default)]
    pub freshness_ns: u64,
    /// Finite content: only sequence numbers `0..content_segments` exist; `None` = unbounded.
    #[serde(default)]
    pub content_segments: Option<u64>,
    /// Delay between receiving an Interest and answering it, in nanoseconds.
    #[serde(default)]
    pub processing_delay_ns: u64,
    /// Holds this share of the content's blocks, placed at random among the producers of the
    /// same prefix that set a share (seed 001's multi-source runs); `None` = all of it.
    #[serde(default)]
    pub share: Option<f64>,
    /// Sequence numbers per placed block (default 1: a chunk Interest's number is a chunk).
    #[serde(default)]
    pub placement_block: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    pub prefix: String,
    /// The congestion controller (how much), a registered scheme part.
    pub controller: ControllerConfig,
    #[serde(default)]
    pub engine: EngineSpec,
    /// The clock the consumer's sending engine sleeps on.
    #[serde(default)]
    pub clock: ClockSpec,
    /// InterestLifetime in nanoseconds (NDN default 4 s).
    #[serde(default = "default_lifetime")]
    pub lifetime_ns: u64,
    /// Time after which an unanswered Interest counts as timed out; `None` = the lifetime.
    #[serde(default)]
    pub timeout_ns: Option<u64>,
    /// Retransmit after a timeout.
    #[serde(default)]
    pub retx_on_timeout: bool,
    /// Retransmit after a Nack.
    #[serde(default)]
    pub retx_on_nack: bool,
    /// Give up a sequence number after this many transmissions.
    #[serde(default = "default_max_tx")]
    pub max_transmissions: u32,
    /// First sequence number requested.
    #[serde(default)]
    pub start_seq: u64,
    /// Stop after requesting this many distinct sequence numbers; `None` = unbounded.
    #[serde(default)]
    pub max_seq: Option<u64>,
    /// Chunked fetch: each sequence number is a chunk of this many segments (1–64), asked for
    /// by one Interest; `None` = one Data per Interest.
    #[serde(default)]
    pub chunk_segments: Option<u32>,
}

fn default_lifetime() -> u64 {
    4_000_000_000
}
fn default_max_tx() -> u32 {
    u32::MAX
}

/// The sending engine of a consumer: decides *when* each Interest leaves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum EngineSpec {
    /// A timer for every Interest, exact to the nanosecond (ndnSIM's behaviour).
    #[default]
    Ideal,
    /// As `Ideal`, with random gaps of mean 1/r (ndnSIM's `ConsumerCbr` `Randomize`).
    Randomized { dist: GapDistSpec },
    /// A coarse clock: owed Interests leave at ticks every `tick_ns`; with `smoothing`, also
    /// right after every Data or Nack the consumer receives (seeds 000 and 002).
    Tick { tick_ns: u64, smoothing: bool },
    /// The RFC 3448 send loop (seed 003), with or without bursts; `granularity_ns` is the t_g
    /// of its δ rule (`None`: the consumer clock's granularity); `max_owed` caps the backlog.
    Rfc3448 {
        burst: bool,
        #[serde(default)]
        granularity_ns: Option<u64>,
        #[serde(default)]
        max_owed: Option<u32>,
    },
    /// The Rate Mismatch Controller (seed 003): gain `kr` (0 < kr < 2), period `period_ns`.
    Rmc { kr: f64, period_ns: u64 },
}

/// The gap distribution of a randomized engine.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GapDistSpec {
    /// Uniform in [0, 2/r].
    Uniform,
    /// Exponential with mean 1/r, cut at 50/r.
    Exponential,
}

/// The clock a consumer's sending loop sleeps on (`sending-engines.md`, "Clock models").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum ClockSpec {
    /// Timers fire exactly when asked.
    #[default]
    Ideal,
    /// Timers fire at the next multiple of `tg_ns`, never at once.
    Granular { tg_ns: u64 },
    /// Granular plus a waiting time per wake-up; during `load` wake-ups draw from its
    /// distribution instead.
    Os {
        tg_ns: u64,
        wait: WaitSpec,
        #[serde(default)]
        load: Option<LoadSpec>,
    },
}

/// A CPU-load phase of an OS clock: [start_ns, end_ns) with its own waiting times.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    pub start_ns: u64,
    pub end_ns: u64,
    pub wait: WaitSpec,
}

/// The waiting-time distribution of an OS clock.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "snake_case")]
pub enum WaitSpec {
    Exponential {
        mean_ns: u64,
    },
    /// Measured waiting times (e.g. from `ndncc clock-probe`), drawn uniformly.
    Empirical {
        samples_ns: Vec<u64>,
    },
}

/// What the simulator records besides counters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Width of the time-series bins in nanoseconds (default 100 ms).
    #[serde(default = "default_bin")]
    pub bin_ns: u64,
    /// Record one row per Data received by a consumer (delay table).
    #[serde(default = "default_true")]
    pub delays: bool,
}

fn default_bin() -> u64 {
    100_000_000
}
fn default_true() -> bool {
    true
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            bin_ns: default_bin(),
            delays: true,
        }
    }
}

/// A resolved scenario the simulator cannot run.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError(pub String);

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid scenario: {}", self.0)
    }
}

impl std::error::Error for SpecError {}

impl ScenarioSpec {
    /// Parses a resolved scenario from JSON. The invariants are checked once, by
    /// [`crate::run`] (which calls [`ScenarioSpec::check`]).
    pub fn from_json(text: &str) -> Result<Self, SpecError> {
        serde_json::from_str(text).map_err(|e| SpecError(format!("JSON: {e}")))
    }

    /// Re-checks every invariant the simulator relies on.
    pub fn check(&self) -> Result<(), SpecError> {
        let err = |m: String| Err(SpecError(m));
        if self.duration_ns == 0 {
            return err("duration must be positive".into());
        }
        if self.nodes.is_empty() {
            return err("no nodes".into());
        }
        let n = self.nodes.len();
        for node in &self.nodes {
            if strategies::lookup(&node.strategy).is_none() {
                return err(format!(
                    "node {}: unknown strategy '{}'",
                    node.name, node.strategy
                ));
            }
            if node.schemes.0.len() > 1 {
                return err(format!("node {}: at most one scheme per node", node.name));
            }
            for c in &node.schemes.0 {
                if let Some(p) = c.validate().first() {
                    return err(format!("node {}: schemes.{}.{p}", node.name, c.name()));
                }
            }
        }
        let mut linked = vec![false; n];
        for (i, c) in self.components.iter().enumerate() {
            if let Some(p) = c.config.validate().first() {
                return err(format!("component {i}: {}.{p}", c.config.name()));
            }
            for &node in &c.nodes {
                if node >= n || std::mem::replace(&mut linked[node], true) {
                    return err(format!(
                        "component {i}: node {node} is unknown or has a control link already"
                    ));
                }
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.a >= n || l.b >= n || l.a == l.b {
                return err(format!("link {i}: bad endpoints {} - {}", l.a, l.b));
            }
            if l.bandwidth_bps == 0 {
                return err(format!("link {i}: bandwidth must be positive"));
            }
            if !(0.0..1.0).contains(&l.loss) {
                return err(format!("link {i}: loss must be in [0, 1)"));
            }
            for q in [l.queue_ab, l.queue_ba] {
                if matches!(q, QueueSpec::Packets(0) | QueueSpec::Bytes(0)) {
                    return err(format!("link {i}: queue capacity must be positive"));
                }
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            if r.node >= n || r.link >= self.links.len() {
                return err(format!("route {i}: bad node or link index"));
            }
            let l = &self.links[r.link];
            if l.a != r.node && l.b != r.node {
                return err(format!(
                    "route {i}: link {} does not touch node {}",
                    r.link, r.node
                ));
            }
            crate::check_prefix(&r.prefix).map_err(|m| SpecError(format!("route {i}: {m}")))?;
        }
        for a in &self.apps {
            if a.node >= n {
                return err(format!("app {}: bad node index", a.name));
            }
            if let Some(stop) = a.stop_ns {
                if stop < a.start_ns {
                    return err(format!("app {}: stops before it starts", a.name));
                }
            }
            let prefix = match &a.app {
                AppKind::Producer(p) => &p.prefix,
                AppKind::Consumer(c) => {
                    if let Some(p) = c.controller.validate().first() {
                        return err(format!(
                            "app {}: controller {}: {p}",
                            a.name,
                            c.controller.name()
                        ));
                    }
                    if matches!(c.engine, EngineSpec::Tick { tick_ns: 0, .. }) {
                        return err(format!("app {}: tick must be positive", a.name));
                    }
                    if let EngineSpec::Rmc { kr, period_ns } = c.engine {
                        if !(kr > 0.0 && kr < 2.0 && period_ns > 0) {
                            return err(format!(
                                "app {}: RMC needs 0 < kr < 2 and a positive period",
                                a.name
                            ));
                        }
                    }
                    let bad_clock = match &c.clock {
                        ClockSpec::Ideal => false,
                        ClockSpec::Granular { tg_ns } => *tg_ns == 0,
                        ClockSpec::Os { tg_ns, wait, load } => {
                            let empty = |w: &WaitSpec| matches!(w, WaitSpec::Empirical { samples_ns } if samples_ns.is_empty());
                            *tg_ns == 0
                                || empty(wait)
                                || load
                                    .as_ref()
                                    .is_some_and(|l| l.end_ns <= l.start_ns || empty(&l.wait))
                        }
                    };
                    if bad_clock {
                        return err(format!("app {}: invalid clock", a.name));
                    }
                    if c.chunk_segments
                        .is_some_and(|n| n == 0 || n > ChunkRequest::MAX_SEGMENTS)
                    {
                        return err(format!("app {}: chunk_segments must be in 1..=64", a.name));
                    }
                    if c.lifetime_ns == 0 {
                        return err(format!("app {}: lifetime must be positive", a.name));
                    }
                    &c.prefix
                }
            };
            crate::check_prefix(prefix).map_err(|m| SpecError(format!("app {}: {m}", a.name)))?;
        }
        if self.trace.bin_ns == 0 {
            return err("trace bin must be positive".into());
        }
        Ok(())
    }
}
