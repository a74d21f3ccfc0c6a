//! The generic consumer: a *controller* (how much) and a *sending engine* (when).
//!
//! It requests sequence numbers in order under its prefix — or, with `chunk_segments = N`,
//! chunks: each sequence number is a chunk of N segments, one Interest asks for the whole chunk,
//! the producer answers with N Data carrying their offsets, the consumer reassembles, and a
//! chunk that times out with segments missing is asked again for the missing offsets only; the
//! controller gets one signal per complete chunk, with its count of marked segments. Rate targets are actuated by the
//! sending engine; window targets send whenever fewer than W Interests are in flight. Optional
//! retransmission after a timeout and/or a Nack (retransmissions go before new sequence
//! numbers). RTT is estimated per RFC 6298 from Interests sent once (Karn).
//!
//! A controller that asks for ndnSIM's machinery ([`CongestionController::ndnsim_retx`]:
//! `ndnsim-cbr`, `pcon`) gets ndnSIM 2.8's timeouts instead ([`super::ndnsim`]): checks every
//! `RetxTimer` against the RTO read at each check, re-sends smallest sequence number first,
//! late Data still answering, a window compared with ndnSIM's in-flight counter, Nacks ignored;
//! the `timeout` setting and the controller's `rto` are then unused.

use super::controller::{CongestionController, DataSignal, Loss, NackSignal, Target};
use super::ndnsim::NdnsimRetx;
use super::retx_queue::{RetxOrder, RetxQueue};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::name::{Name, NameId};
use crate::pacing::{ClockModel, Engine, SendingEngine};
use crate::packet::{ChunkRequest, Data, Interest, Nack, NackReason, Packet};
use crate::rng::RngStream;
use crate::schemes::registry::Controller;
use crate::table::few_map::FewMap;
use crate::time::{Duration, Instant, PacketRate};
use crate::timers::TimerQueue;

#[derive(Clone, Debug)]
pub struct ConsumerConfig {
    pub prefix: NameId,
    pub interest_size: u32,
    pub lifetime: Duration,
    /// Time after which an unanswered Interest counts as timed out.
    pub timeout: Duration,
    pub retx_on_timeout: bool,
    pub retx_on_nack: bool,
    /// Give a sequence number up after this many transmissions.
    pub max_transmissions: u32,
    pub start_seq: u64,
    /// Request at most this many distinct sequence numbers.
    pub max_seq: Option<u64>,
    /// Keep one [`DelayRecord`] per Data received (per chunk in chunked fetch).
    pub record_delays: bool,
    /// Chunked fetch: each sequence number is a chunk of this many segments (at most
    /// [`ChunkRequest::MAX_SEGMENTS`]); `None` = one Data per Interest.
    pub chunk_segments: Option<u32>,
}

/// Cumulative consumer counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConsumerStats {
    /// Interests sent, retransmissions included.
    pub interests_sent: u64,
    pub retransmissions: u64,
    /// Distinct sequence numbers requested.
    pub requested: u64,
    /// Distinct sequence numbers delivered: answered, or in chunked fetch complete (every
    /// segment received); a chunk missing a segment is not delivered.
    pub completed: u64,
    pub data_received: u64,
    /// Data wire bytes received.
    pub data_bytes: u64,
    pub nacks: u64,
    pub timeouts: u64,
    pub marks: u64,
    /// Data arriving for no pending Interest (after a timeout, or duplicates).
    pub late_data: u64,
    /// Sequence numbers abandoned after `max_transmissions`, or not retransmitted.
    pub given_up: u64,
    /// The most Interests the sending engine released at one instant (the burst cost of an
    /// engine on a coarse clock).
    pub max_burst: u64,
}

/// One Data received.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelayRecord {
    pub time: Instant,
    pub seq: u64,
    /// Since the last transmission.
    pub last_delay: Duration,
    /// Since the first transmission.
    pub full_delay: Duration,
    pub transmissions: u32,
    pub hops: u16,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    first_tx: Instant,
    last_tx: Instant,
    transmissions: u32,
    deadline: Instant,
    /// Chunked fetch: the segments received so far (bit i = offset i) and how many were marked.
    got: u64,
    marks: u32,
    /// Nacked with reason NoRoute: held in flight until its deadline (the NoRoute rule, see
    /// [`Consumer::handle_nack`]).
    held: bool,
}

impl Pending {
    /// The delay record of the answer that completed it at `now`.
    fn delay_record(&self, now: Instant, seq: u64, hops: u16) -> DelayRecord {
        DelayRecord {
            time: now,
            seq,
            last_delay: now - self.last_tx,
            full_delay: now - self.first_tx,
            transmissions: self.transmissions,
            hops,
        }
    }
}

#[derive(Debug)]
pub struct Consumer {
    pub cfg: ConsumerConfig,
    pub controller: Controller,
    pub engine: Engine,
    /// The clock the sending engine sleeps on.
    pub clock: ClockModel,
    /// The engine's pending wake-up: (requested instant, instant the clock fires it).
    engine_timer: Option<(Instant, Instant)>,
    rng: RngStream,
    /// Started: receives and times out.
    active: bool,
    /// Not stopped yet: sends new Interests and retransmissions.
    sending: bool,
    next_seq: u64,
    /// Pending Interests by sequence number: a short list inline while they are few.
    pending: FewMap<u64, Pending>,
    /// Numbers waiting to be sent again: the oldest first, or with ndnSIM's machinery the
    /// smallest (ndnSIM keeps them in an ordered set).
    retx_queue: RetxQueue<Pending>,
    deadlines: TimerQueue<u64>,
    rate: Option<PacketRate>,
    pub rtt: RttEstimator,
    /// ndnSIM's timeout machinery, when the controller asks for it.
    pub ndnsim: Option<NdnsimRetx>,
    pub stats: ConsumerStats,
    pub delays: Vec<DelayRecord>,
}

impl Consumer {
    pub fn new(
        cfg: ConsumerConfig,
        controller: Controller,
        engine: Engine,
        rng: RngStream,
    ) -> Self {
        let next_seq = cfg.start_seq;
        let ndnsim = controller.ndnsim_retx().map(NdnsimRetx::new);
        let retx_order = match ndnsim {
            Some(_) => RetxOrder::Smallest,
            None => RetxOrder::Oldest,
        };
        Consumer {
            cfg,
            controller,
            engine,
            clock: ClockModel::Ideal,
            engine_timer: None,
            rng,
            active: false,
            sending: false,
            next_seq,
            pending: FewMap::default(),
            retx_queue: RetxQueue::new(retx_order),
            deadlines: TimerQueue::default(),
            rate: None,
            rtt: RttEstimator::default(),
            ndnsim,
            stats: ConsumerStats::default(),
            delays: Vec::new(),
        }
    }

    /// Interests sent and not yet answered, Nacked or timed out.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    pub fn start(&mut self, now: Instant, out: &mut Vec<Packet>) {
        self.active = true;
        self.sending = true;
        match self.controller.target() {
            Target::Rate(r) => {
                self.rate = Some(r);
                self.engine.start(now, r);
                // the loop starts awake: its first wake-up is the start itself
                self.engine_timer = self.engine.poll_timeout().map(|t| (t, t.max(now)));
                self.on_timeout(now, out);
            }
            Target::Window(_) => self.fill_window(now, out),
        }
    }

    /// Stops sending. Answers to Interests already sent are still received (and their
    /// timeouts counted) until the run ends, so throughput counts every Data the consumer asked
    /// for while it was sending.
    pub fn stop(&mut self, _now: Instant) {
        self.sending = false;
    }

    fn has_more(&self) -> bool {
        if !self.sending {
            return false;
        }
        !self.retx_queue.is_empty()
            || self
                .cfg
                .max_seq
                .is_none_or(|m| self.next_seq - self.cfg.start_seq < m)
    }

    /// Sends one Interest (a retransmission first, else the next sequence number).
    fn send_one(&mut self, now: Instant, out: &mut Vec<Packet>) -> bool {
        if !self.sending {
            return false;
        }
        let (seq, first_tx, transmissions, got, marks) = match self.retx_queue.pop() {
            Some((seq, p)) => {
                self.stats.retransmissions += 1;
                (seq, p.first_tx, p.transmissions + 1, p.got, p.marks)
            }
            None => {
                if !self.has_more() {
                    return false;
                }
                let seq = self.next_seq;
                self.next_seq += 1;
                self.stats.requested += 1;
                (seq, now, 1, 0, 0)
            }
        };
        self.controller.on_send(now, seq, transmissions > 1);
        let deadline = match &mut self.ndnsim {
            Some(n) => {
                n.on_send(now, seq);
                Instant::MAX // timed out by the checks, not by a deadline
            }
            None => now + self.controller.rto(&self.rtt).unwrap_or(self.cfg.timeout),
        };
        self.pending.insert(
            seq,
            Pending {
                first_tx,
                last_tx: now,
                transmissions,
                deadline,
                got,
                marks,
                held: false,
            },
        );
        if self.ndnsim.is_none() {
            self.deadlines.push(deadline, seq);
        }
        self.stats.interests_sent += 1;
        let mut interest = Interest::new(
            Name::new(self.cfg.prefix, seq),
            self.rng.next_u32(),
            self.cfg.lifetime,
            self.cfg.interest_size,
        );
        interest.ext.class = self.controller.next_class();
        interest.ext.set_rtt(self.rtt.srtt());
        interest.ext.set_chunk(self.cfg.chunk_segments.map(|n| {
            // a new chunk asks for every segment, a re-ask for the missing ones only
            let all = ChunkRequest::all(n);
            ChunkRequest {
                mask: all.mask & !got,
                ..all
            }
        }));
        out.push(Packet::Interest(interest));
        true
    }

    fn fill_window(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if let Target::Window(w) = self.controller.target() {
            if self.ndnsim.is_some() {
                // ndnSIM's ConsumerWindow: send while its in-flight counter is below W
                while self
                    .ndnsim
                    .as_ref()
                    .is_some_and(|n| (n.in_flight as f64) < w)
                    && self.send_one(now, out)
                {}
                return;
            }
            let limit = (w.floor() as usize).max(1);
            while self.pending.len() < limit && self.send_one(now, out) {}
        }
    }

    /// After a signal: follow a rate change, then release what the engine or window allows.
    fn after_signal(&mut self, now: Instant, out: &mut Vec<Packet>) {
        match self.controller.target() {
            Target::Rate(r) => {
                if self.rate != Some(r) {
                    self.rate = Some(r);
                    self.engine.set_rate(now, r);
                }
                let n = self.engine.on_receive(now);
                self.release(now, n, out);
                self.refresh_engine_timer(now);
            }
            Target::Window(_) => self.fill_window(now, out),
        }
    }

    /// After a loss: retransmit if the controller (or, when it has no say, the consumer's
    /// setting `retx`) asks for it and transmissions are left, else give the number up.
    fn retry_or_give_up(&mut self, now: Instant, seq: u64, p: Pending, loss: Loss, retx: bool) {
        let retx = self.controller.retransmit(now, seq, loss).unwrap_or(retx);
        if retx && p.transmissions < self.cfg.max_transmissions {
            self.retx_queue.push_back(seq, p);
        } else {
            self.stats.given_up += 1;
        }
    }

    pub fn handle_data(&mut self, now: Instant, data: &Data, out: &mut Vec<Packet>) {
        if !self.active {
            return;
        }
        let Some(seq) = data.name.seq else {
            self.stats.late_data += 1;
            return;
        };
        let (segments, marked_segments, waited) = match self.cfg.chunk_segments {
            Some(n) => match self.add_segment(seq, data, n) {
                Some((marks, waited)) => (n, marks, waited),
                None => return, // more segments are due (or this one was not)
            },
            None => (1, u32::from(data.ext.mark), None),
        };
        let found = match waited {
            Some(p) => Some((p, true)), // completed while its re-ask waited: it timed out
            None => self.pending.remove(&seq).map(|p| (p, false)),
        };
        let (p, timed_out) = match found {
            Some(found) => found,
            None => match self.late_ndnsim(seq) {
                Some(p) => (p, true),
                None => {
                    self.stats.late_data += 1;
                    if self.cfg.chunk_segments.is_none() {
                        self.unexpected_ndnsim(now, seq, data, out);
                    }
                    return;
                }
            },
        };
        self.stats.completed += 1;
        let rtt = now - p.last_tx;
        if p.transmissions == 1 && !timed_out {
            self.rtt.add_sample(rtt);
        }
        if let Some(n) = &mut self.ndnsim {
            if p.transmissions == 1 && !timed_out {
                n.rtt.sample(rtt);
            }
            n.on_data();
        }
        if self.cfg.chunk_segments.is_none() {
            self.count_data(data);
        }
        if self.cfg.record_delays {
            self.delays.push(p.delay_record(now, seq, data.ext.hops));
        }
        let sig = DataSignal {
            seq,
            rtt,
            retransmitted: p.transmissions > 1 || timed_out,
            marked: marked_segments > 0,
            rate_stamp: data.ext.rate_stamp.map(PacketRate),
            class: data.ext.class,
            segments,
            marked_segments,
        };
        self.controller.on_data(now, &sig);
        if sig.marked {
            self.controller.on_mark(now, &sig);
        }
        if let Some(r) = sig.rate_stamp {
            self.controller.on_rate_stamp(now, r, &sig);
        }
        while let Some(lost) = self.controller.poll_loss() {
            self.fast_retransmit(now, lost, out);
        }
        self.after_signal(now, out);
    }

    /// With ndnSIM's machinery (one Data per Interest), a Data for `seq` after its timeout and
    /// before its re-send: the re-send is cancelled and the Data answers `seq`.
    fn late_ndnsim(&mut self, seq: u64) -> Option<Pending> {
        if self.ndnsim.is_none() || self.cfg.chunk_segments.is_some() {
            return None;
        }
        self.retx_queue.remove(seq)
    }

    /// With ndnSIM's machinery, a Data that answers nothing still reaches the app (ndnSIM's
    /// window consumers count it for the window and the in-flight counter); nothing is
    /// recorded for it.
    fn unexpected_ndnsim(&mut self, now: Instant, seq: u64, data: &Data, out: &mut Vec<Packet>) {
        let Some(n) = &mut self.ndnsim else {
            return;
        };
        n.on_data();
        let sig = DataSignal {
            seq,
            rtt: Duration::ZERO,
            retransmitted: true,
            marked: data.ext.mark,
            rate_stamp: None,
            class: data.ext.class,
            segments: 1,
            marked_segments: u32::from(data.ext.mark),
        };
        self.controller.on_data(now, &sig);
        if sig.marked {
            self.controller.on_mark(now, &sig);
        }
        self.after_signal(now, out);
    }

    /// The controller declared `seq` lost before its timeout: if it is still pending, send it
    /// again now, outside the window (TCP's fast retransmit).
    fn fast_retransmit(&mut self, now: Instant, seq: u64, out: &mut Vec<Packet>) {
        if !self.sending
            || self
                .pending
                .get(&seq)
                .is_none_or(|p| p.transmissions >= self.cfg.max_transmissions)
        {
            return;
        }
        let p = self.pending.remove(&seq).expect("pending");
        self.retx_queue.push_front(seq, p);
        self.send_one(now, out);
    }

    fn count_data(&mut self, data: &Data) {
        self.stats.data_received += 1;
        self.stats.data_bytes += data.size as u64;
        self.stats.marks += u64::from(data.ext.mark);
    }

    /// Chunked fetch: files segment `data` of chunk `seq` (also when the chunk waits for its
    /// re-ask); `Some(marked segments)` when it completed the chunk, else `None`. A chunk that
    /// completes while waiting for its re-ask is delivered here (counted and, with
    /// `record_delays`, recorded like any other) without a signal to the controller.
    fn add_segment(&mut self, seq: u64, data: &Data, n: u32) -> Option<(u32, Option<Pending>)> {
        let bit = data
            .ext
            .segment
            .filter(|s| s.index < n)
            .map_or(0, |s| 1u64 << s.index);
        let p = match self.pending.get_mut(&seq) {
            Some(p) => p,
            None => match self.retx_queue.get_mut(seq) {
                Some(p) => p,
                None => {
                    self.stats.late_data += 1;
                    return None;
                }
            },
        };
        if bit == 0 || p.got & bit != 0 {
            self.stats.late_data += 1;
            return None;
        }
        p.got |= bit;
        p.marks += u32::from(data.ext.mark);
        let (complete, marks) = (p.got == ChunkRequest::all(n).mask, p.marks);
        self.count_data(data);
        if !complete {
            return None;
        }
        // completed while waiting for its re-ask (it timed out): nothing to ask again; it is
        // delivered, recorded and signalled as a chunk answered after its timeout
        let waited = if self.pending.contains_key(&seq) {
            None
        } else {
            self.retx_queue.remove(seq)
        };
        Some((marks, waited))
    }

    /// A Nack for an Interest in flight. Congestion and Duplicate: the number is lost at once
    /// (sent again with `retx_on_nack`, else given up) and the window or engine refills.
    /// NoRoute (the NoRoute rule, `docs/realtime.md`): the controller hears it now, but the
    /// Interest keeps its place in flight until its deadline (send + RTO, or `timeout`), and
    /// only then is it re-sent or given up as a Nack (not counted as a timeout) — so a window
    /// of W facing NoRoute sends at most W Interests per deadline instead of one per Nack
    /// round trip (ndnSIM 2.8's consumers, too, leave a Nacked Interest to their timeout).
    pub fn handle_nack(&mut self, now: Instant, nack: &Nack, out: &mut Vec<Packet>) {
        if !self.active {
            return;
        }
        let Some(seq) = nack.interest.name.seq else {
            return;
        };
        if self.ndnsim.is_some() {
            // ndnSIM's consumers only trace a Nack: the Interest stays outstanding
            if let Some(sent) = self.pending.get(&seq).map(|p| p.last_tx) {
                self.count_nack(now, nack, seq, sent);
            }
            return;
        }
        if nack.reason == NackReason::NoRoute {
            // the NoRoute rule: the Interest keeps its place in flight until its deadline
            let Some(p) = self.pending.get_mut(&seq) else {
                return;
            };
            if p.held {
                self.stats.nacks += 1; // counted, but the controller heard it already
                return;
            }
            p.held = true;
            let sent = p.last_tx;
            self.count_nack(now, nack, seq, sent);
            self.after_signal(now, out);
            return;
        }
        let Some(p) = self.pending.remove(&seq) else {
            return;
        };
        self.count_nack(now, nack, seq, p.last_tx);
        self.retry_or_give_up(now, seq, p, Loss::Nack, self.cfg.retx_on_nack);
        self.after_signal(now, out);
    }

    /// Counts a Nack for `seq` (last sent at `sent`) and tells the controller.
    fn count_nack(&mut self, now: Instant, nack: &Nack, seq: u64, sent: Instant) {
        self.stats.nacks += 1;
        let sig = NackSignal {
            seq,
            reason: nack.reason,
            sent,
        };
        self.controller.on_nack(now, &sig);
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.active {
            return None;
        }
        let deadline = match &self.ndnsim {
            Some(n) => n.poll_timeout(),
            None => self.deadlines.peek().map(|(t, _)| t),
        };
        let engine = match self.controller.target() {
            Target::Rate(_) if self.has_more() => self.engine_timer.map(|(_, fire)| fire),
            _ => None,
        };
        match (deadline, engine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn on_timeout(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if !self.active {
            return;
        }
        if let Some(n) = &mut self.ndnsim {
            let pending = &self.pending;
            let due = n.check(now, |seq, sent| {
                pending.get(&seq).is_some_and(|p| p.last_tx == sent)
            });
            for seq in due {
                let p = self.pending.remove(&seq).expect("pending");
                self.stats.timeouts += 1;
                self.controller.on_timeout(now, seq);
                self.retry_or_give_up(now, seq, p, Loss::Timeout, self.cfg.retx_on_timeout);
            }
        }
        while let Some((t, seq)) = self.deadlines.peek() {
            if t > now {
                break;
            }
            self.deadlines.pop();
            if self.pending.get(&seq).is_none_or(|p| p.deadline != t) {
                continue;
            }
            let p = self.pending.remove(&seq).expect("pending");
            if p.held {
                // a NoRoute Nack held it to its deadline: now the Nack's consequence
                self.retry_or_give_up(now, seq, p, Loss::Nack, self.cfg.retx_on_nack);
                continue;
            }
            self.stats.timeouts += 1;
            self.controller.on_timeout(now, seq);
            self.retry_or_give_up(now, seq, p, Loss::Timeout, self.cfg.retx_on_timeout);
        }
        match self.controller.target() {
            Target::Rate(r) => {
                if self.rate != Some(r) {
                    self.rate = Some(r);
                    self.engine.set_rate(now, r);
                }
                if self.engine_timer.is_some_and(|(_, fire)| fire <= now) {
                    self.engine_timer = None;
                    let n = self.engine.on_timeout(now);
                    self.release(now, n, out);
                }
                self.refresh_engine_timer(now);
            }
            Target::Window(_) => self.fill_window(now, out),
        }
    }

    /// Sends the `n` Interests the engine released at `now`.
    fn release(&mut self, now: Instant, n: u32, out: &mut Vec<Packet>) {
        let mut sent = 0;
        for _ in 0..n {
            sent += u64::from(self.send_one(now, out));
        }
        self.stats.max_burst = self.stats.max_burst.max(sent);
    }

    /// Keeps the engine's wake-up current: when the engine asks for a new instant, the clock
    /// model decides when the timer really fires (drawing from the consumer's stream only for
    /// clocks with a random waiting time).
    fn refresh_engine_timer(&mut self, now: Instant) {
        let Some(requested) = self.engine.poll_timeout() else {
            self.engine_timer = None;
            return;
        };
        if self.engine_timer.map(|(r, _)| r) != Some(requested) {
            let fire = self.clock.fire_time(now, requested, &mut self.rng);
            self.engine_timer = Some((requested, fire));
        }
    }

    /// The controller's current target rate (Interests/s), if it is rate-based.
    pub fn target_rate(&self) -> Option<f64> {
        match self.controller.target() {
            Target::Rate(r) => Some(r.0),
            Target::Window(_) => None,
        }
    }

    /// The controller's current window, if it is window-based.
    pub fn target_window(&self) -> Option<f64> {
        match self.controller.target() {
            Target::Window(w) => Some(w),
            Target::Rate(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::controller::FixedWindow;
    use crate::harness::TwoNode;
    use std::cell::RefCell;
    use std::collections::{BTreeMap, BTreeSet, VecDeque};
    use std::rc::Rc;

    const N: u32 = 32;
    const CHUNKS: u64 = 20;

    /// Segment `i` of chunk `c` is lost the first time it crosses the link when this holds
    /// (about one in seven, up to five per chunk).
    fn lossy(c: u64, i: u32) -> bool {
        (c * u64::from(N) + u64::from(i)) % 7 == 3
    }

    /// 32-segment chunks over a lossy link: every chunk completes; a chunk's second Interest asks
    /// for exactly the segments that were lost; the consumer node's PIT entry of a chunk lives
    /// exactly as long as the chunk has segments missing.
    #[test]
    fn chunked_fetch_reasks_only_missing_offsets() {
        let mut h = TwoNode::new(
            Controller::FixedWindow(FixedWindow { window: 4 }),
            Duration::from_millis(10),
            1000,
            |cfg| {
                cfg.chunk_segments = Some(N);
                cfg.max_seq = Some(CHUNKS);
                cfg.retx_on_timeout = true;
                cfg.timeout = Duration::from_millis(100);
            },
        );
        // chunk -> masks of the Interests that asked for it, in order
        let asks: Rc<RefCell<BTreeMap<u64, Vec<u64>>>> = Rc::default();
        let lost: Rc<RefCell<BTreeSet<(u64, u32)>>> = Rc::default();
        let (a, l) = (asks.clone(), lost.clone());
        h.drop_when(move |_, p| match p {
            Packet::Interest(i) => {
                let c = i.ext.chunk().expect("a chunk Interest");
                a.borrow_mut()
                    .entry(i.name.seq.unwrap())
                    .or_default()
                    .push(c.mask);
                false
            }
            Packet::Data(d) => {
                let (c, i) = (d.name.seq.unwrap(), d.ext.segment.unwrap().index);
                lossy(c, i) && l.borrow_mut().insert((c, i))
            }
            Packet::Nack(_) => false,
        });
        let prefix = h.prefix;
        h.run_until(Instant(Duration::from_secs(5).0), |h| {
            let c = h.consumer();
            for seq in 0..c.next_seq {
                let incomplete = c.pending.contains_key(&seq) || c.retx_queue.contains(seq);
                let entry = h.nodes[0].fwd.core.pit.get(&Name::new(prefix, seq));
                assert_eq!(entry.is_some(), incomplete, "chunk {seq} at {:?}", h.now);
            }
        });
        let c = h.consumer();
        assert_eq!(c.stats.requested, CHUNKS);
        assert_eq!(
            c.stats.data_received,
            CHUNKS * u64::from(N),
            "every segment, once"
        );
        assert_eq!(
            (c.in_flight(), c.retx_queue.len(), c.stats.given_up),
            (0, 0, 0)
        );
        assert_eq!(c.delays.len() as u64, CHUNKS, "one completion per chunk");
        assert_eq!(c.stats.completed, CHUNKS, "delivered = complete chunks");
        let all = ChunkRequest::all(N).mask;
        for (chunk, masks) in asks.borrow().iter() {
            assert_eq!(
                masks[0], all,
                "chunk {chunk}: the first Interest asks for all"
            );
            let missing = (0..N)
                .filter(|&i| lossy(*chunk, i))
                .fold(0u64, |m, i| m | 1 << i);
            if missing == 0 {
                assert_eq!(
                    masks.len(),
                    1,
                    "chunk {chunk}: nothing lost, nothing re-asked"
                );
            } else {
                assert_eq!(
                    masks[1..],
                    [missing],
                    "chunk {chunk}: re-asks the lost offsets only"
                );
            }
        }
        assert!(lost.borrow().len() > 50, "the link did lose segments");
    }

    /// ICP with a fixed window of 4 chunks (no growth) and τ = 50 ms, 10 ms each way; every
    /// segment of chunk 0 takes 35 ms longer to cross the link.
    fn chunk_0_answered_35_ms_late() -> TwoNode {
        use crate::schemes::icp::{Icp, IcpConfig};
        let icp = IcpConfig {
            initial_window: 4.0,
            ssthresh: 0.0,
            increase: 0.0,
            tau: Duration::from_millis(50),
            ..Default::default()
        };
        let mut h = TwoNode::new(
            Controller::Icp(Icp::new(icp)),
            Duration::from_millis(10),
            1000,
            |cfg| {
                cfg.chunk_segments = Some(N);
                cfg.max_seq = Some(CHUNKS);
                cfg.max_transmissions = 5;
            },
        );
        h.delay_when(|_, p| match p {
            Packet::Data(d) if d.name.seq == Some(0) => Duration::from_millis(35),
            _ => Duration::ZERO,
        });
        h
    }

    /// A chunk whose Data come after its timeout, while its re-ask waits for room in a window
    /// the timeout shrank, is delivered without a re-ask and recorded like any other chunk: the
    /// delay table (the reproductions' throughput) holds every completed chunk.
    #[test]
    fn a_chunk_completed_while_waiting_for_its_reask_is_recorded() {
        // chunk 0's Data arrive at 55 ms: after its timeout (50 ms, W 4 → 2 with chunks 7, 8,
        // 9 in flight) and before those complete (60 ms) and make room for its re-ask
        let mut h = chunk_0_answered_35_ms_late();
        h.run_until(Instant(Duration::from_secs(1).0), |_| {});
        let c = h.consumer();
        assert_eq!((c.stats.timeouts, c.stats.retransmissions), (1, 0));
        assert_eq!(c.stats.completed, CHUNKS);
        assert_eq!(
            c.delays.len() as u64,
            CHUNKS,
            "every completed chunk recorded"
        );
        let r = c
            .delays
            .iter()
            .find(|r| r.seq == 0)
            .expect("chunk 0 recorded");
        let at = Duration::from_millis(55);
        assert_eq!(
            (r.time, r.full_delay, r.last_delay),
            (Instant(at.0), at, at)
        );
        assert_eq!(r.transmissions, 1);
    }

    /// ICP that counts the Data signals it gets and their `retransmitted` flags.
    #[derive(Debug)]
    struct CountedIcp {
        icp: crate::schemes::icp::Icp,
        data: std::sync::Arc<std::sync::Mutex<Vec<(u64, bool)>>>,
    }

    impl CongestionController for CountedIcp {
        fn target(&self) -> Target {
            self.icp.target()
        }
        fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
            self.icp.rto(rtt)
        }
        fn retransmit(&mut self, now: Instant, seq: u64, loss: Loss) -> Option<bool> {
            self.icp.retransmit(now, seq, loss)
        }
        fn on_data(&mut self, now: Instant, sig: &DataSignal) {
            self.data.lock().unwrap().push((sig.seq, sig.retransmitted));
            self.icp.on_data(now, sig);
        }
        fn on_timeout(&mut self, now: Instant, seq: u64) {
            self.icp.on_timeout(now, seq);
        }
    }

    /// The controller gets one signal per complete chunk (the module's contract), also for a
    /// chunk completed while its re-ask waited: flagged `retransmitted` (it timed out), so the
    /// consumer takes no RTT sample from it, nor a Karn-respecting controller. (It got none before: RIC neither grew its window for it nor
    /// forgot its send time.)
    #[test]
    fn a_chunk_completed_while_waiting_for_its_reask_signals_the_controller() {
        let mut h = chunk_0_answered_35_ms_late();
        let data = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let crate::app::App::Consumer(c) = &mut h.nodes[0].apps[0].app else {
            unreachable!("node 0's app is the consumer")
        };
        let Controller::Icp(icp) = &c.controller else {
            unreachable!("chunk_0_answered_35_ms_late runs ICP")
        };
        c.controller = Controller::Custom(Box::new(CountedIcp {
            icp: icp.clone(),
            data: data.clone(),
        }));
        h.run_until(Instant(Duration::from_secs(1).0), |_| {});
        let c = h.consumer();
        assert_eq!((c.stats.timeouts, c.stats.retransmissions), (1, 0));
        let got = data.lock().unwrap().clone();
        assert_eq!(got.len() as u64, CHUNKS, "one signal per complete chunk");
        assert_eq!(
            got.iter().filter(|&&(_, r)| r).collect::<Vec<_>>(),
            vec![&(0, true)],
            "chunk 0 flagged: it timed out"
        );
    }

    /// The same after a re-ask: chunk 0's first answer is lost, the answer to its re-ask comes
    /// after the re-ask's own timeout, while a second re-ask waits; the record's full delay runs
    /// from the first Interest, its last delay from the re-ask.
    #[test]
    fn a_reasked_chunk_completed_while_waiting_again_keeps_both_delays() {
        let mut h = chunk_0_answered_35_ms_late();
        let first_answer = |now: Instant| now < Instant(Duration::from_millis(40).0);
        h.drop_when(move |now, p| {
            matches!(p, Packet::Data(d) if d.name.seq == Some(0) && first_answer(now))
        });
        h.run_until(Instant(Duration::from_secs(1).0), |_| {});
        let c = h.consumer();
        assert_eq!((c.stats.timeouts, c.stats.retransmissions), (2, 1));
        assert_eq!(c.delays.len() as u64, CHUNKS);
        let r = c
            .delays
            .iter()
            .find(|r| r.seq == 0)
            .expect("chunk 0 recorded");
        assert_eq!(r.transmissions, 2);
        assert_eq!(r.last_delay, Duration::from_millis(55), "from the re-ask");
        assert_eq!(
            r.full_delay,
            Duration(r.time.0),
            "from the first Interest, at 0"
        );
        assert!(r.full_delay > r.last_delay);
    }

    /// A consumer whose every Interest is answered, 1 ms later, by a Nack of `reason`, driven
    /// for 2 s: (the consumer, the instants its Interests were sent).
    fn nacked_for_two_seconds(
        reason: NackReason,
        target: &str,
        cfg: impl FnOnce(&mut ConsumerConfig),
    ) -> (Consumer, Vec<Instant>) {
        use crate::app::controller::ConstantRate;
        let mut names = crate::name::NameTable::new();
        let prefix = names.intern("/p");
        let controller = match target {
            "window" => Controller::FixedWindow(FixedWindow { window: 8 }),
            _ => Controller::ConstantRate(ConstantRate {
                rate: PacketRate(1000.0),
            }),
        };
        let mut c = crate::harness::test_consumer(prefix, controller, |c| {
            c.timeout = Duration::from_millis(100);
            cfg(c);
        });
        let (rtt, end) = (Duration::from_millis(1), Instant(Duration::from_secs(2).0));
        let mut out = Vec::new();
        let mut nacks: VecDeque<(Instant, Nack)> = VecDeque::new();
        let mut sent = Vec::new();
        let mut now = Instant::ZERO;
        c.start(now, &mut out);
        while now < end && sent.len() < 1_000_000 {
            for p in out.drain(..) {
                if let Packet::Interest(interest) = p {
                    sent.push(now);
                    let size = interest.size;
                    nacks.push_back((
                        now + rtt,
                        Nack {
                            reason,
                            interest,
                            size,
                        },
                    ));
                }
            }
            let next_nack = nacks.front().map(|(t, _)| *t);
            now = match (next_nack, c.poll_timeout()) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None => break,
                },
            };
            if next_nack == Some(now) {
                let (_, n) = nacks.pop_front().unwrap();
                c.handle_nack(now, &n, &mut out);
            } else {
                c.on_timeout(now, &mut out);
            }
        }
        // what the last instant released was sent, at or before the end
        sent.extend(
            out.iter()
                .filter(|p| matches!(p, Packet::Interest(_)))
                .map(|_| now),
        );
        (c, sent)
    }

    /// The NoRoute rule: a window of 8 Nacked NoRoute 1 ms after each send keeps its Interests
    /// in flight to their 100 ms deadline, so it sends 8 per 100 ms (with and without
    /// retransmissions) — not 8 per millisecond, for ever; a Nack counts as one, not as a
    /// timeout, and the sequence numbers are given up or re-sent as the Nack setting says.
    #[test]
    fn a_window_facing_noroute_waits_for_the_deadline() {
        for retx in [false, true] {
            let (c, sent) = nacked_for_two_seconds(NackReason::NoRoute, "window", |c| {
                c.retx_on_nack = retx;
            });
            // at 0, 100 ms, …, 2 s: 21 rounds of 8
            assert_eq!(sent.len(), 8 * 21, "retx_on_nack = {retx}");
            let per_second = sent
                .iter()
                .filter(|t| t.0 < Duration::from_secs(1).0)
                .count();
            assert!(
                per_second <= 8 * 11,
                "{per_second} Interests in the first second"
            );
            assert_eq!(
                c.stats.timeouts, 0,
                "held Interests are Nacked, not timed out"
            );
            assert_eq!(c.stats.nacks, 8 * 20, "the last round is sent at the end");
            if retx {
                assert_eq!(c.stats.retransmissions, 8 * 20);
                assert_eq!((c.stats.requested, c.stats.given_up), (8, 0));
            } else {
                assert_eq!((c.stats.requested, c.stats.given_up), (8 * 21, 8 * 20));
            }
        }
    }

    /// Congestion Nacks keep their at-once rule: the window refills on each (8 Interests per
    /// 1 ms round trip), the schemes that answer with Congestion Nacks rely on it.
    #[test]
    fn a_congestion_nack_frees_the_window_at_once() {
        let (c, sent) = nacked_for_two_seconds(NackReason::Congestion, "window", |c| {
            c.max_seq = Some(8 * 50);
        });
        assert_eq!(sent.len(), 8 * 50);
        assert_eq!(*sent.last().unwrap(), Instant(Duration::from_millis(49).0));
        assert_eq!(c.stats.given_up, 8 * 50);
    }

    /// A rate consumer facing NoRoute keeps its rate; its re-sends wait for the deadline.
    #[test]
    fn a_rate_consumer_facing_noroute_keeps_its_rate() {
        let (c, sent) = nacked_for_two_seconds(NackReason::NoRoute, "rate", |c| {
            c.retx_on_nack = true;
        });
        assert!(
            (1999..=2001).contains(&sent.len()),
            "{} Interests",
            sent.len()
        );
        assert_eq!(c.stats.timeouts, 0);
        assert!(c.stats.retransmissions > 0);
    }

    /// Without re-asks, a chunk that lost a segment is not delivered: `completed` counts
    /// complete chunks only (the delivery ratio of seed 001's Table I).
    #[test]
    fn a_chunk_missing_a_segment_is_not_completed() {
        let mut h = TwoNode::new(
            Controller::FixedWindow(FixedWindow { window: 4 }),
            Duration::from_millis(10),
            1000,
            |cfg| {
                cfg.chunk_segments = Some(N);
                cfg.max_seq = Some(CHUNKS);
                cfg.timeout = Duration::from_millis(100);
            },
        );
        h.drop_when(|_, p| match p {
            Packet::Data(d) => d.name.seq.unwrap() % 4 == 1 && d.ext.segment.unwrap().index == 5,
            _ => false,
        });
        h.run_until(Instant(Duration::from_secs(5).0), |_| {});
        let c = h.consumer();
        assert_eq!(c.stats.requested, CHUNKS);
        assert_eq!(c.stats.completed, CHUNKS - CHUNKS / 4);
        assert_eq!(c.stats.data_received, CHUNKS * u64::from(N) - CHUNKS / 4);
    }

    /// Numbers that time out at one instant are re-sent in the order they timed out (their
    /// deadlines', then their numbers'), not smallest first: seq 3 (sent at 90 ms) and seq 0
    /// (re-sent at 100 ms), both lost, are found timed out by one wake-up that lands late, at
    /// 205 ms (deadlines 190 and 200 ms), and re-sent 3 then 0. Equal deadlines: seqs 0, 1
    /// and 2 of a window of 3, sent at 0 and lost, time out at 100 ms and are re-sent 0, 1, 2.
    #[test]
    fn numbers_timed_out_together_are_resent_in_the_order_they_timed_out() {
        use crate::app::bench::{s, Bench};
        let mut b = Bench::new(Controller::FixedWindow(FixedWindow { window: 2 }), |c| {
            c.retx_on_timeout = true;
            c.timeout = Duration::from_millis(100);
        });
        let ms = |t: u64| Instant(Duration::from_millis(t).0);
        b.run(
            ms(400),
            |sent, seq, nth| match (seq, nth) {
                (1, _) => Some(ms(10)),
                (2, _) => Some(ms(90)),
                (0 | 3, 1) | (0, 2) => None,
                _ => Some(sent + Duration::from_millis(5)),
            },
            |asked| {
                if asked == ms(190) {
                    Duration::from_millis(15)
                } else {
                    Duration::ZERO
                }
            },
        );
        assert_eq!(b.sends_of(0), [s(0.0), s(0.1), s(0.205)]);
        assert_eq!(b.sends_of(3), [s(0.09), s(0.205)]);
        assert_eq!(b.sent_at(s(0.205)), [3, 0], "the order they timed out in");
        assert_eq!(b.c.stats.timeouts, 3);

        let mut b = Bench::new(Controller::FixedWindow(FixedWindow { window: 3 }), |c| {
            c.retx_on_timeout = true;
            c.timeout = Duration::from_millis(100);
        });
        b.run(
            ms(150),
            |sent, _, nth| (nth > 1).then_some(sent + Duration::from_millis(5)),
            |_| Duration::ZERO,
        );
        assert_eq!(b.sent_at(s(0.0)), [0, 1, 2]);
        assert_eq!(b.sent_at(s(0.1)), [0, 1, 2], "a tie: the numbers' order");
    }
}
