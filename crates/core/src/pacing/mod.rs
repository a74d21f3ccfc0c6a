//! Sending engines: turn a controller's rate into the instants at which Interests leave.
//!
//! Common model (`../shared/specs/sending-engines.md`): the engine keeps a nominal schedule
//! t_k = t_{k−1} + 1/r; an Interest is *owed* once its nominal time has passed, and the engine
//! releases owed Interests at its send opportunities. When r changes, the next nominal time is
//! recomputed from the last one. One file per engine.

pub mod clock;
pub mod ideal;
pub mod randomized;
pub mod rfc3448;
pub mod rmc;
pub mod smoothing;
pub mod tick;

use crate::time::{Instant, PacketRate};
pub use clock::{ClockModel, WaitDist};
pub use ideal::Ideal;
pub use randomized::{GapDist, Randomized};
pub use rfc3448::Rfc3448;
pub use rmc::Rmc;
pub use smoothing::Smoothing;
pub use tick::Tick;

/// The contract of a sending engine (sans-IO, like every component).
pub trait SendingEngine {
    /// The consumer starts sending at `now` with rate `rate`: the first Interest is owed at `now`.
    fn start(&mut self, now: Instant, rate: PacketRate);
    /// The controller changed the rate.
    fn set_rate(&mut self, now: Instant, rate: PacketRate);
    /// When the engine next wants to be woken (its timer).
    fn poll_timeout(&self) -> Option<Instant>;
    /// The engine's timer fired at `now`: how many Interests to release now.
    fn on_timeout(&mut self, now: Instant) -> u32;
    /// A Data or Nack was just processed (a receive interrupt, no timer): how many Interests to
    /// release now. Engines without smoothing release none here.
    fn on_receive(&mut self, _now: Instant) -> u32 {
        0
    }
}

/// The nominal schedule t_k shared by every engine, in fractional nanoseconds so long runs do
/// not drift.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Nominal {
    /// Nominal time of the next Interest (ns).
    pub next_ns: f64,
    /// Current spacing 1/r (ns).
    pub interval_ns: f64,
}

/// The spacing of a rate, kept finite and positive: a zero, negative or NaN rate means one
/// packet per ~30 years, an infinite one a packet per nanosecond (scenarios never give either;
/// a custom controller might).
pub(crate) fn safe_interval_ns(rate: PacketRate) -> f64 {
    let r = rate.0;
    if r.is_nan() || r <= 0.0 {
        1e18
    } else {
        rate.interval_ns().clamp(1.0, 1e18)
    }
}

impl Nominal {
    pub fn start(now: Instant, rate: PacketRate) -> Self {
        Nominal {
            next_ns: now.0 as f64,
            interval_ns: safe_interval_ns(rate),
        }
    }

    /// Re-spaces the next nominal time from the last one: t_next = t_last + 1/r_new.
    pub fn set_rate(&mut self, rate: PacketRate) {
        let last = self.next_ns - self.interval_ns;
        self.interval_ns = safe_interval_ns(rate);
        self.next_ns = last + self.interval_ns;
    }

    /// The instant of the next nominal time (rounded up to the nanosecond).
    pub fn next_instant(&self) -> Instant {
        Instant(self.next_ns.max(0.0).ceil() as u64)
    }

    /// Counts and consumes the nominal times at or before `now`.
    pub fn take_owed(&mut self, now: Instant) -> u32 {
        let t = now.0 as f64;
        let mut n = 0;
        while self.next_ns <= t {
            n += 1;
            self.next_ns += self.interval_ns;
        }
        n
    }
}

/// The sending engine of a consumer, dispatched by `match`.
#[derive(Clone, Debug)]
pub enum Engine {
    Ideal(Ideal),
    Randomized(Randomized),
    Tick(Tick),
    Smoothing(Smoothing),
    Rfc3448(Rfc3448),
    Rmc(Rmc),
}

impl Engine {
    fn inner(&self) -> &dyn SendingEngine {
        match self {
            Engine::Ideal(e) => e,
            Engine::Randomized(e) => e,
            Engine::Tick(e) => e,
            Engine::Smoothing(e) => e,
            Engine::Rfc3448(e) => e,
            Engine::Rmc(e) => e,
        }
    }
    fn inner_mut(&mut self) -> &mut dyn SendingEngine {
        match self {
            Engine::Ideal(e) => e,
            Engine::Randomized(e) => e,
            Engine::Tick(e) => e,
            Engine::Smoothing(e) => e,
            Engine::Rfc3448(e) => e,
            Engine::Rmc(e) => e,
        }
    }
}

impl SendingEngine for Engine {
    fn start(&mut self, now: Instant, rate: PacketRate) {
        self.inner_mut().start(now, rate)
    }
    fn set_rate(&mut self, now: Instant, rate: PacketRate) {
        self.inner_mut().set_rate(now, rate)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.inner().poll_timeout()
    }
    fn on_timeout(&mut self, now: Instant) -> u32 {
        self.inner_mut().on_timeout(now)
    }
    fn on_receive(&mut self, now: Instant) -> u32 {
        self.inner_mut().on_receive(now)
    }
}
