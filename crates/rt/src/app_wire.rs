//! Between the core's app packets (an interned prefix plus a sequence number, sizes instead of
//! bytes) and the wire format, for the real-time apps.
//!
//! Names: the consumer asks for `<prefix>/seq=<n>` (SequenceNumNameComponent, 0x3A). The
//! producer answers `<prefix>/<n>` where the last component is a sequence number or a segment
//! number (`seg=<n>`), and replies with the Interest's exact name. Hop-by-hop signals travel in
//! LpPacket headers: CongestionMark (NDNLPv2) and this project's own (rate stamp, segment info,
//! traffic class, chunk request, hop count; see `ndncc_wire::lp`).
//!
//! Chunk requests ([`ChunkWire`]): by default each segment a chunk Interest asks for goes as
//! its own Interest, `<prefix>/seg=<chunk × N + offset>` (N segments per chunk), answered by one
//! Data of that name — plain NDN that any forwarder carries (ndnd drops our LpPacket headers,
//! and its PIT lets one Data answer one Interest). [`ChunkWire::Lp`] keeps the model's one
//! Interest per chunk, `<prefix>/seq=<chunk>` with a ChunkRequest header, answered by N Data
//! carrying SegmentInfo headers: only ndnccd carries it (what `ndncc emulate` runs).

use crate::boundary::convert::{data_ext_to_core, interest_ext, interest_ext_to_core};
use ndncc_core::{Data, Duration, Instant, Interest, Nack, NackReason, NameId, NameTable};
use ndncc_wire::lp::{self, LpExt};
use ndncc_wire::{tt, Component, InterestView, LpPacket, LpPacketView, Name, NameView};

/// The prefix of an app: its wire name and its id in a private name table.
#[derive(Clone, Debug)]
pub struct AppNames {
    pub table: NameTable,
    pub prefix_id: NameId,
    pub prefix: Name,
}

impl AppNames {
    /// From an NDN URI such as `/ndncc/flow1`.
    pub fn new(uri: &str) -> Result<AppNames, String> {
        let prefix = Name::from_uri(uri).map_err(|e| format!("prefix '{uri}': {e}"))?;
        if prefix.is_empty() {
            return Err(format!(
                "prefix '{uri}': an app prefix needs at least one component"
            ));
        }
        let mut table = NameTable::new();
        let prefix_id = table.intern(&prefix.to_string());
        Ok(AppNames {
            table,
            prefix_id,
            prefix,
        })
    }

    /// `<prefix>/seq=<n>`.
    pub fn wire_name(&self, seq: u64) -> Name {
        self.prefix.clone().with(Component::sequence_num(seq))
    }

    /// `<prefix>/seg=<n>`.
    pub fn segment_name(&self, seg: u64) -> Name {
        self.prefix.clone().with(Component::segment(seg))
    }

    /// The segment number of `<prefix>/seg=<n>`, `None` for any other name.
    pub fn segment_of(&self, name: &NameView<'_>) -> Option<u64> {
        self.seq_of(name)?;
        name.last()?.number_of(tt::SEGMENT_NAME_COMPONENT)
    }

    /// The number of `<prefix>/<seq=n | seg=n>`, `None` for any other name.
    pub fn seq_of(&self, name: &NameView<'_>) -> Option<u64> {
        let n = self.prefix.len();
        if name.len() != n + 1 || name.value().len() <= self.prefix.value_len() {
            return None;
        }
        let same = self
            .prefix
            .components()
            .iter()
            .zip(name.components())
            .all(|(a, b)| a.typ() == b.typ && a.value() == b.value);
        if !same {
            return None;
        }
        let last = name.last()?;
        last.number_of(tt::SEQUENCE_NUM_NAME_COMPONENT)
            .or_else(|| last.number_of(tt::SEGMENT_NAME_COMPONENT))
    }
}

/// Milliseconds (rounded up) of a core duration, as InterestLifetime and FreshnessPeriod are.
pub fn ms(d: Duration) -> u64 {
    d.0.div_ceil(1_000_000)
}

/// How a chunked consumer's chunk Interests go on the wire (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChunkWire {
    /// One Interest per segment asked for, `<prefix>/seg=<chunk × N + offset>`: any forwarder.
    #[default]
    Names,
    /// One Interest per chunk with a ChunkRequest LpPacket header: ndnccd only.
    Lp,
}

impl std::str::FromStr for ChunkWire {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "names" => Ok(ChunkWire::Names),
            "lp" => Ok(ChunkWire::Lp),
            _ => Err(format!(
                "chunk requests '{s}': 'names' (one Interest per segment, any forwarder) or \
                 'lp' (one Interest per chunk in an LpPacket header, ndnccd only)"
            )),
        }
    }
}

/// The segment number of `offset` in chunk `chunk` of `n` segments: chunk × n + offset.
pub fn segment_number(chunk: u64, n: u32, offset: u32) -> Option<u64> {
    chunk
        .checked_mul(u64::from(n))?
        .checked_add(u64::from(offset))
}

/// The wire Interests of a core Interest, each with a Nonce from `nonce`: one, or for a chunk
/// Interest with [`ChunkWire::Names`] one per segment it asks for, in offset order.
pub fn interests_to_wire(
    names: &AppNames,
    i: &Interest,
    chunks: ChunkWire,
    mut nonce: impl FnMut() -> u32,
) -> Result<Vec<Vec<u8>>, String> {
    let (Some(chunk), ChunkWire::Names) = (i.ext.chunk(), chunks) else {
        return Ok(vec![interest_to_wire(
            names,
            &Interest {
                nonce: nonce(),
                ..*i
            },
        )?]);
    };
    let seq = i
        .name
        .seq
        .ok_or("an app Interest without a sequence number")?;
    let mut one = *i;
    one.ext.set_chunk(None);
    chunk
        .offsets()
        .map(|k| {
            let seg = segment_number(seq, chunk.segments, k)
                .ok_or_else(|| format!("chunk {seq}: its segment numbers pass 2^64"))?;
            one.nonce = nonce();
            wire_interest(names.segment_name(seg), &one)
        })
        .collect()
}

/// A core Interest as bytes: bare, or in an LpPacket when it carries extension fields.
pub fn interest_to_wire(names: &AppNames, i: &Interest) -> Result<Vec<u8>, String> {
    let seq = i
        .name
        .seq
        .ok_or("an app Interest without a sequence number")?;
    wire_interest(names.wire_name(seq), i)
}

/// `i` under the wire name `name`: bare, or in an LpPacket when it carries extension fields.
fn wire_interest(name: Name, i: &Interest) -> Result<Vec<u8>, String> {
    let w = ndncc_wire::Interest {
        name,
        can_be_prefix: i.can_be_prefix,
        must_be_fresh: i.must_be_fresh,
        nonce: Some(i.nonce),
        lifetime: Some(ms(i.lifetime)),
        hop_limit: i.hop_limit,
        ..ndncc_wire::Interest::default()
    };
    let bytes = w.encode().map_err(|e| e.to_string())?;
    let ext = interest_ext(i);
    if ext.is_empty() {
        return Ok(bytes);
    }
    LpPacket {
        ext,
        ..LpPacket::wrap(bytes)
    }
    .encode()
    .map_err(|e| e.to_string())
}

/// The core Interest for a wire Interest under the prefix (`None` for other names).
pub fn interest_from_wire(
    names: &AppNames,
    i: &InterestView<'_>,
    lp: Option<&LpPacketView<'_>>,
) -> Option<Interest> {
    let seq = names.seq_of(&i.name)?;
    let mut core = Interest::new(
        ndncc_core::Name::new(names.prefix_id, seq),
        i.nonce.unwrap_or(0),
        Duration(i.lifetime_ms().saturating_mul(1_000_000)),
        i.wire.len() as u32,
    );
    core.can_be_prefix = i.can_be_prefix;
    core.must_be_fresh = i.must_be_fresh;
    core.hop_limit = i.hop_limit;
    core.ext = interest_ext_to_core(lp);
    Some(core)
}

/// The core Data for a wire Data under the prefix (`None` for other names). For a consumer of
/// chunks of `chunk_segments` N, a Data named `<prefix>/seg=<s>` is segment s mod N of chunk
/// ⌊s / N⌋ ([`ChunkWire::Names`]), whatever its SegmentInfo header says.
pub fn data_from_wire(
    names: &AppNames,
    d: &ndncc_wire::DataView<'_>,
    lp: Option<&LpPacketView<'_>>,
    now: Instant,
    chunk_segments: Option<u32>,
) -> Option<Data> {
    let mut seq = names.seq_of(&d.name)?;
    let mut ext = data_ext_to_core(lp);
    if let (Some(n), Some(s)) = (chunk_segments.filter(|&n| n > 0), names.segment_of(&d.name)) {
        let n64 = u64::from(n);
        seq = s / n64;
        ext.segment = Some(ndncc_core::packet::SegmentInfo {
            index: (s % n64) as u32,
            count: n,
        });
    }
    Some(Data {
        name: ndncc_core::Name::new(names.prefix_id, seq),
        payload: d.content.map_or(0, <[u8]>::len) as u32,
        size: d.wire.len() as u32,
        freshness: Duration(d.freshness.unwrap_or(0).saturating_mul(1_000_000)),
        created: now,
        ext,
    })
}

/// The core Nack for a wire Nack (an LpPacket with a Nack header around our Interest); for a
/// consumer of chunks of `chunk_segments`, a Nacked `<prefix>/seg=<s>` is chunk ⌊s / N⌋'s.
pub fn nack_from_wire(
    names: &AppNames,
    i: &InterestView<'_>,
    lp: &LpPacketView<'_>,
    chunk_segments: Option<u32>,
) -> Option<Nack> {
    let nack = lp.nack?;
    let mut interest = interest_from_wire(names, i, Some(lp))?;
    if let (Some(n), Some(s)) = (chunk_segments.filter(|&n| n > 0), names.segment_of(&i.name)) {
        interest.name.seq = Some(s / u64::from(n));
    }
    let reason = match nack.reason.map(lp::NackReason::code) {
        Some(50) => NackReason::Congestion,
        Some(100) => NackReason::Duplicate,
        _ => NackReason::NoRoute,
    };
    Some(Nack {
        reason,
        interest,
        size: lp.wire.len() as u32,
    })
}

/// A core Data answering the wire Interest named `name`: `payload` zero bytes of Content,
/// FreshnessPeriod, DigestSha256; in an LpPacket when there is a PitToken to echo (ndnd gives
/// 6 bytes and needs them back) or extension fields to carry.
pub fn data_to_wire(name: &Name, d: &Data, pit_token: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let w = ndncc_wire::Data {
        name: name.clone(),
        meta: Some(ndncc_wire::MetaInfo {
            freshness: (d.freshness.0 > 0).then(|| ms(d.freshness)),
            ..ndncc_wire::MetaInfo::default()
        }),
        content: Some(vec![0; d.payload as usize]),
        ..ndncc_wire::Data::default()
    };
    let bytes = w.encode();
    let ext = LpExt {
        rate_stamp: d.ext.rate_stamp,
        segment: d.ext.segment.map(|s| lp::SegmentInfo {
            index: s.index,
            count: s.count,
        }),
        class: (d.ext.class != 0).then_some(d.ext.class),
        ..LpExt::default()
    };
    if pit_token.is_none() && ext.is_empty() && !d.ext.mark {
        return Ok(bytes);
    }
    LpPacket {
        pit_token: pit_token.map(<[u8]>::to_vec),
        congestion_mark: d.ext.mark.then_some(1),
        ext,
        ..LpPacket::wrap(bytes)
    }
    .encode()
    .map_err(|e| e.to_string())
}

/// `d` with its Content resized so that the Data TLV [`data_to_wire`] encodes (without an
/// LpPacket around it) is `wire_size` bytes, as close as the encoding allows (a Data smaller
/// than its name and headers keeps an empty Content). `ndncc emulate` sends the scenario's
/// Data size this way, so that the emulated links carry the packets the simulator models.
pub fn data_sized(name: &Name, d: &Data, wire_size: u32) -> Result<Data, String> {
    let mut out = *d;
    out.ext = Default::default();
    for _ in 0..4 {
        let len = data_to_wire(name, &out, None)?.len() as i64;
        let diff = i64::from(wire_size) - len;
        if diff == 0 {
            break;
        }
        out.payload = (i64::from(out.payload) + diff).clamp(0, i64::from(u32::MAX)) as u32;
    }
    Ok(Data {
        payload: out.payload,
        ..*d
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::packet::{ChunkRequest, DataExt};
    use ndncc_wire::{DataView, Frame, NetPacket};

    #[test]
    fn names_round_trip_and_foreign_names_are_refused() {
        let n = AppNames::new("/ndncc/flow").unwrap();
        let w = n.wire_name(17).to_wire();
        assert_eq!(n.seq_of(&NameView::decode(&w).unwrap()), Some(17));
        let seg = Name::from_uri("/ndncc/flow/seg=3").unwrap().to_wire();
        assert_eq!(n.seq_of(&NameView::decode(&seg).unwrap()), Some(3));
        for other in [
            "/ndncc/flow",
            "/ndncc/other/seq=1",
            "/ndncc/flow/x",
            "/ndncc/flow/seq=1/y",
        ] {
            let w = Name::from_uri(other).unwrap().to_wire();
            assert_eq!(n.seq_of(&NameView::decode(&w).unwrap()), None, "{other}");
        }
        assert!(AppNames::new("/").is_err());
    }

    /// The emulated Data size: the Data TLV is exactly the asked size (names of any length,
    /// across the 1- to 3-byte TLV length boundary), a size below the headers leaves no
    /// Content, and the PitToken's LpPacket comes on top of it.
    #[test]
    fn data_sized_gives_the_asked_wire_size() {
        let n = AppNames::new("/p").unwrap();
        let d = |seq| Data {
            name: ndncc_core::Name::new(n.prefix_id, seq),
            payload: 1250,
            size: 0,
            freshness: Duration(0),
            created: Instant(0),
            ext: DataExt::default(),
        };
        for seq in [0, 300, 70_000, u64::MAX] {
            let name = n.wire_name(seq);
            for size in [1250, 300, 253, 252, 200] {
                let s = data_sized(&name, &d(seq), size).unwrap();
                let bytes = data_to_wire(&name, &s, None).unwrap();
                assert_eq!(bytes.len(), size as usize, "seq {seq} size {size}");
                assert!(s.payload < size);
            }
            let tiny = data_sized(&name, &d(seq), 5).unwrap();
            assert_eq!(tiny.payload, 0);
        }
        let name = n.wire_name(1);
        let s = data_sized(&name, &d(1), 1250).unwrap();
        assert!(
            data_to_wire(&name, &s, Some(&[1, 2, 3, 4, 5, 6]))
                .unwrap()
                .len()
                > 1250
        );
    }

    #[test]
    fn interest_and_data_through_the_wire() {
        let n = AppNames::new("/p").unwrap();
        let mut i = Interest::new(
            ndncc_core::Name::new(n.prefix_id, 5),
            0xABCD,
            Duration(1_500_000_000),
            40,
        );
        let bare = interest_to_wire(&n, &i).unwrap();
        let f = Frame::decode(&bare).unwrap();
        assert!(f.lp.is_none());
        let Some(NetPacket::Interest(v)) = f.net else {
            panic!("not an Interest")
        };
        assert_eq!((v.nonce, v.lifetime), (Some(0xABCD), Some(1500)));
        let back = interest_from_wire(&n, &v, None).unwrap();
        assert_eq!(back.name, i.name);
        // a chunk request travels in an LpPacket header
        i.ext.set_chunk(Some(ChunkRequest::all(4)));
        let wrapped = interest_to_wire(&n, &i).unwrap();
        let f = Frame::decode(&wrapped).unwrap();
        let Some(NetPacket::Interest(v)) = f.net else {
            panic!("not an Interest")
        };
        let back = interest_from_wire(&n, &v, f.lp.as_ref()).unwrap();
        assert_eq!(back.ext.chunk(), Some(ChunkRequest::all(4)));

        let d = Data {
            name: i.name,
            payload: 100,
            size: 0,
            freshness: Duration(0),
            created: Instant(0),
            ext: DataExt::default(),
        };
        let token = [1, 2, 3, 4, 5, 6];
        let bytes = data_to_wire(&n.wire_name(5), &d, Some(&token)).unwrap();
        let f = Frame::decode(&bytes).unwrap();
        assert_eq!(f.lp.unwrap().pit_token, Some(&token[..]));
        let Some(NetPacket::Data(dv)) = f.net else {
            panic!("not a Data")
        };
        dv.verify_digest_sha256().unwrap();
        let core = data_from_wire(&n, &dv, f.lp.as_ref(), Instant(7), None).unwrap();
        assert_eq!(
            (core.name, core.payload, core.ext.mark),
            (i.name, 100, false)
        );
        // bare when nothing rides along
        let bare = data_to_wire(&n.wire_name(5), &d, None).unwrap();
        assert!(DataView::decode(&bare).is_ok());
    }
}
