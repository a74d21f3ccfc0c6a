//! ndnSieve's router part, the "local information" module [SEED 004 §4.1].
//!
//! Per outgoing net interface (the Data direction of its link), every measurement window:
//!
//! ```text
//! β = x / C     bits sent on the interface in the window / (capacity · window)   (Formula 1)
//! ε = q / Q     packets (or bytes) waiting in its queue / the queue's capacity     (Formula 2)
//! state:  free    β ≤ th1
//!         mild    β > th1 and ε ≤ th2
//!         severe  β > th1 and ε > th2
//! ```
//!
//! When an interface's β rises above th1 (free → mild or severe), and (`signal_changes`,
//! default) each time its state changes while it stays above, the router signals the controller (`FaceReport` with
//! `signal = 1`); every T_p it reports (β, ε) of every interface
//! (`signal = 0`). While an interface is busy (β > th1 in the last window) a Data leaving it is
//! marked when the queue occupancy is above th2 — the severe state, read at the Data's own
//! departure (`instant_queue`, default) or from the last window.
//!
//! Path choice: the controller pushes `NextHopValue { prefix, face, metric }` to a shunt router;
//! the module then admits an Interest of that prefix only on the next hop with the lowest
//! metric, refusing (silently) the others, so the strategy (best-route) moves on to it. Next
//! hops without a metric are never refused.

use super::{BETA, EPS, SIGNAL};
use crate::control::ControlBody;
use crate::face::{Face, FaceId, QueueLimit};
use crate::name::NameId;
use crate::packet::{Interest, Packet};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks};
use crate::time::{Duration, Instant};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;

crate::scheme_config! {
    /// ndnSieve router settings (`[nodes.NAME.schemes.sieve]`).
    pub struct SieveRouterConfig {
        /// th1: link-utilisation threshold; β above it is congestion [OPEN: Table 3 was an
        /// image; 0.9].
        th1: f64 = 0.9, Kind::open_range(0.0, 1.0), "";
        /// th2: queue-occupancy threshold; ε above it (with β > th1) is severe congestion
        /// [OPEN: Table 3 was an image; 0.3].
        th2: f64 = 0.3, Kind::open_range(0.0, 1.0), "";
        /// The measurement window of β and ε [OPEN; 100 ms].
        window: Duration = Duration::from_millis(100), Kind::PERIOD, "time";
        /// β is the mean utilisation of the last `beta_windows` windows, updated at each
        /// window's close (1: the last window alone, a block average; e.g. 10 with a 10 ms
        /// window: a 100 ms average sliding every 10 ms) [OPEN; 1].
        beta_windows: u32 = 1, Kind::Integer { min: 1, max: 1_000 }, "windows";
        /// The weight g of the newest value in β, in (0, 1]: β ← (1 − g)·β + g·(the mean above)
        /// at each window's close (1: no memory; below 1, an EWMA over windows) [OPEN; 1].
        beta_gain: f64 = 1.0, Kind::open_closed(0.0, 1.0), "";
        /// T_p: the period of the (β, ε) reports to the controller (paper: 0.5 s).
        report_period: Duration = Duration::from_millis(500), Kind::PERIOD, "time";
        /// Read ε for marking at each Data's departure (true) or from the last window (false)
        /// [OPEN; true: a window-long mark burst drives a ±1 window down by a whole window].
        instant_queue: bool = true, Kind::Bool, "";
        /// Mark Data in severe congestion (false: the router never marks; ablation).
        mark: bool = true, Kind::Bool, "";
        /// Signal the controller also each time a busy interface changes between mild and
        /// severe (false: only when β rises above th1, "when β > th1 the router sends a
        /// signal" read as an event) [OPEN; true].
        signal_changes: bool = true, Kind::Bool, "";
        /// β counts the bits of the packets *arriving* at the interface (joining its queue,
        /// those the queue then drops included) instead of those it sends: the paper's x_ij is
        /// "the number of packets arriving at Link(ij) per unit time", and NFD's face counters,
        /// which an ndnSIM module would read, count a packet when it is handed to the
        /// transport, before the device queue [OPEN; false].
        beta_on_arrival: bool = false, Kind::Bool, "";
        /// A Data is marked whenever ε > th2, even when the last window's β ≤ th1: the
        /// quadrant (β ≤ th1, ε > th2) that Table 2's text does not name, read as severe (a
        /// queue that long keeps the link busy now, whatever the last window averaged)
        /// [OPEN; false: free, as the spec reads Table 2].
        queue_alone: bool = false, Kind::Bool, "";
        /// Mark a Data when it joins the queue, reading the queue it joins (as NFD marks in
        /// ndnSIM, before the device queue), instead of when it leaves [OPEN; false].
        mark_on_enqueue: bool = false, Kind::Bool, "";
    }
}

impl SchemeConfig for SieveRouterConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        if self.report_period < self.window {
            return vec![Problem::new(
                &["report_period", "window"],
                format!(
                    "report_period ({} s) is shorter than the measurement window ({} s)",
                    self.report_period.as_secs_f64(),
                    self.window.as_secs_f64()
                ),
                "set report_period to at least the window",
            )];
        }
        Vec::new()
    }
}

/// The state of an interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum State {
    #[default]
    Free,
    Mild,
    Severe,
}

impl State {
    /// The state of (β, ε) under thresholds th1, th2 (Table 2).
    pub fn of(beta: f64, eps: f64, th1: f64, th2: f64) -> State {
        if beta <= th1 {
            State::Free
        } else if eps <= th2 {
            State::Mild
        } else {
            State::Severe
        }
    }

    /// As a gauge value: 0 free, 1 mild, 2 severe.
    pub fn level(self) -> f64 {
        match self {
            State::Free => 0.0,
            State::Mild => 1.0,
            State::Severe => 2.0,
        }
    }
}

/// β: bits sent in `window` over what the link could carry in it.
pub fn utilisation(bytes: u64, capacity_bps: u64, window: Duration) -> f64 {
    let can = capacity_bps as f64 * window.as_secs_f64();
    if can <= 0.0 {
        return 0.0;
    }
    bytes as f64 * 8.0 / can
}

/// ε: the face's waiting packets (or bytes) over its queue's capacity.
pub fn occupancy(face: &Face) -> f64 {
    match face.limit() {
        QueueLimit::Packets(n) if n > 0 => face.queue_len() as f64 / f64::from(n),
        QueueLimit::Bytes(b) if b > 0 => face.queue_bytes() as f64 / b as f64,
        _ => 0.0,
    }
}

/// What the module knows about one interface.
#[derive(Clone, Debug, Default)]
struct Iface {
    /// Bytes sent in the current window.
    bytes: u64,
    /// The utilisation of the last `beta_windows` complete windows, newest last.
    recent: VecDeque<f64>,
    /// β and ε of the last complete window.
    beta: f64,
    eps: f64,
    state: State,
}

/// The ndnSieve router module.
#[derive(Debug)]
pub struct SieveRouter {
    pub cfg: SieveRouterConfig,
    ifaces: Vec<Iface>,
    next_window: Instant,
    next_report: Instant,
    /// Per prefix: the metrics the controller pushed, per next hop.
    metrics: FxHashMap<NameId, SmallVec<[(FaceId, f64); 4]>>,
    out: VecDeque<ModuleAction>,
    /// Congestion signals sent (for tests and traces).
    pub signals: u64,
}

impl SieveRouter {
    pub fn new(cfg: SieveRouterConfig) -> Self {
        SieveRouter {
            next_window: Instant::ZERO + cfg.window,
            next_report: Instant::ZERO + cfg.report_period,
            cfg,
            ifaces: Vec::new(),
            metrics: FxHashMap::default(),
            out: VecDeque::new(),
            signals: 0,
        }
    }

    fn iface(&mut self, face: FaceId) -> &mut Iface {
        let i = face.0 as usize;
        if i >= self.ifaces.len() {
            self.ifaces.resize(i + 1, Iface::default());
        }
        &mut self.ifaces[i]
    }

    /// The state of `face` after the last window.
    pub fn state(&self, face: FaceId) -> State {
        self.ifaces
            .get(face.0 as usize)
            .map_or(State::Free, |i| i.state)
    }

    /// β, ε of `face` after the last window.
    pub fn measures(&self, face: FaceId) -> (f64, f64) {
        self.ifaces
            .get(face.0 as usize)
            .map_or((0.0, 0.0), |i| (i.beta, i.eps))
    }

    /// The metric pushed for next hop `face` of `prefix`, if any.
    pub fn metric(&self, prefix: NameId, face: FaceId) -> Option<f64> {
        self.metrics
            .get(&prefix)?
            .iter()
            .find(|(f, _)| *f == face)
            .map(|(_, m)| *m)
    }

    fn report(&mut self, face: FaceId, signal: bool) {
        let i = self.iface(face);
        let values = vec![
            (BETA, i.beta),
            (EPS, i.eps),
            (SIGNAL, if signal { 1.0 } else { 0.0 }),
        ];
        self.out
            .push_back(ModuleAction::Control(ControlBody::FaceReport {
                face,
                values,
            }));
    }

    /// Closes the measurement window ending at `now`.
    fn close_window(&mut self, faces: &[Face]) {
        let (th1, th2, window) = (self.cfg.th1, self.cfg.th2, self.cfg.window);
        for f in faces.iter().filter(|f| !f.is_app()) {
            let eps = occupancy(f);
            let cap = f.bandwidth.map_or(0, |b| b.0);
            let (n, gain) = (self.cfg.beta_windows.max(1) as usize, self.cfg.beta_gain);
            let i = self.iface(f.id);
            if i.recent.len() == n {
                i.recent.pop_front();
            }
            i.recent.push_back(utilisation(i.bytes, cap, window));
            let mean = i.recent.iter().sum::<f64>() / i.recent.len() as f64;
            i.beta = (1.0 - gain) * i.beta + gain * mean;
            i.eps = eps;
            i.bytes = 0;
            let was = i.state;
            i.state = State::of(i.beta, i.eps, th1, th2);
            // a signal each time β > th1 starts, and (signal_changes) each time its kind
            // changes (the controller's filter tells mild from severe)
            let rises = was == State::Free;
            if i.state != State::Free && i.state != was && (rises || self.cfg.signal_changes) {
                self.signals += 1;
                self.report(f.id, true);
            }
        }
    }

    /// Whether a Data leaving (or, with `mark_on_enqueue`, joining) `face` now is in severe
    /// congestion.
    fn severe(&self, face: &Face) -> bool {
        let (beta, last_eps) = self
            .ifaces
            .get(face.id.0 as usize)
            .map_or((0.0, 0.0), |i| (i.beta, i.eps));
        if beta <= self.cfg.th1 && !self.cfg.queue_alone {
            return false;
        }
        let eps = if self.cfg.instant_queue {
            occupancy(face)
        } else {
            last_eps
        };
        eps > self.cfg.th2
    }
}

impl SieveRouter {
    /// Marks `p` if it is an unmarked Data and `face` is in severe congestion.
    fn mark(&self, face: FaceId, p: &mut Packet, faces: &[Face]) {
        if let Packet::Data(d) = p {
            if self.cfg.mark && !d.ext.mark && self.severe(&faces[face.0 as usize]) {
                d.ext.mark = true;
            }
        }
    }
}

impl RouterHooks for SieveRouter {
    fn on_interest_out(
        &mut self,
        _now: Instant,
        face: FaceId,
        prefix: NameId,
        _interest: &Interest,
        _faces: &[Face],
    ) -> InterestVerdict {
        let Some(m) = self.metrics.get(&prefix) else {
            return InterestVerdict::Admit;
        };
        let Some(mine) = m.iter().find(|(f, _)| *f == face).map(|(_, v)| *v) else {
            return InterestVerdict::Admit;
        };
        // the lowest metric wins; ties keep the strategy's order
        if m.iter().any(|(_, v)| *v < mine) {
            InterestVerdict::Drop
        } else {
            InterestVerdict::Admit
        }
    }

    fn on_enqueue(&mut self, _now: Instant, face: FaceId, p: &mut Packet, faces: &[Face]) -> bool {
        if self.cfg.beta_on_arrival {
            let size = p.size() as u64;
            self.iface(face).bytes += size;
        }
        if self.cfg.mark_on_enqueue {
            self.mark(face, p, faces);
        }
        true
    }

    fn on_dequeue(
        &mut self,
        _now: Instant,
        face: FaceId,
        p: &mut Packet,
        _sojourn: Duration,
        faces: &[Face],
    ) {
        if !self.cfg.beta_on_arrival {
            let size = p.size() as u64;
            self.iface(face).bytes += size;
        }
        if !self.cfg.mark_on_enqueue {
            self.mark(face, p, faces);
        }
    }

    fn gauge_names(&self) -> &'static [&'static str] {
        &["beta", "eps", "state"]
    }

    fn face_gauges(&mut self, _now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(i) = self.ifaces.get(face.0 as usize) {
            out[0] = i.beta;
            out[1] = i.eps;
            out[2] = i.state.level();
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Some(self.next_window.min(self.next_report))
    }

    fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
        while now >= self.next_window {
            self.close_window(faces);
            self.next_window += self.cfg.window;
        }
        if now >= self.next_report {
            for f in faces.iter().filter(|f| !f.is_app()) {
                self.report(f.id, false);
            }
            while self.next_report <= now {
                self.next_report += self.cfg.report_period;
            }
        }
    }

    fn on_control(&mut self, _now: Instant, msg: &ControlBody, _faces: &[Face]) {
        if let ControlBody::NextHopValue {
            prefix,
            face,
            value,
        } = msg
        {
            let m = self.metrics.entry(*prefix).or_default();
            match m.iter_mut().find(|(f, _)| f == face) {
                Some(e) => e.1 = *value,
                None => m.push((*face, *value)),
            }
        }
    }

    fn poll_action(&mut self) -> Option<ModuleAction> {
        self.out.pop_front()
    }
}

impl RouterScheme for SieveRouter {
    type Config = SieveRouterConfig;
    const NAME: &'static str = "sieve";
    const DOC: &'static str = "ndnSieve's router (seed 004): per-interface utilisation β and \
        queue occupancy ε, free / mild / severe state, signals and reports to the SDN \
        controller, Data marked in severe congestion, a prefix forwarded on the interface with \
        the lowest metric the controller pushed.";
    fn build(cfg: &SieveRouterConfig, _rng: RngStream) -> Self {
        SieveRouter::new(cfg.clone())
    }
}
