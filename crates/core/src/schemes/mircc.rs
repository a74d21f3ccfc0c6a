//! MIRCC explicit-rate congestion control, as seed 000 reimplemented it in ndnSIM 1.0
//! (`../shared/specs/mircc.md`, `docs/schemes/mircc.md`).
//!
//! Every forwarder — consumer nodes and routers alike — keeps, for each **upstream link** (a net
//! face it sends Interests on), a rate R(t) recomputed every interval T (the forwarder's coarse
//! clock) with an RCP-like law (symbols of `mircc.md`):
//!
//! ```text
//! N      = max(η·C, y) / R(t − T)                         flow-count estimate
//! base   = (η·C − β·g/d) / N,   clipped to [0, C/N]
//! excess = α·(η·C − y) / N,     clipped to [0, C − base]
//! base   ← w·base_prev + (1 − w)·base      (EWMA, w = 0.5)
//! excess ← w·excess_prev + (1 − w)·excess
//! R      = max(base + excess, floor)                      floor: 1/d (one packet per RTT)
//! ```
//!
//! C is the link's capacity in Data packets/s, y the Interests offered to the face during the
//! last T divided by T, g the fill level of the face's policing bucket, d the smoothed RTT of the
//! Data coming back through the face. A Data arriving through the face gets R written into its
//! rate field when the field is absent or larger, so the consumer receives the path minimum and
//! sends Interests at that rate ([`MirccConsumer`]). Interests are policed by a leaky bucket of
//! depth D = 200 (the same bucket as Stateful Forwarding's, leaking at C): an Interest that does
//! not fit is refused with Nack(Congestion).
//!
//! **Multipath (dual classes).** Interests and Data carry a traffic class: 0 primary,
//! 1 secondary. Each link runs the law twice: the primary rate over the primary Interests
//! (the fair share among the flows' primary sub-flows), and the secondary rate over the
//! secondary Interests on the capacity the primary class leaves, max(C − y_primary, 0). A Data
//! is stamped with the rate of its class. Primary Interests have priority at the bucket:
//! secondary ones are admitted only while it is less than `secondary_share`·D full. A
//! multipath consumer ([`MirccConsumer::multipath`]) sends at R_primary + R_secondary and labels
//! its Interests in that proportion; the `class-multipath` strategy sends each class on its own
//! next hop.

use crate::app::controller::{CongestionController, DataSignal, Target};
use crate::face::{Face, FaceId};
use crate::mechanisms::token_bucket::OutstandingBucket;
use crate::name::NameId;
use crate::packet::{Data, Interest, NackReason};
use crate::rng::RngStream;
use crate::schemes::params::{g, Kind, Problem, SchemeConfig, FALLBACK_DATA_SIZE};
use crate::schemes::registry::{ControllerScheme, RouterScheme, TargetKind};
use crate::schemes::{InterestVerdict, RouterHooks};
use crate::time::{Duration, Instant, PacketRate};

crate::scheme_config! {
    /// Router settings; defaults are seed 000's values where it states them.
    pub struct MirccConfig {
        /// T: the rate-update interval (the routers' coarse clock; seed 000: 100, 250, 500,
        /// 750 ms); the consumers' `tick` is usually the same value.
        interval: Duration = Duration::from_millis(100), Kind::PERIOD, "time";
        /// α: gain of the excess rate [OPEN in the seed; 0.5].
        alpha: f64 = 0.5, Kind::number(0.0), "";
        /// β: gain of the queue term [OPEN; 1].
        beta: f64 = 1.0, Kind::number(0.0), "";
        /// η: target utilisation (seed 000: 1).
        eta: f64 = 1.0, Kind::Positive, "";
        /// Weight of the previous value in the EWMA of the base and excess rates (seed 000:
        /// 0.5).
        ewma: f64 = 0.5, Kind::range(0.0, 1.0), "";
        /// D: depth of the policing bucket in Interests (seed 000: 200); an Interest needs one
        /// free token.
        depth: f64 = 200.0, Kind::number(1.0), "Interests";
        /// Data wire size that turns a face's bandwidth into C (Data packets/s);
        /// "producers" = the Data the scenario's producers send (payload + `[packets]
        /// data_overhead`; the largest, with a warning, when they differ), filled in by the
        /// scenario resolver (1250 B in a hand-written spec without it).
        data_size: Option<u32> = None, Kind::DATA_SIZE_OR_PRODUCERS, "bytes";
        /// R of a new link; "capacity" = C [OPEN].
        initial_rate: Option<f64> = None, Kind::RateOr { word: "capacity" }, "Interests/s";
        /// d before the first RTT sample [OPEN; 100 ms].
        initial_rtt: Duration = Duration::from_millis(100), Kind::POSITIVE_TIME, "time";
        /// Lower bound of R; "rtt" = one packet per RTT, 1/d [OPEN].
        rate_floor: Option<f64> = None, Kind::RateOr { word: "rtt" }, "Interests/s";
        /// Police Interests with the bucket (seed 000: yes).
        police: bool = true, Kind::Bool, "";
        /// g(t) is the bucket's *lowest* fill level during the last interval (its standing
        /// queue), not its level at the update instant [OPEN]: with a coarse clock Interests
        /// arrive in bursts that drain within T, and the instantaneous level would depend on
        /// the phase of the bursts against the update.
        standing_queue: bool = true, Kind::Bool, "";
        /// ndnSIM 1.0 leak-event spacing factor (see `token_bucket.rs`; 1.001).
        leak_slack: f64 = 1.001, Kind::number(1.0), "";
        /// First leak event drawn in [0, this) (ndnSIM's RandomizeLeak, 1 ms); 0 turns it off.
        leak_randomize: Duration = Duration::from_millis(1), Kind::TIME, "time";
        /// y counts every Interest offered to the face, the ones the bucket refuses included
        /// (seed 000: "the number of received Interest packets"); false: only the admitted
        /// ones.
        count_refused: bool = true, Kind::Bool, "";
        /// d is the end-to-end RTT the consumers carry in their Interests (RCP's reading: the
        /// mean over the Interests offered to the face during the last T) instead of the RTT
        /// this forwarder measures to the producer (seed 000: "smoothed RTT at receiving Data
        /// packets"), so that a flow's share does not depend on where its bottleneck sits.
        path_rtt: bool = false, Kind::Bool, "";
        /// Multipath: secondary-class Interests are admitted only while the bucket is below
        /// this fraction of its depth (primary priority) [OPEN; 0.5].
        secondary_share: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
    }
}

impl SchemeConfig for MirccConfig {}

impl RouterScheme for MirccRouter {
    type Config = MirccConfig;
    const NAME: &'static str = "mircc";
    const DOC: &'static str = "MIRCC explicit rates (seed 000): an RCP-like rate per upstream \
        link every T, stamped into Data as the path minimum; Interests policed by a bucket.";
    fn build(cfg: &MirccConfig, rng: RngStream) -> Self {
        MirccRouter::new(cfg.clone(), rng)
    }
}

/// The inputs of one rate update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateInputs {
    /// C: capacity in Data packets/s.
    pub capacity: f64,
    /// y: offered Interests per second over the last interval.
    pub offered: f64,
    /// g: bucket fill level (Interests).
    pub queue: f64,
    /// d: smoothed RTT in seconds.
    pub rtt: f64,
}

/// The rate law's state for one link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLaw {
    pub rate: f64,
    pub base: f64,
    pub excess: f64,
}

impl RateLaw {
    /// A link starting at rate `r` (all of it counted as base rate).
    pub fn new(r: f64) -> Self {
        RateLaw {
            rate: r,
            base: r,
            excess: 0.0,
        }
    }

    /// One update of equations (1)–(5).
    pub fn update(&mut self, cfg: &MirccConfig, x: RateInputs) {
        let c = x.capacity;
        let target = cfg.eta * c;
        // η·C (not C) in the flow count, so that one flow settles at η·C; with η = 1 (seed 000)
        // this is the spec's max(C, y).
        let n = (target.max(x.offered) / self.rate.max(f64::MIN_POSITIVE)).max(1.0);
        let base_now = ((target - cfg.beta * x.queue / x.rtt) / n).clamp(0.0, c / n);
        let excess_now = (cfg.alpha * (target - x.offered) / n).clamp(0.0, (c - base_now).max(0.0));
        let w = cfg.ewma;
        self.base = w * self.base + (1.0 - w) * base_now;
        self.excess = w * self.excess + (1.0 - w) * excess_now;
        self.rate = (self.base + self.excess).max(cfg.rate_floor.unwrap_or(1.0 / x.rtt));
    }
}

/// The state of one upstream link.
#[derive(Clone, Debug)]
struct Link {
    capacity: f64,
    /// The rate laws of the primary and the secondary class.
    laws: [RateLaw; 2],
    /// Interests offered per class since the last update.
    offered: [u64; 2],
    srtt: Option<f64>,
    /// Sum and count of the RTTs carried by the Interests offered since the last update, and
    /// their mean over the last interval that had any (`path_rtt`).
    carried: (f64, u64),
    path_rtt: Option<f64>,
    bucket: OutstandingBucket,
    /// Lowest bucket level seen since the last update.
    min_level: f64,
}

/// Counters of the router module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MirccCounters {
    pub refused: u64,
    pub stamped: u64,
    pub updates: u64,
}

/// The MIRCC forwarder module (consumer nodes and routers).
#[derive(Debug)]
pub struct MirccRouter {
    pub cfg: MirccConfig,
    links: Vec<Option<Link>>,
    rng: RngStream,
    pub counters: MirccCounters,
}

impl MirccRouter {
    pub fn new(cfg: MirccConfig, rng: RngStream) -> Self {
        MirccRouter {
            cfg,
            links: Vec::new(),
            rng,
            counters: MirccCounters::default(),
        }
    }

    /// The link state of a net face with a known bandwidth, created on first use.
    fn link(&mut self, now: Instant, face: FaceId, faces: &[Face]) -> Option<&mut Link> {
        let bw = faces.get(face.0 as usize)?.bandwidth?;
        let i = face.0 as usize;
        if self.links.len() <= i {
            self.links.resize_with(i + 1, || None);
        }
        if self.links[i].is_none() {
            let capacity = bw.packets_per_sec(self.cfg.data_size.unwrap_or(FALLBACK_DATA_SIZE));
            let rate = self.cfg.initial_rate.unwrap_or(capacity);
            let phase = self.rng.uniform() * self.cfg.leak_randomize.0 as f64;
            let bucket = OutstandingBucket::new(
                self.cfg.depth,
                capacity,
                self.cfg.leak_slack,
                now + Duration(phase as u64),
            );
            self.links[i] = Some(Link {
                capacity,
                laws: [RateLaw::new(rate), RateLaw::new(rate)],
                offered: [0, 0],
                srtt: None,
                carried: (0.0, 0),
                path_rtt: None,
                bucket,
                min_level: 0.0,
            });
        }
        self.links[i].as_mut()
    }
}

impl RouterHooks for MirccRouter {
    fn uses_prefix(&self) -> bool {
        false
    }
    fn on_interest_out(
        &mut self,
        now: Instant,
        face: FaceId,
        _prefix: NameId,
        interest: &Interest,
        faces: &[Face],
    ) -> InterestVerdict {
        let police = self.cfg.police;
        let count_refused = self.cfg.count_refused;
        let class = interest.ext.class.min(1) as usize;
        let limit = if class == 0 {
            self.cfg.depth
        } else {
            self.cfg.depth * self.cfg.secondary_share
        };
        let Some(link) = self.link(now, face, faces) else {
            return InterestVerdict::Admit;
        };
        if let Some(rtt) = interest.ext.rtt() {
            link.carried.0 += rtt.as_secs_f64();
            link.carried.1 += 1;
        }
        let level = link.bucket.level(now);
        link.min_level = link.min_level.min(level);
        let room = level + 1.0 <= limit && link.bucket.has_room(now);
        if !police || room || count_refused {
            link.offered[class] += 1;
        }
        if !police || room {
            if police {
                link.bucket.borrow();
            }
            InterestVerdict::Admit
        } else {
            self.counters.refused += 1;
            InterestVerdict::Nack(NackReason::Congestion)
        }
    }

    fn on_data_in(
        &mut self,
        now: Instant,
        face: FaceId,
        _prefix: NameId,
        data: &mut Data,
        sent: Option<Instant>,
        faces: &[Face],
    ) {
        let Some(link) = self.link(now, face, faces) else {
            return;
        };
        if let Some(sent) = sent {
            let sample = (now - sent).as_secs_f64();
            link.srtt = Some(match link.srtt {
                None => sample,
                Some(s) => 0.875 * s + 0.125 * sample,
            });
        }
        let r = link.laws[data.ext.class.min(1) as usize].rate;
        if data.ext.rate_stamp.is_none_or(|s| s > r) {
            data.ext.rate_stamp = Some(r);
            self.counters.stamped += 1;
        }
    }

    fn tick_interval(&self) -> Option<Duration> {
        Some(self.cfg.interval)
    }

    fn on_tick(&mut self, now: Instant, _faces: &[Face]) {
        let t = self.cfg.interval.as_secs_f64();
        let d0 = self.cfg.initial_rtt.as_secs_f64();
        let cfg = &self.cfg;
        for link in self.links.iter_mut().flatten() {
            let level = link.bucket.level(now);
            let queue = if cfg.standing_queue {
                link.min_level.min(level)
            } else {
                level
            };
            if link.carried.1 > 0 {
                link.path_rtt = Some(link.carried.0 / link.carried.1 as f64);
            }
            link.carried = (0.0, 0);
            let measured = if cfg.path_rtt {
                link.path_rtt.or(link.srtt)
            } else {
                link.srtt
            };
            let rtt = measured.unwrap_or(d0).max(1e-6);
            let primary = link.offered[0] as f64 / t;
            let x = RateInputs {
                capacity: link.capacity,
                offered: primary,
                queue,
                rtt,
            };
            link.laws[0].update(cfg, x);
            let x = RateInputs {
                capacity: (link.capacity - primary).max(0.0),
                offered: link.offered[1] as f64 / t,
                queue,
                rtt,
            };
            link.laws[1].update(cfg, x);
            link.offered = [0, 0];
            link.min_level = level;
            self.counters.updates += 1;
        }
    }

    /// The upstream link's (primary) rate R (Interests/s) and policing bucket level (tokens).
    fn gauge_names(&self) -> &'static [&'static str] {
        &["rate", "bucket"]
    }
    fn face_gauges(&mut self, now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(Some(link)) = self.links.get_mut(face.0 as usize) {
            out[0] = link.laws[0].rate;
            out[1] = link.bucket.level(now);
        }
    }
}

crate::scheme_config! {
    /// Consumer settings (controller = "mircc").
    pub struct MirccConsumerConfig {
        /// The rate before the first stamped Data; "line" = the line rate of the consumer
        /// node's fastest link in Data packets/s (filled in by the scenario resolver).
        rate: Option<f64> = None, Kind::RateOr { word: "line" }, "Interests/s";
        /// Lower bound of each rate.
        min_rate: f64 = 1.0, Kind::Positive, "Interests/s";
        /// Dual-class multipath consumer (primary + secondary rates).
        multipath: bool = false, Kind::Bool, "";
    }
}

impl SchemeConfig for MirccConsumerConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        match self.rate {
            Some(rate) if rate < self.min_rate => vec![Problem::new(
                &["min_rate", "rate"],
                format!(
                    "min_rate ({}) is above the initial rate ({})",
                    g(self.min_rate),
                    g(rate)
                ),
                format!("lower min_rate to at most {}, or raise rate", g(rate)),
            )],
            _ => Vec::new(),
        }
    }
}

impl ControllerScheme for MirccConsumer {
    type Config = MirccConsumerConfig;
    const NAME: &'static str = "mircc";
    const DOC: &'static str = "MIRCC's consumer (seed 000's ConsumerLi): sends at the rate \
        stamped in the Data it receives.";
    const TARGET: TargetKind = TargetKind::Rate;
    fn build(cfg: &MirccConsumerConfig) -> Self {
        // a hand-written spec without a rate starts at the floor
        let rate = cfg.rate.unwrap_or(cfg.min_rate);
        if cfg.multipath {
            MirccConsumer::multipath(rate, cfg.min_rate)
        } else {
            MirccConsumer::new(rate, cfg.min_rate)
        }
    }
}

/// The consumer (seed 000's `ConsumerLi`): sends Interests at the rate stamped in the last
/// Data it received, starting at `initial_rate`. Nacks and timeouts do not change the rate.
///
/// Multipath: it also keeps a secondary rate (stamped by secondary Data, starting at
/// `min_rate`), sends at the sum, and labels Interests primary or secondary in proportion to
/// the two rates (smooth weighted round robin, deterministic).
#[derive(Clone, Debug)]
pub struct MirccConsumer {
    /// Primary rate (Interests/s).
    pub rate: f64,
    /// Secondary rate (Interests/s); used only when `multipath`.
    pub secondary: f64,
    /// Lower bound of each rate (Interests/s).
    pub min_rate: f64,
    pub multipath: bool,
    credit: [f64; 2],
}

impl MirccConsumer {
    pub fn new(initial_rate: f64, min_rate: f64) -> Self {
        MirccConsumer {
            rate: initial_rate.max(min_rate),
            secondary: min_rate,
            min_rate,
            multipath: false,
            credit: [0.0; 2],
        }
    }

    /// A dual-class consumer.
    pub fn multipath(initial_rate: f64, min_rate: f64) -> Self {
        MirccConsumer {
            multipath: true,
            ..Self::new(initial_rate, min_rate)
        }
    }
}

impl CongestionController for MirccConsumer {
    fn target(&self) -> Target {
        let total = if self.multipath {
            self.rate + self.secondary
        } else {
            self.rate
        };
        Target::Rate(PacketRate(total))
    }
    fn on_rate_stamp(&mut self, _now: Instant, rate: PacketRate, sig: &DataSignal) {
        let r = rate.0.max(self.min_rate);
        if sig.class == 0 {
            self.rate = r;
        } else {
            self.secondary = r;
        }
    }
    fn next_class(&mut self) -> u8 {
        if !self.multipath {
            return 0;
        }
        self.credit[0] += self.rate;
        self.credit[1] += self.secondary;
        let c = usize::from(self.credit[1] > self.credit[0]);
        self.credit[c] -= self.rate + self.secondary;
        c as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The (rate, bucket level) gauges of face 0.
    fn gauges(r: &mut MirccRouter, now: Instant) -> (f64, f64) {
        let mut out = [f64::NAN; 2];
        r.face_gauges(now, FaceId(0), &mut out);
        (out[0], out[1])
    }
    use crate::face::{FaceKind, QueueLimit};
    use crate::name::Name;
    use crate::rng::StreamKind;
    use crate::time::BitRate;

    /// A 10 Mbps net face (C = 1 000 Data/s of 1250 B) and an app face.
    fn faces() -> Vec<Face> {
        let mut net = Face::new(
            FaceId(0),
            FaceKind::Net { peer: 1, link: 0 },
            QueueLimit::Packets(100),
        );
        net.bandwidth = Some(BitRate(10_000_000));
        let app = Face::new(FaceId(1), FaceKind::App { app: 0 }, QueueLimit::Packets(1));
        vec![net, app]
    }

    fn router(cfg: MirccConfig) -> MirccRouter {
        MirccRouter::new(cfg, RngStream::new(1, 0, StreamKind::Node, 0))
    }

    fn interest(rtt: Option<Duration>) -> Interest {
        let mut i = Interest::new(Name::new(NameId(1), 0), 0, Duration::from_secs(1), 40);
        i.ext.set_rtt(rtt);
        i
    }

    /// Offers `n` Interests at `t` on the net face; how many were refused.
    fn offer(r: &mut MirccRouter, t: Instant, n: usize, rtt: Option<Duration>) -> usize {
        let f = faces();
        (0..n)
            .filter(|_| {
                r.on_interest_out(t, FaceId(0), NameId(1), &interest(rtt), &f)
                    != InterestVerdict::Admit
            })
            .count()
    }

    #[test]
    fn y_counts_the_refused_interests_unless_told_not_to() {
        // D = 200: a burst of 300 at t = 0 has 100 refused. Over T = 100 ms y is 3 000/s
        // counting them (seed 000), 2 000/s without; y > C, so N = y/R and the base rate
        // moves halfway (EWMA ½) from R = C = 1 000 to C/N.
        for (count_refused, y) in [(true, 3000.0), (false, 2000.0)] {
            let mut c = cfg();
            c.count_refused = count_refused;
            c.leak_randomize = Duration::ZERO;
            let mut r = router(c);
            assert_eq!(offer(&mut r, Instant(0), 300, None), 100);
            let t = Instant(0) + Duration::from_millis(100);
            r.on_tick(t, &faces());
            let (rate, _) = gauges(&mut r, t);
            let expected = 0.5 * 1000.0 + 0.5 * 1000.0 / (y / 1000.0);
            assert!(
                (rate - expected).abs() < 1e-9,
                "{count_refused}: {rate} vs {expected}"
            );
        }
    }

    #[test]
    fn path_rtt_takes_d_from_the_interests_instead_of_the_measured_rtt() {
        // The router measures 100 ms to the producer; the consumers carry 400 ms. A standing
        // queue g at the update is divided by d: β·g/d is 4× smaller with the path's RTT.
        for path_rtt in [false, true] {
            let mut c = cfg();
            c.path_rtt = path_rtt;
            c.standing_queue = false;
            c.leak_randomize = Duration::ZERO;
            let mut r = router(c.clone());
            let t0 = Instant(0) + Duration::from_secs(1);
            let mut data = Data {
                name: Name::new(NameId(1), 0),
                payload: 1250,
                size: 1250,
                freshness: Duration::ZERO,
                created: Instant(0),
                ext: Default::default(),
            };
            let sent = Some(Instant(t0.0 - Duration::from_millis(100).0));
            r.on_data_in(t0, FaceId(0), NameId(1), &mut data, sent, &faces());
            let carried = [300, 500].map(|ms| Some(Duration::from_millis(ms)));
            assert_eq!(offer(&mut r, t0, 75, carried[0]), 0);
            assert_eq!(offer(&mut r, t0, 75, carried[1]), 0);
            r.on_tick(t0, &faces());
            let (rate, level) = gauges(&mut r, t0);
            assert!(level > 100.0, "{level}");
            let mut law = RateLaw::new(1000.0);
            let d = if path_rtt { 0.4 } else { 0.1 };
            let x = RateInputs {
                capacity: 1000.0,
                offered: 1500.0,
                queue: level,
                rtt: d,
            };
            law.update(&c, x);
            assert!(
                (rate - law.rate).abs() < 1e-9,
                "{path_rtt}: {rate} vs {}",
                law.rate
            );
        }
    }

    fn cfg() -> MirccConfig {
        MirccConfig::default()
    }

    /// Iterates the law with `flows` equal flows each sending at the link's rate.
    fn converge(c: f64, flows: f64, start: f64, steps: usize) -> RateLaw {
        let mut law = RateLaw::new(start);
        for _ in 0..steps {
            let x = RateInputs {
                capacity: c,
                offered: flows * law.rate,
                queue: 0.0,
                rtt: 0.4,
            };
            law.update(&cfg(), x);
        }
        law
    }

    #[test]
    fn one_flow_converges_to_eta_c() {
        let law = converge(1000.0, 1.0, 100.0, 200);
        assert!((law.rate - 1000.0).abs() < 1.0, "{}", law.rate);
        let mut c = cfg();
        c.eta = 0.9;
        let mut law = RateLaw::new(100.0);
        for _ in 0..300 {
            let x = RateInputs {
                capacity: 1000.0,
                offered: law.rate,
                queue: 0.0,
                rtt: 0.4,
            };
            law.update(&c, x);
        }
        assert!((law.rate - 900.0).abs() < 1.0, "{}", law.rate);
    }

    #[test]
    fn n_equal_flows_converge_to_c_over_n() {
        for n in [2.0, 3.0, 5.0] {
            for start in [50.0, 1200.0] {
                let law = converge(1200.0, n, start, 300);
                assert!(
                    (law.rate - 1200.0 / n).abs() < 1200.0 / n * 0.01,
                    "n={n} start={start}: {}",
                    law.rate
                );
            }
        }
    }

    #[test]
    fn overload_cuts_the_rate_in_proportion_in_one_interval() {
        // Two flows at R = 1000 on C = 1200: y = 2000, N = 2: the new base is C/2 = 600,
        // excess 0; with the EWMA the rate falls from 1000 to 0.5·1000 + 0.5·600 = 800.
        let mut law = RateLaw::new(1000.0);
        let x = RateInputs {
            capacity: 1200.0,
            offered: 2000.0,
            queue: 0.0,
            rtt: 0.4,
        };
        law.update(&cfg(), x);
        assert!((law.base - 800.0).abs() < 1e-9, "{}", law.base);
        assert_eq!(law.excess, 0.0);
        // without EWMA the cut is exactly to C·R/y
        let mut c = cfg();
        c.ewma = 0.0;
        let mut law = RateLaw::new(1000.0);
        law.update(&c, x);
        assert!((law.rate - 1200.0 * 1000.0 / 2000.0).abs() < 1e-9);
    }

    #[test]
    fn queue_term_lowers_the_rate_and_floor_is_one_packet_per_rtt() {
        let mut law = RateLaw::new(1000.0);
        let x = RateInputs {
            capacity: 1000.0,
            offered: 1000.0,
            queue: 100.0,
            rtt: 0.5,
        };
        law.update(&cfg(), x);
        // base(t) = (1000 − 100/0.5)/1 = 800; EWMA: 900
        assert!((law.rate - 900.0).abs() < 1e-9, "{}", law.rate);
        let mut law = RateLaw::new(1.0);
        let x = RateInputs {
            capacity: 1000.0,
            offered: 1e9,
            queue: 1e6,
            rtt: 0.25,
        };
        law.update(&cfg(), x);
        assert_eq!(law.rate, 4.0);
    }

    fn sig(class: u8) -> DataSignal {
        DataSignal {
            seq: 0,
            rtt: Duration::ZERO,
            retransmitted: false,
            marked: false,
            rate_stamp: None,
            class,
            segments: 1,
            marked_segments: 0,
        }
    }

    #[test]
    fn consumer_follows_the_stamp() {
        let mut c = MirccConsumer::new(1000.0, 1.0);
        c.on_rate_stamp(Instant(0), PacketRate(600.0), &sig(0));
        assert_eq!(c.target(), Target::Rate(PacketRate(600.0)));
        c.on_rate_stamp(Instant(0), PacketRate(0.0), &sig(0));
        assert_eq!(c.target(), Target::Rate(PacketRate(1.0)));
        assert_eq!(c.next_class(), 0);
    }

    #[test]
    fn multipath_consumer_splits_its_interests_in_proportion() {
        let mut c = MirccConsumer::multipath(1000.0, 1.0);
        c.on_rate_stamp(Instant(0), PacketRate(300.0), &sig(0));
        c.on_rate_stamp(Instant(0), PacketRate(100.0), &sig(1));
        assert_eq!(c.target(), Target::Rate(PacketRate(400.0)));
        let classes: Vec<u8> = (0..8).map(|_| c.next_class()).collect();
        assert_eq!(classes.iter().filter(|&&k| k == 1).count(), 2);
        assert_eq!(classes.iter().filter(|&&k| k == 0).count(), 6);
    }

    #[test]
    fn secondary_class_gets_the_capacity_the_primary_leaves() {
        // primary uses 700 of C = 1000: the secondary law converges to the remaining 300
        let mut law = RateLaw::new(1000.0);
        for _ in 0..300 {
            let x = RateInputs {
                capacity: 1000.0 - 700.0,
                offered: law.rate,
                queue: 0.0,
                rtt: 0.2,
            };
            law.update(&cfg(), x);
        }
        assert!((law.rate - 300.0).abs() < 1.0, "{}", law.rate);
    }
}
