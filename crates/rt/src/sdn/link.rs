//! One end of a control connection: the socket with its buffers, the frame decoder, and the
//! frames held for the control link's delay before they are written.

use super::frame::{Decoder, FrameError, Msg};
use super::Address;
use crate::daemon::io::{Conn, ReadOutcome, StreamIo};
use ndncc_core::time::{Duration, Instant};
use std::collections::VecDeque;

/// Most bytes waiting to be written on one control connection; beyond, frames are dropped
/// (counted): a peer that stops reading cannot grow the sender's memory.
pub const MAX_WRITE_BUFFER: usize = 4 << 20;
/// Bytes read per readiness event before the others get their turn.
const READ_BUDGET: usize = 256 * 1024;

/// A connected control connection.
#[derive(Debug)]
pub struct ControlConn {
    pub io: StreamIo,
    decoder: Decoder,
    /// Frames waiting for the link's delay: (when to write, bytes).
    held: VecDeque<(Instant, Vec<u8>)>,
    /// Frames dropped because the write buffer was full.
    pub write_drops: u64,
}

/// What reading a connection gave.
#[derive(Debug)]
pub enum Read {
    /// The messages read; the connection stays (or `closed`: the peer closed cleanly).
    Msgs { msgs: Vec<Msg>, closed: bool },
    /// A bad frame (the messages before it are kept): drop the connection.
    Bad { msgs: Vec<Msg>, error: FrameError },
}

/// A connection attempt: connected at once (a Unix connect to a listener with room), or
/// started without blocking and completed later (the caller waits for the socket to turn
/// writable, then asks [`crate::daemon::io::connected`]).
#[derive(Debug)]
pub enum Dial {
    Connected(Conn),
    Pending(Conn),
}

/// Starts connecting to `addr`; never waits for the peer. A TCP host name is resolved here, by
/// the system's resolver (an IP address needs no lookup). A Unix listener whose accept queue is
/// full is an error at once ([`crate::daemon::io::unix_connect`]).
pub fn dial(addr: &Address) -> std::io::Result<Dial> {
    match addr {
        Address::Unix(p) => {
            let (s, up) = crate::daemon::io::unix_connect(p)?;
            Ok(if up {
                Dial::Connected(Conn::Unix(s))
            } else {
                Dial::Pending(Conn::Unix(s))
            })
        }
        Address::Tcp(a) => {
            use std::net::ToSocketAddrs;
            let sa = a.to_socket_addrs()?.next().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address")
            })?;
            // non-blocking: returns while the handshake is under way
            Ok(Dial::Pending(Conn::Tcp(mio::net::TcpStream::connect(sa)?)))
        }
    }
}

impl ControlConn {
    pub fn new(conn: Conn) -> Self {
        ControlConn {
            io: StreamIo::new(conn),
            decoder: Decoder::default(),
            held: VecDeque::new(),
            write_drops: 0,
        }
    }

    /// Holds `msg` until `due` (now + the link's delay). Delays are per connection and
    /// constant, so the queue stays in order.
    pub fn send_at(&mut self, due: Instant, msg: &Msg) {
        self.held.push_back((due, msg.encode()));
    }

    /// When the next held frame is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.held.front().map(|(t, _)| *t)
    }

    /// Writes the frames due by `now`; Err: the connection failed.
    pub fn flush(&mut self, now: Instant) -> std::io::Result<()> {
        while let Some((t, _)) = self.held.front() {
            if *t > now {
                break;
            }
            let Some((_, bytes)) = self.held.pop_front() else {
                break;
            };
            if !self.io.queue(&bytes, MAX_WRITE_BUFFER) {
                self.write_drops += 1;
            }
        }
        self.io.flush()
    }

    /// Bytes written but not yet taken by the socket.
    pub fn pending(&self) -> usize {
        self.io.pending()
    }

    /// Reads what the socket has and cuts it into messages.
    pub fn read(&mut self) -> Read {
        let mut closed = false;
        loop {
            match self.io.fill(READ_BUDGET) {
                ReadOutcome::Open => break,
                ReadOutcome::More => {}
                ReadOutcome::Closed => {
                    closed = true;
                    break;
                }
            }
            self.drain_buf();
        }
        self.drain_buf();
        let mut msgs = Vec::new();
        loop {
            match self.decoder.next_msg() {
                Ok(Some(m)) => msgs.push(m),
                Ok(None) => break,
                Err(error) => return Read::Bad { msgs, error },
            }
        }
        if closed {
            if let Err(error) = self.decoder.finish() {
                return Read::Bad { msgs, error };
            }
        }
        Read::Msgs { msgs, closed }
    }

    fn drain_buf(&mut self) {
        let buf = std::mem::take(&mut self.io.rbuf);
        self.decoder.push(&buf);
    }
}

/// Reconnection back-off: `min`, doubling to `max`; back to `min` once connected.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(min: Duration, max: Duration) -> Self {
        Backoff {
            min,
            max: max.max(min),
            next: min,
        }
    }
    /// The wait before the next attempt (and doubles the one after).
    pub fn failed(&mut self) -> Duration {
        let w = self.next;
        self.next = Duration(self.next.0.saturating_mul(2)).min(self.max);
        w
    }
    pub fn connected(&mut self) {
        self.next = self.min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame sent at `due` stays held until then (the control link's delay), then is
    /// written whole; the peer's decoder reads it back.
    #[test]
    fn a_frame_is_held_until_it_is_due() {
        let (a, b) = mio::net::UnixStream::pair().unwrap();
        let mut tx = ControlConn::new(Conn::Unix(a));
        let mut rx = ControlConn::new(Conn::Unix(b));
        let msg = Msg::NextHop {
            prefix: "/p".into(),
            face: 257,
            value: 1.5,
        };
        let ms = |v: u64| Instant(v * 1_000_000);
        tx.send_at(ms(10), &msg);
        assert_eq!(tx.next_due(), Some(ms(10)));
        tx.flush(ms(9)).unwrap();
        match rx.read() {
            Read::Msgs { msgs, closed } => assert!(msgs.is_empty() && !closed),
            Read::Bad { error, .. } => panic!("{error}"),
        }
        tx.flush(ms(10)).unwrap();
        assert_eq!(tx.next_due(), None);
        match rx.read() {
            Read::Msgs { msgs, .. } => assert_eq!(msgs, vec![msg]),
            Read::Bad { error, .. } => panic!("{error}"),
        }
        // the peer closes inside a frame: named, not a panic
        let frame = Msg::NextHop {
            prefix: "/p".into(),
            face: 1,
            value: 0.0,
        }
        .encode();
        tx.io.queue(&frame[..5], MAX_WRITE_BUFFER);
        tx.io.flush().unwrap();
        drop(tx);
        match rx.read() {
            Read::Bad { error, .. } => assert_eq!(error, FrameError::Truncated(5)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn backoff_doubles_to_its_cap_and_resets() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(100), ms(1000));
        let waits: Vec<u64> = (0..6).map(|_| b.failed().0 / 1_000_000).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1000, 1000]);
        b.connected();
        assert_eq!(b.failed(), ms(100));
    }
}
