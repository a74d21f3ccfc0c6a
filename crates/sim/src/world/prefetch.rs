//! Prefetching the state of the next events while the current one runs.
//!
//! With tens of thousands of nodes every node visit starts cold: the link direction, the
//! node, its face, its timers, its apps — a chain of misses, each address read from the line
//! the previous miss brought. The loop knows its next events (the top of the event queue's
//! heap and the earliest of its children, unless the current event schedules an earlier one),
//! so it asks for their lines in stages, one event apart:
//!
//! 1. the event after next: its link direction, its node's hot lines and timer slot — found
//!    without a load, the node of a link direction read from a dense side array ([`Ahead`]);
//! 2. the next event: what the lines of stage 1 point to — the face a packet arrives on, the
//!    app slots, the timer queues' ends, the arriving packet's wire slot, a short PIT's entries,
//!    and (the packet read from the wire, whose few slots are mostly in cache) the line of its
//!    PIT key and its FIB slot;
//! 3. the current event: what stage 2's lines point to — the consumers' state, the links of an
//!    edge node's faces, the PIT entry the key names, and for an Interest at a hub the face the
//!    FIB slot names first and that face's link.
//!
//! Past the stages, the forwarder asks for what only it can name: a hub's outgoing face as soon
//! as a table gives its id, and the face's link as soon as its queue becomes non-empty (the
//! links' addresses handed over by [`Ahead::hint_links`]).
//!
//! A prefetch changes no state, so results are the same with it on or off. The ≈ 45 hints per
//! event cost instructions, which pay only when the network's state outgrows the caches: on
//! for large networks ([`super::RunOptions::large_network`], by default from
//! [`crate::LARGE_NETWORK_NODES`] nodes), like the buffer pools (`benches/README.md`, eighth
//! and ninth sittings, has the figures).

use super::events::{Event, EventKind, LinkDir};
use super::World;
use ndncc_core::face::FaceKind;
use ndncc_core::prefetch::line;

/// The prefetcher's switch and side array.
#[derive(Default)]
pub(super) struct Ahead {
    on: bool,
    /// The node each link direction leads to (`LinkDir::to`); the node it leaves is that of
    /// the reverse direction, `to[d ^ 1]` (directions come in pairs 2·link, 2·link + 1).
    /// Dense (4 bytes a direction, mostly in cache) where a `LinkDir` is a line of its own.
    to: Vec<u32>,
}

impl Ahead {
    /// On for large networks ([`super::RunOptions::large_network`]).
    pub(super) fn new(links: &[LinkDir], on: bool) -> Self {
        Ahead {
            on,
            to: if on {
                links.iter().map(|l| l.to).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// When on, tells every node's forwarder where the links' state is (link `l`'s two
    /// directions, 2·l and 2·l + 1, are adjacent: its stride is two [`LinkDir`]s), so that it
    /// prefetches a link as soon as it queues a packet for it
    /// ([`ndncc_core::forwarder::FwCore::set_link_hint`]). The links never move after this
    /// (built once; a stale address would only cost a useless prefetch).
    pub(super) fn hint_links(&self, nodes: &mut [ndncc_core::node::Node], links: &[LinkDir]) {
        if self.on {
            let stride = 2 * std::mem::size_of::<LinkDir>();
            for n in nodes {
                n.fwd.core.set_link_hint(links.as_ptr() as usize, stride);
            }
        }
    }

    /// The node link direction `d` leads to.
    fn to(&self, d: u32) -> u32 {
        self.to[d as usize]
    }

    /// The node link direction `d` leaves.
    fn from(&self, d: u32) -> u32 {
        self.to[(d ^ 1) as usize]
    }
}

impl<'a> World<'a> {
    /// Prefetches for the current event (`kind`, `idx`, just popped) and the next two.
    #[inline]
    pub(super) fn prefetch_ahead(&self, kind: EventKind, idx: u32) {
        if !self.ahead.on {
            return;
        }
        self.stage3(kind, idx);
        if let Some(next) = self.events.peek_hint() {
            self.stage2(next);
        }
        if let Some(after) = self.events.peek_second() {
            self.stage1(after);
        }
    }

    fn stage1(&self, e: Event) {
        let idx = e.idx();
        let node = match e.kind() {
            EventKind::Arrive => {
                line(&self.links[idx as usize]);
                self.ahead.to(idx)
            }
            EventKind::TxDone => {
                line(&self.links[idx as usize]);
                self.ahead.from(idx)
            }
            EventKind::NodeTimer => idx,
            _ => return,
        };
        line(&self.node_sched[node as usize]);
        self.nodes[node as usize].prefetch_hot();
    }

    fn stage2(&self, e: Event) {
        let idx = e.idx() as usize;
        match e.kind() {
            EventKind::Arrive => {
                let l = &self.links[idx];
                self.wire.prefetch_front(&l.in_flight);
                let node = &self.nodes[l.to as usize];
                node.prefetch_visit(Some(l.to_face));
                // the wire's few slots are mostly in cache: the packet's table lines, early
                if let Some(p) = self.wire.front_packet(&l.in_flight) {
                    node.fwd.core.prefetch_arrival_early(p);
                }
            }
            EventKind::TxDone => {
                let l = &self.links[idx];
                self.nodes[l.from as usize].prefetch_transmit(l.from_face);
            }
            EventKind::NodeTimer => self.nodes[idx].prefetch_visit(None),
            _ => {}
        }
    }

    fn stage3(&self, kind: EventKind, idx: u32) {
        let node = match kind {
            EventKind::Arrive => self.ahead.to(idx),
            EventKind::NodeTimer => idx,
            _ => return,
        };
        let node = &self.nodes[node as usize];
        node.prefetch_apps();
        if kind == EventKind::Arrive {
            // the arriving packet (its line asked for in stage 2): the table lines it looks up
            if let Some(p) = self.wire.front_packet(&self.links[idx as usize].in_flight) {
                node.fwd.core.prefetch_arrival(p);
            }
        }
        if node.is_edge() {
            for f in node.fwd.faces() {
                if let FaceKind::Net { link, .. } = f.kind {
                    line(&self.links[2 * link as usize]);
                    line(&self.links[2 * link as usize + 1]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::rng::{RngStream, StreamKind};
    use ndncc_core::{BitRate, Duration, FaceId};

    /// The side array names the same nodes as the link directions themselves, in both
    /// directions (a wrong index would only prefetch the wrong lines — same results, lost
    /// speed — so no output test could catch it).
    #[test]
    fn side_array_names_each_directions_nodes() {
        // links 0: 3–7, 1: 7–2, 2: 5–3 (nodes and faces all distinct per direction)
        let mut links = Vec::new();
        for (i, (a, b)) in [(3u32, 7u32), (7, 2), (5, 3)].into_iter().enumerate() {
            let (fa, fb) = (FaceId(10 + i as u32), FaceId(20 + i as u32));
            for (from, to) in [((a, fa), (b, fb)), ((b, fb), (a, fa))] {
                let rng = RngStream::new(1, 0, StreamKind::Link, links.len() as u64);
                links.push(LinkDir::new(from, to, BitRate(1), Duration(1), 0.0, rng));
            }
        }
        let ahead = Ahead::new(&links, true);
        assert!(ahead.on);
        for (d, l) in links.iter().enumerate() {
            assert_eq!(ahead.to(d as u32), l.to, "to of direction {d}");
            assert_eq!(ahead.from(d as u32), l.from, "from of direction {d}");
        }
        assert!(!Ahead::new(&links, false).on);
    }

    /// The link hint each forwarder gets names link `l`'s two directions, 2·l and 2·l + 1,
    /// and nothing else (a wrong address would only prefetch the wrong lines: same results,
    /// lost speed).
    #[test]
    fn link_hints_span_both_directions_of_each_link() {
        use ndncc_core::face::QueueLimit;
        use ndncc_core::forwarder::{Forwarder, ForwarderConfig, Strategy};
        use ndncc_core::node::Node;
        use ndncc_core::schemes::RouterModule;
        let mut links = Vec::new();
        for l in 0..3u32 {
            for (from, to) in [
                ((0, FaceId(l)), (1, FaceId(l))),
                ((1, FaceId(l)), (0, FaceId(l))),
            ] {
                let rng = RngStream::new(1, 0, StreamKind::Link, links.len() as u64);
                links.push(LinkDir::new(from, to, BitRate(1), Duration(1), 0.0, rng));
            }
        }
        let node = || {
            let cfg = ForwarderConfig {
                strategy: Strategy::BestRoute,
                cs_capacity: 0,
                nack_overhead: 0,
            };
            let rng = RngStream::new(1, 0, StreamKind::Link, 99);
            Node::new(Forwarder::new(
                Default::default(),
                cfg,
                RouterModule::None,
                rng,
            ))
        };
        let mut nodes = vec![node(), node()];
        for n in &mut nodes {
            for l in 0..3 {
                n.add_net_face(1, l, QueueLimit::Packets(10), None);
            }
        }
        Ahead::new(&links, false).hint_links(&mut nodes, &links);
        assert_eq!(nodes[0].fwd.core.link_hint_span(1), None, "off: no hint");
        Ahead::new(&links, true).hint_links(&mut nodes, &links);
        for n in &nodes {
            for l in 0..3u32 {
                let (at, len) = n.fwd.core.link_hint_span(l).expect("a hint");
                let first = &links[2 * l as usize] as *const LinkDir as usize;
                let end = first + 2 * std::mem::size_of::<LinkDir>();
                assert_eq!((at, at + len), (first, end), "link {l}");
            }
        }
    }
}
