//! The generic consumer: a *controller* (how much) and a *sending engine* (when).
//!
//! It requests sequence numbers in order under its prefix. Rate targets are actuated by the
//! sending engine; window targets send whenever fewer than W Interests are in flight. Optional
//! retransmission after a timeout and/or a Nack (retransmissions go before new sequence
//! numbers). RTT is estimated per RFC 6298 from Interests sent once (Karn).

use super::controller::{CongestionController, DataSignal, Loss, NackSignal, Target};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::name::{Name, NameId};
use crate::pacing::{ClockModel, Engine, SendingEngine};
use crate::packet::{Data, Interest, Nack, Packet};
use crate::rng::RngStream;
use crate::schemes::registry::Controller;
use crate::time::{Duration, Instant, PacketRate};
use crate::timers::TimerQueue;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

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
    /// Keep one [`DelayRecord`] per Data received.
    pub record_delays: bool,
}

/// Cumulative consumer counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConsumerStats {
    /// Interests sent, retransmissions included.
    pub interests_sent: u64,
    pub retransmissions: u64,
    /// Distinct sequence numbers requested.
    pub requested: u64,
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
    pending: FxHashMap<u64, Pending>,
    retx_queue: VecDeque<(u64, Pending)>,
    deadlines: TimerQueue<u64>,
    rate: Option<PacketRate>,
    pub rtt: RttEstimator,
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
            pending: FxHashMap::default(),
            retx_queue: VecDeque::new(),
            deadlines: TimerQueue::default(),
            rate: None,
            rtt: RttEstimator::default(),
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
        let (seq, first_tx, transmissions) = match self.retx_queue.pop_front() {
            Some((seq, p)) => {
                self.stats.retransmissions += 1;
                (seq, p.first_tx, p.transmissions + 1)
            }
            None => {
                if !self.has_more() {
                    return false;
                }
                let seq = self.next_seq;
                self.next_seq += 1;
                self.stats.requested += 1;
                (seq, now, 1)
            }
        };
        let timeout = self.controller.rto(&self.rtt).unwrap_or(self.cfg.timeout);
        let deadline = now + timeout;
        self.pending.insert(
            seq,
            Pending {
                first_tx,
                last_tx: now,
                transmissions,
                deadline,
            },
        );
        self.deadlines.push(deadline, seq);
        self.stats.interests_sent += 1;
        let mut interest = Interest::new(
            Name::new(self.cfg.prefix, seq),
            self.rng.next_u32(),
            self.cfg.lifetime,
            self.cfg.interest_size,
        );
        interest.ext.class = self.controller.next_class();
        out.push(Packet::Interest(interest));
        true
    }

    fn fill_window(&mut self, now: Instant, out: &mut Vec<Packet>) {
        if let Target::Window(w) = self.controller.target() {
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
            self.retx_queue.push_back((seq, p));
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
        let Some(p) = self.pending.remove(&seq) else {
            self.stats.late_data += 1;
            return;
        };
        let rtt = now - p.last_tx;
        if p.transmissions == 1 {
            self.rtt.add_sample(rtt);
        }
        self.stats.data_received += 1;
        self.stats.data_bytes += data.size as u64;
        if self.cfg.record_delays {
            self.delays.push(DelayRecord {
                time: now,
                seq,
                last_delay: rtt,
                full_delay: now - p.first_tx,
                transmissions: p.transmissions,
                hops: data.ext.hops,
            });
        }
        let sig = DataSignal {
            seq,
            rtt,
            retransmitted: p.transmissions > 1,
            marked: data.ext.mark,
            rate_stamp: data.ext.rate_stamp.map(PacketRate),
            class: data.ext.class,
        };
        self.controller.on_data(now, &sig);
        if sig.marked {
            self.stats.marks += 1;
            self.controller.on_mark(now, &sig);
        }
        if let Some(r) = sig.rate_stamp {
            self.controller.on_rate_stamp(now, r, &sig);
        }
        self.after_signal(now, out);
    }

    pub fn handle_nack(&mut self, now: Instant, nack: &Nack, out: &mut Vec<Packet>) {
        if !self.active {
            return;
        }
        let Some(seq) = nack.interest.name.seq else {
            return;
        };
        let Some(p) = self.pending.remove(&seq) else {
            return;
        };
        self.stats.nacks += 1;
        let sig = NackSignal {
            seq,
            reason: nack.reason,
            sent: p.last_tx,
        };
        self.controller.on_nack(now, &sig);
        self.retry_or_give_up(now, seq, p, Loss::Nack, self.cfg.retx_on_nack);
        self.after_signal(now, out);
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.active {
            return None;
        }
        let deadline = self.deadlines.peek().map(|(t, _)| t);
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
        while let Some((t, seq)) = self.deadlines.peek() {
            if t > now {
                break;
            }
            self.deadlines.pop();
            let due = self.pending.get(&seq).is_some_and(|p| p.deadline == t);
            if !due {
                continue;
            }
            let p = self.pending.remove(&seq).expect("pending");
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
