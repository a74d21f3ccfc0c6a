//! What the daemon loads: its forwarding strategies (`[forwarder] strategy`,
//! `strategy-choice/set`) and router modules (`[forwarder.module.<scheme>]`), one list.
//!
//! Both come from the core's registries (`ndncc_core::schemes::strategies`, the router part of
//! `ndncc_core::schemes::registry`), so a strategy or a scheme the simulator runs is the same
//! code on the daemon. The list is reported by `ndnccd --list-modules` and, through the native
//! module, to `ndncc emulate` (`ndncc._core.ndnccd_modules()`), which accepts exactly these
//! names: the config check, the daemon's start-up and management build through the functions
//! below, so what is listed is what loads.

use ndncc_core::forwarder::Strategy;
use ndncc_core::rng::RngStream;
use ndncc_core::schemes::{registry, strategies};

/// The strategies the daemon runs, by name (`best-route`, …, `pcon`).
pub fn strategy_names() -> Vec<&'static str> {
    strategies::STRATEGIES.iter().map(|e| e.name).collect()
}

/// The router modules the daemon loads, by scheme name (`sf`, `mircc`, …).
pub fn module_names() -> Vec<&'static str> {
    registry::schema().routers.iter().map(|e| e.name).collect()
}

/// Builds strategy `name` with its own stream `rng`; the error is one line naming the choices.
pub fn build_strategy(name: &str, rng: RngStream) -> Result<Strategy, String> {
    strategies::build(name, rng).ok_or_else(|| {
        format!(
            "unknown strategy {name:?} ({})",
            strategy_names().join(", ")
        )
    })
}

/// Whether `name` is a strategy the daemon runs.
pub fn knows_strategy(name: &str) -> bool {
    strategies::lookup(name).is_some()
}

/// The list as JSON: `{"strategies": [...], "modules": [...]}` (what `--list-modules` prints).
pub fn list_json() -> String {
    serde_json::json!({
        "strategies": strategy_names(),
        "modules": module_names(),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_pcon_and_every_registered_router_module() {
        let v: serde_json::Value = serde_json::from_str(&list_json()).unwrap();
        let strategies: Vec<&str> = v["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert!(strategies.contains(&"pcon"), "{strategies:?}");
        assert!(strategies.contains(&"best-route"), "{strategies:?}");
        assert_eq!(
            v["modules"].as_array().unwrap().len(),
            registry::schema().routers.len()
        );
        assert!(knows_strategy("pcon") && !knows_strategy("fastest"));
        let e = build_strategy(
            "fastest",
            RngStream::new(0, 0, ndncc_core::rng::StreamKind::Node, 0),
        )
        .unwrap_err();
        assert!(e.contains("pcon") && !e.contains('\n'), "{e}");
    }
}
