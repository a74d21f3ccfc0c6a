//! The daemon's own PitTokens: the hop-by-hop tag it puts on every Interest it forwards, and the
//! check of the tag echoed on the Data or Nack that comes back.
//!
//! NDNLPv2 lets a forwarder tag an Interest it sends with an opaque PitToken (type 0x62); the
//! next hop keeps it with its PIT in-record and echoes it on the Data or Nack it returns. ndnd
//! tags every Interest it forwards with 6 bytes (thread id, PIT entry id) and **aborts when asked
//! to echo a token of any other length**, so ours are exactly [`TOKEN_LEN`] bytes.
//!
//! Ours carry no state: the token is a keyed 48-bit hash of the core name of the PIT entry the
//! Interest belongs to (the key is drawn per daemon). The echo is checked against the entry the
//! returning packet matches: the same token means the upstream echoed it; another token is a
//! mismatch (a confused or forged upstream, counted; the packet is still handled by name, as
//! the core PIT is keyed by name); no token at all is counted too (NFD-style upstreams without
//! token support, local producers that ignore it). The token a *downstream* put on an Interest
//! is a different matter: it is stored and echoed back to it ([`super::store`]), never
//! forwarded.

use ndncc_core::name::Name;

/// Length of the tokens this daemon sends (ndnd requires 6).
pub const TOKEN_LEN: usize = 6;

/// What the echoed token of a returning Data or Nack said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Echo {
    /// The token this daemon sent for that PIT entry.
    Matched,
    /// A token, but not ours for that entry.
    Mismatched,
    /// No token.
    Absent,
}

/// PitToken counters, in the daemon's report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TokenStats {
    /// Interests sent with this daemon's token.
    pub sent: u64,
    /// Data and Nacks that came back with the token sent for their PIT entry.
    pub echoed: u64,
    /// Data and Nacks that came back with another token.
    pub mismatched: u64,
    /// Data and Nacks that came back without a token.
    pub absent: u64,
    /// Data and Nacks sent downstream with the token the downstream had put on its Interest.
    pub returned: u64,
}

/// The token issuer and checker of one daemon.
#[derive(Clone, Debug)]
pub struct PitTokens {
    key: u64,
    pub stats: TokenStats,
}

/// splitmix64's finaliser: a bijective 64-bit mix.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl PitTokens {
    /// An issuer with secret `key` (draw it at random per daemon).
    pub fn new(key: u64) -> Self {
        PitTokens {
            key,
            stats: TokenStats::default(),
        }
    }

    /// The token of the PIT entry named `name` (no counting).
    pub fn token_of(&self, name: Name) -> [u8; TOKEN_LEN] {
        let seq = name.seq.map_or(u64::MAX, |s| s.wrapping_add(1));
        let h = mix(mix(self.key ^ u64::from(name.base.0)) ^ seq);
        let b = h.to_be_bytes();
        [b[0], b[1], b[2], b[3], b[4], b[5]]
    }

    /// The token to put on an Interest of entry `name` leaving upstream (counted as sent).
    pub fn issue(&mut self, name: Name) -> [u8; TOKEN_LEN] {
        self.stats.sent += 1;
        self.token_of(name)
    }

    /// Checks the token echoed on a Data or Nack matching the entry `name` (counted).
    pub fn check(&mut self, name: Name, echoed: Option<&[u8]>) -> Echo {
        let e = match echoed {
            None => Echo::Absent,
            Some(t) if t == self.token_of(name) => Echo::Matched,
            Some(_) => Echo::Mismatched,
        };
        match e {
            Echo::Matched => self.stats.echoed += 1,
            Echo::Mismatched => self.stats.mismatched += 1,
            Echo::Absent => self.stats.absent += 1,
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::name::NameId;

    #[test]
    fn echo_of_the_issued_token_matches_and_others_do_not() {
        let mut t = PitTokens::new(0x1234_5678_9ABC_DEF0);
        let a = Name::new(NameId(7), 3);
        let tok = t.issue(a);
        assert_eq!(tok.len(), TOKEN_LEN);
        assert_eq!(t.check(a, Some(&tok)), Echo::Matched);
        // the token of another entry (another sequence, another base, the bare prefix)
        for other in [
            Name::new(NameId(7), 4),
            Name::new(NameId(8), 3),
            Name::prefix(NameId(7)),
        ] {
            assert_ne!(t.token_of(other), tok, "{other:?}");
            assert_eq!(t.check(other, Some(&tok)), Echo::Mismatched);
        }
        assert_eq!(t.check(a, Some(&tok[..4])), Echo::Mismatched);
        assert_eq!(t.check(a, None), Echo::Absent);
        assert_eq!(
            t.stats,
            TokenStats {
                sent: 1,
                echoed: 1,
                mismatched: 4,
                absent: 1,
                returned: 0
            }
        );
        // another daemon's key gives another token for the same entry
        assert_ne!(PitTokens::new(1).token_of(a), t.token_of(a));
    }
}
