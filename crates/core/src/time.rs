//! Integer-nanosecond time. The core never reads a clock: every method that needs the time takes
//! `now: Instant` from its driver (the simulator's virtual clock or the OS clock).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in time, in nanoseconds since the driver's epoch (simulation start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(pub u64);

/// A span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Instant {
    pub const ZERO: Instant = Instant(0);
    pub const MAX: Instant = Instant(u64::MAX);

    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);

    pub const fn from_nanos(ns: u64) -> Duration {
        Duration(ns)
    }
    // the integer constructors saturate: a lifetime or freshness read off the wire can be any
    // 64-bit number, and ndnccd must not panic (or wrap) on one
    pub const fn from_micros(us: u64) -> Duration {
        Duration(us.saturating_mul(1_000))
    }
    pub const fn from_millis(ms: u64) -> Duration {
        Duration(ms.saturating_mul(1_000_000))
    }
    pub const fn from_secs(s: u64) -> Duration {
        Duration(s.saturating_mul(1_000_000_000))
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Duration {
        if s.is_nan() || s <= 0.0 {
            Duration(0)
        } else {
            Duration((s * 1e9).round() as u64)
        }
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    /// Saturating: an earlier minus a later instant is zero.
    fn sub(self, o: Instant) -> Duration {
        self.saturating_since(o)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, o: Duration) -> Duration {
        Duration(self.0.saturating_add(o.0))
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A rate in packets (Interests, Data) per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct PacketRate(pub f64);

impl PacketRate {
    pub fn per_sec(self) -> f64 {
        self.0
    }
    /// The spacing between packets at this rate, in (fractional) nanoseconds.
    pub fn interval_ns(self) -> f64 {
        1e9 / self.0
    }
}

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct BitRate(pub u64);

impl BitRate {
    /// Time to serialize `bytes` at this rate, rounded up to the next nanosecond.
    pub fn serialization(self, bytes: u32) -> Duration {
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let bps = self.0.max(1) as u128;
        Duration(bits.div_ceil(bps) as u64)
    }

    /// Packets of `bytes` per second at this rate (a link's line rate in packets).
    pub fn packets_per_sec(self, bytes: u32) -> f64 {
        self.0 as f64 / (8.0 * bytes as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_constructors_saturate() {
        // a wire lifetime of u64::MAX ms must not wrap to a short one (nor panic in debug)
        assert_eq!(Duration::from_millis(u64::MAX), Duration(u64::MAX));
        assert_eq!(Duration::from_micros(u64::MAX / 2), Duration(u64::MAX));
        assert_eq!(Duration::from_secs(u64::MAX / 3), Duration(u64::MAX));
        assert_eq!(Duration::from_millis(3), Duration(3_000_000));
    }

    #[test]
    fn serialization_is_exact_for_round_numbers() {
        assert_eq!(
            BitRate(10_000_000).serialization(1250),
            Duration::from_millis(1)
        );
        assert_eq!(
            BitRate(100_000_000).serialization(40),
            Duration::from_nanos(3200)
        );
        // 1 byte at 3 bit/s = 2.666… s, rounded up
        assert_eq!(
            BitRate(3).serialization(1),
            Duration::from_nanos(2_666_666_667)
        );
    }

    #[test]
    fn instant_arithmetic_saturates() {
        assert_eq!(Instant(5) - Instant(9), Duration::ZERO);
        assert_eq!(Instant(u64::MAX) + Duration(1), Instant::MAX);
    }
}
