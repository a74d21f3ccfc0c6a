//! Pending Interest Table.
//!
//! One entry per name (selectors are not modelled separately). In-records remember which
//! downstream faces asked, with which nonce and until when; out-records remember which upstream
//! faces were asked. A Data consumes the entry — or, for chunk-switched answers (one Interest,
//! N Data segments), once all N segments have passed.

use crate::face::FaceId;
use crate::name::Name;
use crate::packet::{ChunkRequest, Interest, SegmentInfo};
use crate::table::name_map::NameMap;
use crate::time::Instant;
use smallvec::SmallVec;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InRecord {
    pub face: FaceId,
    pub nonce: u32,
    pub arrived: Instant,
    pub expiry: Instant,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutRecord {
    pub face: FaceId,
    pub nonce: u32,
    pub sent: Instant,
    /// A Nack came back on this face.
    pub nacked: bool,
}

/// What a chunked answer (one Interest, N Data segments) has delivered so far. Rare: kept out
/// of line, so that the PIT's buckets hold only what every entry uses.
#[derive(Clone, Debug, Default)]
struct Segments {
    /// (segment count, segments still expected), from the first segment.
    count: Option<(u32, u32)>,
    /// Which segment indices have passed (a bit each; empty until the first segment).
    seen: Vec<u64>,
    /// The offsets the chunk Interests of this entry asked for (their masks' union); 0 when
    /// none was a chunk Interest (then the first segment's count says how many to expect).
    asked: u64,
}

#[derive(Clone, Debug)]
pub struct PitEntry {
    /// The Interest as last received (forwarded again on retries).
    pub interest: Interest,
    pub in_records: SmallVec<[InRecord; 2]>,
    pub out_records: SmallVec<[OutRecord; 2]>,
    /// When the entry expires: the latest in-record expiry.
    pub expiry: Instant,
    /// A chunked answer's progress; `None` until a chunk Interest or a segment concerns it.
    segments: Option<Box<Segments>>,
}

impl PitEntry {
    /// Records segment `seg` of a chunked answer: `Some(true)` if it was the last one missing,
    /// `Some(false)` if more are due, `None` if this index already passed (a duplicate, e.g.
    /// the same segment from a second upstream) or lies outside the count the first segment
    /// gave — neither may end the entry early.
    pub fn mark_segment(&mut self, seg: SegmentInfo) -> Option<bool> {
        let st = self.segments.get_or_insert_with(Box::default);
        if st.asked != 0 {
            // a chunk Interest: the entry lives until every offset it asked for has passed
            let bit = 1u64.checked_shl(seg.index).unwrap_or(0);
            let seen = st.seen.first().copied().unwrap_or(0);
            if st.asked & bit == 0 || seen & bit != 0 {
                return None;
            }
            let seen = seen | bit;
            match st.seen.first_mut() {
                Some(w) => *w = seen,
                None => st.seen.push(seen),
            }
            return Some(seen & st.asked == st.asked);
        }
        // the count is the first segment's; the bitmap grows with the indices that arrive
        let (count, left) = st.count.get_or_insert((seg.count, seg.count));
        if seg.index >= *count {
            return None;
        }
        let (word, bit) = ((seg.index / 64) as usize, seg.index % 64);
        if word >= st.seen.len() {
            st.seen.resize(word + 1, 0);
        }
        if st.seen[word] & (1 << bit) != 0 {
            return None;
        }
        st.seen[word] |= 1 << bit;
        *left -= 1; // an index below the count, seen for the first time: at most `count` times
        Some(*left == 0)
    }
    /// Records the segments a chunk Interest aggregated into this entry asks for.
    pub fn ask_segments(&mut self, chunk: Option<ChunkRequest>) {
        if let Some(c) = chunk {
            self.segments.get_or_insert_with(Box::default).asked |= c.mask;
        }
    }
    pub fn in_record(&self, face: FaceId) -> Option<&InRecord> {
        self.in_records.iter().find(|r| r.face == face)
    }
    pub fn out_record(&self, face: FaceId) -> Option<&OutRecord> {
        self.out_records.iter().find(|r| r.face == face)
    }
    /// True if `nonce` was seen on any record.
    pub fn has_nonce(&self, nonce: u32) -> bool {
        self.in_records.iter().any(|r| r.nonce == nonce)
            || self.out_records.iter().any(|r| r.nonce == nonce)
    }
    /// Inserts or refreshes the in-record of `face`; updates the entry's expiry.
    pub fn upsert_in_record(&mut self, face: FaceId, nonce: u32, now: Instant, expiry: Instant) {
        match self.in_records.iter_mut().find(|r| r.face == face) {
            Some(r) => {
                r.nonce = nonce;
                r.arrived = now;
                r.expiry = expiry;
            }
            None => self.in_records.push(InRecord {
                face,
                nonce,
                arrived: now,
                expiry,
            }),
        }
        self.expiry = self
            .in_records
            .iter()
            .map(|r| r.expiry)
            .max()
            .unwrap_or(expiry);
    }
    /// Inserts or refreshes the out-record of `face`.
    pub fn upsert_out_record(&mut self, face: FaceId, nonce: u32, now: Instant) {
        match self.out_records.iter_mut().find(|r| r.face == face) {
            Some(r) => {
                r.nonce = nonce;
                r.sent = now;
                r.nacked = false;
            }
            None => self.out_records.push(OutRecord {
                face,
                nonce,
                sent: now,
                nacked: false,
            }),
        }
    }
}

/// A PIT holds its entries in a short list, searched in place, while they are at most this
/// many; beyond, in a table of its own ([`NameMap`]). Most nodes of a large network (edge
/// nodes) have one or two pending Interests: a list of one entry is a 240-byte block (four
/// cache lines) where the smallest hash table was 980 bytes (four buckets, control bytes in a
/// line of their own).
pub const FEW: usize = 4;

/// The PIT: entries in `few` (at most [`FEW`]) until it holds more, then in `many` for good;
/// never both non-empty.
#[derive(Clone, Debug)]
pub struct Pit {
    few: Vec<(Name, PitEntry)>,
    /// Out of line (a router's; most nodes never have one): slots found from the name alone,
    /// so that a driver can prefetch them ([`Pit::prefetch`]).
    many: Option<Box<NameMap<PitEntry>>>,
    /// At most this many entries (the real-time driver bounds it; the simulator does not).
    limit: usize,
}

impl Default for Pit {
    fn default() -> Self {
        Pit {
            few: Vec::new(),
            many: None,
            limit: usize::MAX,
        }
    }
}

impl Pit {
    pub fn new() -> Self {
        Self::default()
    }
    /// Bounds the number of entries: an Interest that would create one more is dropped.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }
    pub fn limit(&self) -> usize {
        self.limit
    }
    /// True when no new entry may be created.
    pub fn is_full(&self) -> bool {
        self.len() >= self.limit
    }
    // An empty table answers without probing its slots (out of cache on a node visited once in
    // a while, e.g. when a PIT timer of an entry satisfied long ago fires).
    #[inline]
    pub fn get(&self, name: &Name) -> Option<&PitEntry> {
        match &self.many {
            None => self.few.iter().find(|(n, _)| n == name).map(|(_, e)| e),
            Some(m) => m.get(name),
        }
    }
    #[inline]
    pub fn get_mut(&mut self, name: &Name) -> Option<&mut PitEntry> {
        match &mut self.many {
            None => self.few.iter_mut().find(|(n, _)| n == name).map(|(_, e)| e),
            Some(m) => m.get_mut(name),
        }
    }
    /// The entry of `interest`'s name, created (with `expiry`) if absent.
    pub fn insert(&mut self, interest: Interest, expiry: Instant) -> &mut PitEntry {
        let name = interest.name;
        let fresh = || PitEntry {
            interest,
            in_records: SmallVec::new(),
            out_records: SmallVec::new(),
            expiry,
            segments: None,
        };
        // a PIT that once had a table of its own keeps it (a router's PIT, emptying now and then)
        if self.many.is_none() && self.few.len() < FEW {
            if let Some(i) = self.few.iter().position(|(n, _)| *n == name) {
                return &mut self.few[i].1;
            }
            if self.few.capacity() == 0 {
                // an empty PIT holds no list: take the one an emptied PIT returned last, in
                // cache (with tens of thousands of edge nodes each one's own would be cold)
                self.few = crate::spare::take_pit_table();
            }
            if self.few.len() == self.few.capacity() {
                // room for 1, 2, then 4 entries (a plain push would make room for 4 at once)
                self.few.reserve_exact(self.few.len().max(1));
            }
            self.few.push((name, fresh()));
            return &mut self.few.last_mut().expect("just pushed").1;
        }
        let few = &mut self.few;
        let many = self.many.get_or_insert_with(|| {
            // the list is full: every entry moves to the table, for good
            let mut m = Box::<NameMap<PitEntry>>::default();
            m.extend(few.drain(..));
            crate::spare::give_pit_table(few);
            m
        });
        many.get_or_insert_with(name, fresh)
    }
    pub fn remove(&mut self, name: &Name) -> Option<PitEntry> {
        let Some(m) = &mut self.many else {
            let i = self.few.iter().position(|(n, _)| n == name)?;
            // nothing iterates the PIT: the order within the list shows nowhere
            let (_, e) = self.few.swap_remove(i);
            if self.few.is_empty() {
                crate::spare::give_pit_table(&mut self.few);
            }
            return Some(e);
        };
        m.remove(name)
    }
    /// Removes the entry of `name` without handing it back (a PIT with a table of its own
    /// drops it in place, no copy out); false if there was none.
    pub fn discard(&mut self, name: &Name) -> bool {
        match &mut self.many {
            Some(m) => m.discard(name),
            None => self.remove(name).is_some(),
        }
    }
    pub fn len(&self) -> usize {
        self.few.len() + self.many.as_ref().map_or(0, |m| m.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Prefetch hint ([`crate::prefetch`]), before a lookup of `name`: the lines of its slot in
    /// the PIT's own table (nothing for a short list: see [`Pit::prefetch_list`]). Changes
    /// nothing.
    #[inline]
    pub fn prefetch(&self, name: &Name) {
        if let Some(m) = &self.many {
            m.prefetch(name);
        }
    }
    /// Prefetch hint, an event or so before [`Pit::prefetch`]: the line of `name`'s home key in
    /// the PIT's own table alone (nothing for a short list). Changes nothing.
    #[inline]
    pub fn prefetch_key(&self, name: &Name) {
        if let Some(m) = &self.many {
            m.prefetch_key(name);
        }
    }
    /// Prefetch hint: the short list's first two entries (an edge node's pending Interests,
    /// read when the Data comes back, an RTT after they were written); nothing for a PIT with
    /// a table of its own (its list is empty). Changes nothing.
    #[inline]
    pub fn prefetch_list(&self) {
        let n = self.few.len().min(2);
        crate::prefetch::span(
            self.few.as_ptr(),
            n * std::mem::size_of::<(Name, PitEntry)>(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::{Name, NameId};
    use crate::packet::{ChunkRequest, Interest, SegmentInfo};
    use crate::time::Duration;

    fn entry() -> PitEntry {
        let mut pit = Pit::new();
        let i = Interest::new(Name::new(NameId(1), 7), 1, Duration(10), 40);
        pit.insert(i, Instant(10)).clone()
    }

    fn seg(index: u32) -> SegmentInfo {
        SegmentInfo { index, count: 4 }
    }

    #[test]
    fn an_emptied_pit_lends_its_table_and_the_next_pit_starts_empty() {
        let i = |seq| Interest::new(Name::new(NameId(1), seq), seq as u32, Duration(10), 40);
        let (mut a, mut b) = (Pit::new(), Pit::new());
        a.insert(i(1), Instant(10));
        a.insert(i(2), Instant(10));
        assert!(a.remove(&i(1).name).is_some());
        let before = crate::spare::spare_pit_tables();
        assert!(a.remove(&i(2).name).is_some()); // now empty: its table goes to the pool
        assert_eq!(crate::spare::spare_pit_tables(), before + 1);
        b.insert(i(3), Instant(20)); // takes it back
        assert_eq!(crate::spare::spare_pit_tables(), before);
        assert_eq!(b.len(), 1);
        assert!(b.get(&i(1).name).is_none() && b.get(&i(2).name).is_none());
        assert_eq!(b.get(&i(3).name).map(|e| e.expiry), Some(Instant(20)));
        a.insert(i(1), Instant(30)); // a works on without its old table
        assert_eq!(
            (a.len(), a.get(&i(1).name).map(|e| e.expiry)),
            (1, Some(Instant(30)))
        );
    }

    /// `insert` of a name already pending returns its entry, unchanged, whether the PIT holds
    /// its entries in the short list or in its hash table (past [`FEW`] entries).
    #[test]
    fn inserting_a_pending_name_returns_its_entry() {
        let i = |seq| Interest::new(Name::new(NameId(1), seq), seq as u32, Duration(10), 40);
        let mut a = Pit::new();
        for n in 1..=FEW as u64 + 1 {
            for seq in 0..n {
                let e = a.insert(i(seq), Instant(100 + n));
                assert_eq!(e.expiry, Instant(101 + seq), "{n} names, name {seq}");
            }
            assert_eq!(a.len(), n as usize);
        }
    }

    #[test]
    fn a_busy_pit_keeps_its_large_table_when_it_empties() {
        let i = |seq| Interest::new(Name::new(NameId(1), seq), seq as u32, Duration(10), 40);
        const BIG: usize = 64; // far past FEW: the PIT has its own hash table
        let n = 2 * BIG as u64;
        let mut a = Pit::new();
        for seq in 0..n {
            a.insert(i(seq), Instant(10));
        }
        let before = crate::spare::spare_pit_tables();
        for seq in 0..n {
            assert!(a.remove(&i(seq).name).is_some());
        }
        // beyond FEW entries the PIT has a table of its own: never pooled
        assert_eq!(crate::spare::spare_pit_tables(), before);
        assert!(a.is_empty() && a.many.as_ref().is_some_and(|m| m.capacity() > BIG));
    }

    #[test]
    fn a_chunk_interest_waits_for_the_offsets_it_asked_for() {
        let mut e = entry();
        e.ask_segments(Some(ChunkRequest {
            segments: 4,
            mask: 0b0101,
        }));
        assert_eq!(e.mark_segment(seg(0)), Some(false));
        assert_eq!(e.mark_segment(seg(1)), None); // not asked for
        assert_eq!(e.mark_segment(seg(0)), None); // already passed
        assert_eq!(e.mark_segment(seg(2)), Some(true));
    }

    #[test]
    fn without_a_chunk_interest_the_first_segment_gives_the_count() {
        let mut e = entry();
        e.ask_segments(None);
        assert_eq!(e.mark_segment(seg(3)), Some(false));
        assert_eq!(e.mark_segment(seg(4)), None); // beyond the count
        for i in 0..2 {
            assert_eq!(e.mark_segment(seg(i)), Some(false));
        }
        assert_eq!(e.mark_segment(seg(2)), Some(true));
    }
}
