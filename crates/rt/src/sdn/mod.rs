//! The control plane on real sockets (`docs/sdn-control-protocol.md`): an SDN controller
//! process (`ndnccd sdn-controller`) running a sans-IO [`ControllerComponent`] — the same one
//! the simulator runs ([`ndncc_core::schemes::components`]) — and each ndnccd's router module
//! talking to it over a control connection (Unix or TCP) of length-prefixed frames.
//!
//! * [`frame`]: the frames (pure);
//! * [`link`]: one side's connection state: buffers, the decoder, the messages held for the
//!   control link's delay (used by the daemon's router side, `daemon/sdn.rs`, and the
//!   controller);
//! * [`controller`]: the controller process.
//!
//! The control link's delay is emulated in the endpoints: each side holds a message it sends
//! for the link's one-way delay before writing it (the kernel cannot delay a Unix socket, and
//! netem is not available everywhere).
//!
//! [`ControllerComponent`]: ndncc_core::control::ControllerComponent

pub mod controller;
pub mod frame;
pub mod link;

use std::path::PathBuf;

/// Where a controller listens / a router connects: `unix:///path` or `tcp://HOST:PORT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    Unix(PathBuf),
    Tcp(String),
}

impl Address {
    pub fn parse(text: &str) -> Result<Address, String> {
        if let Some(p) = text.strip_prefix("unix://") {
            if p.is_empty() {
                return Err(format!("{text:?}: no socket path after unix://"));
            }
            return Ok(Address::Unix(PathBuf::from(p)));
        }
        if let Some(a) = text.strip_prefix("tcp://") {
            if a.rsplit_once(':')
                .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
            {
                return Err(format!("{text:?}: expected tcp://HOST:PORT"));
            }
            return Ok(Address::Tcp(a.to_string()));
        }
        Err(format!(
            "{text:?}: expected unix:///path/to.sock or tcp://HOST:PORT"
        ))
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Address::Unix(p) => write!(f, "unix://{}", p.display()),
            Address::Tcp(a) => write!(f, "tcp://{a}"),
        }
    }
}

/// The value keys of a `FaceReport` the protocol carries (the core's messages name them with
/// static strings): a key outside this list is a protocol error.
pub const REPORT_KEYS: &[&str] = &[
    ndncc_core::schemes::sieve::BETA,
    ndncc_core::schemes::sieve::EPS,
    ndncc_core::schemes::sieve::SIGNAL,
];

/// The static form of a report key (None: not a protocol key).
pub fn report_key(key: &str) -> Option<&'static str> {
    REPORT_KEYS.iter().copied().find(|k| *k == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_or_say_what_is_expected() {
        assert_eq!(
            Address::parse("unix:///tmp/c.sock"),
            Ok(Address::Unix("/tmp/c.sock".into()))
        );
        assert_eq!(
            Address::parse("tcp://127.0.0.1:7000"),
            Ok(Address::Tcp("127.0.0.1:7000".into()))
        );
        for bad in [
            "",
            "unix://",
            "tcp://x",
            "tcp://:1",
            "127.0.0.1:7000",
            "tcp://h:99999",
        ] {
            let e = Address::parse(bad).unwrap_err();
            assert!(
                e.contains("expected") || e.contains("no socket"),
                "{bad}: {e}"
            );
        }
        assert_eq!(report_key("beta"), Some("beta"));
        assert_eq!(report_key("gamma"), None);
    }
}
