//! A RED-style random early marker: an EWMA of a queue's occupancy and a marking probability
//! that grows with it (CHoPCoP's REM, seed 001 §III.A; Floyd & Jacobson's RED with the
//! "gentle" extension).
//!
//! ```text
//! q̄ ← (1 − µ)·q̄ + µ·q                                   (one sample per packet considered)
//! p(q̄) = 0                                         q̄ < q_min
//!        P_max·(q̄ − q_min)/(q_max − q_min)         q_min ≤ q̄ < q_max
//!        P_max + (1 − P_max)·(q̄ − q_max)/q_max     q_max ≤ q̄ < 2·q_max   (gentle)
//!        1                                         q̄ ≥ 2·q_max           (gentle)
//! ```
//!
//! Without `gentle`, p = 1 from q_max on (classic RED). The marker is unit-agnostic: q, q_min
//! and q_max are in the same unit (bytes or packets). Each packet is marked independently with
//! probability p, drawn from the caller's own [`RngStream`] (no count-based uniformisation).

use crate::rng::RngStream;

/// The marking curve and the queue average of one queue.
#[derive(Clone, Debug, PartialEq)]
pub struct RedMarker {
    /// µ: weight of a new sample in the average.
    pub weight: f64,
    /// q_min: no marking below it.
    pub q_min: f64,
    /// q_max: P_max at it.
    pub q_max: f64,
    /// P_max: the marking probability at q_max.
    pub p_max: f64,
    /// Gentle RED: rise linearly from P_max to 1 between q_max and 2·q_max.
    pub gentle: bool,
    /// q̄: the average occupancy (starts at 0).
    pub avg: f64,
}

impl RedMarker {
    pub fn new(weight: f64, q_min: f64, q_max: f64, p_max: f64, gentle: bool) -> Self {
        RedMarker {
            weight,
            q_min,
            q_max,
            p_max,
            gentle,
            avg: 0.0,
        }
    }

    /// q̄ ← (1 − µ)·q̄ + µ·q; returns the new q̄.
    pub fn update(&mut self, q: f64) -> f64 {
        self.avg = (1.0 - self.weight) * self.avg + self.weight * q;
        self.avg
    }

    /// The marking probability at average occupancy `avg`.
    pub fn probability_at(&self, avg: f64) -> f64 {
        if avg < self.q_min {
            0.0
        } else if avg < self.q_max {
            self.p_max * (avg - self.q_min) / (self.q_max - self.q_min)
        } else if self.gentle && avg < 2.0 * self.q_max {
            self.p_max + (1.0 - self.p_max) * (avg - self.q_max) / self.q_max
        } else {
            1.0
        }
    }

    /// The marking probability at the current average.
    pub fn probability(&self) -> f64 {
        self.probability_at(self.avg)
    }

    /// Samples occupancy `q` (before the packet joins the queue), then decides whether to
    /// mark the packet.
    pub fn on_packet(&mut self, q: f64, rng: &mut RngStream) -> bool {
        self.update(q);
        let p = self.probability();
        p >= 1.0 || rng.chance(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    /// Seed 001's curve on a 1 500 KB queue: q_min = 150 KB, q_max = 300 KB, P_max = 0.002.
    fn rem() -> RedMarker {
        RedMarker::new(0.05, 150_000.0, 300_000.0, 0.002, true)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn curve_at_each_region_boundary() {
        let r = rem();
        // below q_min: nothing
        assert_eq!(r.probability_at(0.0), 0.0);
        assert_eq!(r.probability_at(149_999.0), 0.0);
        // q_min: the linear part starts at 0
        assert_eq!(r.probability_at(150_000.0), 0.0);
        // midway to q_max: P_max / 2
        assert!(close(r.probability_at(225_000.0), 0.001));
        // just below q_max: almost P_max
        assert!(r.probability_at(299_999.0) < 0.002);
        assert!(close(
            r.probability_at(299_999.0),
            0.002 * 149_999.0 / 150_000.0
        ));
        // q_max: P_max, continuous
        assert!(close(r.probability_at(300_000.0), 0.002));
        // gentle: midway to 2·q_max
        assert!(close(r.probability_at(450_000.0), 0.002 + 0.998 * 0.5));
        assert!(r.probability_at(599_999.0) < 1.0);
        // 2·q_max and beyond: always
        assert_eq!(r.probability_at(600_000.0), 1.0);
        assert_eq!(
            r.probability_at(700_000.0),
            1.0,
            "a probability, never above 1"
        );
        assert_eq!(r.probability_at(1e9), 1.0);
    }

    #[test]
    fn without_gentle_marks_everything_from_q_max() {
        let r = RedMarker {
            gentle: false,
            ..rem()
        };
        assert!(close(
            r.probability_at(299_999.0),
            0.002 * 149_999.0 / 150_000.0
        ));
        assert_eq!(r.probability_at(300_000.0), 1.0);
    }

    #[test]
    fn average_is_an_ewma_with_weight_mu() {
        let mut r = rem();
        assert_eq!(r.update(100_000.0), 5_000.0);
        // 0.95·5 000 + 0.05·0
        assert!(close(r.update(0.0), 4_750.0));
        // 0.95·4 750 + 0.05·200 000
        assert!(close(r.update(200_000.0), 14_512.5));
        // a constant queue: q̄ converges to it
        for _ in 0..2_000 {
            r.update(400_000.0);
        }
        assert!((r.avg - 400_000.0).abs() < 1e-6);
    }

    #[test]
    fn marks_at_the_rate_of_the_curve_from_its_own_stream() {
        let mut rng = RngStream::new(1, 0, StreamKind::Node, 0);
        let mut r = rem();
        r.avg = 450_000.0;
        r.weight = 0.0; // hold q̄ where it is
        let n = 100_000;
        let marked = (0..n).filter(|_| r.on_packet(0.0, &mut rng)).count();
        let p = marked as f64 / n as f64;
        assert!((p - r.probability()).abs() < 0.01, "{p}");
        // empty queue: never; full: always
        r.avg = 0.0;
        assert!((0..1000).all(|_| !r.on_packet(0.0, &mut rng)));
        r.avg = 600_000.0;
        assert!((0..1000).all(|_| r.on_packet(0.0, &mut rng)));
    }
}
