//! Deferred destruction: freeing a large finished run on a background thread.
//!
//! At 10 000 pairs a finished run leaves ≈ 120 MB in ≈ 290 000 heap blocks (the network and the
//! parsed spec); freeing them takes ≈ 40 ms that the caller does not need to wait for.
//! [`drop_later`] moves such a value to a thread that drops it while the caller goes on (on a
//! second core, if there is one). Nothing is leaked and memory stays bounded: at most one batch
//! is pending per process — [`drop_later`] and [`settle`] first wait for the one before — so a
//! loop of runs holds at most one previous run's garbage besides its own. (A process forked
//! while a drop was under way keeps its copy of that one batch: the thread is not its own.)
//!
//! Timing: the time the background thread spends is not in the caller's wall time, but it is
//! CPU time of the process; [`settle`] waits for it and returns it, so a benchmark that wants
//! the whole CPU cost of a run (`ndncc bench`'s `cpu_s`) calls [`settle`] before reading its
//! CPU clock.

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Instant;

/// The pending background drop, if any; its thread returns the seconds it took.
static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

/// A background drop and the process that started it.
struct Pending {
    pid: u32,
    thread: JoinHandle<f64>,
}

/// The pending drop's thread, if this process started it. A process forked while a drop was
/// under way (a worker pool's `fork`) inherits the handle but not the thread: joining it fails
/// (the join panicked: a PanicException in Python), so the child forgets it (its copy of that
/// batch stays allocated, once).
fn take_own(pending: &mut Option<Pending>) -> Option<JoinHandle<f64>> {
    let p = pending.take()?;
    if p.pid == std::process::id() {
        Some(p.thread)
    } else {
        std::mem::forget(p.thread);
        None
    }
}

/// Drops `garbage` on a background thread (after waiting for the previous batch, see the
/// module's doc). If no thread can be started it is dropped here, at once.
pub fn drop_later<T: Send + 'static>(garbage: T) {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = take_own(&mut pending) {
        let _ = h.join();
    }
    // on a spawn error the closure, and with it `garbage`, is dropped here
    let thread = std::thread::Builder::new()
        .name("ndncc-free".into())
        .spawn(move || {
            let t = Instant::now();
            drop(garbage);
            t.elapsed().as_secs_f64()
        })
        .ok();
    *pending = thread.map(|thread| Pending {
        pid: std::process::id(),
        thread,
    });
}

/// Waits until the pending background drop (if any) is done; returns the seconds that drop
/// took on its thread, or `None` when nothing was pending.
pub fn settle() -> Option<f64> {
    let h = take_own(&mut PENDING.lock().unwrap_or_else(|e| e.into_inner()))?;
    h.join().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn every_batch_is_dropped_and_at_most_one_is_pending() {
        let dropped = Arc::new(AtomicUsize::new(0));
        for i in 0..5 {
            drop_later(Counted(dropped.clone()));
            // the batches before this one are dropped already: drop_later waited for them
            assert!(dropped.load(Ordering::SeqCst) >= i);
        }
        assert!(settle().is_some());
        assert_eq!(dropped.load(Ordering::SeqCst), 5);
        assert_eq!(settle(), None);
    }
}
