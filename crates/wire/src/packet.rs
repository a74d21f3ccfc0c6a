//! What is this datagram? A bare Interest, a bare Data, or an LpPacket (whose whole fragment is
//! decoded too). Plus stream framing for TCP and Unix faces.

use crate::data::DataView;
use crate::error::{Error, Result};
use crate::interest::InterestView;
use crate::lp::{ExtTypes, LpPacketView};
use crate::tlv::{self, Element};
use crate::tt;

/// A network-layer packet borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NetPacket<'a> {
    Interest(InterestView<'a>),
    Data(DataView<'a>),
}

impl<'a> NetPacket<'a> {
    /// Decodes a bare Interest or Data spanning `wire`.
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        let e = Element::read_exact(wire)?;
        match e.typ {
            tt::INTEREST => Ok(NetPacket::Interest(InterestView::from_element(e)?)),
            tt::DATA => Ok(NetPacket::Data(DataView::from_element(e)?)),
            t => Err(Error::UnexpectedType {
                expected: tt::INTEREST,
                found: t,
            }),
        }
    }
}

/// One received datagram (or one element cut from a stream).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame<'a> {
    /// The LpPacket, when the packet came wrapped in one.
    pub lp: Option<LpPacketView<'a>>,
    /// The network packet: absent for a fragment of a larger packet (hand the LpPacket to a
    /// [`crate::reassembly::Reassembler`]) and for an LpPacket without a Fragment (Ack-only).
    pub net: Option<NetPacket<'a>>,
}

impl<'a> Frame<'a> {
    /// Decodes with the default extension header types.
    pub fn decode(wire: &'a [u8]) -> Result<Self> {
        Self::decode_with(wire, &ExtTypes::default())
    }

    /// Decodes a bare Interest, a bare Data, or an LpPacket spanning `wire`. A Nack must carry
    /// an Interest.
    pub fn decode_with(wire: &'a [u8], types: &ExtTypes) -> Result<Self> {
        let e = Element::read_exact(wire)?;
        match e.typ {
            tt::LP_PACKET => {
                let lp = LpPacketView::from_element(e, types)?;
                let net = match lp.fragment {
                    Some(f) if lp.is_whole() => Some(NetPacket::decode(f)?),
                    _ => None,
                };
                if lp.nack.is_some() && matches!(net, Some(NetPacket::Data(_))) {
                    return Err(Error::Invalid("a Nack must carry an Interest"));
                }
                Ok(Frame { lp: Some(lp), net })
            }
            _ => Ok(Frame {
                lp: None,
                net: Some(NetPacket::decode(wire)?),
            }),
        }
    }

    /// True when this is a Nack (an LpPacket with a Nack header).
    pub fn is_nack(&self) -> bool {
        self.lp.is_some_and(|lp| lp.nack.is_some())
    }
}

/// Stream framing: the length of the first complete element in `buf`, `Ok(None)` while its
/// header or value is still incomplete, or an error when the header is invalid or announces
/// more than `max_len` bytes (a stream face should then close).
pub fn element_len(buf: &[u8], max_len: usize) -> Result<Option<usize>> {
    let (typ, t_len) = match tlv::read_varnum(buf) {
        Ok(x) => x,
        Err(Error::Truncated { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    if typ == 0 {
        return Err(Error::ZeroType);
    }
    let (len, l_len) = match tlv::read_varnum(buf.get(t_len..).unwrap_or_default()) {
        Ok(x) => x,
        Err(Error::Truncated { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let total = u64::try_from(t_len + l_len)
        .ok()
        .and_then(|h| h.checked_add(len))
        .and_then(|t| usize::try_from(t).ok())
        .filter(|&t| t <= max_len)
        .ok_or(Error::BadLength {
            what: "stream element",
            len: usize::try_from(len).unwrap_or(usize::MAX),
        })?;
    Ok((buf.len() >= total).then_some(total))
}
