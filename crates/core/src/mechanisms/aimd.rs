//! Additive-increase / multiplicative-decrease of a rate, with optional suppression of repeated
//! reductions within one congestion event.

use crate::time::Instant;

#[derive(Clone, Debug, PartialEq)]
pub struct AimdRate {
    /// Current rate (Interests/s).
    pub rate: f64,
    /// Lower bound (seed 002: 1/s).
    pub min: f64,
    /// Upper bound: the line rate in Data packets/s.
    pub max: f64,
    /// Added per increase event (seed 002: +1 per Data).
    pub increase: f64,
    /// Factor per decrease event (seed 002: ½ per Nack).
    pub decrease: f64,
    /// Ignore decreases for Interests sent before the last reduction (one reduction per
    /// congestion event, Kato & Bandai's "new SF").
    pub suppression: bool,
    last_reduction: Option<Instant>,
}

impl AimdRate {
    pub fn new(rate: f64, min: f64, max: f64, increase: f64, decrease: f64) -> Self {
        AimdRate {
            rate: rate.clamp(min, max.max(min)),
            min,
            max: max.max(min),
            increase,
            decrease,
            suppression: false,
            last_reduction: None,
        }
    }

    /// r ← min(r + increase, max).
    pub fn on_increase(&mut self) {
        self.rate = (self.rate + self.increase).min(self.max);
    }

    /// r ← max(r · decrease, min), unless suppressed: with suppression on, a congestion signal
    /// about an Interest sent before the last reduction belongs to the same event and is
    /// ignored. Returns true if the rate was reduced.
    pub fn on_decrease(&mut self, now: Instant, sent: Option<Instant>) -> bool {
        if self.suppression {
            if let (Some(t_red), Some(sent)) = (self.last_reduction, sent) {
                if sent < t_red {
                    return false;
                }
            }
        }
        self.rate = (self.rate * self.decrease).max(self.min);
        self.last_reduction = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additive_increase_multiplicative_decrease_within_bounds() {
        let mut a = AimdRate::new(200.0, 1.0, 1000.0, 1.0, 0.5);
        a.on_increase();
        assert_eq!(a.rate, 201.0);
        for _ in 0..2000 {
            a.on_increase();
        }
        assert_eq!(a.rate, 1000.0);
        for _ in 0..20 {
            a.on_decrease(Instant(0), None);
        }
        assert_eq!(a.rate, 1.0);
    }

    #[test]
    fn suppression_keeps_one_reduction_per_event() {
        let mut a = AimdRate::new(800.0, 1.0, 1000.0, 1.0, 0.5);
        a.suppression = true;
        assert!(a.on_decrease(Instant(100), Some(Instant(50))));
        // the same burst: sent before the reduction
        assert!(!a.on_decrease(Instant(101), Some(Instant(60))));
        assert_eq!(a.rate, 400.0);
        // a later Interest: a new event
        assert!(a.on_decrease(Instant(300), Some(Instant(200))));
        assert_eq!(a.rate, 200.0);
    }
}
