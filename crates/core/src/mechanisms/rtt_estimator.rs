//! RTT estimation and retransmission timeout per RFC 6298 (α = 1/8, β = 1/4, K = 4).

use crate::time::Duration;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
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
            srtt: None,
            rttvar: 0.0,
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(1),
        }
    }
}

impl RttEstimator {
    /// Feeds one RTT sample (Karn: only from Interests sent once).
    pub fn add_sample(&mut self, rtt: Duration) {
        let r = rtt.0 as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
    }

    /// Smoothed RTT, `None` before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.map(|s| Duration(s.round() as u64))
    }

    /// Retransmission timeout: srtt + 4·rttvar, clamped to [min_rto, max_rto].
    pub fn rto(&self) -> Duration {
        match self.srtt {
            None => self.initial_rto,
            Some(s) => {
                let rto = Duration((s + 4.0 * self.rttvar).round() as u64);
                rto.max(self.min_rto).min(self.max_rto)
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
}
