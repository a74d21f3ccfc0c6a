//! RTT estimation and retransmission timeout per RFC 6298 (α = 1/8, β = 1/4, K = 4), and the
//! mean-deviation arithmetic ([`MeanDeviation`]) it shares with ndnSIM's `RttMeanDeviation`
//! ([`crate::app::ndnsim::RttMeanDeviation`]).

use crate::time::Duration;

/// SRTT's gain α (RFC 6298 and ndnSIM alike).
pub const SRTT_GAIN: f64 = 0.125;
/// The deviation's gain β (RFC 6298 and ndnSIM alike).
pub const DEVIATION_GAIN: f64 = 0.25;
/// The deviation's weight K in the RTO, SRTT + K·deviation.
pub const K: f64 = 4.0;

/// How an update is written. Both move SRTT by α and the deviation by β of the error, but
/// they round differently in the last bit, so each user keeps the form its outputs were
/// made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// RFC 6298's: x ← (1 − g)·x + g·y (the deviation first, from the old SRTT).
    Weighted,
    /// ndnSIM's `RttMeanDeviation`: x ← x + g·(y − x), with y − x the error of the old SRTT.
    Incremental,
}

/// Jacobson and Karels's mean-deviation estimator, in the unit of its samples: the first
/// sample sets SRTT to itself and the deviation to half of it; each later one moves SRTT by
/// [`SRTT_GAIN`] of the error and the deviation by [`DEVIATION_GAIN`] of (|error| −
/// deviation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanDeviation {
    form: Form,
    srtt: f64,
    deviation: f64,
    samples: u64,
}

impl MeanDeviation {
    /// No sample yet.
    pub fn new(form: Form) -> Self {
        MeanDeviation {
            form,
            srtt: 0.0,
            deviation: 0.0,
            samples: 0,
        }
    }

    /// Feeds one sample `r`.
    pub fn sample(&mut self, r: f64) {
        if self.samples == 0 {
            self.srtt = r;
            self.deviation = r / 2.0;
        } else {
            match self.form {
                Form::Weighted => {
                    self.deviation = (1.0 - DEVIATION_GAIN) * self.deviation
                        + DEVIATION_GAIN * (self.srtt - r).abs();
                    self.srtt = (1.0 - SRTT_GAIN) * self.srtt + SRTT_GAIN * r;
                }
                Form::Incremental => {
                    let err = r - self.srtt;
                    self.srtt += SRTT_GAIN * err;
                    self.deviation += DEVIATION_GAIN * (err.abs() - self.deviation);
                }
            }
        }
        self.samples += 1;
    }

    /// Samples fed since the start.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// SRTT, `None` before the first sample.
    pub fn srtt(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.srtt)
    }

    /// SRTT + K·deviation (the RTO before any clamp), `None` before the first sample.
    pub fn timeout(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.srtt + K * self.deviation)
    }
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// SRTT and RTTVAR in nanoseconds.
    est: MeanDeviation,
    /// Lower bound of the RTO (RFC 6298 says 1 s; NDN consumers commonly use 200 ms).
    pub min_rto: Duration,
    /// Upper bound of the RTO.
    pub max_rto: Duration,
    /// RTO before the first sample.
    pub initial_rto: Duration,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator {
            est: MeanDeviation::new(Form::Weighted),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(1),
        }
    }
}

impl RttEstimator {
    /// Feeds one RTT sample (Karn: only from Interests sent once).
    pub fn add_sample(&mut self, rtt: Duration) {
        self.est.sample(rtt.0 as f64);
    }

    /// Smoothed RTT, `None` before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.est.srtt().map(|s| Duration(s.round() as u64))
    }

    /// Retransmission timeout: srtt + 4·rttvar, clamped to [min_rto, max_rto].
    pub fn rto(&self) -> Duration {
        match self.est.timeout() {
            None => self.initial_rto,
            Some(t) => {
                let rto = Duration(t.round() as u64);
                rto.max(self.min_rto).min(self.max_rto)
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn follows_rfc6298() {
        let mut e = RttEstimator::default();
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.add_sample(Duration::from_millis(100));
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(e.rto(), Duration::from_millis(300));
        e.add_sample(Duration::from_millis(200));
        // rttvar = 0.75*50 + 0.25*100 = 62.5 ms; srtt = 112.5 ms
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    /// RTT-like samples in ns (1 µs to 0.5 s, many on whole milliseconds), from a fixed LCG.
    pub(crate) fn samples_ns(n: usize) -> Vec<u64> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let v = (x >> 33) % 500_000_000 + 1_000;
                if x & 1 == 0 {
                    v / 1_000_000 * 1_000_000 + 1_000_000
                } else {
                    v
                }
            })
            .collect()
    }

    /// The two forms differ in the last bit (samples 1 ms and 18 ms, in seconds): each is
    /// its own formula, so neither user's outputs move.
    #[test]
    fn the_two_forms_round_differently() {
        let (a, b) = (0.001_f64, 0.018_f64);
        let mut w = MeanDeviation::new(Form::Weighted);
        let mut i = MeanDeviation::new(Form::Incremental);
        assert_eq!((w.srtt(), w.timeout()), (None, None));
        for r in [a, b] {
            w.sample(r);
            i.sample(r);
        }
        assert_eq!((w.samples(), i.samples()), (2, 2));
        let srtt = 0.875 * a + 0.125 * b;
        let var = 0.75 * (a / 2.0) + 0.25 * (a - b).abs();
        assert_eq!(w.srtt(), Some(srtt));
        assert_eq!(w.timeout(), Some(srtt + 4.0 * var));
        let err = b - a;
        let srtt = a + 0.125 * err;
        let var = a / 2.0 + 0.25 * (err.abs() - a / 2.0);
        assert_eq!(i.srtt(), Some(srtt));
        assert_eq!(i.timeout(), Some(srtt + 4.0 * var));
        assert_ne!(w.timeout(), i.timeout(), "the forms round differently here");
    }

    /// The estimator's state, bit for bit, is RFC 6298's weighted form on samples in ns, as
    /// written before the arithmetic moved into `MeanDeviation`.
    #[test]
    fn keeps_the_weighted_form_bit_for_bit() {
        let mut e = RttEstimator::default();
        let (mut srtt, mut rttvar): (Option<f64>, f64) = (None, 0.0);
        for ns in samples_ns(5_000) {
            e.add_sample(Duration(ns));
            let r = ns as f64;
            match srtt {
                None => {
                    srtt = Some(r);
                    rttvar = r / 2.0;
                }
                Some(s) => {
                    rttvar = 0.75 * rttvar + 0.25 * (s - r).abs();
                    srtt = Some(0.875 * s + 0.125 * r);
                }
            }
            let s = srtt.unwrap();
            assert_eq!(e.est.srtt().map(f64::to_bits), Some(s.to_bits()));
            assert_eq!(
                e.est.timeout().map(f64::to_bits),
                Some((s + 4.0 * rttvar).to_bits())
            );
        }
    }
}
