//! CoopCon **as we reconstruct it** (`coopcon-recon`; `docs/schemes/coopcon-recon.md`). CoopCon
//! (Li Zhuo et al., IEEE TNSM 2023) is one of seed 004's baselines; only its abstract is public
//! (no algorithm, no code). What they say, and all we build on: hybrid congestion control in
//! which *consumers adjust their rate* and *routers divert traffic*, coordinated so that the two
//! do not both act on one congestion (abstract); *the optimal path is used resiliently*
//! (abstract); keywords *active queue management* and *multipath forwarding*; routers divert
//! *only under severe congestion*, and consumers adjust cwnd *gradually*, so that in seed 004's
//! scenarios no traffic moves to the alternative link (seed 004 §6.2.2, §6.2.3). Every formula
//! and constant below is our choice ([OURS] in the docs). Three parts, as PCON's:
//!
//! * [`router`]: the router module `coopcon-recon`: active queue management that marks a Data
//!   leaving a face whose queue is above a fill threshold (mild congestion: the consumers'
//!   signal);
//! * [`strategy`]: the forwarding strategy `coopcon-recon`: the optimal (cheapest) next hop
//!   takes every Interest until the share of marked Data it returns says *severe* congestion;
//!   then a share of Interests, growing with the excess and capped so that the optimal path
//!   always keeps most of them, goes to the least-marked alternative;
//! * [`consumer`]: the consumer `coopcon-recon`: a window, slow start to the first mark, then
//!   +1 per window of Data, and a *gradual* decrease (×0.9) at most once per round trip.

pub mod consumer;
pub mod router;
pub mod strategy;

#[cfg(test)]
mod tests;

pub use consumer::{CoopconConsumer, CoopconConsumerConfig};
pub use router::{CoopconRouter, CoopconRouterConfig};
pub use strategy::{CoopconStrategy, CoopconStrategyConfig};
