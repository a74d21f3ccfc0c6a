//! Measuring the OS clock: how much later than asked a sleep returns (`ndncc clock-probe`).
//!
//! The simulator's `os` clock model replays these overshoots: "a sleep of t lasts t + t_w".

use std::time::{Duration, Instant};

/// Sleeps `requested` `count` times and returns the overshoots in nanoseconds (actual − asked).
pub fn sleep_overshoot(requested: Duration, count: usize) -> Vec<u64> {
    (0..count)
        .map(|_| {
            let t0 = Instant::now();
            std::thread::sleep(requested);
            let actual = t0.elapsed();
            actual.saturating_sub(requested).as_nanos() as u64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overshoots_are_measured() {
        let s = sleep_overshoot(Duration::from_micros(100), 20);
        assert_eq!(s.len(), 20);
        // a sleep never returns early
        assert!(s.iter().all(|&x| x < 1_000_000_000));
    }
}
