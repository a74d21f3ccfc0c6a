//! NDNLPv2 LpPacket: fragmentation fields, PitToken, Nack, CongestionMark, Ack/TxSequence, and
//! this project's own hop-by-hop headers.
//!
//! ```text
//! LpPacket = 0x64 TLV-LENGTH *LpHeaderField [Fragment]
//! ```
//!
//! Headers come in increasing TLV-TYPE order before the Fragment. An unrecognised header is
//! skipped when its type is in [800, 959] with the two low bits zero, and drops the packet
//! otherwise. Our own headers ([`ExtTypes`]) are numbers of that ignorable kind, so NFD, ndnd
//! and python-ndn skip them.

use crate::error::{Error, Result};
use crate::tlv::{self, Element, Elements, Order};
use crate::tt;

/// Why an Interest came back (NackReason codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// 50
    Congestion,
    /// 100
    Duplicate,
    /// 150
    NoRoute,
    /// Any other code, kept as received.
    Other(u64),
}

impl NackReason {
    pub fn code(self) -> u64 {
        match self {
            NackReason::Congestion => 50,
            NackReason::Duplicate => 100,
            NackReason::NoRoute => 150,
            NackReason::Other(c) => c,
        }
    }
    pub fn from_code(code: u64) -> Self {
        match code {
            50 => NackReason::Congestion,
            100 => NackReason::Duplicate,
            150 => NackReason::NoRoute,
            c => NackReason::Other(c),
        }
    }
}

/// A Nack header: its presence makes the fragment (an Interest) a Nack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Nack {
    /// Absent NackReason: python-ndn then handles the packet as a plain Interest, so always
    /// send one.
    pub reason: Option<NackReason>,
}

/// The TLV-TYPE numbers of this project's own headers. Each must be in [800, 959] with
/// `type % 4 == 0`, distinct, and not one NDNLPv2 assigns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtTypes {
    pub rate_stamp: u64,
    pub segment_info: u64,
    pub traffic_class: u64,
    pub chunk_request: u64,
    pub hop_count: u64,
}

impl Default for ExtTypes {
    fn default() -> Self {
        ExtTypes {
            rate_stamp: tt::EXT_RATE_STAMP,
            segment_info: tt::EXT_SEGMENT_INFO,
            traffic_class: tt::EXT_TRAFFIC_CLASS,
            chunk_request: tt::EXT_CHUNK_REQUEST,
            hop_count: tt::EXT_HOP_COUNT,
        }
    }
}

const ASSIGNED: [u64; 9] = [
    tt::NACK,
    tt::INCOMING_FACE_ID,
    tt::NEXT_HOP_FACE_ID,
    tt::CACHE_POLICY,
    tt::CONGESTION_MARK,
    tt::ACK,
    tt::TX_SEQUENCE,
    tt::NON_DISCOVERY,
    tt::PREFIX_ANNOUNCEMENT,
];

impl ExtTypes {
    fn all(&self) -> [u64; 5] {
        [
            self.rate_stamp,
            self.segment_info,
            self.traffic_class,
            self.chunk_request,
            self.hop_count,
        ]
    }

    /// Checks the rules above.
    pub fn validate(&self) -> Result<()> {
        let all = self.all();
        for (i, t) in all.iter().enumerate() {
            if !tt::lp_header_ignorable(*t) || ASSIGNED.contains(t) {
                return Err(Error::Invalid(
                    "an extension header type must be an unassigned ignorable NDNLPv2 type",
                ));
            }
            if all.iter().skip(i + 1).any(|u| u == t) {
                return Err(Error::Invalid("extension header types must be distinct"));
            }
        }
        Ok(())
    }
}

/// Segment `index` of `count` answering one Interest (CHoPCoP chunk answers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SegmentInfo {
    pub index: u32,
    pub count: u32,
}

/// The segments a chunk Interest asks for: bit i of `mask` set asks for segment i of a chunk of
/// `segments` (1–64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkRequest {
    pub segments: u32,
    pub mask: u64,
}

/// This project's hop-by-hop fields, carried as LpPacket headers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LpExt {
    /// MIRCC explicit rate in Interests/s (finite, ≥ 0); 8-byte IEEE 754, big-endian.
    pub rate_stamp: Option<f64>,
    /// 8 bytes: index then count, u32 big-endian each; index < count.
    pub segment: Option<SegmentInfo>,
    /// NonNegativeInteger ≤ 255.
    pub class: Option<u8>,
    /// 12 bytes: segments u32 then mask u64, big-endian.
    pub chunk: Option<ChunkRequest>,
    /// NonNegativeInteger ≤ 65535.
    pub hops: Option<u16>,
}

impl LpExt {
    pub fn is_empty(&self) -> bool {
        *self == LpExt::default()
    }
}

fn be_u32(b: &[u8]) -> u32 {
    b.iter().fold(0, |acc, &x| (acc << 8) | u32::from(x))
}
fn be_u64(b: &[u8]) -> u64 {
    b.iter().fold(0, |acc, &x| (acc << 8) | u64::from(x))
}

fn decode_ext(ext: &mut LpExt, types: &ExtTypes, e: Element<'_>) -> Result<bool> {
    let bad = |what| Error::BadLength {
        what,
        len: e.value.len(),
    };
    if e.typ == types.rate_stamp {
        if e.value.len() != 8 {
            return Err(bad("rate stamp"));
        }
        let r = f64::from_bits(be_u64(e.value));
        if !r.is_finite() || r < 0.0 {
            return Err(Error::Invalid("rate stamp must be finite and non-negative"));
        }
        ext.rate_stamp = Some(r);
    } else if e.typ == types.segment_info {
        let (i, c) = match e.value {
            [a, b, c, d, w, x, y, z] => (be_u32(&[*a, *b, *c, *d]), be_u32(&[*w, *x, *y, *z])),
            _ => return Err(bad("segment info")),
        };
        if i >= c {
            return Err(Error::Invalid(
                "segment index must be below the segment count",
            ));
        }
        ext.segment = Some(SegmentInfo { index: i, count: c });
    } else if e.typ == types.traffic_class {
        let c = e.nonneg()?;
        ext.class = Some(u8::try_from(c).map_err(|_| Error::Invalid("traffic class above 255"))?);
    } else if e.typ == types.chunk_request {
        if e.value.len() != 12 {
            return Err(bad("chunk request"));
        }
        let (s, m) = e.value.split_at(4);
        let segments = be_u32(s);
        if !(1..=64).contains(&segments) {
            return Err(Error::Invalid("chunk request needs 1 to 64 segments"));
        }
        ext.chunk = Some(ChunkRequest {
            segments,
            mask: be_u64(m),
        });
    } else if e.typ == types.hop_count {
        let h = e.nonneg()?;
        ext.hops = Some(u16::try_from(h).map_err(|_| Error::Invalid("hop count above 65535"))?);
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// An LpPacket borrowed from the input bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LpPacketView<'a> {
    /// The whole LpPacket element.
    pub wire: &'a [u8],
    pub sequence: Option<u64>,
    pub frag_index: Option<u64>,
    pub frag_count: Option<u64>,
    /// 1 to 32 bytes (ndnd sends and accepts exactly 6).
    pub pit_token: Option<&'a [u8]>,
    pub nack: Option<Nack>,
    pub incoming_face_id: Option<u64>,
    pub next_hop_face_id: Option<u64>,
    /// CachePolicyType (1 = NoCache).
    pub cache_policy: Option<u64>,
    /// CongestionMark; 0 means not marked.
    pub congestion_mark: Option<u64>,
    pub tx_sequence: Option<u64>,
    pub non_discovery: bool,
    /// The TLV-VALUE of PrefixAnnouncement (a Data), not decoded.
    pub prefix_announcement: Option<&'a [u8]>,
    pub ext: LpExt,
    /// The Fragment's TLV-VALUE: a whole Interest or Data, or a piece of one.
    pub fragment: Option<&'a [u8]>,
    headers: &'a [u8],
}

impl<'a> LpPacketView<'a> {
    /// Decodes one LpPacket element spanning `wire`, with the default extension types.
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        Self::decode_with(wire, &ExtTypes::default())
    }

    /// Decodes one LpPacket element spanning `wire`.
    pub fn decode_with(wire: &'a [u8], types: &ExtTypes) -> Result<Self> {
        Self::from_element(Element::read_exact_typed(wire, tt::LP_PACKET)?, types)
    }

    /// Decodes an LpPacket element already framed.
    pub fn from_element(outer: Element<'a>, types: &ExtTypes) -> Result<Self> {
        outer.expect(tt::LP_PACKET)?;
        let mut v = LpPacketView {
            wire: outer.wire,
            sequence: None,
            frag_index: None,
            frag_count: None,
            pit_token: None,
            nack: None,
            incoming_face_id: None,
            next_hop_face_id: None,
            cache_policy: None,
            congestion_mark: None,
            tx_sequence: None,
            non_discovery: false,
            prefix_announcement: None,
            ext: LpExt::default(),
            fragment: None,
            headers: outer.value,
        };
        let mut order = Order::default();
        for e in outer.children() {
            let e = e?;
            if v.fragment.is_some() {
                return Err(Error::Invalid("nothing may follow the Fragment"));
            }
            let rank = u32::try_from(e.typ).unwrap_or(u32::MAX - 1);
            match e.typ {
                tt::FRAGMENT => {
                    let end =
                        (e.wire.as_ptr() as usize).saturating_sub(outer.value.as_ptr() as usize);
                    v.headers = outer.value.get(..end).unwrap_or_default();
                    v.fragment = Some(e.value);
                    continue;
                }
                tt::ACK => order.see(e.typ, rank, true)?,
                t if tt::lp_header_ignorable(t) && !is_known(t, types) => continue,
                _ => order.see(e.typ, rank, false)?,
            }
            match e.typ {
                tt::SEQUENCE => v.sequence = Some(e.nonneg()?),
                tt::FRAG_INDEX => v.frag_index = Some(e.nonneg()?),
                tt::FRAG_COUNT => v.frag_count = Some(e.nonneg()?),
                tt::PIT_TOKEN => {
                    if !(1..=32).contains(&e.value.len()) {
                        return Err(Error::BadLength {
                            what: "PitToken",
                            len: e.value.len(),
                        });
                    }
                    v.pit_token = Some(e.value);
                }
                tt::NACK => v.nack = Some(decode_nack(e)?),
                tt::INCOMING_FACE_ID => v.incoming_face_id = Some(e.nonneg()?),
                tt::NEXT_HOP_FACE_ID => v.next_hop_face_id = Some(e.nonneg()?),
                tt::CACHE_POLICY => {
                    let inner = Element::read_exact_typed(e.value, tt::CACHE_POLICY_TYPE)?;
                    v.cache_policy = Some(inner.nonneg()?);
                }
                tt::CONGESTION_MARK => v.congestion_mark = Some(e.nonneg()?),
                tt::ACK => {
                    e.nonneg()?;
                }
                tt::TX_SEQUENCE => v.tx_sequence = Some(e.nonneg()?),
                tt::NON_DISCOVERY => v.non_discovery = true,
                tt::PREFIX_ANNOUNCEMENT => v.prefix_announcement = Some(e.value),
                t => {
                    if !decode_ext(&mut v.ext, types, e)? {
                        return Err(Error::UnknownCritical(t));
                    }
                }
            }
        }
        let count = v.frag_count.unwrap_or(1);
        let index = v.frag_index.unwrap_or(0);
        if count == 0 || index >= count {
            return Err(Error::Invalid("FragIndex must be below FragCount"));
        }
        if count > 1 && v.fragment.is_none() {
            return Err(Error::Missing("Fragment in a fragmented LpPacket"));
        }
        if v.nack.is_some() && count == 1 && v.fragment.is_none() {
            return Err(Error::Missing("the Interest of a Nack"));
        }
        Ok(v)
    }

    /// True when the fragment is a whole network packet (no FragCount above 1).
    pub fn is_whole(&self) -> bool {
        self.frag_count.unwrap_or(1) == 1
    }

    /// True when CongestionMark is present and non-zero.
    pub fn is_marked(&self) -> bool {
        self.congestion_mark.unwrap_or(0) != 0
    }

    /// The Ack headers (acknowledged TxSequence numbers), in order.
    pub fn acks(&self) -> impl Iterator<Item = u64> + 'a {
        Elements::new(self.headers).filter_map(|e| {
            let e = e.ok()?;
            if e.typ == tt::ACK {
                e.nonneg().ok()
            } else {
                None
            }
        })
    }

    /// An owned copy of every field.
    pub fn to_owned(&self) -> LpPacket {
        LpPacket {
            sequence: self.sequence,
            frag_index: self.frag_index,
            frag_count: self.frag_count,
            pit_token: self.pit_token.map(<[u8]>::to_vec),
            nack: self.nack,
            incoming_face_id: self.incoming_face_id,
            next_hop_face_id: self.next_hop_face_id,
            cache_policy: self.cache_policy,
            congestion_mark: self.congestion_mark,
            acks: self.acks().collect(),
            tx_sequence: self.tx_sequence,
            non_discovery: self.non_discovery,
            prefix_announcement: self.prefix_announcement.map(<[u8]>::to_vec),
            ext: self.ext,
            fragment: self.fragment.map(<[u8]>::to_vec),
        }
    }
}

fn is_known(t: u64, types: &ExtTypes) -> bool {
    ASSIGNED.contains(&t) || types.all().contains(&t)
}

fn decode_nack(e: Element<'_>) -> Result<Nack> {
    let mut reason = None;
    for c in e.children() {
        let c = c?;
        match c.typ {
            tt::NACK_REASON if reason.is_none() => {
                reason = Some(NackReason::from_code(c.nonneg()?));
            }
            tt::NACK_REASON => return Err(Error::Duplicate(c.typ)),
            t if tlv::is_critical(t) => return Err(Error::UnknownCritical(t)),
            _ => {}
        }
    }
    Ok(Nack { reason })
}

/// An owned LpPacket, for encoding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LpPacket {
    pub sequence: Option<u64>,
    pub frag_index: Option<u64>,
    pub frag_count: Option<u64>,
    pub pit_token: Option<Vec<u8>>,
    pub nack: Option<Nack>,
    pub incoming_face_id: Option<u64>,
    pub next_hop_face_id: Option<u64>,
    pub cache_policy: Option<u64>,
    pub congestion_mark: Option<u64>,
    pub acks: Vec<u64>,
    pub tx_sequence: Option<u64>,
    pub non_discovery: bool,
    pub prefix_announcement: Option<Vec<u8>>,
    pub ext: LpExt,
    pub fragment: Option<Vec<u8>>,
}

impl LpPacket {
    /// An LpPacket carrying one whole network packet and no headers.
    pub fn wrap(packet: impl Into<Vec<u8>>) -> Self {
        LpPacket {
            fragment: Some(packet.into()),
            ..LpPacket::default()
        }
    }

    /// The LpPacket element, with the default extension types.
    pub fn encode(&self) -> Result<Vec<u8>> {
        self.encode_with(&ExtTypes::default())
    }

    /// The LpPacket element. Errors on a PitToken outside 1–32 bytes, a rate stamp that is not
    /// finite and non-negative, a bad chunk request or segment info, or bad `types`.
    pub fn encode_with(&self, types: &ExtTypes) -> Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(32 + self.fragment.as_ref().map_or(0, Vec::len));
        self.encode_to(&mut buf, types)?;
        Ok(buf)
    }

    /// Appends the LpPacket element.
    pub fn encode_to(&self, buf: &mut Vec<u8>, types: &ExtTypes) -> Result<()> {
        types.validate()?;
        let headers = self.encode_headers(types)?;
        let frag_len = self
            .fragment
            .as_ref()
            .map(|f| tlv::varnum_len(tt::FRAGMENT) + tlv::varnum_len(f.len() as u64) + f.len());
        tlv::write_header(buf, tt::LP_PACKET, headers.len() + frag_len.unwrap_or(0));
        buf.extend_from_slice(&headers);
        if let Some(f) = &self.fragment {
            tlv::write_tlv(buf, tt::FRAGMENT, f);
        }
        Ok(())
    }

    /// The header fields in increasing TLV-TYPE order.
    fn encode_headers(&self, types: &ExtTypes) -> Result<Vec<u8>> {
        let mut scratch = Vec::with_capacity(64);
        let mut spans: Vec<(u64, usize, usize)> = Vec::with_capacity(8);
        let mut put = |typ: u64, scratch: &mut Vec<u8>, f: &dyn Fn(&mut Vec<u8>)| {
            let start = scratch.len();
            f(scratch);
            spans.push((typ, start, scratch.len()));
        };
        let fixed8 = |b: &mut Vec<u8>, t: u64, n: u64| tlv::write_tlv(b, t, &n.to_be_bytes());
        if let Some(s) = self.sequence {
            put(tt::SEQUENCE, &mut scratch, &|b| fixed8(b, tt::SEQUENCE, s));
        }
        let nonneg = |t: u64, n: u64| move |b: &mut Vec<u8>| tlv::write_nonneg_tlv(b, t, n);
        if let Some(i) = self.frag_index {
            put(tt::FRAG_INDEX, &mut scratch, &nonneg(tt::FRAG_INDEX, i));
        }
        if let Some(c) = self.frag_count {
            put(tt::FRAG_COUNT, &mut scratch, &nonneg(tt::FRAG_COUNT, c));
        }
        if let Some(t) = &self.pit_token {
            if !(1..=32).contains(&t.len()) {
                return Err(Error::BadLength {
                    what: "PitToken",
                    len: t.len(),
                });
            }
            put(tt::PIT_TOKEN, &mut scratch, &|b| {
                tlv::write_tlv(b, tt::PIT_TOKEN, t)
            });
        }
        if let Some(n) = self.nack {
            put(tt::NACK, &mut scratch, &|b| {
                tlv::write_nested(b, tt::NACK, |x| {
                    if let Some(r) = n.reason {
                        tlv::write_nonneg_tlv(x, tt::NACK_REASON, r.code());
                    }
                })
            });
        }
        for (t, v) in [
            (tt::INCOMING_FACE_ID, self.incoming_face_id),
            (tt::NEXT_HOP_FACE_ID, self.next_hop_face_id),
            (tt::CONGESTION_MARK, self.congestion_mark),
        ] {
            if let Some(v) = v {
                put(t, &mut scratch, &nonneg(t, v));
            }
        }
        if let Some(p) = self.cache_policy {
            put(tt::CACHE_POLICY, &mut scratch, &|b| {
                tlv::write_nested(b, tt::CACHE_POLICY, |x| {
                    tlv::write_nonneg_tlv(x, tt::CACHE_POLICY_TYPE, p)
                })
            });
        }
        for &a in &self.acks {
            put(tt::ACK, &mut scratch, &|b| fixed8(b, tt::ACK, a));
        }
        if let Some(s) = self.tx_sequence {
            put(tt::TX_SEQUENCE, &mut scratch, &|b| {
                fixed8(b, tt::TX_SEQUENCE, s)
            });
        }
        if self.non_discovery {
            put(tt::NON_DISCOVERY, &mut scratch, &|b| {
                tlv::write_header(b, tt::NON_DISCOVERY, 0)
            });
        }
        if let Some(pa) = &self.prefix_announcement {
            put(tt::PREFIX_ANNOUNCEMENT, &mut scratch, &|b| {
                tlv::write_tlv(b, tt::PREFIX_ANNOUNCEMENT, pa)
            });
        }
        let ext = &self.ext;
        if let Some(r) = ext.rate_stamp {
            if !r.is_finite() || r < 0.0 {
                return Err(Error::Invalid("rate stamp must be finite and non-negative"));
            }
            let t = types.rate_stamp;
            put(t, &mut scratch, &|b| fixed8(b, t, r.to_bits()));
        }
        if let Some(s) = ext.segment {
            if s.index >= s.count {
                return Err(Error::Invalid(
                    "segment index must be below the segment count",
                ));
            }
            let t = types.segment_info;
            let v = (u64::from(s.index) << 32) | u64::from(s.count);
            put(t, &mut scratch, &|b| fixed8(b, t, v));
        }
        if let Some(c) = ext.class {
            put(
                types.traffic_class,
                &mut scratch,
                &nonneg(types.traffic_class, c.into()),
            );
        }
        if let Some(c) = ext.chunk {
            if !(1..=64).contains(&c.segments) {
                return Err(Error::Invalid("chunk request needs 1 to 64 segments"));
            }
            let t = types.chunk_request;
            put(t, &mut scratch, &|b| {
                tlv::write_header(b, t, 12);
                b.extend_from_slice(&c.segments.to_be_bytes());
                b.extend_from_slice(&c.mask.to_be_bytes());
            });
        }
        if let Some(h) = ext.hops {
            put(
                types.hop_count,
                &mut scratch,
                &nonneg(types.hop_count, h.into()),
            );
        }
        spans.sort_by_key(|&(t, _, _)| t);
        let mut out = Vec::with_capacity(scratch.len());
        for (_, s, e) in spans {
            out.extend_from_slice(scratch.get(s..e).unwrap_or_default());
        }
        Ok(out)
    }
}
