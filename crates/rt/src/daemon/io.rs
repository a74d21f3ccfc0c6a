//! Socket I/O of a face: stream faces (Unix, TCP) with back-to-back TLV framing and a bounded
//! write buffer; UDP faces are addresses on a shared socket.

use mio::net::{TcpStream, UnixStream};
use std::io::{self, Read, Write};
use std::net::SocketAddr;

/// A connected stream socket.
#[derive(Debug)]
pub enum Conn {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(s) => s.read(buf),
            Conn::Unix(s) => s.read(buf),
        }
    }
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Tcp(s) => s.write(buf),
            Conn::Unix(s) => s.write(buf),
        }
    }
    pub fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Conn::Tcp(s) => s,
            Conn::Unix(s) => s,
        }
    }
}

/// What became of a read.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Still open; everything the socket had was read.
    Open,
    /// Still open; the budget ran out before the socket was drained (read again: readiness
    /// is edge-triggered, no new event will come for these bytes).
    More,
    /// The peer closed or the socket failed.
    Closed,
}

/// A stream face's socket and buffers.
#[derive(Debug)]
pub struct StreamIo {
    pub conn: Conn,
    pub rbuf: Vec<u8>,
    wbuf: Vec<u8>,
    wpos: usize,
    /// Registered for WRITABLE (a write would block).
    pub want_write: bool,
}

impl StreamIo {
    pub fn new(conn: Conn) -> Self {
        StreamIo {
            conn,
            rbuf: Vec::new(),
            wbuf: Vec::new(),
            wpos: 0,
            want_write: false,
        }
    }

    /// Reads what the socket has (at most `budget` bytes this time, so one busy peer cannot
    /// starve the others) into `rbuf`.
    pub fn fill(&mut self, budget: usize) -> ReadOutcome {
        let mut chunk = [0u8; 16 * 1024];
        let mut got = 0;
        loop {
            if got >= budget {
                return ReadOutcome::More;
            }
            match self.conn.read(&mut chunk) {
                Ok(0) => return ReadOutcome::Closed,
                Ok(n) => {
                    self.rbuf
                        .extend_from_slice(chunk.get(..n).unwrap_or_default());
                    got += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return ReadOutcome::Open,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return ReadOutcome::Closed,
            }
        }
    }

    /// Bytes waiting to be written.
    pub fn pending(&self) -> usize {
        self.wbuf.len() - self.wpos
    }

    /// Queues `bytes` for the next [`StreamIo::flush`] (the daemon flushes each face once per
    /// loop turn: one write for all the packets of the turn); false when the buffer would
    /// exceed `max` (the packet is dropped).
    pub fn queue(&mut self, bytes: &[u8], max: usize) -> bool {
        if self.pending() + bytes.len() > max {
            return false;
        }
        self.wbuf.extend_from_slice(bytes);
        true
    }

    /// Writes buffered bytes until the socket would block.
    pub fn flush(&mut self) -> io::Result<()> {
        while self.wpos < self.wbuf.len() {
            match self
                .conn
                .write(self.wbuf.get(self.wpos..).unwrap_or_default())
            {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.wpos += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        if self.wpos == self.wbuf.len() {
            self.wbuf.clear();
            self.wpos = 0;
        } else if self.wpos > 64 * 1024 {
            self.wbuf.drain(..self.wpos);
            self.wpos = 0;
        }
        Ok(())
    }
}

/// How a face reaches its peer.
#[derive(Debug)]
pub enum FaceIo {
    Stream(StreamIo),
    /// A peer address on the daemon's UDP socket `socket` (index among the UDP sockets).
    Udp {
        socket: usize,
        remote: SocketAddr,
    },
}

/// Whether a pending TCP connect (a non-blocking `mio` connect) has completed, once its socket
/// reported writable: Ok(true) connected, Ok(false) still under way (a spurious wake-up),
/// Err: refused or failed.
pub fn tcp_connected(s: &mio::net::TcpStream) -> io::Result<bool> {
    if let Some(e) = s.take_error()? {
        return Err(e);
    }
    match s.peer_addr() {
        Ok(_) => {
            let _ = s.set_nodelay(true);
            Ok(true)
        }
        Err(e)
            if e.kind() == io::ErrorKind::NotConnected
                || e.raw_os_error() == Some(libc::EINPROGRESS) =>
        {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Whether a pending connect (TCP, or Unix where the kernel reports one under way) has
/// completed, once its socket reported writable: as [`tcp_connected`].
pub fn connected(c: &Conn) -> io::Result<bool> {
    match c {
        Conn::Tcp(s) => tcp_connected(s),
        Conn::Unix(s) => unix_connected(s),
    }
}

/// Whether a Unix connect started by `mio` (non-blocking) has completed: Ok(true) connected,
/// Ok(false) still under way, Err: refused or failed.
pub fn unix_connected(s: &UnixStream) -> io::Result<bool> {
    if let Some(e) = s.take_error()? {
        return Err(e);
    }
    match s.peer_addr() {
        Ok(_) => Ok(true),
        Err(e)
            if e.kind() == io::ErrorKind::NotConnected
                || e.raw_os_error() == Some(libc::EINPROGRESS) =>
        {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Starts a Unix connect without blocking: `Ok(conn, true)` connected at once (what Linux does
/// whenever the listener's accept queue has room), `Ok(conn, false)` under way (wait for
/// writable, then [`unix_connected`]). A listener whose accept queue is full makes a blocking
/// connect wait until it accepts; non-blocking, Linux answers EAGAIN at once and gives no
/// readiness event for when room is made, so that is an error here, named
/// ([`ACCEPT_QUEUE_FULL`]), for the caller to retry later.
pub fn unix_connect(path: &std::path::Path) -> io::Result<(UnixStream, bool)> {
    let s = UnixStream::connect(path).map_err(|e| {
        if e.kind() == io::ErrorKind::WouldBlock {
            io::Error::new(io::ErrorKind::WouldBlock, ACCEPT_QUEUE_FULL)
        } else {
            e
        }
    })?;
    let up = unix_connected(&s)?;
    Ok((s, up))
}

/// The error text of a Unix connect to a listener whose accept queue is full (EAGAIN).
pub const ACCEPT_QUEUE_FULL: &str = "the listener's accept queue is full (EAGAIN); not waiting";
