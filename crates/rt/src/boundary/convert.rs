//! Wire ↔ core packets: what the forwarder sees of a decoded packet, and the bytes that go out
//! for a packet the forwarder sends.
//!
//! Inbound, the core packet takes the fields the forwarder acts on (name, nonce, lifetime,
//! selectors, hop limit, sizes, freshness) and the LpPacket headers (CongestionMark, NackReason,
//! this project's rate stamp, segment info, traffic class, chunk request, hop count). Outbound,
//! the network packet is the one that came in (kept as bytes by the daemon: the core model has
//! no payload), with the fields the forwarder may change written back (nonce, hop limit) and the
//! LpPacket headers taken from the core packet. A Data is never re-encoded (its signature
//! covers it); headers travel in the LpPacket around it.

use ndncc_core::name::Name;
use ndncc_core::packet::{
    ChunkRequest, Data, DataExt, Interest, InterestExt, Nack, NackReason, SegmentInfo,
};
use ndncc_core::time::{Duration, Instant};
use ndncc_wire::lp::{self, ExtTypes, LpExt, LpPacket, LpPacketView};
use ndncc_wire::{tlv, tt, DataView, InterestView};
use std::borrow::Cow;

/// Bytes a Nack adds around the Interest it carries (LpPacket, Nack, NackReason and Fragment
/// headers, typical): the core's `nack_overhead`.
pub const NACK_OVERHEAD: u32 = 12;

/// The core extension fields of an Interest's LpPacket headers (default without an LpPacket).
pub(crate) fn interest_ext_to_core(lp: Option<&LpPacketView<'_>>) -> InterestExt {
    let mut ext = InterestExt::default();
    if let Some(x) = lp.map(|l| l.ext) {
        ext.class = x.class.unwrap_or(0);
        ext.set_chunk(x.chunk.map(|c| ChunkRequest {
            segments: c.segments,
            mask: c.mask,
        }));
    }
    ext
}

/// The core extension fields of a Data's LpPacket headers (default without an LpPacket).
pub(crate) fn data_ext_to_core(lp: Option<&LpPacketView<'_>>) -> DataExt {
    let mut ext = DataExt::default();
    if let Some(l) = lp {
        ext.mark = l.is_marked();
        ext.rate_stamp = l.ext.rate_stamp;
        ext.segment = l.ext.segment.map(|s| SegmentInfo {
            index: s.index,
            count: s.count,
        });
        ext.hops = l.ext.hops.unwrap_or(0);
        ext.class = l.ext.class.unwrap_or(0);
    }
    ext
}

/// The core Interest of a wire Interest, named `name`; `nonce` is the wire nonce or, for a
/// nonce-less Interest, one the caller drew (ndnd drops Interests without one).
pub fn interest_to_core(
    i: &InterestView<'_>,
    lp: Option<&LpPacketView<'_>>,
    name: Name,
    nonce: u32,
) -> Interest {
    let ext = interest_ext_to_core(lp);
    Interest {
        name,
        nonce,
        lifetime: Duration::from_millis(i.lifetime_ms()),
        can_be_prefix: i.can_be_prefix,
        must_be_fresh: i.must_be_fresh,
        hop_limit: i.hop_limit,
        size: u32::try_from(i.wire.len()).unwrap_or(u32::MAX),
        ext,
    }
}

/// The core Data of a wire Data, named `name`, received at `now`.
pub fn data_to_core(
    d: &DataView<'_>,
    lp: Option<&LpPacketView<'_>>,
    name: Name,
    now: Instant,
) -> Data {
    let ext = data_ext_to_core(lp);
    Data {
        name,
        payload: d
            .content
            .map_or(0, |c| u32::try_from(c.len()).unwrap_or(u32::MAX)),
        size: u32::try_from(d.wire.len()).unwrap_or(u32::MAX),
        freshness: Duration::from_millis(d.freshness.unwrap_or(0)),
        created: now,
        ext,
    }
}

/// The core reason of a wire NackReason (an unknown or missing code reads as NoRoute, the
/// reason that stops the downstream from waiting).
pub fn reason_to_core(r: Option<lp::NackReason>) -> NackReason {
    match r {
        Some(lp::NackReason::Congestion) => NackReason::Congestion,
        Some(lp::NackReason::Duplicate) => NackReason::Duplicate,
        _ => NackReason::NoRoute,
    }
}

/// The wire reason of a core reason.
pub fn reason_to_wire(r: NackReason) -> lp::NackReason {
    match r {
        NackReason::Congestion => lp::NackReason::Congestion,
        NackReason::Duplicate => lp::NackReason::Duplicate,
        NackReason::NoRoute => lp::NackReason::NoRoute,
    }
}

/// The core Nack of a wire Nack around Interest `i`.
pub fn nack_to_core(interest: Interest, reason: Option<lp::NackReason>, size: usize) -> Nack {
    Nack {
        reason: reason_to_core(reason),
        interest,
        size: u32::try_from(size).unwrap_or(u32::MAX),
    }
}

/// The LpPacket headers of a core Interest's extension fields (empty when it has none).
pub(crate) fn interest_ext(i: &Interest) -> LpExt {
    LpExt {
        class: (i.ext.class != 0).then_some(i.ext.class),
        chunk: i.ext.chunk().map(|c| lp::ChunkRequest {
            segments: c.segments,
            mask: c.mask,
        }),
        ..LpExt::default()
    }
}

fn data_ext(d: &Data) -> LpExt {
    LpExt {
        rate_stamp: d.ext.rate_stamp.filter(|r| r.is_finite() && *r >= 0.0),
        segment: d.ext.segment.map(|s| lp::SegmentInfo {
            index: s.index,
            count: s.count,
        }),
        class: (d.ext.class != 0).then_some(d.ext.class),
        hops: (d.ext.hops != 0).then_some(d.ext.hops),
        chunk: None,
    }
}

/// Wraps a network packet in an LpPacket when there is a header to carry, else sends it bare
/// (python-ndn and ndnd accept both; a bare packet is what every NDN app expects).
fn frame(
    net: Cow<'_, [u8]>,
    lp: LpPacket,
    pit_token: Option<&[u8]>,
    types: &ExtTypes,
) -> ndncc_wire::Result<Vec<u8>> {
    if lp == LpPacket::default() {
        // the common cases, written directly: one copy of the packet (a token of a length the
        // encoder refuses, 1 to 32 bytes allowed, takes the general path and its error)
        match pit_token {
            None => return Ok(net.into_owned()),
            Some(tok) if (1..=32).contains(&tok.len()) => return Ok(token_frame(&net, tok)),
            Some(_) => {}
        }
    }
    let mut lp = lp;
    lp.pit_token = pit_token.map(<[u8]>::to_vec);
    lp.fragment = Some(net.into_owned());
    lp.encode_with(types)
}

/// Bytes of a TLV type or length number.
fn varnum_size(n: usize) -> usize {
    match n {
        0..=252 => 1,
        253..=0xFFFF => 3,
        0x1_0000..=0xFFFF_FFFF => 5,
        _ => 9,
    }
}

fn tlv_size(typ: u64, len: usize) -> usize {
    varnum_size(typ as usize) + varnum_size(len) + len
}

/// An LpPacket with only a PitToken and the Fragment `net` (what `LpPacket::encode_with`
/// writes for it, byte for byte, without building the LpPacket).
pub(crate) fn token_frame(net: &[u8], tok: &[u8]) -> Vec<u8> {
    let inner = tlv_size(tt::PIT_TOKEN, tok.len()) + tlv_size(tt::FRAGMENT, net.len());
    let mut out = Vec::with_capacity(tlv_size(tt::LP_PACKET, inner));
    tlv::write_header(&mut out, tt::LP_PACKET, inner);
    tlv::write_tlv(&mut out, tt::PIT_TOKEN, tok);
    tlv::write_tlv(&mut out, tt::FRAGMENT, net);
    out
}

/// The network Interest to send for core Interest `core`, from the wire Interest it came as:
/// the core's nonce and hop limit written back (re-encoded only when they differ).
pub fn interest_wire<'a>(stored: &'a [u8], core: &Interest) -> ndncc_wire::Result<Cow<'a, [u8]>> {
    let view = InterestView::decode(stored)?;
    if view.nonce == Some(core.nonce) && view.hop_limit == core.hop_limit {
        return Ok(Cow::Borrowed(stored));
    }
    let mut owned = view.to_owned();
    owned.nonce = Some(core.nonce);
    owned.hop_limit = core.hop_limit;
    owned.encode().map(Cow::Owned)
}

/// The frame to send for an Interest.
pub fn encode_interest(
    stored: &[u8],
    core: &Interest,
    pit_token: Option<&[u8]>,
    types: &ExtTypes,
) -> ndncc_wire::Result<Vec<u8>> {
    let lp = LpPacket {
        ext: interest_ext(core),
        ..LpPacket::default()
    };
    frame(interest_wire(stored, core)?, lp, pit_token, types)
}

/// The frame to send for a Data (its bytes unchanged, headers from the core Data).
pub fn encode_data(
    stored: &[u8],
    core: &Data,
    pit_token: Option<&[u8]>,
    types: &ExtTypes,
) -> ndncc_wire::Result<Vec<u8>> {
    let lp = LpPacket {
        congestion_mark: core.ext.mark.then_some(1),
        ext: data_ext(core),
        ..LpPacket::default()
    };
    frame(Cow::Borrowed(stored), lp, pit_token, types)
}

/// The frame to send for a Nack: always an LpPacket with a NackReason (python-ndn treats a
/// Nack without one as a new Interest).
pub fn encode_nack(
    stored_interest: &[u8],
    core: &Nack,
    pit_token: Option<&[u8]>,
    types: &ExtTypes,
) -> ndncc_wire::Result<Vec<u8>> {
    let lp = LpPacket {
        nack: Some(lp::Nack {
            reason: Some(reason_to_wire(core.reason)),
        }),
        pit_token: pit_token.map(<[u8]>::to_vec),
        fragment: Some(interest_wire(stored_interest, &core.interest)?.into_owned()),
        ..LpPacket::default()
    };
    lp.encode_with(types)
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
