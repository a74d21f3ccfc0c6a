//! A consumer's sending engine from its spec: one function shared by the simulator's world and
//! the real-time apps (`ndncc-rt`), so both run the same engine for the same spec.

use crate::spec::{EngineSpec, GapDistSpec};
use ndncc_core::pacing::{Engine, GapDist, Ideal, Randomized, Rfc3448, Rmc, Smoothing, Tick};
use ndncc_core::rng::RngStream;
use ndncc_core::Duration;

/// The engine `spec` describes. `tg` is the granularity of the clock it sleeps on (the RFC 3448
/// δ rule's t_g when the spec leaves `granularity_ns` unset); `rng` gives the randomized
/// engine its own stream (called only for that engine).
pub fn engine_from_spec(
    spec: &EngineSpec,
    tg: Duration,
    rng: impl FnOnce() -> RngStream,
) -> Engine {
    match *spec {
        EngineSpec::Ideal => Engine::Ideal(Ideal::default()),
        EngineSpec::Randomized { dist } => Engine::Randomized(Randomized::new(
            match dist {
                GapDistSpec::Uniform => GapDist::Uniform,
                GapDistSpec::Exponential => GapDist::Exponential,
            },
            rng(),
        )),
        EngineSpec::Tick {
            tick_ns,
            smoothing: false,
        } => Engine::Tick(Tick::new(Duration(tick_ns))),
        EngineSpec::Tick {
            tick_ns,
            smoothing: true,
        } => Engine::Smoothing(Smoothing::new(Duration(tick_ns))),
        EngineSpec::Rfc3448 {
            burst,
            granularity_ns,
            max_owed,
        } => {
            let mut e = Rfc3448::new(burst, granularity_ns.map_or(tg, Duration));
            e.max_owed = max_owed;
            Engine::Rfc3448(e)
        }
        EngineSpec::Rmc { kr, period_ns } => Engine::Rmc(Rmc::new(kr, Duration(period_ns))),
    }
}
