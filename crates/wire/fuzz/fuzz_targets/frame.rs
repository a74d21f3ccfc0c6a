#![no_main]
//! Any bytes: decode as a frame; whatever decodes must re-encode and decode to the same value.

use libfuzzer_sys::fuzz_target;
use ndncc_wire::{DataView, Frame, InterestView, LpPacketView, NetPacket};

fuzz_target!(|data: &[u8]| {
    let Ok(frame) = Frame::decode(data) else {
        return;
    };
    match frame.net {
        Some(NetPacket::Interest(i)) => {
            let owned = i.to_owned();
            let wire = owned.encode().unwrap();
            assert_eq!(InterestView::decode(&wire).unwrap().to_owned(), owned);
        }
        Some(NetPacket::Data(d)) => {
            let owned = d.to_owned();
            let wire = owned.encode();
            assert_eq!(DataView::decode(&wire).unwrap().to_owned(), owned);
        }
        None => {}
    }
    if let Some(lp) = frame.lp {
        let owned = lp.to_owned();
        let wire = owned.encode().unwrap();
        assert_eq!(LpPacketView::decode(&wire).unwrap().to_owned(), owned);
    }
});
