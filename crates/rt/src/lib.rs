//! ndncc-rt: the real-time driver. The same sans-IO engines as the simulator, driven by the OS
//! clock (`std::time::Instant`, `std::thread::sleep`) and real sockets.
//!
//! This first part holds the seed-003 tools: a UDP send loop ([`sendloop`]) and a probe of the
//! OS's sleep overshoot ([`probe`]).

pub mod boundary;
pub mod daemon;
pub mod probe;
pub mod sendloop;
