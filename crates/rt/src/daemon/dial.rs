//! `faces/create` towards a TCP or Unix address without stalling the loop: the connect is
//! started non-blocking, the loop goes on forwarding, and the command's reply goes out when the
//! socket turns writable (200, the new face; or 409, a face that opened meanwhile) or the
//! connect fails or times out (406, as a refused connect always did). A Unix connect is
//! answered at once on Linux: connected (the face opens and the reply goes out in the same
//! turn, as before), refused, or the listener's accept queue is full (406: a blocking connect
//! would wait for the listener, with the loop stopped). The `[[face]]` entries of the config
//! are opened before the loop starts and still connect in place ([`Daemon::open_uri`]).

use super::face::scheme;
use super::io::{connected, unix_connect, Conn, FaceIo, StreamIo};
use super::Daemon;
use mio::Interest as Ready;
use mio::Token;
use ndncc_core::face::FaceId;
use ndncc_core::time::{Duration, Instant};
use ndncc_wire::mgmt::{ControlParameters, ControlResponse};
use ndncc_wire::{Data, Name};
use std::net::SocketAddr;
use std::path::PathBuf;

/// How long a face's connect may stay under way before the command fails (406).
pub const FACE_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Most `faces/create` connects under way at once; more are refused (503) until one ends.
pub const MAX_DIALS: usize = 256;
/// Connect `k` is token `DIAL_TOP - k` (above the stream faces' range, below the control
/// connection's token).
pub(super) const DIAL_TOP: usize = usize::MAX - 2;

/// Where a `faces/create` connects.
#[derive(Debug)]
pub(super) enum Peer {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

/// A `faces/create` whose connect is under way.
#[derive(Debug)]
pub(super) struct Dialing {
    sock: Conn,
    deadline: Instant,
    /// The face the command came on and the command Interest's name (its reply's name).
    requester: FaceId,
    reply_name: Name,
    params: ControlParameters,
    /// The URI as asked (a face already going there answers 409) and the peer.
    uri: String,
    remote: Peer,
}

impl Daemon {
    /// Starts the connect of a `faces/create` for `uri` (`tcp`/`tcp4`/`tcp6` or `unix`, to
    /// `remote`); the reply goes out when it ends (at once when it ends at once).
    pub(super) fn dial_face(
        &mut self,
        now: Instant,
        requester: FaceId,
        reply_name: Name,
        params: ControlParameters,
        uri: String,
        remote: Peer,
    ) {
        let busy = format!("{MAX_DIALS} face connects are under way; try again later");
        // a TCP connect always waits for its slot: none free, none is started
        let full = self.dials.len() >= MAX_DIALS && self.dials.iter().all(Option::is_some);
        if full && matches!(remote, Peer::Tcp(_)) {
            return self.reply_command(requester, reply_name, 503, &busy, params);
        }
        let started = match &remote {
            Peer::Tcp(a) => mio::net::TcpStream::connect(*a).map(|s| (Conn::Tcp(s), false)),
            Peer::Unix(p) => unix_connect(p).map(|(s, up)| (Conn::Unix(s), up)),
        };
        let (sock, up) = match started {
            Ok(s) => s,
            Err(e) => {
                let text = format!("connect {uri}: {e}");
                return self.reply_command(requester, reply_name, 406, &text, params);
            }
        };
        let mut d = Dialing {
            sock,
            deadline: now + FACE_CONNECT_TIMEOUT,
            requester,
            reply_name,
            params,
            uri,
            remote,
        };
        if up {
            return self.dial_finish(d, None);
        }
        let Some(k) = self.dials.iter().position(Option::is_none).or_else(|| {
            (self.dials.len() < MAX_DIALS).then(|| {
                self.dials.push(None);
                self.dials.len() - 1
            })
        }) else {
            return self.reply_command(d.requester, d.reply_name, 503, &busy, d.params);
        };
        if let Err(e) =
            self.poll
                .registry()
                .register(d.sock.source(), Token(DIAL_TOP - k), Ready::WRITABLE)
        {
            let text = format!("connect {}: {e}", d.uri);
            return self.reply_command(d.requester, d.reply_name, 406, &text, d.params);
        }
        self.dials[k] = Some(d);
    }

    /// The token of connect `k` turned writable: connected (the face opens), failed, or a
    /// spurious wake-up.
    pub(super) fn dial_event(&mut self, k: usize) {
        let Some(Some(d)) = self.dials.get(k) else {
            return;
        };
        match connected(&d.sock) {
            Ok(false) => {}
            Ok(true) => self.dial_end(k, None),
            Err(e) => self.dial_end(k, Some(e.to_string())),
        }
    }

    /// Fails the connects still under way at their deadline.
    pub(super) fn dial_turn(&mut self, now: Instant) {
        for k in 0..self.dials.len() {
            if self.dials[k].as_ref().is_some_and(|d| now >= d.deadline) {
                self.dial_end(k, Some("connection timed out".into()));
            }
        }
    }

    /// When the next connect times out.
    pub(super) fn dial_wake(&self) -> Option<Instant> {
        self.dials.iter().flatten().map(|d| d.deadline).min()
    }

    /// Connect `k` ended: the face opens (`failed` None) and the command is answered.
    fn dial_end(&mut self, k: usize, failed: Option<String>) {
        let Some(mut d) = self.dials.get_mut(k).and_then(Option::take) else {
            return;
        };
        let _ = self.poll.registry().deregister(d.sock.source());
        self.dial_finish(d, failed);
    }

    /// A connect ended (its socket not registered): the face opens (`failed` None) and the
    /// command is answered.
    fn dial_finish(&mut self, d: Dialing, failed: Option<String>) {
        if let Some(e) = failed {
            let text = format!("connect {}: {e}", d.uri);
            return self.reply_command(d.requester, d.reply_name, 406, &text, d.params);
        }
        let mut p = d.params;
        let existing = self
            .open_faces()
            .find(|(_, f)| f.uri == d.uri)
            .map(|(id, _)| id);
        let (id, code, text) = match existing {
            // one opened while this connect was under way: this socket closes
            Some(id) => (id, 409, "face exists"),
            None => {
                let (remote, local) = match (&d.remote, &d.sock) {
                    (Peer::Tcp(a), Conn::Tcp(s)) => {
                        let local = s.local_addr().map(|a| a.to_string()).unwrap_or_default();
                        let kind = scheme("tcp", a);
                        (format!("{kind}://{a}"), format!("{kind}://{local}"))
                    }
                    // as a Unix face always was: the URI as asked, an unnamed local end
                    _ => (d.uri.clone(), "unix://".to_string()),
                };
                let link = self.cfg.link;
                let id = self.add_face(
                    FaceIo::Stream(StreamIo::new(d.sock)),
                    remote,
                    local,
                    &link,
                    p.face_persistency.unwrap_or(0),
                );
                (id, 200, "OK")
            }
        };
        self.describe_face(id, &mut p);
        self.reply_command(d.requester, d.reply_name, code, text, p);
    }

    /// A command's reply, named as its Interest (see `mgmt.rs`).
    fn reply_command(
        &mut self,
        face: FaceId,
        name: Name,
        code: u64,
        text: &str,
        body: ControlParameters,
    ) {
        let r = ControlResponse::new(code, text, body);
        self.send_reply(face, Data::new(name, r.encode()));
    }
}
