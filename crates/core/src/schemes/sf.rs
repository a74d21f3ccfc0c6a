//! Stateful Forwarding with AIMD rates and token-bucket policing, as seed 002 evaluates it in
//! ndnSIM 1.0 (`../shared/specs/sf.md`, `docs/schemes/sf.md`).
//!
//! * **Router** ([`SfRouter`]): per outgoing face (`PerOutFaceLimits`) and optionally per FIB
//!   entry and face (`PerFibLimits`), a leaky bucket of outstanding tokens
//!   ([`OutstandingBucket`]) with maximum depth D polices Interests: admitted only if every
//!   applicable bucket has room, else refused with Nack(Congestion) — best-route then tries the
//!   next face, and Nacks downstream when none is left. Each bucket leaks at its rate r_f, which
//!   follows AIMD: +1 per Data received through the face (capped at the face's line rate in Data
//!   packets/s), ×½ per Nack from upstream (not below 1/s). App faces are never policed. The
//!   consumer node runs the same module: its own bucket's refusals are the consumer's *local*
//!   Nacks.
//! * **Consumer** ([`SfConsumer`]): ndnSIM's ConsumerCbr whose rate r follows AIMD: +1 per Data
//!   up to the line rate, ×½ per Nack down to 1/s.
//!
//! Option `nack_suppression` (Kato & Bandai's "new SF"): one reduction per congestion event —
//! a Nack for an Interest sent before the last reduction is ignored.

use crate::app::controller::{CongestionController, DataSignal, NackSignal, Target};
use crate::face::{Face, FaceId};
use crate::mechanisms::aimd::AimdRate;
use crate::mechanisms::token_bucket::OutstandingBucket;
use crate::name::NameId;
use crate::packet::{Data, Interest, Nack, NackReason};
use crate::rng::RngStream;
use crate::schemes::params::{g, Kind, Problem, SchemeConfig, FALLBACK_DATA_SIZE};
use crate::schemes::registry::{ControllerScheme, RouterScheme, TargetKind};
use crate::schemes::{InterestVerdict, RouterHooks};
use crate::time::{Duration, Instant, PacketRate};
use rustc_hash::FxHashMap;

crate::scheme_config! {
    /// Router settings; defaults are seed 002's values.
    pub struct SfConfig {
        /// D: maximum bucket depth in Interests (seed 002: 50; also 100, 500); a bucket admits
        /// an Interest while one token is free.
        depth: f64 = 50.0, Kind::number(1.0), "Interests";
        /// Police per outgoing face (ndnSIM `PerOutFaceLimits`).
        per_face: bool = true, Kind::Bool, "";
        /// Also police per FIB entry and face (ndnSIM `PerFibLimits`, the multi-pair
        /// experiments).
        per_fib: bool = false, Kind::Bool, "";
        /// Data wire size that turns a face's bandwidth into its line rate in Data packets/s;
        /// "producers" = the Data the scenario's producers send (payload + `[packets]
        /// data_overhead`; the largest, with a warning, when they differ), filled in by the
        /// scenario resolver (1250 B in a hand-written spec without it).
        data_size: Option<u32> = None, Kind::DATA_SIZE_OR_PRODUCERS, "bytes";
        /// Initial r_f of every bucket; "line" = the face's line rate.
        initial_rate: Option<f64> = None, Kind::RateOr { word: "line" }, "Interests/s";
        /// Lower bound of r_f (seed 002: 1 Interest/s).
        min_rate: f64 = 1.0, Kind::Positive, "Interests/s";
        /// Additive increase of r_f per Data (seed 002: +1).
        increase: f64 = 1.0, Kind::number(0.0), "Interests/s";
        /// Multiplicative decrease factor of r_f per Nack (seed 002: ×0.5).
        decrease: f64 = 0.5, Kind::open_range(0.0, 1.0), "";
        /// One reduction per congestion event (Kato & Bandai's "new SF").
        nack_suppression: bool = false, Kind::Bool, "";
        /// ndnSIM 1.0 leaks a bucket every `leak_slack / r_f` seconds (1.001).
        leak_slack: f64 = 1.001, Kind::number(1.0), "";
        /// The first leak of each bucket is drawn uniformly in [0, this) so that buckets do not
        /// leak in step (ndnSIM's RandomizeLeak, 1 ms); 0 turns it off.
        leak_randomize: Duration = Duration::from_millis(1), Kind::TIME, "time";
    }
}

impl SchemeConfig for SfConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if !(self.per_face || self.per_fib) {
            problems.push(Problem::new(
                &["per_face", "per_fib"],
                "per_face and per_fib are both false: no rate limit would be kept",
                "set per_face = true (a limit per outgoing face) and/or per_fib = true (a limit \
                 per FIB entry and face)",
            ));
        }
        if let Some(initial) = self.initial_rate.filter(|&r| r < self.min_rate) {
            problems.push(Problem::new(
                &["initial_rate", "min_rate"],
                format!(
                    "initial_rate ({}) is below min_rate ({})",
                    g(initial),
                    g(self.min_rate)
                ),
                format!(
                    "set initial_rate to at least {}, or lower min_rate",
                    g(self.min_rate)
                ),
            ));
        }
        problems
    }
}

/// A policing bucket with its AIMD-controlled leak rate.
#[derive(Clone, Debug)]
struct Limiter {
    bucket: OutstandingBucket,
    aimd: AimdRate,
}

impl Limiter {
    fn increase(&mut self, now: Instant) {
        self.aimd.on_increase();
        self.bucket.set_rate(now, self.aimd.rate);
    }
    fn decrease(&mut self, now: Instant, sent: Instant) {
        if self.aimd.on_decrease(now, Some(sent)) {
            self.bucket.set_rate(now, self.aimd.rate);
        }
    }
}

/// Counters of the router module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SfCounters {
    /// Interests refused by a bucket (on some face).
    pub refused: u64,
    pub admitted: u64,
}

/// The router part of Stateful Forwarding.
#[derive(Debug)]
pub struct SfRouter {
    pub cfg: SfConfig,
    faces: Vec<Option<Limiter>>,
    fib: FxHashMap<(NameId, FaceId), Limiter>,
    rng: RngStream,
    pub counters: SfCounters,
}

impl SfRouter {
    pub fn new(cfg: SfConfig, rng: RngStream) -> Self {
        SfRouter {
            cfg,
            faces: Vec::new(),
            fib: FxHashMap::default(),
            rng,
            counters: SfCounters::default(),
        }
    }

    /// The line rate of a face in Data packets/s (`None` for app faces / unknown bandwidth).
    fn line_rate(&self, face: &Face) -> Option<f64> {
        face.bandwidth
            .map(|b| b.packets_per_sec(self.cfg.data_size.unwrap_or(FALLBACK_DATA_SIZE)))
    }

    fn new_limiter(&mut self, now: Instant, line_rate: f64) -> Limiter {
        let rate = self.cfg.initial_rate.unwrap_or(line_rate);
        let mut aimd = AimdRate::new(
            rate,
            self.cfg.min_rate,
            line_rate,
            self.cfg.increase,
            self.cfg.decrease,
        );
        aimd.suppression = self.cfg.nack_suppression;
        let phase = self.rng.uniform() * self.cfg.leak_randomize.0 as f64;
        let first = now + Duration(phase as u64);
        Limiter {
            bucket: OutstandingBucket::new(self.cfg.depth, aimd.rate, self.cfg.leak_slack, first),
            aimd,
        }
    }

    /// Makes sure the limiters of `face` (and of `(prefix, face)`) exist; false for faces that
    /// are not policed (app faces, unknown bandwidth).
    fn ensure(&mut self, now: Instant, face: FaceId, prefix: NameId, faces: &[Face]) -> bool {
        let Some(line) = faces.get(face.0 as usize).and_then(|f| self.line_rate(f)) else {
            return false;
        };
        let i = face.0 as usize;
        if self.faces.len() <= i {
            self.faces.resize_with(i + 1, || None);
        }
        if self.cfg.per_face && self.faces[i].is_none() {
            self.faces[i] = Some(self.new_limiter(now, line));
        }
        if self.cfg.per_fib && !self.fib.contains_key(&(prefix, face)) {
            let l = self.new_limiter(now, line);
            self.fib.insert((prefix, face), l);
        }
        true
    }

    /// Applies `f` to every limiter that polices (prefix, face).
    fn each(&mut self, face: FaceId, prefix: NameId, mut f: impl FnMut(&mut Limiter)) {
        if let Some(Some(l)) = self.faces.get_mut(face.0 as usize) {
            f(l);
        }
        if let Some(l) = self.fib.get_mut(&(prefix, face)) {
            f(l);
        }
    }
}

impl RouterHooks for SfRouter {
    fn uses_prefix(&self) -> bool {
        self.cfg.per_fib
    }
    fn on_interest_out(
        &mut self,
        now: Instant,
        face: FaceId,
        prefix: NameId,
        _interest: &Interest,
        faces: &[Face],
    ) -> InterestVerdict {
        if !self.ensure(now, face, prefix, faces) {
            return InterestVerdict::Admit;
        }
        let mut room = true;
        self.each(face, prefix, |l| room &= l.bucket.has_room(now));
        if room {
            self.each(face, prefix, |l| l.bucket.borrow());
            self.counters.admitted += 1;
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
        prefix: NameId,
        _data: &mut Data,
        _sent: Option<Instant>,
        _faces: &[Face],
    ) {
        self.each(face, prefix, |l| l.increase(now));
    }

    fn on_nack_in(
        &mut self,
        now: Instant,
        face: FaceId,
        prefix: NameId,
        _nack: &Nack,
        sent: Instant,
        _faces: &[Face],
    ) {
        self.each(face, prefix, |l| l.decrease(now, sent));
    }

    /// The face's limiter: its rate limit r_f (Interests/s) and bucket level (tokens).
    fn gauge_names(&self) -> &'static [&'static str] {
        &["rate", "bucket"]
    }
    fn face_gauges(&mut self, now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(Some(l)) = self.faces.get_mut(face.0 as usize) {
            out[0] = l.aimd.rate;
            out[1] = l.bucket.level(now);
        }
    }
}

crate::scheme_config! {
    /// Consumer settings (controller = "sf-aimd").
    pub struct SfConsumerConfig {
        /// r, the initial rate (seed 002's consumers start at their configured frequency).
        rate: f64 = 100.0, Kind::Positive, "Interests/s", required;
        /// Cap of r; "line" = the line rate of the consumer node's fastest link in Data
        /// packets/s of the size its producers send (filled in by the scenario resolver).
        max_rate: Option<f64> = None, Kind::RateOr { word: "line" }, "Interests/s";
        /// One reduction per congestion event (Kato & Bandai's "new SF").
        nack_suppression: bool = false, Kind::Bool, "";
    }
}

impl SchemeConfig for SfConsumerConfig {
    fn cross_checks(&self) -> Vec<Problem> {
        match self.max_rate {
            Some(max) if self.rate > max => vec![Problem::new(
                &["max_rate", "rate"],
                format!(
                    "max_rate ({}) is below the initial rate ({})",
                    g(max),
                    g(self.rate)
                ),
                format!("raise max_rate to at least {}, or lower rate", g(self.rate)),
            )],
            _ => Vec::new(),
        }
    }
}

/// The consumer part: a constant-rate consumer whose rate follows AIMD.
#[derive(Clone, Debug)]
pub struct SfConsumer {
    pub aimd: AimdRate,
}

impl SfConsumer {
    /// Starts at `initial_rate`, capped at `max_rate` (the line rate of the consumer's face in
    /// Data packets/s); +1 per Data, ×½ per Nack, not below 1/s.
    pub fn new(initial_rate: f64, max_rate: f64, nack_suppression: bool) -> Self {
        let mut aimd = AimdRate::new(initial_rate, 1.0, max_rate, 1.0, 0.5);
        aimd.suppression = nack_suppression;
        SfConsumer { aimd }
    }
}

impl CongestionController for SfConsumer {
    fn target(&self) -> Target {
        Target::Rate(PacketRate(self.aimd.rate))
    }
    fn on_data(&mut self, _now: Instant, _sig: &DataSignal) {
        self.aimd.on_increase();
    }
    fn on_nack(&mut self, now: Instant, sig: &NackSignal) {
        self.aimd.on_decrease(now, Some(sig.sent));
    }
}

impl ControllerScheme for SfConsumer {
    type Config = SfConsumerConfig;
    const NAME: &'static str = "sf-aimd";
    const DOC: &'static str =
        "Stateful Forwarding's consumer (seed 002): a rate +1 per Data up to \
        max_rate, halved per Nack down to 1 Interest/s.";
    const TARGET: TargetKind = TargetKind::Rate;
    fn build(cfg: &SfConsumerConfig) -> Self {
        // no cap when the resolver left it open (a hand-written spec)
        SfConsumer::new(
            cfg.rate,
            cfg.max_rate.unwrap_or(f64::INFINITY),
            cfg.nack_suppression,
        )
    }
}

impl RouterScheme for SfRouter {
    type Config = SfConfig;
    const NAME: &'static str = "sf";
    const DOC: &'static str = "Stateful Forwarding policing (seed 002): per-face (and per-FIB) \
        token buckets whose rate follows AIMD; Interests that do not fit are Nacked.";
    fn build(cfg: &SfConfig, rng: RngStream) -> Self {
        SfRouter::new(cfg.clone(), rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gauge `k` (0: rate, 1: bucket) of `face`.
    fn gauge(r: &mut impl RouterHooks, now: Instant, face: FaceId, k: usize) -> f64 {
        let mut out = [f64::NAN; 2];
        r.face_gauges(now, face, &mut out);
        out[k]
    }
    use crate::face::{FaceKind, QueueLimit};
    use crate::name::Name;
    use crate::rng::StreamKind;
    use crate::time::BitRate;

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

    fn interest() -> Interest {
        Interest::new(Name::new(NameId(1), 0), 0, Duration::from_secs(1), 40)
    }

    fn router(cfg: SfConfig) -> SfRouter {
        SfRouter::new(cfg, RngStream::new(1, 0, StreamKind::Node, 0))
    }

    #[test]
    fn polices_a_burst_at_the_depth_and_never_the_app_face() {
        let f = faces();
        let mut r = router(SfConfig::default());
        let t = Instant(0);
        let verdicts: Vec<_> = (0..51)
            .map(|_| r.on_interest_out(t, FaceId(0), NameId(1), &interest(), &f))
            .collect();
        assert!(verdicts[..50].iter().all(|v| *v == InterestVerdict::Admit));
        assert_eq!(verdicts[50], InterestVerdict::Nack(NackReason::Congestion));
        for _ in 0..100 {
            assert_eq!(
                r.on_interest_out(t, FaceId(1), NameId(1), &interest(), &f),
                InterestVerdict::Admit
            );
        }
        // line rate 10 Mb/s / 10 000 bit = 1000/s
        assert_eq!(gauge(&mut r, t, FaceId(0), 0), 1000.0);
    }

    #[test]
    fn aimd_on_data_and_nack_changes_the_leak_rate() {
        let f = faces();
        let mut r = router(SfConfig {
            initial_rate: Some(200.0),
            ..SfConfig::default()
        });
        let t = Instant(0);
        r.on_interest_out(t, FaceId(0), NameId(1), &interest(), &f);
        let nack = Nack {
            reason: NackReason::Congestion,
            interest: interest(),
            size: 44,
        };
        r.on_nack_in(t, FaceId(0), NameId(1), &nack, t, &f);
        assert_eq!(gauge(&mut r, t, FaceId(0), 0), 100.0);
        let mut d = Data {
            name: Name::new(NameId(1), 0),
            payload: 1250,
            size: 1250,
            freshness: Duration::ZERO,
            created: t,
            ext: Default::default(),
        };
        r.on_data_in(t, FaceId(0), NameId(1), &mut d, Some(t), &f);
        assert_eq!(gauge(&mut r, t, FaceId(0), 0), 101.0);
    }

    #[test]
    fn per_fib_buckets_police_each_prefix_separately() {
        let f = faces();
        let mut r = router(SfConfig {
            per_face: false,
            per_fib: true,
            depth: 2.0,
            ..SfConfig::default()
        });
        let t = Instant(0);
        let admit =
            |r: &mut SfRouter, p| r.on_interest_out(t, FaceId(0), NameId(p), &interest(), &f);
        assert_eq!(admit(&mut r, 1), InterestVerdict::Admit);
        assert_eq!(admit(&mut r, 1), InterestVerdict::Admit);
        assert!(matches!(admit(&mut r, 1), InterestVerdict::Nack(_)));
        assert_eq!(admit(&mut r, 2), InterestVerdict::Admit);
    }

    #[test]
    fn consumer_follows_aimd() {
        let mut c = SfConsumer::new(200.0, 1000.0, false);
        let sig = DataSignal {
            seq: 0,
            rtt: Duration::ZERO,
            retransmitted: false,
            marked: false,
            rate_stamp: None,
            class: 0,
            segments: 1,
            marked_segments: 0,
        };
        c.on_data(Instant(0), &sig);
        assert_eq!(c.target(), Target::Rate(PacketRate(201.0)));
        let n = NackSignal {
            seq: 0,
            reason: NackReason::Congestion,
            sent: Instant(0),
        };
        c.on_nack(Instant(1), &n);
        assert_eq!(c.target(), Target::Rate(PacketRate(100.5)));
    }
}
