//! The daemon's faces: opening and closing them, reading frames in, writing packets out.

use super::io::{Conn, FaceIo, ReadOutcome, StreamIo};
use super::link::Link;
use super::{Daemon, FACE_BASE, UDP_MTU};
use crate::boundary::convert;
use crate::boundary::names::{NameMapper, HASHED_BIT};
use mio::Interest as Ready;
use mio::Token;
use ndncc_core::face::{FaceId, FaceKind, QueueLimit};
use ndncc_core::name::Name;
use ndncc_core::packet::{Packet, PacketType};
use ndncc_core::time::{Duration, Instant};
use ndncc_wire::reassembly::{self, Reassembled, Reassembler};
use ndncc_wire::{Frame, LpPacketView, NetPacket};
use std::net::SocketAddr;
use std::sync::Arc;

/// Bytes read from one stream face per readiness event before the others get their turn.
const READ_BUDGET: usize = 256 * 1024;

/// One face of the daemon.
#[derive(Debug)]
pub struct DFace {
    pub io: FaceIo,
    pub link: Link,
    pub reassembler: Reassembler,
    pub uri: String,
    pub local_uri: String,
    /// FacePersistency: 0 persistent, 1 on-demand, 2 permanent.
    pub persistency: u64,
    /// Local (Unix socket) or not.
    pub local: bool,
}

impl DFace {
    /// Writes what the socket takes of a stream face's buffer (at shutdown).
    pub fn flush_all(&mut self) {
        if let FaceIo::Stream(s) = &mut self.io {
            let _ = s.flush();
        }
    }
}

impl Daemon {
    /// Adds a face to the forwarder and the daemon; stream faces are registered for reading.
    pub(super) fn add_face(
        &mut self,
        mut io: FaceIo,
        uri: String,
        local_uri: String,
        link: &super::config::LinkConfig,
        persistency: u64,
    ) -> FaceId {
        let id = self.fwd.add_face(
            FaceKind::Net {
                peer: u32::MAX,
                link: self.faces.len() as u32,
            },
            link.queue,
        );
        // router modules (MIRCC's capacity, shapers) read the emulated bandwidth
        self.fwd.core.faces[id.0 as usize].bandwidth = link
            .bandwidth_mbps
            .map(|m| ndncc_core::time::BitRate((m * 1e6).round() as u64));
        if let FaceIo::Stream(s) = &mut io {
            let token = Token(FACE_BASE + id.0 as usize);
            if self
                .poll
                .registry()
                .register(s.conn.source(), token, Ready::READABLE)
                .is_err()
            {
                self.fwd.close_face(id);
                self.faces.push(None);
                return id;
            }
        }
        if let FaceIo::Udp { remote, .. } = &io {
            self.udp_faces.insert(*remote, id);
        }
        let local = matches!(
            &io,
            FaceIo::Stream(StreamIo {
                conn: Conn::Unix(_),
                ..
            })
        );
        self.faces.push(Some(DFace {
            io,
            link: Link::new(link),
            reassembler: Reassembler::default(),
            uri,
            local_uri,
            persistency,
            local,
        }));
        self.stats.faces_opened += 1;
        id
    }

    /// Closes a face: its routes go (forwarder and RIB), its socket closes, nothing else of the
    /// forwarder's state changes.
    pub(super) fn close_face(&mut self, id: FaceId) {
        let Some(slot) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        let Some(mut f) = slot.take() else {
            return;
        };
        match &mut f.io {
            FaceIo::Stream(s) => {
                let _ = self.poll.registry().deregister(s.conn.source());
            }
            FaceIo::Udp { remote, .. } => {
                self.udp_faces.remove(remote);
            }
        }
        if let Some(c) = self.fwd.core.faces.get(id.0 as usize) {
            let at_close = (c.counters.drops, c.counters.drop_bytes);
            self.closed_drops.insert(id, at_close);
        }
        self.fwd.close_face(id);
        self.rib.retain(|r| r.face != id);
        self.backlog.retain(|&b| b != id);
        self.stats.faces_closed += 1;
    }

    pub(super) fn face(&self, id: FaceId) -> Option<&DFace> {
        self.faces.get(id.0 as usize).and_then(Option::as_ref)
    }

    pub(super) fn open_faces(&self) -> impl Iterator<Item = (FaceId, &DFace)> {
        self.faces
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (FaceId(i as u32), f)))
    }

    pub(super) fn accept_unix(&mut self) {
        loop {
            let Some(l) = &self.unix else { return };
            match l.accept() {
                Ok((s, _)) => {
                    let path = self.cfg.listen.unix.clone().unwrap_or_default();
                    let link = self.cfg.link;
                    self.add_face(
                        FaceIo::Stream(StreamIo::new(Conn::Unix(s))),
                        format!("fd://{}", self.faces.len()),
                        format!("unix://{}", path.display()),
                        &link,
                        1,
                    );
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => return,
            }
        }
    }

    pub(super) fn accept_tcp(&mut self) {
        loop {
            let Some(l) = &self.tcp else { return };
            let local = l.local_addr().map(|a| a.to_string()).unwrap_or_default();
            match l.accept() {
                Ok((s, peer)) => {
                    let _ = s.set_nodelay(true);
                    let link = self.cfg.link;
                    self.add_face(
                        FaceIo::Stream(StreamIo::new(Conn::Tcp(s))),
                        format!("{}://{peer}", scheme("tcp", &peer)),
                        format!("{}://{local}", scheme("tcp", &peer)),
                        &link,
                        1,
                    );
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => return,
            }
        }
    }

    /// Opens a face to `uri` ("udp4://H:P", "tcp4://H:P", "unix:///path"); the existing face
    /// when one already goes there.
    pub(super) fn open_uri(
        &mut self,
        uri: &str,
        link: &super::config::LinkConfig,
        persistency: u64,
    ) -> Result<(FaceId, bool), String> {
        if let Some((id, _)) = self.open_faces().find(|(_, f)| f.uri == uri) {
            return Ok((id, false));
        }
        let (kind, rest) = uri
            .split_once("://")
            .ok_or_else(|| format!("{uri:?} is not a face URI"))?;
        let id = match kind {
            "udp" | "udp4" | "udp6" => {
                let remote = super::parse_addr(rest)?;
                if let Some(&id) = self.udp_faces.get(&remote) {
                    return Ok((id, false));
                }
                let socket = match self.udp.iter().position(|s| {
                    s.local_addr()
                        .is_ok_and(|a| a.is_ipv4() == remote.is_ipv4())
                }) {
                    Some(i) => i,
                    None => {
                        let any: SocketAddr = if remote.is_ipv4() {
                            "0.0.0.0:0".parse().map_err(|_| "address".to_string())?
                        } else {
                            "[::]:0".parse().map_err(|_| "address".to_string())?
                        };
                        self.bind_udp(any)?
                    }
                };
                let local = self.udp[socket]
                    .local_addr()
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                self.add_face(
                    FaceIo::Udp { socket, remote },
                    format!("{}://{remote}", scheme("udp", &remote)),
                    format!("{}://{local}", scheme("udp", &remote)),
                    link,
                    persistency,
                )
            }
            "tcp" | "tcp4" | "tcp6" => {
                let remote = super::parse_addr(rest)?;
                let s = std::net::TcpStream::connect_timeout(
                    &remote,
                    std::time::Duration::from_secs(3),
                )
                .map_err(|e| format!("connect {uri}: {e}"))?;
                s.set_nonblocking(true)
                    .map_err(|e| format!("connect {uri}: {e}"))?;
                let _ = s.set_nodelay(true);
                let local = s.local_addr().map(|a| a.to_string()).unwrap_or_default();
                self.add_face(
                    FaceIo::Stream(StreamIo::new(Conn::Tcp(mio::net::TcpStream::from_std(s)))),
                    format!("{}://{remote}", scheme("tcp", &remote)),
                    format!("{}://{local}", scheme("tcp", &remote)),
                    link,
                    persistency,
                )
            }
            "unix" => {
                let s = std::os::unix::net::UnixStream::connect(rest)
                    .map_err(|e| format!("connect {uri}: {e}"))?;
                s.set_nonblocking(true)
                    .map_err(|e| format!("connect {uri}: {e}"))?;
                self.add_face(
                    FaceIo::Stream(StreamIo::new(Conn::Unix(mio::net::UnixStream::from_std(s)))),
                    uri.to_string(),
                    "unix://".into(),
                    link,
                    persistency,
                )
            }
            _ => return Err(format!("{uri:?}: unsupported face scheme {kind:?}")),
        };
        Ok((id, true))
    }

    pub(super) fn open_static_faces(&mut self) -> Result<(), String> {
        let faces = self.cfg.faces.clone();
        let mut ids = Vec::new();
        for (i, f) in faces.iter().enumerate() {
            let link = f.link.unwrap_or(self.cfg.link);
            let (id, _) = self
                .open_uri(&f.uri, &link, 2)
                .map_err(|e| format!("face[{i}]: {e}"))?;
            ids.push(id);
        }
        self.static_faces = ids.clone();
        for r in self.cfg.routes.clone() {
            let name = ndncc_wire::Name::from_uri(&r.prefix).map_err(|e| e.to_string())?;
            let wire = name.to_wire();
            let view = ndncc_wire::NameView::decode(&wire).map_err(|e| e.to_string())?;
            let id = ids[r.face];
            self.register(&view, id, r.cost, 255, 0);
        }
        Ok(())
    }

    /// Reads a stream face and handles every complete frame.
    pub(super) fn read_stream(&mut self, id: FaceId) {
        let max_packet = self.cfg.forwarder.max_packet;
        let Some(Some(f)) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        let FaceIo::Stream(s) = &mut f.io else { return };
        let outcome = s.fill(READ_BUDGET);
        let mut buf = std::mem::take(&mut s.rbuf);
        let mut pos = 0;
        let mut bad = false;
        loop {
            let rest = buf.get(pos..).unwrap_or_default();
            match ndncc_wire::packet::element_len(rest, max_packet) {
                Ok(Some(n)) => {
                    let start = pos;
                    pos += n;
                    // `buf` is out of the face while its frames are handled: no copy
                    self.handle_frame(id, buf.get(start..pos).unwrap_or_default());
                }
                Ok(None) => break,
                Err(_) => {
                    // a stream cannot resynchronise after a bad header: count and close
                    self.stats.malformed += 1;
                    bad = true;
                    break;
                }
            }
        }
        buf.drain(..pos.min(buf.len()));
        if bad || outcome == ReadOutcome::Closed {
            self.close_face(id);
            return;
        }
        if let Some(Some(f)) = self.faces.get_mut(id.0 as usize) {
            if let FaceIo::Stream(s) = &mut f.io {
                s.rbuf = buf;
            }
        }
        if outcome == ReadOutcome::More && !self.reread.contains(&id) {
            self.reread.push(id);
        }
    }

    pub(super) fn flush_stream(&mut self, id: FaceId) {
        let Some(Some(f)) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        let FaceIo::Stream(s) = &mut f.io else { return };
        if s.flush().is_err() {
            self.close_face(id);
            return;
        }
        self.update_write_interest(id);
    }

    fn update_write_interest(&mut self, id: FaceId) {
        let Some(Some(f)) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        let FaceIo::Stream(s) = &mut f.io else { return };
        let want = s.pending() > 0;
        if want != s.want_write {
            let interest = if want {
                Ready::READABLE | Ready::WRITABLE
            } else {
                Ready::READABLE
            };
            let token = Token(FACE_BASE + id.0 as usize);
            if self
                .poll
                .registry()
                .reregister(s.conn.source(), token, interest)
                .is_ok()
            {
                s.want_write = want;
            }
        }
    }

    /// One received frame (datagram or stream element) of face `id`.
    pub(super) fn handle_frame(&mut self, id: FaceId, bytes: &[u8]) {
        let now = self.now();
        let frame = match Frame::decode_with(bytes, &self.types) {
            Ok(f) => f,
            Err(_) => {
                self.stats.malformed += 1;
                return;
            }
        };
        if let (Some(lp), None) = (frame.lp, frame.net) {
            if lp.fragment.is_some() {
                self.reassemble(id, now, lp);
            }
            return; // Ack-only or IDLE packets carry nothing for us
        }
        self.handle_net(id, now, &frame);
    }

    fn reassemble(&mut self, id: FaceId, now: Instant, lp: LpPacketView<'_>) {
        let Some(Some(f)) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        let whole = match f.reassembler.receive(now.0, lp) {
            Ok(Reassembled::Complete(p)) => p.encode_with(&self.types),
            Ok(_) => return,
            Err(_) => {
                self.stats.malformed += 1;
                return;
            }
        };
        match whole {
            Ok(bytes) => {
                self.stats.reassembled += 1;
                match Frame::decode_with(&bytes, &self.types) {
                    Ok(fr) if fr.net.is_some() => self.handle_net(id, now, &fr),
                    _ => self.stats.malformed += 1,
                }
            }
            Err(_) => self.stats.malformed += 1,
        }
    }

    fn handle_net(&mut self, id: FaceId, now: Instant, frame: &Frame<'_>) {
        match frame.net {
            Some(NetPacket::Interest(i)) => {
                if !frame.is_nack() && self.handle_mgmt(id, &i) {
                    return;
                }
                let table = Arc::make_mut(&mut self.fwd.core.names);
                let name = self.mapper.to_core(table, &i.name);
                let nonce = i.nonce.unwrap_or_else(|| {
                    // ndnd drops nonce-less Interests: the core's nonce is written into the
                    // Interest when it leaves (convert::interest_wire)
                    self.stats.nonce_added += 1;
                    self.random() as u32
                });
                let core = convert::interest_to_core(&i, frame.lp.as_ref(), name, nonce);
                let expiry = now + core.lifetime;
                if let Some(tok) = frame.lp.and_then(|l| l.pit_token) {
                    self.store.tokens.insert((name, id), tok.to_vec(), expiry);
                }
                if let Some(nack) = frame.lp.and_then(|l| l.nack) {
                    self.tokens.check(name, frame.lp.and_then(|l| l.pit_token));
                    let size = frame.lp.map_or(0, |l| l.wire.len());
                    let n = convert::nack_to_core(core, nack.reason, size);
                    self.fwd.handle_packet(now, id, Packet::Nack(n));
                } else {
                    self.store
                        .interests
                        .insert((name, nonce), i.wire.to_vec(), expiry);
                    self.fwd.handle_packet(now, id, Packet::Interest(core));
                }
            }
            Some(NetPacket::Data(d)) => {
                let table = Arc::make_mut(&mut self.fwd.core.names);
                let exact = self.mapper.to_core(table, &d.name);
                let name = self.can_be_prefix_match(exact).unwrap_or(exact);
                self.tokens.check(name, frame.lp.and_then(|l| l.pit_token));
                let core = convert::data_to_core(&d, frame.lp.as_ref(), name, now);
                let hold = Duration::from_millis(self.cfg.forwarder.data_hold_ms);
                self.store.data.insert(name, d.wire.to_vec(), now + hold);
                self.fwd.handle_packet(now, id, Packet::Data(core));
            }
            None => {}
        }
        self.collect_ready();
    }

    /// The pending CanBePrefix Interest a Data satisfies when no Interest asked for its exact
    /// name: the core PIT matches exact names only, so the Data is handed to the core under
    /// the name of the longest pending Interest that is a prefix of its name and allows it
    /// (its bytes, the Data's own name included, go out unchanged). Names in the hashed form
    /// (a full name table) are matched exactly only.
    fn can_be_prefix_match(&self, name: Name) -> Option<Name> {
        let pit = &self.fwd.core.pit;
        if pit.get(&name).is_some() {
            return None;
        }
        let hashed = name.seq.is_some_and(|s| s & HASHED_BIT != 0);
        let mut cur = (!hashed).then_some(name.base);
        if name.seq.is_none() {
            cur = self.fwd.core.names.parent(name.base);
        }
        while let Some(id) = cur {
            let candidate = Name::prefix(id);
            if pit
                .get(&candidate)
                .is_some_and(|e| e.interest.can_be_prefix)
            {
                return Some(candidate);
            }
            cur = self.fwd.core.names.parent(id);
        }
        None
    }

    /// Faces whose core queue became non-empty join the backlog.
    pub(super) fn collect_ready(&mut self) {
        let mut ready = std::mem::take(&mut self.fwd.core.ready);
        for f in ready.drain(..) {
            if !self.backlog.contains(&f) {
                self.backlog.push(f);
            }
        }
        self.fwd.core.ready = ready;
    }

    /// Moves packets from the core queues onto free links, and links' arrivals onto sockets.
    pub(super) fn transmit(&mut self, now: Instant) {
        self.collect_ready();
        let mut i = 0;
        while i < self.backlog.len() {
            let id = self.backlog[i];
            let mut emptied = false;
            loop {
                let waiting = self
                    .fwd
                    .core
                    .faces
                    .get(id.0 as usize)
                    .map_or(0, |f| f.queue_len());
                if let Some(Some(f)) = self.faces.get_mut(id.0 as usize) {
                    f.link.queue_seen(now, waiting);
                }
                let free = self.face(id).is_some_and(|f| f.link.free(now));
                if !free {
                    break;
                }
                match self.fwd.poll_transmit(now, id) {
                    Some(p) => {
                        if let Some(bytes) = self.egress(id, &p) {
                            if let Some(Some(f)) = self.faces.get_mut(id.0 as usize) {
                                f.link.send(now, bytes);
                            }
                        }
                    }
                    None => {
                        emptied = true;
                        break;
                    }
                }
            }
            if emptied || self.face(id).is_none() {
                self.backlog.swap_remove(i);
            } else {
                i += 1;
            }
        }
        for idx in 0..self.faces.len() {
            let id = FaceId(idx as u32);
            while let Some(bytes) = self
                .faces
                .get_mut(idx)
                .and_then(Option::as_mut)
                .and_then(|f| f.link.arrived(now))
            {
                self.write(id, &bytes);
            }
        }
        for id in std::mem::take(&mut self.unflushed) {
            self.flush_stream(id);
        }
        self.flush_udp();
        self.collect_ready();
    }

    /// The bytes to send for a core packet leaving on `face`.
    fn egress(&mut self, face: FaceId, p: &Packet) -> Option<Vec<u8>> {
        let token = |s: &mut Self| {
            let t = s.store.tokens.get(&(p.name(), face)).cloned();
            s.tokens.stats.returned += u64::from(t.is_some());
            t
        };
        let out = match p {
            Packet::Interest(i) => {
                let Some(stored) = self.store.interests.get(&(i.name, i.nonce)) else {
                    self.stats.missing_bytes += 1;
                    return None;
                };
                let tok = self.tokens.issue(i.name);
                convert::encode_interest(stored, i, Some(&tok), &self.types)
            }
            Packet::Data(d) => {
                let tok = token(self);
                let Some(stored) = self.store.data.get(&d.name) else {
                    self.stats.missing_bytes += 1;
                    return None;
                };
                convert::encode_data(stored, d, tok.as_deref(), &self.types)
            }
            Packet::Nack(n) => {
                let tok = token(self);
                let key = (n.interest.name, n.interest.nonce);
                let Some(stored) = self.store.interests.get(&key) else {
                    self.stats.missing_bytes += 1;
                    return None;
                };
                convert::encode_nack(stored, n, tok.as_deref(), &self.types)
            }
        };
        out.ok()
    }

    /// Writes one frame to a face: queued (stream bytes, or UDP datagrams fragmented above the
    /// MTU), written at the end of the turn.
    pub(super) fn write(&mut self, id: FaceId, bytes: &[u8]) {
        let max = self.cfg.forwarder.max_write_buffer;
        let Some(Some(f)) = self.faces.get_mut(id.0 as usize) else {
            return;
        };
        match &mut f.io {
            FaceIo::Stream(s) => {
                if !s.queue(bytes, max) {
                    self.stats.write_drops += 1;
                } else if !self.unflushed.contains(&id) {
                    self.unflushed.push(id);
                }
            }
            FaceIo::Udp { socket, remote } => {
                let (socket, remote) = (*socket, *remote);
                for d in self.udp_frames(bytes) {
                    self.queue_udp(socket, d, remote);
                }
            }
        }
    }

    fn udp_frames(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        if bytes.len() <= UDP_MTU {
            return vec![bytes.to_vec()];
        }
        let (headers, packet) = match Frame::decode_with(bytes, &self.types) {
            Ok(Frame { lp: Some(lp), .. }) => {
                let mut h = lp.to_owned();
                let packet = h.fragment.take().unwrap_or_default();
                (h, packet)
            }
            _ => (ndncc_wire::LpPacket::default(), bytes.to_vec()),
        };
        let seq = self.next_udp_seq;
        match reassembly::fragment(&packet, &headers, UDP_MTU, seq, &self.types) {
            Ok(frags) => {
                self.next_udp_seq = seq.wrapping_add(frags.len() as u64);
                frags
            }
            Err(_) => Vec::new(),
        }
    }

    /// Registers `prefix` on `face` (management or config): the forwarder's route and the RIB.
    pub(super) fn register(
        &mut self,
        prefix: &ndncc_wire::NameView<'_>,
        face: FaceId,
        cost: u32,
        origin: u64,
        flags: u64,
    ) -> ndncc_core::name::NameId {
        let table = Arc::make_mut(&mut self.fwd.core.names);
        let id = NameMapper::intern_prefix(table, prefix);
        self.fwd.add_route(id, face, cost);
        match self
            .rib
            .iter_mut()
            .find(|r| r.prefix == id && r.face == face && r.origin == origin)
        {
            Some(r) => r.cost = cost,
            None => self.rib.push(super::RibRoute {
                prefix: id,
                face,
                cost,
                origin,
                flags,
            }),
        }
        id
    }
}

/// "udp4"/"udp6" (or tcp) by address family.
pub(super) fn scheme(base: &str, a: &SocketAddr) -> String {
    format!("{base}{}", if a.is_ipv4() { 4 } else { 6 })
}

impl Daemon {
    /// Packets in links and queues (for tests and the memory figures).
    pub fn in_flight(&self) -> usize {
        self.open_faces().map(|(_, f)| f.link.in_flight()).sum()
    }

    /// Open faces.
    pub fn face_count(&self) -> usize {
        self.open_faces().count()
    }

    /// Each face's emulated queue and what it dropped, for the stop report: `id` (as on the
    /// wire), `uri` (null once the face closed: its counters stay), `queue` ("100p",
    /// "1500000B", or "closed"), `drops` and `drop_bytes` (packets its transmit queue refused
    /// while the face was open: overflow or a scheme's queue discipline), `after_close` (packets
    /// sent to it after it closed, e.g. Data for a consumer that has exited), `marks` (Data
    /// marked on the way out), `max_queue_packets` and `max_queue_bytes` (the longest the queue
    /// was), and the packets the face sent and received by type (`out_interests`, `out_data`,
    /// `out_nacks`, `in_interests`, `in_data`, `in_nacks`; the simulator's face counters).
    pub fn faces_report(&self) -> serde_json::Value {
        let faces: Vec<_> = self
            .fwd
            .core
            .faces
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let open = self.faces.get(i).and_then(Option::as_ref);
                let total = (c.counters.drops, c.counters.drop_bytes);
                let (drops, drop_bytes) = self
                    .closed_drops
                    .get(&FaceId(i as u32))
                    .copied()
                    .unwrap_or(total);
                serde_json::json!({
                    "id": i as u64 + super::FACE_ID_OFFSET,
                    "uri": open.map(|f| f.uri.clone()),
                    "queue": match (open, c.limit()) {
                        (None, _) => "closed".to_string(),
                        (_, QueueLimit::Packets(n)) => format!("{n}p"),
                        (_, QueueLimit::Bytes(b)) => format!("{b}B"),
                    },
                    "drops": drops,
                    "drop_bytes": drop_bytes,
                    "after_close": total.0 - drops,
                    "marks": c.counters.marks,
                    "max_queue_packets": c.max_pkts,
                    "max_queue_bytes": c.max_bytes,
                    "out_interests": c.counters.out_of(PacketType::Interest),
                    "out_data": c.counters.out_of(PacketType::Data),
                    "out_nacks": c.counters.out_of(PacketType::Nack),
                    "in_interests": c.counters.in_of(PacketType::Interest),
                    "in_data": c.counters.in_of(PacketType::Data),
                    "in_nacks": c.counters.in_of(PacketType::Nack),
                })
            })
            .collect();
        serde_json::Value::Array(faces)
    }
}
