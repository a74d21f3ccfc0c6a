//! The application side of a connection to a forwarder (ndnd, NFD, ndnccd): a Unix stream,
//! TCP or UDP socket; TLV stream framing on streams (back-to-back elements, nothing sent on
//! connect), one packet per datagram on UDP. Packets go out as given (bare, or an LpPacket the
//! caller built); what comes in is handed over whole, LpPacket or bare, for
//! [`ndncc_wire::Frame::decode`].
//!
//! A malformed element header on a stream loses the framing: the face reports an error and the
//! caller closes it. A malformed packet inside a well framed element is the caller's to count
//! and drop.

use ndncc_wire::packet::element_len;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The largest element a stream face accepts, bytes (NDN's MAX_NDN_PACKET_SIZE is 8800; a
/// little room for LpPacket headers).
pub const MAX_ELEMENT: usize = 9000;
/// The largest UDP datagram read, bytes.
const MAX_DATAGRAM: usize = 65536;

/// Where the forwarder listens, in python-ndn's `NDN_CLIENT_TRANSPORT` syntax:
/// `unix:///run/nfd/nfd.sock`, `tcp://127.0.0.1:6363` (also `tcp4://`, `tcp6://`),
/// `udp://127.0.0.1:6363` (also `udp4://`, `udp6://`). The port defaults to 6363.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Unix(PathBuf),
    Tcp(SocketAddr),
    Udp(SocketAddr),
}

impl Endpoint {
    /// True for a Unix socket (a local face: `/localhost` commands are accepted).
    pub fn is_unix(&self) -> bool {
        matches!(self, Endpoint::Unix(_))
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Unix(p) => write!(f, "unix://{}", p.display()),
            Endpoint::Tcp(a) => write!(f, "tcp://{a}"),
            Endpoint::Udp(a) => write!(f, "udp://{a}"),
        }
    }
}

impl FromStr for Endpoint {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (scheme, rest) = s.split_once("://").ok_or_else(|| {
            format!("forwarder address '{s}': expected unix:///path, tcp://host:port or udp://host:port")
        })?;
        let addr = |rest: &str| -> Result<SocketAddr, String> {
            let with_port = if rest
                .rsplit_once(':')
                .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
            {
                rest.to_string()
            } else {
                format!("{rest}:6363")
            };
            with_port
                .to_socket_addrs()
                .map_err(|e| format!("forwarder address '{s}': {e}"))?
                .next()
                .ok_or_else(|| format!("forwarder address '{s}': no address"))
        };
        match scheme {
            "unix" if rest.starts_with('/') => Ok(Endpoint::Unix(PathBuf::from(rest))),
            "unix" => Err(format!(
                "forwarder address '{s}': a Unix socket path must be absolute"
            )),
            "tcp" | "tcp4" | "tcp6" => Ok(Endpoint::Tcp(addr(rest)?)),
            "udp" | "udp4" | "udp6" => Ok(Endpoint::Udp(addr(rest)?)),
            other => Err(format!(
                "forwarder address '{s}': unknown scheme '{other}' (unix, tcp, udp)"
            )),
        }
    }
}

enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
    Udp(UdpSocket),
}

/// Counters of one client face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaceCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
}

/// A connection to a forwarder.
pub struct ClientFace {
    conn: Conn,
    /// Stream bytes received and not yet framed: `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The read timeout last set (a syscall each change).
    timeout: Option<Duration>,
    pub counters: FaceCounters,
    /// recvmmsg slots for the datagrams behind the first of a UDP read (grown on first use).
    mmsg_buf: Vec<u8>,
    /// Where the forwarder is, for messages (`udp://127.0.0.1:6363`).
    peer: String,
}

impl ClientFace {
    /// Connects (for UDP: binds an ephemeral port on the matching loopback/any address and
    /// connects the socket to the forwarder).
    pub fn connect(ep: &Endpoint) -> io::Result<ClientFace> {
        let conn =
            match ep {
                Endpoint::Unix(p) => Conn::Unix(UnixStream::connect(p).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot connect to {ep}: {e}"))
                })?),
                Endpoint::Tcp(a) => {
                    let s = TcpStream::connect(a).map_err(|e| {
                        io::Error::new(e.kind(), format!("cannot connect to {ep}: {e}"))
                    })?;
                    s.set_nodelay(true)?;
                    Conn::Tcp(s)
                }
                Endpoint::Udp(a) => {
                    let local: SocketAddr = if a.is_ipv4() {
                        "0.0.0.0:0".parse().map_err(io::Error::other)?
                    } else {
                        "[::]:0".parse().map_err(io::Error::other)?
                    };
                    let s = UdpSocket::bind(local)?;
                    s.connect(a)?;
                    Conn::Udp(s)
                }
            };
        Ok(ClientFace {
            conn,
            buf: vec![0; MAX_DATAGRAM.max(4 * MAX_ELEMENT)],
            start: 0,
            end: 0,
            timeout: None,
            counters: FaceCounters::default(),
            mmsg_buf: Vec::new(),
            peer: ep.to_string(),
        })
    }

    /// An error of a send or receive, naming the forwarder when it refused the packets: on
    /// UDP a connect succeeds whether or not anything listens, and the refusal (an ICMP port
    /// unreachable) comes back on a later send or receive, with no address in it.
    fn named(&self, e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::ConnectionRefused {
            return io::Error::new(
                e.kind(),
                format!(
                    "no forwarder at {}: connection refused (start one there, or give another \
                     address)",
                    self.peer
                ),
            );
        }
        e
    }

    /// Sends packets `packets[i]` in order: on a stream one write for them all (each whole
    /// element back to back), on UDP one datagram each. On UDP a datagram the kernel refuses
    /// (too large) or that a full socket buffer stops is not sent: the others still are and
    /// are counted, and the error says how many were not (kind `WouldBlock` when the buffer
    /// was full, else `Other`).
    pub fn send_many(&mut self, packets: &[Vec<u8>], scratch: &mut Vec<u8>) -> io::Result<()> {
        if packets.len() < 2 {
            return packets.iter().try_for_each(|p| self.send(p));
        }
        if let Conn::Udp(s) = &self.conn {
            // one sendmmsg for the lot (the socket is connected)
            let unsent = crate::mmsg::send_connected(s.as_raw_fd(), packets);
            let last = io::Error::last_os_error();
            // which ones were sent is not known datagram by datagram: bytes are counted as if
            // the unsent ones were the largest (a lower bound of what went out)
            let mut lens: Vec<u64> = packets.iter().map(|p| p.len() as u64).collect();
            lens.sort_unstable();
            let sent = packets.len() - unsent;
            self.counters.tx_packets += sent as u64;
            self.counters.tx_bytes += lens[..sent].iter().sum::<u64>();
            if unsent > 0 {
                if last.kind() == io::ErrorKind::ConnectionRefused {
                    return Err(self.named(last));
                }
                let kind = match last.kind() {
                    io::ErrorKind::WouldBlock => io::ErrorKind::WouldBlock,
                    _ => io::ErrorKind::Other,
                };
                let n = packets.len();
                return Err(io::Error::new(
                    kind,
                    format!("{unsent} of {n} datagrams not sent ({last})"),
                ));
            }
            return Ok(());
        }
        scratch.clear();
        for p in packets {
            scratch.extend_from_slice(p);
        }
        match &mut self.conn {
            Conn::Unix(s) => s.write_all(scratch)?,
            Conn::Tcp(s) => s.write_all(scratch)?,
            Conn::Udp(_) => {}
        }
        self.counters.tx_packets += packets.len() as u64;
        self.counters.tx_bytes += scratch.len() as u64;
        Ok(())
    }

    /// Sends one packet (a whole TLV element).
    pub fn send(&mut self, packet: &[u8]) -> io::Result<()> {
        match &mut self.conn {
            Conn::Unix(s) => s.write_all(packet)?,
            Conn::Tcp(s) => s.write_all(packet)?,
            Conn::Udp(s) => {
                if let Err(e) = s.send(packet) {
                    return Err(self.named(e));
                }
            }
        }
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += packet.len() as u64;
        Ok(())
    }

    fn set_timeout(&mut self, t: Duration) -> io::Result<()> {
        // a zero read timeout is an error: wait at least a microsecond
        let t = t.max(Duration::from_micros(1));
        if self.timeout != Some(t) {
            match &self.conn {
                Conn::Unix(s) => s.set_read_timeout(Some(t))?,
                Conn::Tcp(s) => s.set_read_timeout(Some(t))?,
                Conn::Udp(s) => s.set_read_timeout(Some(t))?,
            }
            self.timeout = Some(t);
        }
        Ok(())
    }

    /// Waits up to `timeout` for data and appends every complete packet received to `out`.
    /// Returns how many were appended (0 after a timeout). A closed connection or a broken
    /// stream framing is an error.
    pub fn recv(&mut self, timeout: Duration, out: &mut Vec<Vec<u8>>) -> io::Result<usize> {
        let before = out.len();
        // packets already buffered need no wait
        if !matches!(self.conn, Conn::Udp(_)) && self.frame_all(out)? > 0 {
            return Ok(out.len() - before);
        }
        self.set_timeout(timeout)?;
        let read = match &mut self.conn {
            Conn::Udp(s) => s.recv(&mut self.buf),
            Conn::Unix(s) => {
                compact(&mut self.buf, &mut self.start, &mut self.end);
                s.read(self.buf.get_mut(self.end..).unwrap_or_default())
            }
            Conn::Tcp(s) => {
                compact(&mut self.buf, &mut self.start, &mut self.end);
                s.read(self.buf.get_mut(self.end..).unwrap_or_default())
            }
        };
        let n = match read {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(0)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(0),
            Err(e) => return Err(self.named(e)),
        };
        if let Conn::Udp(s) = &self.conn {
            if let Some(d) = self.buf.get(..n) {
                self.counters.rx_packets += 1;
                self.counters.rx_bytes += n as u64;
                out.push(d.to_vec());
            }
            // the datagrams queued behind it, in one recvmmsg (none waiting: one EAGAIN)
            let fd = s.as_raw_fd();
            let mut got = Vec::new();
            if crate::mmsg::recv_batch(fd, &mut self.mmsg_buf, &mut got).is_ok() {
                for (k, r) in got.iter().enumerate() {
                    let slot = k * crate::mmsg::SLOT;
                    if let Some(d) = self.mmsg_buf.get(slot..slot + r.len) {
                        self.counters.rx_packets += 1;
                        self.counters.rx_bytes += r.len as u64;
                        out.push(d.to_vec());
                    }
                }
            }
            return Ok(out.len() - before);
        }
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the forwarder closed the connection",
            ));
        }
        self.end += n;
        self.frame_all(out)?;
        Ok(out.len() - before)
    }

    /// Cuts every complete element out of the stream buffer.
    fn frame_all(&mut self, out: &mut Vec<Vec<u8>>) -> io::Result<usize> {
        let mut count = 0;
        loop {
            let pending = self.buf.get(self.start..self.end).unwrap_or_default();
            let len = match element_len(pending, MAX_ELEMENT) {
                Ok(Some(len)) => len,
                Ok(None) => return Ok(count),
                Err(e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("stream framing lost: {e}"),
                    ))
                }
            };
            if let Some(p) = pending.get(..len) {
                out.push(p.to_vec());
            }
            self.start += len;
            self.counters.rx_packets += 1;
            self.counters.rx_bytes += len as u64;
            count += 1;
        }
    }
}

/// Moves the unframed bytes to the front of the buffer.
fn compact(buf: &mut [u8], start: &mut usize, end: &mut usize) {
    if *start > 0 {
        buf.copy_within(*start..*end, 0);
        *end -= *start;
        *start = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    /// A UDP "forwarder" socket on loopback (reads time out after 5 s) and a face to it.
    fn udp_server_and_face() -> (UdpSocket, ClientFace) {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let face = ClientFace::connect(&Endpoint::Udp(server.local_addr().unwrap())).unwrap();
        (server, face)
    }

    #[test]
    fn udp_batches_go_out_in_order_and_come_back_whole() {
        let (server, mut face) = udp_server_and_face();
        // 40 Name elements of 1..=40 bytes
        let packets: Vec<Vec<u8>> = (1..=40u8)
            .map(|i| {
                let mut v = vec![7, i];
                v.extend(std::iter::repeat_n(i, usize::from(i)));
                v
            })
            .collect();
        face.send_many(&packets, &mut Vec::new()).unwrap();
        let mut buf = [0u8; 2048];
        let mut peer = None;
        for p in &packets {
            let (n, from) = server.recv_from(&mut buf).unwrap();
            assert_eq!(&buf[..n], &p[..]);
            peer = Some(from);
        }
        for p in &packets {
            server.send_to(p, peer.unwrap()).unwrap();
        }
        let mut out = Vec::new();
        while out.len() < packets.len() {
            assert!(face.recv(Duration::from_secs(5), &mut out).unwrap() > 0);
        }
        assert_eq!(out, packets, "every datagram, whole, in order");
        assert_eq!(face.counters.tx_packets, 40);
        assert_eq!(face.counters.rx_packets, 40);
    }

    #[test]
    fn a_udp_forwarder_that_is_not_there_is_named() {
        // a port nothing listens on: bound, noted, closed
        let addr = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let mut face = ClientFace::connect(&Endpoint::Udp(addr)).unwrap();
        face.send(&[7, 1, 1]).unwrap();
        let mut out = Vec::new();
        let err = (0..50)
            .find_map(|_| match face.recv(Duration::from_millis(100), &mut out) {
                Err(e) => Some(e),
                Ok(_) => face.send(&[7, 1, 1]).err(),
            })
            .expect("the refusal comes back");
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
        assert!(err.to_string().contains(&format!("udp://{addr}")), "{err}");
    }

    #[test]
    fn a_refused_datagram_in_a_udp_batch_is_reported_and_the_rest_counted() {
        let (server, mut face) = udp_server_and_face();
        // the middle one is larger than any UDP datagram: the kernel refuses it
        let packets = vec![vec![7, 1, 1], vec![0u8; 70_000], vec![7, 1, 2]];
        let err = face.send_many(&packets, &mut Vec::new()).unwrap_err();
        assert!(
            err.to_string().starts_with("1 of 3 datagrams not sent"),
            "{err}"
        );
        assert_eq!(face.counters.tx_packets, 2);
        assert_eq!(face.counters.tx_bytes, 6);
        let mut buf = [0u8; 64];
        for want in [&packets[0], &packets[2]] {
            let n = server.recv(&mut buf).unwrap();
            assert_eq!(&buf[..n], &want[..], "the others still go out, in order");
        }
    }

    #[test]
    fn endpoints_parse_like_python_ndn() {
        assert_eq!(
            "unix:///run/nfd/nfd.sock".parse(),
            Ok(Endpoint::Unix("/run/nfd/nfd.sock".into()))
        );
        assert_eq!(
            "tcp://127.0.0.1:6000".parse(),
            Ok(Endpoint::Tcp("127.0.0.1:6000".parse().unwrap()))
        );
        assert_eq!(
            "udp4://127.0.0.1".parse(),
            Ok(Endpoint::Udp("127.0.0.1:6363".parse().unwrap()))
        );
        for bad in ["nfd.sock", "unix://rel/path", "ws://x:1", "tcp://"] {
            assert!(bad.parse::<Endpoint>().is_err(), "{bad}");
        }
    }

    #[test]
    fn stream_framing_splits_and_joins_elements() {
        let dir = std::env::temp_dir().join(format!("ndncc-cf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).unwrap();
        let mut face = ClientFace::connect(&Endpoint::Unix(path.clone())).unwrap();
        let (mut peer, _) = listener.accept().unwrap();
        // two elements in one write, a third split over two writes
        peer.write_all(&[8, 1, 0x61, 8, 2, 0x62, 0x63, 8, 3])
            .unwrap();
        let mut out = Vec::new();
        let mut tries = 0;
        while out.len() < 2 && tries < 100 {
            face.recv(Duration::from_millis(100), &mut out).unwrap();
            tries += 1;
        }
        assert_eq!(out, vec![vec![8, 1, 0x61], vec![8, 2, 0x62, 0x63]]);
        peer.write_all(&[1, 2, 3]).unwrap();
        out.clear();
        while out.is_empty() && tries < 200 {
            face.recv(Duration::from_millis(100), &mut out).unwrap();
            tries += 1;
        }
        assert_eq!(out, vec![vec![8, 3, 1, 2, 3]]);
        // an element announcing more than MAX_ELEMENT loses the framing
        peer.write_all(&[8, 0xFD, 0xFF, 0xFF]).unwrap();
        let mut err = None;
        while err.is_none() && tries < 300 {
            err = face.recv(Duration::from_millis(100), &mut out).err();
            tries += 1;
        }
        assert_eq!(err.unwrap().kind(), io::ErrorKind::InvalidData);
        drop(peer);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
