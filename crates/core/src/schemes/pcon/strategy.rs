//! The PCON forwarding strategy (`strategy = "pcon"`; `../shared/specs/sieve.md`, "Forwarding
//! strategy"): only Schneider's NFD fork and its ports have one, ndnSIM mainline has none.
//!
//! * Per FIB prefix, a forwarding ratio p_f per next hop, starting with 100 % on the cheapest
//!   next hop (lowest cost, then lowest face id; the fork starts on the lowest face id).
//! * Each Interest draws r ~ U(0, 1) and takes the face where r falls in the cumulative ratios
//!   (over the next hops other than the incoming face); when r ≤ `probe` it is also sent on
//!   every other of those next hops (probing by duplication).
//! * A marked Data arriving from net face f moves Δ = `mark_shift`·p_f from f, split equally
//!   over the prefix's other next hops.
//! * A pending Interest that expires moves `expiry_shift` (absolute, at most p_f) from each
//!   face it was sent on, split the same way.
//!
//! The ratios are mirrored into the FIB next hops' weights (`FwCore::nexthops`), and reported
//! per face as the gauge `ratio` (column `scheme_ratio`).

use crate::face::FaceId;
use crate::forwarder::strategy::{forward_or_reject, StrategyHooks};
use crate::forwarder::FwCore;
use crate::name::{Name, NameId};
use crate::packet::{Data, NackReason};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::time::Instant;
use smallvec::SmallVec;

crate::scheme_config! {
    /// PCON forwarding strategy settings (the fork's constants).
    pub struct PconStrategyConfig {
        /// The share of p_f taken from face f per marked Data it returns (Δ = 0.02·p_f).
        mark_shift: f64 = 0.02, Kind::range(0.0, 1.0), "of p_f";
        /// The ratio taken from a face per expired Interest sent on it (absolute: 0.02).
        expiry_shift: f64 = 0.02, Kind::range(0.0, 1.0), "";
        /// r ≤ this duplicates the Interest on every other next hop (0.001).
        probe: f64 = 0.001, Kind::range(0.0, 1.0), "";
    }
}

impl SchemeConfig for PconStrategyConfig {}

/// The ratios of one FIB prefix's next hops.
#[derive(Clone, Debug)]
struct Ratios {
    prefix: NameId,
    hops: SmallVec<[(FaceId, f64); 4]>,
}

/// The PCON strategy's state: ratios per prefix and its own random stream.
#[derive(Debug)]
pub struct PconStrategy {
    pub cfg: PconStrategyConfig,
    rng: RngStream,
    prefixes: Vec<Ratios>,
    /// Interests sent twice or more by probing.
    pub probes: u64,
}

impl PconStrategy {
    pub fn new(cfg: PconStrategyConfig, rng: RngStream) -> Self {
        PconStrategy {
            cfg,
            rng,
            prefixes: Vec::new(),
            probes: 0,
        }
    }

    /// The ratio of `face` for the FIB prefix `prefix`, if the strategy has seen it.
    pub fn ratio(&self, prefix: NameId, face: FaceId) -> Option<f64> {
        let r = self.prefixes.iter().find(|r| r.prefix == prefix)?;
        r.hops.iter().find(|h| h.0 == face).map(|h| h.1)
    }

    /// The ratios of the prefix matching `name` (created, or reset when the FIB's next hops
    /// changed: 100 % on the cheapest); `None` without a route.
    fn ratios(&mut self, core: &mut FwCore, name: Name) -> Option<usize> {
        let hops = core.nexthops(name);
        if hops.is_empty() {
            return None;
        }
        let prefix = core.fib_prefix(name);
        let same = |r: &Ratios| {
            r.hops.len() == hops.len() && hops.iter().all(|h| r.hops.iter().any(|x| x.0 == h.face))
        };
        if let Some(i) = self.prefixes.iter().position(|r| r.prefix == prefix) {
            if same(&self.prefixes[i]) {
                return Some(i);
            }
            self.prefixes.remove(i);
        }
        // the FIB keeps next hops sorted by (cost, face): the first is the cheapest
        let ratios = Ratios {
            prefix,
            hops: hops
                .iter()
                .enumerate()
                .map(|(k, h)| (h.face, if k == 0 { 1.0 } else { 0.0 }))
                .collect(),
        };
        self.prefixes.push(ratios);
        let i = self.prefixes.len() - 1;
        Self::mirror(&self.prefixes[i], core, name);
        Some(i)
    }

    fn mirror(r: &Ratios, core: &mut FwCore, name: Name) {
        for &(face, p) in &r.hops {
            core.set_nexthop_weight(name, face, p);
        }
    }

    /// Moves `amount` (at most p_f) from `face` to the prefix's other next hops, equally.
    fn shift(&mut self, core: &mut FwCore, i: usize, name: Name, face: FaceId, amount: Amount) {
        let r = &mut self.prefixes[i];
        let k = r.hops.len();
        let Some(pos) = r.hops.iter().position(|h| h.0 == face) else {
            return;
        };
        if k < 2 {
            return;
        }
        let p = r.hops[pos].1;
        let delta = match amount {
            Amount::Share(s) => s * p,
            Amount::Absolute(a) => a.min(p),
        };
        if delta <= 0.0 {
            return;
        }
        for (j, h) in r.hops.iter_mut().enumerate() {
            if j == pos {
                h.1 = p - delta;
            } else {
                h.1 += delta / (k - 1) as f64;
            }
        }
        Self::mirror(&self.prefixes[i], core, name);
    }
}

#[derive(Clone, Copy, Debug)]
enum Amount {
    /// A share of p_f.
    Share(f64),
    /// An absolute ratio, at most p_f.
    Absolute(f64),
}

impl StrategyHooks for PconStrategy {
    fn after_receive_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        let Some(i) = self.ratios(core, name) else {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        };
        let mut hops: SmallVec<[(FaceId, f64); 4]> = self.prefixes[i]
            .hops
            .iter()
            .filter(|h| h.0 != in_face)
            .copied()
            .collect();
        if hops.is_empty() {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        }
        let r = self.rng.uniform();
        // the pick first, then (if the router module refuses it) the others by ratio
        crate::mechanisms::ratio_pick::order_by_ratio(&mut hops, r);
        let probe = r <= self.cfg.probe && hops.len() > 1;
        forward_or_reject(core, now, name, hops.iter().map(|h| h.0), probe);
        if probe {
            self.probes += 1;
        }
    }

    fn after_receive_data(
        &mut self,
        core: &mut FwCore,
        _now: Instant,
        name: Name,
        in_face: FaceId,
        data: &Data,
    ) {
        if !data.ext.mark || core.faces[in_face.0 as usize].is_app() {
            return;
        }
        if let Some(i) = self.ratios(core, name) {
            let share = self.cfg.mark_shift;
            self.shift(core, i, name, in_face, Amount::Share(share));
        }
    }

    fn before_expire_pending_interest(&mut self, core: &mut FwCore, _now: Instant, name: Name) {
        let faces: SmallVec<[FaceId; 2]> = match core.pit.get(&name) {
            Some(e) => e.out_records.iter().map(|r| r.face).collect(),
            None => return,
        };
        if faces.is_empty() {
            return;
        }
        if let Some(i) = self.ratios(core, name) {
            let a = self.cfg.expiry_shift;
            for f in faces {
                self.shift(core, i, name, f, Amount::Absolute(a));
            }
        }
    }

    fn gauge_names(&self) -> &'static [&'static str] {
        &["ratio"]
    }

    /// The ratio of `face` in the first prefix (in the order the strategy met them) that has
    /// it as a next hop.
    fn face_gauges(&self, face: FaceId, out: &mut [f64]) {
        if let Some(p) = self
            .prefixes
            .iter()
            .find_map(|r| r.hops.iter().find(|h| h.0 == face).map(|h| h.1))
        {
            out[0] = p;
        }
    }
}

#[cfg(test)]
#[path = "strategy_tests.rs"]
mod tests;
