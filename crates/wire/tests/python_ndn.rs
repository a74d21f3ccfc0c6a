//! Vectors encoded by python-ndn 0.5.2 (tests/vectors/make_python_ndn.py): decode each, compare
//! with what python-ndn was asked to encode, check digests, and re-encode where our encoder makes
//! the same choices.

use ndncc_wire::{
    Component, Data, DataView, Frame, Interest, InterestView, LpPacketView, MetaInfo, Name,
    NameView, NetPacket,
};
use serde_json::Value;

mod common;
use common::hex;

fn vectors() -> Vec<Value> {
    common::json_lines(include_str!("vectors/python_ndn_0.5.2.jsonl"))
}

fn opt_u64(v: &Value) -> Option<u64> {
    v.as_u64()
}

#[test]
fn all_python_ndn_vectors() {
    let mut counts = std::collections::BTreeMap::new();
    for v in vectors() {
        let kind = v["kind"].as_str().unwrap();
        let desc = v["desc"].as_str().unwrap();
        let wire = hex(v["hex"].as_str().unwrap());
        *counts.entry(kind.to_string()).or_insert(0) += 1;
        match kind {
            "name" => {
                let uri = v["uri"].as_str().unwrap();
                let view = NameView::decode(&wire).unwrap();
                assert_eq!(view.to_string(), uri, "{desc}");
                let ours = Name::from_uri(desc).unwrap();
                assert_eq!(ours.to_wire(), wire, "{desc}");
            }
            "interest" => {
                let i = InterestView::decode(&wire).unwrap_or_else(|e| panic!("{desc}: {e}"));
                let uri = v["uri"].as_str().unwrap();
                let name = i.name.to_owned();
                let app = v["app_param"].as_str().map(hex);
                if app.is_some() {
                    // python-ndn appends the ParametersSha256Digest component.
                    assert!(name
                        .to_string()
                        .starts_with(&format!("{uri}/params-sha256=")));
                } else {
                    assert_eq!(name.to_string(), uri, "{desc}");
                }
                assert_eq!(i.can_be_prefix, v["can_be_prefix"].as_bool().unwrap());
                assert_eq!(i.must_be_fresh, v["must_be_fresh"].as_bool().unwrap());
                assert_eq!(i.nonce.map(u64::from), opt_u64(&v["nonce"]), "{desc}");
                assert_eq!(i.lifetime, opt_u64(&v["lifetime"]), "{desc}");
                assert_eq!(i.hop_limit.map(u64::from), opt_u64(&v["hop_limit"]));
                let hints: Vec<String> = i.forwarding_hint().map(|n| n.to_string()).collect();
                let want: Vec<String> = v["forwarding_hint"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| h.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(hints, want, "{desc}");
                assert_eq!(i.app_params.map(<[u8]>::to_vec), app, "{desc}");
                // Our encoder makes the same choices: byte-identical.
                let owned = i.to_owned();
                assert_eq!(owned.encode().unwrap(), wire, "{desc}");
                let rebuilt = Interest {
                    name: Name::from_uri(uri).unwrap(),
                    can_be_prefix: i.can_be_prefix,
                    must_be_fresh: i.must_be_fresh,
                    forwarding_hint: want.iter().map(|h| Name::from_uri(h).unwrap()).collect(),
                    nonce: i.nonce,
                    lifetime: i.lifetime,
                    hop_limit: i.hop_limit,
                    app_params: i.app_params.map(<[u8]>::to_vec),
                    signature: None,
                };
                assert_eq!(rebuilt.encode().unwrap(), wire, "{desc}");
            }
            "data" => {
                let d = DataView::decode(&wire).unwrap_or_else(|e| panic!("{desc}: {e}"));
                d.verify_digest_sha256().unwrap();
                assert_eq!(d.name.to_string(), v["uri"].as_str().unwrap());
                assert_eq!(
                    d.content.map(<[u8]>::to_vec),
                    v["content"].as_str().map(hex)
                );
                assert_eq!(d.content_type, opt_u64(&v["content_type"]), "{desc}");
                assert_eq!(d.freshness, opt_u64(&v["freshness"]), "{desc}");
                assert_eq!(
                    d.final_block_id.map(|c| c.to_string()),
                    v["final_block_id"].as_str().map(str::to_string)
                );
                assert_eq!(d.to_owned().encode(), wire, "{desc}");
                let rebuilt = Data {
                    name: Name::from_uri(v["uri"].as_str().unwrap()).unwrap(),
                    meta: Some(MetaInfo {
                        content_type: d.content_type,
                        freshness: d.freshness,
                        final_block_id: d
                            .final_block_id
                            .map(|c| Component::from_uri(&c.to_string()).unwrap()),
                    }),
                    content: d.content.map(<[u8]>::to_vec),
                    ..Data::default()
                };
                assert_eq!(rebuilt.encode(), wire, "{desc}");
            }
            "data_unsigned" => assert!(DataView::decode(&wire).is_err()),
            "nack" => {
                let f = Frame::decode(&wire).unwrap();
                let lp = f.lp.unwrap();
                let reason = lp.nack.unwrap().reason.unwrap();
                assert_eq!(reason.code(), v["reason"].as_u64().unwrap());
                assert_eq!(
                    lp.fragment.unwrap(),
                    hex(v["interest_hex"].as_str().unwrap())
                );
                assert!(matches!(f.net, Some(NetPacket::Interest(_))));
                assert_eq!(lp.to_owned().encode().unwrap(), wire);
            }
            "lp" => {
                let lp = LpPacketView::decode(&wire).unwrap();
                assert_eq!(lp.pit_token.unwrap(), hex(v["pit_token"].as_str().unwrap()));
                assert_eq!(lp.congestion_mark, opt_u64(&v["congestion_mark"]));
                let frag = lp.fragment.unwrap();
                assert_eq!(frag, hex(v["fragment"].as_str().unwrap()));
                DataView::decode(frag)
                    .unwrap()
                    .verify_digest_sha256()
                    .unwrap();
                assert_eq!(lp.to_owned().encode().unwrap(), wire);
            }
            other => panic!("unknown vector kind {other}"),
        }
    }
    assert_eq!(counts.values().sum::<usize>(), 24, "{counts:?}");
}
