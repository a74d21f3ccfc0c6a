//! NFD-compatible management, the subset python-ndn, `pynfdc` and ndnd's client use:
//! `rib/register|unregister`, `fib/add-nexthop|remove-nexthop`, `faces/create|destroy`,
//! `strategy-choice/set|unset`, and the datasets `faces/list`, `fib/list`, `rib/list`,
//! `strategy-choice/list`, `status/general`.
//!
//! Commands are accepted under `/localhost/nfd` and `/localhop/nfd` from any face, signatures
//! unchecked (as ndnd). Every reply is a Data of exactly the Interest's name, signed
//! DigestSha256, whose ControlResponse always carries a ControlParameters body (python-ndn
//! 0.5.2 crashes on a body-less error). A dataset is one Data named as NFD's StatusDataset
//! protocol wants: the Interest's name, a version, and segment 0 as the final block (pynfdc and
//! ndnd's client ask with CanBePrefix and read one packet).

use super::dial::Peer;
use super::{modules, Daemon, FACE_ID_OFFSET};
use crate::boundary::names::NameMapper;
use ndncc_core::face::FaceId;
use ndncc_wire::dataset::{self, FaceStatus, GeneralStatus};
use ndncc_wire::mgmt::{command_reply, Command, ControlParameters, ControlResponse};
use ndncc_wire::{Component, InterestView, MetaInfo, Name, NameView};

/// Strategy names as NFD spells them (`/localhost/nfd/strategy/<key>`).
const STRATEGY_PREFIX: &str = "/localhost/nfd/strategy";

impl Daemon {
    /// Fills a faces/create reply's parameters from face `id`: its FaceId, URIs, persistency
    /// and flags (0 unless the command gave some).
    pub(super) fn describe_face(&self, id: FaceId, p: &mut ControlParameters) {
        let f = self.face(id);
        p.face_id = Some(u64::from(id.0) + FACE_ID_OFFSET);
        p.uri = f.map(|f| f.uri.clone());
        p.local_uri = f.map(|f| f.local_uri.clone());
        p.face_persistency = f.map(|f| f.persistency);
        p.flags = Some(p.flags.unwrap_or(0));
    }

    /// Answers a management Interest; false when `i` is not one.
    pub(super) fn handle_mgmt(&mut self, face: FaceId, i: &InterestView<'_>) -> bool {
        let cmd = match Command::parse(i) {
            Ok(Some(c)) => c,
            Ok(None) => return false,
            Err(e) => {
                let r = ControlResponse::new(400, &format!("bad command: {e}"), Default::default());
                self.send_reply(face, command_reply(i, &r));
                return true;
            }
        };
        self.stats.mgmt += 1;
        let dataset = match (cmd.module.as_str(), cmd.verb.as_str()) {
            ("faces", "list") => Some(self.faces_dataset()),
            ("fib", "list") => Some(self.fib_dataset()),
            ("rib", "list") => Some(self.rib_dataset()),
            ("strategy-choice", "list") => Some(self.strategy_dataset()),
            ("status", "general") => Some(self.general_status()),
            _ => None,
        };
        if let Some(content) = dataset {
            // NFD's StatusDataset naming: the request's name + a version (ms since the epoch) +
            // segment 0, the last one (ndnd's client refuses a Data without the segment)
            // (a client that read the version then asks for `…/v=N/seg=0` by its exact name)
            let mut name = i.name.to_owned();
            let last = name.components().last();
            if last.and_then(Component::as_segment).is_none() {
                if last.and_then(Component::as_version).is_none() {
                    let version = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as u64);
                    name.push(Component::version(version));
                }
                name.push(Component::segment(0));
            }
            let data = ndncc_wire::Data {
                name,
                meta: Some(MetaInfo {
                    freshness: Some(1000),
                    final_block_id: Some(Component::segment(0)),
                    ..MetaInfo::default()
                }),
                content: Some(content),
                ..Default::default()
            };
            self.send_reply(face, data);
            return true;
        }
        let params = cmd.params.clone().unwrap_or_default();
        if (cmd.module.as_str(), cmd.verb.as_str()) == ("faces", "create") {
            if let Some((uri, remote)) = self.face_to_dial(&params) {
                // answered when the connect ends (`dial.rs`): the loop does not wait for it
                let now = self.now();
                self.dial_face(now, face, i.name.to_owned(), params, uri, remote);
                return true;
            }
        }
        let (code, text, body) = self.command(face, &cmd.module, &cmd.verb, params);
        let r = ControlResponse::new(code, &text, body);
        self.send_reply(face, command_reply(i, &r));
        true
    }

    /// Sends a reply on `face` (through its link, as any packet).
    pub(super) fn send_reply(&mut self, face: FaceId, data: ndncc_wire::Data) {
        let bytes = data.encode();
        let now = self.now();
        if let Some(Some(f)) = self.faces.get_mut(face.0 as usize) {
            f.link.send(now, bytes);
        }
    }

    /// A `faces/create` to connect on TCP (`tcp`, `tcp4`, `tcp6`; the address parses) or
    /// Unix (`unix`), no face going there yet: its URI and peer. Any other goes through
    /// [`Daemon::open_uri`].
    fn face_to_dial(&self, p: &ControlParameters) -> Option<(String, Peer)> {
        let uri = p.uri.as_deref()?;
        let (kind, rest) = uri.split_once("://")?;
        if self.open_faces().any(|(_, f)| f.uri == uri) {
            return None;
        }
        let remote = match kind {
            "tcp" | "tcp4" | "tcp6" => Peer::Tcp(super::parse_addr(rest).ok()?),
            "unix" => Peer::Unix(rest.into()),
            _ => return None,
        };
        Some((uri.to_string(), remote))
    }

    /// Runs a command: (status code, text, ControlParameters body).
    fn command(
        &mut self,
        face: FaceId,
        module: &str,
        verb: &str,
        mut p: ControlParameters,
    ) -> (u64, String, ControlParameters) {
        let target = match p.face_id {
            None | Some(0) => face,
            // an id below the offset or beyond u32 names no face (u32::MAX is never opened)
            Some(id) => id
                .checked_sub(FACE_ID_OFFSET)
                .and_then(|i| u32::try_from(i).ok())
                .map_or(FaceId(u32::MAX), FaceId),
        };
        match (module, verb) {
            ("rib", "register") | ("fib", "add-nexthop") => {
                let Some(name) = p.name.clone() else {
                    return (400, "Name is required".into(), p);
                };
                if self.face(target).is_none() {
                    return (410, "face not found".into(), p);
                }
                let cost = p.cost.unwrap_or(0).min(u64::from(u32::MAX)) as u32;
                let wire = name.to_wire();
                let Ok(view) = NameView::decode(&wire) else {
                    return (400, "bad Name".into(), p);
                };
                let origin = if module == "rib" {
                    p.origin.unwrap_or(0)
                } else {
                    255
                };
                self.register(&view, target, cost, origin, p.flags.unwrap_or(1));
                p.face_id = Some(u64::from(target.0) + FACE_ID_OFFSET);
                p.cost = Some(u64::from(cost));
                if module == "rib" {
                    p.origin = Some(origin);
                    p.flags = Some(p.flags.unwrap_or(1));
                }
                (200, "OK".into(), p)
            }
            ("rib", "unregister") | ("fib", "remove-nexthop") => {
                let Some(name) = p.name.clone() else {
                    return (400, "Name is required".into(), p);
                };
                let wire = name.to_wire();
                if let Ok(view) = NameView::decode(&wire) {
                    let table = std::sync::Arc::make_mut(&mut self.fwd.core.names);
                    let id = NameMapper::intern_prefix(table, &view);
                    let origin = p.origin.unwrap_or(0);
                    self.rib.retain(|r| {
                        !(r.prefix == id
                            && r.face == target
                            && (module == "fib" || r.origin == origin))
                    });
                    if !self.rib.iter().any(|r| r.prefix == id && r.face == target) {
                        self.fwd.core.fib.remove_nexthop(id, target);
                    }
                }
                p.face_id = Some(u64::from(target.0) + FACE_ID_OFFSET);
                (200, "OK".into(), p)
            }
            ("faces", "create") => {
                let Some(uri) = p.uri.clone() else {
                    return (400, "Uri is required".into(), p);
                };
                let link = self.cfg.link;
                match self.open_uri(&uri, &link, p.face_persistency.unwrap_or(0)) {
                    Ok((id, created)) => {
                        self.describe_face(id, &mut p);
                        if created {
                            (200, "OK".into(), p)
                        } else {
                            (409, "face exists".into(), p)
                        }
                    }
                    Err(e) => (406, e, p),
                }
            }
            ("faces", "destroy") => {
                if p.face_id.is_none() {
                    return (400, "FaceId is required".into(), p);
                }
                self.close_face(target);
                (200, "OK".into(), p)
            }
            ("strategy-choice", "set") => {
                let (Some(name), Some(strategy)) = (p.name.clone(), p.strategy.clone()) else {
                    return (400, "Name and Strategy are required".into(), p);
                };
                let key = strategy_key(&strategy);
                if !key.as_deref().is_some_and(modules::knows_strategy) {
                    return (404, format!("strategy {strategy} not found"), p);
                }
                if !name.is_empty() {
                    return (
                        501,
                        "ndnccd runs one strategy for every name: set it on /".into(),
                        p,
                    );
                }
                let rng = super::strategy_stream(self.random());
                let Ok(s) = modules::build_strategy(key.as_deref().unwrap_or_default(), rng) else {
                    return (404, format!("strategy {strategy} not found"), p);
                };
                self.fwd.strategy = s;
                self.strategy = key.unwrap_or_default();
                (200, "OK".into(), p)
            }
            ("strategy-choice", "unset") => (200, "OK".into(), p),
            _ => (501, format!("{module}/{verb} is not supported"), p),
        }
    }

    fn faces_dataset(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (id, f) in self.open_faces() {
            let c = &self.fwd.core.faces[id.0 as usize].counters;
            FaceStatus {
                face_id: u64::from(id.0) + FACE_ID_OFFSET,
                uri: f.uri.clone(),
                local_uri: f.local_uri.clone(),
                face_scope: u64::from(f.local),
                face_persistency: f.persistency,
                counters: dataset::Counters {
                    n_in_interests: c.in_pkts[0],
                    n_in_data: c.in_pkts[1],
                    n_in_nacks: c.in_pkts[2],
                    n_out_interests: c.out_pkts[0],
                    n_out_data: c.out_pkts[1],
                    n_out_nacks: c.out_pkts[2],
                },
                n_in_bytes: c.in_bytes.iter().sum(),
                n_out_bytes: c.out_bytes.iter().sum(),
                n_queue_drops: Some(c.drops),
                n_queue_drop_bytes: Some(c.drop_bytes),
                ..FaceStatus::default()
            }
            .encode_to(&mut out);
        }
        out
    }

    fn fib_dataset(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for e in self.fwd.core.fib.iter() {
            dataset::FibEntry {
                name: NameMapper::prefix_to_wire(&self.fwd.core.names, e.prefix),
                next_hops: e
                    .nexthops
                    .iter()
                    .map(|h| dataset::NextHop {
                        face_id: u64::from(h.face.0) + FACE_ID_OFFSET,
                        cost: u64::from(h.cost),
                    })
                    .collect(),
            }
            .encode_to(&mut out);
        }
        out
    }

    fn rib_dataset(&self) -> Vec<u8> {
        let mut prefixes: Vec<_> = self.rib.iter().map(|r| r.prefix).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        let mut out = Vec::new();
        for p in prefixes {
            dataset::RibEntry {
                name: NameMapper::prefix_to_wire(&self.fwd.core.names, p),
                routes: self
                    .rib
                    .iter()
                    .filter(|r| r.prefix == p)
                    .map(|r| dataset::Route {
                        face_id: u64::from(r.face.0) + FACE_ID_OFFSET,
                        origin: r.origin,
                        cost: u64::from(r.cost),
                        flags: r.flags,
                        expiration_period: None,
                    })
                    .collect(),
            }
            .encode_to(&mut out);
        }
        out
    }

    fn strategy_dataset(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let strategy =
            Name::from_uri(&format!("{STRATEGY_PREFIX}/{}", self.strategy)).unwrap_or_default();
        dataset::StrategyChoice {
            name: Name::new(),
            strategy,
        }
        .encode_to(&mut out);
        out
    }

    fn general_status(&self) -> Vec<u8> {
        let c = &self.fwd.core.counters;
        let mut counters = dataset::Counters::default();
        for f in &self.fwd.core.faces {
            counters.n_in_interests += f.counters.in_pkts[0];
            counters.n_in_data += f.counters.in_pkts[1];
            counters.n_in_nacks += f.counters.in_pkts[2];
            counters.n_out_interests += f.counters.out_pkts[0];
            counters.n_out_data += f.counters.out_pkts[1];
            counters.n_out_nacks += f.counters.out_pkts[2];
        }
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        GeneralStatus {
            nfd_version: format!("ndnccd {}", env!("CARGO_PKG_VERSION")),
            start_timestamp: self.started_unix_ms,
            current_timestamp: now_ms,
            n_name_tree_entries: self.fwd.core.names.len() as u64,
            n_fib_entries: self.fwd.core.fib.len() as u64,
            n_pit_entries: self.fwd.core.pit.len() as u64,
            n_measurements_entries: 0,
            n_cs_entries: self.fwd.core.cs().len() as u64,
            counters,
            n_satisfied_interests: c.satisfied,
            n_unsatisfied_interests: c.timed_out + c.rejected,
        }
        .encode()
    }
}

/// `best-route` from `/localhost/nfd/strategy/best-route[/v=N]`.
fn strategy_key(name: &Name) -> Option<String> {
    let c = name.get(3)?;
    std::str::from_utf8(c.value()).ok().map(str::to_string)
}
