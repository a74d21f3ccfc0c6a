//! A real consumer's time series: Interests sent, Data received and Data bytes per bin of wall
//! time since the app started, the same quantities as the simulator's `app_series`
//! (`ndncc emulate` compares the two bin by bin).

use serde::Serialize;

/// Counts per bin; bin `k` covers `[k·bin_s, (k+1)·bin_s)` seconds after the app started.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AppSeries {
    /// Bin width, seconds.
    pub bin_s: f64,
    /// Interests sent (retransmissions included) per bin.
    pub interests: Vec<u64>,
    /// Data received per bin.
    pub data: Vec<u64>,
    /// Data wire bytes received per bin.
    pub data_bytes: Vec<u64>,
}

/// The most bins kept (a run longer than this many bins adds to the last one): 10^6 bins of
/// three u64 are 24 MB, far above any run `ndncc emulate` makes.
pub const MAX_BINS: usize = 1_000_000;

impl AppSeries {
    /// An empty series of `bin_ns`-wide bins (`bin_ns` > 0).
    pub fn new(bin_ns: u64) -> AppSeries {
        AppSeries {
            bin_s: bin_ns as f64 / 1e9,
            ..AppSeries::default()
        }
    }

    fn bin(&mut self, t_ns: u64) -> usize {
        let bin_ns = (self.bin_s * 1e9).round().max(1.0) as u64;
        let k = ((t_ns / bin_ns) as usize).min(MAX_BINS - 1);
        if self.data.len() <= k {
            self.interests.resize(k + 1, 0);
            self.data.resize(k + 1, 0);
            self.data_bytes.resize(k + 1, 0);
        }
        k
    }

    /// `n` Interests sent at `t_ns`.
    pub fn add_interests(&mut self, t_ns: u64, n: u64) {
        let k = self.bin(t_ns);
        self.interests[k] += n;
    }

    /// `n` Data of `bytes` wire bytes in all received at `t_ns`.
    pub fn add_data(&mut self, t_ns: u64, n: u64, bytes: u64) {
        let k = self.bin(t_ns);
        self.data[k] += n;
        self.data_bytes[k] += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_land_in_their_bins() {
        let mut s = AppSeries::new(5_000_000); // 5 ms
        s.add_interests(0, 2);
        s.add_data(4_999_999, 1, 1300);
        s.add_data(5_000_000, 2, 2600);
        s.add_interests(12_000_000, 1);
        assert_eq!(s.bin_s, 0.005);
        assert_eq!(s.interests, vec![2, 0, 1]);
        assert_eq!(s.data, vec![1, 2, 0]);
        assert_eq!(s.data_bytes, vec![1300, 2600, 0]);
    }
}
