//! The run summary (`docs/internals.md`, "Summary (Rust part)").

use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DelayStats {
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub p50: Option<f64>,
    pub p99: Option<f64>,
}

impl DelayStats {
    /// Mean, population standard deviation and percentiles (linear interpolation between
    /// order statistics, numpy's default) of `xs`.
    pub fn of(xs: &mut [f64]) -> Self {
        if xs.is_empty() {
            return DelayStats {
                mean: None,
                std: None,
                p50: None,
                p99: None,
            };
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        xs.sort_by(|a, b| a.total_cmp(b));
        DelayStats {
            mean: Some(mean),
            std: Some(var.sqrt()),
            p50: Some(percentile(xs, 0.5)),
            p99: Some(percentile(xs, 0.99)),
        }
    }
}

/// Percentile `q` in [0, 1] of sorted `xs` (linear interpolation).
pub fn percentile(xs: &[f64], q: f64) -> f64 {
    let pos = q * (xs.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

/// Jain's fairness index (Σx)² / (n·Σx²); `None` for no values or all zeros.
pub fn jain(xs: &[f64]) -> Option<f64> {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (xs.len() as f64 * s2))
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConsumerSummary {
    pub name: String,
    pub node: String,
    pub prefix: String,
    pub interests_sent: u64,
    pub data_received: u64,
    pub nacks_received: u64,
    pub timeouts: u64,
    pub retransmissions: u64,
    pub data_bytes: u64,
    /// Data received that carried a congestion mark (counted among `data_received`).
    pub marks: u64,
    /// Distinct sequence numbers requested (chunks in chunked fetch).
    pub requested: u64,
    /// Distinct sequence numbers delivered: answered, or in chunked fetch complete.
    pub completed: u64,
    /// The most Interests the sending engine released at one instant.
    pub max_burst: u64,
    pub active_time_s: f64,
    /// Data wire bits received / active time, in Mbit/s.
    pub throughput_mbps: f64,
    /// Distinct sequence numbers delivered / distinct sequence numbers requested.
    pub delivery_ratio: Option<f64>,
    pub loss_rate: Option<f64>,
    /// Full delay (first transmission → Data) in milliseconds.
    pub delay_ms: DelayStats,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProducerSummary {
    pub name: String,
    pub node: String,
    pub prefix: String,
    pub interests_received: u64,
    pub data_sent: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FaceSummary {
    pub node: String,
    pub face: u32,
    pub descr: String,
    pub peer: Option<String>,
    pub in_interests: u64,
    pub out_interests: u64,
    pub in_data: u64,
    pub out_data: u64,
    pub in_nacks: u64,
    pub out_nacks: u64,
    pub in_bytes: u64,
    pub out_bytes: u64,
    pub out_interest_bytes: u64,
    pub out_data_bytes: u64,
    pub out_nack_bytes: u64,
    pub drops: u64,
    pub drop_bytes: u64,
    pub marks: u64,
    pub max_queue_pkts: u64,
    pub max_queue_bytes: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub run: u64,
    pub sim_time_s: f64,
    /// Events processed by the event loop.
    pub events: u64,
    /// Packets delivered across a link.
    pub packet_hops: u64,
    /// Packets lost in flight by random link loss.
    pub link_losses: u64,
    pub apps: Vec<ConsumerSummary>,
    pub producers: Vec<ProducerSummary>,
    pub faces: Vec<FaceSummary>,
    pub fairness_jain: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_match_numpy_conventions() {
        let mut xs = vec![4.0, 1.0, 3.0, 2.0];
        let s = DelayStats::of(&mut xs);
        assert_eq!(s.mean, Some(2.5));
        assert_eq!(s.p50, Some(2.5));
        assert!((s.p99.unwrap() - 3.97).abs() < 1e-12);
        assert!((s.std.unwrap() - 1.25f64.sqrt()).abs() < 1e-12);
        assert_eq!(DelayStats::of(&mut []).mean, None);
    }

    #[test]
    fn jain_index() {
        assert_eq!(jain(&[5.0, 5.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0]), Some(0.5));
        assert_eq!(jain(&[]), None);
    }
}
