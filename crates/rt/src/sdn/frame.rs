//! The SDN control protocol's frames (`docs/sdn-control-protocol.md`): length-prefixed,
//! versioned, binary. Pure (no sockets): [`Msg::encode`] and the incremental [`Decoder`].
//!
//! ```text
//! frame   := version (u8, = 1) | type (u8) | length (u32, big-endian) | body (length bytes)
//! string  := length (u16, big-endian) | UTF-8 bytes
//! HELLO (1)        node u32 | delay_ns u64 | joined u8 | nfaces u16 | { face u64 | link u32 | peer u32 }
//!                  | nroutes u16 | { prefix string | nhops u16 | { face u64 } }
//!                  | nmetrics u16 | { prefix string | face u64 | value f64 }
//! FACE_REPORT (2)  face u64 | nvalues u8 | { key string | value f64 }
//! NEXT_HOP (3)     prefix string | face u64 | value f64
//! ```
//!
//! Faces are the router's management FaceIds (as `faces/list` shows them); numbers are
//! big-endian, f64 in IEEE 754 binary64. A frame whose version, type or length is wrong, or
//! whose body does not parse to exactly its length, is an error ([`FrameError`]): the
//! receiver drops the connection.

use std::fmt;

/// The protocol version this code speaks.
pub const VERSION: u8 = 1;
/// Header bytes: version, type, length.
pub const HEADER: usize = 6;
/// The largest body accepted, bytes (a HELLO of a router with thousands of routes fits).
pub const MAX_BODY: usize = 1 << 20;

const T_HELLO: u8 = 1;
const T_FACE_REPORT: u8 = 2;
const T_NEXT_HOP: u8 = 3;

/// One face of a router in its HELLO: its FaceId, the scenario's link and the node at the other
/// end (the controller's topology numbering).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelloFace {
    pub face: u64,
    pub link: u32,
    pub peer: u32,
}

/// A message of the protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Router → controller, first on every connection: who it is and its topology.
    Hello {
        node: u32,
        /// The control link's one-way delay, ns (the controller delays what it sends to this
        /// router by it).
        delay_ns: u64,
        /// False: the router only lends its topology (no reports, no metrics).
        joined: bool,
        faces: Vec<HelloFace>,
        /// FIB: prefix URI → next-hop FaceIds (net faces only).
        routes: Vec<(String, Vec<u64>)>,
        /// The metrics the router holds from a controller: (prefix URI, FaceId, value).
        metrics: Vec<(String, u64, f64)>,
    },
    /// Router → controller: `ControlBody::FaceReport`.
    FaceReport {
        face: u64,
        values: Vec<(String, f64)>,
    },
    /// Controller → router: `ControlBody::NextHopValue`.
    NextHop {
        prefix: String,
        face: u64,
        value: f64,
    },
}

/// Why a frame was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    Version(u8),
    Type(u8),
    Oversized(usize),
    /// The body ended before a field (which one).
    Short(&'static str),
    /// The body has bytes after its last field.
    Trailing(usize),
    Utf8,
    /// A count or value out of range (what).
    Range(&'static str),
    /// The connection closed inside a frame (bytes of it received).
    Truncated(usize),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Version(v) => {
                write!(
                    f,
                    "unsupported protocol version {v} (this side speaks {VERSION})"
                )
            }
            FrameError::Type(t) => write!(f, "unknown message type {t}"),
            FrameError::Oversized(n) => {
                write!(f, "frame body of {n} bytes is larger than {MAX_BODY}")
            }
            FrameError::Short(what) => write!(f, "frame body ends before its {what}"),
            FrameError::Trailing(n) => write!(f, "{n} bytes after the message's last field"),
            FrameError::Utf8 => write!(f, "a string is not UTF-8"),
            FrameError::Range(what) => write!(f, "{what} out of range"),
            FrameError::Truncated(n) => {
                write!(
                    f,
                    "connection closed inside a frame ({n} bytes of it received)"
                )
            }
        }
    }
}

struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: usize) {
        self.0
            .extend_from_slice(&u16::try_from(v).unwrap_or(u16::MAX).to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_bits().to_be_bytes());
    }
    fn str(&mut self, s: &str) {
        let b = s.as_bytes();
        let b = b.get(..b.len().min(u16::MAX as usize)).unwrap_or_default();
        self.u16(b.len());
        self.0.extend_from_slice(b);
    }
}

struct R<'a>(&'a [u8]);

impl<'a> R<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FrameError> {
        if self.0.len() < n {
            return Err(FrameError::Short(what));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn arr<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], FrameError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, FrameError> {
        Ok(self.arr::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<usize, FrameError> {
        Ok(u16::from_be_bytes(self.arr(what)?) as usize)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, FrameError> {
        Ok(u32::from_be_bytes(self.arr(what)?))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, FrameError> {
        Ok(u64::from_be_bytes(self.arr(what)?))
    }
    fn f64(&mut self, what: &'static str) -> Result<f64, FrameError> {
        let v = f64::from_bits(self.u64(what)?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(FrameError::Range(what))
        }
    }
    fn str(&mut self, what: &'static str) -> Result<String, FrameError> {
        let n = self.u16(what)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| FrameError::Utf8)
    }
}

impl Msg {
    /// The whole frame (header and body).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = W(Vec::with_capacity(64));
        let typ = match self {
            Msg::Hello {
                node,
                delay_ns,
                joined,
                faces,
                routes,
                metrics,
            } => {
                w.u32(*node);
                w.u64(*delay_ns);
                w.u8(u8::from(*joined));
                w.u16(faces.len());
                for f in faces.iter().take(u16::MAX as usize) {
                    w.u64(f.face);
                    w.u32(f.link);
                    w.u32(f.peer);
                }
                w.u16(routes.len());
                for (prefix, hops) in routes.iter().take(u16::MAX as usize) {
                    w.str(prefix);
                    w.u16(hops.len());
                    for h in hops.iter().take(u16::MAX as usize) {
                        w.u64(*h);
                    }
                }
                w.u16(metrics.len());
                for (prefix, face, value) in metrics.iter().take(u16::MAX as usize) {
                    w.str(prefix);
                    w.u64(*face);
                    w.f64(*value);
                }
                T_HELLO
            }
            Msg::FaceReport { face, values } => {
                w.u64(*face);
                let n = values.len().min(u8::MAX as usize);
                w.u8(n as u8);
                for (k, v) in values.iter().take(n) {
                    w.str(k);
                    w.f64(*v);
                }
                T_FACE_REPORT
            }
            Msg::NextHop {
                prefix,
                face,
                value,
            } => {
                w.str(prefix);
                w.u64(*face);
                w.f64(*value);
                T_NEXT_HOP
            }
        };
        let body = w.0;
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.push(VERSION);
        out.push(typ);
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
        out
    }

    fn decode_body(typ: u8, body: &[u8]) -> Result<Msg, FrameError> {
        let mut r = R(body);
        let msg = match typ {
            T_HELLO => {
                let node = r.u32("node")?;
                let delay_ns = r.u64("delay")?;
                let joined = match r.u8("joined flag")? {
                    0 => false,
                    1 => true,
                    _ => return Err(FrameError::Range("joined flag")),
                };
                let nf = r.u16("face count")?;
                let mut faces = Vec::with_capacity(nf.min(r.0.len() / 16));
                for _ in 0..nf {
                    faces.push(HelloFace {
                        face: r.u64("face")?,
                        link: r.u32("link")?,
                        peer: r.u32("peer")?,
                    });
                }
                let nr = r.u16("route count")?;
                let mut routes = Vec::with_capacity(nr.min(r.0.len() / 4));
                for _ in 0..nr {
                    let prefix = r.str("prefix")?;
                    let nh = r.u16("next-hop count")?;
                    let mut hops = Vec::with_capacity(nh.min(r.0.len() / 8));
                    for _ in 0..nh {
                        hops.push(r.u64("next hop")?);
                    }
                    routes.push((prefix, hops));
                }
                let nm = r.u16("metric count")?;
                let mut metrics = Vec::with_capacity(nm.min(r.0.len() / 18));
                for _ in 0..nm {
                    let prefix = r.str("metric prefix")?;
                    metrics.push((prefix, r.u64("metric face")?, r.f64("metric value")?));
                }
                Msg::Hello {
                    node,
                    delay_ns,
                    joined,
                    faces,
                    routes,
                    metrics,
                }
            }
            T_FACE_REPORT => {
                let face = r.u64("face")?;
                let n = r.u8("value count")?;
                let mut values = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let k = r.str("value key")?;
                    values.push((k, r.f64("value")?));
                }
                Msg::FaceReport { face, values }
            }
            T_NEXT_HOP => Msg::NextHop {
                prefix: r.str("prefix")?,
                face: r.u64("face")?,
                value: r.f64("value")?,
            },
            t => return Err(FrameError::Type(t)),
        };
        if !r.0.is_empty() {
            return Err(FrameError::Trailing(r.0.len()));
        }
        Ok(msg)
    }
}

/// Cuts frames out of a byte stream.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: Vec<u8>,
}

impl Decoder {
    /// Appends bytes read from the connection.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole message (None: more bytes needed). After an error the connection must
    /// be dropped (the stream cannot be resynchronised).
    pub fn next_msg(&mut self) -> Result<Option<Msg>, FrameError> {
        let Some(head) = self.buf.get(..HEADER) else {
            // a wrong version is known from the first byte
            return match self.buf.first() {
                Some(&v) if v != VERSION => Err(FrameError::Version(v)),
                _ => Ok(None),
            };
        };
        if head[0] != VERSION {
            return Err(FrameError::Version(head[0]));
        }
        let typ = head[1];
        if !(T_HELLO..=T_NEXT_HOP).contains(&typ) {
            return Err(FrameError::Type(typ));
        }
        let len = u32::from_be_bytes([head[2], head[3], head[4], head[5]]) as usize;
        if len > MAX_BODY {
            return Err(FrameError::Oversized(len));
        }
        let Some(body) = self.buf.get(HEADER..HEADER + len) else {
            return Ok(None);
        };
        let msg = Msg::decode_body(typ, body)?;
        self.buf.drain(..HEADER + len);
        Ok(Some(msg))
    }

    /// The connection closed: an error if a frame was cut short.
    pub fn finish(&self) -> Result<(), FrameError> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(FrameError::Truncated(self.buf.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Msg> {
        vec![
            Msg::Hello {
                node: 3,
                delay_ns: 1_000_000,
                joined: true,
                faces: vec![
                    HelloFace {
                        face: 256,
                        link: 0,
                        peer: 1,
                    },
                    HelloFace {
                        face: 257,
                        link: 4,
                        peer: 5,
                    },
                ],
                routes: vec![("/prefix/A".into(), vec![256, 257]), ("/".into(), vec![])],
                metrics: vec![("/prefix/A".into(), 257, 0.25)],
            },
            Msg::FaceReport {
                face: 257,
                values: vec![
                    ("beta".into(), 0.93),
                    ("eps".into(), 0.0),
                    ("signal".into(), 1.0),
                ],
            },
            Msg::NextHop {
                prefix: "/prefix".into(),
                face: 261,
                value: 12.5e-3,
            },
        ]
    }

    #[test]
    fn every_message_round_trips_whole_and_byte_by_byte() {
        let msgs = samples();
        let mut stream = Vec::new();
        for m in &msgs {
            let mut d = Decoder::default();
            d.push(&m.encode());
            assert_eq!(d.next_msg().unwrap().as_ref(), Some(m));
            assert_eq!(d.next_msg().unwrap(), None);
            d.finish().unwrap();
            stream.extend(m.encode());
        }
        // split anywhere: the decoder waits for whole frames
        let mut d = Decoder::default();
        let mut got = Vec::new();
        for b in &stream {
            d.push(std::slice::from_ref(b));
            while let Some(m) = d.next_msg().unwrap() {
                got.push(m);
            }
        }
        assert_eq!(got, msgs);
        d.finish().unwrap();
    }

    #[test]
    fn the_header_is_version_type_and_big_endian_length() {
        let f = Msg::NextHop {
            prefix: "/a".into(),
            face: 1,
            value: 0.5,
        }
        .encode();
        // body: 2 + 2 (string) + 8 + 8
        assert_eq!(&f[..HEADER], &[1, 3, 0, 0, 0, 20]);
        assert_eq!(&f[HEADER..HEADER + 4], &[0, 2, b'/', b'a']);
        assert_eq!(f.len(), HEADER + 20);
    }

    #[test]
    fn a_truncated_frame_waits_then_fails_at_close() {
        for m in samples() {
            let f = m.encode();
            for cut in 1..f.len() {
                let mut d = Decoder::default();
                d.push(&f[..cut]);
                assert_eq!(d.next_msg(), Ok(None), "cut at {cut}");
                assert_eq!(d.finish(), Err(FrameError::Truncated(cut)));
            }
        }
    }

    #[test]
    fn an_oversized_frame_is_refused_from_its_header() {
        let mut d = Decoder::default();
        let len = (MAX_BODY as u32 + 1).to_be_bytes();
        d.push(&[VERSION, 2, len[0], len[1], len[2], len[3]]);
        assert_eq!(d.next_msg(), Err(FrameError::Oversized(MAX_BODY + 1)));
        // the largest body is still read
        let mut d = Decoder::default();
        let len = (MAX_BODY as u32).to_be_bytes();
        d.push(&[VERSION, 2, len[0], len[1], len[2], len[3]]);
        assert_eq!(d.next_msg(), Ok(None));
    }

    #[test]
    fn garbage_is_an_error_never_a_panic() {
        let mut d = Decoder::default();
        d.push(b"GET / HTTP/1.1\r\n");
        let e = d.next_msg().unwrap_err();
        assert_eq!(e, FrameError::Version(b'G'));
        assert!(e.to_string().contains("version"), "{e}");
        let mut d = Decoder::default();
        d.push(&[VERSION, 9, 0, 0, 0, 0]);
        assert_eq!(d.next_msg(), Err(FrameError::Type(9)));
        // a body with a byte too many, too few, a bad string, a NaN
        let f = samples()[2].encode();
        let mut long = f.clone();
        long[5] += 1;
        long.push(0);
        let mut d = Decoder::default();
        d.push(&long);
        assert_eq!(d.next_msg(), Err(FrameError::Trailing(1)));
        let mut short = f.clone();
        short[5] -= 1;
        short.pop();
        let mut d = Decoder::default();
        d.push(&short);
        assert_eq!(d.next_msg(), Err(FrameError::Short("value")));
        let mut bad = f.clone();
        bad[HEADER + 2] = 0xff;
        let mut d = Decoder::default();
        d.push(&bad);
        assert_eq!(d.next_msg(), Err(FrameError::Utf8));
        let nan = Msg::NextHop {
            prefix: "/a".into(),
            face: 1,
            value: f64::NAN,
        }
        .encode();
        let mut d = Decoder::default();
        d.push(&nan);
        assert_eq!(d.next_msg(), Err(FrameError::Range("value")));
        // random bytes: some error or a wait, never a panic
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..2_000 {
            let mut d = Decoder::default();
            let mut junk = vec![VERSION];
            for _ in 0..40 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                junk.push(x as u8);
            }
            junk[1] = (x % 4) as u8;
            d.push(&junk);
            while let Ok(Some(_)) = d.next_msg() {}
        }
    }

    #[test]
    fn a_count_larger_than_the_body_is_short_not_an_allocation() {
        // a HELLO announcing 65 535 faces in a 20-byte body
        let mut body = vec![0, 0, 0, 1];
        body.extend_from_slice(&[0; 8]);
        body.push(1);
        body.extend_from_slice(&[0xff, 0xff]);
        body.extend_from_slice(&[0; 5]);
        let mut f = vec![VERSION, 1, 0, 0, 0, body.len() as u8];
        f.extend(body);
        let mut d = Decoder::default();
        d.push(&f);
        assert_eq!(d.next_msg(), Err(FrameError::Short("face")));
    }
}
