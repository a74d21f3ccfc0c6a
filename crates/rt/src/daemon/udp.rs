//! The daemon's UDP faces on the wire: datagrams read in batches (`recvmmsg`), a face per
//! remote address made on its first well-formed packet, and the datagrams of a loop turn sent
//! in batches (`sendmmsg`) at its end.

use super::face::scheme;
use super::io::FaceIo;
use super::Daemon;
use crate::mmsg::{self, SLOT};
use ndncc_wire::Frame;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;

impl Daemon {
    /// Reads every datagram waiting on UDP socket `i` (until it would block).
    pub(super) fn read_udp(&mut self, i: usize) {
        // one receive buffer for the daemon's life
        let mut buf = std::mem::take(&mut self.udp_buf);
        let mut got = Vec::with_capacity(mmsg::BATCH);
        while let Some(sock) = self.udp.get(i) {
            match mmsg::recv_batch(sock.as_raw_fd(), &mut buf, &mut got) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break, // WouldBlock: drained (or the socket failed)
            }
            for (k, r) in got.iter().enumerate() {
                let dgram = buf.get(k * SLOT..k * SLOT + r.len).unwrap_or_default();
                match r.from {
                    Some(from) if !r.truncated => self.on_datagram(i, from, dgram),
                    _ => self.stats.malformed += 1,
                }
            }
        }
        self.udp_buf = buf;
    }

    fn on_datagram(&mut self, i: usize, from: SocketAddr, dgram: &[u8]) {
        let id = match self.udp_faces.get(&from) {
            Some(&id) => id,
            None => {
                // a face per remote address, made on its first well-formed packet
                if Frame::decode_with(dgram, &self.types).is_err() {
                    self.stats.malformed += 1;
                    return;
                }
                let local = self
                    .udp
                    .get(i)
                    .and_then(|s| s.local_addr().ok())
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                let link = self.cfg.link;
                self.add_face(
                    FaceIo::Udp {
                        socket: i,
                        remote: from,
                    },
                    format!("{}://{from}", scheme("udp", &from)),
                    format!("{}://{local}", scheme("udp", &from)),
                    &link,
                    1,
                )
            }
        };
        self.handle_frame(id, dgram);
    }

    /// Queues a datagram for UDP socket `socket`, sent at the end of the turn.
    pub(super) fn queue_udp(&mut self, socket: usize, dgram: Vec<u8>, to: SocketAddr) {
        if self.udp_out.len() <= socket {
            self.udp_out.resize_with(socket + 1, Vec::new);
        }
        self.udp_out[socket].push((dgram, to));
    }

    /// Sends the queued datagrams; those the kernel refuses are counted as write drops.
    pub(super) fn flush_udp(&mut self) {
        for (i, q) in self.udp_out.iter_mut().enumerate() {
            if q.is_empty() {
                continue;
            }
            let unsent = match self.udp.get(i) {
                Some(s) => mmsg::send_batch(s.as_raw_fd(), q),
                None => q.len(),
            };
            self.stats.write_drops += unsent as u64;
            q.clear();
        }
    }
}
