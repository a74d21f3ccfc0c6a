//! NDN TLV 0.3 and NDNLPv2 codec for ndncc.
//!
//! Decoding gives borrowed views over the input bytes (no allocation on the common path);
//! encoding goes from owned structs to `Vec<u8>`. Every malformed input is an [`Error`] with a
//! reason, never a panic: the crate denies indexing, `unwrap` and `expect` outside tests.
//!
//! * [`tlv`] — VAR-NUMBER, NonNegativeInteger, element framing and writers.
//! * [`name`] — names, typed components, the URI form.
//! * [`interest`], [`data`] — network-layer packets (DigestSha256 signing and checking).
//! * [`lp`] — NDNLPv2 LpPacket, Nack, CongestionMark, this project's own hop-by-hop headers.
//! * [`reassembly`] — bounded reassembly of fragmented LpPackets, and fragmentation.
//! * [`mgmt`], [`dataset`] — NFD management: ControlParameters, ControlResponse, control
//!   commands (signed Interests), status datasets.
//! * [`packet`] — "what is this datagram?": bare Interest, bare Data or LpPacket.
//!
//! The TLV numbers are in [`tt`]; `docs/wire.md` lists them and what is supported.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

pub mod data;
pub mod dataset;
pub mod error;
pub mod interest;
pub mod lp;
pub mod mgmt;
pub mod name;
pub mod packet;
pub mod reassembly;
pub mod tlv;
pub mod tt;

pub use data::{Data, DataView, MetaInfo, Signature};
pub use error::{Error, Result};
pub use interest::{Interest, InterestView};
pub use lp::{ExtTypes, LpExt, LpPacket, LpPacketView, Nack, NackReason};
pub use name::{Component, ComponentView, Name, NameView};
pub use packet::{Frame, NetPacket};
