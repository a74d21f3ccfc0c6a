//! Forwarding strategies, with NFD's trigger names.
//!
//! Triggers ([`StrategyHooks`]): `after_receive_interest`, `after_receive_data`,
//! `after_receive_nack`, `before_satisfy_interest`, `on_dropped_interest`. Actions (the only
//! mutators) live on [`FwCore`]: `send_interest`, `send_data`, `send_nack`,
//! `reject_pending_interest`, and the per-next-hop weights (`nexthops`,
//! `set_nexthop_weight`) a stateful strategy reads and sets (PCON's forwarding ratios,
//! ndnSieve's metrics). Built-in strategies are variants of [`Strategy`]; `Custom` takes any
//! [`StrategyHooks`] implementation with its own state.
//!
//! * **best-route**: the lowest-cost next hop other than the incoming face; if the router module
//!   refuses it, the next one in cost order; if none admits the Interest, Nack downstream
//!   (NoRoute without any next hop).
//! * **multicast**: every next hop other than the incoming face.
//! * **weighted-multipath**: one next hop drawn with probability proportional to its weight
//!   (node's random stream); on refusal, the others in cost order.
//! * **class-multipath**: an Interest of traffic class c (MIRCC multipath: 0 primary,
//!   1 secondary) tries the (c+1)-th cheapest next hop first, then the others in cost order, so
//!   primary traffic takes the best path and secondary traffic the next one.
//!
//! On a Nack, every strategy tries the next hops not tried yet; when none is left and every
//! upstream has Nacked, the Nack goes to every downstream.

use super::{FwCore, SendOutcome};
use crate::face::FaceId;
use crate::name::Name;
use crate::packet::{Data, Interest, NackReason};
use crate::table::fib::NextHop;
use crate::time::Instant;
use smallvec::SmallVec;

/// Tries to send the Interest `name` on `faces` in order until the router module admits it on
/// one (on every one when `all`). `Ok` if any admitted it; otherwise the last Nack reason the
/// module gave, if any.
pub fn try_faces(
    core: &mut FwCore,
    now: Instant,
    name: Name,
    faces: impl IntoIterator<Item = FaceId>,
    all: bool,
) -> Result<(), Option<NackReason>> {
    let mut accepted = false;
    let mut reason = None;
    for face in faces {
        match core.send_interest(now, name, face) {
            SendOutcome::Refused(r) => reason = r.or(reason),
            _ => {
                accepted = true;
                if !all {
                    return Ok(());
                }
            }
        }
    }
    if accepted {
        Ok(())
    } else {
        Err(reason)
    }
}

/// [`try_faces`], then, when no face admitted the Interest, Nack it downstream with the
/// module's reason; refused silently everywhere, the entry waits for its expiry.
pub fn forward_or_reject(
    core: &mut FwCore,
    now: Instant,
    name: Name,
    faces: impl IntoIterator<Item = FaceId>,
    all: bool,
) {
    if let Err(Some(reason)) = try_faces(core, now, name, faces, all) {
        core.reject_pending_interest(now, name, reason);
    }
}

/// The triggers of a stateful strategy (NFD's names). Only `after_receive_interest` is
/// required; the others default to: on a Nack, try the next hops not tried yet and Nack
/// downstream when every upstream has Nacked; nothing on Data, before satisfying, or on a drop.
pub trait StrategyHooks: std::fmt::Debug {
    /// A new (or retransmitted) Interest needs forwarding.
    fn after_receive_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    );
    /// A Nack came back from upstream face `in_face`.
    fn after_receive_nack(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        _in_face: FaceId,
        reason: NackReason,
    ) {
        retry_or_reject(Builtin::BestRoute, core, now, name, reason)
    }
    /// A Data is about to satisfy the pending Interest `name`.
    fn before_satisfy_interest(
        &mut self,
        _core: &mut FwCore,
        _now: Instant,
        _name: Name,
        _in_face: FaceId,
    ) {
    }
    /// A Data arrived on `in_face` for the pending Interest `name` (after
    /// `before_satisfy_interest`, before the entry is erased).
    fn after_receive_data(
        &mut self,
        _core: &mut FwCore,
        _now: Instant,
        _name: Name,
        _in_face: FaceId,
        _data: &Data,
    ) {
    }
    /// The transmit queue of `face` dropped `interest` (or the router module refused it there).
    fn on_dropped_interest(
        &mut self,
        _core: &mut FwCore,
        _now: Instant,
        _face: FaceId,
        _interest: &Interest,
    ) {
    }
    /// The pending Interest `name` expired unanswered; its entry (with its out-records) is
    /// still in the PIT and is erased right after (NFD's `beforeExpirePendingInterest`).
    fn before_expire_pending_interest(&mut self, _core: &mut FwCore, _now: Instant, _name: Name) {}
    /// The names of the per-face gauges the strategy reports: columns `scheme_<name>` of the
    /// face time series, beside the router module's (e.g. "ratio").
    fn gauge_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The gauges of `face`, in the order of [`Self::gauge_names`]; `out` comes filled with NaN.
    fn face_gauges(&self, _face: FaceId, _out: &mut [f64]) {}
}

/// The strategy of a node.
#[derive(Debug, Default)]
pub enum Strategy {
    #[default]
    BestRoute,
    Multicast,
    WeightedMultipath,
    ClassMultipath,
    /// A user-supplied stateful strategy.
    Custom(Box<dyn StrategyHooks + Send>),
}

/// The built-in strategies (stateless).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    BestRoute,
    Multicast,
    WeightedMultipath,
    ClassMultipath,
}

impl Strategy {
    fn builtin(&self) -> Option<Builtin> {
        match self {
            Strategy::BestRoute => Some(Builtin::BestRoute),
            Strategy::Multicast => Some(Builtin::Multicast),
            Strategy::WeightedMultipath => Some(Builtin::WeightedMultipath),
            Strategy::ClassMultipath => Some(Builtin::ClassMultipath),
            Strategy::Custom(_) => None,
        }
    }

    /// Trigger: a new (or retransmitted) Interest needs forwarding.
    pub fn after_receive_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        match self {
            Strategy::Custom(s) => s.after_receive_interest(core, now, name, in_face),
            b => b
                .builtin()
                .expect("built-in")
                .after_receive_interest(core, now, name, in_face),
        }
    }

    /// Trigger: a Nack came back from upstream face `in_face`.
    pub fn after_receive_nack(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
        reason: NackReason,
    ) {
        match self {
            Strategy::Custom(s) => s.after_receive_nack(core, now, name, in_face, reason),
            b => retry_or_reject(b.builtin().expect("built-in"), core, now, name, reason),
        }
    }

    /// Trigger: a Data is about to satisfy the pending Interest `name`.
    pub fn before_satisfy_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        if let Strategy::Custom(s) = self {
            s.before_satisfy_interest(core, now, name, in_face)
        }
    }

    /// Trigger: a Data arrived for the pending Interest `name`.
    pub fn after_receive_data(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
        data: &Data,
    ) {
        if let Strategy::Custom(s) = self {
            s.after_receive_data(core, now, name, in_face, data)
        }
    }

    /// Trigger: the pending Interest `name` is about to expire (its entry is still there).
    pub fn before_expire_pending_interest(&mut self, core: &mut FwCore, now: Instant, name: Name) {
        if let Strategy::Custom(s) = self {
            s.before_expire_pending_interest(core, now, name)
        }
    }

    /// The strategy's per-face gauge names (none for the built-in ones).
    pub fn gauge_names(&self) -> &'static [&'static str] {
        match self {
            Strategy::Custom(s) => s.gauge_names(),
            _ => &[],
        }
    }

    /// The strategy's gauges of `face`.
    pub fn face_gauges(&self, face: FaceId, out: &mut [f64]) {
        if let Strategy::Custom(s) = self {
            s.face_gauges(face, out)
        }
    }

    /// Trigger: `face` dropped `interest`.
    pub fn on_dropped_interest(
        &mut self,
        core: &mut FwCore,
        now: Instant,
        face: FaceId,
        interest: &Interest,
    ) {
        if let Strategy::Custom(s) = self {
            s.on_dropped_interest(core, now, face, interest)
        }
    }
}

/// On a Nack: the next hops not tried yet; when none is left and every upstream has Nacked,
/// the Nack goes to every downstream.
fn retry_or_reject(b: Builtin, core: &mut FwCore, now: Instant, name: Name, reason: NackReason) {
    let used = Builtin::used_faces(core, name);
    let hops = Builtin::candidates(core, name, &used);
    if !hops.is_empty() && b.try_hops(core, now, name, &hops).is_ok() {
        return;
    }
    let all_nacked = core
        .pit
        .get(&name)
        .is_some_and(|e| e.out_records.iter().all(|r| r.nacked));
    if all_nacked {
        core.reject_pending_interest(now, name, reason);
    }
}

impl Strategy {
    /// Parses the scenario's strategy key.
    pub fn from_key(key: &str) -> Option<Strategy> {
        match key {
            "best-route" => Some(Strategy::BestRoute),
            "multicast" => Some(Strategy::Multicast),
            "weighted-multipath" => Some(Strategy::WeightedMultipath),
            "class-multipath" => Some(Strategy::ClassMultipath),
            _ => None,
        }
    }
}

impl Builtin {
    fn candidates(core: &FwCore, name: Name, exclude: &[FaceId]) -> SmallVec<[NextHop; 4]> {
        match core.fib.lpm(&core.names, name) {
            Some(e) => e
                .nexthops
                .iter()
                .filter(|nh| !exclude.contains(&nh.face))
                .copied()
                .collect(),
            None => SmallVec::new(),
        }
    }

    /// Faces that must not be used for `name`: downstreams, and upstreams already tried.
    fn used_faces(core: &FwCore, name: Name) -> SmallVec<[FaceId; 4]> {
        match core.pit.get(&name) {
            Some(e) => e
                .in_records
                .iter()
                .map(|r| r.face)
                .chain(e.out_records.iter().map(|r| r.face))
                .collect(),
            None => SmallVec::new(),
        }
    }

    /// Moves the weighted pick to the front of `hops` (weighted-multipath).
    fn weighted_first(core: &mut FwCore, hops: &mut [NextHop]) {
        let total: f64 = hops.iter().map(|h| h.weight).sum();
        if hops.len() < 2 || total <= 0.0 {
            return;
        }
        let mut x = core.rng.uniform() * total;
        let mut pick = hops.len() - 1;
        for (i, h) in hops.iter().enumerate() {
            if x < h.weight {
                pick = i;
                break;
            }
            x -= h.weight;
        }
        hops[..=pick].rotate_right(1);
    }

    /// Tries `hops` in order (all of them for multicast): [`try_faces`].
    fn try_hops(
        self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        hops: &[NextHop],
    ) -> Result<(), Option<NackReason>> {
        let all = self == Builtin::Multicast;
        try_faces(core, now, name, hops.iter().map(|nh| nh.face), all)
    }

    /// best-route's `after_receive_interest` without building the candidate list first: the
    /// cheapest next hop other than `in_face` is tried straight from the FIB entry (almost always
    /// accepted); only when the router module refuses it are the others collected and tried in
    /// cost order — the same tries, in the same order, as [`Builtin::try_hops`] over them all.
    fn best_route(core: &mut FwCore, now: Instant, name: Name, in_face: FaceId) {
        let first = core.fib.lpm(&core.names, name).and_then(|e| {
            e.nexthops
                .iter()
                .enumerate()
                .find(|(_, nh)| nh.face != in_face)
                .map(|(i, nh)| (i, nh.face))
        });
        let Some((i, face)) = first else {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        };
        let reason = match core.send_interest(now, name, face) {
            SendOutcome::Refused(r) => r,
            _ => return,
        };
        // the rest of the candidates, after the refused one, in cost order
        let rest: SmallVec<[NextHop; 4]> = match core.fib.lpm(&core.names, name) {
            Some(e) => e.nexthops[i + 1..]
                .iter()
                .filter(|nh| nh.face != in_face)
                .copied()
                .collect(),
            None => SmallVec::new(),
        };
        if let Err(r) = Builtin::BestRoute.try_hops(core, now, name, &rest) {
            // none: silently dropped on every face, the entry waits for its expiry
            if let Some(reason) = r.or(reason) {
                core.reject_pending_interest(now, name, reason);
            }
        }
    }

    /// Trigger: a new (or retransmitted) Interest needs forwarding.
    pub fn after_receive_interest(
        self,
        core: &mut FwCore,
        now: Instant,
        name: Name,
        in_face: FaceId,
    ) {
        if self == Builtin::BestRoute {
            return Self::best_route(core, now, name, in_face);
        }
        let mut hops = Self::candidates(core, name, &[in_face]);
        if hops.is_empty() {
            core.reject_pending_interest(now, name, NackReason::NoRoute);
            return;
        }
        match self {
            Builtin::WeightedMultipath => Self::weighted_first(core, &mut hops),
            Builtin::ClassMultipath => {
                let class = core.pit.get(&name).map_or(0, |e| e.interest.ext.class) as usize;
                let first = class % hops.len();
                hops[..=first].rotate_right(1);
            }
            _ => {}
        }
        let all = self == Builtin::Multicast;
        forward_or_reject(core, now, name, hops.iter().map(|nh| nh.face), all);
    }
}
