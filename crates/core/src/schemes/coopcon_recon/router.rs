//! CoopCon-recon's router module (`[nodes.R.schemes.coopcon-recon]`): active queue management
//! by queue fill [OURS].
//!
//! ```text
//! ε = q / Q     packets (or bytes) waiting in the face's transmit queue / its capacity,
//!               read when a Data leaves the queue
//! ε > th_mark   → the Data leaves marked (the consumers' congestion signal)
//! ```
//!
//! A Data that arrived marked leaves marked (the forwarder copies the field), so the marks a
//! router's strategy sees from a next hop tell the congestion of the whole path behind it: the
//! strategy ([`super::strategy`]) reads *severe* congestion from their share.

use crate::face::{Face, FaceId, QueueLimit};
use crate::packet::Packet;
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::RouterHooks;
use crate::time::{Duration, Instant};

crate::scheme_config! {
    /// CoopCon-recon router settings (our reconstruction: every value is ours).
    pub struct CoopconRouterConfig {
        /// th_mark: a Data leaving a face whose queue fill ε = q/Q is above this is marked
        /// [OURS; 0.2].
        mark_threshold: f64 = 0.2, Kind::range(0.0, 1.0), "";
    }
}

impl SchemeConfig for CoopconRouterConfig {}

/// ε: the face's waiting packets (or bytes) over its queue's capacity (0 without a limit).
pub fn fill(face: &Face) -> f64 {
    match face.limit() {
        QueueLimit::Packets(n) if n > 0 => face.queue_len() as f64 / f64::from(n),
        QueueLimit::Bytes(b) if b > 0 => face.queue_bytes() as f64 / b as f64,
        _ => 0.0,
    }
}

/// The CoopCon-recon AQM: marks Data leaving a face whose queue is above `mark_threshold`.
#[derive(Debug)]
pub struct CoopconRouter {
    pub cfg: CoopconRouterConfig,
    /// Data marked here, per face (gauge `marks`).
    marks: Vec<u64>,
}

impl CoopconRouter {
    pub fn new(cfg: CoopconRouterConfig) -> Self {
        CoopconRouter {
            cfg,
            marks: Vec::new(),
        }
    }

    /// Whether a Data leaving `face` now is marked.
    pub fn marks(&self, face: &Face) -> bool {
        fill(face) > self.cfg.mark_threshold
    }
}

impl RouterHooks for CoopconRouter {
    fn uses_prefix(&self) -> bool {
        false
    }
    fn on_dequeue(
        &mut self,
        _now: Instant,
        face: FaceId,
        p: &mut Packet,
        _sojourn: Duration,
        faces: &[Face],
    ) {
        if let Packet::Data(d) = p {
            if !d.ext.mark && self.marks(&faces[face.0 as usize]) {
                d.ext.mark = true;
                let i = face.0 as usize;
                if self.marks.len() <= i {
                    self.marks.resize(i + 1, 0);
                }
                self.marks[i] += 1;
            }
        }
    }
    fn gauge_names(&self) -> &'static [&'static str] {
        &["marks"]
    }
    fn face_gauges(&mut self, _now: Instant, face: FaceId, out: &mut [f64]) {
        out[0] = self.marks.get(face.0 as usize).copied().unwrap_or(0) as f64;
    }
}

impl RouterScheme for CoopconRouter {
    type Config = CoopconRouterConfig;
    const NAME: &'static str = "coopcon-recon";
    const DOC: &'static str = "Our reconstruction of CoopCon's router (from its abstract and \
        seed 004's sentences only): a Data leaving a face whose queue fill is above a threshold \
        is marked (active queue management).";
    fn build(cfg: &CoopconRouterConfig, _rng: RngStream) -> Self {
        CoopconRouter::new(cfg.clone())
    }
}
