//! Producer: answers Interests under its prefix with Data of a configured size — a chunk
//! Interest with one Data per segment it asks for, each carrying its offset.

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
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProducerStats {
    pub interests_received: u64,
    pub data_sent: u64,
    /// Interests outside the prefix or past the end of finite content (not answered).
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
