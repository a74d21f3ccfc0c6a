//! ndnSIM 2.8's consumer timeout and retransmission machinery, as its `Consumer` base class
//! runs it for `ConsumerCbr`, `ConsumerWindow` and `ConsumerPcon` (`apps/ndn-consumer.cpp`,
//! `utils/ndn-rtt-estimator.cpp`, `utils/ndn-rtt-mean-deviation.cpp`). One implementation,
//! used by the generic [`Consumer`](super::Consumer) for every controller that asks for it
//! ([`CongestionController::ndnsim_retx`](super::CongestionController::ndnsim_retx)):
//! `ndnsim-cbr` and `pcon`.
//!
//! What ndnSIM does, in our words:
//!
//! * **RTT estimator** (mean-deviation): the first sample sets SRTT to it and the deviation to
//!   half of it; later ones move SRTT by 1/8 of the error and the deviation by 1/4 of
//!   (|error| − deviation). Before any sample SRTT is the initial estimate (1 s) and the
//!   deviation 0. RTO = min(max_rto, max(m·min_rto, m·(SRTT + 4·deviation))), min_rto 200 ms,
//!   max_rto 200 s; the multiplier m doubles on every timeout (up to 64) and returns to 1 on
//!   every sample. Samples come only from Interests answered without having timed out or
//!   been sent again, matched by sequence number.
//! * **Checks**: every `RetxTimer` (50 ms) from the start of the run the consumer reads the
//!   RTO *once* and declares timed out, oldest first, every outstanding Interest whose age
//!   (now − its last send) has reached it; the timeouts of one check double m but do not
//!   change the RTO that check compares with. An Interest has no deadline of its own: a
//!   sample that shrinks the RTO between checks makes the next check declare it. On a real
//!   clock a check that wakes late runs at the instant it wakes, against its ages then.
//! * **Re-sending**: a timed-out sequence number waits in a set and is sent again before any
//!   new one, smallest first, when the sending rule (the rate, or the window) next allows.
//! * **Late Data** (for an Interest that already timed out): it still answers the sequence
//!   number (the delay is recorded with the sends so far, the pending re-send is cancelled),
//!   counts for the window law and the in-flight counter, and gives no RTT sample.
//! * **In flight** (ConsumerWindow's counter, for window controllers): +1 per send, −1 per
//!   timeout and −1 per Data received, never below 0; the consumer sends while it is below
//!   the window W (a real number, not ⌊W⌋). A late Data decrements it a second time, as in
//!   ndnSIM.
//! * **Nacks** change nothing: the Interest stays outstanding until a check times it out.

use crate::mechanisms::rtt_estimator::{Form, MeanDeviation};
use crate::time::{Duration, Instant};
use std::collections::VecDeque;

/// The machinery's settings (ndnSIM's attribute defaults in [`Default`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdnsimRetxConfig {
    /// `RetxTimer`: the period of the timeout checks (50 ms).
    pub retx_timer: Duration,
    /// `InitialEstimation`: SRTT before the first sample (1 s).
    pub initial_rtt: Duration,
    /// `MinRTO` (200 ms), per unit of the multiplier.
    pub min_rto: Duration,
    /// `MaxRTO` (200 s).
    pub max_rto: Duration,
    /// `MaxMultiplier` (64).
    pub max_multiplier: u32,
}

impl Default for NdnsimRetxConfig {
    fn default() -> Self {
        NdnsimRetxConfig {
            retx_timer: Duration::from_millis(50),
            initial_rtt: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(200),
            max_multiplier: 64,
        }
    }
}

/// `RttMeanDeviation`: the mean-deviation estimator (gains 1/8 and 1/4, in ndnSIM's
/// incremental form, on samples in seconds) with ndnSIM's initial estimate, RTO bounds and
/// back-off multiplier.
#[derive(Clone, Debug)]
pub struct RttMeanDeviation {
    initial_rtt: f64,
    min_rto: f64,
    max_rto: f64,
    max_multiplier: u32,
    /// SRTT and the mean deviation, in seconds.
    est: MeanDeviation,
    /// The back-off multiplier m.
    pub multiplier: u32,
}

impl RttMeanDeviation {
    pub fn new(cfg: &NdnsimRetxConfig) -> Self {
        RttMeanDeviation {
            initial_rtt: cfg.initial_rtt.as_secs_f64(),
            min_rto: cfg.min_rto.as_secs_f64(),
            max_rto: cfg.max_rto.as_secs_f64(),
            max_multiplier: cfg.max_multiplier,
            est: MeanDeviation::new(Form::Incremental),
            multiplier: 1,
        }
    }

    /// The RTO now.
    pub fn rto(&self) -> Duration {
        let m = f64::from(self.multiplier);
        // before any sample: the initial estimate, with a deviation of 0
        let t = self.est.timeout().unwrap_or(self.initial_rtt);
        let rto = (m * t).max(m * self.min_rto).min(self.max_rto);
        Duration::from_secs_f64(rto)
    }

    /// SRTT (the initial estimate before any sample).
    pub fn srtt(&self) -> Duration {
        Duration::from_secs_f64(self.est.srtt().unwrap_or(self.initial_rtt))
    }

    /// RTT samples taken.
    pub fn samples(&self) -> u64 {
        self.est.samples()
    }

    /// One RTT sample; resets the multiplier.
    pub fn sample(&mut self, rtt: Duration) {
        self.est.sample(rtt.as_secs_f64());
        self.multiplier = 1;
    }

    /// A timeout: doubles the multiplier, up to its maximum.
    pub fn increase_multiplier(&mut self) {
        self.multiplier = (self.multiplier * 2).min(self.max_multiplier);
    }

    /// Back to the state before any sample.
    pub fn reset(&mut self) {
        self.est = MeanDeviation::new(Form::Incremental);
        self.multiplier = 1;
    }
}

/// The machinery's state in a consumer.
#[derive(Clone, Debug)]
pub struct NdnsimRetx {
    pub cfg: NdnsimRetxConfig,
    pub rtt: RttMeanDeviation,
    /// Sends in order: (instant, sequence number). An entry is stale once its Interest is
    /// answered or timed out, or sent again (the consumer tells which with `current`).
    sends: VecDeque<(Instant, u64)>,
    /// The next check instant, on the grid k·RetxTimer from the start of the run.
    next_check: Instant,
    /// ConsumerWindow's in-flight counter.
    pub in_flight: u64,
    /// Checks run.
    pub checks: u64,
}

impl NdnsimRetx {
    pub fn new(cfg: NdnsimRetxConfig) -> Self {
        NdnsimRetx {
            rtt: RttMeanDeviation::new(&cfg),
            sends: VecDeque::new(),
            next_check: Instant(cfg.retx_timer.0),
            in_flight: 0,
            checks: 0,
            cfg,
        }
    }

    /// The first check instant on the grid strictly after `t`.
    fn grid_after(&self, t: Instant) -> Instant {
        let step = self.cfg.retx_timer.0.max(1);
        Instant((t.0 / step + 1) * step)
    }

    /// An Interest for `seq` is sent at `now`.
    pub fn on_send(&mut self, now: Instant, seq: u64) {
        if self.sends.is_empty() {
            // nothing was outstanding: the checks in between found nothing to do
            self.next_check = self.next_check.max(self.grid_after(now));
        }
        self.sends.push_back((now, seq));
        self.in_flight += 1;
    }

    /// The instant of the next check, if anything may be outstanding.
    pub fn poll_timeout(&self) -> Option<Instant> {
        (!self.sends.is_empty()).then_some(self.next_check)
    }

    /// Runs the check due at or before `now`, if one is: reads the RTO once, then declares
    /// timed out, oldest first, every outstanding Interest whose age has reached it (each
    /// doubles the multiplier and decrements the in-flight counter). `current(seq, sent)`
    /// tells whether the Interest for `seq` sent at `sent` is still outstanding. Returns the
    /// sequence numbers declared, in order.
    pub fn check(
        &mut self,
        now: Instant,
        mut current: impl FnMut(u64, Instant) -> bool,
    ) -> Vec<u64> {
        let mut due = Vec::new();
        if now < self.next_check {
            return due;
        }
        self.checks += 1;
        self.next_check = self.grid_after(now);
        let rto = self.rtt.rto();
        while let Some(&(sent, seq)) = self.sends.front() {
            if !current(seq, sent) {
                self.sends.pop_front();
                continue;
            }
            if sent + rto > now {
                break;
            }
            self.sends.pop_front();
            self.rtt.increase_multiplier();
            self.in_flight = self.in_flight.saturating_sub(1);
            due.push(seq);
        }
        due
    }

    /// A Data was received (answered, late or unexpected): the in-flight counter's −1.
    pub fn on_data(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }
}

#[cfg(test)]
#[path = "ndnsim_tests.rs"]
mod tests;
