//! Clock models: when a sleeping loop actually wakes up (`sending-engines.md`, "Clock models").
//!
//! * **ideal**: a timer fires exactly when asked.
//! * **granular(t_g)**: a timer asked for t fires at the first multiple of t_g at or after t, and
//!   always after the instant it was set (a sleep never returns at once) — the seed's Linux had
//!   HZ = 1000, t_g = 1 ms.
//! * **os(t_g, waiting time)**: granular, plus a waiting time t_w ≥ 0 drawn per wake-up from a
//!   distribution (exponential, or empirical from `ndncc clock-probe` measurements): a sleep
//!   of t lasts t + t_w.
//!
//! The model is applied by the component whose loop sleeps (the consumer, for its sending
//! engine): it is part of the *host*, not of the network.

use crate::rng::RngStream;
use crate::time::{Duration, Instant};

/// A distribution of the extra waiting time of a wake-up.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitDist {
    /// Exponential with this mean.
    Exponential { mean: Duration },
    /// Empirical: sorted samples (ns); a draw picks one uniformly.
    Empirical { samples_ns: Vec<u64> },
}

impl WaitDist {
    pub fn draw(&self, rng: &mut RngStream) -> Duration {
        match self {
            WaitDist::Exponential { mean } => {
                let u = rng.uniform();
                Duration((-(1.0 - u).ln() * mean.0 as f64).round() as u64)
            }
            WaitDist::Empirical { samples_ns } => {
                if samples_ns.is_empty() {
                    return Duration::ZERO;
                }
                let i = (rng.uniform() * samples_ns.len() as f64) as usize;
                Duration(samples_ns[i.min(samples_ns.len() - 1)])
            }
        }
    }
}

/// How a host's timers behave.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum ClockModel {
    #[default]
    Ideal,
    Granular {
        tg: Duration,
    },
    Os {
        tg: Duration,
        wait: WaitDist,
        /// A window [start, end) in which wake-ups draw from another distribution (a CPU load
        /// phase, e.g. the "load" profile of `ndncc clock-probe`).
        load: Option<(Instant, Instant, WaitDist)>,
    },
}

impl ClockModel {
    /// The granularity t_g (1 ns for the ideal clock).
    pub fn granularity(&self) -> Duration {
        match self {
            ClockModel::Ideal => Duration(1),
            ClockModel::Granular { tg } | ClockModel::Os { tg, .. } => *tg,
        }
    }

    /// When a timer set at `now` for the instant `requested` fires.
    pub fn fire_time(&self, now: Instant, requested: Instant, rng: &mut RngStream) -> Instant {
        match self {
            ClockModel::Ideal => requested.max(now),
            ClockModel::Granular { tg } => granular(now, requested, *tg),
            ClockModel::Os { tg, wait, load } => {
                let fire = granular(now, requested, *tg);
                let dist = match load {
                    Some((start, end, w)) if fire >= *start && fire < *end => w,
                    _ => wait,
                };
                fire + dist.draw(rng)
            }
        }
    }
}

fn granular(now: Instant, requested: Instant, tg: Duration) -> Instant {
    let g = tg.0.max(1);
    let t = requested.0.max(now.0);
    let mut fire = t.div_ceil(g) * g;
    if fire <= now.0 {
        fire += g;
    }
    Instant(fire)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    #[test]
    fn granular_rounds_up_to_the_next_tick_and_never_fires_at_once() {
        let c = ClockModel::Granular {
            tg: Duration(1_000_000),
        };
        let mut rng = RngStream::new(1, 0, StreamKind::App, 0);
        assert_eq!(
            c.fire_time(Instant(0), Instant(1), &mut rng),
            Instant(1_000_000)
        );
        assert_eq!(
            c.fire_time(Instant(0), Instant(2_000_000), &mut rng),
            Instant(2_000_000)
        );
        // a zero-length sleep at a tick ends at the next tick
        assert_eq!(
            c.fire_time(Instant(3_000_000), Instant(3_000_000), &mut rng),
            Instant(4_000_000)
        );
        assert_eq!(
            c.fire_time(Instant(5), Instant(0), &mut rng),
            Instant(1_000_000)
        );
    }

    #[test]
    fn os_clock_adds_a_waiting_time_with_the_given_mean() {
        let c = ClockModel::Os {
            tg: Duration(1),
            wait: WaitDist::Exponential {
                mean: Duration(50_000),
            },
            load: None,
        };
        let mut rng = RngStream::new(1, 0, StreamKind::App, 0);
        let n = 20_000;
        let total: u64 = (0..n)
            .map(|_| c.fire_time(Instant(0), Instant(1_000_000), &mut rng).0 - 1_000_000)
            .sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 50_000.0).abs() < 2_000.0, "{mean}");
        let e = WaitDist::Empirical {
            samples_ns: vec![10, 20, 30],
        };
        for _ in 0..100 {
            assert!([10, 20, 30].contains(&e.draw(&mut rng).0));
        }
    }

    #[test]
    fn a_load_window_switches_the_waiting_time_distribution() {
        let c = ClockModel::Os {
            tg: Duration(1),
            wait: WaitDist::Empirical {
                samples_ns: vec![5],
            },
            load: Some((
                Instant(1_000),
                Instant(2_000),
                WaitDist::Empirical {
                    samples_ns: vec![500],
                },
            )),
        };
        let mut rng = RngStream::new(1, 0, StreamKind::App, 0);
        assert_eq!(
            c.fire_time(Instant(0), Instant(100), &mut rng),
            Instant(105)
        );
        assert_eq!(
            c.fire_time(Instant(0), Instant(1_500), &mut rng),
            Instant(2_000)
        );
        assert_eq!(
            c.fire_time(Instant(0), Instant(2_000), &mut rng),
            Instant(2_005)
        );
    }
}
