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

/// `recvmmsg` batches read from one UDP socket per loop turn (512 datagrams). Beyond it the
/// socket is read again next turn, after the turn's datagrams are sent: a sender faster than
/// the daemon cannot keep it reading (and queueing output) for ever.
pub const UDP_BATCHES_PER_READ: usize = 16;

impl Daemon {
    /// Reads the datagrams waiting on UDP socket `i`, until it would block or the read budget
    /// ([`UDP_BATCHES_PER_READ`]) is spent (then `i` is read again next turn).
    pub(super) fn read_udp(&mut self, i: usize) {
        // one receive buffer for the daemon's life
        let mut buf = std::mem::take(&mut self.udp_buf);
        let mut got = Vec::with_capacity(mmsg::BATCH);
        let mut batches = 0;
        while let Some(sock) = self.udp.get(i) {
            if batches == self.udp_batches_per_read {
                // a short last batch drained the socket (a later datagram wakes the poll)
                if got.len() == mmsg::BATCH && !self.udp_reread.contains(&i) {
                    self.udp_reread.push(i);
                }
                break;
            }
            batches += 1;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::config::Config;

    /// The read budget: a socket with more datagrams than the budget is read in parts, one per
    /// turn, and marked for reading again until it is empty.
    #[test]
    fn a_flooded_socket_is_read_a_budget_at_a_time() {
        let cfg = Config::parse("[listen]\nudp = \"127.0.0.1:0\"\n").unwrap();
        let mut d = Daemon::bind(cfg).unwrap();
        d.udp_batches_per_read = 1;
        let to = d.udp_addr().unwrap();
        let tx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for _ in 0..100 {
            tx.send_to(&[0xFF], to).unwrap(); // malformed: counted, no face
        }
        let mut reads = 0;
        loop {
            d.udp_reread.clear(); // as the loop takes it
            d.read_udp(0);
            reads += 1;
            if d.udp_reread.is_empty() {
                break;
            }
            assert_eq!(d.udp_reread, vec![0]);
            assert_eq!(d.stats.malformed, (reads * mmsg::BATCH) as u64);
            assert!(reads < 10);
        }
        assert_eq!(d.stats.malformed, 100);
        assert_eq!(reads, 4, "32 + 32 + 32 + 4");
    }
}
