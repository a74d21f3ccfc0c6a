//! The in-memory packet model. The simulator carries sizes, never payload bytes.

use crate::name::Name;
use crate::time::{Duration, Instant};

/// Why an Interest was returned (NDNLPv2 NackReason codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// 50: the upstream is congested.
    Congestion,
    /// 100: duplicate nonce (a loop).
    Duplicate,
    /// 150: no route, or every upstream gave up.
    NoRoute,
}

impl NackReason {
    pub fn code(self) -> u64 {
        match self {
            NackReason::Congestion => 50,
            NackReason::Duplicate => 100,
            NackReason::NoRoute => 150,
        }
    }
}

/// Scheme extension fields of an Interest. Kept compact (every packet the simulator moves is as
/// large as the largest kind): the optional fields are packed and read through methods.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InterestExt {
    /// Traffic class (MIRCC multipath: 0 primary, 1 secondary).
    pub class: u8,
    /// A chunk Interest's request: N segments (0 = not a chunk Interest) and the offsets' mask.
    chunk_segments: u8,
    chunk_mask: u64,
    /// The consumer's smoothed RTT in ns (0 = none), see [`InterestExt::rtt`].
    rtt_ns: u64,
}

impl InterestExt {
    /// A chunk Interest: which segments of the chunk (its sequence number) to send back.
    pub fn chunk(&self) -> Option<ChunkRequest> {
        (self.chunk_segments > 0).then_some(ChunkRequest {
            segments: u32::from(self.chunk_segments),
            mask: self.chunk_mask,
        })
    }
    pub fn set_chunk(&mut self, chunk: Option<ChunkRequest>) {
        let c = chunk.map(|c| (c.segments.min(ChunkRequest::MAX_SEGMENTS) as u8, c.mask));
        (self.chunk_segments, self.chunk_mask) = c.unwrap_or((0, 0));
    }
    /// The consumer's smoothed RTT when it sent the Interest (RCP's RTT header field; read by
    /// MIRCC routers with `path_rtt`); `None` before its first sample.
    pub fn rtt(&self) -> Option<Duration> {
        (self.rtt_ns > 0).then_some(Duration(self.rtt_ns))
    }
    /// Sets the carried RTT (a zero RTT is carried as 1 ns).
    pub fn set_rtt(&mut self, rtt: Option<Duration>) {
        self.rtt_ns = rtt.map_or(0, |d| d.0.max(1));
    }
}

/// The segments a chunk Interest asks for (chunk-switched transfer, seed 001): a chunk of
/// `segments` Data packets, of which the offsets whose bit is set in `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkRequest {
    /// N, the segments in a chunk (at most [`ChunkRequest::MAX_SEGMENTS`]).
    pub segments: u32,
    /// Bit i set: send segment i.
    pub mask: u64,
}

impl ChunkRequest {
    /// The most segments a chunk may have (one bit each in `mask`).
    pub const MAX_SEGMENTS: u32 = 64;

    /// Every segment of an N-segment chunk.
    pub fn all(segments: u32) -> Self {
        let segments = segments.clamp(1, Self::MAX_SEGMENTS);
        ChunkRequest {
            segments,
            mask: u64::MAX >> (64 - segments),
        }
    }

    /// The offsets asked for, in order.
    pub fn offsets(self) -> impl Iterator<Item = u32> {
        (0..self.segments).filter(move |&i| self.mask & (1 << i) != 0)
    }
}

/// An Interest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interest {
    pub name: Name,
    pub nonce: u32,
    pub lifetime: Duration,
    pub can_be_prefix: bool,
    pub must_be_fresh: bool,
    pub hop_limit: Option<u8>,
    /// Wire size in bytes.
    pub size: u32,
    pub ext: InterestExt,
}

impl Interest {
    /// An Interest with default selectors (no CanBePrefix, no MustBeFresh, no HopLimit) and no
    /// extension fields.
    pub fn new(name: Name, nonce: u32, lifetime: Duration, size: u32) -> Self {
        Interest {
            name,
            nonce,
            lifetime,
            can_be_prefix: false,
            must_be_fresh: false,
            hop_limit: None,
            size,
            ext: InterestExt::default(),
        }
    }
}

/// Segment information for chunk-switched answers (one Interest, N Data): segment `index`
/// (its offset in the chunk) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    pub index: u32,
    pub count: u32,
}

/// Scheme extension fields of a Data (hop-by-hop signals; NDNLPv2 headers on the wire).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DataExt {
    /// Congestion mark (NDNLPv2 CongestionMark; CHoPCoP REM, PCON, ndnSieve).
    pub mark: bool,
    /// Explicit rate stamp in Interests/s (MIRCC), the path minimum so far.
    pub rate_stamp: Option<f64>,
    /// Segment i of n answering one Interest (CHoPCoP).
    pub segment: Option<SegmentInfo>,
    /// Network hops travelled (ndnSIM's HopCount tag).
    pub hops: u16,
    /// The traffic class of the Interest this Data answers (MIRCC multipath), echoed by the
    /// producer.
    pub class: u8,
}

/// A Data packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Data {
    pub name: Name,
    /// Payload size in bytes.
    pub payload: u32,
    /// Wire size in bytes (payload + header).
    pub size: u32,
    pub freshness: Duration,
    /// When the producer created it (for Content Store freshness).
    pub created: Instant,
    pub ext: DataExt,
}

/// A Nack: an Interest returned with a reason.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nack {
    pub reason: NackReason,
    pub interest: Interest,
    /// Wire size in bytes (the Interest plus the LpPacket header).
    pub size: u32,
}

/// Any network-layer packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Packet {
    Interest(Interest),
    Data(Data),
    Nack(Nack),
}

/// The type of a packet, for counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketType {
    Interest = 0,
    Data = 1,
    Nack = 2,
}

impl Packet {
    pub fn size(&self) -> u32 {
        match self {
            Packet::Interest(i) => i.size,
            Packet::Data(d) => d.size,
            Packet::Nack(n) => n.size,
        }
    }
    pub fn kind(&self) -> PacketType {
        match self {
            Packet::Interest(_) => PacketType::Interest,
            Packet::Data(_) => PacketType::Data,
            Packet::Nack(_) => PacketType::Nack,
        }
    }
    pub fn name(&self) -> Name {
        match self {
            Packet::Interest(i) => i.name,
            Packet::Data(d) => d.name,
            Packet::Nack(n) => n.interest.name,
        }
    }
}
