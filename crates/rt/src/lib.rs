//! ndncc-rt: the real-time driver. The same sans-IO engines as the simulator, driven by the OS
//! clock (`std::time::Instant`, `std::thread::sleep`) and real sockets.
//!
//! * [`sendloop`], [`probe`] — the seed-003 tools: a UDP send loop and a probe of the OS's sleep
//!   overshoot.
//! * [`client_face`], [`app_wire`], [`apps`] — the simulator's consumer and producer as real
//!   apps talking to a forwarder (ndnd, NFD, ndnccd) over Unix, TCP or UDP; [`app_series`]
//!   is a consumer's per-bin record.
//! * [`fwbench`] — a load generator measuring one forwarder's Interest/Data exchanges per second.
//! * [`daemon`], [`boundary`] — `ndnccd`, the simulator's forwarder as a daemon
//!   (`docs/realtime.md`): sockets, clock, link emulation and management in `daemon`; the face
//!   boundary between wire packets and the core's (names, PitTokens, kept bytes) in `boundary`;
//!   `mmsg` batches UDP reads and writes; [`sdn`] the SDN control connection and controller;
//!   [`stop`] how both event loops stop (signals, a handle).

pub mod app_series;
pub mod app_wire;
pub mod apps;
pub mod boundary;
pub mod client_face;
pub mod daemon;
pub mod fwbench;
pub(crate) mod mmsg;
pub mod probe;
pub mod sdn;
pub mod sendloop;
pub mod stop;
