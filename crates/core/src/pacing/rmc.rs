//! The Rate Mismatch Controller (seed 003 §IV): integral control of the data owed.
//!
//! A loop wakes every Ts and, at wake-up k (time t_k):
//!
//! ```text
//! d_c += r(t_k) · (t_k − t_{k−1})      data owed so far (backward Euler)
//! to_send = kr · (d_c − d_e)           proportional on the data mismatch = integral on rate
//! send whole packets while their total ≤ to_send
//! d_e += what was sent
//! ```
//!
//! Stable iff 0 < kr < 2 (the error's pole is 1 − kr); any stable kr rejects a step
//! disturbance (a stall, a rate step); kr = 1 is the seed's recommended value. Amounts are in
//! packets here (the seed's bytes divided by the packet size).

use super::SendingEngine;
use crate::time::{Duration, Instant, PacketRate};

#[derive(Clone, Debug)]
pub struct Rmc {
    /// kr: the controller gain, 0 < kr < 2.
    pub kr: f64,
    /// Ts: the period of the loop.
    pub period: Duration,
    rate: f64,
    /// d_c: packets owed since the start.
    owed: f64,
    /// d_e: packets sent since the start.
    sent: f64,
    last: Instant,
    next_wake: Option<Instant>,
}

impl Rmc {
    pub fn new(kr: f64, period: Duration) -> Self {
        Rmc {
            kr,
            period: period.max(Duration(1)),
            rate: 0.0,
            owed: 0.0,
            sent: 0.0,
            last: Instant::ZERO,
            next_wake: None,
        }
    }

    /// d_c − d_e: the data mismatch in packets.
    pub fn mismatch(&self) -> f64 {
        self.owed - self.sent
    }
}

/// One step of the linear controller on the mismatch e = d_c − d_e: owed `inflow` packets
/// arrive, `kr·e` are sent (fractions allowed, and negative amounts: the unconstrained loop
/// whose pole is 1 − kr). Returns the new mismatch. (The stability tests' model of the loop.)
#[cfg(test)]
pub fn linear_step(e: f64, inflow: f64, kr: f64) -> f64 {
    let e = e + inflow;
    e - kr * e
}

impl SendingEngine for Rmc {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.rate = rate.0;
        self.owed = 1.0; // the first packet is owed at once, as with every engine
        self.sent = 0.0;
        self.last = now;
        self.next_wake = Some(now);
    }

    fn set_rate(&mut self, _now: Instant, rate: PacketRate) {
        // d_c uses r(t_k) at the next wake-up (backward Euler)
        self.rate = rate.0;
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.next_wake
    }

    fn on_timeout(&mut self, now: Instant) -> u32 {
        if self.next_wake.is_none() {
            return 0;
        }
        self.owed += self.rate * (now - self.last).as_secs_f64();
        self.last = now;
        let to_send = self.kr * self.mismatch();
        let n = to_send.max(0.0).floor() as u32;
        self.sent += n as f64;
        self.next_wake = Some(now + self.period);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacing::clock::{ClockModel, WaitDist};
    use crate::pacing::rfc3448::tests::drive;

    const MS: u64 = 1_000_000;

    #[test]
    fn holds_the_rate_on_a_coarse_noisy_clock() {
        // 41 666.7 packets/s (500 Mbps of 1500 B) on a 1 ms clock with 0.2 ms mean extra wait
        let r = 500e6 / (8.0 * 1500.0);
        let mut e = Rmc::new(1.0, Duration(MS));
        e.start(Instant(0), PacketRate(r));
        let clock = ClockModel::Os {
            tg: Duration(MS),
            wait: WaitDist::Exponential {
                mean: Duration(200_000),
            },
            load: None,
        };
        let out = drive(&mut e, &clock, Instant(2_000 * MS));
        let sent: u64 = out.iter().map(|&(_, n)| n as u64).sum();
        let err = (r * 2.0 - sent as f64).abs() / (r * 2.0);
        assert!(err < 0.001, "relative error {err}");
    }

    #[test]
    fn rejects_a_stall_for_every_stable_gain() {
        for kr in [0.1, 0.2, 0.5, 1.0, 1.5, 1.9] {
            let mut e = Rmc::new(kr, Duration(MS));
            e.start(Instant(0), PacketRate(10_000.0));
            let mut now = Instant(0);
            let mut sent = 0u64;
            for k in 0..3000u64 {
                // a 50 ms stall at 100 ms: the loop is not woken
                if (100..150).contains(&k) {
                    continue;
                }
                now = Instant(k * MS);
                sent += e.on_timeout(now) as u64;
            }
            let owed = 10_000.0 * now.as_secs_f64();
            // the backlog of the stall is repaid: the mismatch returns to its steady value
            assert!(
                e.mismatch() < 10.0 / kr + 2.0,
                "kr={kr}: mismatch {}",
                e.mismatch()
            );
            assert!((owed - sent as f64).abs() < 10.0 / kr + 3.0, "kr={kr}");
        }
    }

    /// The engine itself (not the linear model) on a rate step: 100 packets per period, up to
    /// 1000 at period 100, woken exactly every Ts = 1 ms. Returns the packets sent per period
    /// from the step on. (A step up: a step down with kr > 1 asks for negative sends, which the
    /// engine clamps at 0, so only the step up shows the linear loop's pole 1 − kr.)
    fn step_response(kr: f64) -> Vec<u32> {
        let mut e = Rmc::new(kr, Duration(MS));
        e.start(Instant(0), PacketRate(100_000.0));
        e.on_timeout(Instant(0));
        let mut after = Vec::new();
        for k in 1..400u64 {
            let now = Instant(k * MS);
            if k == 100 {
                e.set_rate(now, PacketRate(1_000_000.0));
            }
            let n = e.on_timeout(now);
            if k >= 100 {
                after.push(n);
            }
        }
        after
    }

    /// Periods after the step until the sends stay within ±5 % of the new rate (1000 per
    /// period), and whether they overshoot it by more than 5 % (oscillation).
    fn settling(kr: f64) -> (usize, bool) {
        let sent = step_response(kr);
        let off = |n: u32| (n as f64 - 1000.0).abs() > 50.0;
        let settle = sent.iter().rposition(|&n| off(n)).map_or(0, |i| i + 1);
        (settle, sent.iter().any(|&n| n as f64 > 1050.0))
    }

    #[test]
    fn the_engine_settles_a_rate_step_as_its_gain_says() {
        // the sends' error decays as (1 − kr)^k from −900 packets: within 50 packets after
        // ⌈ln(50/900) / ln|1 − kr|⌉ periods; alternating in sign (overshoot) for kr > 1
        for kr in [0.1, 0.2, 0.4, 0.6, 0.8, 1.2, 1.4, 1.6, 1.8, 1.9] {
            let (settle, overshoot) = settling(kr);
            let theory = ((50.0f64 / 900.0).ln() / (1.0 - kr).abs().ln()).ceil() as usize;
            assert!(
                settle.abs_diff(theory) <= 1 + theory / 20, // whole packets only
                "kr={kr}: settled after {settle} periods, theory {theory}"
            );
            assert_eq!(overshoot, kr > 1.0, "kr={kr}: oscillates iff kr > 1");
        }
        assert_eq!(
            settling(1.0),
            (0, false),
            "kr = 1 sends the new rate at once"
        );
    }

    #[test]
    fn the_linear_loop_is_stable_below_two_and_diverges_from_two_on() {
        for (kr, stable) in [
            (0.2, true),
            (1.0, true),
            (1.8, true),
            (2.0, false),
            (2.3, false),
        ] {
            let mut e = 100.0; // a step disturbance
            for _ in 0..200 {
                e = linear_step(e, 0.0, kr);
            }
            assert_eq!(e.abs() < 1e-3, stable, "kr={kr}: e={e}");
        }
    }

    #[test]
    fn settling_is_fastest_at_kr_one_and_oscillates_above() {
        // steps until |e| < 5 % of the disturbance
        let settle = |kr: f64| {
            let mut e = 1.0f64;
            let mut sign_changes = 0;
            for k in 0..10_000 {
                let next = linear_step(e, 0.0, kr);
                if next.signum() != e.signum() && next != 0.0 {
                    sign_changes += 1;
                }
                e = next;
                if e.abs() < 0.05 {
                    return (k + 1, sign_changes);
                }
            }
            (10_000, sign_changes)
        };
        let (s02, _) = settle(0.2);
        let (s1, _) = settle(1.0);
        let (s18, osc18) = settle(1.8);
        assert!(s02 > s1 && s18 > s1, "{s02} {s1} {s18}");
        assert!(osc18 > 0);
    }
}
