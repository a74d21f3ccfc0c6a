//! HR-ICP's router part (Carofiglio, Gallo, Muscariello, 2012): hop-by-hop Interest shaping
//! (HbH), quota-based as seed 001 describes it (`../shared/specs/chopcop.md`, "Baselines";
//! `docs/schemes/hr-icp.md`). Receivers run ICP (`controller = "icp"`).
//!
//! On each upstream face, each flow (content name) may have at most `quota` Interests pending
//! (sent and not yet answered). Further Interests of the flow wait in its queue, in order, and
//! leave one by one as pending ones are answered (or expire); a full queue drops the Interest
//! (the receiver then times out). Scenario key: `[nodes.X.schemes.hbh]`. The quota defaults to the flow's fair share of the face's
//! bandwidth-delay product: ⌈B · R̄TT / (n · S)⌉, with B the face's bandwidth, R̄TT its smoothed
//! RTT, n the flows pending on it and S the Data an Interest brings [OPEN].

use crate::face::{Face, FaceId};
use crate::name::{Name, NameId};
use crate::packet::{Data, Interest};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::registry::RouterScheme;
use crate::schemes::{InterestVerdict, ModuleAction, RouterHooks};
use crate::time::{Duration, Instant};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

crate::scheme_config! {
    /// HR-ICP's hop-by-hop (quota) shaper settings.
    pub struct HrIcpConfig {
        /// Pending Interests allowed per flow on a face; 0 = its fair share of the face's
        /// bandwidth-delay product, ⌈B·R̄TT/(n·S)⌉ [OPEN].
        quota: u32 = 0, Kind::Integer { min: 0, max: 1_000_000 }, "Interests";
        /// Interests a flow's queue holds on a face; a full queue drops [OPEN: 1 000].
        queue_limit: u32 = 1000, Kind::Integer { min: 0, max: 10_000_000 }, "Interests";
        /// S: the size of one Data segment (a chunk Interest brings its segments × S)
        /// [OPEN: 1 KB].
        segment_size: u64 = 1000, Kind::PACKET_SIZE, "bytes";
        /// The quota before the face has an RTT sample (derived quota only) [OPEN: 8].
        initial_quota: u32 = 8, Kind::Integer { min: 1, max: 1_000_000 }, "Interests";
        /// How often pending Interests past their lifetime are forgotten [OPEN: 10 ms].
        period: Duration = Duration::from_millis(10), Kind::PERIOD, "time";
        /// The rate-based variant instead of the quota: each flow's Interests leave a face at
        /// most at its fair rate B/(n·S) Interests/s (B the face's bandwidth, n the flows
        /// active on it, S the Data an Interest brings); the rest wait in its queue.
        fair_rate: bool = false, Kind::Bool, "";
        /// The RTT of the derived quota's bandwidth-delay product: the face's smallest RTT
        /// sample (true: the bandwidth-delay product's round trip without queueing; our
        /// reading, seed 001 says nothing of HbH's RTT) or its smoothed RTT (false: it includes
        /// the queueing delay, so the quota grows with the queue it should prevent) [OPEN: true].
        quota_min_rtt: bool = true, Kind::Bool, "";
    }
}

impl SchemeConfig for HrIcpConfig {}

/// One flow on one face.
#[derive(Clone, Debug, Default)]
struct Flow {
    pending: u32,
    queue: VecDeque<Interest>,
    /// Fair-rate variant: when the flow may send its next Interest on the face.
    next_send: Instant,
}

/// One upstream face.
#[derive(Clone, Debug, Default)]
struct Upstream {
    flows: FxHashMap<NameId, Flow>,
    /// R̄TT (ns), an EWMA with weight ⅛.
    srtt: Option<f64>,
    /// The smallest RTT sample (ns).
    min_rtt: Option<f64>,
}

/// A pending Interest: its face, segments still owed and expiry.
#[derive(Clone, Copy, Debug)]
struct Pending {
    face: usize,
    owed: u32,
    expires: Instant,
    /// Sent again on this face while pending: its RTT sample is ambiguous (Karn).
    resent: bool,
}

/// The HbH quota shaper.
#[derive(Debug)]
pub struct HbhShaper {
    pub cfg: HrIcpConfig,
    ups: Vec<Upstream>,
    /// Keyed by name and face: a multicast Interest is pending on each face it left on.
    pending: FxHashMap<(Name, usize), Pending>,
    actions: VecDeque<ModuleAction>,
    next_sweep: Instant,
    /// Interests held, and dropped on a full queue.
    pub held: u64,
    pub dropped: u64,
}

impl HbhShaper {
    pub fn new(cfg: HrIcpConfig) -> Self {
        HbhShaper {
            cfg,
            ups: Vec::new(),
            pending: FxHashMap::default(),
            actions: VecDeque::new(),
            next_sweep: Instant::ZERO,
            held: 0,
            dropped: 0,
        }
    }

    fn up(&mut self, i: usize) -> &mut Upstream {
        if self.ups.len() <= i {
            self.ups.resize(i + 1, Upstream::default());
        }
        &mut self.ups[i]
    }

    /// The quota of a flow on face `i`: the setting, or ⌈B·RTT/(n·S)⌉ (at least 1), RTT the
    /// face's smallest sample (`quota_min_rtt`) or R̄TT.
    pub fn quota(&self, i: usize, face: &Face, segments: u32) -> u32 {
        if self.cfg.quota > 0 {
            return self.cfg.quota;
        }
        let up = &self.ups[i];
        let rtt = if self.cfg.quota_min_rtt {
            up.min_rtt
        } else {
            up.srtt
        };
        let (Some(bw), Some(rtt)) = (face.bandwidth, rtt) else {
            return self.cfg.initial_quota;
        };
        let n = up.flows.values().filter(|f| f.pending > 0).count().max(1) as f64;
        let bdp_bytes = bw.0 as f64 / 8.0 * rtt * 1e-9;
        let per_interest = f64::from(segments) * self.cfg.segment_size as f64;
        // (a hair below an integer share is that integer: float noise must not add one)
        (bdp_bytes / (n * per_interest) - 1e-9).ceil().max(1.0) as u32
    }

    /// Fair-rate variant: the time the Data of `segments` segments take at the flow's fair
    /// share B/n of face `i`'s bandwidth (zero without a bandwidth).
    fn fair_gap(&self, i: usize, face: &Face, segments: u32) -> Duration {
        let Some(bw) = face.bandwidth else {
            return Duration::ZERO;
        };
        let up = &self.ups[i];
        let n = up
            .flows
            .values()
            .filter(|f| f.pending > 0 || !f.queue.is_empty())
            .count()
            .max(1) as f64;
        let bits = f64::from(segments) * self.cfg.segment_size as f64 * 8.0;
        Duration((bits * n * 1e9 / bw.0 as f64) as u64)
    }

    /// Fair-rate variant: sends the queued Interests of every flow on face `i` whose time has
    /// come, one per fair gap.
    fn pace(&mut self, now: Instant, i: usize, faces: &[Face]) {
        let mut flows: Vec<NameId> = self.ups[i]
            .flows
            .iter()
            .filter(|(_, f)| !f.queue.is_empty() && f.next_send <= now)
            .map(|(n, _)| *n)
            .collect();
        flows.sort_unstable_by_key(|n| n.0);
        for flow in flows {
            let f = self.ups[i].flows.get_mut(&flow).expect("flow");
            let Some(next) = f.queue.pop_front() else {
                continue;
            };
            let segments = next.ext.chunk().map_or(1, |c| c.mask.count_ones());
            let gap = self.fair_gap(i, &faces[i], segments);
            self.ups[i].flows.get_mut(&flow).expect("flow").next_send = now + gap;
            self.sent(now, i, &next);
            self.actions.push_back(ModuleAction::SendInterest {
                face: FaceId(i as u32),
                interest: next,
            });
        }
    }

    /// Holds `interest` at the end of its flow's queue on upstream `i`, or drops it when that
    /// queue is full.
    fn hold(&mut self, i: usize, interest: &Interest) -> InterestVerdict {
        let f = self.ups[i]
            .flows
            .get_mut(&interest.name.base)
            .expect("flow");
        if f.queue.len() >= self.cfg.queue_limit as usize {
            self.dropped += 1;
            return InterestVerdict::Drop;
        }
        f.queue.push_back(*interest);
        self.held += 1;
        InterestVerdict::Hold
    }

    /// Records `interest` as sent on face `i`.
    fn sent(&mut self, now: Instant, i: usize, interest: &Interest) {
        let owed = interest.ext.chunk().map_or(1, |c| c.mask.count_ones());
        let p = Pending {
            face: i,
            owed,
            expires: now + interest.lifetime,
            resent: self.pending.contains_key(&(interest.name, i)),
        };
        if self.pending.insert((interest.name, i), p).is_none() {
            let flow = self.up(i).flows.entry(interest.name.base).or_default();
            flow.pending += 1;
        }
    }

    /// A pending Interest of `name` on face `i` is done: its flow may send more, and so may the
    /// others if the flow is no longer active (n fell, their share grew).
    fn done(&mut self, now: Instant, name: Name, i: usize, faces: &[Face]) {
        let Some(f) = self.ups[i].flows.get_mut(&name.base) else {
            return;
        };
        f.pending = f.pending.saturating_sub(1);
        if f.pending > 0 {
            self.pump(now, i, name.base, faces);
            return;
        }
        let mut waiting: Vec<NameId> = self.ups[i]
            .flows
            .iter()
            .filter(|(_, f)| !f.queue.is_empty())
            .map(|(n, _)| *n)
            .collect();
        waiting.sort_unstable_by_key(|n| n.0);
        for flow in waiting {
            self.pump(now, i, flow, faces);
        }
    }

    /// Sends the flow's queued Interests, in order, while it is under its quota (the quota may
    /// have grown since they were queued).
    fn pump(&mut self, now: Instant, i: usize, flow: NameId, faces: &[Face]) {
        if self.cfg.fair_rate {
            return self.pace(now, i, faces);
        }
        loop {
            let f = &self.ups[i].flows[&flow];
            let Some(next) = f.queue.front().copied() else {
                return;
            };
            let segments = next.ext.chunk().map_or(1, |c| c.mask.count_ones());
            if f.pending >= self.quota(i, &faces[i], segments) {
                return;
            }
            self.ups[i]
                .flows
                .get_mut(&flow)
                .expect("flow")
                .queue
                .pop_front();
            self.sent(now, i, &next);
            self.actions.push_back(ModuleAction::SendInterest {
                face: FaceId(i as u32),
                interest: next,
            });
        }
    }
}

impl RouterHooks for HbhShaper {
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
        let i = face.0 as usize;
        if faces[i].is_app() {
            return InterestVerdict::Admit;
        }
        let name = interest.name;
        let segments = interest.ext.chunk().map_or(1, |c| c.mask.count_ones());
        self.up(i);
        let f = self.ups[i].flows.entry(name.base).or_default();
        // a retransmission replaces a queued copy (the forwarder would not send the old one)
        f.queue.retain(|q| q.name != name);
        if self.pending.contains_key(&(name, i)) {
            self.sent(now, i, interest); // a retransmission of a pending one: no new place
            return InterestVerdict::Admit;
        }
        if self.cfg.fair_rate {
            let f = self.ups[i].flows.get_mut(&name.base).expect("flow");
            if f.queue.is_empty() && f.next_send <= now {
                let gap = self.fair_gap(i, &faces[i], segments);
                self.ups[i]
                    .flows
                    .get_mut(&name.base)
                    .expect("flow")
                    .next_send = now + gap;
                self.sent(now, i, interest);
                return InterestVerdict::Admit;
            }
            return self.hold(i, interest);
        }
        self.pump(now, i, name.base, faces);
        let quota = self.quota(i, &faces[i], segments);
        let f = self.ups[i].flows.get_mut(&name.base).expect("flow");
        // after the pump the queue is empty or the flow is at its quota: FIFO holds
        if f.pending < quota {
            self.sent(now, i, interest);
            return InterestVerdict::Admit;
        }
        self.hold(i, interest)
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
        let i = face.0 as usize;
        let Some(p) = self.pending.get_mut(&(data.name, i)) else {
            return;
        };
        p.owed = p.owed.saturating_sub(1);
        let complete = p.owed == 0;
        let resent = p.resent;
        // one RTT sample per Interest, at its last segment; the smallest RTT takes only
        // Interests sent once (a resent one's Data may answer the first copy: a sample
        // shorter than the path, which a minimum would keep for ever)
        if let Some(sent) = sent.filter(|_| complete) {
            let r = now.saturating_since(sent).0 as f64;
            let up = self.up(i);
            up.srtt = Some(up.srtt.map_or(r, |s| 0.875 * s + 0.125 * r));
            if !resent {
                up.min_rtt = Some(up.min_rtt.map_or(r, |m| m.min(r)));
            }
        }
        if complete {
            // the PIT entry is satisfied: the copies sent on other faces (multicast) are over
            // too, or a source that does not hold the chunk would keep a place for ever
            for j in 0..self.ups.len() {
                if let Some(p) = self.pending.remove(&(data.name, j)) {
                    self.done(now, data.name, p.face, faces);
                }
            }
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        let sweep = (!self.pending.is_empty()).then_some(self.next_sweep);
        let paced = self
            .ups
            .iter()
            .flat_map(|u| u.flows.values())
            .filter(|f| !f.queue.is_empty())
            .map(|f| f.next_send)
            .min()
            .filter(|_| self.cfg.fair_rate);
        match (sweep, paced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
        if self.cfg.fair_rate {
            for i in 0..self.ups.len() {
                self.pace(now, i, faces);
            }
        }
        if now < self.next_sweep {
            return;
        }
        self.next_sweep = now + self.cfg.period;
        let mut expired: Vec<(Name, usize)> = self
            .pending
            .iter()
            .filter(|(_, p)| p.expires <= now)
            .map(|(k, _)| *k)
            .collect();
        expired.sort_unstable_by_key(|(n, i)| (n.base.0, n.seq, *i)); // deterministic order
        for (name, i) in expired {
            self.pending.remove(&(name, i));
            self.done(now, name, i, faces);
        }
    }
    fn poll_action(&mut self) -> Option<ModuleAction> {
        self.actions.pop_front()
    }
    fn gauge_names(&self) -> &'static [&'static str] {
        &["hbh_queued"]
    }
    fn face_gauges(&mut self, _now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(up) = self.ups.get(face.0 as usize) {
            out[0] = up.flows.values().map(|f| f.queue.len()).sum::<usize>() as f64;
        }
    }
}

impl RouterScheme for HbhShaper {
    type Config = HrIcpConfig;
    const NAME: &'static str = "hbh";
    const DOC: &'static str = "HR-ICP's hop-by-hop Interest shaping (Carofiglio et al. 2012, \
        seed 001's baseline), quota-based: per face, each flow may have at most a quota of \
        Interests pending (default its fair share of the bandwidth-delay product); the rest \
        wait in the flow's queue, a full queue drops. Receivers run controller = \"icp\".";
    fn build(cfg: &HrIcpConfig, _rng: RngStream) -> Self {
        HbhShaper::new(cfg.clone())
    }
}

#[cfg(test)]
#[path = "hr_icp_tests.rs"]
mod tests;
