//! Producer: answers Interests under its prefix with Data of a configured size — a chunk
//! Interest with one Data per segment it asks for, each carrying its offset.
//!
//! A producer may hold only part of its content ([`Placement`]): producers of one prefix then
//! split its blocks of sequence numbers at random (seed 001's chunks "randomly placed at the
//! two sources"); an Interest for a block it does not hold is not answered.

use crate::name::{NameId, NameTable};
use crate::packet::{Data, DataExt, Interest, Packet, SegmentInfo};
use crate::time::{Duration, Instant};
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct ProducerConfig {
    pub prefix: NameId,
    /// Payload bytes per Data.
    pub payload: u32,
    /// Wire size of each Data in bytes (payload + header).
    pub data_size: u32,
    pub freshness: Duration,
    /// Only sequence numbers below this exist; `None` = unbounded.
    pub content_segments: Option<u64>,
    /// Time between an Interest's arrival and its answer.
    pub processing_delay: Duration,
    /// Holds only the blocks its placement gives it; `None` = the whole content.
    pub placement: Option<Placement>,
}

/// Which blocks of sequence numbers a producer holds: block b = ⌊seq / block⌋ is held when
/// u(b) ∈ [lo, hi), u(b) a uniform draw in [0, 1) keyed by the prefix's placement `key` (one
/// counter-based stream per prefix, seed and run: every producer of the prefix draws the same
/// u(b), so disjoint intervals place each block on exactly one of them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub key: u64,
    pub lo: f64,
    pub hi: f64,
    /// Sequence numbers per block (1 for chunk Interests, the chunk size for segment Interests).
    pub block: u64,
}

impl Placement {
    pub fn holds(&self, seq: u64) -> bool {
        let u = crate::rng::keyed_uniform(self.key, seq / self.block.max(1));
        self.lo <= u && u < self.hi
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProducerStats {
    pub interests_received: u64,
    pub data_sent: u64,
    /// Interests outside the prefix, past the end of finite content or for a block placed on
    /// another producer (not answered).
    pub unanswered: u64,
}

#[derive(Clone, Debug)]
pub struct Producer {
    pub cfg: ProducerConfig,
    pub stats: ProducerStats,
    /// Answers waiting for the processing delay (constant delay ⇒ FIFO order).
    delayed: VecDeque<(Instant, Data)>,
    active: bool,
}

impl Producer {
    pub fn new(cfg: ProducerConfig) -> Self {
        Producer {
            cfg,
            stats: ProducerStats::default(),
            delayed: VecDeque::new(),
            active: false,
        }
    }

    pub fn start(&mut self, _now: Instant) {
        self.active = true;
    }

    pub fn stop(&mut self, _now: Instant) {
        self.active = false;
        self.delayed.clear();
    }

    pub fn handle_interest(
        &mut self,
        now: Instant,
        names: &NameTable,
        interest: &Interest,
        out: &mut Vec<Packet>,
    ) {
        if !self.active {
            return;
        }
        self.stats.interests_received += 1;
        let in_range = match (interest.name.seq, self.cfg.content_segments) {
            (Some(s), Some(n)) => s < n,
            _ => true,
        } && match (interest.name.seq, self.cfg.placement) {
            (Some(s), Some(p)) => p.holds(s),
            _ => true,
        };
        if !in_range || !names.is_prefix_of(self.cfg.prefix, interest.name.base) {
            self.stats.unanswered += 1;
            return;
        }
        let data = Data {
            name: interest.name,
            payload: self.cfg.payload,
            size: self.cfg.data_size,
            freshness: self.cfg.freshness,
            created: now,
            ext: DataExt {
                class: interest.ext.class,
                ..DataExt::default()
            },
        };
        match interest.ext.chunk() {
            // a chunk Interest: one Data per segment asked for, each carrying its offset
            Some(chunk) => {
                for index in chunk.offsets() {
                    let mut segment = data;
                    segment.ext.segment = Some(SegmentInfo {
                        index,
                        count: chunk.segments,
                    });
                    self.answer(now, segment, out);
                }
            }
            None => self.answer(now, data, out),
        }
    }

    fn answer(&mut self, now: Instant, data: Data, out: &mut Vec<Packet>) {
        if self.cfg.processing_delay == Duration::ZERO {
            self.stats.data_sent += 1;
            out.push(Packet::Data(data));
        } else {
            self.delayed
                .push_back((now + self.cfg.processing_delay, data));
        }
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        self.delayed.front().map(|(t, _)| *t)
    }

    pub fn on_timeout(&mut self, now: Instant, out: &mut Vec<Packet>) {
        while let Some(&(t, d)) = self.delayed.front() {
            if t > now {
                break;
            }
            self.delayed.pop_front();
            self.stats.data_sent += 1;
            out.push(Packet::Data(Data { created: now, ..d }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::Name;

    fn producer(names: &mut NameTable, placement: Option<Placement>) -> Producer {
        let mut p = Producer::new(ProducerConfig {
            prefix: names.intern("/content"),
            payload: 1000,
            data_size: 1000,
            freshness: Duration::ZERO,
            content_segments: None,
            processing_delay: Duration::ZERO,
            placement,
        });
        p.start(Instant::ZERO);
        p
    }

    /// Two producers with shares ½ and ½ of one key hold every block exactly once, each about
    /// half of them; a block is the same for all its sequence numbers; another key places
    /// differently.
    #[test]
    fn shares_place_each_block_on_exactly_one_producer() {
        let mut names = NameTable::default();
        let half = |lo: f64, key: u64, block: u64| Placement {
            key,
            lo,
            hi: lo + 0.5,
            block,
        };
        let mut a = producer(&mut names, Some(half(0.0, 7, 1)));
        let mut b = producer(&mut names, Some(half(0.5, 7, 1)));
        let prefix = names.lookup("/content").unwrap();
        let mut out = Vec::new();
        let n = 4000u64;
        let mut on_a = 0;
        for seq in 0..n {
            let i = Interest::new(Name::new(prefix, seq), 1, Duration::from_secs(1), 40);
            let before = out.len();
            a.handle_interest(Instant::ZERO, &names, &i, &mut out);
            let from_a = out.len() - before;
            b.handle_interest(Instant::ZERO, &names, &i, &mut out);
            assert_eq!(out.len() - before, 1, "seq {seq}: exactly one holder");
            on_a += from_a;
        }
        assert!(
            (on_a as f64 / n as f64 - 0.5).abs() < 0.03,
            "{on_a} of {n} on A"
        );
        assert_eq!(a.stats.unanswered + b.stats.unanswered, n);
        let blocks = half(0.0, 7, 32);
        for seq in 0..320 {
            assert_eq!(blocks.holds(seq), blocks.holds(seq - seq % 32));
        }
        let other = half(0.0, 8, 1);
        let differ = (0..1000).filter(|&s| other.holds(s) != half(0.0, 7, 1).holds(s));
        assert!(differ.count() > 300, "another key, another placement");
    }
}
