//! A leaky bucket of *outstanding tokens*, as ndnSIM 1.0's `LimitsRate` polices Interests
//! (seed 002 §III.A; `../shared/specs/sf.md`).
//!
//! Every admitted Interest adds one token to the fill level g; the bucket leaks at the current
//! rate r (tokens/s) and never goes below zero; an Interest is admitted only if g + 1 ≤ D.
//!
//! The leak is discrete, like ndnSIM 1.0's self-rescheduling event: a leak event removes
//! `r × Δ` tokens, where Δ is the interval the event was scheduled with, then schedules the next
//! one `Δ' = slack / r` later (1 s when r ≤ 1), with ndnSIM's `slack` = 1.001. The events are
//! applied lazily — whenever the bucket is used, every event due at or before `now` runs first,
//! with the rate each event would have seen — so no timer is needed and the trajectory is the
//! event-driven one exactly (a leak due at the same instant as a packet runs first).

use crate::time::{Duration, Instant};

#[derive(Clone, Debug, PartialEq)]
pub struct OutstandingBucket {
    /// Fill level g, in tokens.
    level: f64,
    /// D: maximum depth in tokens.
    depth: f64,
    /// r: current leak rate in tokens per second.
    rate: f64,
    /// Leak events are `slack / r` apart (ndnSIM 1.0: 1.001).
    slack: f64,
    next_leak: Instant,
    /// The interval the next leak event was scheduled with, in seconds.
    scheduled_interval: f64,
}

impl OutstandingBucket {
    /// An empty bucket whose first leak event happens at `first_leak` (leaking nothing).
    pub fn new(depth: f64, rate: f64, slack: f64, first_leak: Instant) -> Self {
        OutstandingBucket {
            level: 0.0,
            depth,
            rate,
            slack,
            next_leak: first_leak,
            scheduled_interval: 0.0,
        }
    }

    /// Runs every leak event due at or before `now`.
    pub fn advance(&mut self, now: Instant) {
        while self.next_leak <= now {
            let leak = self.rate * self.scheduled_interval;
            self.level = (self.level - leak).max(0.0);
            let interval = if self.rate > 1.0 {
                self.slack / self.rate
            } else {
                1.0
            };
            self.scheduled_interval = interval;
            self.next_leak += Duration::from_secs_f64(interval).max(Duration(1));
        }
    }

    /// True if one more token fits now (g + 1 ≤ D).
    pub fn has_room(&mut self, now: Instant) -> bool {
        self.advance(now);
        self.depth - self.level >= 1.0
    }

    /// Adds one token (call after [`OutstandingBucket::has_room`]).
    pub fn borrow(&mut self) {
        self.level += 1.0;
    }

    /// Admits an Interest if there is room: adds its token and returns true.
    pub fn try_admit(&mut self, now: Instant) -> bool {
        let ok = self.has_room(now);
        if ok {
            self.borrow();
        }
        ok
    }

    /// Changes the leak rate from `now` on (events already due leak at the old rate).
    pub fn set_rate(&mut self, now: Instant, rate: f64) {
        self.advance(now);
        self.rate = rate;
    }

    /// The fill level at `now`.
    pub fn level(&mut self, now: Instant) -> f64 {
        self.advance(now);
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn admits_up_to_the_depth_then_refuses() {
        let mut b = OutstandingBucket::new(50.0, 1000.0, 1.001, Instant(0));
        let admitted = (0..60).filter(|_| b.try_admit(Instant(0))).count();
        assert_eq!(admitted, 50);
        assert_eq!(b.level(Instant(0)), 50.0);
    }

    #[test]
    fn leaks_in_steps_of_slack_tokens_every_slack_over_rate() {
        let mut b = OutstandingBucket::new(50.0, 1000.0, 1.001, Instant(0));
        for _ in 0..50 {
            b.try_admit(Instant(0));
        }
        // events at 0 (leaks nothing), 1.001 ms, 2.002 ms, … each leaking 1.001 tokens
        assert_eq!(b.level(Instant(1_000_999)), 50.0);
        assert!((b.level(Instant(1_001_000)) - 48.999).abs() < 1e-9);
        assert!((b.level(Instant(10 * 1_001_000)) - (50.0 - 10.0 * 1.001)).abs() < 1e-9);
    }

    #[test]
    fn bursts_of_exactly_depth_every_depth_over_rate_overflow_after_a_while() {
        // 50 tokens every 50 ms at r = 1000/s: leak events come every 1.001 ms, so a 50 ms
        // period holds 50 events (leaking 50.05 tokens, emptying the bucket) except about one
        // period in twenty that holds 49 (leaking 49.049): then the next burst no longer fits
        // (seed 002, Fig. 5a: the bucket sits at 50 for a while, then overflows).
        let mut b = OutstandingBucket::new(50.0, 1000.0, 1.001, Instant(0));
        let mut first_refusal = None;
        for k in 1..100u64 {
            let t = Instant(k * 50 * MS);
            let admitted = (0..50).filter(|_| b.try_admit(t)).count();
            if admitted < 50 && first_refusal.is_none() {
                first_refusal = Some(k);
            }
        }
        let k = first_refusal.expect("overflows eventually");
        assert!((2..=21).contains(&k), "first refusal at period {k}");
    }

    #[test]
    fn the_event_due_after_a_rate_change_leaks_the_new_rate_over_its_old_interval() {
        // events at 0 and 1.001 ms (scheduled at r = 1000/s); r drops to 100/s at 0.5 ms: the
        // event at 1.001 ms leaks 100 × 1.001 ms = 0.1001 tokens, and schedules the next one
        // 1.001 / 100 s = 10.01 ms later, which leaks 100 × 10.01 ms = 1.001 tokens
        let mut b = OutstandingBucket::new(50.0, 1000.0, 1.001, Instant(0));
        for _ in 0..10 {
            b.try_admit(Instant(0));
        }
        b.set_rate(Instant(500_000), 100.0);
        assert!((b.level(Instant(1_001_000)) - (10.0 - 0.1001)).abs() < 1e-9);
        assert!((b.level(Instant(11_010_999)) - (10.0 - 0.1001)).abs() < 1e-9);
        assert!((b.level(Instant(11_011_000)) - (10.0 - 0.1001 - 1.001)).abs() < 1e-9);
    }

    #[test]
    fn never_below_zero_and_rate_changes_apply_to_later_events() {
        let mut b = OutstandingBucket::new(10.0, 100.0, 1.0, Instant(0));
        assert_eq!(b.level(Instant(5_000_000_000)), 0.0);
        b.try_admit(Instant(5_000_000_000));
        b.set_rate(Instant(5_000_000_000), 1.0);
        assert_eq!(b.level(Instant(5_000_000_000)), 1.0);
    }
}
