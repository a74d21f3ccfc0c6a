//! Controller components a scenario can name (`[sdn.<name>]`): the registry of
//! [`ControllerComponent`]s, like [`super::registry`] is for router modules and consumer
//! controllers. A component is built from its config (declared with
//! [`scheme_config!`](crate::scheme_config)) and the [`Topology`] of the network, which the
//! driver reads once the nodes, links and routes exist (the controller's topology module
//! learns it at start).

use super::params::{Problem, SchemeConfig};
use super::registry::{scheme_tag, SchemaEntry};
use crate::control::ControllerComponent;
use crate::face::{FaceId, FaceKind};
use crate::forwarder::Forwarder;
use crate::name::NameId;
use serde::{Deserialize, Serialize};

/// One net face of a node: which link it is on and who is at the other end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopoFace {
    pub face: FaceId,
    pub link: u32,
    pub peer: u32,
}

/// One node as the controller sees it: its net faces and its FIB (prefix → next hops; app
/// faces excluded).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopoNode {
    pub faces: Vec<TopoFace>,
    pub routes: Vec<(NameId, Vec<FaceId>)>,
}

impl TopoNode {
    /// The net face towards `peer` (the first, if parallel links join them).
    pub fn face_to(&self, peer: u32) -> Option<&TopoFace> {
        self.faces.iter().find(|f| f.peer == peer)
    }
    pub fn face(&self, face: FaceId) -> Option<&TopoFace> {
        self.faces.iter().find(|f| f.face == face)
    }
    /// The net next hops of `prefix` (exact FIB entry).
    pub fn nexthops(&self, prefix: NameId) -> &[FaceId] {
        self.routes
            .iter()
            .find(|(p, _)| *p == prefix)
            .map_or(&[], |(_, f)| f.as_slice())
    }
}

/// The network: nodes by driver index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    pub nodes: Vec<TopoNode>,
}

impl Topology {
    /// Reads the faces and FIBs of `forwarders` (indexed as the driver numbers nodes).
    pub fn of<'a>(forwarders: impl Iterator<Item = &'a Forwarder>) -> Topology {
        let nodes = forwarders
            .map(|fwd| {
                let faces: Vec<TopoFace> = fwd
                    .faces()
                    .iter()
                    .filter_map(|f| match f.kind {
                        FaceKind::Net { peer, link } => Some(TopoFace {
                            face: f.id,
                            link,
                            peer,
                        }),
                        _ => None,
                    })
                    .collect();
                let routes = fwd
                    .core
                    .fib
                    .iter()
                    .map(|e| {
                        let hops = e
                            .nexthops
                            .iter()
                            .map(|nh| nh.face)
                            .filter(|f| faces.iter().any(|t| t.face == *f))
                            .collect();
                        (e.prefix, hops)
                    })
                    .collect();
                TopoNode { faces, routes }
            })
            .collect();
        Topology { nodes }
    }
}

/// A controller component built from its config and the topology.
pub trait ComponentScheme: ControllerComponent + Send + Sized + 'static {
    type Config: SchemeConfig;
    /// Its key: `[sdn.<NAME>]`.
    const NAME: &'static str;
    const DOC: &'static str;
    fn build(cfg: &Self::Config, topo: &Topology) -> Self;
}

macro_rules! components {
    ( $( $v:ident($ty:ty) ),* $(,)? ) => {
        /// A controller component's config, keyed by its name (`{"sieve": {...}}`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ComponentConfig {
            $( $v(<$ty as ComponentScheme>::Config), )*
        }

        impl ComponentConfig {
            pub fn name(&self) -> &'static str {
                match self { $( ComponentConfig::$v(_) => <$ty as ComponentScheme>::NAME, )* }
            }
            pub fn validate(&self) -> Vec<Problem> {
                match self { $( ComponentConfig::$v(c) => c.validate(), )* }
            }
            pub fn build(&self, topo: &Topology) -> Box<dyn ControllerComponent + Send> {
                match self {
                    $( ComponentConfig::$v(c) => Box::new(<$ty>::build(c, topo)), )*
                }
            }
        }

        /// Every registered component with its parameters.
        pub fn schema() -> Vec<SchemaEntry> {
            vec![$(
                SchemaEntry {
                    name: <$ty as ComponentScheme>::NAME,
                    tag: scheme_tag(<$ty as ComponentScheme>::NAME),
                    doc: <$ty as ComponentScheme>::DOC,
                    target: None,
                    params: <<$ty as ComponentScheme>::Config as SchemeConfig>::params(),
                },
            )*]
        }
    };
}

// One line per component.
components! {
    Sieve(super::sieve::SieveController),
}
