//! Applications attached to a node through app faces.

#[cfg(test)]
pub(crate) mod bench;
pub mod consumer;
pub mod controller;
pub mod ndnsim;
pub mod producer;
pub mod retx_queue;

use crate::name::NameTable;
use crate::packet::Packet;
pub use crate::schemes::registry::Controller;
use crate::time::Instant;
pub use consumer::{Consumer, ConsumerConfig, ConsumerStats, DelayRecord};
pub use controller::{CongestionController, DataSignal, NackSignal, Target};
pub use producer::{Placement, Producer, ProducerConfig, ProducerStats};

/// An application, dispatched by `match`.
#[derive(Debug)]
pub enum App {
    Consumer(Box<Consumer>),
    Producer(Producer),
}

impl App {
    pub fn start(&mut self, now: Instant, out: &mut Vec<Packet>) {
        match self {
            App::Consumer(c) => c.start(now, out),
            App::Producer(p) => p.start(now),
        }
    }

    pub fn stop(&mut self, now: Instant) {
        match self {
            App::Consumer(c) => c.stop(now),
            App::Producer(p) => p.stop(now),
        }
    }

    /// A packet from the forwarder.
    pub fn handle_packet(
        &mut self,
        now: Instant,
        names: &NameTable,
        p: &Packet,
        out: &mut Vec<Packet>,
    ) {
        match (self, p) {
            (App::Consumer(c), Packet::Data(d)) => c.handle_data(now, d, out),
            (App::Consumer(c), Packet::Nack(n)) => c.handle_nack(now, n, out),
            (App::Producer(pr), Packet::Interest(i)) => pr.handle_interest(now, names, i, out),
            _ => {}
        }
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        match self {
            App::Consumer(c) => c.poll_timeout(),
            App::Producer(p) => p.poll_timeout(),
        }
    }

    pub fn on_timeout(&mut self, now: Instant, out: &mut Vec<Packet>) {
        match self {
            App::Consumer(c) => c.on_timeout(now, out),
            App::Producer(p) => p.on_timeout(now, out),
        }
    }
}

impl App {
    /// Prefetch hint ([`crate::prefetch`]): a consumer's state, out of line in its box (a
    /// producer's is inline in its slot). Changes nothing.
    #[inline]
    pub fn prefetch(&self) {
        if let App::Consumer(c) = self {
            crate::prefetch::span(&**c, std::mem::size_of::<Consumer>());
        }
    }
}
