//! Reassembly of fragmented LpPackets (NDNLPv2 indexed fragmentation) with bounded buffers,
//! and fragmentation of a network packet to fit an MTU.
//!
//! Sans-IO: time is a `u64` of nanoseconds passed in by the caller. One [`Reassembler`] serves
//! one face (one remote endpoint): fragments of one packet share `Sequence - FragIndex`.

use crate::error::{Error, Result};
use crate::lp::{ExtTypes, LpPacket, LpPacketView};
use crate::tlv;

/// Bounds on what a reassembler may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Packets under reassembly at once; the oldest is dropped to make room.
    pub max_partial: usize,
    /// The largest FragCount accepted.
    pub max_frag_count: u64,
    /// The largest reassembled packet, in bytes.
    pub max_packet_bytes: usize,
    /// How long a partial packet may wait for its other fragments, in ns.
    pub timeout_ns: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_partial: 64,
            max_frag_count: 64,
            max_packet_bytes: 64 * 1024,
            timeout_ns: 500_000_000,
        }
    }
}

/// What a fragment led to.
#[derive(Clone, Debug, PartialEq)]
pub enum Reassembled<'a> {
    /// The LpPacket was not fragmented: use it as it is (no copy).
    Whole(LpPacketView<'a>),
    /// The last missing fragment arrived: the headers of fragment 0 with the whole packet as
    /// the Fragment (FragIndex and FragCount cleared, Sequence of fragment 0).
    Complete(LpPacket),
    /// Stored; more fragments are needed (or it was a duplicate).
    Pending,
}

#[derive(Debug)]
struct Partial {
    base: u64,
    count: u64,
    received: u64,
    bytes: usize,
    deadline: u64,
    frags: Vec<Option<Vec<u8>>>,
    first: Option<LpPacket>,
}

/// Counters of what the reassembler threw away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub timed_out: u64,
    pub evicted: u64,
    pub rejected: u64,
    pub duplicates: u64,
}

/// Bounded reassembly state for one face.
#[derive(Debug)]
pub struct Reassembler {
    limits: Limits,
    partial: Vec<Partial>,
    pub stats: Stats,
}

impl Default for Reassembler {
    fn default() -> Self {
        Reassembler::new(Limits::default())
    }
}

impl Reassembler {
    pub fn new(limits: Limits) -> Self {
        Reassembler {
            limits,
            partial: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Packets under reassembly.
    pub fn pending(&self) -> usize {
        self.partial.len()
    }

    /// The earliest deadline of a partial packet, for the caller's timer.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.partial.iter().map(|p| p.deadline).min()
    }

    /// Drops partial packets whose deadline is at or before `now`.
    pub fn on_timeout(&mut self, now: u64) {
        let before = self.partial.len();
        self.partial.retain(|p| p.deadline > now);
        self.stats.timed_out += (before - self.partial.len()) as u64;
    }

    /// Takes one received LpPacket.
    pub fn receive<'a>(&mut self, now: u64, lp: LpPacketView<'a>) -> Result<Reassembled<'a>> {
        self.on_timeout(now);
        if lp.is_whole() {
            return Ok(Reassembled::Whole(lp));
        }
        let reject = |s: &mut Stats, e| {
            s.rejected += 1;
            Err(e)
        };
        let count = lp.frag_count.unwrap_or(1);
        let index = lp.frag_index.unwrap_or(0);
        let Some(seq) = lp.sequence else {
            return reject(&mut self.stats, Error::Missing("Sequence in a fragment"));
        };
        let Some(frag) = lp.fragment else {
            return reject(&mut self.stats, Error::Missing("Fragment"));
        };
        if count > self.limits.max_frag_count {
            return reject(&mut self.stats, Error::Invalid("FragCount above the limit"));
        }
        let Some(base) = seq.checked_sub(index) else {
            return reject(&mut self.stats, Error::Invalid("Sequence below FragIndex"));
        };
        let pos = match self.partial.iter().position(|p| p.base == base) {
            Some(pos) => pos,
            None => {
                if self.limits.max_partial == 0 {
                    return reject(&mut self.stats, Error::Invalid("reassembly disabled"));
                }
                if self.partial.len() >= self.limits.max_partial {
                    if let Some(oldest) = (0..self.partial.len())
                        .min_by_key(|&i| self.partial.get(i).map_or(u64::MAX, |p| p.deadline))
                    {
                        self.partial.swap_remove(oldest);
                        self.stats.evicted += 1;
                    }
                }
                self.partial.push(Partial {
                    base,
                    count,
                    received: 0,
                    bytes: 0,
                    deadline: now.saturating_add(self.limits.timeout_ns),
                    frags: vec![None; usize::try_from(count).unwrap_or(0)],
                    first: None,
                });
                self.partial.len() - 1
            }
        };
        let Some(p) = self.partial.get_mut(pos) else {
            return Err(Error::Invalid("reassembly state lost"));
        };
        if p.count != count {
            self.partial.swap_remove(pos);
            return reject(
                &mut self.stats,
                Error::Invalid("FragCount differs between fragments"),
            );
        }
        let slot = usize::try_from(index).ok().and_then(|i| p.frags.get_mut(i));
        let Some(slot) = slot else {
            return reject(&mut self.stats, Error::Invalid("FragIndex out of range"));
        };
        if slot.is_some() {
            self.stats.duplicates += 1;
            return Ok(Reassembled::Pending);
        }
        if p.bytes + frag.len() > self.limits.max_packet_bytes {
            self.partial.swap_remove(pos);
            return reject(
                &mut self.stats,
                Error::Invalid("reassembled packet too large"),
            );
        }
        *slot = Some(frag.to_vec());
        p.bytes += frag.len();
        p.received += 1;
        if index == 0 {
            p.first = Some(lp.to_owned());
        }
        if p.received < p.count {
            return Ok(Reassembled::Pending);
        }
        let p = self.partial.swap_remove(pos);
        let mut whole = Vec::with_capacity(p.bytes);
        for f in p.frags.into_iter().flatten() {
            whole.extend_from_slice(&f);
        }
        let mut out = p.first.unwrap_or_default();
        out.frag_index = None;
        out.frag_count = None;
        out.fragment = Some(whole);
        Ok(Reassembled::Complete(out))
    }
}

/// Splits a network packet into LpPackets of at most `mtu` bytes each. `headers` (PitToken,
/// Nack, CongestionMark, extension fields...) go on the first fragment only; every fragment
/// gets Sequence `first_seq + index`, FragIndex and FragCount. A packet that fits is sent as
/// one LpPacket with `headers` and Sequence, without FragIndex/FragCount.
pub fn fragment(
    packet: &[u8],
    headers: &LpPacket,
    mtu: usize,
    first_seq: u64,
    types: &ExtTypes,
) -> Result<Vec<Vec<u8>>> {
    let mut single = headers.clone();
    single.sequence = Some(first_seq);
    single.frag_index = None;
    single.frag_count = None;
    single.fragment = Some(packet.to_vec());
    let whole = single.encode_with(types)?;
    if whole.len() <= mtu {
        return Ok(vec![whole]);
    }
    // Worst-case framing of any fragment: LpPacket and Fragment headers, Sequence (8 bytes),
    // FragIndex and FragCount (NonNegativeIntegers of up to 8 bytes).
    let frame = 2 * (1 + tlv::varnum_len(mtu as u64)) + 3 * 10;
    let mut first_headers = single.clone();
    first_headers.sequence = None;
    first_headers.fragment = None;
    let extra = first_headers.encode_with(types)?.len().saturating_sub(2);
    let room = mtu.saturating_sub(frame);
    let first_room = room.saturating_sub(extra);
    if room == 0 || first_room == 0 {
        return Err(Error::Invalid("MTU too small for a fragment"));
    }
    let mut pieces = Vec::new();
    let (head, mut rest) = packet.split_at(first_room.min(packet.len()));
    pieces.push(head);
    while !rest.is_empty() {
        let (p, r) = rest.split_at(room.min(rest.len()));
        pieces.push(p);
        rest = r;
    }
    let count = pieces.len() as u64;
    let mut out = Vec::with_capacity(pieces.len());
    for (i, piece) in pieces.into_iter().enumerate() {
        let mut lp = if i == 0 {
            headers.clone()
        } else {
            LpPacket::default()
        };
        lp.sequence = Some(first_seq.wrapping_add(i as u64));
        lp.frag_index = Some(i as u64);
        lp.frag_count = Some(count);
        lp.fragment = Some(piece.to_vec());
        let wire = lp.encode_with(types)?;
        if wire.len() > mtu {
            return Err(Error::Invalid("fragment exceeds the MTU"));
        }
        out.push(wire);
    }
    Ok(out)
}
