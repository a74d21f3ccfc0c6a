use super::*;
use ndncc_core::name::NameId;
use ndncc_wire::{Frame, Name as WName, NetPacket};

fn name() -> Name {
    Name::new(NameId(3), 9)
}

fn wire_interest() -> Vec<u8> {
    let mut i = ndncc_wire::Interest::new(WName::from_uri("/p/seg=9").unwrap(), 0xdead_beef);
    i.lifetime = Some(1500);
    i.can_be_prefix = true;
    i.hop_limit = Some(7);
    i.encode().unwrap()
}

#[test]
fn interest_wire_to_core_and_back() {
    let types = ExtTypes::default();
    let lp = LpPacket {
        ext: LpExt {
            class: Some(1),
            chunk: Some(lp::ChunkRequest {
                segments: 4,
                mask: 0b1010,
            }),
            ..LpExt::default()
        },
        ..LpPacket::wrap(wire_interest())
    }
    .encode_with(&types)
    .unwrap();
    let f = Frame::decode_with(&lp, &types).unwrap();
    let Some(NetPacket::Interest(iv)) = f.net else {
        panic!()
    };
    let c = interest_to_core(&iv, f.lp.as_ref(), name(), iv.nonce.unwrap());
    assert_eq!(c.nonce, 0xdead_beef);
    assert_eq!(c.lifetime, Duration::from_millis(1500));
    assert!(c.can_be_prefix && !c.must_be_fresh);
    assert_eq!(c.hop_limit, Some(7));
    assert_eq!(c.size as usize, wire_interest().len());
    assert_eq!(c.ext.class, 1);
    assert_eq!(
        c.ext.chunk(),
        Some(ChunkRequest {
            segments: 4,
            mask: 0b1010
        })
    );
    // back: same headers, and the stored bytes unchanged when the core changed nothing
    let out = encode_interest(&wire_interest(), &c, None, &types).unwrap();
    assert_eq!(out, lp);
    // the core changed the nonce and hop limit: written back
    let mut c2 = c;
    c2.nonce = 42;
    c2.hop_limit = Some(6);
    c2.ext = InterestExt::default();
    let out = encode_interest(&wire_interest(), &c2, None, &types).unwrap();
    let iv = ndncc_wire::InterestView::decode(&out).unwrap();
    assert_eq!((iv.nonce, iv.hop_limit), (Some(42), Some(6)));
    assert_eq!(iv.name.to_string(), "/p/seg=9");
    assert_eq!(iv.lifetime, Some(1500));
}

#[test]
fn data_wire_to_core_and_back_keeps_the_signed_bytes() {
    let types = ExtTypes::default();
    let mut d = ndncc_wire::Data::new(WName::from_uri("/p/seg=9").unwrap(), vec![7u8; 100]);
    d.meta = Some(ndncc_wire::MetaInfo {
        freshness: Some(250),
        ..Default::default()
    });
    let bytes = d.encode();
    let lp = LpPacket {
        congestion_mark: Some(1),
        ext: LpExt {
            rate_stamp: Some(123.5),
            segment: Some(lp::SegmentInfo { index: 2, count: 4 }),
            hops: Some(3),
            class: Some(1),
            chunk: None,
        },
        ..LpPacket::wrap(bytes.clone())
    }
    .encode_with(&types)
    .unwrap();
    let f = Frame::decode_with(&lp, &types).unwrap();
    let Some(NetPacket::Data(dv)) = f.net else {
        panic!()
    };
    let c = data_to_core(&dv, f.lp.as_ref(), name(), Instant(5));
    assert_eq!(c.payload, 100);
    assert_eq!(c.size as usize, bytes.len());
    assert_eq!(c.freshness, Duration::from_millis(250));
    assert_eq!(c.created, Instant(5));
    assert!(c.ext.mark);
    assert_eq!(c.ext.rate_stamp, Some(123.5));
    assert_eq!(c.ext.segment, Some(SegmentInfo { index: 2, count: 4 }));
    assert_eq!((c.ext.hops, c.ext.class), (3, 1));
    assert_eq!(encode_data(&bytes, &c, None, &types).unwrap(), lp);
    // no header to carry: the Data goes bare, byte for byte
    let plain = Data {
        ext: DataExt::default(),
        ..c
    };
    assert_eq!(encode_data(&bytes, &plain, None, &types).unwrap(), bytes);
    // a PitToken forces the LpPacket and is echoed as given (any length, e.g. 8 bytes)
    let tok = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let out = encode_data(&bytes, &plain, Some(&tok), &types).unwrap();
    let f = Frame::decode_with(&out, &types).unwrap();
    assert_eq!(f.lp.unwrap().pit_token, Some(&tok[..]));
    assert!(
        ndncc_wire::DataView::decode(f.lp.unwrap().fragment.unwrap())
            .unwrap()
            .verify_digest_sha256()
            .is_ok()
    );
}

#[test]
fn nack_core_to_wire_and_back() {
    let types = ExtTypes::default();
    let stored = wire_interest();
    let iv = ndncc_wire::InterestView::decode(&stored).unwrap();
    let ci = interest_to_core(&iv, None, name(), 0xdead_beef);
    for r in [
        NackReason::NoRoute,
        NackReason::Congestion,
        NackReason::Duplicate,
    ] {
        let n = Nack {
            reason: r,
            interest: ci,
            size: ci.size + NACK_OVERHEAD,
        };
        let out = encode_nack(&stored, &n, Some(&[9; 6]), &types).unwrap();
        let f = Frame::decode_with(&out, &types).unwrap();
        assert!(f.is_nack());
        let l = f.lp.unwrap();
        assert_eq!(l.pit_token, Some(&[9u8; 6][..]));
        assert_eq!(reason_to_core(l.nack.unwrap().reason), r);
        let Some(NetPacket::Interest(back)) = f.net else {
            panic!()
        };
        let c = nack_to_core(
            interest_to_core(&back, Some(&l), name(), back.nonce.unwrap()),
            l.nack.unwrap().reason,
            out.len(),
        );
        assert_eq!(c.interest, ci);
        assert_eq!(c.reason, r);
    }
    assert_eq!(reason_to_core(None), NackReason::NoRoute);
    assert_eq!(
        reason_to_core(Some(lp::NackReason::Other(7))),
        NackReason::NoRoute
    );
}

#[test]
fn the_direct_token_frame_is_what_the_lp_encoder_writes() {
    // packet sizes across the 1-, 3- and 5-byte TLV length forms, tokens of 6, 32 and 1 bytes
    for size in [0usize, 1, 200, 252, 253, 1000, 65_535, 65_536, 70_000] {
        for tok in [vec![7u8; 6], vec![9u8; 32], vec![1u8]] {
            let net = vec![0xAB; size];
            let general = LpPacket {
                pit_token: Some(tok.clone()),
                fragment: Some(net.clone()),
                ..LpPacket::default()
            }
            .encode()
            .unwrap();
            assert_eq!(
                token_frame(&net, &tok),
                general,
                "size {size}, token {}",
                tok.len()
            );
        }
    }
}

#[test]
fn a_token_the_encoder_refuses_is_still_refused() {
    let d = ndncc_wire::Data::new(WName::from_uri("/p/seg=9").unwrap(), vec![1u8; 10]).encode();
    let core = Data {
        name: name(),
        payload: 10,
        size: d.len() as u32,
        freshness: Duration::ZERO,
        created: Instant::ZERO,
        ext: DataExt::default(),
    };
    let types = ExtTypes::default();
    assert!(encode_data(&d, &core, Some(&[5u8; 33]), &types).is_err());
    assert!(encode_data(&d, &core, Some(&[5u8; 6]), &types).is_ok());
}
