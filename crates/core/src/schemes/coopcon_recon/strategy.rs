//! CoopCon-recon's forwarding strategy (`strategy = "coopcon-recon"`) [OURS throughout]: the
//! optimal path kept, traffic diverted only under severe congestion.
//!
//! * The optimal path of a prefix is its cheapest next hop (the FIB's order: cost, then face).
//! * Per prefix and next hop f, the marked share of the Data f returns, an EWMA per Data:
//!   `m_f ← (1 − g)·m_f + g·[marked]` (g = `gain`).
//! * The optimal next hop o is *severely* congested when m_o > `severe`; the share of Interests
//!   diverted from it grows with the excess, capped so that the optimal path always keeps most
//!   of the traffic:
//!
//!   ```text
//!   d = d_max · min(1, max(0, (m_o − severe) / (1 − severe)))
//!   ```
//!
//! * Each Interest draws r ~ U(0, 1): r < d sends it to the alternative with the lowest marked
//!   share (ties: the FIB's order), otherwise to o; a next hop the router module refuses hands
//!   it to the next one in that order.
//!
//! Below `severe` nothing moves: mild congestion (marks the consumers answer) stays the
//! consumers' business, so the two never both act on it.

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
    /// CoopCon-recon strategy settings (our reconstruction: every value is ours; a scenario
    /// runs the defaults).
    pub struct CoopconStrategyConfig {
        /// g: the weight of each Data in a next hop's marked share: 0.002 remembers about
        /// 500 Data (0.4 s at 10 Mbit/s), so that a burst of marks shorter than that is not
        /// *severe* and marks on most Data for longer are, whether the consumers' cuts clear
        /// them slowly or not at all (with 1 000-packet queues a slow start's overshoot does:
        /// `docs/schemes/coopcon-recon.md`) [OURS; 0.002].
        gain: f64 = 0.002, Kind::open_closed(0.0, 1.0), "";
        /// Severe congestion of the optimal next hop: its marked share above this [OURS; 0.5].
        severe: f64 = 0.5, Kind::range(0.0, 1.0), "";
        /// d_max: the largest share of Interests diverted from the optimal next hop (it keeps
        /// at least 1 − d_max) [OURS; 0.5].
        max_divert: f64 = 0.5, Kind::range(0.0, 1.0), "";
    }
}

impl SchemeConfig for CoopconStrategyConfig {}

/// The divert share d for an optimal next hop with marked share `m`.
pub fn divert_share(m: f64, severe: f64, max_divert: f64) -> f64 {
    let excess = ((m - severe) / (1.0 - severe)).clamp(0.0, 1.0);
    max_divert * excess
}

/// The marked shares of one prefix's next hops.
#[derive(Clone, Debug)]
struct Shares {
    prefix: NameId,
    hops: SmallVec<[(FaceId, f64); 4]>,
}

/// The CoopCon-recon strategy: marked shares per prefix and next hop, its own random stream.
#[derive(Debug)]
pub struct CoopconStrategy {
    pub cfg: CoopconStrategyConfig,
    rng: RngStream,
    prefixes: Vec<Shares>,
    /// Interests sent first to an alternative (diverted).
    pub diverted: u64,
}

impl CoopconStrategy {
    pub fn new(cfg: CoopconStrategyConfig, rng: RngStream) -> Self {
        CoopconStrategy {
            cfg,
            rng,
            prefixes: Vec::new(),
            diverted: 0,
        }
    }

    /// The marked share of next hop `face` for the FIB prefix `prefix` (0 before any Data).
    pub fn marked_share(&self, prefix: NameId, face: FaceId) -> f64 {
        self.prefixes
            .iter()
            .find(|s| s.prefix == prefix)
            .and_then(|s| s.hops.iter().find(|h| h.0 == face))
            .map_or(0.0, |h| h.1)
    }

    fn share_mut(&mut self, prefix: NameId, face: FaceId) -> &mut f64 {
        let i = match self.prefixes.iter().position(|s| s.prefix == prefix) {
            Some(i) => i,
            None => {
                self.prefixes.push(Shares {
                    prefix,
                    hops: SmallVec::new(),
                });
                self.prefixes.len() - 1
            }
        };
        let hops = &mut self.prefixes[i].hops;
        let k = match hops.iter().position(|h| h.0 == face) {
            Some(k) => k,
            None => {
                hops.push((face, 0.0));
                hops.len() - 1
            }
        };
        &mut hops[k].1
    }

    /// The order in which to try `hops` (FIB order, the optimal first) for a draw `r`: the
    /// least-marked alternative first when r < d.
    fn order(&mut self, prefix: NameId, hops: &mut SmallVec<[FaceId; 4]>, r: f64) {
        if hops.len() < 2 {
            return;
        }
        let m_opt = self.marked_share(prefix, hops[0]);
        let d = divert_share(m_opt, self.cfg.severe, self.cfg.max_divert);
        if r >= d {
            return;
        }
        let mut best = 1;
        for k in 2..hops.len() {
            if self.marked_share(prefix, hops[k]) < self.marked_share(prefix, hops[best]) {
                best = k;
            }
        }
        let alt = hops.remove(best);
        hops.insert(0, alt);
        self.diverted += 1;
    }
}

impl StrategyHooks for CoopconStrategy {
    fn after_receive_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        let prefix = core.fib_prefix(name);
        // the FIB keeps next hops sorted by (cost, face): the first is the optimal one
        let mut hops: SmallVec<[FaceId; 4]> = core
            .nexthops(name)
            .iter()
            .map(|h| h.face)
            .filter(|&f| f != in_face)
            .collect();
        if hops.is_empty() {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        }
        let r = self.rng.uniform();
        self.order(prefix, &mut hops, r);
        forward_or_reject(core, now, name, hops, false);
    }

    fn after_receive_data(
        &mut self,
        core: &mut FwCore,
        _now: Instant,
        name: Name,
        in_face: FaceId,
        data: &Data,
    ) {
        if core.faces[in_face.0 as usize].is_app() {
            return;
        }
        let prefix = core.fib_prefix(name);
        let g = self.cfg.gain;
        let m = self.share_mut(prefix, in_face);
        *m = (1.0 - g) * *m + g * f64::from(u8::from(data.ext.mark));
    }

    fn gauge_names(&self) -> &'static [&'static str] {
        &["marked_share"]
    }

    /// The marked share of `face` in the first prefix (in the order the strategy met them)
    /// that has it as a next hop.
    fn face_gauges(&self, face: FaceId, out: &mut [f64]) {
        if let Some(m) = self
            .prefixes
            .iter()
            .find_map(|s| s.hops.iter().find(|h| h.0 == face).map(|h| h.1))
        {
            out[0] = m;
        }
    }
}
