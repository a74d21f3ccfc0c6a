//! PCON's link-level congestion marking (`../shared/specs/sieve.md`, "PCON baseline"), as a
//! router module `pcon`.
//!
//! **NFD's rule** (the default; NFD's generic link service, which ndnSIM 2.6+ runs on every
//! net-device face), evaluated for every packet about to join a face's transmit queue —
//! Interests, Data and Nacks alike — reading the queue's bytes *before* this packet joins
//! (`threshold` fixed, as NFD ≥ 0.7 and ndnSIM 2.8 run it; with `cap_half_queue`, capped at half
//! the face's send-queue capacity, as NFD 0.6.1–0.6.6 did):
//!
//! ```text
//! q > threshold:  first such packet        → next_mark = now + interval   (nothing marked)
//!                 later, now ≥ next_mark    → mark it, n += 1,
//!                                             next_mark += interval / √(n + 1)
//! q ≤ threshold:  first such packet         → reset (n = 0, no next_mark)
//! ```
//!
//! **The original's CoDel-style rule** (`codel = true`; Schneider's NFD fork with an ns-3 CoDel
//! queue), at dequeue from the packet's sojourn time: once the sojourn stays at or above
//! `target` for `interval`, the packet leaving then is marked, and then one every
//! `codel_factor · interval / √count` (counted from the mark, `now +`) while the sojourn stays at
//! or above `target`; a packet below `target` ends the episode.
//!
//! Only Data carry a mark in this simulator (an Interest or a Nack that the schedule marks
//! spends its mark: it counts in `n`, in the gauge `marks_sent`, and nobody downstream reads
//! it — NFD's consumers and strategies react to marked Data only). A Data that arrived marked
//! leaves marked (the forwarder copies the field).

use crate::face::{Face, FaceId, QueueLimit};
use crate::packet::Packet;
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::RouterHooks;
use crate::time::{Duration, Instant};

/// The bytes per place of a packet-limited queue in `cap_half_queue`: ndnSIM's net-device
/// transport reports a queue of n packets to NFD as a send queue of n · 1500 bytes.
pub const BYTES_PER_QUEUED_PACKET: u64 = 1500;

crate::scheme_config! {
    /// PCON marking settings (router part `pcon`).
    pub struct PconConfig {
        /// NFD's `defaultCongestionThreshold`: a face is congested while its transmit queue
        /// holds strictly more bytes than this (NFD: 65 536 B; a 2022 ndnSIM-2.9 port: 20 480 B).
        threshold: u64 = 65_536, Kind::Size { min: 0, max: 1 << 40 }, "bytes";
        /// Cap `threshold` at half the face's send-queue capacity, a queue of n packets counting
        /// n · 1500 B as ndnSIM's net-device transport reports it (NFD 0.6.1–0.6.6; NFD 0.7 and
        /// ndnSIM 2.8 dropped the cap, so a queue that cannot hold `threshold` bytes never marks)
        /// [false: as ndnSIM 2.8].
        cap_half_queue: bool = false, Kind::Bool, "";
        /// NFD's `baseCongestionMarkingInterval` (and the CoDel interval): 100 ms.
        interval: Duration = Duration::from_millis(100), Kind::POSITIVE_TIME, "time";
        /// Use the original's CoDel-style sojourn rule at dequeue instead of NFD's queue-length
        /// rule at enqueue.
        codel: bool = false, Kind::Bool, "";
        /// CoDel target: the sojourn time from which the queue counts as standing (codel only;
        /// the fork's ns-3 CoDel queue: 5 ms).
        target: Duration = Duration::from_millis(5), Kind::POSITIVE_TIME, "time";
        /// The factor of the CoDel-style spacing `factor · interval / √count` between marks
        /// (codel only; the fork: 1.1).
        codel_factor: f64 = 1.1, Kind::Positive, "";
    }
}

impl SchemeConfig for PconConfig {}

/// The marking state of one face.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FaceState {
    /// NFD: when the next packet may be marked (`None` = not congested). CoDel: when the
    /// standing episode started plus one interval, before the first mark.
    next_mark: Option<Instant>,
    /// Marks given in this congestion episode (NFD's `m_nMarkedSinceInMarkingState`).
    n: u32,
    /// Every packet the schedule marked on this face (all types), cumulative.
    marks_sent: u64,
}

/// The PCON marking module: one schedule per face.
#[derive(Debug)]
pub struct PconMarker {
    pub cfg: PconConfig,
    faces: Vec<FaceState>,
}

impl PconMarker {
    pub fn new(cfg: PconConfig) -> Self {
        PconMarker {
            cfg,
            faces: Vec::new(),
        }
    }

    fn state(&mut self, face: FaceId) -> &mut FaceState {
        let i = face.0 as usize;
        if self.faces.len() <= i {
            self.faces.resize(i + 1, FaceState::default());
        }
        &mut self.faces[i]
    }

    /// NFD's `checkCongestionLevel` for one packet about to join a queue of `queued` bytes,
    /// with the configured `threshold` as it stands; true if the packet is marked.
    pub fn nfd_step(&mut self, now: Instant, face: FaceId, queued: u64) -> bool {
        self.nfd_step_under(now, face, queued, self.cfg.threshold)
    }

    /// The threshold applied on a face with `limit`: the configured one; with `cap_half_queue`,
    /// at most half the send queue's capacity in bytes — a packet-limited queue counts
    /// [`BYTES_PER_QUEUED_PACKET`] bytes per place, as ndnSIM's net-device transport tells NFD.
    pub fn threshold_for(&self, limit: QueueLimit) -> u64 {
        if !self.cfg.cap_half_queue {
            return self.cfg.threshold;
        }
        let capacity = match limit {
            QueueLimit::Packets(n) => u64::from(n) * BYTES_PER_QUEUED_PACKET,
            QueueLimit::Bytes(b) => b,
        };
        self.cfg.threshold.min(capacity / 2)
    }

    /// [`Self::nfd_step`] under the given `threshold` (bytes).
    pub fn nfd_step_under(
        &mut self,
        now: Instant,
        face: FaceId,
        queued: u64,
        threshold: u64,
    ) -> bool {
        let interval = self.cfg.interval;
        let s = self.state(face);
        if queued <= threshold {
            s.next_mark = None;
            s.n = 0;
            return false;
        }
        match s.next_mark {
            None => {
                s.next_mark = Some(now + interval);
                false
            }
            Some(t) if now >= t => {
                s.n += 1;
                s.marks_sent += 1;
                s.next_mark = Some(t + spacing(interval, 1.0, s.n + 1));
                true
            }
            Some(_) => false,
        }
    }

    /// The CoDel-style rule for one packet leaving after `sojourn`; true if it is marked.
    pub fn codel_step(&mut self, now: Instant, face: FaceId, sojourn: Duration) -> bool {
        let (target, interval, k) = (self.cfg.target, self.cfg.interval, self.cfg.codel_factor);
        let s = self.state(face);
        if sojourn < target {
            s.next_mark = None;
            s.n = 0;
            return false;
        }
        match s.next_mark {
            None => {
                s.next_mark = Some(now + interval);
                false
            }
            Some(t) if now >= t => {
                s.n += 1;
                s.marks_sent += 1;
                s.next_mark = Some(now + spacing(interval, k, s.n));
                true
            }
            Some(_) => false,
        }
    }
}

/// `k · interval / √m`, in whole nanoseconds (NFD truncates to its clock's nanoseconds).
fn spacing(interval: Duration, k: f64, m: u32) -> Duration {
    Duration((k * interval.0 as f64 / f64::from(m).sqrt()) as u64)
}

fn mark(p: &mut Packet) {
    if let Packet::Data(d) = p {
        d.ext.mark = true;
    }
}

impl RouterHooks for PconMarker {
    fn uses_prefix(&self) -> bool {
        false
    }
    fn on_enqueue(&mut self, now: Instant, face: FaceId, p: &mut Packet, faces: &[Face]) -> bool {
        if !self.cfg.codel {
            let f = &faces[face.0 as usize];
            let threshold = self.threshold_for(f.limit());
            if self.nfd_step_under(now, face, f.queue_bytes(), threshold) {
                mark(p);
            }
        }
        true
    }
    fn on_dequeue(
        &mut self,
        now: Instant,
        face: FaceId,
        p: &mut Packet,
        sojourn: Duration,
        _faces: &[Face],
    ) {
        if self.cfg.codel && self.codel_step(now, face, sojourn) {
            mark(p);
        }
    }
    fn gauge_names(&self) -> &'static [&'static str] {
        &["marks_sent", "marking"]
    }
    fn face_gauges(&mut self, _now: Instant, face: FaceId, out: &mut [f64]) {
        let s = self.faces.get(face.0 as usize).copied().unwrap_or_default();
        out[0] = s.marks_sent as f64;
        out[1] = f64::from(u8::from(s.next_mark.is_some()));
    }
}

impl RouterScheme for PconMarker {
    type Config = PconConfig;
    const NAME: &'static str = "pcon";
    const DOC: &'static str = "PCON link marking (Schneider et al. 2016) as NFD runs it: mark a \
        packet once the transmit queue stays above a byte threshold for an interval, then every \
        interval/sqrt(n+1); the original's CoDel-style sojourn rule as an option.";
    fn build(cfg: &PconConfig, _rng: RngStream) -> Self {
        PconMarker::new(cfg.clone())
    }
}

#[cfg(test)]
#[path = "marking_tests.rs"]
mod tests;
