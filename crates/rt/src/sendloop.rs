//! A UDP send loop paced by a sending engine on the OS clock (seed 003's experiment).
//!
//! The loop asks its engine when to wake ([`SendingEngine::poll_timeout`]), sleeps until then
//! with the OS's own timer, and sends the packets the engine releases as UDP datagrams of a
//! fixed size to a local address. A receiver thread drains a loopback socket so that the sender
//! never sees "connection refused". Bytes sent are recorded per time bin.

use ndncc_core::pacing::{Engine, SendingEngine};
use ndncc_core::{Duration, Instant, PacketRate};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A rate change at a given time since the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateStep {
    pub at: Duration,
    /// Bits per second from `at` on.
    pub bps: f64,
}

#[derive(Clone, Debug)]
pub struct SendLoopConfig {
    pub engine: Engine,
    /// The rate schedule; the first step must be at 0.
    pub rates: Vec<RateStep>,
    /// UDP payload size in bytes.
    pub packet_size: usize,
    pub duration: Duration,
    /// Where to send; `None` = a receiver this loop binds on 127.0.0.1.
    pub target: Option<SocketAddr>,
    /// Width of the recording bins.
    pub bin: Duration,
    /// Also record every wake-up that sent something: (time since start, packets).
    pub trace_wakes: bool,
    /// Also record every wake-up's waiting time (see [`SendLoopResult::waits`]).
    pub trace_waits: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SendLoopResult {
    /// Bytes handed to the socket in each bin.
    pub bin_bytes: Vec<u64>,
    pub packets: u64,
    pub bytes: u64,
    /// Sends the OS refused (e.g. ENOBUFS); not counted in `bytes`.
    pub send_errors: u64,
    /// Packets the engine released that were not sent because the run ended (or was stopped)
    /// in the middle of their burst.
    pub unsent: u64,
    pub wakeups: u64,
    /// Bytes the local receiver got (0 with an external target).
    pub received_bytes: u64,
    /// Wall time of the loop, seconds.
    pub elapsed_s: f64,
    /// True if `stop` ended the loop early.
    pub interrupted: bool,
    /// (time since start, packets sent) per sending wake-up, when traced.
    pub wakes: Vec<(Duration, u32)>,
    /// (time since start, waiting time) per wake-up, when traced. The waiting time is how much
    /// later than it could have the loop woke: now − max(the instant it asked for, the previous
    /// wake-up). It holds the sleep's overshoot and, when the loop is behind, the work of the
    /// previous wake-up (sends) too — exactly the t_w of the simulator's `os` clock, whose
    /// timer set at the previous wake-up for `asked` fires at max(asked, previous) + t_w.
    pub waits: Vec<(Duration, Duration)>,
}

/// Packets sent between two looks at the clock within one burst.
const BURST_CHUNK: u32 = 64;
/// The longest single sleep: the loop notices a stop within this.
const MAX_SLEEP: Duration = Duration(50_000_000);

fn pps(bps: f64, size: usize) -> PacketRate {
    PacketRate(bps / (8.0 * size as f64))
}

/// Runs the loop until its duration or until `stop` is set.
pub fn run(cfg: &SendLoopConfig, stop: &AtomicBool) -> io::Result<SendLoopResult> {
    if cfg.rates.is_empty() || cfg.packet_size == 0 || cfg.bin.0 == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "empty rate schedule, packet size or bin",
        ));
    }
    let receiver = match cfg.target {
        Some(_) => None,
        None => Some(UdpSocket::bind("127.0.0.1:0")?),
    };
    let target = match (&receiver, cfg.target) {
        (Some(r), _) => r.local_addr()?,
        (None, Some(t)) => t,
        (None, None) => unreachable!(),
    };
    // the sending socket first: if it fails, no receiver thread is left behind
    let sock = UdpSocket::bind(if target.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    })?;
    sock.connect(target)?;
    let received = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let drain = receiver.map(|sock| {
        let received = received.clone();
        let done = done.clone();
        std::thread::spawn(move || drain_socket(sock, &received, &done))
    });
    let result = send(cfg, &sock, stop);
    done.store(true, Ordering::Relaxed);
    // wake the receiver so it notices `done` (an empty datagram: it adds no bytes)
    let _ = sock.send(&[]);
    if let Some(h) = drain {
        let _ = h.join();
    }
    let mut r = result?;
    r.received_bytes = received.load(Ordering::Relaxed);
    Ok(r)
}

fn drain_socket(sock: UdpSocket, received: &AtomicU64, done: &AtomicBool) {
    let _ = sock.set_read_timeout(Some(std::time::Duration::from_millis(50)));
    let mut buf = vec![0u8; 65536];
    while !done.load(Ordering::Relaxed) {
        if let Ok(n) = sock.recv(&mut buf) {
            received.fetch_add(n as u64, Ordering::Relaxed);
        }
    }
}

fn send(cfg: &SendLoopConfig, sock: &UdpSocket, stop: &AtomicBool) -> io::Result<SendLoopResult> {
    let mut engine = cfg.engine.clone();
    let payload = vec![0x5au8; cfg.packet_size];
    let bins = cfg.duration.0.div_ceil(cfg.bin.0) as usize;
    let mut r = SendLoopResult {
        bin_bytes: vec![0; bins],
        ..Default::default()
    };
    let mut steps = cfg.rates.iter().skip(1).peekable();
    let origin = std::time::Instant::now();
    let now = || Instant(origin.elapsed().as_nanos() as u64);
    engine.start(now(), pps(cfg.rates[0].bps, cfg.packet_size));
    let end = Instant::ZERO + cfg.duration;
    // the previous wake-up and the instant it asked to be woken at
    let mut asked: Option<(Instant, Instant)> = None;
    loop {
        let t = now();
        if let (true, Some((prev, wake))) = (cfg.trace_waits, asked) {
            r.waits.push((t - Instant::ZERO, t - wake.max(prev)));
        }
        if t >= end {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            r.interrupted = true;
            break;
        }
        while let Some(step) = steps.next_if(|s| Instant::ZERO + s.at <= t) {
            engine.set_rate(t, pps(step.bps, cfg.packet_size));
        }
        r.wakeups += 1;
        if engine.poll_timeout().is_some_and(|w| w <= t) {
            let n = engine.on_timeout(t);
            if cfg.trace_wakes && n > 0 {
                r.wakes.push((t - Instant::ZERO, n));
            }
            let bin_of = |t: Instant| ((t.0 / cfg.bin.0) as usize).min(bins - 1);
            let mut bin = bin_of(t);
            for i in 0..n {
                // a long burst takes time of its own: bin it when it is sent, and end it with
                // the run (or a stop) rather than overrun
                if i > 0 && i % BURST_CHUNK == 0 {
                    let t = now();
                    if t >= end || stop.load(Ordering::Relaxed) {
                        r.unsent += u64::from(n - i);
                        break;
                    }
                    bin = bin_of(t);
                }
                match sock.send(&payload) {
                    Ok(k) => {
                        r.packets += 1;
                        r.bytes += k as u64;
                        r.bin_bytes[bin] += k as u64;
                    }
                    Err(_) => r.send_errors += 1,
                }
            }
        }
        // sleep until the engine's next wake-up (or the next rate step, or the end)
        let mut wake = engine.poll_timeout().unwrap_or(end).min(end);
        if let Some(step) = steps.peek() {
            wake = wake.min(Instant::ZERO + step.at);
        }
        asked = Some((t, wake));
        let mut t = now();
        if wake <= t {
            // the engine asks to go on at once: still a sleep (yield), as the loop would
            std::thread::sleep(std::time::Duration::from_nanos(1));
        }
        // a long sleep goes in pieces so that a stop is noticed; each piece sleeps until the
        // same absolute instant, so only the last one's overshoot counts
        while wake > t {
            let piece = (wake - t).min(MAX_SLEEP);
            std::thread::sleep(std::time::Duration::from_nanos(piece.0));
            if stop.load(Ordering::Relaxed) {
                break;
            }
            t = now();
        }
    }
    r.elapsed_s = origin.elapsed().as_secs_f64();
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::pacing::Rmc;

    #[test]
    fn a_short_loop_sends_at_about_the_rate_to_a_local_receiver() {
        let cfg = SendLoopConfig {
            engine: Engine::Rmc(Rmc::new(1.0, Duration::from_millis(1))),
            rates: vec![RateStep {
                at: Duration::ZERO,
                bps: 8_000_000.0,
            }],
            packet_size: 1000,
            duration: Duration::from_millis(300),
            target: None,
            bin: Duration::from_millis(100),
            trace_wakes: false,
            trace_waits: false,
        };
        let r = run(&cfg, &AtomicBool::new(false)).unwrap();
        // 1000 packets/s for 0.3 s: never more than owed (how close it gets is measured by
        // `ndncc sendloop`, not asserted here)
        assert!(r.packets > 0 && r.packets <= 302, "{}", r.packets);
        assert_eq!(r.bin_bytes.len(), 3);
        assert_eq!(r.bytes, r.packets * 1000);
        assert_eq!(r.bin_bytes.iter().sum::<u64>(), r.bytes);
    }

    #[test]
    fn every_wake_up_after_the_first_has_a_waiting_time() {
        let cfg = SendLoopConfig {
            engine: Engine::Rfc3448(ndncc_core::pacing::Rfc3448::new(
                false,
                Duration::from_millis(1),
            )),
            rates: vec![RateStep {
                at: Duration::ZERO,
                bps: 8e6,
            }],
            packet_size: 1000,
            duration: Duration::from_millis(100),
            target: None,
            bin: Duration::from_millis(100),
            trace_wakes: false,
            trace_waits: true,
        };
        let r = run(&cfg, &AtomicBool::new(false)).unwrap();
        // one per loop iteration but the first, plus the one that ends the loop
        assert_eq!(r.waits.len() as u64, r.wakeups);
        assert!(r.waits.windows(2).all(|w| w[0].0 <= w[1].0));
        // a loop sleeping ~1 ms between sends never waits anywhere near the whole run
        assert!(r.waits.iter().all(|&(_, w)| w < Duration::from_millis(100)));
    }

    #[test]
    fn stop_ends_the_loop() {
        let cfg = SendLoopConfig {
            engine: Engine::Rmc(Rmc::new(1.0, Duration::from_millis(1))),
            rates: vec![RateStep {
                at: Duration::ZERO,
                bps: 1e6,
            }],
            packet_size: 100,
            duration: Duration::from_secs(60),
            target: None,
            bin: Duration::from_millis(100),
            trace_wakes: false,
            trace_waits: false,
        };
        let r = run(&cfg, &AtomicBool::new(true)).unwrap();
        assert!(r.interrupted && r.elapsed_s < 1.0);
    }
}
