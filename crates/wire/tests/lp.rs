//! NDNLPv2: headers, Nack, our extension headers, frames, fragmentation and reassembly.

use ndncc_wire::lp::{ChunkRequest, SegmentInfo};
use ndncc_wire::reassembly::{fragment, Limits, Reassembled, Reassembler};
use ndncc_wire::{
    Data, Error, ExtTypes, Frame, Interest, LpExt, LpPacket, LpPacketView, Nack, NackReason, Name,
    NetPacket,
};

fn interest() -> Vec<u8> {
    Interest::new(Name::from_uri("/ndncc/flow/seq=1").unwrap(), 7)
        .encode()
        .unwrap()
}

#[test]
fn every_header_round_trips() {
    let lp = LpPacket {
        sequence: Some(u64::MAX - 3),
        frag_index: None,
        frag_count: None,
        pit_token: Some(vec![1, 2, 3, 4, 5, 6]),
        nack: Some(Nack {
            reason: Some(NackReason::Congestion),
        }),
        incoming_face_id: Some(300),
        next_hop_face_id: Some(301),
        cache_policy: Some(1),
        congestion_mark: Some(1),
        acks: vec![5, 6, 7],
        tx_sequence: Some(99),
        non_discovery: true,
        prefix_announcement: None,
        ext: LpExt {
            rate_stamp: Some(1234.5),
            segment: Some(SegmentInfo { index: 2, count: 5 }),
            class: Some(1),
            chunk: Some(ChunkRequest {
                segments: 8,
                mask: 0b1010_1010,
            }),
            hops: Some(4),
        },
        fragment: Some(interest()),
    };
    let wire = lp.encode().unwrap();
    let v = LpPacketView::decode(&wire).unwrap();
    assert_eq!(v.to_owned(), lp);
    assert!(v.is_marked());
    let frame = Frame::decode(&wire).unwrap();
    assert!(frame.is_nack());
    assert!(matches!(frame.net, Some(NetPacket::Interest(_))));
    // Header types strictly increase up to the Fragment (Acks may repeat).
    let mut last = 0;
    let outer = ndncc_wire::tlv::Element::read_exact(&wire).unwrap();
    for e in outer.children() {
        let e = e.unwrap();
        if e.typ == 0x50 {
            break;
        }
        assert!(e.typ >= last, "{} after {last}", e.typ);
        last = e.typ;
    }
}

#[test]
fn hand_written_nack_and_mark() {
    // LpPacket { Nack { NackReason 150 }, Fragment { Interest /a nonce 0 } }.
    let interest = [
        0x05, 0x0B, 0x07, 0x03, 0x08, 0x01, b'a', 0x0A, 0x04, 0, 0, 0, 0,
    ];
    let mut wire = vec![
        0x64, 0, 0xFD, 0x03, 0x20, 0x05, 0xFD, 0x03, 0x21, 0x01, 150, 0x50,
    ];
    wire.push(interest.len() as u8);
    wire.extend_from_slice(&interest);
    wire[1] = (wire.len() - 2) as u8;
    let v = LpPacketView::decode(&wire).unwrap();
    assert_eq!(v.nack.unwrap().reason, Some(NackReason::NoRoute));
    assert_eq!(v.fragment, Some(&interest[..]));
    // CongestionMark 1 (type 832 = FD 0340), then a bare Data as the Fragment.
    let data = Data::new(Name::from_uri("/d").unwrap(), b"x".to_vec()).encode();
    let mut wire = vec![
        0x64,
        0,
        0xFD,
        0x03,
        0x40,
        0x01,
        0x01,
        0x50,
        data.len() as u8,
    ];
    wire.extend_from_slice(&data);
    wire[1] = (wire.len() - 2) as u8;
    let f = Frame::decode(&wire).unwrap();
    assert!(f.lp.unwrap().is_marked());
    assert!(matches!(f.net, Some(NetPacket::Data(_))));
}

#[test]
fn unknown_headers_follow_the_ndnlpv2_rule() {
    let frag = interest();
    let with = |typ: u16| {
        let mut w = vec![0x64, 0, 0xFD];
        w.extend_from_slice(&typ.to_be_bytes());
        w.extend_from_slice(&[1, 9, 0x50, frag.len() as u8]);
        w.extend_from_slice(&frag);
        w[1] = (w.len() - 2) as u8;
        w
    };
    // 956 (in range, low bits zero) is skipped; 957 and 960 are not ignorable.
    assert!(LpPacketView::decode(&with(956)).is_ok());
    assert_eq!(
        LpPacketView::decode(&with(957)),
        Err(Error::UnknownCritical(957))
    );
    assert_eq!(
        LpPacketView::decode(&with(960)),
        Err(Error::UnknownCritical(960))
    );
    // Our own headers are ignorable for others: a receiver configured with other types skips
    // them.
    let ours = LpPacket {
        ext: LpExt {
            rate_stamp: Some(10.0),
            ..LpExt::default()
        },
        ..LpPacket::wrap(frag.clone())
    }
    .encode()
    .unwrap();
    let other = ExtTypes {
        rate_stamp: 900,
        ..ExtTypes::default()
    };
    let v = LpPacketView::decode_with(&ours, &other).unwrap();
    assert_eq!(v.ext.rate_stamp, None);
    assert!(ExtTypes::default().validate().is_ok());
    assert!(ExtTypes {
        hop_count: 853,
        ..ExtTypes::default()
    }
    .validate()
    .is_err());
    assert!(ExtTypes {
        hop_count: 832,
        ..ExtTypes::default()
    }
    .validate()
    .is_err());
    assert!(ExtTypes {
        hop_count: 852,
        ..ExtTypes::default()
    }
    .validate()
    .is_err());
}

#[test]
fn bad_lp_packets_are_errors() {
    let frag = interest();
    let bad = [
        // PitToken of 33 bytes.
        LpPacket {
            pit_token: Some(vec![0; 33]),
            ..LpPacket::wrap(frag.clone())
        },
        LpPacket {
            ext: LpExt {
                rate_stamp: Some(f64::NAN),
                ..LpExt::default()
            },
            ..LpPacket::default()
        },
        LpPacket {
            ext: LpExt {
                chunk: Some(ChunkRequest {
                    segments: 65,
                    mask: 0,
                }),
                ..LpExt::default()
            },
            ..LpPacket::default()
        },
    ];
    for lp in bad {
        assert!(lp.encode().is_err(), "{lp:?}");
    }
    // A header after the Fragment; FragIndex ≥ FragCount; a Nack carrying a Data.
    let mut w = vec![0x64, 0, 0x50, 0x00, 0x51, 0x01, 0x01];
    w[1] = (w.len() - 2) as u8;
    assert!(LpPacketView::decode(&w).is_err());
    let mut w = vec![0x64, 0, 0x52, 0x01, 0x02, 0x53, 0x01, 0x02, 0x50, 0x00];
    w[1] = (w.len() - 2) as u8;
    assert!(LpPacketView::decode(&w).is_err());
    let data = Data::new(Name::from_uri("/d").unwrap(), vec![]).encode();
    let nack_data = LpPacket {
        nack: Some(Nack { reason: None }),
        ..LpPacket::wrap(data)
    }
    .encode()
    .unwrap();
    assert!(Frame::decode(&nack_data).is_err());
    // Out-of-order headers: CongestionMark before PitToken.
    let mut w = vec![0x64, 0, 0xFD, 0x03, 0x40, 0x01, 0x01, 0x62, 0x01, 0x07];
    w[1] = (w.len() - 2) as u8;
    assert_eq!(LpPacketView::decode(&w), Err(Error::OutOfOrder(0x62)));
}

#[test]
fn fragment_then_reassemble_in_any_order() {
    let data = Data::new(Name::from_uri("/big").unwrap(), vec![0xAB; 5000]).encode();
    let headers = LpPacket {
        pit_token: Some(vec![9; 6]),
        congestion_mark: Some(1),
        ..LpPacket::default()
    };
    let frags = fragment(&data, &headers, 1400, 1000, &ExtTypes::default()).unwrap();
    assert_eq!(frags.len(), 4);
    assert!(frags.iter().all(|f| f.len() <= 1400));
    let mut r = Reassembler::new(Limits::default());
    let order = [2usize, 0, 3, 0, 1];
    let mut done = None;
    for &i in &order {
        let v = LpPacketView::decode(&frags[i]).unwrap();
        assert!(Frame::decode(&frags[i]).unwrap().net.is_none());
        match r.receive(10, v).unwrap() {
            Reassembled::Complete(lp) => done = Some(lp),
            Reassembled::Pending => {}
            Reassembled::Whole(_) => panic!("fragments are not whole"),
        }
    }
    assert_eq!(r.stats.duplicates, 1);
    let lp = done.expect("complete");
    assert_eq!(lp.fragment.as_deref(), Some(&data[..]));
    assert_eq!(lp.pit_token, Some(vec![9; 6]));
    assert_eq!(lp.congestion_mark, Some(1));
    assert_eq!(r.pending(), 0);
    // Small packets pass through whole.
    let small = fragment(&interest(), &headers, 1400, 5, &ExtTypes::default()).unwrap();
    assert_eq!(small.len(), 1);
    let v = LpPacketView::decode(&small[0]).unwrap();
    assert!(matches!(r.receive(0, v), Ok(Reassembled::Whole(_))));
}

#[test]
fn reassembly_is_bounded() {
    let data = vec![0u8; 3000];
    let frags = fragment(&data, &LpPacket::default(), 500, 0, &ExtTypes::default()).unwrap();
    let limits = Limits {
        max_partial: 2,
        max_frag_count: 16,
        max_packet_bytes: 10_000,
        timeout_ns: 100,
    };
    let mut r = Reassembler::new(limits);
    // Three packets' first fragments: the oldest is evicted.
    for (k, base) in [0u64, 100, 200].into_iter().enumerate() {
        let again = fragment(&data, &LpPacket::default(), 500, base, &ExtTypes::default()).unwrap();
        let v = LpPacketView::decode(&again[0]).unwrap();
        assert_eq!(r.receive(k as u64, v), Ok(Reassembled::Pending));
    }
    assert_eq!((r.pending(), r.stats.evicted), (2, 1));
    assert_eq!(r.poll_timeout(), Some(101));
    r.on_timeout(150);
    assert_eq!((r.pending(), r.stats.timed_out), (0, 2));
    // Too large, too many fragments.
    let tight = Limits {
        max_packet_bytes: 1000,
        ..limits
    };
    let mut r = Reassembler::new(tight);
    let mut errors = 0;
    for f in &frags {
        if r.receive(0, LpPacketView::decode(f).unwrap()).is_err() {
            errors += 1;
        }
    }
    assert!(errors >= 1 && r.pending() <= 1);
    let many = fragment(
        &vec![0u8; 20_000],
        &LpPacket::default(),
        500,
        0,
        &ExtTypes::default(),
    )
    .unwrap();
    let mut r = Reassembler::new(limits);
    assert!(r
        .receive(0, LpPacketView::decode(&many[0]).unwrap())
        .is_err());
}

#[test]
fn stream_framing() {
    use ndncc_wire::packet::element_len;
    let i = interest();
    assert_eq!(element_len(&i, 9000), Ok(Some(i.len())));
    assert_eq!(element_len(&i[..1], 9000), Ok(None));
    assert_eq!(element_len(&i[..i.len() - 1], 9000), Ok(None));
    assert_eq!(element_len(&[], 9000), Ok(None));
    assert!(element_len(&[0x05, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF], 9000).is_err());
    assert!(element_len(&[0x00, 0x01], 9000).is_err());
}
