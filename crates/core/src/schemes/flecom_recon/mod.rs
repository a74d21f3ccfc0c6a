//! FleCom **as we reconstruct it** (`flecom-recon`; `docs/schemes/flecom-recon.md`). FleCom
//! (Li Zhuo et al., IEEE INFOCOM workshops 2023) is one of seed 004's baselines; only its
//! abstract is public (no algorithm, no code). What they say, and all we build on: *routers
//! choose multipath forwarding or Interest shaping* to mitigate congestion, and *consumers
//! moderately constrain the size of cwnd* to coordinate with them (abstract); congestion is
//! detected from *the trend of the sojourn time of Data packets within routers* (seed 004
//! §6.2.2); the consumer *calculates the size of the cwnd change on the level of network
//! congestion* (§6.2.2); *whenever congestion occurs, FleCom adjusts the forwarding path*
//! (§6.2.3). Every formula and constant below is our choice ([OURS] in the docs). Three parts:
//!
//! * [`router`]: the router module `flecom-recon`: per face, the mean sojourn of the Data that
//!   left it in each window and its trend; a face whose sojourn, extrapolated one window along
//!   the trend, exceeds a target marks the Data it sends; and Interest shaping of a face on the
//!   strategy's request;
//! * [`strategy`]: the forwarding strategy `flecom-recon`: forwarding ratios per next hop; a
//!   marked Data from a next hop moves a share of its ratio to the uncongested alternatives
//!   (multipath forwarding), or, when there is none, asks the router module to shape that
//!   next hop's Interests (Interest shaping);
//! * [`consumer`]: the consumer `flecom-recon`: a window cut once per window of Data by a
//!   factor sized by the congestion level — the marked fraction's moving average α (DCTCP's
//!   law): cwnd ← cwnd·(1 − α/2).

pub mod consumer;
pub mod router;
pub mod strategy;

#[cfg(test)]
mod tests;

pub use consumer::{FlecomConsumer, FlecomConsumerConfig};
pub use router::{FlecomRouter, FlecomRouterConfig};
pub use strategy::{FlecomStrategy, FlecomStrategyConfig};
