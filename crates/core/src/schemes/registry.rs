//! The scheme registry: one line per scheme part.
//!
//! A scheme is one module in `schemes/` (its config declared with
//! [`scheme_config!`](crate::scheme_config), its router module and/or consumer controller) plus
//! one line below. From those lines come
//!
//! * [`RouterConfig`] / [`ControllerConfig`]: the configs as the resolved scenario carries them
//!   (serde; a node's `schemes` table `{"sf": {...}}`, a consumer's `controller` object
//!   `{"type": "sf_aimd", ...}`);
//! * [`RouterModule`] / [`Controller`]: the parts the forwarder and the consumer run,
//!   dispatched by `match` (and a `Custom` variant for experiments and tests);
//! * [`schema`]: every scheme with its parameters (field, kind and bounds, unit, default, doc),
//!   exported to the Python front end, which validates scenario files against it and never
//!   keeps its own copy of a default or a bound.

use super::params::{Param, Problem, SchemeConfig};
use super::RouterHooks;
use crate::app::controller::{
    CongestionController, ConstantRate, DataSignal, FixedWindow, Loss, NackSignal, NdnsimCbr,
    Target,
};
use crate::app::ndnsim::NdnsimRetxConfig;
use crate::control::ControlBody;
use crate::face::{Face, FaceId};
use crate::mechanisms::rtt_estimator::RttEstimator;
use crate::name::NameId;
use crate::packet::{Data, Interest, Nack, Packet};
use crate::rng::RngStream;
use crate::schemes::{mircc, sf, InterestVerdict, ModuleAction};
use crate::time::{Duration, Instant, PacketRate};
use serde::{Deserialize, Serialize};

/// A router-side scheme part: a [`RouterHooks`] module built from its config.
pub trait RouterScheme: RouterHooks + Send + Sized {
    type Config: SchemeConfig;
    /// Its key in a node's `schemes` table.
    const NAME: &'static str;
    /// One sentence for `ndncc schemes`.
    const DOC: &'static str;
    /// `rng` is the module's own stream (derived from the node's name and [`Self::NAME`]).
    fn build(cfg: &Self::Config, rng: RngStream) -> Self;
}

/// Whether a controller asks for a rate (actuated by a sending engine) or a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Rate,
    Window,
}

/// A consumer-side scheme part: a [`CongestionController`] built from its config.
pub trait ControllerScheme: CongestionController + Send + Sized {
    type Config: SchemeConfig;
    /// Its name in a consumer's `controller` key.
    const NAME: &'static str;
    const DOC: &'static str;
    const TARGET: TargetKind;
    fn build(cfg: &Self::Config) -> Self;
}

/// The serde tag of a scheme part named `name`: the name as a scenario writes it ("hr-icp") with
/// each '-' as '_' ("hr_icp"); a tag passes unchanged.
pub fn scheme_tag(name: &str) -> String {
    name.replace('-', "_")
}

/// One scheme part in the schema.
#[derive(Clone, Debug, Serialize)]
pub struct SchemaEntry {
    pub name: &'static str,
    /// The resolved spec's tag (controllers: `type`), `name` with '-' as '_'.
    pub tag: String,
    pub doc: &'static str,
    /// Controllers only: "rate" or "window".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetKind>,
    pub params: Vec<Param>,
}

/// Every registered scheme part.
#[derive(Clone, Debug, Serialize)]
pub struct Schema {
    /// Router-side parts, `[nodes.NAME.schemes.<name>]`.
    pub routers: Vec<SchemaEntry>,
    /// Consumer controllers, `controller = "<name>"`.
    pub controllers: Vec<SchemaEntry>,
    /// Forwarding strategies, `strategy = "<name>"` ([`super::strategies`]).
    pub strategies: &'static [super::strategies::StrategyEntry],
    /// Controller components (an SDN controller), `[sdn.<name>]` ([`super::components`]).
    pub components: Vec<SchemaEntry>,
}

macro_rules! registry {
    (
        routers { $( $rv:ident($rty:ty) ),* $(,)? }
        controllers { $( $cv:ident($cty:ty) ),* $(,)? }
    ) => {
        /// A router-side scheme's config, keyed by the scheme's name.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum RouterConfig {
            $( $rv(<$rty as RouterScheme>::Config), )*
        }

        impl RouterConfig {
            /// The scheme's key.
            pub fn name(&self) -> &'static str {
                match self { $( RouterConfig::$rv(_) => <$rty as RouterScheme>::NAME, )* }
            }
            pub fn validate(&self) -> Vec<Problem> {
                match self { $( RouterConfig::$rv(c) => c.validate(), )* }
            }
            /// The module; `rng` is its own stream.
            pub fn build(&self, rng: RngStream) -> RouterModule {
                match self {
                    $( RouterConfig::$rv(c) => RouterModule::$rv(<$rty>::build(c, rng)), )*
                }
            }
        }

        /// The router module of a node.
        #[derive(Debug, Default)]
        pub enum RouterModule {
            /// Plain NDN forwarding.
            #[default]
            None,
            $( $rv($rty), )*
            /// A user-supplied module.
            Custom(Box<dyn RouterHooks + Send>),
        }

        impl RouterModule {
            fn hooks(&self) -> Option<&(dyn RouterHooks + Send)> {
                match self {
                    RouterModule::None => None,
                    $( RouterModule::$rv(m) => Some(m), )*
                    RouterModule::Custom(h) => Some(h.as_ref()),
                }
            }
            fn hooks_mut(&mut self) -> Option<&mut (dyn RouterHooks + Send)> {
                match self {
                    RouterModule::None => None,
                    $( RouterModule::$rv(m) => Some(m), )*
                    RouterModule::Custom(h) => Some(h.as_mut()),
                }
            }
        }

        /// A consumer controller's config, tagged by `type`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum ControllerConfig {
            $( $cv(<$cty as ControllerScheme>::Config), )*
        }

        impl ControllerConfig {
            pub fn name(&self) -> &'static str {
                match self { $( ControllerConfig::$cv(_) => <$cty as ControllerScheme>::NAME, )* }
            }
            pub fn validate(&self) -> Vec<Problem> {
                match self { $( ControllerConfig::$cv(c) => c.validate(), )* }
            }
            pub fn build(&self) -> Controller {
                match self { $( ControllerConfig::$cv(c) => Controller::$cv(<$cty>::build(c)), )* }
            }
        }

        /// The controller of a consumer.
        #[derive(Debug)]
        pub enum Controller {
            $( $cv($cty), )*
            Custom(Box<dyn CongestionController + Send>),
        }

        impl Controller {
            fn inner(&self) -> &dyn CongestionController {
                match self {
                    $( Controller::$cv(c) => c, )*
                    Controller::Custom(c) => c.as_ref(),
                }
            }
            fn inner_mut(&mut self) -> &mut dyn CongestionController {
                match self {
                    $( Controller::$cv(c) => c, )*
                    Controller::Custom(c) => c.as_mut(),
                }
            }
        }

        /// Every registered scheme part with its parameters.
        pub fn schema() -> Schema {
            Schema {
                routers: vec![$(
                    SchemaEntry {
                        name: <$rty as RouterScheme>::NAME,
                        tag: scheme_tag(<$rty as RouterScheme>::NAME),
                        doc: <$rty as RouterScheme>::DOC,
                        target: None,
                        params: <<$rty as RouterScheme>::Config as SchemeConfig>::params(),
                    },
                )*],
                controllers: vec![$(
                    SchemaEntry {
                        name: <$cty as ControllerScheme>::NAME,
                        tag: scheme_tag(<$cty as ControllerScheme>::NAME),
                        doc: <$cty as ControllerScheme>::DOC,
                        target: Some(<$cty as ControllerScheme>::TARGET),
                        params: <<$cty as ControllerScheme>::Config as SchemeConfig>::params(),
                    },
                )*],
                strategies: super::strategies::STRATEGIES,
                components: super::components::schema(),
            }
        }
    };
}

// The registry. Variant names follow the scheme's key: `Sf` <-> "sf", `SfAimd` <-> "sf_aimd"
// (the serde tag; the scenario writes "sf-aimd").
registry! {
    routers {
        Sf(sf::SfRouter),
        Mircc(mircc::MirccRouter),
        Chopcop(super::chopcop::ChopcopRouter),
        Hbh(super::hr_icp::HbhShaper),
        Pcon(super::pcon::PconMarker),
        Sieve(super::sieve::SieveRouter),
        CoopconRecon(super::coopcon_recon::CoopconRouter),
        FlecomRecon(super::flecom_recon::FlecomRouter),
    }
    controllers {
        ConstantRate(ConstantRate),
        NdnsimCbr(NdnsimCbr),
        FixedWindow(FixedWindow),
        SfAimd(sf::SfConsumer),
        Mircc(mircc::MirccConsumer),
        Icp(super::icp::Icp),
        Chopcop(super::chopcop::Ric),
        Ictp(super::ictp::Ictp),
        Pcon(super::pcon::ConsumerPcon),
        Sieve(super::sieve::SieveConsumer),
        CoopconRecon(super::coopcon_recon::CoopconConsumer),
        FlecomRecon(super::flecom_recon::FlecomConsumer),
    }
}

impl RouterModule {
    /// Whether the hooks read the FIB prefix they are given (per-prefix state); when not, the
    /// forwarder skips the longest-prefix match and hands them the name's base.
    pub fn uses_prefix(&self) -> bool {
        self.hooks().is_some_and(|h| h.uses_prefix())
    }

    pub fn on_interest_out(
        &mut self,
        now: Instant,
        face: FaceId,
        prefix: NameId,
        interest: &Interest,
        faces: &[Face],
    ) -> InterestVerdict {
        match self.hooks_mut() {
            Some(h) => h.on_interest_out(now, face, prefix, interest, faces),
            None => InterestVerdict::Admit,
        }
    }
    pub fn on_data_out(&mut self, now: Instant, face: FaceId, data: &mut Data, faces: &[Face]) {
        if let Some(h) = self.hooks_mut() {
            h.on_data_out(now, face, data, faces)
        }
    }
    pub fn on_data_in(
        &mut self,
        now: Instant,
        face: FaceId,
        prefix: NameId,
        data: &mut Data,
        sent: Option<Instant>,
        faces: &[Face],
    ) {
        if let Some(h) = self.hooks_mut() {
            h.on_data_in(now, face, prefix, data, sent, faces)
        }
    }
    pub fn on_nack_in(
        &mut self,
        now: Instant,
        face: FaceId,
        prefix: NameId,
        nack: &Nack,
        sent: Instant,
        faces: &[Face],
    ) {
        if let Some(h) = self.hooks_mut() {
            h.on_nack_in(now, face, prefix, nack, sent, faces)
        }
    }
    pub fn on_enqueue(
        &mut self,
        now: Instant,
        face: FaceId,
        p: &mut Packet,
        faces: &[Face],
    ) -> bool {
        match self.hooks_mut() {
            Some(h) => h.on_enqueue(now, face, p, faces),
            None => true,
        }
    }
    pub fn on_dequeue(
        &mut self,
        now: Instant,
        face: FaceId,
        p: &mut Packet,
        sojourn: Duration,
        faces: &[Face],
    ) {
        if let Some(h) = self.hooks_mut() {
            h.on_dequeue(now, face, p, sojourn, faces)
        }
    }
    pub fn gauge_names(&self) -> &'static [&'static str] {
        self.hooks().map_or(&[], |h| h.gauge_names())
    }
    pub fn face_gauges(&mut self, now: Instant, face: FaceId, out: &mut [f64]) {
        if let Some(h) = self.hooks_mut() {
            h.face_gauges(now, face, out)
        }
    }
    pub fn tick_interval(&self) -> Option<Duration> {
        self.hooks().and_then(|h| h.tick_interval())
    }
    pub fn on_tick(&mut self, now: Instant, faces: &[Face]) {
        if let Some(h) = self.hooks_mut() {
            h.on_tick(now, faces)
        }
    }
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.hooks().and_then(|h| h.poll_timeout())
    }
    pub fn on_timeout(&mut self, now: Instant, faces: &[Face]) {
        if let Some(h) = self.hooks_mut() {
            h.on_timeout(now, faces)
        }
    }
    pub fn on_control(&mut self, now: Instant, msg: &ControlBody, faces: &[Face]) {
        if let Some(h) = self.hooks_mut() {
            h.on_control(now, msg, faces)
        }
    }
    pub fn poll_action(&mut self) -> Option<ModuleAction> {
        self.hooks_mut().and_then(|h| h.poll_action())
    }
}

impl CongestionController for Controller {
    fn target(&self) -> Target {
        self.inner().target()
    }
    fn on_send(&mut self, now: Instant, seq: u64, retransmission: bool) {
        self.inner_mut().on_send(now, seq, retransmission)
    }
    fn ndnsim_retx(&self) -> Option<NdnsimRetxConfig> {
        self.inner().ndnsim_retx()
    }
    fn on_data(&mut self, now: Instant, sig: &DataSignal) {
        self.inner_mut().on_data(now, sig)
    }
    fn on_nack(&mut self, now: Instant, sig: &NackSignal) {
        self.inner_mut().on_nack(now, sig)
    }
    fn on_timeout(&mut self, now: Instant, seq: u64) {
        self.inner_mut().on_timeout(now, seq)
    }
    fn on_mark(&mut self, now: Instant, sig: &DataSignal) {
        self.inner_mut().on_mark(now, sig)
    }
    fn on_rate_stamp(&mut self, now: Instant, rate: PacketRate, sig: &DataSignal) {
        self.inner_mut().on_rate_stamp(now, rate, sig)
    }
    fn next_class(&mut self) -> u8 {
        self.inner_mut().next_class()
    }
    fn poll_loss(&mut self) -> Option<u64> {
        self.inner_mut().poll_loss()
    }
    fn rto(&self, rtt: &RttEstimator) -> Option<Duration> {
        self.inner().rto(rtt)
    }
    fn retransmit(&mut self, now: Instant, seq: u64, loss: Loss) -> Option<bool> {
        self.inner_mut().retransmit(now, seq, loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_round_trip_through_the_spec_shapes() {
        let r: RouterConfig = serde_json::from_str(r#"{"sf": {"depth": 20.0}}"#).unwrap();
        match &r {
            RouterConfig::Sf(c) => {
                assert_eq!(c.depth, 20.0);
                assert_eq!(c.min_rate, sf::SfConfig::default().min_rate);
            }
            _ => panic!("{r:?}"),
        }
        assert_eq!(r.name(), "sf");
        let c: ControllerConfig =
            serde_json::from_str(r#"{"type": "sf_aimd", "rate": 10.0}"#).unwrap();
        assert_eq!(c.name(), "sf-aimd");
        assert!(
            serde_json::from_str::<ControllerConfig>(r#"{"type": "sf_aimd", "bogus": 1}"#).is_err()
        );
        assert!(serde_json::from_str::<RouterConfig>(r#"{"sf": {"bogus": 1}}"#).is_err());
    }

    #[test]
    fn schema_lists_every_part_with_defaults_from_default() {
        let s = schema();
        let names: Vec<_> = s.routers.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "sf",
                "mircc",
                "chopcop",
                "hbh",
                "pcon",
                "sieve",
                "coopcon-recon",
                "flecom-recon"
            ]
        );
        let sf = &s.routers[0];
        let depth = sf.params.iter().find(|p| p.name == "depth").unwrap();
        assert_eq!(
            depth.default,
            serde_json::json!(sf::SfConfig::default().depth)
        );
        assert!(depth.doc.starts_with("D:"), "{}", depth.doc);
        let aimd = s.controllers.iter().find(|e| e.name == "sf-aimd").unwrap();
        assert_eq!(aimd.tag, "sf_aimd");
        let rate = aimd.params.iter().find(|p| p.name == "rate").unwrap();
        assert!(rate.required && rate.default.is_null());
    }

    #[test]
    fn validate_checks_bounds_then_cross_rules() {
        let mut c = sf::SfConfig {
            decrease: 1.0,
            ..Default::default()
        };
        let p = RouterConfig::Sf(c.clone()).validate();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].keys, ["decrease"]);
        c.decrease = 0.5;
        c.per_face = false;
        let p = RouterConfig::Sf(c).validate();
        assert_eq!(p[0].keys, ["per_face", "per_fib"]);
        let m = ControllerConfig::SfAimd(sf::SfConsumerConfig {
            rate: 10.0,
            max_rate: Some(5.0),
            nack_suppression: false,
        });
        assert_eq!(m.validate()[0].keys, ["max_rate", "rate"]);
    }
}
