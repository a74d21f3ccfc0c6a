//! The summary and the metadata as JSON, written by hand: the same bytes as
//! `serde_json::to_string` of the same values (tested below, and by `examples/digest.rs` on
//! every run it digests), without serde's per-field work.
//!
//! Why: at 10 000 pairs the summary lists 60 000 faces of 20 fields each (32 MB of JSON with the
//! metadata). Through serde every key is a string escaped byte by byte and written in three
//! pieces — ≈ 5 300 instructions per face, 536 M for the whole output, more than half the event
//! loop's. Here a key is one copy of a literal. Values still follow serde_json exactly: numbers
//! as it writes them (floats through serde_json itself, non-finite ones as `null`), strings
//! escaped by serde_json unless they need no escaping.
//!
//! A field added to [`Summary`] or [`Meta`] must be added here too: the tests compare the two
//! writers on runs and on values with every optional field set and unset.

use crate::output::{AppMeta, FaceMeta, Meta};
use crate::summary::{ConsumerSummary, DelayStats, FaceSummary, ProducerSummary, Summary};

/// The summary as JSON, byte for byte `serde_json::to_string(summary)`.
pub fn summary(s: &Summary) -> String {
    let mut w = W(Vec::with_capacity(
        256 + 640 * s.apps.len() + 160 * s.producers.len() + 480 * s.faces.len(),
    ));
    w.raw("{\"scenario\":");
    w.str(&s.scenario);
    w.raw(",\"seed\":");
    w.u64(s.seed);
    w.raw(",\"run\":");
    w.u64(s.run);
    w.raw(",\"sim_time_s\":");
    w.f64(s.sim_time_s);
    w.raw(",\"events\":");
    w.u64(s.events);
    w.raw(",\"packet_hops\":");
    w.u64(s.packet_hops);
    w.raw(",\"link_losses\":");
    w.u64(s.link_losses);
    w.raw(",\"apps\":");
    w.list(&s.apps, consumer);
    w.raw(",\"producers\":");
    w.list(&s.producers, producer);
    w.raw(",\"faces\":");
    w.list(&s.faces, face_summary);
    w.raw(",\"fairness_jain\":");
    w.opt_f64(s.fairness_jain);
    w.raw("}");
    w.finish()
}

/// The metadata as JSON, byte for byte `serde_json::to_string(meta)`.
pub fn meta(m: &Meta) -> String {
    let mut w = W(Vec::with_capacity(
        64 + 24 * m.nodes.len() + 128 * m.faces.len() + 96 * m.apps.len(),
    ));
    w.raw("{\"nodes\":");
    w.list(&m.nodes, |w, n| w.str(n));
    w.raw(",\"faces\":");
    w.list(&m.faces, face_meta);
    w.raw(",\"apps\":");
    w.list(&m.apps, app_meta);
    w.raw("}");
    w.finish()
}

fn consumer(w: &mut W, c: &ConsumerSummary) {
    w.raw("{\"name\":");
    w.str(&c.name);
    w.raw(",\"node\":");
    w.str(&c.node);
    w.raw(",\"prefix\":");
    w.str(&c.prefix);
    for (key, v) in [
        (",\"interests_sent\":", c.interests_sent),
        (",\"data_received\":", c.data_received),
        (",\"nacks_received\":", c.nacks_received),
        (",\"timeouts\":", c.timeouts),
        (",\"retransmissions\":", c.retransmissions),
        (",\"data_bytes\":", c.data_bytes),
        (",\"requested\":", c.requested),
        (",\"completed\":", c.completed),
        (",\"max_burst\":", c.max_burst),
    ] {
        w.raw(key);
        w.u64(v);
    }
    w.raw(",\"active_time_s\":");
    w.f64(c.active_time_s);
    w.raw(",\"throughput_mbps\":");
    w.f64(c.throughput_mbps);
    w.raw(",\"delivery_ratio\":");
    w.opt_f64(c.delivery_ratio);
    w.raw(",\"loss_rate\":");
    w.opt_f64(c.loss_rate);
    w.raw(",\"delay_ms\":");
    delay_stats(w, &c.delay_ms);
    w.raw("}");
}

fn delay_stats(w: &mut W, d: &DelayStats) {
    w.raw("{\"mean\":");
    w.opt_f64(d.mean);
    w.raw(",\"std\":");
    w.opt_f64(d.std);
    w.raw(",\"p50\":");
    w.opt_f64(d.p50);
    w.raw(",\"p99\":");
    w.opt_f64(d.p99);
    w.raw("}");
}

fn producer(w: &mut W, p: &ProducerSummary) {
    w.raw("{\"name\":");
    w.str(&p.name);
    w.raw(",\"node\":");
    w.str(&p.node);
    w.raw(",\"prefix\":");
    w.str(&p.prefix);
    w.raw(",\"interests_received\":");
    w.u64(p.interests_received);
    w.raw(",\"data_sent\":");
    w.u64(p.data_sent);
    w.raw("}");
}

fn face_summary(w: &mut W, f: &FaceSummary) {
    w.raw("{\"node\":");
    w.str(&f.node);
    w.raw(",\"face\":");
    w.u64(f.face.into());
    w.raw(",\"descr\":");
    w.str(&f.descr);
    w.raw(",\"peer\":");
    match &f.peer {
        Some(p) => w.str(p),
        None => w.raw("null"),
    }
    for (key, v) in [
        (",\"in_interests\":", f.in_interests),
        (",\"out_interests\":", f.out_interests),
        (",\"in_data\":", f.in_data),
        (",\"out_data\":", f.out_data),
        (",\"in_nacks\":", f.in_nacks),
        (",\"out_nacks\":", f.out_nacks),
        (",\"in_bytes\":", f.in_bytes),
        (",\"out_bytes\":", f.out_bytes),
        (",\"out_interest_bytes\":", f.out_interest_bytes),
        (",\"out_data_bytes\":", f.out_data_bytes),
        (",\"out_nack_bytes\":", f.out_nack_bytes),
        (",\"drops\":", f.drops),
        (",\"drop_bytes\":", f.drop_bytes),
        (",\"marks\":", f.marks),
        (",\"max_queue_pkts\":", f.max_queue_pkts),
        (",\"max_queue_bytes\":", f.max_queue_bytes),
    ] {
        w.raw(key);
        w.u64(v);
    }
    w.raw("}");
}

fn face_meta(w: &mut W, f: &FaceMeta) {
    w.raw("{\"node\":");
    w.u64(f.node.into());
    w.raw(",\"face\":");
    w.u64(f.face.into());
    w.raw(",\"kind\":");
    w.str(f.kind);
    w.raw(",\"descr\":");
    w.str(&f.descr);
    for (key, v) in [
        (",\"peer\":", f.peer),
        (",\"link\":", f.link),
        (",\"app\":", f.app),
    ] {
        w.raw(key);
        match v {
            Some(v) => w.u64(v.into()),
            None => w.raw("null"),
        }
    }
    w.raw("}");
}

fn app_meta(w: &mut W, a: &AppMeta) {
    w.raw("{\"name\":");
    w.str(&a.name);
    w.raw(",\"node\":");
    w.u64(a.node.into());
    w.raw(",\"kind\":");
    w.str(a.kind);
    w.raw(",\"prefix\":");
    w.str(&a.prefix);
    w.raw("}");
}

/// A JSON byte buffer (only ever valid UTF-8: literals, digits and whole strings).
struct W(Vec<u8>);

impl W {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn u64(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.0.extend_from_slice(&digits[i..]);
    }

    /// serde_json's string: as is between quotes when nothing needs escaping (no quote,
    /// backslash or control character), else through serde_json's own escaping.
    fn str(&mut self, s: &str) {
        if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.0.push(b'"');
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(b'"');
        } else {
            serde_json::to_writer(&mut self.0, s).expect("a string serializes");
        }
    }

    /// serde_json's number (`null` when not finite).
    fn f64(&mut self, v: f64) {
        serde_json::to_writer(&mut self.0, &v).expect("a float serializes");
    }

    fn opt_f64(&mut self, v: Option<f64>) {
        match v {
            Some(v) => self.f64(v),
            None => self.raw("null"),
        }
    }

    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut W, &T)) {
        self.0.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.0.push(b',');
            }
            each(self, item);
        }
        self.0.push(b']');
    }

    fn finish(self) -> String {
        String::from_utf8(self.0).expect("only whole UTF-8 strings and ASCII are written")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delays(v: Option<f64>) -> DelayStats {
        DelayStats {
            mean: v,
            std: v.map(|x| x * 0.5),
            p50: v.map(|x| -x),
            p99: v,
        }
    }

    fn consumer(i: u64, ratio: Option<f64>, d: Option<f64>) -> ConsumerSummary {
        ConsumerSummary {
            name: format!("C{i}"),
            node: "n \"q\" \\ é \u{1}\n".into(),
            prefix: "/p/ü".into(),
            interests_sent: i,
            data_received: u64::MAX,
            nacks_received: 0,
            timeouts: 10,
            retransmissions: 1 << 40,
            data_bytes: 12_345_678_901,
            requested: 3,
            completed: 2,
            max_burst: 9,
            active_time_s: 0.1 + 0.2,
            throughput_mbps: f64::NAN,
            delivery_ratio: ratio,
            loss_rate: ratio.map(|r| 1.0 - r),
            delay_ms: delays(d),
        }
    }

    fn face(peer: Option<&str>, n: u64) -> FaceSummary {
        FaceSummary {
            node: "R1".into(),
            face: 256,
            descr: "netdev://[00:00:00:00:00:01]".into(),
            peer: peer.map(Into::into),
            in_interests: n,
            out_interests: n + 1,
            in_data: 0,
            out_data: 99,
            in_nacks: 1,
            out_nacks: 2,
            in_bytes: 1e15 as u64,
            out_bytes: 4,
            out_interest_bytes: 5,
            out_data_bytes: 6,
            out_nack_bytes: 7,
            drops: 8,
            drop_bytes: 9,
            marks: 10,
            max_queue_pkts: 11,
            max_queue_bytes: u64::MAX - 1,
        }
    }

    #[test]
    fn the_summary_is_serde_jsons_byte_for_byte() {
        let mut s = Summary {
            scenario: "s\t1".into(),
            seed: 7,
            run: 0,
            sim_time_s: 5.0,
            events: 1,
            packet_hops: 123_456_789,
            link_losses: 0,
            apps: vec![
                consumer(1, Some(0.25), Some(1e-7)),
                consumer(2, None, None),
                consumer(3, Some(f64::INFINITY), Some(123_456.789e10)),
            ],
            producers: vec![ProducerSummary {
                name: "P".into(),
                node: "\u{7f}x".into(),
                prefix: "/p".into(),
                interests_received: 4,
                data_sent: 5,
            }],
            faces: vec![face(Some("C1"), 0), face(None, 17)],
            fairness_jain: Some(0.999_999_999_999),
        };
        assert_eq!(summary(&s), serde_json::to_string(&s).unwrap());
        s.fairness_jain = None;
        s.apps.clear();
        s.faces.clear();
        assert_eq!(summary(&s), serde_json::to_string(&s).unwrap());
    }

    #[test]
    fn the_meta_is_serde_jsons_byte_for_byte() {
        let mut m = Meta {
            nodes: vec!["A".into(), "B\"".into()],
            faces: vec![
                FaceMeta {
                    node: 0,
                    face: 256,
                    kind: "net",
                    descr: "netdev://[00:00:00:00:00:01]".into(),
                    peer: Some(1),
                    link: Some(0),
                    app: None,
                },
                FaceMeta {
                    node: u32::MAX,
                    face: 257,
                    kind: "app",
                    descr: "appFace://".into(),
                    peer: None,
                    link: None,
                    app: Some(3),
                },
            ],
            apps: vec![AppMeta {
                name: "c\\".into(),
                node: 1,
                kind: "consumer",
                prefix: "/p".into(),
            }],
        };
        assert_eq!(meta(&m), serde_json::to_string(&m).unwrap());
        m.faces.clear();
        m.apps.clear();
        m.nodes.clear();
        assert_eq!(meta(&m), serde_json::to_string(&m).unwrap());
    }
}
