//! PCON (Schneider, Yi, Zhang, Zhang, ACM ICN 2016) as NFD, ndnSIM and the original fork run it
//! (`../shared/specs/sieve.md`, "PCON baseline"; `docs/schemes/pcon.md`). Three parts, usable
//! separately:
//!
//! * [`marking`]: the router module `pcon` (`[nodes.R.schemes.pcon]`): NFD's link-level
//!   congestion marking, or the original's CoDel-style marking;
//! * [`strategy`]: the forwarding strategy `pcon` (`strategy = "pcon"`): a forwarding ratio per
//!   next hop, shifted away from faces that return marked Data or let Interests expire;
//! * [`consumer`]: ndnSIM's `ConsumerPcon` window controller (`controller = "pcon"`), AIMD or
//!   CUBIC with conservative window adaptation.

pub mod consumer;
pub mod marking;
pub mod strategy;

pub use consumer::{ConsumerPcon, ConsumerPconConfig};
pub use marking::{PconConfig, PconMarker};
pub use strategy::{PconStrategy, PconStrategyConfig};
