//! Where a chunked consumer's re-expressions go, hop by hop: for a resolved spec (JSON) and the
//! node names to watch, counts every chunk Interest each watched node sends (first or again,
//! nonces, requested segments), every Data segment it receives (unsolicited, duplicate) and every
//! Data segment that leaves it on each face (duplicates of a (chunk, offset) already sent there).
//! `cargo run --release -p ndncc-sim --example dup_probe -- spec.json B C`
//! (spec.json from `Scenario.load(...).with_overrides(...).to_json()`). A diagnostic only: it
//! replaces the watched nodes' router modules, so use it on scenarios whose routers have none.
use ndncc_core::face::Face;
use ndncc_core::packet::{Data, Interest, Packet};
use ndncc_core::schemes::{InterestVerdict, RouterHooks};
use ndncc_core::{FaceId, Instant, NameId};
use ndncc_sim::{run_with, Parts, RunOptions, ScenarioSpec};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

#[derive(Default, Debug)]
struct Counts {
    interests_out: u64,
    reexpressions_out: u64,
    reexpressions_new_nonce: u64,
    reexpression_segments: u64,
    data_in: u64,
    data_in_unsolicited: u64,
    data_in_dup: u64,
    data_out: HashMap<u32, (u64, u64)>, // face -> (segments, duplicate segments)
}

#[derive(Default, Debug)]
struct Probe {
    c: Counts,
    sent: HashMap<u64, Vec<u32>>,  // chunk -> nonces sent upstream
    got: HashSet<(u64, u32)>,      // (chunk, offset) received
    out: HashSet<(u32, u64, u32)>, // (face, chunk, offset) sent downstream
}

#[derive(Debug)]
struct Hook(Arc<Mutex<Probe>>);

impl RouterHooks for Hook {
    fn on_interest_out(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _prefix: NameId,
        i: &Interest,
        _faces: &[Face],
    ) -> InterestVerdict {
        let p = &mut *self.0.lock().unwrap();
        let seq = i.name.seq.unwrap_or(u64::MAX);
        p.c.interests_out += 1;
        let nonces = p.sent.entry(seq).or_default();
        if !nonces.is_empty() {
            p.c.reexpressions_out += 1;
            if !nonces.contains(&i.nonce) {
                p.c.reexpressions_new_nonce += 1;
            }
            p.c.reexpression_segments += i.ext.chunk().map_or(1, |c| c.mask.count_ones() as u64);
        }
        nonces.push(i.nonce);
        InterestVerdict::Admit
    }
    fn on_data_in(
        &mut self,
        _now: Instant,
        _face: FaceId,
        _prefix: NameId,
        d: &mut Data,
        sent: Option<Instant>,
        _faces: &[Face],
    ) {
        let mut p = self.0.lock().unwrap();
        p.c.data_in += 1;
        if sent.is_none() {
            p.c.data_in_unsolicited += 1;
        }
        let key = (
            d.name.seq.unwrap_or(u64::MAX),
            d.ext.segment.map_or(0, |s| s.index),
        );
        if !p.got.insert(key) {
            p.c.data_in_dup += 1;
        }
    }
    fn on_enqueue(&mut self, _now: Instant, face: FaceId, pk: &mut Packet, _f: &[Face]) -> bool {
        if let Packet::Data(d) = pk {
            let mut p = self.0.lock().unwrap();
            let key = (
                face.0,
                d.name.seq.unwrap_or(u64::MAX),
                d.ext.segment.map_or(0, |s| s.index),
            );
            let dup = !p.out.insert(key);
            let e = p.c.data_out.entry(face.0).or_default();
            e.0 += 1;
            e.1 += u64::from(dup);
        }
        true
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("spec.json");
    let spec = ScenarioSpec::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let names: Vec<String> = args.collect();
    let mut parts = Parts::default();
    let mut probes = Vec::new();
    for n in &names {
        let idx = spec
            .nodes
            .iter()
            .position(|s| &s.name == n)
            .unwrap_or_else(|| panic!("no node {n}"));
        let p = Arc::new(Mutex::new(Probe::default()));
        parts.modules.push((idx, Box::new(Hook(p.clone()))));
        probes.push((n.clone(), p));
    }
    let out = run_with(&spec, &RunOptions::default(), parts, &mut |_| true).unwrap();
    for (n, p) in probes {
        println!("{n}: {:?}", p.lock().unwrap().c);
    }
    for a in &out.summary.apps {
        println!(
            "app {}: completed {} timeouts {} retx {} data_received {}",
            a.name, a.completed, a.timeouts, a.retransmissions, a.data_received
        );
    }
}
