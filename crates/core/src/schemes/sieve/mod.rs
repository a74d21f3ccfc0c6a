//! ndnSieve (seed 004; `../shared/specs/sieve.md`, `docs/schemes/sieve.md`): an SDN controller
//! cooperates with NDN routers and consumers so that *mild* congestion (a busy link whose queue
//! is short) is handled by moving traffic to another path, and *severe* congestion (a busy link
//! whose queue is long) by slowing the consumers — never both for the same event.
//!
//! * [`router`]: the router's "local information" module (key `sieve`): per-interface link
//!   utilisation β and queue occupancy ε, the free / mild / severe state, congestion signals and
//!   periodic reports to the controller, Data marking in severe congestion, and forwarding of a
//!   prefix on the interface with the lowest metric the controller pushed.
//! * [`controller`]: the SDN controller, a sans-IO [`crate::control::ControllerComponent`]
//!   (topology module, global information cache, congestion-status filter, cost calculator).
//! * [`consumer`]: the consumer's window, cwnd ± 1 reacting to marks only (controller
//!   `sieve`).
//!
//! The messages between routers and the controller are [`crate::control::ControlBody`]s:
//! a router sends `FaceReport { face, values: [("beta", β), ("eps", ε), ("signal", s)] }` (s = 1
//! for a congestion signal, 0 for a periodic report); the controller sends
//! `NextHopValue { prefix, face, value: metric }` to a shunt router.

pub mod consumer;
pub mod controller;
pub mod router;

#[cfg(test)]
mod router_tests;
#[cfg(test)]
mod tests;

pub use consumer::{SieveConsumer, SieveConsumerConfig};
pub use controller::{SieveController, SieveControllerConfig};
pub use router::{SieveRouter, SieveRouterConfig, State};

/// The keys of the values in a router's `FaceReport`.
pub const BETA: &str = "beta";
pub const EPS: &str = "eps";
pub const SIGNAL: &str = "signal";
