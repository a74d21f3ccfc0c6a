//! The router side of the control plane (`[sdn]`, `docs/sdn-control-protocol.md`): the
//! connection to the SDN controller, kept up with back-off. On each connection the router says
//! HELLO (its node index, faces and FIB); the messages its module sends (`ModuleAction::Control`)
//! go to the controller after the control link's delay; the controller's messages go to the
//! module (`Forwarder::handle_control`). While disconnected, the module's messages are dropped
//! (counted): its next periodic report brings the controller up to date.

use super::{Daemon, FACE_ID_OFFSET};
use crate::boundary::names::NameMapper;
use crate::sdn::frame::{HelloFace, Msg};
use crate::sdn::link::{connect, Backoff, ControlConn, Read};
use crate::sdn::Address;
use mio::{Interest as Ready, Token};
use ndncc_core::control::ControlBody;
use ndncc_core::face::FaceId;
use ndncc_core::time::{Duration, Instant};
use std::sync::Arc;

/// The control connection's token (below the stream faces' range would collide; this one is
/// matched before it).
pub(super) const CONTROL: Token = Token(usize::MAX - 1);

/// The router side's counters (in the daemon's report, `sdn`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SdnStats {
    pub connects: u64,
    pub connect_failures: u64,
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
        if s.conn.is_none() && now >= s.next_try {
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
        match &s.conn {
            None => Some(s.next_try),
            Some(c) => c.next_due(),
        }
    }

    fn sdn_connect(&mut self, now: Instant) {
        let Some(s) = self.sdn.as_mut() else {
            return;
        };
        match connect(&s.addr) {
            Ok(conn) => {
                let mut c = ControlConn::new(conn);
                if self
                    .poll
                    .registry()
                    .register(c.io.conn.source(), CONTROL, Ready::READABLE)
                    .is_err()
                {
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
            Err(e) => {
                s.stats.connect_failures += 1;
                let wait = s.backoff.failed();
                s.next_try = now + wait;
                if s.stats.connect_failures == 1 {
                    eprintln!(
                        "ndnccd: sdn: cannot reach the controller at {} ({e}); retrying",
                        s.addr
                    );
                }
            }
        }
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
