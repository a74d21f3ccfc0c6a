//! FleCom-recon's forwarding strategy (`strategy = "flecom-recon"`) [OURS throughout]: the
//! router's choice between multipath forwarding and Interest shaping.
//!
//! * Per FIB prefix, a forwarding ratio p_f per next hop, 100 % on the cheapest at the start
//!   (reset when the FIB's next hops change); each Interest draws r ~ U(0, 1) and takes the
//!   next hop where r falls in the cumulative ratios (over the next hops other than the
//!   incoming face); one the router module refuses hands it to the next by ratio.
//! * Per prefix and next hop, the marked share of the Data it returns, an EWMA per Data:
//!   `m_f ← (1 − g)·m_f + g·[marked]`.
//! * A marked Data from next hop f (congestion behind f):
//!   - **multipath forwarding** when the prefix has alternatives with m < `free` (not
//!     congested): Δ = `shift`·p_f moves from f to them, split equally;
//!   - **Interest shaping** otherwise: the router module `flecom-recon` of this node (if it runs
//!     it) shapes the Interests leaving on f ([`super::router`]).
//!
//! The ratios are mirrored into the FIB next hops' weights and reported per face as the gauge
//! `ratio`.

use crate::face::FaceId;
use crate::forwarder::strategy::{forward_or_reject, StrategyHooks};
use crate::forwarder::FwCore;
use crate::name::{Name, NameId};
use crate::packet::{Data, NackReason};
use crate::rng::RngStream;
use crate::schemes::params::{Kind, SchemeConfig};
use crate::schemes::RouterModule;
use crate::time::Instant;
use smallvec::SmallVec;

crate::scheme_config! {
    /// FleCom-recon strategy settings (our reconstruction: every value is ours; a scenario runs
    /// the defaults).
    pub struct FlecomStrategyConfig {
        /// g: the weight of each Data in a next hop's marked share (about 100 Data of
        /// memory) [OURS; 0.01].
        gain: f64 = 0.01, Kind::open_closed(0.0, 1.0), "";
        /// An alternative next hop takes traffic only while its marked share is below this
        /// [OURS; 0.1].
        free: f64 = 0.1, Kind::open_closed(0.0, 1.0), "";
        /// The share of p_f moved per marked Data from f: the router marks every Data of a
        /// congested 20 ms window (about 24 at 10 Mbit/s), so 0.002 per Data moves about 5 %
        /// per congested window — PCON moves 2 % per mark, spaced 100 ms/√n apart
        /// [OURS; 0.002].
        shift: f64 = 0.002, Kind::open_closed(0.0, 1.0), "of p_f";
    }
}

impl SchemeConfig for FlecomStrategyConfig {}

/// One next hop of a prefix: (face, ratio p, marked share m).
type Hop = (FaceId, f64, f64);

#[derive(Clone, Debug)]
struct Prefix {
    prefix: NameId,
    hops: SmallVec<[Hop; 4]>,
}

/// Moves Δ = `shift`·p_f from hop `pos` to the hops with m < `free` (other than `pos`), split
/// equally; returns false (nothing moved) when there is none.
pub fn shift_ratio(hops: &mut [Hop], pos: usize, shift: f64, free: f64) -> bool {
    let alts: SmallVec<[usize; 4]> = (0..hops.len())
        .filter(|&k| k != pos && hops[k].2 < free)
        .collect();
    if alts.is_empty() {
        return false;
    }
    let delta = shift * hops[pos].1;
    hops[pos].1 -= delta;
    for &k in &alts {
        hops[k].1 += delta / alts.len() as f64;
    }
    true
}

/// The FleCom-recon strategy: ratios and marked shares per prefix, its own random stream.
#[derive(Debug)]
pub struct FlecomStrategy {
    pub cfg: FlecomStrategyConfig,
    rng: RngStream,
    prefixes: Vec<Prefix>,
    /// Marked Data answered by multipath forwarding, and by a request to shape.
    pub multipath: u64,
    pub shaping: u64,
}

impl FlecomStrategy {
    pub fn new(cfg: FlecomStrategyConfig, rng: RngStream) -> Self {
        FlecomStrategy {
            cfg,
            rng,
            prefixes: Vec::new(),
            multipath: 0,
            shaping: 0,
        }
    }

    /// The ratio of `face` for the FIB prefix `prefix`, if the strategy has seen it.
    pub fn ratio(&self, prefix: NameId, face: FaceId) -> Option<f64> {
        let r = self.prefixes.iter().find(|r| r.prefix == prefix)?;
        r.hops.iter().find(|h| h.0 == face).map(|h| h.1)
    }

    /// The marked share of `face` for `prefix` (0 before any Data).
    pub fn marked_share(&self, prefix: NameId, face: FaceId) -> f64 {
        self.prefixes
            .iter()
            .find(|r| r.prefix == prefix)
            .and_then(|r| r.hops.iter().find(|h| h.0 == face))
            .map_or(0.0, |h| h.2)
    }

    /// The state of the prefix matching `name` (created, or reset when the FIB's next hops
    /// changed: 100 % on the cheapest); `None` without a route.
    fn entry(&mut self, core: &mut FwCore, name: Name) -> Option<usize> {
        let hops = core.nexthops(name);
        if hops.is_empty() {
            return None;
        }
        let prefix = core.fib_prefix(name);
        if let Some(i) = self.prefixes.iter().position(|r| r.prefix == prefix) {
            let r = &self.prefixes[i];
            let same = r.hops.len() == hops.len()
                && hops.iter().all(|h| r.hops.iter().any(|x| x.0 == h.face));
            if same {
                return Some(i);
            }
            self.prefixes.remove(i);
        }
        // the FIB keeps next hops sorted by (cost, face): the first is the cheapest
        self.prefixes.push(Prefix {
            prefix,
            hops: hops
                .iter()
                .enumerate()
                .map(|(k, h)| (h.face, if k == 0 { 1.0 } else { 0.0 }, 0.0))
                .collect(),
        });
        let i = self.prefixes.len() - 1;
        Self::mirror(&self.prefixes[i], core, name);
        Some(i)
    }

    fn mirror(r: &Prefix, core: &mut FwCore, name: Name) {
        for &(face, p, _) in &r.hops {
            core.set_nexthop_weight(name, face, p);
        }
    }

    /// Answers a marked Data from `face`: multipath forwarding or Interest shaping.
    fn react(&mut self, core: &mut FwCore, now: Instant, i: usize, name: Name, face: FaceId) {
        let Some(pos) = self.prefixes[i].hops.iter().position(|h| h.0 == face) else {
            return;
        };
        let (shift, free) = (self.cfg.shift, self.cfg.free);
        if shift_ratio(&mut self.prefixes[i].hops, pos, shift, free) {
            self.multipath += 1;
            Self::mirror(&self.prefixes[i], core, name);
            return;
        }
        self.shaping += 1;
        if let RouterModule::FlecomRecon(m) = core.module_mut() {
            m.shape(now, face);
        }
    }
}

impl StrategyHooks for FlecomStrategy {
    fn after_receive_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        let Some(i) = self.entry(core, name) else {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        };
        let mut hops: SmallVec<[(FaceId, f64); 4]> = self.prefixes[i]
            .hops
            .iter()
            .filter(|h| h.0 != in_face)
            .map(|h| (h.0, h.1))
            .collect();
        if hops.is_empty() {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        }
        let r = self.rng.uniform();
        // the pick first, then (if the router module refuses it) the others by ratio
        crate::mechanisms::ratio_pick::order_by_ratio(&mut hops, r);
        forward_or_reject(core, now, name, hops.iter().map(|h| h.0), false);
    }

    fn after_receive_data(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
        data: &Data,
    ) {
        if core.faces[in_face.0 as usize].is_app() {
            return;
        }
        let Some(i) = self.entry(core, name) else {
            return;
        };
        let g = self.cfg.gain;
        let marked = data.ext.mark;
        if let Some(h) = self.prefixes[i].hops.iter_mut().find(|h| h.0 == in_face) {
            h.2 = (1.0 - g) * h.2 + g * f64::from(u8::from(marked));
        }
        if marked {
            self.react(core, now, i, name, in_face);
        }
    }

    fn gauge_names(&self) -> &'static [&'static str] {
        &["ratio", "marked_share"]
    }

    /// The ratio and marked share of `face` in the first prefix (in the order the strategy met
    /// them) that has it as a next hop.
    fn face_gauges(&self, face: FaceId, out: &mut [f64]) {
        if let Some(h) = self
            .prefixes
            .iter()
            .find_map(|r| r.hops.iter().find(|h| h.0 == face))
        {
            out[0] = h.1;
            out[1] = h.2;
        }
    }
}
