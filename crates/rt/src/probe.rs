//! How much later than asked a bare sleep returns.
//!
//! `ndncc clock-probe` calibrates the simulator's `os` clock on the waiting times of a *sender*
//! (the send loop's `trace_waits`); a thread that only sleeps is measured too, as a reference:
//! under CPU load the scheduler wakes it far more promptly than a thread that also sends.

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
