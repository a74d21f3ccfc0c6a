//! NFD management elements encoded by python-ndn 0.5.2
//! (tests/vectors/make_python_ndn_mgmt.py): decode each and compare with what python-ndn was asked
//! to encode; re-encode and compare bytes where our encoder makes the same choices.

use ndncc_wire::dataset::{self, GeneralStatus};
use ndncc_wire::mgmt::{Command, CommandInterest, ControlParameters, ControlResponse, Scope};
use ndncc_wire::{InterestView, Name};
use serde_json::Value;

mod common;
use common::hex;

fn vectors() -> Vec<Value> {
    common::json_lines(include_str!("vectors/python_ndn_mgmt_0.5.2.jsonl"))
}

/// The ControlParameters python-ndn was asked to encode.
fn params(fields: &Value) -> ControlParameters {
    let mut p = ControlParameters::default();
    for (k, v) in fields.as_object().unwrap() {
        let n = v.as_u64();
        let s = v.as_str().map(str::to_string);
        match k.as_str() {
            "name" => p.name = Some(Name::from_uri(v.as_str().unwrap()).unwrap()),
            "strategy" => p.strategy = Some(Name::from_uri(v.as_str().unwrap()).unwrap()),
            "face_id" => p.face_id = n,
            "uri" => p.uri = s,
            "local_uri" => p.local_uri = s,
            "origin" => p.origin = n,
            "cost" => p.cost = n,
            "capacity" => p.capacity = n,
            "count" => p.count = n,
            "base_congestion_mark_interval" => p.base_congestion_marking_interval = n,
            "default_congestion_threshold" => p.default_congestion_threshold = n,
            "mtu" => p.mtu = n,
            "flags" => p.flags = n,
            "mask" => p.mask = n,
            "expiration_period" => p.expiration_period = n,
            "face_persistency" => p.face_persistency = n,
            other => panic!("field {other} not mapped"),
        }
    }
    p
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn all_python_ndn_mgmt_vectors() {
    let mut counts = std::collections::BTreeMap::new();
    for v in vectors() {
        let kind = v["kind"].as_str().unwrap();
        let desc = v["desc"].as_str().unwrap();
        let wire = hex(v["hex"].as_str().unwrap());
        *counts.entry(kind.to_string()).or_insert(0) += 1;
        match kind {
            "control_parameters" => {
                let expect = params(&v["fields"]);
                let got =
                    ControlParameters::decode(&wire).unwrap_or_else(|e| panic!("{desc}: {e}"));
                assert_eq!(got, expect, "{desc}");
                assert_eq!(expect.encode(), wire, "{desc}: our encoding differs");
            }
            "control_response" => {
                let r = ControlResponse::decode(&wire).unwrap_or_else(|e| panic!("{desc}: {e}"));
                assert_eq!(r.status_code, v["status_code"].as_u64().unwrap());
                assert_eq!(r.status_text, v["status_text"].as_str().unwrap());
                let body = params(&v["fields"]);
                assert_eq!(r.body.as_ref(), Some(&body), "{desc}");
                assert_eq!(
                    ControlResponse::new(r.status_code, &r.status_text, body).encode(),
                    wire
                );
            }
            "command_v2" => {
                let cmd = CommandInterest {
                    scope: Scope::Localhost,
                    module: v["module"].as_str().unwrap().into(),
                    verb: v["verb"].as_str().unwrap().into(),
                    params: params(&v["fields"]),
                    nonce: v["nonce"].as_u64().unwrap() as u32,
                    lifetime_ms: v["lifetime"].as_u64().unwrap(),
                    signature_time_ms: v["signature_time"].as_u64().unwrap(),
                    signature_nonce: v["signature_nonce"].as_u64().unwrap(),
                };
                // Byte for byte, signature value and parameters digest included.
                assert_eq!(cmd.encode().unwrap(), wire, "{desc}");
                let view = InterestView::decode(&wire).unwrap();
                let c = Command::parse(&view).unwrap().unwrap();
                assert_eq!(c.params, Some(cmd.params), "{desc}");
            }
            "command_v1" => {
                let view = InterestView::decode(&wire).unwrap();
                assert_eq!(
                    view.name.len(),
                    9,
                    "{desc}: 5 components + 4 signature ones"
                );
                let c = Command::parse(&view).unwrap().unwrap();
                assert_eq!((c.module.as_str(), c.verb.as_str()), ("rib", "register"));
                assert_eq!(c.params, Some(params(&v["fields"])), "{desc}");
            }
            "faces" => {
                let faces = dataset::decode_faces(&wire).unwrap();
                let ids: Vec<u64> = faces.iter().map(|f| f.face_id).collect();
                assert_eq!(ids, u64s(&v["face_ids"]));
                let uris: Vec<&str> = faces.iter().map(|f| f.uri.as_str()).collect();
                let want: Vec<&str> = v["uris"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                assert_eq!(uris, want);
                let n: Vec<u64> = faces.iter().map(|f| f.counters.n_in_interests).collect();
                assert_eq!(n, u64s(&v["n_in_interests"]));
                let mut again = Vec::new();
                faces.iter().for_each(|f| f.encode_to(&mut again));
                assert_eq!(again, wire, "{desc}");
            }
            "general" => {
                let g = GeneralStatus::decode(&wire).unwrap();
                assert_eq!(g.nfd_version, v["nfd_version"].as_str().unwrap());
                assert_eq!(g.n_pit_entries, v["n_pit_entries"].as_u64().unwrap());
                assert_eq!(g.n_cs_entries, v["n_cs_entries"].as_u64().unwrap());
                assert_eq!(
                    g.counters.n_in_interests,
                    v["n_in_interests"].as_u64().unwrap()
                );
                assert_eq!(g.counters.n_out_nacks, v["n_out_nacks"].as_u64().unwrap());
                assert_eq!(
                    g.n_unsatisfied_interests,
                    v["n_unsatisfied_interests"].as_u64().unwrap()
                );
                assert_eq!(g.encode(), wire, "{desc}");
            }
            "fib" => {
                let f = dataset::decode_fib(&wire).unwrap();
                assert_eq!(f[0].name.to_string(), v["name"].as_str().unwrap());
                let ids: Vec<u64> = f[0].next_hops.iter().map(|h| h.face_id).collect();
                let costs: Vec<u64> = f[0].next_hops.iter().map(|h| h.cost).collect();
                assert_eq!((ids, costs), (u64s(&v["face_ids"]), u64s(&v["costs"])));
                let mut again = Vec::new();
                f[0].encode_to(&mut again);
                assert_eq!(again, wire);
            }
            "rib" => {
                let r = dataset::decode_rib(&wire).unwrap();
                assert_eq!(r[0].name.to_string(), v["name"].as_str().unwrap());
                let route = &r[0].routes[0];
                assert_eq!(route.face_id, v["face_id"].as_u64().unwrap());
                assert_eq!(route.flags, v["flags"].as_u64().unwrap());
                assert_eq!(route.expiration_period, v["expiration_period"].as_u64());
                let mut again = Vec::new();
                r[0].encode_to(&mut again);
                assert_eq!(again, wire);
            }
            "strategy_choices" => {
                let s = dataset::decode_strategy_choices(&wire).unwrap();
                assert_eq!(s[0].name.to_string(), v["name"].as_str().unwrap());
                assert_eq!(s[0].strategy.to_string(), v["strategy"].as_str().unwrap());
                let mut again = Vec::new();
                s[0].encode_to(&mut again);
                assert_eq!(again, wire);
            }
            other => panic!("unknown vector kind {other}"),
        }
    }
    let n = |k: &str| counts.get(k).copied().unwrap_or(0);
    assert!(n("control_parameters") >= 9 && n("command_v2") >= 2 && n("command_v1") == 1);
    assert!(n("faces") + n("general") + n("fib") + n("rib") + n("strategy_choices") == 5);
}
