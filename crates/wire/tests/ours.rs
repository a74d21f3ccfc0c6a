//! Golden vectors of our own encoder (tests/vectors/ours.jsonl). The test fails when the
//! encoding changes (set NDNCC_WIRE_BLESS=1 to rewrite the file);
//! tests/vectors/check_ours_with_python_ndn.py decodes the same file with python-ndn 0.5.2.

use ndncc_wire::lp::SegmentInfo;
use ndncc_wire::{Component, Data, Interest, LpExt, LpPacket, MetaInfo, Nack, NackReason, Name};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn golden() -> String {
    let name = |s: &str| Name::from_uri(s).unwrap();
    let interest = Interest {
        lifetime: Some(1000),
        can_be_prefix: true,
        hop_limit: Some(7),
        ..Interest::new(name("/ndncc/flow/seq=3"), 0x0102_0304)
    };
    let interest_wire = interest.encode().unwrap();
    let params = Interest {
        app_params: Some(b"hello".to_vec()),
        forwarding_hint: vec![name("/hint")],
        ..Interest::new(name("/p/q"), 5)
    };
    let data = Data {
        meta: Some(MetaInfo {
            freshness: Some(100),
            final_block_id: Some(Component::segment(3)),
            ..MetaInfo::default()
        }),
        ..Data::new(name("/ndncc/d/seg=1"), b"content".to_vec())
    };
    let data_wire = data.encode();
    let nack = LpPacket {
        nack: Some(Nack {
            reason: Some(NackReason::Congestion),
        }),
        ..LpPacket::wrap(interest_wire.clone())
    };
    let ext = LpPacket {
        pit_token: Some(vec![1, 2, 3, 4, 5, 6]),
        congestion_mark: Some(1),
        ext: LpExt {
            rate_stamp: Some(2500.0),
            segment: Some(SegmentInfo { index: 0, count: 2 }),
            class: Some(1),
            hops: Some(2),
            chunk: None,
        },
        ..LpPacket::wrap(data_wire.clone())
    };
    let rows = [
        ("interest", "/ndncc/flow/seq=3", interest_wire),
        ("interest", "/p/q", params.encode().unwrap()),
        ("data", "/ndncc/d/seg=1", data_wire),
        ("nack", "50", nack.encode().unwrap()),
        (
            "lp_ext",
            "mark, pit token and our headers",
            ext.encode().unwrap(),
        ),
    ];
    rows.iter()
        .map(|(kind, desc, wire)| {
            format!(
                "{{\"desc\": \"{desc}\", \"hex\": \"{}\", \"kind\": \"{kind}\"}}\n",
                hex(wire)
            )
        })
        .collect()
}

#[test]
fn our_encoding_is_pinned() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/ours.jsonl");
    let now = golden();
    if std::env::var_os("NDNCC_WIRE_BLESS").is_some() {
        std::fs::write(path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        pinned, now,
        "encoding changed; NDNCC_WIRE_BLESS=1 rewrites {path}"
    );
}
