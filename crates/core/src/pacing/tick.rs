//! tick(Δ): a coarse-grained clock (seed 000 §III.B, seed 002 §III.A).
//!
//! The engine's only timer fires every Δ, at `start + kΔ`. Interests become owed at the nominal
//! rate in between (the papers' emulation: `SendPacket()` queues instead of sending) and every
//! owed Interest leaves at the next tick, back to back — bursts of about r·Δ Interests.
//! The timer is only armed for the first tick at or after the next nominal time, which gives
//! the same release instants without idle wake-ups.

use super::{Nominal, SendingEngine};
use crate::time::{Duration, Instant, PacketRate};

#[derive(Clone, Debug)]
pub struct Tick {
    /// Δ: the clock's tick interval.
    pub interval: Duration,
    origin: Instant,
    pub(crate) nominal: Option<Nominal>,
    /// The last tick that fired: a rate increase re-spacing the schedule into the past must
    /// wait for the next tick, never fire off the Δ grid.
    fired: Option<Instant>,
}

impl Tick {
    pub fn new(interval: Duration) -> Self {
        Tick {
            interval: interval.max(Duration(1)),
            origin: Instant::ZERO,
            nominal: None,
            fired: None,
        }
    }

    /// The first tick at or after `t` (ns, fractional).
    fn tick_at_or_after(&self, t: f64) -> Instant {
        let since = (t - self.origin.0 as f64).max(0.0);
        let k = (since / self.interval.0 as f64).ceil() as u64;
        self.origin + Duration(k * self.interval.0)
    }
}

impl SendingEngine for Tick {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.origin = now;
        self.nominal = Some(Nominal::start(now, rate));
        self.fired = None;
    }
    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        if let Some(n) = &mut self.nominal {
            n.set_rate(rate);
        }
    }
    fn poll_timeout(&self) -> Option<Instant> {
        let n = self.nominal?;
        let t = self.tick_at_or_after(n.next_ns);
        Some(match self.fired {
            Some(f) if t <= f => f + self.interval,
            _ => t,
        })
    }
    fn on_timeout(&mut self, now: Instant) -> u32 {
        self.fired = Some(self.tick_at_or_after(now.0 as f64).min(now));
        self.nominal.as_mut().map_or(0, |n| n.take_owed(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Release instants when driven only by the engine's own timer.
    fn releases(e: &mut impl SendingEngine, until: Instant) -> Vec<(Instant, u32)> {
        let mut out = Vec::new();
        while let Some(t) = e.poll_timeout() {
            if t > until {
                break;
            }
            let n = e.on_timeout(t);
            if n > 0 {
                out.push((t, n));
            }
        }
        out
    }

    #[test]
    fn releases_bursts_of_rate_times_tick_at_tick_instants() {
        let mut e = Tick::new(Duration::from_millis(50));
        e.start(Instant(0), PacketRate(1000.0));
        let r = releases(&mut e, Instant(200_000_000));
        // t = 0: the first Interest; then every 50 ms the 50 owed since the previous tick
        assert_eq!(
            r,
            vec![
                (Instant(0), 1),
                (Instant(50_000_000), 50),
                (Instant(100_000_000), 50),
                (Instant(150_000_000), 50),
                (Instant(200_000_000), 50)
            ]
        );
    }

    #[test]
    fn ticks_are_aligned_to_the_start_and_skip_idle_ticks() {
        let mut e = Tick::new(Duration::from_millis(10));
        e.start(Instant(3_000_000), PacketRate(40.0)); // one Interest per 25 ms
        let r = releases(&mut e, Instant(100_000_000));
        let times: Vec<u64> = r.iter().map(|(t, _)| t.0 / 1_000_000).collect();
        assert_eq!(
            times,
            vec![3, 33, 53, 83, 103]
                .into_iter()
                .filter(|&t| t <= 100)
                .collect::<Vec<_>>()
        );
        assert!(r.iter().all(|&(_, n)| n == 1));
    }

    #[test]
    fn the_timer_is_armed_for_the_first_tick_at_or_after_the_next_nominal_time() {
        // one Interest per 25 ms on a 10 ms clock started at 3 ms: nominal 28 ms → tick 33 ms,
        // never an idle wake-up at 23 ms that releases nothing
        let mut e = Tick::new(Duration::from_millis(10));
        e.start(Instant(3_000_000), PacketRate(40.0));
        assert_eq!(e.on_timeout(Instant(3_000_000)), 1);
        assert_eq!(e.poll_timeout(), Some(Instant(33_000_000)));
        let mut wakes = 0;
        while let Some(t) = e.poll_timeout() {
            if t > Instant(1_000_000_000) {
                break;
            }
            wakes += 1;
            assert_eq!(e.on_timeout(t), 1, "woken at {t:?} for nothing");
        }
        assert_eq!(wakes, 39); // one per Interest: nominal 28 + 25k ms ≤ 1 s, k = 0..=38
    }

    #[test]
    fn a_rate_increase_after_a_tick_waits_for_the_next_tick() {
        // tick 10 ms at 150/s; at 12 ms the rate jumps to 1000/s: the re-spaced schedule lies
        // before 12 ms, but nothing may leave before the 20 ms tick
        let mut e = Tick::new(Duration::from_millis(10));
        e.start(Instant(0), PacketRate(150.0));
        assert_eq!(e.on_timeout(Instant(0)), 1);
        assert_eq!(e.poll_timeout(), Some(Instant(10_000_000)));
        assert_eq!(e.on_timeout(Instant(10_000_000)), 1);
        e.set_rate(Instant(12_000_000), PacketRate(1000.0));
        assert_eq!(e.poll_timeout(), Some(Instant(20_000_000)));
    }

    #[test]
    fn no_release_before_the_tick_even_if_asked() {
        let mut e = Tick::new(Duration::from_millis(100));
        e.start(Instant(0), PacketRate(100.0));
        assert_eq!(e.on_timeout(Instant(0)), 1);
        assert_eq!(e.on_receive(Instant(55_000_000)), 0);
        assert_eq!(e.poll_timeout(), Some(Instant(100_000_000)));
        assert_eq!(e.on_timeout(Instant(100_000_000)), 10);
    }
}
