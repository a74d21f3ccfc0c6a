//! The strategy registry: one line per forwarding strategy a scenario names with
//! `strategy = "<name>"` on a node (or in `[defaults]`).
//!
//! A stateful strategy (a [`StrategyHooks`](crate::forwarder::strategy::StrategyHooks)
//! implementation in its scheme's module) is added by one line in [`STRATEGIES`]; its `build`
//! gets the strategy's own random stream (derived from the node's name and the strategy's name),
//! so its draws never shift the node's other draws. The Python front end reads the names from
//! the schema ([`crate::schemes::registry::schema`]); nothing else lists them.

use crate::forwarder::Strategy;
use crate::rng::RngStream;
use serde::Serialize;

/// One registered strategy.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct StrategyEntry {
    /// Its name in `strategy = "…"`.
    pub name: &'static str,
    /// One sentence for `ndncc schemes`.
    pub doc: &'static str,
    #[serde(skip)]
    pub build: fn(RngStream) -> Strategy,
}

/// Every strategy, one line each.
pub const STRATEGIES: &[StrategyEntry] = &[
    StrategyEntry {
        name: "best-route",
        doc: "The cheapest next hop; on refusal or Nack the next one in cost order.",
        build: |_| Strategy::BestRoute,
    },
    StrategyEntry {
        name: "multicast",
        doc: "Every next hop.",
        build: |_| Strategy::Multicast,
    },
    StrategyEntry {
        name: "weighted-multipath",
        doc: "One next hop drawn in proportion to the FIB weights.",
        build: |_| Strategy::WeightedMultipath,
    },
    StrategyEntry {
        name: "class-multipath",
        doc: "Traffic class c takes the (c+1)-th cheapest next hop first (MIRCC multipath).",
        build: |_| Strategy::ClassMultipath,
    },
    StrategyEntry {
        name: "pcon",
        doc: "PCON's forwarding ratios: shifted away from faces returning marked Data or \
            letting Interests expire, probing by duplication.",
        build: |rng| {
            Strategy::Custom(Box::new(super::pcon::PconStrategy::new(
                Default::default(),
                rng,
            )))
        },
    },
    StrategyEntry {
        name: "coopcon-recon",
        doc: "Our reconstruction of CoopCon's forwarding: the cheapest next hop keeps the \
            traffic; under severe congestion (a high share of marked Data) a capped share goes \
            to the least-marked alternative.",
        build: |rng| {
            Strategy::Custom(Box::new(super::coopcon_recon::CoopconStrategy::new(
                Default::default(),
                rng,
            )))
        },
    },
    StrategyEntry {
        name: "flecom-recon",
        doc: "Our reconstruction of FleCom's forwarding: a marked Data moves ratio to \
            uncongested alternatives (multipath), or, with none, asks the router module \
            flecom-recon to shape the Interests of that next hop.",
        build: |rng| {
            Strategy::Custom(Box::new(super::flecom_recon::FlecomStrategy::new(
                Default::default(),
                rng,
            )))
        },
    },
];

/// The registered strategy `name`.
pub fn lookup(name: &str) -> Option<&'static StrategyEntry> {
    STRATEGIES.iter().find(|e| e.name == name)
}

/// Builds strategy `name` with its own stream `rng`; `None` if no strategy has that name.
pub fn build(name: &str, rng: RngStream) -> Option<Strategy> {
    lookup(name).map(|e| (e.build)(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    #[test]
    fn every_name_builds_and_unknown_names_do_not() {
        for e in STRATEGIES {
            let s = build(e.name, RngStream::new(1, 0, StreamKind::Node, 0)).unwrap();
            assert_eq!(
                matches!(s, Strategy::Custom(_)),
                Strategy::from_key(e.name).is_none(),
                "{}",
                e.name
            );
        }
        assert!(build("pcon", RngStream::new(1, 0, StreamKind::Node, 0)).is_some());
        assert!(lookup("Pcon").is_none());
    }
}
