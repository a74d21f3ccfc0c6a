//! A fuzz-style test that runs on stable Rust in CI: a seeded random mutator over valid packets.
//! Every mutant must decode to `Ok` or `Err` (a panic fails the test and prints the input), and
//! whatever decodes must survive `to_owned → encode → decode` unchanged.
//!
//! `NDNCC_WIRE_FUZZ_ITERS` sets the number of mutants (default 1 000 000), `NDNCC_WIRE_FUZZ_SEED`
//! the mutator's seed (so long campaigns can run several distinct streams); the count run and the
//! time are printed (`cargo test --release -p ndncc-wire --test fuzz -- --nocapture`). The
//! corpus includes the NFD management vectors: ControlParameters, ControlResponse, command
//! Interests and status datasets go through `mgmt` and `dataset` too.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ndncc_wire::dataset::{self, GeneralStatus};
use ndncc_wire::lp::{ChunkRequest, SegmentInfo};
use ndncc_wire::mgmt::{Command, ControlParameters, ControlResponse};
use ndncc_wire::packet::element_len;
use ndncc_wire::reassembly::{fragment, Limits, Reassembled, Reassembler};
use ndncc_wire::{
    Component, Data, DataView, ExtTypes, Frame, Interest, InterestView, LpExt, LpPacket,
    LpPacketView, MetaInfo, Nack, NackReason, Name, NetPacket, Signature,
};

/// xorshift64*: small, seeded, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn corpus() -> Vec<Vec<u8>> {
    let name = |s: &str| Name::from_uri(s).unwrap();
    let mut out = Vec::new();
    let interest = Interest {
        name: name("/ndncc/flow/seq=12/v=3"),
        can_be_prefix: true,
        must_be_fresh: true,
        forwarding_hint: vec![name("/hint")],
        nonce: Some(0x1234_5678),
        lifetime: Some(2000),
        hop_limit: Some(9),
        app_params: None,
        signature: None,
    };
    out.push(interest.encode().unwrap());
    let with_params = Interest {
        app_params: Some(b"params".to_vec()),
        signature: Some((vec![0x1B, 0x01, 0x00], vec![0xAA; 32])),
        ..interest.clone()
    };
    out.push(with_params.encode().unwrap());
    out.push(Interest::new(name("/a"), 1).encode().unwrap());
    let data = Data {
        name: name("/ndncc/d/seg=4"),
        meta: Some(MetaInfo {
            content_type: Some(0),
            freshness: Some(1000),
            final_block_id: Some(Component::segment(9)),
        }),
        content: Some(b"payload bytes".to_vec()),
        signature: Signature::DigestSha256,
    };
    let data_wire = data.encode();
    out.push(data_wire.clone());
    out.push(
        Data {
            signature: Signature::Raw {
                info: vec![0x1B, 1, 3, 0x1C, 5, 0x07, 3, 0x08, 1, b'k', 0x80, 0],
                value: vec![7; 16],
            },
            ..data.clone()
        }
        .encode(),
    );
    let lp = LpPacket {
        sequence: Some(77),
        pit_token: Some(vec![1, 2, 3, 4, 5, 6]),
        nack: Some(Nack {
            reason: Some(NackReason::Congestion),
        }),
        incoming_face_id: Some(3),
        cache_policy: Some(1),
        congestion_mark: Some(1),
        acks: vec![1, 2],
        tx_sequence: Some(5),
        non_discovery: true,
        ext: LpExt {
            rate_stamp: Some(812.25),
            segment: Some(SegmentInfo { index: 1, count: 4 }),
            class: Some(1),
            chunk: Some(ChunkRequest {
                segments: 4,
                mask: 0b1011,
            }),
            hops: Some(3),
        },
        ..LpPacket::wrap(out[0].clone())
    };
    out.push(lp.encode().unwrap());
    out.push(
        LpPacket {
            congestion_mark: Some(1),
            ..LpPacket::wrap(data_wire.clone())
        }
        .encode()
        .unwrap(),
    );
    let big = Data::new(name("/big"), vec![0x5A; 900]).encode();
    out.extend(fragment(&big, &LpPacket::default(), 300, 40, &ExtTypes::default()).unwrap());
    let vectors = include_str!("vectors/python_ndn_0.5.2.jsonl")
        .lines()
        .chain(include_str!("vectors/python_ndn_mgmt_0.5.2.jsonl").lines());
    for line in vectors {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let h = v["hex"].as_str().unwrap();
        out.push(
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                .collect(),
        );
    }
    out
}

const INTERESTING: [u8; 10] = [0x00, 0x01, 0x05, 0x06, 0x07, 0x50, 0x64, 0xFD, 0xFE, 0xFF];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut m = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = m.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                m[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                m[i] = rng.next() as u8;
            }
            2 if len > 0 => {
                let i = rng.below(len);
                m[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            3 => {
                let i = rng.below(len + 1);
                m.insert(i, rng.next() as u8);
            }
            4 if len > 0 => {
                m.remove(rng.below(len));
            }
            5 => m.truncate(rng.below(len + 1)),
            6 if len > 1 => {
                let a = rng.below(len);
                let b = a + rng.below(len - a);
                let piece = m[a..=b.min(len - 1)].to_vec();
                let at = rng.below(len + 1);
                m.splice(at..at, piece);
            }
            7 if len > 2 => {
                // Nudge a byte that may be a TLV-LENGTH.
                let i = rng.below(len);
                m[i] = m[i].wrapping_add(if rng.below(2) == 0 { 1 } else { 255 });
            }
            _ => {
                // Grow a VAR-NUMBER into a longer (non-minimal or huge) form.
                if len > 0 {
                    let i = rng.below(len);
                    let wide = [0xFD, 0x00, m[i]];
                    m.splice(i..=i, wide);
                }
            }
        }
    }
    m
}

fn check_interest(i: &InterestView<'_>) {
    let owned = i.to_owned();
    let wire = owned.encode().expect("a decoded Interest re-encodes");
    let again = InterestView::decode(&wire).expect("re-encoded Interest decodes");
    assert_eq!(again.to_owned(), owned);
    check_name_uri(&owned.name);
}

fn check_data(d: &DataView<'_>) {
    let owned = d.to_owned();
    let wire = owned.encode();
    let again = DataView::decode(&wire).expect("re-encoded Data decodes");
    assert_eq!(again.to_owned(), owned);
    if owned.signature == Signature::DigestSha256 {
        again.verify_digest_sha256().expect("fresh digest verifies");
    }
    check_name_uri(&owned.name);
}

fn check_name_uri(n: &Name) {
    let uri = n.to_string();
    assert_eq!(
        &Name::from_uri(&uri).expect("printed URI parses"),
        n,
        "{uri}"
    );
}

fn check_lp(lp: &LpPacketView<'_>) {
    let owned = lp.to_owned();
    let wire = owned.encode().expect("a decoded LpPacket re-encodes");
    let again = LpPacketView::decode(&wire).expect("re-encoded LpPacket decodes");
    assert_eq!(again.to_owned(), owned);
}

/// The management decoders: whatever decodes re-encodes to a value that decodes the same.
fn check_mgmt(input: &[u8]) -> bool {
    let mut ok = false;
    if let Ok(p) = ControlParameters::decode(input) {
        assert_eq!(ControlParameters::decode(&p.encode()), Ok(p));
        ok = true;
    }
    if let Ok(r) = ControlResponse::decode(input) {
        assert_eq!(ControlResponse::decode(&r.encode()), Ok(r));
        ok = true;
    }
    if let Ok(g) = GeneralStatus::decode(input) {
        assert_eq!(GeneralStatus::decode(&g.encode()), Ok(g));
        ok = true;
    }
    if let Ok(faces) = dataset::decode_faces(input) {
        let mut again = Vec::new();
        faces.iter().for_each(|f| f.encode_to(&mut again));
        assert_eq!(dataset::decode_faces(&again), Ok(faces));
        ok = true;
    }
    if let Ok(fib) = dataset::decode_fib(input) {
        let mut again = Vec::new();
        fib.iter().for_each(|f| f.encode_to(&mut again));
        assert_eq!(dataset::decode_fib(&again), Ok(fib));
        ok = true;
    }
    if let Ok(rib) = dataset::decode_rib(input) {
        let mut again = Vec::new();
        rib.iter().for_each(|f| f.encode_to(&mut again));
        assert_eq!(dataset::decode_rib(&again), Ok(rib));
        ok = true;
    }
    if let Ok(sc) = dataset::decode_strategy_choices(input) {
        let mut again = Vec::new();
        sc.iter().for_each(|f| f.encode_to(&mut again));
        assert_eq!(dataset::decode_strategy_choices(&again), Ok(sc));
        ok = true;
    }
    ok
}

fn run_one(input: &[u8], reasm: &mut Reassembler, now: u64) -> bool {
    let _ = element_len(input, 9000);
    let mgmt_ok = check_mgmt(input);
    let Ok(frame) = Frame::decode(input) else {
        return mgmt_ok;
    };
    match frame.net {
        Some(NetPacket::Interest(i)) => {
            check_interest(&i);
            if let Ok(Some(cmd)) = Command::parse(&i) {
                if let Some(p) = cmd.params {
                    assert_eq!(ControlParameters::decode(&p.encode()), Ok(p));
                }
            }
        }
        Some(NetPacket::Data(d)) => check_data(&d),
        None => {}
    }
    if let Some(lp) = frame.lp {
        check_lp(&lp);
        if let Ok(Reassembled::Complete(done)) = reasm.receive(now, lp) {
            let _ = Frame::decode(&done.encode().expect("reassembled LpPacket encodes"));
        }
    }
    true
}

fn uri_alphabet(rng: &mut Rng) -> String {
    const PIECES: [&str; 16] = [
        "/",
        "/",
        "a",
        "%",
        "4",
        "1",
        "F",
        "=",
        ".",
        "seg",
        "v",
        "8",
        "32",
        "sha256digest",
        "%2E",
        "~",
    ];
    (0..rng.below(12))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

#[test]
fn seeded_mutation_fuzz() {
    let iters: usize = std::env::var("NDNCC_WIRE_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = std::env::var("NDNCC_WIRE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let corpus = corpus();
    let mut rng = Rng(seed | 1);
    let t0 = std::time::Instant::now();
    let mut reasm = Reassembler::new(Limits {
        max_partial: 8,
        max_frag_count: 8,
        max_packet_bytes: 4096,
        timeout_ns: 1000,
    });
    let mut decoded = 0usize;
    for n in 0..iters {
        let seed = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, seed);
        let ok = catch_unwind(AssertUnwindSafe(|| run_one(&input, &mut reasm, n as u64)));
        match ok {
            Ok(true) => decoded += 1,
            Ok(false) => {}
            Err(_) => panic!("iteration {n}: input {}", hex(&input)),
        }
        if n % 8 == 0 {
            let uri = uri_alphabet(&mut rng);
            let r = catch_unwind(|| {
                if let Ok(name) = Name::from_uri(&uri) {
                    check_name_uri(&name);
                }
            });
            assert!(r.is_ok(), "URI {uri:?}");
        }
    }
    println!(
        "wire fuzz: {iters} mutants of {} seeds (seed {seed:#x}), {decoded} decoded, {} URIs, \
         {:.1} s",
        corpus.len(),
        iters.div_ceil(8),
        t0.elapsed().as_secs_f64()
    );
    assert!(
        decoded > iters / 100,
        "the mutator should keep some inputs valid"
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
