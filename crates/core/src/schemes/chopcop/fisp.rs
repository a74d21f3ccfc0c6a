//! FISP — Fair-share Interest Shaping, CHoPCoP's router-side overload control (seed 001
//! §III.B, §IV; `docs/schemes/chopcop.md`, "FISP").
//!
//! An *interface* is the face a flow's Data leave on (where its Interests came in). Per
//! interface, every period (phase 1):
//!
//! ```text
//! Q   = q_d + γ·q_i        q_d: Data bytes waiting on the interface's outbound queue
//!                          q_i: Data bytes still owed to Interests sent upstream for it
//! Q_j = q_d,j + γ·q_i,j    the same, restricted to flow j (a content name)
//! shaping ⇔ Q > Q_min                                               (phase 1)
//! shaping, Q_j ≥ Q_min/n: delay an Interest of j with P = (Q − Q_min)/(Q_max − Q_min) + P₀  (2)
//! Q > Q_max: delay every Interest                                   (phase 3)
//! Q < Q_release: release every delayed Interest                     (phase 4)
//! ```
//!
//! Q_release = 0.3·C, Q_min = 0.4·C, Q_max = 0.9·C, P₀ = 0.3, where C is the interface's
//! outbound Data buffer (seed 001 §V-B: "The router's outgoing data queue is 1500KB in size, and
//! we have Qmax = 0.9C = 1350KB"): by default the face's queue limit, as REM's C_q (a limit in
//! packets: packets × the largest Data wire size seen leaving on it), computed when the limit
//! or that size changes; an explicit `capacity` overrides it.
//!
//! **The modified DRR** (§III-B): once an interface is shaping, every Interest of every active
//! flow joins its flow's outgoing Interest queue (one queue per flow, a content name), and the
//! queues are served by deficit round robin whose deficit counter is charged the size of the
//! Data the Interest will bring back (its requested segments × the Data's wire size), not the
//! Interest's own size. The seed gives the DRR no pace; by default (its reading) the DRR serves
//! while Q ≤ Q_max — phase 3 at the queues' head: an Interest sent adds γ·(its Data) to Q —, so
//! Q is held near Q_max and q_d near Q_max − γ·q_i (seed 001 Fig. 6: "∼1050KB" of a 1 500 KB
//! queue). Two [OPEN] readings are options: `pace`, one Interest per the time its Data take on
//! the interface's link (q_d then stays where shaping began, Q near Q_min); and `window`
//! (paced too), one served only while the Data already committed to the link, q_d + q_i, are
//! below what it carries in one upstream round trip (rate × smoothed RTT) plus a quantum, so
//! that the Data queue is drained rather than held (a held queue sits in REM's marking range,
//! and REM's marks, per interface, cut a cooperative flow for a greedy one's excess). A queue's
//! quantum is the largest such Data size asked on the interface so far, so that a visit serves
//! at least one Interest. An Interest that waited half its lifetime in the queues is
//! discarded. A delayed Interest waits in the interface's delay queue (not counted in Q) for
//! the delay interval (default: the interface's smoothed RTT, sampled from when FISP sent an
//! Interest upstream, not from when it
//! took it), then re-enters its flow's queue ("will re-enter outgoing Interest queues after a
//! certain interval"), where the DRR's hold at Q_max applies to it. While the
//! queues hold Interests, a new Interest queues behind them even when shaping has stopped; one
//! that finds them empty while not shaping leaves at once. The hooks do not tell an Interest's
//! incoming face, so the interface of a flow is learnt from the face its Data go out on; a flow
//! whose Data have not been seen yet is not shaped.

use crate::face::{Face, FaceId, QueueLimit};
use crate::name::{Name, NameId};
use crate::packet::{Data, Interest, Packet, PacketType};
use crate::rng::RngStream;
use crate::schemes::{InterestVerdict, ModuleAction};
use crate::time::{Duration, Instant};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// FISP's settings (fractions of C, in the router's config).
#[derive(Clone, Debug, PartialEq)]
pub struct FispParams {
    /// γ: weight of q_i in Q.
    pub gamma: f64,
    /// C in bytes; 0 = each interface's outbound Data buffer (the face's queue limit in bytes,
    /// or its packets × the wire size of the largest Data seen leaving on it when the limit is
    /// in packets).
    pub capacity: f64,
    pub q_release: f64,
    pub q_min: f64,
    pub q_max: f64,
    pub p0: f64,
    /// Phase 1's period.
    pub period: Duration,
    /// The delay interval; zero = the interface's smoothed RTT (`fallback` before a sample).
    pub delay: Duration,
    pub fallback: Duration,
    /// The DRR serves an Interest only while the Data committed to the interface's link (q_d +
    /// q_i) are below what it carries in one upstream round trip (link rate × smoothed RTT)
    /// plus a quantum (and paces them at the link's rate, as `pace`).
    pub window: bool,
    /// The DRR serves one Interest per the time its Data take on the interface's link.
    pub pace: bool,
    /// Wire bytes of one Data segment before the interface has sent a Data (afterwards: the
    /// largest Data wire size seen leaving on it), for q_i, DRR's charge and C of a
    /// packets-limited buffer.
    pub segment_bytes: f64,
}

impl FispParams {
    /// P of phase 2 on an interface of capacity `cap`: (Q − Q_min)/(Q_max − Q_min) + P₀, in
    /// [0, 1].
    pub fn delay_probability(&self, q: f64, cap: f64) -> f64 {
        let (lo, hi) = (self.q_min * cap, self.q_max * cap);
        ((q - lo) / (hi - lo) + self.p0).clamp(0.0, 1.0)
    }

    /// C of an interface whose outbound face has queue limit `limit` and whose Data are
    /// `wire` bytes on the wire: `capacity`, else the face's buffer in bytes (a limit in packets:
    /// packets × `wire`, the bytes they occupy in Q's q_d).
    pub fn capacity_of(&self, limit: QueueLimit, wire: f64) -> f64 {
        if self.capacity > 0.0 {
            return self.capacity;
        }
        match limit {
            QueueLimit::Bytes(b) => b as f64,
            QueueLimit::Packets(n) => f64::from(n) * wire,
        }
    }

    /// The size of the Data an Interest brings back: its requested segments × `wire`, the wire
    /// size of one segment (one segment for a plain Interest). DRR's charge, the time its Data
    /// take on the link, and q_i's increment.
    pub fn data_bytes(interest: &Interest, wire: f64) -> f64 {
        let segments = interest.ext.chunk().map_or(1, |c| c.mask.count_ones());
        f64::from(segments) * wire
    }
}

/// One interface (by the downstream face's index).
#[derive(Clone, Debug, Default)]
pub struct Iface {
    /// Phase 1's verdict at the last check.
    pub shaping: bool,
    /// The largest Data wire size (bytes) seen leaving on the interface (0: none yet).
    pub wire: f64,
    /// C (bytes), computed when the face's limit or `wire` changes (`limit`: the face's queue
    /// limit it was computed from).
    pub cap: f64,
    limit: Option<QueueLimit>,
    /// q_i per flow (bytes owed); q_i is their sum.
    owed: FxHashMap<NameId, f64>,
    /// q_d per flow: the flow's Data bytes in the face's queue.
    queued: FxHashMap<NameId, f64>,
    /// Delayed Interests, in the order they were delayed.
    delayed: VecDeque<Delayed>,
    /// The outgoing Interest queues, one per flow, with their deficit counters (bytes).
    outq: FxHashMap<NameId, FlowQueue>,
    /// DRR's active list: the flows with a non-empty queue, the one being visited first.
    rr: VecDeque<NameId>,
    /// The flow at the front of `rr` has had its quantum for the current visit.
    granted: bool,
    /// DRR's quantum: the largest Data size (bytes) an Interest asked on this interface.
    pub quantum: f64,
    /// When the outgoing queues may send their next Interest.
    next_send: Instant,
    /// Smoothed RTT of Interests sent for this interface (ns).
    srtt: Option<f64>,
    /// Interests delayed (counted once each), and discarded after waiting their lifetime.
    pub delayed_total: u64,
    pub expired: u64,
}

impl Iface {
    pub fn q_i(&self) -> f64 {
        self.owed.values().sum()
    }
    /// Active flows: with Data owed or queued.
    fn flows(&self) -> usize {
        let mut n = self.owed.values().filter(|&&b| b > 0.0).count();
        n += self
            .queued
            .iter()
            .filter(|(f, &b)| b > 0.0 && self.owed.get(f).is_none_or(|&o| o <= 0.0))
            .count();
        n
    }
    pub fn delayed_len(&self) -> usize {
        self.delayed.len()
    }
    /// Interests in the outgoing queues.
    pub fn queued_len(&self) -> usize {
        self.outq.values().map(|f| f.q.len()).sum()
    }
    /// The deficit counter of `flow`'s queue (bytes).
    pub fn deficit(&self, flow: NameId) -> f64 {
        self.outq.get(&flow).map_or(0.0, |f| f.deficit)
    }
    /// `d` joins its flow's outgoing queue (the flow joins DRR's active list at its end).
    fn enqueue(&mut self, d: Delayed) {
        self.quantum = self.quantum.max(d.cost);
        let q = self.outq.entry(d.interest.name.base).or_default();
        if q.q.is_empty() {
            self.rr.push_back(d.interest.name.base);
        }
        q.q.push_back(d);
    }

    /// Removes the queued copies `stale` selects from `flow`'s queue.
    fn remove(&mut self, flow: NameId, stale: impl Fn(&Delayed) -> bool) {
        let Some(q) = self.outq.get_mut(&flow) else {
            return;
        };
        q.q.retain(|d| !stale(d));
        if q.q.is_empty() {
            q.deficit = 0.0;
            if self.rr.front() == Some(&flow) {
                self.granted = false;
            }
            self.rr.retain(|&x| x != flow);
        }
    }

    /// Deficit round robin: the next Interest to send. The flow at the front of the active list
    /// gets the quantum once per visit; it sends its head Interest if its deficit covers the
    /// Data that Interest brings back (the deficit is charged that size), else the visit ends and
    /// the flow goes to the back of the list; an emptied queue leaves the list with its deficit
    /// reset to 0. An Interest that could no longer be answered within its lifetime (it waited
    /// its lifetime less the interface's smoothed upstream round trip), or that waited half its
    /// lifetime, is discarded (counted in `expired`), uncharged: its Data would find no PIT entry
    /// here or downstream (they still have the way down to go, of unknown length) and waste the
    /// link's turn. A flow that asks more than its share keeps a queue that only discards
    /// shorten: without the half-lifetime bound every Interest it is served would be at the end
    /// of its lifetime, and its Data too late downstream.
    fn next_drr(&mut self, now: Instant) -> Option<Delayed> {
        let rtt = Duration(self.srtt.map_or(0, |s| s.round() as u64));
        loop {
            let flow = *self.rr.front()?;
            let fq = self.outq.get_mut(&flow).expect("a queue per active flow");
            while fq.q.front().is_some_and(|d| {
                let age = now.saturating_since(d.since);
                age + rtt >= d.interest.lifetime || age.0 >= d.interest.lifetime.0 / 2
            }) {
                fq.q.pop_front();
                self.expired += 1;
            }
            let Some(cost) = fq.q.front().map(|d| d.cost) else {
                fq.deficit = 0.0;
                self.rr.pop_front();
                self.granted = false;
                continue;
            };
            if !self.granted {
                fq.deficit += self.quantum;
                self.granted = true;
            }
            if cost <= fq.deficit {
                let d = fq.q.pop_front().expect("a head");
                fq.deficit -= cost;
                if fq.q.is_empty() {
                    fq.deficit = 0.0;
                    self.rr.pop_front();
                    self.granted = false;
                }
                return Some(d);
            }
            self.rr.rotate_left(1);
            self.granted = false;
        }
    }
}

/// One flow's outgoing Interest queue and its DRR deficit counter (bytes).
#[derive(Clone, Debug, Default)]
struct FlowQueue {
    q: VecDeque<Delayed>,
    deficit: f64,
}

/// A held Interest: when its delay interval ends, since when it waits, where it goes, and the
/// size of the Data it will bring back (DRR's charge).
#[derive(Clone, Copy, Debug)]
struct Delayed {
    until: Instant,
    since: Instant,
    face: FaceId,
    interest: Interest,
    cost: f64,
}

/// An Interest sent upstream: its interface, flow, bytes still owed, when FISP sent it (the
/// RTT sample's start: the PIT's out-record holds when the Interest was *held*) and its expiry.
#[derive(Clone, Copy, Debug)]
struct Owed {
    iface: usize,
    flow: NameId,
    bytes: f64,
    sent: Instant,
    expires: Instant,
}

/// FISP's state on one router.
#[derive(Debug)]
pub struct Fisp {
    pub p: FispParams,
    /// The interface of each flow (the face its Data last left on).
    flow_iface: FxHashMap<NameId, usize>,
    pub ifaces: Vec<Iface>,
    owed: FxHashMap<Name, Owed>,
    next_check: Instant,
    actions: VecDeque<ModuleAction>,
}

impl Fisp {
    pub fn new(p: FispParams) -> Self {
        Fisp {
            p,
            flow_iface: FxHashMap::default(),
            ifaces: Vec::new(),
            owed: FxHashMap::default(),
            next_check: Instant::ZERO,
            actions: VecDeque::new(),
        }
    }

    fn iface(&mut self, i: usize) -> &mut Iface {
        if self.ifaces.len() <= i {
            self.ifaces.resize(i + 1, Iface::default());
        }
        &mut self.ifaces[i]
    }

    /// Q of interface `i` (q_d from the face's Data occupancy).
    pub fn q(&self, i: usize, faces: &[Face]) -> f64 {
        let q_d = faces[i].occupancy(PacketType::Data).1 as f64;
        q_d + self.p.gamma * self.ifaces.get(i).map_or(0.0, Iface::q_i)
    }

    /// Q_j of flow `flow` on interface `i`.
    pub fn q_flow(&self, i: usize, flow: NameId) -> f64 {
        let Some(f) = self.ifaces.get(i) else {
            return 0.0;
        };
        f.queued.get(&flow).copied().unwrap_or(0.0)
            + self.p.gamma * f.owed.get(&flow).copied().unwrap_or(0.0)
    }

    /// C of interface `i` (`capacity`, else its face's outbound buffer), as last computed.
    pub fn capacity(&self, i: usize) -> f64 {
        self.ifaces.get(i).map_or(self.p.capacity, |f| f.cap)
    }

    /// The wire size of one Data segment on interface `i`: the largest seen leaving on it, else
    /// `segment_bytes`.
    fn wire(&self, i: usize) -> f64 {
        match self.ifaces.get(i).map_or(0.0, |f| f.wire) {
            w if w > 0.0 => w,
            _ => self.p.segment_bytes,
        }
    }

    /// Computes C of interface `i` again if its face's queue limit changed since (or `wire`
    /// grew): C follows the buffer without being computed per Interest.
    fn refresh_capacity(&mut self, i: usize, face: &Face, wire: f64) {
        let p = &self.p;
        if self.ifaces.len() <= i {
            self.ifaces.resize(i + 1, Iface::default());
        }
        let f = &mut self.ifaces[i];
        let limit = face.limit();
        if f.limit != Some(limit) || wire > f.wire {
            f.wire = f.wire.max(wire);
            let w = if f.wire > 0.0 {
                f.wire
            } else {
                p.segment_bytes
            };
            f.cap = p.capacity_of(limit, w);
            f.limit = Some(limit);
        }
    }

    /// An Interest of flow `interest.name.base` is about to leave on `up`: phases 2 and 3, then
    /// the outgoing queues while the interface shapes (or while they hold Interests).
    pub fn on_interest_out(
        &mut self,
        now: Instant,
        up: FaceId,
        interest: &Interest,
        faces: &[Face],
        rng: &mut RngStream,
    ) -> InterestVerdict {
        let flow = interest.name.base;
        // an Interest to a local producer owes nothing upstream: its Data come back at once
        // (and a producer that does not hold the chunk never answers, which would count
        // phantom Data in q_i until the lifetime ends)
        if faces.get(up.0 as usize).is_some_and(Face::is_app) {
            return InterestVerdict::Admit;
        }
        let Some(&i) = self.flow_iface.get(&flow) else {
            return InterestVerdict::Admit;
        };
        // a new transmission of a name on the same face supersedes a held one (the forwarder
        // would not send the old one any more); a copy for another face (multicast) is another
        // Interest
        let f = &mut self.ifaces[i];
        if !f.delayed.is_empty() || !f.rr.is_empty() {
            let stale = |d: &Delayed| d.interest.name == interest.name && d.face == up;
            f.delayed.retain(|d| !stale(d));
            f.remove(flow, stale);
        }
        if self.must_delay(i, flow, faces, rng) {
            let until = now + self.delay_interval(i);
            let cost = FispParams::data_bytes(interest, self.wire(i));
            let f = &mut self.ifaces[i];
            f.delayed.push_back(Delayed {
                until,
                since: now,
                face: up,
                interest: *interest,
                cost,
            });
            f.delayed_total += 1;
            return InterestVerdict::Hold;
        }
        let f = &self.ifaces[i];
        if !f.shaping && f.rr.is_empty() {
            self.sent(now, i, interest);
            return InterestVerdict::Admit;
        }
        // shaping, or the queues hold Interests: this one joins its flow's queue
        let cost = FispParams::data_bytes(interest, self.wire(i));
        self.ifaces[i].enqueue(Delayed {
            until: now,
            since: now,
            face: up,
            interest: *interest,
            cost,
        });
        self.pump(now, i, faces);
        InterestVerdict::Hold
    }

    /// Serves the outgoing queues of interface `i` by deficit round robin, one Interest per the
    /// time its Data take on the interface's link (none without a bandwidth).
    fn pump(&mut self, now: Instant, i: usize, faces: &[Face]) {
        let bw = faces
            .get(i)
            .and_then(|face| face.bandwidth)
            .map(|b| b.0 as f64);
        let pace = self.p.pace || self.p.window;
        while self.ifaces[i].next_send <= now {
            // phase 3 at the queues' head: above Q_max nothing is served; the next look is when
            // a segment has left on the link (or a period later without a bandwidth)
            if !self.ifaces[i].rr.is_empty() && self.over_q_max(i, faces) {
                let wait = bw.map_or(self.p.period, |b| Duration((self.wire(i) * 8e9 / b) as u64));
                self.ifaces[i].next_send = now + wait.max(Duration(1));
                return;
            }
            if let (Some(bw), Some(srtt), true) = (bw, self.ifaces[i].srtt, self.p.window) {
                // the Data already committed to the link (queued, or owed by Interests sent)
                // against what it carries in one upstream round trip, plus a quantum
                let f = &self.ifaces[i];
                let q_d = faces[i].occupancy(PacketType::Data).1 as f64;
                let committed = q_d + f.q_i();
                let room = bw / 8.0 * srtt / 1e9 + f.quantum;
                if committed >= room && !f.rr.is_empty() {
                    let wait = (committed - room).max(self.wire(i));
                    self.ifaces[i].next_send = now + Duration((wait * 8e9 / bw) as u64);
                    return;
                }
            }
            let Some(d) = self.ifaces[i].next_drr(now) else {
                return;
            };
            let gap = match bw {
                Some(b) if pace => Duration((d.cost * 8.0 * 1e9 / b) as u64),
                _ => Duration::ZERO,
            };
            self.ifaces[i].next_send = now + gap;
            self.sent(now, i, &d.interest);
            self.actions.push_back(ModuleAction::SendInterest {
                face: d.face,
                interest: d.interest,
            });
        }
    }

    /// Phases 3 and 2 for an Interest of `flow` on interface `i`: Q > Q_max delays it; while
    /// shaping, a flow over its fair share Q_min/n is delayed with probability P.
    fn must_delay(&self, i: usize, flow: NameId, faces: &[Face], rng: &mut RngStream) -> bool {
        let (q, cap) = (self.q(i, faces), self.capacity(i));
        if q > self.p.q_max * cap {
            return true;
        }
        if !self.ifaces[i].shaping {
            return false;
        }
        let n = self.ifaces[i].flows().max(1) as f64;
        self.q_flow(i, flow) >= self.p.q_min * cap / n
            && rng.chance(self.p.delay_probability(q, cap))
    }

    /// Phase 3's condition on interface `i`: Q > Q_max (every Interest is delayed, and the DRR
    /// serves none).
    fn over_q_max(&self, i: usize, faces: &[Face]) -> bool {
        self.q(i, faces) > self.p.q_max * self.capacity(i)
    }

    /// The delay interval: `delay`, else the interface's smoothed RTT; never shorter than
    /// phase 1's period (a zero interval would re-check a delayed Interest at the same instant
    /// for ever).
    fn delay_interval(&self, i: usize) -> Duration {
        let d = if self.p.delay > Duration::ZERO {
            self.p.delay
        } else {
            self.ifaces[i]
                .srtt
                .map_or(self.p.fallback, |s| Duration(s.round() as u64))
        };
        d.max(self.p.period)
    }

    /// An Interest for interface `i` goes upstream: it owes its Data to q_i.
    fn sent(&mut self, now: Instant, i: usize, interest: &Interest) {
        let bytes = FispParams::data_bytes(interest, self.wire(i));
        let flow = interest.name.base;
        if let Some(old) = self.owed.insert(
            interest.name,
            Owed {
                iface: i,
                flow,
                bytes,
                sent: now,
                expires: now + interest.lifetime,
            },
        ) {
            self.forget(old);
        }
        *self.iface(i).owed.entry(flow).or_default() += bytes;
    }

    fn forget(&mut self, o: Owed) {
        if let Some(b) = self.ifaces[o.iface].owed.get_mut(&o.flow) {
            *b = (*b - o.bytes).max(0.0);
        }
    }

    /// A Data arrived from upstream: q_i shrinks, the RTT is sampled from when FISP sent the
    /// Interest upstream (not from when the forwarder handed it over: an Interest FISP held
    /// waited in its queues, which is not the upstream round trip).
    pub fn on_data_in(&mut self, now: Instant, data: &Data) {
        let Some(o) = self.owed.get_mut(&data.name) else {
            return;
        };
        let d = f64::from(data.size).min(o.bytes);
        o.bytes -= d;
        let (i, flow, done, sent) = (o.iface, o.flow, o.bytes <= 0.0, o.sent);
        if done {
            self.owed.remove(&data.name);
        }
        let f = &mut self.ifaces[i];
        if let Some(b) = f.owed.get_mut(&flow) {
            *b = (*b - d).max(0.0);
        }
        let r = now.saturating_since(sent).0 as f64;
        f.srtt = Some(f.srtt.map_or(r, |s| 0.875 * s + 0.125 * r));
    }

    /// A Data of flow `data.name.base` leaves on `face`: the flow's interface.
    /// Its wire size and the face's limit give the interface's C (computed again only when
    /// either changes).
    pub fn on_data_out(&mut self, face: &Face, data: &Data) {
        if !face.is_app() {
            let i = face.id.0 as usize;
            self.flow_iface.insert(data.name.base, i);
            self.refresh_capacity(i, face, f64::from(data.size));
        }
    }

    /// Per-flow q_d: a Data joins (`+`) or leaves (`−`) a face's queue.
    pub fn on_queue(&mut self, face: FaceId, p: &Packet, joins: bool, faces: &[Face]) {
        let Packet::Data(d) = p else {
            return;
        };
        let f = &faces[face.0 as usize];
        if joins {
            let fits = match f.limit() {
                QueueLimit::Packets(n) => f.queue_len() < n as usize,
                QueueLimit::Bytes(b) => f.queue_bytes() + u64::from(d.size) <= b,
            };
            if !fits {
                return; // drop-tail will drop it
            }
        }
        let b = self
            .iface(face.0 as usize)
            .queued
            .entry(d.name.base)
            .or_default();
        *b = if joins {
            *b + f64::from(d.size)
        } else {
            (*b - f64::from(d.size)).max(0.0)
        };
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        let release = self
            .ifaces
            .iter()
            .filter_map(|f| f.delayed.front().map(|d| d.until))
            .chain(
                self.ifaces
                    .iter()
                    .filter(|f| !f.rr.is_empty())
                    .map(|f| f.next_send),
            )
            .min();
        Some(release.map_or(self.next_check, |r| r.min(self.next_check)))
    }

    /// Phases 1 and 4 every period; a delayed Interest whose interval is over re-enters its
    /// flow's outgoing queue (seed 001: the delayed Interests "will re-enter outgoing Interest
    /// queues after a certain interval"), where phase 3 at the queues' head holds it while Q >
    /// Q_max; the queues are served.
    /// One that waited longer than its lifetime is discarded (its PIT entry has expired).
    pub fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
        if now >= self.next_check {
            self.next_check = now + self.p.period;
            let expired: Vec<Name> = self
                .owed
                .iter()
                .filter(|(_, o)| o.expires <= now)
                .map(|(n, _)| *n)
                .collect();
            for n in expired {
                let o = self.owed.remove(&n).expect("owed");
                self.forget(o);
            }
            for i in 0..self.ifaces.len() {
                if let Some(face) = faces.get(i) {
                    self.refresh_capacity(i, face, 0.0);
                }
                let cap = self.capacity(i);
                let q = self.q(i, faces);
                self.ifaces[i].shaping = q > self.p.q_min * cap;
                if q < self.p.q_release * cap {
                    while let Some(d) = self.ifaces[i].delayed.pop_front() {
                        self.release(now, i, d);
                    }
                }
            }
        }
        for i in 0..self.ifaces.len() {
            let due = self.ifaces[i]
                .delayed
                .iter()
                .take_while(|d| d.until <= now)
                .count();
            for _ in 0..due {
                let d = self.ifaces[i].delayed.pop_front().expect("due");
                self.release(now, i, d);
            }
            self.pump(now, i, faces);
        }
    }

    /// A delayed Interest joins the outgoing queues (unless its lifetime is over).
    fn release(&mut self, now: Instant, i: usize, d: Delayed) {
        if now.saturating_since(d.since) >= d.interest.lifetime {
            self.ifaces[i].expired += 1;
            return;
        }
        self.ifaces[i].enqueue(d);
    }

    pub fn poll_action(&mut self) -> Option<ModuleAction> {
        self.actions.pop_front()
    }
}

#[cfg(test)]
#[path = "fisp_tests.rs"]
mod tests;
