//! ndncc-core: sans-IO NDN forwarding and congestion-control logic.
//!
//! # The state-machine contract
//!
//! Every protocol component — node, forwarder, consumer, producer, sending engine, router
//! module — is a plain state machine in the style of quinn-proto and smoltcp:
//!
//! * `handle_*(now, input)` consumes an input and leaves outputs in buffers its owner drains;
//! * `poll_timeout() -> Option<Instant>` says when it next wants to be woken;
//! * `on_timeout(now)` is called at (or after) that instant; calling it early is harmless.
//!
//! It never reads a clock, never sleeps, never touches a socket and never draws from a global
//! RNG: time is an argument ([`time::Instant`], integer nanoseconds) and randomness comes from
//! per-component seeded streams ([`rng::RngStream`]). Two drivers feed it: the simulator
//! (`ndncc-sim`, virtual time) and, later, the real-time driver (OS clock, sockets).

pub mod app;
pub mod control;
pub mod face;
pub mod forwarder;
pub mod harness;
pub mod mechanisms;
pub mod name;
pub mod node;
pub mod pacing;
pub mod packet;
pub mod prefetch;
pub mod rng;
pub mod schemes;
pub mod spare;
pub mod table;
pub mod time;
pub mod timers;

pub use face::FaceId;
pub use name::{Name, NameId, NameTable};
pub use node::Node;
pub use packet::{Data, Interest, Nack, NackReason, Packet};
pub use time::{BitRate, Duration, Instant, PacketRate};
