//! Set-ups shared by the schemes' unit tests (test builds only): packets and a forwarder with
//! one prefix over several next hops.

use crate::face::{FaceKind, QueueLimit};
use crate::forwarder::strategy::StrategyHooks;
use crate::forwarder::{Forwarder, ForwarderConfig, Strategy};
use crate::name::{Name, NameId, NameTable};
use crate::packet::{Data, DataExt, Interest, Packet};
use crate::rng::{RngStream, StreamKind};
use crate::schemes::RouterModule;
use crate::time::{Duration, Instant};
use std::sync::Arc;

/// A 1 100-byte Data (1 000 bytes of payload) for segment `seq` of `prefix`, marked or not.
pub fn data(prefix: NameId, seq: u64, mark: bool) -> Data {
    Data {
        name: Name::new(prefix, seq),
        payload: 1000,
        size: 1100,
        freshness: Duration::ZERO,
        created: Instant::ZERO,
        ext: DataExt {
            mark,
            ..Default::default()
        },
    }
}

/// Whether `p` is a marked Data.
pub fn is_marked(p: &Packet) -> bool {
    matches!(p, Packet::Data(d) if d.ext.mark)
}

/// A 40-byte Interest for segment `seq` of `prefix` (nonce `seq`, lifetime 1 s).
pub fn interest(prefix: NameId, seq: u64) -> Interest {
    Interest::new(
        Name::new(prefix, seq),
        seq as u32,
        Duration::from_secs(1),
        40,
    )
}

/// The FIB weights of `prefix`'s next hops, in the FIB's order (cost, then face).
pub fn weights(f: &Forwarder, prefix: NameId) -> Vec<f64> {
    f.core
        .nexthops(Name::new(prefix, 0))
        .iter()
        .map(|h| h.weight)
        .collect()
}

/// One forwarder for the prefix `/p`: downstream face 0, upstream faces 1.. with the given
/// route costs, unbounded queues, no Content Store. `strategy` builds the strategy from its
/// own random stream (node stream 1 of run seed `seed`; the forwarder takes stream 0).
pub fn node<S: StrategyHooks + Send + 'static>(
    strategy: impl FnOnce(RngStream) -> S,
    module: RouterModule,
    costs: &[u32],
    seed: u64,
) -> (Forwarder, NameId) {
    let mut names = NameTable::new();
    let prefix = names.intern("/p");
    let strategy = strategy(RngStream::new(seed, 0, StreamKind::Node, 1));
    let mut f = Forwarder::new(
        Arc::new(names),
        ForwarderConfig {
            strategy: Strategy::Custom(Box::new(strategy)),
            cs_capacity: 0,
            nack_overhead: 4,
        },
        module,
        RngStream::new(seed, 0, StreamKind::Node, 0),
    );
    let limit = QueueLimit::Packets(u32::MAX);
    f.add_face(FaceKind::Net { peer: 0, link: 0 }, limit);
    for (k, &c) in costs.iter().enumerate() {
        let face = f.add_face(
            FaceKind::Net {
                peer: k as u32 + 1,
                link: k as u32 + 1,
            },
            limit,
        );
        f.add_route(prefix, face, c);
    }
    (f, prefix)
}
