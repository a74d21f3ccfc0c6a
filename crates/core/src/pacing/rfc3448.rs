//! The RFC 3448 send loop (RFC 3448 §4.6, RFC 5348 §4.6; seed 003 Algorithm 1).
//!
//! Packet k is due at the nominal time t_k; t_{k+1} = t_k + t_ipi with t_ipi = 1/r (stepping
//! from the nominal time, not the actual one). Woken at t_now, the loop sends if
//! t_now > t_{k+1} − δ, δ = min(t_ipi/2, t_g/2), else sleeps until t_{k+1}. `t_g` is the
//! granularity of the clock the loop sleeps on.
//!
//! * `burst = false` ("No bursts"): one packet per wake-up, even when t_ipi < t_g — after
//!   each packet the loop sleeps again, so on a coarse clock it falls behind the rate.
//! * `burst = true` ("Bursts"): when t_ipi < t_g, every wake-up sends all the packets whose
//!   nominal time has passed (b = r·t_g bytes' worth per tick).
//!
//! Optional cap: never owe more than `max_owed` packets (a long stall then cannot release an
//! unbounded burst; the nominal schedule skips ahead instead).

use super::{Nominal, SendingEngine};
use crate::time::{Duration, Instant, PacketRate};

#[derive(Clone, Debug)]
pub struct Rfc3448 {
    pub burst: bool,
    /// t_g: granularity of the sleeping clock.
    pub granularity: Duration,
    /// Never owe more than this many packets (`None`: no cap).
    pub max_owed: Option<u32>,
    nominal: Option<Nominal>,
    /// The last wake-up: the loop always sleeps at least once between two wake-ups.
    last_wake: Option<Instant>,
}

impl Rfc3448 {
    pub fn new(burst: bool, granularity: Duration) -> Self {
        Rfc3448 {
            burst,
            granularity,
            max_owed: None,
            nominal: None,
            last_wake: None,
        }
    }

    /// δ = min(t_ipi / 2, t_g / 2), in ns.
    fn delta_ns(&self, n: &Nominal) -> f64 {
        (n.interval_ns / 2.0).min(self.granularity.0 as f64 / 2.0)
    }
}

impl SendingEngine for Rfc3448 {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.nominal = Some(Nominal::start(now, rate));
        self.last_wake = None;
    }

    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        if let Some(n) = &mut self.nominal {
            n.set_rate(rate);
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let n = self.nominal?;
        let due = n.next_instant();
        // a sleep always ends after the wake-up that asked for it
        Some(match self.last_wake {
            Some(w) if due <= w => w + Duration(1),
            _ => due,
        })
    }

    fn on_timeout(&mut self, now: Instant) -> u32 {
        let delta = match &self.nominal {
            Some(n) => self.delta_ns(n),
            None => return 0,
        };
        self.last_wake = Some(now);
        let n = self.nominal.as_mut().expect("started");
        if let Some(cap) = self.max_owed {
            let behind = (now.0 as f64 - n.next_ns) / n.interval_ns;
            if behind > cap as f64 {
                n.next_ns += (behind - cap as f64).floor() * n.interval_ns;
            }
        }
        if (now.0 as f64) <= n.next_ns - delta {
            return 0;
        }
        if self.burst && n.interval_ns < self.granularity.0 as f64 {
            // every packet due by now (within δ) leaves in this wake-up; the δ rule said at
            // least the next one does, which then moves the schedule on like any other
            match n.take_owed(Instant((now.0 as f64 + delta).ceil() as u64)) {
                0 => {
                    n.next_ns += n.interval_ns;
                    1
                }
                k => k,
            }
        } else {
            n.next_ns += n.interval_ns;
            1
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pacing::clock::ClockModel;
    use crate::rng::{RngStream, StreamKind};

    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;

    /// Runs the engine on a clock model until `until`; returns (send instant, packets) pairs.
    pub(crate) fn drive(
        e: &mut impl SendingEngine,
        clock: &ClockModel,
        until: Instant,
    ) -> Vec<(Instant, u32)> {
        let mut rng = RngStream::new(1, 0, StreamKind::App, 0);
        let mut now = Instant(0);
        // the loop starts awake: the first wake-up is the start itself
        let first = e.on_timeout(now);
        let mut out = if first > 0 {
            vec![(now, first)]
        } else {
            Vec::new()
        };
        while let Some(req) = e.poll_timeout() {
            let t = clock.fire_time(now, req, &mut rng);
            if t > until {
                break;
            }
            now = t;
            let n = e.on_timeout(now);
            if n > 0 {
                out.push((now, n));
            }
        }
        out
    }

    #[test]
    fn bursts_never_send_a_nominal_packet_twice() {
        // a spacing with a fraction of a ns: the next nominal time can fall between the wake-up
        // + δ rounded down and the exact value
        let mut e = Rfc3448::new(true, Duration(MS));
        e.start(Instant(0), PacketRate(1e9 / 10_000.3));
        let sent: u32 = [0, 60_002, 65_002, 70_003]
            .iter()
            .map(|&t| e.on_timeout(Instant(t)))
            .sum();
        // owed by 70 003 ns + δ (5 000.15 ns): nominal times 0, 10 000.3, …, 70 002.1
        assert_eq!(sent, 8);
    }

    #[test]
    fn on_an_exact_clock_packets_leave_at_their_nominal_times() {
        let mut e = Rfc3448::new(false, Duration(1));
        e.start(Instant(0), PacketRate(1000.0));
        let r = drive(&mut e, &ClockModel::Ideal, Instant(3 * MS));
        assert_eq!(
            r,
            vec![
                (Instant(0), 1),
                (Instant(MS), 1),
                (Instant(2 * MS), 1),
                (Instant(3 * MS), 1)
            ]
        );
    }

    #[test]
    fn the_delta_rule_sends_early_within_half_the_granularity() {
        // t_ipi = 1.5 ms, t_g = 1 ms: δ = 0.5 ms. The loop asks to wake at 1.5 ms; a 1 ms clock
        // wakes it at 2 ms (> 1.5 − 0.5): send. Next due 3 ms: woken at exactly 3 ms: send.
        // Next due 4.5 ms: woken at 5 ms: send; so packets leave at ticks, never more than one
        // tick late, and the schedule keeps its nominal spacing.
        let mut e = Rfc3448::new(false, Duration(MS));
        e.start(Instant(0), PacketRate(1000.0 / 1.5));
        let r = drive(
            &mut e,
            &ClockModel::Granular { tg: Duration(MS) },
            Instant(9 * MS),
        );
        let times: Vec<u64> = r.iter().map(|(t, _)| t.0 / US).collect();
        assert_eq!(times, vec![0, 2000, 3000, 5000, 6000, 8000, 9000]);
        // a wake-up earlier than t − δ sends nothing
        let mut e = Rfc3448::new(false, Duration(MS));
        e.start(Instant(0), PacketRate(100.0)); // t_ipi = 10 ms, δ = 0.5 ms
        assert_eq!(e.on_timeout(Instant(0)), 1);
        assert_eq!(e.on_timeout(Instant(9_400 * US)), 0);
        assert_eq!(e.on_timeout(Instant(9_600 * US)), 1);
    }

    #[test]
    fn without_bursts_a_coarse_clock_caps_the_rate_at_one_packet_per_tick() {
        // 10 000 packets/s on a 1 ms clock: one packet per wake-up = 1 000/s (90 % error)
        let mut e = Rfc3448::new(false, Duration(MS));
        e.start(Instant(0), PacketRate(10_000.0));
        let r = drive(
            &mut e,
            &ClockModel::Granular { tg: Duration(MS) },
            Instant(100 * MS),
        );
        let sent: u32 = r.iter().map(|(_, n)| n).sum();
        assert_eq!(sent, 101);
    }

    #[test]
    fn with_bursts_a_coarse_clock_sends_the_owed_packets_each_tick() {
        let mut e = Rfc3448::new(true, Duration(MS));
        e.start(Instant(0), PacketRate(10_000.0));
        let r = drive(
            &mut e,
            &ClockModel::Granular { tg: Duration(MS) },
            Instant(100 * MS),
        );
        let sent: u32 = r.iter().map(|(_, n)| n).sum();
        assert!((999..=1006).contains(&sent), "{sent}");
        assert!(r.iter().skip(1).all(|&(_, n)| (9..=11).contains(&n)));
    }
}
