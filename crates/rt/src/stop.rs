//! Stopping an event loop (the daemon's, the SDN controller's): on SIGINT / SIGTERM, through a
//! self-pipe registered with the loop's `mio::Poll`, or from another thread through a
//! [`StopHandle`] that sets the loop's flag and wakes it.

use mio::{Interest as Ready, Poll, Token, Waker};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Stops a running loop from another thread.
#[derive(Clone, Debug)]
pub struct StopHandle {
    flag: Arc<AtomicBool>,
    waker: Arc<Waker>,
}

impl StopHandle {
    /// A handle on the loop's stop flag and its waker.
    pub fn new(flag: Arc<AtomicBool>, waker: Arc<Waker>) -> StopHandle {
        StopHandle { flag, waker }
    }

    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
    }
}

/// Makes SIGINT and SIGTERM readable events of `token` on `poll` (the loop then sets its stop
/// flag). The pipe's read end lives as long as the process.
pub fn on_signals(poll: &Poll, token: Token) -> Result<(), String> {
    let err = |what: &str, e: std::io::Error| format!("{what}: {e}");
    let (read, write) =
        std::os::unix::net::UnixStream::pair().map_err(|e| err("signal pipe", e))?;
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let w = write.try_clone().map_err(|e| err("signal pipe", e))?;
        signal_hook::low_level::pipe::register(sig, w).map_err(|e| err("signal", e))?;
    }
    read.set_nonblocking(true)
        .map_err(|e| err("signal pipe", e))?;
    let mut r = mio::net::UnixStream::from_std(read);
    poll.registry()
        .register(&mut r, token, Ready::READABLE)
        .map_err(|e| err("register", e))?;
    std::mem::forget(r);
    Ok(())
}
