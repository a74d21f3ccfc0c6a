//! `faces/create` towards a TCP address without stalling the loop: the connect is started
//! non-blocking, the loop goes on forwarding, and the command's reply goes out when the socket
//! turns writable (200, the new face; or 409, a face that opened meanwhile) or the connect
//! fails or times out (406, as a refused connect always did). The `[[face]]` entries of the
//! config are opened before the loop starts and still connect in place
//! ([`Daemon::open_uri`]).

use super::face::scheme;
use super::io::{tcp_connected, Conn, FaceIo, StreamIo};
use super::Daemon;
use mio::Interest as Ready;
use mio::Token;
use ndncc_core::face::FaceId;
use ndncc_core::time::{Duration, Instant};
use ndncc_wire::mgmt::{ControlParameters, ControlResponse};
use ndncc_wire::{Data, Name};
use std::net::SocketAddr;

/// How long a face's TCP connect may stay under way before the command fails (406).
pub const FACE_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Most `faces/create` connects under way at once; more are refused (503) until one ends.
pub const MAX_DIALS: usize = 256;
/// Connect `k` is token `DIAL_TOP - k` (above the stream faces' range, below the control
/// connection's token).
pub(super) const DIAL_TOP: usize = usize::MAX - 2;

/// A `faces/create` whose TCP connect is under way.
#[derive(Debug)]
pub(super) struct Dialing {
    sock: mio::net::TcpStream,
    deadline: Instant,
    /// The face the command came on and the command Interest's name (its reply's name).
    requester: FaceId,
    reply_name: Name,
    params: ControlParameters,
    /// The URI as asked (a face already going there answers 409) and the peer.
    uri: String,
    remote: SocketAddr,
}

impl Daemon {
    /// Starts the connect of a `faces/create` for `tcp`/`tcp4`/`tcp6` `uri` (to `remote`);
    /// the reply goes out when it ends.
    pub(super) fn dial_face(
        &mut self,
        now: Instant,
        requester: FaceId,
        reply_name: Name,
        params: ControlParameters,
        uri: String,
        remote: SocketAddr,
    ) {
        let Some(k) = self.dials.iter().position(Option::is_none).or_else(|| {
            (self.dials.len() < MAX_DIALS).then(|| {
                self.dials.push(None);
                self.dials.len() - 1
            })
        }) else {
            let text = format!("{MAX_DIALS} face connects are under way; try again later");
            return self.reply_command(requester, reply_name, 503, &text, params);
        };
        let mut sock = match mio::net::TcpStream::connect(remote) {
            Ok(s) => s,
            Err(e) => {
                return self.reply_command(
                    requester,
                    reply_name,
                    406,
                    &format!("connect {uri}: {e}"),
                    params,
                )
            }
        };
        if let Err(e) =
            self.poll
                .registry()
                .register(&mut sock, Token(DIAL_TOP - k), Ready::WRITABLE)
        {
            let text = format!("connect {uri}: {e}");
            return self.reply_command(requester, reply_name, 406, &text, params);
        }
        self.dials[k] = Some(Dialing {
            sock,
            deadline: now + FACE_CONNECT_TIMEOUT,
            requester,
            reply_name,
            params,
            uri,
            remote,
        });
    }

    /// The token of connect `k` turned writable: connected (the face opens), failed, or a
    /// spurious wake-up.
    pub(super) fn dial_event(&mut self, k: usize) {
        let Some(Some(d)) = self.dials.get(k) else {
            return;
        };
        match tcp_connected(&d.sock) {
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
        let _ = self.poll.registry().deregister(&mut d.sock);
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
                let local = d
                    .sock
                    .local_addr()
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                let link = self.cfg.link;
                let id = self.add_face(
                    FaceIo::Stream(StreamIo::new(Conn::Tcp(d.sock))),
                    format!("{}://{}", scheme("tcp", &d.remote), d.remote),
                    format!("{}://{local}", scheme("tcp", &d.remote)),
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
