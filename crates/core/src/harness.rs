//! A two-node harness in virtual time, for consumer-controller and forwarder tests: a consumer
//! node and a producer node joined by one link with a fixed one-way delay and unlimited
//! bandwidth, and a filter that may drop any packet on the link — so a test puts a loss (and
//! the timeout that follows) at the instant it chooses.
//!
//! The harness is its own small driver of the sans-IO nodes (the simulator is another crate);
//! it follows the same contract: deliver packets, wake nodes at `poll_timeout`, pull ready faces.

use crate::app::{App, Consumer, ConsumerConfig, Controller, Producer, ProducerConfig};
use crate::face::{FaceId, QueueLimit};
use crate::forwarder::{Forwarder, ForwarderConfig, Strategy};
use crate::name::{NameId, NameTable};
use crate::node::Node;
use crate::pacing::{Engine, Ideal};
use crate::packet::Packet;
use crate::rng::{RngStream, StreamKind};
use crate::schemes::RouterModule;
use crate::time::{Duration, Instant};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// The most steps one [`TwoNode::run_until`] takes.
pub const MAX_EVENTS: u64 = 200_000;

/// Decides whether a packet crossing the link at `now` is lost.
pub type DropFilter = Box<dyn FnMut(Instant, &Packet) -> bool>;

/// How much longer than the link's delay a packet entering the link at `now` takes to cross it.
pub type DelayFilter = Box<dyn FnMut(Instant, &Packet) -> Duration>;

/// The consumer the tests drive: fetches `prefix` with `controller` on the ideal engine,
/// 40-byte Interests, 4 s lifetime and timeout, no retransmissions, delays recorded; `cfg`
/// adjusts the config before the consumer is built.
pub fn test_consumer(
    prefix: NameId,
    controller: Controller,
    cfg: impl FnOnce(&mut ConsumerConfig),
) -> Consumer {
    let mut ccfg = ConsumerConfig {
        prefix,
        interest_size: 40,
        lifetime: Duration::from_secs(4),
        timeout: Duration::from_secs(4),
        retx_on_timeout: false,
        retx_on_nack: false,
        max_transmissions: u32::MAX,
        start_seq: 0,
        max_seq: None,
        record_delays: true,
        chunk_segments: None,
    };
    cfg(&mut ccfg);
    Consumer::new(
        ccfg,
        controller,
        Engine::Ideal(Ideal::default()),
        RngStream::new(1, 0, StreamKind::App, 0),
    )
}

/// Consumer node 0 — link — producer node 1.
pub struct TwoNode {
    pub nodes: [Node; 2],
    pub prefix: NameId,
    pub delay: Duration,
    pub now: Instant,
    /// Packets on the link by (arrival, order): ties in sending order.
    arrivals: BinaryHeap<Reverse<(Instant, u64)>>,
    /// (destination node, packet) by order.
    in_flight: FxHashMap<u64, (usize, Packet)>,
    order: u64,
    drop: DropFilter,
    extra_delay: DelayFilter,
    faces: [FaceId; 2],
}

impl TwoNode {
    /// A consumer with `controller` (ideal engine) fetching `/p` from a producer of
    /// `data_size`-byte Data, one-way delay `delay`. `cfg` adjusts the consumer's config.
    pub fn new(
        controller: Controller,
        delay: Duration,
        data_size: u32,
        cfg: impl FnOnce(&mut ConsumerConfig),
    ) -> Self {
        let mut names = NameTable::new();
        let prefix = names.intern("/p");
        let names = Arc::new(names);
        let mut nodes = [0u64, 1].map(|i| {
            let fwd = Forwarder::new(
                names.clone(),
                ForwarderConfig {
                    strategy: Strategy::BestRoute,
                    cs_capacity: 0,
                    nack_overhead: 4,
                },
                RouterModule::None,
                RngStream::new(1, 0, StreamKind::Node, i),
            );
            Node::new(fwd)
        });
        let limit = QueueLimit::Packets(u32::MAX);
        let faces = [
            nodes[0].add_net_face(1, 0, limit, None),
            nodes[1].add_net_face(0, 0, limit, None),
        ];
        nodes[0].add_route(prefix, faces[0], 0);
        let consumer = test_consumer(prefix, controller, cfg);
        nodes[0].add_app(App::Consumer(Box::new(consumer)), Instant::ZERO, None);
        let producer = Producer::new(ProducerConfig {
            prefix,
            payload: data_size,
            data_size,
            freshness: Duration::ZERO,
            content_segments: None,
            processing_delay: Duration::ZERO,
            placement: None,
        });
        nodes[1].add_app(App::Producer(producer), Instant::ZERO, None);
        TwoNode {
            nodes,
            prefix,
            delay,
            now: Instant::ZERO,
            arrivals: BinaryHeap::new(),
            in_flight: FxHashMap::default(),
            order: 0,
            drop: Box::new(|_, _| false),
            extra_delay: Box::new(|_, _| Duration::ZERO),
            faces,
        }
    }

    /// Drops the packets `filter` picks (called once per packet entering the link).
    pub fn drop_when(&mut self, filter: impl FnMut(Instant, &Packet) -> bool + 'static) {
        self.drop = Box::new(filter);
    }

    /// Delays the packets `filter` picks by the extra time it returns (called once per packet
    /// entering the link and not dropped); packets on the link stay in arrival-time order.
    pub fn delay_when(&mut self, filter: impl FnMut(Instant, &Packet) -> Duration + 'static) {
        self.extra_delay = Box::new(filter);
    }

    pub fn consumer(&self) -> &Consumer {
        match &self.nodes[0].apps[0].app {
            App::Consumer(c) => c,
            App::Producer(_) => unreachable!("node 0's app is the consumer"),
        }
    }

    fn next_event(&self) -> Option<Instant> {
        let link = self.arrivals.peek().map(|Reverse((t, _))| *t);
        [
            link,
            self.nodes[0].poll_timeout(),
            self.nodes[1].poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Moves what node `n` queued onto the link.
    fn pull(&mut self, n: usize) {
        let mut ready = Vec::new();
        self.nodes[n].take_ready(&mut ready);
        while let Some(p) = self.nodes[n].poll_transmit(self.now, self.faces[n]) {
            if !(self.drop)(self.now, &p) {
                self.order += 1;
                let extra = (self.extra_delay)(self.now, &p);
                self.arrivals
                    .push(Reverse((self.now + self.delay + extra, self.order)));
                self.in_flight.insert(self.order, (1 - n, p));
            }
        }
    }

    /// Runs every event before `end`; calls `observe` after each step. Panics after
    /// [`MAX_EVENTS`] steps: the link has no bandwidth limit, so a runaway window would
    /// otherwise never end.
    pub fn run_until(&mut self, end: Instant, mut observe: impl FnMut(&TwoNode)) {
        self.pull(0);
        self.pull(1);
        let mut steps = 0u64;
        while let Some(t) = self.next_event().filter(|&t| t < end) {
            steps += 1;
            assert!(
                steps <= MAX_EVENTS,
                "harness: over {MAX_EVENTS} events by {t:?}: runaway?"
            );
            self.now = t;
            // the earliest arrival (FIFO among equal instants), else the node timers
            if let Some(&Reverse((at, order))) = self.arrivals.peek().filter(|r| r.0 .0 <= t) {
                debug_assert_eq!(at, t);
                self.arrivals.pop();
                let (to, p) = self.in_flight.remove(&order).expect("a packet on the link");
                self.nodes[to].handle_packet(t, self.faces[to], p);
            } else {
                for n in 0..2 {
                    if self.nodes[n].poll_timeout().is_some_and(|w| w <= t) {
                        self.nodes[n].on_timeout(t);
                    }
                }
            }
            self.pull(0);
            self.pull(1);
            observe(self);
        }
        self.now = end;
    }
}
