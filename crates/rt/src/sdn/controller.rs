//! `ndnccd sdn-controller CONFIG.toml`: the SDN controller as its own process. It runs the
//! scenario's controller component (`[sdn.<name>]`, e.g. ndnSieve's) — the sans-IO state
//! machine the simulator runs, built by the same registry — on the OS clock, and talks to
//! each router's ndnccd over a control connection (`docs/sdn-control-protocol.md`).
//!
//! The topology module learns the network from the routers: each one's HELLO carries its
//! node index, its faces (link, peer) and its FIB. Once every node `0..nodes` has said HELLO
//! the component is built from that topology (the simulator builds it from the same faces and
//! FIBs at start). A router that reconnects with the same HELLO changes nothing; one whose
//! topology changed rebuilds the component (its caches start empty). A restarted controller
//! learns everything again from the routers, which reconnect by themselves.
//!
//! ```toml
//! nodes = 6                        # the topology's node count
//! [listen]
//! unix = "/tmp/sdn.sock"           # and/or tcp = "127.0.0.1:7000"
//! [component.sieve]                # the component and its keys, as in a scenario's [sdn.sieve]
//! poll = "500ms"
//! ```

use super::frame::Msg;
use super::link::{ControlConn, Read};
use super::{report_key, Address};
use crate::daemon::io::Conn;
pub use crate::stop::StopHandle;
use mio::net::{TcpListener, UnixListener};
use mio::{Events, Interest as Ready, Poll, Token, Waker};
use ndncc_core::control::{ControlBody, ControlMessage, ControllerComponent};
use ndncc_core::face::FaceId;
use ndncc_core::name::NameTable;
use ndncc_core::schemes::components::{ComponentConfig, TopoFace, TopoNode, Topology};
use ndncc_core::time::{Duration, Instant};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const SIGNAL: Token = Token(0);
const WAKER: Token = Token(1);
const UNIX_LISTENER: Token = Token(2);
const TCP_LISTENER: Token = Token(3);
const CONN_BASE: usize = 16;
/// Most control connections at once (a router each).
pub const MAX_CONNS: usize = 4096;

/// The controller's configuration file.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerConfig {
    /// Nodes in the topology (indices `0..nodes`).
    pub nodes: u32,
    pub unix: Option<PathBuf>,
    pub tcp: Option<String>,
    pub component: ComponentConfig,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    nodes: u32,
    #[serde(default)]
    listen: RawListen,
    component: serde_json::Value,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawListen {
    unix: Option<PathBuf>,
    tcp: Option<String>,
}

impl ControllerConfig {
    /// Parses a configuration text; the error is one line.
    pub fn parse(text: &str) -> Result<ControllerConfig, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            match e.span() {
                Some(s) => {
                    let line = text.get(..s.start).unwrap_or(text).matches('\n').count() + 1;
                    format!("line {line}: {msg}")
                }
                None => msg,
            }
        })?;
        let schema = ndncc_core::schemes::registry::schema();
        let tagged = crate::daemon::config::scheme_table_in_scenario_units(
            &schema.components,
            "component",
            raw.component,
        )?;
        let component: ComponentConfig =
            serde_json::from_value(tagged).map_err(|e| format!("component: {e}"))?;
        if let Some(p) = component.validate().first() {
            return Err(format!(
                "component.{}.{}: {} ({})",
                component.name(),
                p.keys.join(", "),
                p.problem,
                p.fix
            ));
        }
        if raw.nodes == 0 {
            return Err("nodes must be at least 1".into());
        }
        if raw.listen.unix.is_none() && raw.listen.tcp.is_none() {
            return Err("nothing to listen on: set [listen] unix or tcp".into());
        }
        Ok(ControllerConfig {
            nodes: raw.nodes,
            unix: raw.listen.unix,
            tcp: raw.listen.tcp,
            component,
        })
    }
}

/// What a router said in its HELLO.
#[derive(Clone, Debug, PartialEq)]
struct Hello {
    delay: Duration,
    joined: bool,
    faces: Vec<TopoFace>,
    routes: Vec<(String, Vec<FaceId>)>,
    /// The metrics the router holds (given to the component: what the router forwards on).
    metrics: Vec<(String, FaceId, f64)>,
}

/// The controller's counters (printed as JSON when it stops).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ControllerStats {
    pub connections: u64,
    pub disconnects: u64,
    pub hellos: u64,
    /// Frames refused (each dropped its connection).
    pub bad_frames: u64,
    /// Components built (1, plus one per topology change a HELLO brought).
    pub builds: u64,
    pub reports_in: u64,
    /// Metrics the routers said (HELLO) they hold, given to the component.
    pub held_metrics_in: u64,
    /// Reports that came before the topology was complete (not given to the component).
    pub reports_before_topology: u64,
    pub messages_out: u64,
    /// Messages for a node with no (joined) connection (dropped).
    pub unlinked: u64,
    pub write_drops: u64,
}

struct Peer {
    conn: ControlConn,
    node: Option<u32>,
}

pub struct Controller {
    pub cfg: ControllerConfig,
    pub stats: ControllerStats,
    poll: Poll,
    unix: Option<UnixListener>,
    tcp: Option<TcpListener>,
    peers: Vec<Option<Peer>>,
    node_peer: FxHashMap<u32, usize>,
    hellos: BTreeMap<u32, Hello>,
    names: NameTable,
    component: Option<Box<dyn ControllerComponent + Send>>,
    stop: Arc<AtomicBool>,
    waker: Arc<Waker>,
    clock: std::time::Instant,
}

fn io_err(what: &str, e: std::io::Error) -> String {
    format!("{what}: {e}")
}

impl Controller {
    pub fn bind(cfg: ControllerConfig) -> Result<Controller, String> {
        let poll = Poll::new().map_err(|e| io_err("poll", e))?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER).map_err(|e| io_err("waker", e))?);
        let mut c = Controller {
            cfg,
            stats: ControllerStats::default(),
            poll,
            unix: None,
            tcp: None,
            peers: Vec::new(),
            node_peer: FxHashMap::default(),
            hellos: BTreeMap::new(),
            names: NameTable::new(),
            component: None,
            stop: Arc::new(AtomicBool::new(false)),
            waker,
            clock: std::time::Instant::now(),
        };
        if let Some(path) = c.cfg.unix.clone() {
            if path.exists() {
                if std::os::unix::net::UnixStream::connect(&path).is_ok() {
                    return Err(format!("{}: another process listens there", path.display()));
                }
                std::fs::remove_file(&path).map_err(|e| io_err(&path.display().to_string(), e))?;
            }
            let mut s = UnixListener::bind(&path)
                .map_err(|e| io_err(&format!("unix {}", path.display()), e))?;
            c.poll
                .registry()
                .register(&mut s, UNIX_LISTENER, Ready::READABLE)
                .map_err(|e| io_err("register", e))?;
            c.unix = Some(s);
        }
        if let Some(addr) = c.cfg.tcp.clone() {
            use std::net::ToSocketAddrs;
            let a = addr
                .to_socket_addrs()
                .ok()
                .and_then(|mut a| a.next())
                .ok_or_else(|| format!("{addr:?} is not a HOST:PORT address"))?;
            let mut s = TcpListener::bind(a).map_err(|e| io_err(&format!("tcp {addr}"), e))?;
            c.poll
                .registry()
                .register(&mut s, TCP_LISTENER, Ready::READABLE)
                .map_err(|e| io_err("register", e))?;
            c.tcp = Some(s);
        }
        Ok(c)
    }

    pub fn stop_handle(&self) -> StopHandle {
        StopHandle::new(self.stop.clone(), self.waker.clone())
    }

    /// Stops on SIGINT and SIGTERM.
    pub fn stop_on_signals(&mut self) -> Result<(), String> {
        crate::stop::on_signals(&self.poll, SIGNAL)
    }

    /// The bound addresses, for the start-up line (and tests that bind port 0).
    pub fn addresses(&self) -> Vec<Address> {
        let mut out = Vec::new();
        if let Some(p) = &self.cfg.unix {
            out.push(Address::Unix(p.clone()));
        }
        if let Some(a) = self.tcp.as_ref().and_then(|s| s.local_addr().ok()) {
            out.push(Address::Tcp(a.to_string()));
        }
        out
    }

    fn now(&self) -> Instant {
        Instant(self.clock.elapsed().as_nanos() as u64)
    }

    fn log(&self, msg: &str) {
        eprintln!("sdn-controller: {:.3} s: {msg}", self.now().0 as f64 / 1e9);
    }

    /// Runs until stopped; returns the counters.
    pub fn run(&mut self) -> Result<ControllerStats, String> {
        let mut events = Events::with_capacity(256);
        while !self.stop.load(Ordering::SeqCst) {
            let now = self.now();
            if let Some(c) = self.component.as_mut() {
                if c.poll_timeout().is_some_and(|t| t <= now) {
                    c.on_timeout(now);
                }
            }
            self.dispatch(now);
            self.flush_all(now);
            let wait = self
                .next_wake()
                .map(|t| std::time::Duration::from_nanos(t.0.saturating_sub(self.now().0)));
            match self.poll.poll(&mut events, wait) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err("poll", e)),
            }
            for ev in events.iter() {
                match ev.token() {
                    SIGNAL => self.stop.store(true, Ordering::SeqCst),
                    WAKER => {}
                    UNIX_LISTENER => self.accept(true),
                    TCP_LISTENER => self.accept(false),
                    Token(t) if t >= CONN_BASE => {
                        let i = t - CONN_BASE;
                        if ev.is_readable() || ev.is_read_closed() {
                            self.read_peer(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(p) = &self.cfg.unix {
            let _ = std::fs::remove_file(p);
        }
        Ok(self.stats)
    }

    fn next_wake(&self) -> Option<Instant> {
        let mut t = self.component.as_ref().and_then(|c| c.poll_timeout());
        for p in self.peers.iter().flatten() {
            if let Some(d) = p.conn.next_due() {
                t = Some(t.map_or(d, |x| x.min(d)));
            }
            if p.conn.pending() > 0 {
                // a socket that did not take everything: try again soon
                let soon = self.now() + Duration::from_millis(1);
                t = Some(t.map_or(soon, |x| x.min(soon)));
            }
        }
        t
    }

    fn accept(&mut self, unix: bool) {
        loop {
            let conn = if unix {
                match self.unix.as_ref().map(|l| l.accept()) {
                    Some(Ok((s, _))) => Conn::Unix(s),
                    _ => return,
                }
            } else {
                match self.tcp.as_ref().map(|l| l.accept()) {
                    Some(Ok((s, _))) => {
                        let _ = s.set_nodelay(true);
                        Conn::Tcp(s)
                    }
                    _ => return,
                }
            };
            let slot = match self.peers.iter().position(Option::is_none) {
                Some(i) => i,
                None if self.peers.len() < MAX_CONNS => {
                    self.peers.push(None);
                    self.peers.len() - 1
                }
                None => {
                    self.log("too many control connections: one refused");
                    continue;
                }
            };
            let mut cc = ControlConn::new(conn);
            if self
                .poll
                .registry()
                .register(
                    cc.io.conn.source(),
                    Token(CONN_BASE + slot),
                    Ready::READABLE,
                )
                .is_err()
            {
                continue;
            }
            self.peers[slot] = Some(Peer {
                conn: cc,
                node: None,
            });
            self.stats.connections += 1;
        }
    }

    fn close_peer(&mut self, i: usize, why: &str) {
        let Some(mut p) = self.peers.get_mut(i).and_then(Option::take) else {
            return;
        };
        let _ = self.poll.registry().deregister(p.conn.io.conn.source());
        self.stats.disconnects += 1;
        self.stats.write_drops += p.conn.write_drops;
        let who = match p.node {
            Some(n) => {
                if self.node_peer.get(&n) == Some(&i) {
                    self.node_peer.remove(&n);
                }
                format!("node {n}")
            }
            None => "a connection before its HELLO".into(),
        };
        self.log(&format!("{who} disconnected ({why})"));
    }

    fn read_peer(&mut self, i: usize) {
        let Some(p) = self.peers.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        let (msgs, end) = match p.conn.read() {
            Read::Msgs { msgs, closed } => (msgs, closed.then(|| "closed by the router".into())),
            Read::Bad { msgs, error } => {
                self.stats.bad_frames += 1;
                (
                    msgs,
                    Some(format!("bad frame: {error}; connection dropped")),
                )
            }
        };
        let now = self.now();
        let mut end = end;
        for m in msgs {
            if let Err(e) = self.handle(i, now, m) {
                self.stats.bad_frames += 1;
                end = Some(format!("{e}; connection dropped"));
                break;
            }
        }
        self.dispatch(now);
        if let Some(why) = end {
            self.close_peer(i, &why);
        }
    }

    fn handle(&mut self, i: usize, now: Instant, m: Msg) -> Result<(), String> {
        let node = self
            .peers
            .get(i)
            .and_then(Option::as_ref)
            .and_then(|p| p.node);
        match m {
            Msg::Hello {
                node: n,
                delay_ns,
                joined,
                faces,
                routes,
                metrics,
            } => {
                if node.is_some() {
                    return Err("a second HELLO on one connection".into());
                }
                if n >= self.cfg.nodes {
                    return Err(format!(
                        "HELLO from node {n}, outside the topology's {} nodes",
                        self.cfg.nodes
                    ));
                }
                let mut tf = Vec::with_capacity(faces.len());
                for f in &faces {
                    if f.peer >= self.cfg.nodes {
                        return Err(format!(
                            "node {n}'s face {} leads to unknown node {}",
                            f.face, f.peer
                        ));
                    }
                    tf.push(TopoFace {
                        face: face_id(f.face)?,
                        link: f.link,
                        peer: f.peer,
                    });
                }
                let mut rs = Vec::with_capacity(routes.len());
                for (prefix, hops) in routes {
                    let hops = hops
                        .into_iter()
                        .map(face_id)
                        .collect::<Result<Vec<_>, _>>()?;
                    rs.push((prefix, hops));
                }
                let mut ms = Vec::with_capacity(metrics.len());
                for (prefix, face, value) in metrics {
                    ms.push((prefix, face_id(face)?, value));
                }
                let hello = Hello {
                    delay: Duration(delay_ns),
                    joined,
                    faces: tf,
                    routes: rs,
                    metrics: ms,
                };
                if let Some(old) = self.node_peer.insert(n, i) {
                    if old != i {
                        self.close_peer(old, "replaced by a new connection of the same node");
                        self.node_peer.insert(n, i);
                    }
                }
                if let Some(p) = self.peers.get_mut(i).and_then(Option::as_mut) {
                    p.node = Some(n);
                }
                self.stats.hellos += 1;
                let changed = self
                    .hellos
                    .get(&n)
                    .is_some_and(|h| h.faces != hello.faces || h.routes != hello.routes);
                self.hellos.insert(n, hello);
                self.log(&format!("node {n} connected"));
                if self.component.is_none() || changed {
                    self.build(now, changed);
                } else {
                    self.tell_metrics(now, n);
                }
                Ok(())
            }
            Msg::FaceReport { face, values } => {
                let Some(n) = node else {
                    return Err("a FACE_REPORT before HELLO".into());
                };
                let mut vs = Vec::with_capacity(values.len());
                for (k, v) in values {
                    let key = report_key(&k).ok_or_else(|| {
                        format!(
                            "unknown report key {k:?} (keys: {})",
                            super::REPORT_KEYS.join(", ")
                        )
                    })?;
                    vs.push((key, v));
                }
                self.stats.reports_in += 1;
                let joined = self.hellos.get(&n).is_some_and(|h| h.joined);
                match self.component.as_mut() {
                    Some(c) if joined => c.handle_message(
                        now,
                        &ControlMessage {
                            node: n,
                            body: ControlBody::FaceReport {
                                face: face_id(face)?,
                                values: vs,
                            },
                        },
                    ),
                    Some(_) => {}
                    None => self.stats.reports_before_topology += 1,
                }
                Ok(())
            }
            Msg::NextHop { .. } => {
                Err("a NEXT_HOP from a router (only the controller sends them)".into())
            }
        }
    }

    /// Builds the component once every node has said HELLO (again when a topology changed).
    fn build(&mut self, now: Instant, changed: bool) {
        if (self.hellos.len() as u32) < self.cfg.nodes {
            return;
        }
        let nodes = (0..self.cfg.nodes)
            .map(|n| {
                let h = &self.hellos[&n];
                TopoNode {
                    faces: h.faces.clone(),
                    routes: h
                        .routes
                        .iter()
                        .map(|(p, hops)| {
                            let hops = hops
                                .iter()
                                .copied()
                                .filter(|f| h.faces.iter().any(|t| t.face == *f))
                                .collect();
                            (self.names.intern(p), hops)
                        })
                        .collect(),
                }
            })
            .collect();
        let topo = Topology { nodes };
        self.component = Some(self.cfg.component.build(&topo));
        self.stats.builds += 1;
        for n in 0..self.cfg.nodes {
            self.tell_metrics(now, n);
        }
        self.log(&format!(
            "topology of {} nodes {}; {} running",
            self.cfg.nodes,
            if changed { "changed" } else { "learned" },
            self.cfg.component.name()
        ));
    }

    /// Tells the component the metrics router `n` holds (its HELLO's): which next hop it
    /// forwards on now.
    fn tell_metrics(&mut self, now: Instant, n: u32) {
        let (Some(c), Some(h)) = (self.component.as_mut(), self.hellos.get(&n)) else {
            return;
        };
        if !h.joined {
            return;
        }
        for (prefix, face, value) in &h.metrics {
            self.stats.held_metrics_in += 1;
            let prefix = self.names.intern(prefix);
            c.handle_message(
                now,
                &ControlMessage {
                    node: n,
                    body: ControlBody::NextHopValue {
                        prefix,
                        face: *face,
                        value: *value,
                    },
                },
            );
        }
    }

    /// Sends what the component has for the routers, each held for its link's delay.
    fn dispatch(&mut self, now: Instant) {
        let Some(c) = self.component.as_mut() else {
            return;
        };
        while let Some(m) = c.poll_message() {
            let ControlBody::NextHopValue {
                prefix,
                face,
                value,
            } = m.body
            else {
                self.stats.unlinked += 1;
                continue;
            };
            let to = self
                .hellos
                .get(&m.node)
                .filter(|h| h.joined)
                .and_then(|h| self.node_peer.get(&m.node).map(|&i| (i, h.delay)));
            let Some((i, delay)) = to else {
                self.stats.unlinked += 1;
                continue;
            };
            let Some(p) = self.peers.get_mut(i).and_then(Option::as_mut) else {
                self.stats.unlinked += 1;
                continue;
            };
            p.conn.send_at(
                now + delay,
                &Msg::NextHop {
                    prefix: self.names.uri(prefix),
                    face: u64::from(face.0),
                    value,
                },
            );
            self.stats.messages_out += 1;
        }
    }

    fn flush_all(&mut self, now: Instant) {
        let mut failed = Vec::new();
        for (i, p) in self.peers.iter_mut().enumerate() {
            if let Some(p) = p {
                if let Err(e) = p.conn.flush(now) {
                    failed.push((i, e.to_string()));
                }
            }
        }
        for (i, e) in failed {
            self.close_peer(i, &format!("write failed: {e}"));
        }
    }

    /// The counters and the component's own, as one JSON object.
    pub fn report(&self) -> String {
        let counters: serde_json::Map<String, serde_json::Value> = self
            .component
            .as_ref()
            .map(|c| c.counters())
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect();
        serde_json::json!({
            "controller": self.stats,
            "component": self.cfg.component.name(),
            "nodes_known": self.hellos.len(),
            "counters": counters,
        })
        .to_string()
    }
}

fn face_id(face: u64) -> Result<FaceId, String> {
    u32::try_from(face)
        .map(FaceId)
        .map_err(|_| format!("face {face} out of range"))
}
