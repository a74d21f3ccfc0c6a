//! `ndnccd`: the core forwarder of the simulator on the OS clock, with Unix-stream, TCP and UDP
//! faces, NFD-compatible management, per-face link emulation and graceful shutdown.
//!
//! The daemon is a driver: it owns sockets, the clock and the face boundary
//! ([`crate::boundary`]), and no protocol logic — the forwarding decisions are the core
//! forwarder's (`ndncc_core::forwarder`). One thread, one `mio` poll loop:
//!
//! ```text
//! loop: now = clock
//!       forwarder timers due -> on_timeout(now)
//!       faces whose link is free -> poll_transmit -> encode -> link (bandwidth, delay) -> socket
//!       wait for sockets until the next timer (forwarder, link, sweep)
//!       datagram / stream frame -> decode -> management, or core packet -> handle_packet
//! ```

pub mod config;
mod dial;
mod face;
pub mod io;
pub mod link;
mod mgmt;
pub mod modules;
mod sdn;

mod udp;
pub mod units;

use crate::boundary::names::NameMapper;
use crate::boundary::pit_token::PitTokens;
use crate::boundary::store::WireStore;
pub use crate::stop::StopHandle;
use config::Config;
use face::DFace;
use mio::net::{TcpListener, UdpSocket, UnixListener};
use mio::{Events, Interest as Ready, Poll, Token, Waker};
use ndncc_core::face::FaceId;
use ndncc_core::forwarder::{Forwarder, ForwarderConfig};
use ndncc_core::name::NameTable;
use ndncc_core::rng::{RngStream, StreamKind};
use ndncc_core::schemes::RouterModule;
use ndncc_core::time::{Duration, Instant};
use ndncc_wire::ExtTypes;
use rustc_hash::FxHashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const SIGNAL: Token = Token(0);
const WAKER: Token = Token(1);
const UNIX_LISTENER: Token = Token(2);
const TCP_LISTENER: Token = Token(3);
/// UDP socket `i` is token `UDP_BASE + i` (at most `FACE_BASE - UDP_BASE` sockets).
const UDP_BASE: usize = 4;
/// Face `i`'s stream socket is token `FACE_BASE + i`.
const FACE_BASE: usize = 16;
/// Wire face ids are the core's plus this (0 means "the requesting face" in management, and
/// NFD's own faces are below 256).
pub const FACE_ID_OFFSET: u64 = 256;
/// Largest UDP datagram sent whole; larger packets are fragmented (NDNLPv2).
pub const UDP_MTU: usize = 1420;
/// How often expired wire copies and PIT tokens are swept.
const SWEEP: Duration = Duration::from_millis(500);

/// Counters of the face boundary (the forwarder's own are in `fwd.core.counters`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Datagrams and stream frames that did not decode (dropped; a bad stream frame header also
    /// closes its face).
    pub malformed: u64,
    /// Packets dropped because a stream face's write buffer was full or a UDP send failed.
    pub write_drops: u64,
    /// Packets the core sent whose bytes were no longer kept.
    pub missing_bytes: u64,
    /// Interests that came without a Nonce (one was added).
    pub nonce_added: u64,
    /// Management commands and dataset requests answered.
    pub mgmt: u64,
    /// Faces opened and closed.
    pub faces_opened: u64,
    pub faces_closed: u64,
    /// Fragments received that completed a packet.
    pub reassembled: u64,
}

/// A route registered through management (`rib/register`) or the config file.
#[derive(Clone, Debug, PartialEq)]
pub struct RibRoute {
    pub prefix: ndncc_core::name::NameId,
    pub face: FaceId,
    pub cost: u32,
    pub origin: u64,
    pub flags: u64,
}

pub struct Daemon {
    pub cfg: Config,
    pub fwd: Forwarder,
    pub mapper: NameMapper,
    pub store: WireStore,
    pub stats: Stats,
    /// This daemon's PitTokens on the Interests it forwards, and their counters.
    pub tokens: PitTokens,
    pub rib: Vec<RibRoute>,
    /// The strategy set for `/` (its name, for strategy-choice/list).
    pub strategy: String,
    faces: Vec<Option<DFace>>,
    /// Queue drops (packets, bytes) of each closed face when it closed: the core counts what
    /// is sent to a closed face as its queue's drops, reported apart.
    closed_drops: FxHashMap<FaceId, (u64, u64)>,
    udp_faces: FxHashMap<SocketAddr, FaceId>,
    udp: Vec<UdpSocket>,
    /// The UDP receive buffer, reused.
    udp_buf: Vec<u8>,
    /// Datagrams to send at the end of the turn, per UDP socket: (bytes, destination).
    udp_out: Vec<Vec<(Vec<u8>, SocketAddr)>>,
    /// UDP sockets left with datagrams by the read budget ([`udp::UDP_BATCHES_PER_READ`]).
    udp_reread: Vec<usize>,
    /// Batches read per UDP socket per turn ([`udp::UDP_BATCHES_PER_READ`]; tests lower it).
    udp_batches_per_read: usize,
    unix: Option<UnixListener>,
    tcp: Option<TcpListener>,
    poll: Poll,
    stop: Arc<AtomicBool>,
    waker: Arc<Waker>,
    clock: std::time::Instant,
    /// Faces with packets in their core transmit queue.
    backlog: Vec<FaceId>,
    /// Stream faces with unread bytes left by the read budget.
    reread: Vec<FaceId>,
    /// Stream faces with bytes queued this turn, written at the end of [`Daemon::transmit`].
    unflushed: Vec<FaceId>,
    types: ExtTypes,
    rng: u64,
    next_sweep: Instant,
    next_udp_seq: u64,
    started_unix_ms: u64,
    /// The control connection to the SDN controller (`[sdn]`).
    sdn: Option<sdn::SdnState>,
    /// `faces/create` TCP connects under way (slot `k`: token `dial::DIAL_TOP - k`).
    dials: Vec<Option<dial::Dialing>>,
    /// The `[[face]]` entries' faces, in order.
    static_faces: Vec<FaceId>,
}

fn io_err(what: &str, e: std::io::Error) -> String {
    format!("{what}: {e}")
}

impl Daemon {
    /// Binds the listeners and opens the configured faces.
    pub fn bind(cfg: Config) -> Result<Daemon, String> {
        let poll = Poll::new().map_err(|e| io_err("poll", e))?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER).map_err(|e| io_err("waker", e))?);
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        // a stateful strategy (pcon) draws from its own stream, seeded at start-up so that the
        // daemons of one emulation draw independently (as the simulator's nodes do)
        let strategy = modules::build_strategy(&cfg.forwarder.strategy, strategy_stream(seed))?;
        let mut fwd = Forwarder::new(
            Arc::new(NameTable::new()),
            ForwarderConfig {
                strategy,
                cs_capacity: cfg.forwarder.cs_capacity,
                nack_overhead: crate::boundary::convert::NACK_OVERHEAD,
            },
            match &cfg.forwarder.module {
                Some(m) => m.build(RngStream::new(0, 0, StreamKind::Node, 1)),
                None => RouterModule::None,
            },
            RngStream::new(0, 0, StreamKind::Node, 0),
        );
        fwd.core.pit.set_limit(cfg.forwarder.pit_max);
        let mut d = Daemon {
            mapper: NameMapper::new(cfg.forwarder.names_max),
            store: WireStore::new(cfg.forwarder.store_max),
            stats: Stats::default(),
            tokens: PitTokens::new(mix_seed(seed)),
            rib: Vec::new(),
            strategy: cfg.forwarder.strategy.clone(),
            faces: Vec::new(),
            closed_drops: FxHashMap::default(),
            udp_faces: FxHashMap::default(),
            udp: Vec::new(),
            udp_buf: Vec::new(),
            udp_out: Vec::new(),
            udp_reread: Vec::new(),
            udp_batches_per_read: udp::UDP_BATCHES_PER_READ,
            unix: None,
            tcp: None,
            poll,
            stop: Arc::new(AtomicBool::new(false)),
            waker,
            clock: std::time::Instant::now(),
            backlog: Vec::new(),
            reread: Vec::new(),
            unflushed: Vec::new(),
            types: ExtTypes::default(),
            rng: seed | 1,
            next_sweep: Instant::ZERO + SWEEP,
            next_udp_seq: seed,
            started_unix_ms: seed / 1_000_000,
            sdn: match &cfg.sdn {
                Some(c) => Some(sdn::SdnState::new(c)?),
                None => None,
            },
            dials: Vec::new(),
            static_faces: Vec::new(),
            fwd,
            cfg,
        };
        d.listen()?;
        d.open_static_faces()?;
        Ok(d)
    }

    fn listen(&mut self) -> Result<(), String> {
        let l = self.cfg.listen.clone();
        if let Some(path) = &l.unix {
            if path.exists() {
                // a stale socket of an earlier run; a live one answers connect
                if std::os::unix::net::UnixStream::connect(path).is_ok() {
                    return Err(format!(
                        "{}: another forwarder listens there",
                        path.display()
                    ));
                }
                std::fs::remove_file(path).map_err(|e| io_err(&path.display().to_string(), e))?;
            }
            let mut s = UnixListener::bind(path)
                .map_err(|e| io_err(&format!("unix {}", path.display()), e))?;
            self.poll
                .registry()
                .register(&mut s, UNIX_LISTENER, Ready::READABLE)
                .map_err(|e| io_err("register", e))?;
            self.unix = Some(s);
        }
        if let Some(addr) = &l.tcp {
            let a = parse_addr(addr)?;
            let mut s = TcpListener::bind(a).map_err(|e| io_err(&format!("tcp {addr}"), e))?;
            self.poll
                .registry()
                .register(&mut s, TCP_LISTENER, Ready::READABLE)
                .map_err(|e| io_err("register", e))?;
            self.tcp = Some(s);
        }
        if let Some(addr) = &l.udp {
            let a = parse_addr(addr)?;
            self.bind_udp(a)?;
        }
        Ok(())
    }

    fn bind_udp(&mut self, a: SocketAddr) -> Result<usize, String> {
        let i = self.udp.len();
        if UDP_BASE + i >= FACE_BASE {
            return Err("too many UDP sockets".into());
        }
        let mut s = UdpSocket::bind(a).map_err(|e| io_err(&format!("udp {a}"), e))?;
        self.poll
            .registry()
            .register(&mut s, Token(UDP_BASE + i), Ready::READABLE)
            .map_err(|e| io_err("register", e))?;
        self.udp.push(s);
        Ok(i)
    }

    /// A handle that stops [`Daemon::run`] from another thread.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle::new(self.stop.clone(), self.waker.clone())
    }

    /// Stops on SIGINT and SIGTERM.
    pub fn stop_on_signals(&mut self) -> Result<(), String> {
        crate::stop::on_signals(&self.poll, SIGNAL)
    }

    /// The local addresses actually bound (for tests that bind port 0).
    pub fn tcp_addr(&self) -> Option<SocketAddr> {
        self.tcp.as_ref().and_then(|s| s.local_addr().ok())
    }
    pub fn udp_addr(&self) -> Option<SocketAddr> {
        self.udp.first().and_then(|s| s.local_addr().ok())
    }

    /// Now on the daemon's clock (ns since start).
    pub fn now(&self) -> Instant {
        Instant(self.clock.elapsed().as_nanos() as u64)
    }

    fn random(&mut self) -> u64 {
        // xorshift64*: nonces for nonce-less Interests (not security-relevant)
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Runs until stopped (signal or [`StopHandle`]); returns the final counters.
    pub fn run(&mut self) -> Result<Stats, String> {
        let mut events = Events::with_capacity(256);
        while !self.stop.load(Ordering::SeqCst) {
            let now = self.now();
            self.on_timers(now);
            self.transmit(now);
            self.sdn_turn(now);
            self.dial_turn(now);
            let wait = match self.reread.is_empty() && self.udp_reread.is_empty() {
                true => self.next_wake(now).map(|t| {
                    let ns = t.0.saturating_sub(self.now().0);
                    std::time::Duration::from_nanos(ns)
                }),
                false => Some(std::time::Duration::ZERO),
            };
            match self.poll.poll(&mut events, wait) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err("poll", e)),
            }
            for ev in events.iter() {
                match ev.token() {
                    SIGNAL => self.stop.store(true, Ordering::SeqCst),
                    WAKER => {}
                    UNIX_LISTENER => self.accept_unix(),
                    TCP_LISTENER => self.accept_tcp(),
                    sdn::CONTROL => self.sdn_event(self.now()),
                    Token(t)
                        if (dial::DIAL_TOP + 1 - dial::MAX_DIALS..=dial::DIAL_TOP).contains(&t) =>
                    {
                        self.dial_event(dial::DIAL_TOP - t)
                    }
                    Token(t) if (UDP_BASE..FACE_BASE).contains(&t) => self.read_udp(t - UDP_BASE),
                    Token(t) if t >= FACE_BASE => {
                        let face = FaceId((t - FACE_BASE) as u32);
                        if ev.is_readable() || ev.is_read_closed() {
                            self.read_stream(face);
                        }
                        if ev.is_writable() {
                            self.flush_stream(face);
                        }
                    }
                    _ => {}
                }
            }
            for id in std::mem::take(&mut self.reread) {
                self.read_stream(id);
            }
            for i in std::mem::take(&mut self.udp_reread) {
                self.read_udp(i);
            }
        }
        self.shutdown();
        Ok(self.stats)
    }

    fn on_timers(&mut self, now: Instant) {
        if self.fwd.poll_timeout().is_some_and(|t| t <= now) {
            self.fwd.on_timeout(now);
        }
        if now >= self.next_sweep {
            self.store.sweep(now);
            self.next_sweep = now + SWEEP;
            for f in self.faces.iter_mut().flatten() {
                f.reassembler.on_timeout(now.0);
            }
        }
    }

    fn next_wake(&self, now: Instant) -> Option<Instant> {
        let mut t = self.next_sweep;
        if let Some(f) = self.fwd.poll_timeout() {
            t = t.min(f);
        }
        for id in &self.backlog {
            if let Some(Some(f)) = self.faces.get(id.0 as usize) {
                if let Some(free) = f.link.free_at(now) {
                    t = t.min(free);
                }
            }
        }
        for f in self.faces.iter().flatten() {
            if let Some(a) = f.link.next_arrival() {
                t = t.min(a);
            }
        }
        if let Some(a) = self.sdn_wake() {
            t = t.min(a);
        }
        if let Some(a) = self.dial_wake() {
            t = t.min(a);
        }
        Some(t.max(now))
    }

    /// Closes every face (flushing what the sockets take) and removes the Unix socket file.
    fn shutdown(&mut self) {
        for i in 0..self.faces.len() {
            if let Some(Some(f)) = self.faces.get_mut(i) {
                f.flush_all();
            }
        }
        if let Some(path) = &self.cfg.listen.unix {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The strategy's random stream (PCON's draws) from the start-up seed.
pub(crate) fn strategy_stream(seed: u64) -> RngStream {
    RngStream::new(seed, 0, StreamKind::Node, 2)
}

/// A token key from the start-up seed (not the nonce stream's state).
fn mix_seed(seed: u64) -> u64 {
    (seed ^ 0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        .wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    text.to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("{text:?} is not a HOST:PORT address"))
}

impl Daemon {
    /// Where the daemon listens, for the start-up line.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.cfg.listen.unix {
            parts.push(format!("unix {}", p.display()));
        }
        if let Some(a) = self.tcp_addr() {
            parts.push(format!("tcp {a}"));
        }
        if let Some(a) = self.udp_addr() {
            parts.push(format!("udp {a}"));
        }
        parts.join(", ")
    }

    /// The counters as one JSON object: the boundary's, the forwarder's, table sizes.
    pub fn report(&self) -> String {
        let c = &self.fwd.core.counters;
        serde_json::json!({
            "boundary": self.stats,
            "pit_tokens": self.tokens.stats,
            "forwarder": {
                "satisfied": c.satisfied, "timed_out": c.timed_out, "rejected": c.rejected,
                "unsolicited_data": c.unsolicited_data, "pit_full": c.pit_full,
                "loops": c.loops, "duplicates": c.duplicates, "aggregated": c.aggregated,
            },
            "tables": {
                "pit": self.fwd.core.pit.len(), "names": self.fwd.core.names.len(),
                "names_hashed": self.mapper.hashed, "fib": self.fwd.core.fib.len(),
                "store_bytes": self.store.bytes(), "faces_open": self.face_count(),
            },
            "faces": self.faces_report(),
            "sdn": self.sdn_report(),
        })
        .to_string()
    }
}
