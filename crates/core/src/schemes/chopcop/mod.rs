//! CHoPCoP — Chunk-switched Hop Pull Control Protocol (Zhang, Zhang, Reznik, Liu, Qian, Xu,
//! ICCCN 2014; seed 001; `../shared/specs/chopcop.md`; `docs/schemes/chopcop.md`).
//!
//! * The router part, [`ChopcopRouter`] (`[nodes.X.schemes.chopcop]`): REM, random early
//!   marking of Data on each face from the EWMA of the face's outbound Data queue
//!   ([`crate::mechanisms::red_marker`]).
//! * The consumer, [`ric::Ric`] (`controller = "chopcop"`): RIC's window of chunk Interests.
//!
//! * FISP, fair-share Interest shaping ([`fisp`], on with `fisp = true`): Interests of flows
//!   whose Data would overflow an interface wait in a delay queue; while an interface shapes,
//!   its Interests leave through per-flow queues served by deficit round robin while the
//!   interface's Q ≤ Q_max (the seed's reading), or, as options, at the rate of the
//!   interface's Data link (`fisp_pace`) and only while the Data committed to that link fit in
//!   one upstream round trip of it (`fisp_window`).

pub mod fisp;
pub mod ric;

pub use ric::{Ric, RicConfig};

use crate::face::{Face, FaceId, QueueLimit};
use crate::mechanisms::red_marker::RedMarker;
use crate::name::NameId;
use crate::packet::{Data, Interest, Packet, PacketType};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, Problem, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks};
use crate::time::{Duration, Instant};
use fisp::{Fisp, FispParams};

crate::scheme_config! {
    /// CHoPCoP router settings (REM); defaults are seed 001's values.
    pub struct ChopcopConfig {
        /// µ: weight of a new sample in q̄ ← (1 − µ)·q̄ + µ·q (seed 001: 0.05).
        mu: f64 = 0.05, Kind::open_range(0.0, 1.0), "";
        /// q_min as a share of the queue capacity C_q: no marking below it (seed 001: 0.1).
        q_min: f64 = 0.1, Kind::open_range(0.0, 1.0), "of C_q";
        /// q_max as a share of C_q: the marking probability reaches P_max (seed 001: 0.2).
        q_max: f64 = 0.2, Kind::open_range(0.0, 1.0), "of C_q";
        /// P_max: marking probability at q_max (seed 001: 0.002).
        p_max: f64 = 0.002, Kind::range(0.0, 1.0), "";
        /// Gentle RED: the probability rises from P_max to 1 between q_max and 2·q_max; false =
        /// 1 from q_max on (seed 001's curve is gentle).
        gentle: bool = true, Kind::Bool, "";
        /// C_q: the outbound Data queue capacity in bytes; 0 = the face's queue limit (bytes, or
        /// packets when the limit is in packets) [OPEN: the simulator's faces have one transmit
        /// queue for every packet type; CHoPCoP's outbound Data queue is bandwidth × 300 ms].
        capacity: u64 = 0, Kind::Size { min: 0, max: 1 << 40 }, "bytes";
        /// FISP on: delay Interests of flows whose Data would overflow an interface.
        fisp: bool = true, Kind::Bool, "";
        /// γ: weight of q_i (Data owed to Interests sent upstream) in Q = q_d + γ·q_i [OPEN: ½;
        /// seed 001's baseline, where FISP is idle with C = 1 500 KB and a 235.8 KB queue while
        /// q_i ≈ 40 Mbit/s × its 100 ms upstream round trip ≈ 500 KB, needs γ < 0.73].
        gamma: f64 = 0.5, Kind::number(0.0), "";
        /// C: the interface's buffer, the unit of FISP's thresholds; 0 = the face's outbound
        /// Data queue limit (seed 001 §V-B: a 1 500 KB outgoing data queue gives Q_max = 0.9·C =
        /// 1 350 KB), in bytes, or its packets × the largest Data wire size seen leaving on it
        /// when the limit is in packets.
        fisp_capacity: u64 = 0, Kind::Size { min: 0, max: 1 << 40 }, "bytes";
        /// Q_release / C: below it every delayed Interest is released (seed 001: 0.3).
        q_release: f64 = 0.3, Kind::open_range(0.0, 10.0), "of C";
        /// Q_min / C: shaping starts above it (seed 001: 0.4).
        fisp_q_min: f64 = 0.4, Kind::open_range(0.0, 10.0), "of C";
        /// Q_max / C: every Interest is delayed above it (seed 001: 0.9).
        fisp_q_max: f64 = 0.9, Kind::open_range(0.0, 10.0), "of C";
        /// P₀: the delay probability at Q_min (seed 001: 0.3).
        p0: f64 = 0.3, Kind::range(0.0, 1.0), "";
        /// The period of phase 1 (Q computed, shaping on or off, release below Q_release)
        /// [OPEN: 10 ms].
        fisp_period: Duration = Duration::from_millis(10), Kind::PERIOD, "time";
        /// How long a delayed Interest waits; 0 = the interface's smoothed RTT [OPEN].
        fisp_delay: Duration = Duration::ZERO, Kind::TIME, "time";
        /// The wait before the interface has an RTT sample [OPEN: 100 ms].
        fisp_delay_fallback: Duration = Duration::from_millis(100), Kind::POSITIVE_TIME, "time";
        /// FISP's DRR sends an Interest only while the Data committed to the interface's link
        /// (queued, or owed by Interests sent) are below what the link carries in one upstream
        /// round trip plus a chunk, paced at the link's rate [OPEN: the seed gives the DRR no
        /// rate; an extension for fairness beside a greedy receiver, off: the seed's reading].
        fisp_window: bool = false, Kind::Bool, "";
        /// FISP's DRR sends one Interest per the time its Data take on the interface's link
        /// [OPEN: the seed gives the DRR no rate; off: the DRR is held by phase 3 only, at
        /// Q ≤ Q_max].
        fisp_pace: bool = false, Kind::Bool, "";
        /// The size of one Data segment before an interface has sent a Data (afterwards the
        /// largest Data wire size seen leaving on it): a chunk Interest owes its segments × this
        /// to q_i, and is charged as much by FISP's DRR [OPEN: seed 001's 1 KB].
        segment_size: u64 = 1000, Kind::PACKET_SIZE, "bytes";
    }
}

impl SchemeConfig for ChopcopConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        let mut p = Vec::new();
        if self.q_min >= self.q_max {
            p.push(Problem::new(
                &["q_max", "q_min"],
                format!("q_min ({}) is not below q_max ({})", self.q_min, self.q_max),
                "set q_min below q_max".to_string(),
            ));
        }
        if !(self.q_release < self.fisp_q_min && self.fisp_q_min < self.fisp_q_max) {
            p.push(Problem::new(
                &["fisp_q_max", "fisp_q_min", "q_release"],
                format!(
                    "FISP needs q_release < fisp_q_min < fisp_q_max (got {}, {}, {})",
                    self.q_release, self.fisp_q_min, self.fisp_q_max
                ),
                "order the three thresholds".to_string(),
            ));
        }
        p
    }
}

/// CHoPCoP's router part: REM on every network face, and FISP.
#[derive(Debug)]
pub struct ChopcopRouter {
    pub cfg: ChopcopConfig,
    rng: RngStream,
    /// REM state per face (by face index), made at the face's first Data.
    rem: Vec<Option<Rem>>,
    pub fisp: Option<Fisp>,
}

/// One face's REM: the marker and whether it counts bytes (else packets).
#[derive(Clone, Debug)]
struct Rem {
    marker: RedMarker,
    bytes: bool,
}

impl ChopcopRouter {
    pub fn new(cfg: ChopcopConfig, rng: RngStream) -> Self {
        let fisp = cfg.fisp.then(|| {
            Fisp::new(FispParams {
                gamma: cfg.gamma,
                capacity: cfg.fisp_capacity as f64,
                q_release: cfg.q_release,
                q_min: cfg.fisp_q_min,
                q_max: cfg.fisp_q_max,
                p0: cfg.p0,
                period: cfg.fisp_period,
                delay: cfg.fisp_delay,
                fallback: cfg.fisp_delay_fallback,
                segment_bytes: cfg.segment_size as f64,
                window: cfg.fisp_window,
                pace: cfg.fisp_pace,
            })
        });
        ChopcopRouter {
            cfg,
            rng,
            rem: Vec::new(),
            fisp,
        }
    }

    /// Makes the REM state of `face` at its first Data (C_q from the config, else from the
    /// face's queue limit).
    fn ensure(&mut self, face: &Face) {
        let i = face.id.0 as usize;
        if self.rem.len() <= i {
            self.rem.resize(i + 1, None);
        }
        if self.rem[i].is_some() {
            return;
        }
        let cfg = &self.cfg;
        let (cap, bytes) = match (cfg.capacity, face.limit()) {
            (0, QueueLimit::Bytes(b)) => (b as f64, true),
            (0, QueueLimit::Packets(n)) => (f64::from(n), false),
            (c, _) => (c as f64, true),
        };
        self.rem[i] = Some(Rem {
            marker: RedMarker::new(
                cfg.mu,
                cfg.q_min * cap,
                cfg.q_max * cap,
                cfg.p_max,
                cfg.gentle,
            ),
            bytes,
        });
    }

    /// q̄ of `face` (bytes or packets), `None` before its first Data.
    pub fn average_queue(&self, face: FaceId) -> Option<f64> {
        self.rem
            .get(face.0 as usize)
            .and_then(|r| r.as_ref())
            .map(|r| r.marker.avg)
    }
}

impl RouterHooks for ChopcopRouter {
    fn uses_prefix(&self) -> bool {
        false
    }
    /// REM: sample the face's outbound Data queue (before this Data joins it), update q̄, mark
    /// with p(q̄). A mark already set upstream stays set. Data to local apps are not sampled.
    fn on_data_out(&mut self, _now: Instant, face: FaceId, data: &mut Data, faces: &[Face]) {
        let f = &faces[face.0 as usize];
        if let Some(fisp) = &mut self.fisp {
            fisp.on_data_out(f, data);
        }
        if f.is_app() {
            return;
        }
        self.ensure(f);
        let rem = self.rem[face.0 as usize].as_mut().expect("made");
        let (pkts, bytes) = f.occupancy(PacketType::Data);
        let q = if rem.bytes { bytes as f64 } else { pkts as f64 };
        data.ext.mark |= rem.marker.on_packet(q, &mut self.rng);
    }
    fn on_interest_out(
        &mut self,
        now: Instant,
        face: FaceId,
        _prefix: NameId,
        interest: &Interest,
        faces: &[Face],
    ) -> InterestVerdict {
        match &mut self.fisp {
            Some(f) => f.on_interest_out(now, face, interest, faces, &mut self.rng),
            None => InterestVerdict::Admit,
        }
    }
    fn on_data_in(
        &mut self,
        now: Instant,
        _face: FaceId,
        _prefix: NameId,
        data: &mut Data,
        _sent: Option<Instant>,
        _faces: &[Face],
    ) {
        if let Some(f) = &mut self.fisp {
            f.on_data_in(now, data);
        }
    }
    fn on_enqueue(&mut self, _now: Instant, face: FaceId, p: &mut Packet, faces: &[Face]) -> bool {
        if let Some(f) = &mut self.fisp {
            f.on_queue(face, p, true, faces);
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
        if let Some(f) = &mut self.fisp {
            f.on_queue(face, p, false, faces);
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.fisp.as_ref().and_then(Fisp::poll_timeout)
    }
    fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
        if let Some(f) = &mut self.fisp {
            f.on_timeout(now, faces);
        }
    }
    fn poll_action(&mut self) -> Option<ModuleAction> {
        self.fisp.as_mut().and_then(Fisp::poll_action)
    }
    fn gauge_names(&self) -> &'static [&'static str] {
        &[
            "rem_avg_queue",
            "rem_probability",
            "fisp_owed",
            "fisp_delayed",
            "fisp_queued",
        ]
    }
    fn face_gauges(&mut self, _now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(Some(r)) = self.rem.get(face.0 as usize) {
            out[0] = r.marker.avg;
            out[1] = r.marker.probability();
        }
        if let Some(f) = &self.fisp {
            if let Some(i) = f.ifaces.get(face.0 as usize) {
                out[2] = i.q_i(); // q_i; q_d is the queue column
                out[3] = i.delayed_len() as f64;
                out[4] = i.queued_len() as f64;
            }
        }
    }
}

impl RouterScheme for ChopcopRouter {
    type Config = ChopcopConfig;
    const NAME: &'static str = "chopcop";
    const DOC: &'static str = "CHoPCoP's router part (Zhang et al. 2014, seed 001): REM, random \
        early marking of Data from the EWMA of each face's outbound Data queue (gentle RED \
        curve q_min = 0.1·C_q, q_max = 0.2·C_q, P_max = 0.002), and FISP, fair-share Interest \
        shaping (per-flow Interest queues served by deficit round robin at the rate of the \
        interface's Data link, delay queues for flows whose Data would overflow the interface's \
        outbound buffer).";
    fn build(cfg: &ChopcopConfig, rng: RngStream) -> Self {
        ChopcopRouter::new(cfg.clone(), rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::FaceKind;
    use crate::name::{Name, NameId};
    use crate::packet::Packet;
    use crate::rng::StreamKind;
    use crate::time::Duration;

    fn data(size: u32) -> Data {
        Data {
            name: Name::new(NameId(0), 0),
            payload: size,
            size,
            freshness: Duration::ZERO,
            created: Instant::ZERO,
            ext: Default::default(),
        }
    }

    fn face(limit: QueueLimit, queued: u32) -> Face {
        let mut f = Face::new(FaceId(0), FaceKind::Net { peer: 1, link: 0 }, limit);
        for _ in 0..queued {
            assert!(f.enqueue(Instant::ZERO, Packet::Data(data(1000))));
        }
        f
    }

    fn router(cfg: ChopcopConfig) -> ChopcopRouter {
        ChopcopRouter::new(cfg, RngStream::new(1, 0, StreamKind::Node, 0))
    }

    /// A 100 KB queue (C_q) holding 50 KB of Data: q̄ climbs by µ·(50 000 − q̄) per Data, and
    /// the curve is gentle RED on q_min = 10 KB, q_max = 20 KB.
    #[test]
    fn rem_samples_the_data_queue_in_bytes_against_the_face_limit() {
        let faces = [face(QueueLimit::Bytes(100_000), 50)];
        let mut r = router(ChopcopConfig::default());
        let mut d = data(1000);
        r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
        assert_eq!(r.average_queue(FaceId(0)), Some(2_500.0));
        let marker = &r.rem[0].as_ref().unwrap().marker;
        assert_eq!((marker.q_min, marker.q_max), (10_000.0, 20_000.0));
        assert_eq!(marker.p_max, 0.002);
        let mut marks = 0;
        for _ in 0..200 {
            let mut d = data(1000);
            r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
            marks += u32::from(d.ext.mark);
        }
        // q̄ ≈ 50 KB ≥ 2·q_max: every later Data is marked
        assert!(r.average_queue(FaceId(0)).unwrap() > 40_000.0);
        assert!(marks > 150, "{marks}");
        let mut d = data(1000);
        r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
        assert!(d.ext.mark);
    }

    #[test]
    fn rem_in_packets_when_the_limit_is_in_packets_and_capacity_overrides() {
        let faces = [face(QueueLimit::Packets(100), 40)];
        let mut r = router(ChopcopConfig::default());
        let mut d = data(1000);
        r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
        assert_eq!(r.average_queue(FaceId(0)), Some(2.0), "0.05 · 40 packets");
        let m = &r.rem[0].as_ref().unwrap().marker;
        assert_eq!((m.q_min, m.q_max), (10.0, 20.0));
        let mut r = router(ChopcopConfig {
            capacity: 1_500_000,
            ..Default::default()
        });
        r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
        assert_eq!(r.average_queue(FaceId(0)), Some(2_000.0), "0.05 · 40 KB");
        let m = &r.rem[0].as_ref().unwrap().marker;
        assert_eq!((m.q_min, m.q_max), (150_000.0, 300_000.0));
    }

    #[test]
    fn an_empty_queue_never_marks_and_a_mark_stays_set() {
        let faces = [face(QueueLimit::Bytes(100_000), 0)];
        let mut r = router(ChopcopConfig::default());
        for _ in 0..1000 {
            let mut d = data(1000);
            r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
            assert!(!d.ext.mark);
        }
        let mut d = data(1000);
        d.ext.mark = true;
        r.on_data_out(Instant::ZERO, FaceId(0), &mut d, &faces);
        assert!(d.ext.mark, "marked upstream: stays marked");
    }

    #[test]
    fn fisp_defaults_are_seed_001s() {
        let r = router(ChopcopConfig::default());
        let p = &r.fisp.as_ref().expect("on by default").p;
        assert_eq!(
            (p.q_release, p.q_min, p.q_max, p.p0, p.gamma, p.capacity),
            (0.3, 0.4, 0.9, 0.3, 0.5, 0.0),
            "C = 0: each interface's outbound Data buffer"
        );
        assert_eq!(p.period, Duration::from_millis(10));
        assert_eq!((p.delay, p.segment_bytes), (Duration::ZERO, 1000.0));
        assert!(router(ChopcopConfig {
            fisp: false,
            ..Default::default()
        })
        .fisp
        .is_none());
        let bad = ChopcopConfig {
            q_release: 0.5,
            ..Default::default()
        };
        assert_eq!(
            bad.validate()[0].keys,
            ["fisp_q_max", "fisp_q_min", "q_release"]
        );
    }

    #[test]
    fn q_min_must_be_below_q_max() {
        let c = ChopcopConfig {
            q_min: 0.3,
            ..Default::default()
        };
        assert_eq!(c.validate()[0].keys, ["q_max", "q_min"]);
        assert!(ChopcopConfig::default().validate().is_empty());
    }
}
