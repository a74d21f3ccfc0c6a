//! The router side of the control plane (`[sdn]`, `docs/sdn-control-protocol.md`): the
//! connection to the SDN controller, kept up with back-off. On each connection the router says
//! HELLO (its node index, faces and FIB); the messages its module sends (`ModuleAction::Control`)
//! go to the controller after the control link's delay; the controller's messages go to the
//! module (`Forwarder::handle_control`). While disconnected, the module's messages are dropped
//! (counted): its next periodic report brings the controller up to date.

use super::{Daemon, FACE_ID_OFFSET};
use crate::boundary::names::NameMapper;
use crate::daemon::io::{connected, Conn};
use crate::sdn::frame::{HelloFace, Msg};
use crate::sdn::link::{dial, Backoff, ControlConn, Dial, Read};
use crate::sdn::Address;
use mio::{Interest as Ready, Token};
use ndncc_core::control::ControlBody;
use ndncc_core::face::FaceId;
use ndncc_core::time::{Duration, Instant};
use std::sync::Arc;

/// The control connection's token (below the stream faces' range would collide; this one is
/// matched before it).
pub(super) const CONTROL: Token = Token(usize::MAX - 1);

/// How long a connect to the controller may stay under way before the attempt counts as
/// failed (and the back-off's next wait starts). The loop does not wait for it: the
/// handshake runs in the kernel while the daemon forwards.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(200);

/// The router side's counters (in the daemon's report, `sdn`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SdnStats {
    pub connects: u64,
    /// Attempts refused, failed or still under way after [`CONNECT_TIMEOUT`].
    pub connect_failures: u64,
    /// Of `connect_failures`, the connects that timed out (TCP; Linux never leaves a Unix
    /// connect under way).
    pub connect_timeouts: u64,
    pub disconnects: u64,
    /// Frames from the controller refused (each dropped the connection).
    pub bad_frames: u64,
    pub sent: u64,
    /// Module messages dropped while disconnected (or not joined).
    pub dropped: u64,
    pub received: u64,
    /// Messages received on the current (last) connection.
    pub received_last_connection: u64,
    /// When the first controller message arrived, Unix time, s.
    pub first_received_unix_s: Option<f64>,
    /// Changes of the next hop with the lowest metric the controller pushed (the one the
    /// module forwards on; first pushed on ties), after each read of the connection:
    /// (Unix time s, prefix, FaceId).
    pub choices: Vec<(f64, String, u64)>,
}

#[derive(Debug)]
pub(super) struct SdnState {
    addr: Address,
    delay: Duration,
    conn: Option<ControlConn>,
    /// A connect under way (registered WRITABLE on [`CONTROL`]) and when it times out.
    pending: Option<(Conn, Instant)>,
    next_try: Instant,
    backoff: Backoff,
    pub stats: SdnStats,
    /// The lowest-metric next hop per prefix, as last pushed.
    metrics: Vec<(ndncc_core::name::NameId, Vec<(FaceId, f64)>)>,
}

impl SdnState {
    pub(super) fn new(cfg: &super::config::SdnSection) -> Result<SdnState, String> {
        let ms = |v: f64| Duration::from_secs_f64(v / 1e3);
        Ok(SdnState {
            addr: Address::parse(&cfg.controller).map_err(|e| format!("sdn.controller: {e}"))?,
            delay: ms(cfg.delay_ms),
            conn: None,
            pending: None,
            next_try: Instant::ZERO,
            backoff: Backoff::new(ms(cfg.retry_min_ms), ms(cfg.retry_max_ms)),
            stats: SdnStats::default(),
            metrics: Vec::new(),
        })
    }
}

fn unix_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Daemon {
    /// One turn of the control plane: connect if it is time, send the module's messages,
    /// write what is due.
    pub(super) fn sdn_turn(&mut self, now: Instant) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        if s.pending
            .as_ref()
            .is_some_and(|(_, deadline)| now >= *deadline)
        {
            self.sdn_connect_failed(now, "connect timed out", true);
        }
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        if s.conn.is_none() && s.pending.is_none() && now >= s.next_try {
            self.sdn_connect(now);
        }
        let joined = self.cfg.sdn.as_ref().is_some_and(|c| c.joined);
        let bodies = std::mem::take(&mut self.fwd.core.control_out);
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        for body in bodies {
            let ControlBody::FaceReport { face, values } = body else {
                s.stats.dropped += 1;
                continue;
            };
            match s.conn.as_mut() {
                Some(c) if joined => {
                    let msg = Msg::FaceReport {
                        face: u64::from(face.0) + FACE_ID_OFFSET,
                        values: values
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    };
                    c.send_at(now + s.delay, &msg);
                    s.stats.sent += 1;
                }
                _ => s.stats.dropped += 1,
            }
        }
        let failed = match s.conn.as_mut() {
            Some(c) => c.flush(now).err(),
            None => None,
        };
        if let Some(e) = failed {
            self.sdn_drop(now, &format!("write failed: {e}"));
        }
    }

    /// When the control plane next needs a turn.
    pub(super) fn sdn_wake(&self) -> Option<Instant> {
        let s = self.sdn.as_ref()?;
        match (&s.conn, &s.pending) {
            (Some(c), _) => c.next_due(),
            (None, Some((_, deadline))) => Some(*deadline),
            (None, None) => Some(s.next_try),
        }
    }

    /// The control token's event: the pending connect's socket turned writable, or the
    /// connection is readable.
    pub(super) fn sdn_event(&mut self, now: Instant) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        let Some((sock, _)) = s.pending.as_ref() else {
            self.sdn_read(now);
            return;
        };
        match connected(sock) {
            Ok(false) => {}
            Ok(true) => {
                if let Some((mut sock, _)) = s.pending.take() {
                    let registered = self
                        .poll
                        .registry()
                        .reregister(sock.source(), CONTROL, Ready::READABLE)
                        .is_ok();
                    self.sdn_up(now, sock, registered);
                }
            }
            Err(e) => self.sdn_connect_failed(now, &e.to_string(), false),
        }
    }

    /// The pending connect failed (refused, or `timed_out`): the socket is closed and the
    /// next attempt waits for the back-off.
    fn sdn_connect_failed(&mut self, now: Instant, why: &str, timed_out: bool) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        if let Some((mut sock, _)) = s.pending.take() {
            let _ = self.poll.registry().deregister(sock.source());
        }
        s.stats.connect_timeouts += u64::from(timed_out);
        self.sdn_failed(now, why);
    }

    /// An attempt failed: counted, logged the first time, retried after the back-off.
    fn sdn_failed(&mut self, now: Instant, why: &str) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        s.stats.connect_failures += 1;
        s.next_try = now + s.backoff.failed();
        if s.stats.connect_failures == 1 {
            eprintln!(
                "ndnccd: sdn: cannot reach the controller at {} ({why}); retrying",
                s.addr
            );
        }
    }

    /// Starts an attempt without waiting for the peer: a Unix connect is up at once, or fails
    /// at once (refused, or the controller's accept queue is full); a TCP connect is left
    /// under way ([`Daemon::sdn_event`] completes it, [`Daemon::sdn_turn`] times it out).
    fn sdn_connect(&mut self, now: Instant) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        match dial(&s.addr) {
            Ok(Dial::Connected(conn)) => self.sdn_register_up(now, conn),
            Ok(Dial::Pending(mut sock)) => {
                if self
                    .poll
                    .registry()
                    .register(sock.source(), CONTROL, Ready::WRITABLE)
                    .is_err()
                {
                    self.sdn_failed(now, "cannot register the socket");
                    return;
                }
                s.pending = Some((sock, now + CONNECT_TIMEOUT));
            }
            Err(e) => self.sdn_failed(now, &e.to_string()),
        }
    }

    /// A connection that answered at once (Unix): registered, then up.
    fn sdn_register_up(&mut self, now: Instant, mut conn: Conn) {
        let registered = self
            .poll
            .registry()
            .register(conn.source(), CONTROL, Ready::READABLE)
            .is_ok();
        self.sdn_up(now, conn, registered);
    }

    /// A connection is there (`registered` for reading on [`CONTROL`]): the HELLO goes first.
    fn sdn_up(&mut self, now: Instant, conn: Conn, registered: bool) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        let mut c = ControlConn::new(conn);
        if !registered {
            let _ = self.poll.registry().deregister(c.io.conn.source());
            s.stats.connect_failures += 1;
            s.next_try = now + s.backoff.failed();
            return;
        }
        s.backoff.connected();
        s.stats.connects += 1;
        s.stats.received_last_connection = 0;
        // the HELLO goes first, without the link's delay: it stands for the topology
        // the controller would have learned at start
        c.send_at(now, &self.hello());
        if let Some(s) = self.sdn.as_mut() {
            s.conn = Some(c);
        }
        eprintln!("ndnccd: sdn: connected to {}", self.sdn_addr());
    }

    fn sdn_addr(&self) -> String {
        self.sdn
            .as_ref()
            .map_or_else(String::new, |s| s.addr.to_string())
    }

    fn sdn_drop(&mut self, now: Instant, why: &str) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        if let Some(mut c) = s.conn.take() {
            let _ = self.poll.registry().deregister(c.io.conn.source());
            s.stats.disconnects += 1;
            s.next_try = now + s.backoff.failed();
            eprintln!("ndnccd: sdn: controller connection lost ({why}); reconnecting");
        }
    }

    /// The controller's connection is readable.
    pub(super) fn sdn_read(&mut self, now: Instant) {
        let Some(c) = self.sdn.as_mut().and_then(|s| s.conn.as_mut()) else {
            return;
        };
        let (msgs, end) = match c.read() {
            Read::Msgs { msgs, closed } => {
                (msgs, closed.then(|| "closed by the controller".to_string()))
            }
            Read::Bad { msgs, error } => {
                if let Some(s) = self.sdn.as_mut() {
                    s.stats.bad_frames += 1;
                }
                (
                    msgs,
                    Some(format!(
                        "bad frame from the controller: {error}; connection dropped"
                    )),
                )
            }
        };
        let mut end = end;
        // the lowest-metric next hop of each prefix touched, before this read
        let mut touched: Vec<(ndncc_core::name::NameId, String, Option<FaceId>)> = Vec::new();
        for m in msgs {
            let Msg::NextHop {
                prefix,
                face,
                value,
            } = m
            else {
                if let Some(s) = self.sdn.as_mut() {
                    s.stats.bad_frames += 1;
                }
                end = Some(
                    "a router-to-controller message from the controller; connection dropped".into(),
                );
                break;
            };
            let Some(core_face) = face
                .checked_sub(FACE_ID_OFFSET)
                .and_then(|f| u32::try_from(f).ok())
                .map(FaceId)
            else {
                end = Some(format!(
                    "NEXT_HOP for face {face}, not one of this router's; connection dropped"
                ));
                break;
            };
            let Ok(name) = ndncc_wire::Name::from_uri(&prefix) else {
                end = Some(format!(
                    "NEXT_HOP for {prefix:?}, not an NDN name; connection dropped"
                ));
                break;
            };
            let wire = name.to_wire();
            let Ok(view) = ndncc_wire::NameView::decode(&wire) else {
                end = Some(format!(
                    "NEXT_HOP for {prefix:?}, not an NDN name; connection dropped"
                ));
                break;
            };
            let id = NameMapper::intern_prefix(Arc::make_mut(&mut self.fwd.core.names), &view);
            self.fwd.handle_control(
                now,
                &ControlBody::NextHopValue {
                    prefix: id,
                    face: core_face,
                    value,
                },
            );
            if let Some(s) = self.sdn.as_mut() {
                s.stats.received += 1;
                s.stats.received_last_connection += 1;
                s.stats.first_received_unix_s.get_or_insert_with(unix_s);
                let i = match s.metrics.iter().position(|(p, _)| *p == id) {
                    Some(i) => i,
                    None => {
                        s.metrics.push((id, Vec::new()));
                        s.metrics.len() - 1
                    }
                };
                let entry = &mut s.metrics[i].1;
                if !touched.iter().any(|(p, _, _)| *p == id) {
                    touched.push((id, prefix, lowest(entry)));
                }
                match entry.iter_mut().find(|(f, _)| *f == core_face) {
                    Some(e) => e.1 = value,
                    None => entry.push((core_face, value)),
                }
            }
        }
        if let Some(s) = self.sdn.as_mut() {
            for (id, prefix, before) in touched {
                let after = s
                    .metrics
                    .iter()
                    .find(|(p, _)| *p == id)
                    .and_then(|(_, m)| lowest(m));
                if let (true, Some(f)) = (after != before, after) {
                    let face = u64::from(f.0) + FACE_ID_OFFSET;
                    s.stats.choices.push((unix_s(), prefix, face));
                }
            }
        }
        if let Some(why) = end {
            self.sdn_drop(now, &why);
        }
    }

    /// The router side's counters with the Interests sent on each face of the topology (the
    /// path split), for the daemon's report.
    pub(super) fn sdn_report(&self) -> Option<serde_json::Value> {
        let s = self.sdn.as_ref()?;
        let mut v = serde_json::to_value(&s.stats).ok()?;
        let faces: serde_json::Map<String, serde_json::Value> = self
            .static_faces
            .iter()
            .take(self.cfg.sdn.as_ref().map_or(0, |c| c.faces.len()))
            .filter_map(|id| {
                let f = self.fwd.core.faces.get(id.0 as usize)?;
                let n = f.counters.out_of(ndncc_core::packet::PacketType::Interest);
                Some(((u64::from(id.0) + FACE_ID_OFFSET).to_string(), n.into()))
            })
            .collect();
        v["interests_out_by_face"] = faces.into();
        Some(v)
    }

    /// This router's HELLO: node, delay, faces of the topology, FIB on those faces.
    fn hello(&self) -> Msg {
        let Some(cfg) = self.cfg.sdn.as_ref() else {
            return Msg::Hello {
                node: 0,
                delay_ns: 0,
                joined: false,
                faces: Vec::new(),
                routes: Vec::new(),
                metrics: Vec::new(),
            };
        };
        let faces: Vec<HelloFace> = cfg
            .faces
            .iter()
            .zip(&self.static_faces)
            .map(|(t, id)| HelloFace {
                face: u64::from(id.0) + FACE_ID_OFFSET,
                link: t.link,
                peer: t.peer,
            })
            .collect();
        let routes = self
            .fwd
            .core
            .fib
            .iter()
            .map(|e| {
                let hops = e
                    .nexthops
                    .iter()
                    .map(|nh| u64::from(nh.face.0) + FACE_ID_OFFSET)
                    .filter(|f| faces.iter().any(|t| t.face == *f))
                    .collect();
                let uri = NameMapper::prefix_to_wire(&self.fwd.core.names, e.prefix).to_string();
                (uri, hops)
            })
            .collect();
        let metrics = self
            .sdn
            .as_ref()
            .map(|s| {
                s.metrics
                    .iter()
                    .flat_map(|(p, m)| {
                        let uri = NameMapper::prefix_to_wire(&self.fwd.core.names, *p).to_string();
                        m.iter()
                            .map(move |(f, v)| (uri.clone(), u64::from(f.0) + FACE_ID_OFFSET, *v))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Msg::Hello {
            node: cfg.node,
            delay_ns: Duration::from_secs_f64(cfg.delay_ms / 1e3).0,
            joined: cfg.joined,
            faces,
            routes,
            metrics,
        }
    }
}

/// The next hop with the lowest metric (ties: the first pushed), as the module chooses.
fn lowest(m: &[(FaceId, f64)]) -> Option<FaceId> {
    m.iter()
        .fold(None::<(FaceId, f64)>, |b, &(f, v)| match b {
            Some((_, bv)) if bv <= v => b,
            _ => Some((f, v)),
        })
        .map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::config::Config;
    use crate::sdn::frame::Decoder;

    fn daemon_towards(controller: &str) -> Daemon {
        let text = format!(
            "[listen]\nudp = \"127.0.0.1:0\"\n[sdn]\ncontroller = \"{controller}\"\nnode = 4\n"
        );
        Daemon::bind(Config::parse(&text).unwrap()).unwrap()
    }

    fn state(d: &Daemon) -> &SdnState {
        d.sdn.as_ref().unwrap()
    }

    /// Polls (as the loop does) until the connect under way has an outcome; at most 50 polls
    /// of at most 100 ms each.
    fn settle(d: &mut Daemon) {
        let mut events = mio::Events::with_capacity(8);
        for _ in 0..50 {
            if state(d).pending.is_none() {
                return;
            }
            d.poll
                .poll(&mut events, Some(std::time::Duration::from_millis(100)))
                .unwrap();
            let now = d.now();
            if events.iter().any(|ev| ev.token() == CONTROL) {
                d.sdn_event(now);
            }
        }
    }

    /// The attempt's time-out and the back-off run on the daemon's clock: here the turns are
    /// given made-up instants and the socket's readiness is never read, so the attempt stays
    /// under way until its 200 ms are up; then the next one waits `retry_min_ms` (100 ms), the
    /// one after twice that.
    #[test]
    fn a_tcp_connect_under_way_times_out_on_the_daemon_clock_then_backs_off() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut d = daemon_towards(&format!("tcp://{}", listener.local_addr().unwrap()));
        let ms = Duration::from_millis;
        let t0 = Instant::ZERO + Duration::from_secs(5);
        d.sdn_turn(t0);
        assert!(state(&d).pending.is_some() && state(&d).conn.is_none());
        assert_eq!(d.sdn_wake(), Some(t0 + ms(200)));
        d.sdn_turn(Instant((t0 + ms(200)).0 - 1));
        assert!(state(&d).pending.is_some());
        assert_eq!(state(&d).stats.connect_failures, 0);
        let t1 = t0 + ms(200);
        d.sdn_turn(t1);
        let s = state(&d);
        assert!(s.pending.is_none());
        assert_eq!((s.stats.connect_failures, s.stats.connect_timeouts), (1, 1));
        assert_eq!(d.sdn_wake(), Some(t1 + ms(100)));
        d.sdn_turn(Instant((t1 + ms(100)).0 - 1));
        assert!(
            state(&d).pending.is_none(),
            "no attempt before the back-off is over"
        );
        d.sdn_turn(t1 + ms(100));
        assert!(state(&d).pending.is_some(), "the next attempt");
        let t2 = t1 + ms(100) + ms(200);
        d.sdn_turn(t2);
        assert_eq!(state(&d).stats.connect_timeouts, 2);
        assert_eq!(d.sdn_wake(), Some(t2 + ms(200)), "the wait doubled");
    }

    /// Once the connect under way completes (one connect, no failure), the first frame the
    /// controller's end (`accept`: with its read time-out set) reads after the next turn is the
    /// HELLO.
    fn hello_first<S: std::io::Read>(d: &mut Daemon, accept: impl FnOnce() -> S) {
        settle(d);
        let s = state(d);
        assert!(s.conn.is_some(), "{:?}", s.stats);
        assert_eq!((s.stats.connects, s.stats.connect_failures), (1, 0));
        let now = d.now();
        d.sdn_turn(now); // writes the HELLO
        let msg = first_frame(&mut accept());
        assert!(matches!(msg, Msg::Hello { node: 4, .. }), "{msg:?}");
    }

    /// The first frame the controller's end `peer` reads.
    fn first_frame<S: std::io::Read>(peer: &mut S) -> Msg {
        let mut decoder = Decoder::default();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(m) = decoder.next_msg().unwrap() {
                return m;
            }
            let n = peer.read(&mut buf).unwrap();
            assert!(n > 0, "the daemon closed the connection");
            decoder.push(&buf[..n]);
        }
    }

    /// A TCP connect completes when its socket turns writable: the connection is then read on
    /// the control token and the HELLO is the first thing the controller reads.
    #[test]
    fn a_tcp_connect_completes_when_writable_and_the_hello_goes_first() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut d = daemon_towards(&format!("tcp://{}", listener.local_addr().unwrap()));
        let now = d.now();
        d.sdn_turn(now);
        hello_first(&mut d, || {
            let (peer, _) = listener.accept().unwrap();
            peer.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            peer
        });
    }

    /// A Unix connect the kernel left under way (Linux never does; other systems may) goes the
    /// TCP connect's way: registered WRITABLE, completed on the event, HELLO first. Here the
    /// socket handed over is already connected (the kernel says so at the first poll).
    #[test]
    fn a_unix_connect_under_way_completes_when_writable_and_the_hello_goes_first() {
        let dir = std::env::temp_dir().join(format!("ndncc-sdn-pending-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("c.sock");
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let mut d = daemon_towards(&format!("unix://{}", path.display()));
        let (sock, up) = crate::daemon::io::unix_connect(&path).unwrap();
        assert!(up, "a listener with room answers at once");
        let mut conn = Conn::Unix(sock);
        d.poll
            .registry()
            .register(conn.source(), CONTROL, Ready::WRITABLE)
            .unwrap();
        let t0 = d.now();
        d.sdn.as_mut().unwrap().pending = Some((conn, t0 + CONNECT_TIMEOUT));
        hello_first(&mut d, || {
            let (peer, _) = listener.accept().unwrap();
            peer.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            peer
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A refused TCP connect is a failure (not a time-out) and the back-off's first wait.
    #[test]
    fn a_refused_tcp_connect_is_a_failure_and_waits_for_the_back_off() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap(); // closed again: nothing listens there
        let mut d = daemon_towards(&format!("tcp://{port}"));
        let now = d.now();
        d.sdn_turn(now);
        settle(&mut d);
        let s = state(&d);
        assert!(s.pending.is_none() && s.conn.is_none());
        assert_eq!((s.stats.connect_failures, s.stats.connect_timeouts), (1, 0));
        assert!(s.next_try >= now + Duration::from_millis(100));
    }
}
