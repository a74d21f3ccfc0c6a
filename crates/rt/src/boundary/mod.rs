//! The face boundary of the real-time driver: wire names to core names ([`names`]) and wire
//! packets to core packets and back ([`convert`]), with the bounded store of the bytes the core
//! model does not carry ([`store`]), and the PitTokens the daemon puts on the Interests it
//! forwards ([`pit_token`]).

pub mod convert;
pub mod names;
pub mod pit_token;
pub mod store;
