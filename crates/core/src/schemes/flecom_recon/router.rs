//! FleCom-recon's router module (`[nodes.R.schemes.flecom-recon]`) [OURS throughout].
//!
//! **Detection from the sojourn trend.** Per net face, every `window`:
//!
//! ```text
//! s_k = mean sojourn (time in the transmit queue) of the Data that left the face in window k
//!       (0 if none left)
//! ŝ   = s_k + (s_k − s_{k−1})       the sojourn one window ahead along the trend
//! congested  ⇔  ŝ > target          (a rising queue is caught before it reaches the target;
//!                                    a queue above it that drains fast is not)
//! ```
//!
//! While a face is congested every Data leaving it is marked (read by the downstream routers'
//! strategies and by the consumers).
//!
//! **Interest shaping**, when the strategy ([`super::strategy`]) asks for it on a face (a marked
//! Data came back from it and no uncongested alternative exists): for `shape_hold` after the
//! last request, Interests leave on that face at most at
//!
//! ```text
//! r = shape_gain · (Data received on the face in the last window) / window
//! ```
//!
//! (r set when shaping starts, kept while requests extend it); the others wait in order in a
//! queue of `shape_queue` Interests (one more is refused) and leave one every 1/r. When the
//! shaping ends, those waiting leave at once.

use crate::face::{Face, FaceId};
use crate::name::NameId;
use crate::packet::{Data, Interest, Packet};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks};
use crate::time::{Duration, Instant};
use std::collections::VecDeque;

crate::scheme_config! {
    /// FleCom-recon router settings (our reconstruction: every value is ours).
    pub struct FlecomRouterConfig {
        /// The window of the mean Data sojourn and of its trend [OURS; 20 ms].
        window: Duration = Duration::from_millis(20), Kind::PERIOD, "time";
        /// A face is congested while its sojourn one window ahead along the trend exceeds this
        /// [OURS; 5 ms].
        target: Duration = Duration::from_millis(5), Kind::POSITIVE_TIME, "time";
        /// The shaping rate's share of the Data rate the face received in the last window
        /// before shaping started [OURS; 0.9].
        shape_gain: f64 = 0.9, Kind::open_closed(0.0, 1.0), "";
        /// Shaping lasts this long after the strategy's last request [OURS; 100 ms].
        shape_hold: Duration = Duration::from_millis(100), Kind::POSITIVE_TIME, "time";
        /// Interests waiting per shaped face; one more is refused [OURS; 1000].
        shape_queue: u32 = 1000, Kind::Integer { min: 1, max: 10_000_000 }, "Interests";
    }
}

impl SchemeConfig for FlecomRouterConfig {}

/// ŝ = s + (s − s_prev): the sojourn (s) one window ahead along the trend.
pub fn projected(s: f64, s_prev: f64) -> f64 {
    s + (s - s_prev)
}

/// What the module knows about one face.
#[derive(Clone, Debug, Default)]
struct Iface {
    /// Sojourn (s) summed over the Data that left in the current window, and their number.
    sum: f64,
    n: u64,
    /// s_{k−1}, s_k (s) and ŝ after the last window.
    prev: f64,
    mean: f64,
    projected: f64,
    congested: bool,
    /// Data received on the face in the current window, and their rate (Data/s) in the last.
    data_in: u64,
    data_rate: f64,
    /// Shaping: active until, its rate (Interests/s), the earliest next departure, the queue.
    shaping_until: Option<Instant>,
    rate: f64,
    next_send: Instant,
    held: VecDeque<Interest>,
}

impl Iface {
    fn shaping(&self, now: Instant) -> bool {
        self.shaping_until.is_some_and(|t| now < t)
    }
}

/// The FleCom-recon router module.
#[derive(Debug)]
pub struct FlecomRouter {
    pub cfg: FlecomRouterConfig,
    ifaces: Vec<Iface>,
    next_window: Instant,
    out: VecDeque<ModuleAction>,
    /// Interests held by shaping, and refused on a full shaping queue.
    pub held: u64,
    pub refused: u64,
    /// Shaping episodes started.
    pub shapings: u64,
}

impl FlecomRouter {
    pub fn new(cfg: FlecomRouterConfig) -> Self {
        FlecomRouter {
            next_window: Instant::ZERO + cfg.window,
            cfg,
            ifaces: Vec::new(),
            out: VecDeque::new(),
            held: 0,
            refused: 0,
            shapings: 0,
        }
    }

    fn iface(&mut self, face: FaceId) -> &mut Iface {
        let i = face.0 as usize;
        if i >= self.ifaces.len() {
            self.ifaces.resize(i + 1, Iface::default());
        }
        &mut self.ifaces[i]
    }

    /// Whether `face` was congested after the last window.
    pub fn congested(&self, face: FaceId) -> bool {
        self.ifaces
            .get(face.0 as usize)
            .is_some_and(|i| i.congested)
    }

    /// (s_k, ŝ) of `face` after the last window, in seconds.
    pub fn sojourn(&self, face: FaceId) -> (f64, f64) {
        self.ifaces
            .get(face.0 as usize)
            .map_or((0.0, 0.0), |i| (i.mean, i.projected))
    }

    /// The shaping rate of `face` (Interests/s) if it is shaped at `now`.
    pub fn shaping_rate(&self, now: Instant, face: FaceId) -> Option<f64> {
        let i = self.ifaces.get(face.0 as usize)?;
        i.shaping(now).then_some(i.rate)
    }

    /// The strategy asks to shape the Interests leaving on `face` (a marked Data came back from
    /// it and no uncongested alternative exists); false if the face received no Data in the
    /// last window (no rate to shape to).
    pub fn shape(&mut self, now: Instant, face: FaceId) -> bool {
        let (gain, hold) = (self.cfg.shape_gain, self.cfg.shape_hold);
        let i = self.iface(face);
        if !i.shaping(now) {
            if i.data_rate <= 0.0 {
                return false;
            }
            i.rate = gain * i.data_rate;
            self.shapings += 1;
        }
        let i = self.iface(face);
        i.shaping_until = Some(now + hold);
        true
    }

    fn gap(rate: f64) -> Duration {
        Duration::from_secs_f64(1.0 / rate)
    }

    /// Closes the window ending now: sojourn, trend, congestion, Data rate.
    fn close_window(&mut self) {
        let (target, window) = (self.cfg.target.as_secs_f64(), self.cfg.window.as_secs_f64());
        for i in &mut self.ifaces {
            let s = if i.n > 0 { i.sum / i.n as f64 } else { 0.0 };
            i.prev = i.mean;
            i.mean = s;
            i.projected = projected(s, i.prev);
            i.congested = i.projected > target;
            i.sum = 0.0;
            i.n = 0;
            i.data_rate = i.data_in as f64 / window;
            i.data_in = 0;
        }
    }

    /// Sends what the shaping lets go by `now`.
    fn release(&mut self, now: Instant) {
        for (k, i) in self.ifaces.iter_mut().enumerate() {
            let face = FaceId(k as u32);
            while !i.held.is_empty() {
                if i.shaping(now) {
                    if now < i.next_send {
                        break;
                    }
                    i.next_send = now + Self::gap(i.rate);
                }
                let interest = i.held.pop_front().expect("not empty");
                self.out
                    .push_back(ModuleAction::SendInterest { face, interest });
            }
        }
    }
}

impl RouterHooks for FlecomRouter {
    fn uses_prefix(&self) -> bool {
        false
    }

    fn on_interest_out(
        &mut self,
        now: Instant,
        face: FaceId,
        _prefix: NameId,
        interest: &Interest,
        _faces: &[Face],
    ) -> InterestVerdict {
        let limit = self.cfg.shape_queue as usize;
        let i = self.iface(face);
        if !i.shaping(now) && i.held.is_empty() {
            return InterestVerdict::Admit;
        }
        if i.shaping(now) && i.held.is_empty() && now >= i.next_send {
            i.next_send = now + Self::gap(i.rate);
            return InterestVerdict::Admit;
        }
        if i.held.len() >= limit {
            self.refused += 1;
            return InterestVerdict::Drop;
        }
        i.held.push_back(*interest);
        self.held += 1;
        InterestVerdict::Hold
    }

    fn on_data_in(
        &mut self,
        _now: Instant,
        face: FaceId,
        _prefix: NameId,
        _data: &mut Data,
        _sent: Option<Instant>,
        faces: &[Face],
    ) {
        if !faces[face.0 as usize].is_app() {
            self.iface(face).data_in += 1;
        }
    }

    fn on_dequeue(
        &mut self,
        _now: Instant,
        face: FaceId,
        p: &mut Packet,
        sojourn: Duration,
        _faces: &[Face],
    ) {
        if let Packet::Data(d) = p {
            let i = self.iface(face);
            i.sum += sojourn.as_secs_f64();
            i.n += 1;
            if i.congested {
                d.ext.mark = true;
            }
        }
    }

    fn gauge_names(&self) -> &'static [&'static str] {
        &["sojourn", "projected", "congested", "shaping_rate"]
    }

    fn face_gauges(&mut self, now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(i) = self.ifaces.get(face.0 as usize) {
            out[0] = i.mean;
            out[1] = i.projected;
            out[2] = f64::from(u8::from(i.congested));
            if i.shaping(now) {
                out[3] = i.rate;
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let mut t = self.next_window;
        for i in self.ifaces.iter().filter(|i| !i.held.is_empty()) {
            let due = match i.shaping_until {
                Some(end) if i.next_send < end => i.next_send,
                Some(end) => end,
                None => Instant::ZERO,
            };
            t = t.min(due);
        }
        Some(t)
    }

    fn on_timeout(&mut self, now: Instant, _faces: &[Face]) {
        while now >= self.next_window {
            self.close_window();
            self.next_window += self.cfg.window;
        }
        self.release(now);
    }

    fn poll_action(&mut self) -> Option<ModuleAction> {
        self.out.pop_front()
    }
}

impl RouterScheme for FlecomRouter {
    type Config = FlecomRouterConfig;
    const NAME: &'static str = "flecom-recon";
    const DOC: &'static str = "Our reconstruction of FleCom's router (from its abstract and \
        seed 004's sentences only): a face whose mean Data sojourn, extrapolated one window \
        along its trend, exceeds a target marks the Data it sends; Interest shaping of a face \
        on the strategy's request.";
    fn build(cfg: &FlecomRouterConfig, _rng: RngStream) -> Self {
        FlecomRouter::new(cfg.clone())
    }
}
