//! The summary and the metadata as JSON, on two threads for large runs.
//!
//! The output is exactly `serde_json::to_string` of each (a test checks it). At 10 000 pairs
//! the two are 32 MB (summary 24.7 MB, of which the faces' records are 19.8 MB; metadata
//! 7.9 MB). Serialized one after the other they take ≈ 60 ms; with `parallel`, one thread
//! writes the summary's records before the faces and the first part of the faces, the other
//! the metadata and the rest of the faces (split so that both write about as much), and the
//! two pieces of the faces' array are joined. Buffers are sized from the records' usual sizes,
//! so they are not copied as they grow.
//!
//! The binding serializes on one thread: two pay when the process has run before (the
//! `serialize` example: 0.07 against 0.09 s at 10 000 pairs), not in a fresh process like
//! `ndncc bench`'s worker, where the second thread's arena takes its pages new
//! (`benches/README.md`, eighth sitting).

use crate::output::Meta;
use crate::summary::{FaceSummary, Summary};
use serde::Serialize;

type Json = serde_json::Result<String>;

/// `(summary, metadata)` as JSON; with `parallel`, on two threads (see the module's doc).
/// `summary` is left as it was (its faces are moved out and back).
pub fn summary_and_meta(summary: &mut Summary, meta: &Meta, parallel: bool) -> (Json, Json) {
    if !parallel {
        return (to_json(summary, 0), to_json(meta, 0));
    }
    // usual sizes at 10 000 pairs: a face's summary ≈ 330 B, a consumer's ≈ 390, a producer's
    // ≈ 90; metadata: a face ≈ 110, an app ≈ 65, a node ≈ 10 (hints, rounded up)
    const FACE: usize = 384;
    let head = summary.apps.len() * 448 + summary.producers.len() * 128 + 256;
    let meta_cap = meta.faces.len() * 128 + meta.apps.len() * 96 + meta.nodes.len() * 16 + 64;
    let n = summary.faces.len();
    // faces for this thread: head + mine = meta + theirs, mine + theirs = n faces
    let mine = ((meta_cap + n * FACE).saturating_sub(head) / 2 / FACE).min(n);
    split(summary, meta, mine, [head + n * FACE, meta_cap])
}

/// [`summary_and_meta`] on two threads, this one writing the first `mine` faces; `caps`: the
/// buffers' initial capacities.
fn split(summary: &mut Summary, meta: &Meta, mine: usize, caps: [usize; 2]) -> (Json, Json) {
    let faces = std::mem::take(&mut summary.faces);
    let (s, m) = std::thread::scope(|sc| {
        let other = sc.spawn(|| (to_json(meta, caps[1]), elements(&faces[mine..])));
        let s = head_and_faces(summary, &faces[..mine], caps[0]);
        let (m, rest) = other.join().expect("serializer thread panicked");
        (join_faces(s, rest), m)
    });
    summary.faces = faces;
    (s, m)
}

/// The faces' array is where the summary (without faces) has `"faces":[]`: before the last
/// field, `fairness_jain` (an unescaped `,"` never occurs inside a JSON string).
const EMPTY_FACES: &[u8] = b",\"faces\":[],\"fairness_jain\":";

/// The summary without faces, cut where its faces go: (the JSON up to and including
/// `,"faces":[` followed by the elements of `faces`, the JSON after the faces' array).
fn head_and_faces(
    summary: &Summary,
    faces: &[FaceSummary],
    cap: usize,
) -> serde_json::Result<(Vec<u8>, Vec<u8>)> {
    debug_assert!(summary.faces.is_empty());
    let mut buf = Vec::with_capacity(cap);
    serde_json::to_writer(&mut buf, summary)?;
    let at = buf
        .windows(EMPTY_FACES.len())
        .rposition(|w| w == EMPTY_FACES)
        .expect("a summary has faces before fairness_jain");
    let tail = buf[at + b",\"faces\":[".len()..].to_vec(); // `],"fairness_jain":…}`
    buf.truncate(at + b",\"faces\":[".len());
    write_elements(&mut buf, faces)?;
    Ok((buf, tail))
}

/// `prefix` (ending in the first faces' elements), a comma, the other faces' elements, `tail`.
fn join_faces(
    prefix: serde_json::Result<(Vec<u8>, Vec<u8>)>,
    rest: serde_json::Result<Vec<u8>>,
) -> Json {
    let (mut buf, tail) = prefix?;
    let rest = rest?;
    if !rest.is_empty() {
        if buf.last() != Some(&b'[') {
            buf.push(b',');
        }
        buf.extend_from_slice(&rest);
    }
    buf.extend_from_slice(&tail);
    Ok(String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

/// The JSON of `faces`' elements, comma-separated, without brackets.
fn elements(faces: &[FaceSummary]) -> serde_json::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(faces.len() * 384);
    write_elements(&mut buf, faces)?;
    Ok(buf)
}

fn write_elements(buf: &mut Vec<u8>, faces: &[FaceSummary]) -> serde_json::Result<()> {
    for (i, f) in faces.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        serde_json::to_writer(&mut *buf, f)?;
    }
    Ok(())
}

fn to_json<T: Serialize>(v: &T, cap: usize) -> Json {
    let mut buf = Vec::with_capacity(cap.max(128));
    serde_json::to_writer(&mut buf, v)?;
    Ok(String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run, RunOptions, ScenarioSpec};

    fn outputs(nodes: usize) -> (Summary, Meta) {
        // a line of `nodes` nodes, a consumer at one end, the producer at the other
        let names: Vec<String> = (0..nodes)
            .map(|i| format!("{{\"name\": \"n\\\"{i}\"}}"))
            .collect();
        let links: Vec<String> = (1..nodes)
            .map(|i| {
                format!(
                    "{{\"a\": {}, \"b\": {i}, \"bandwidth_bps\": 1000000, \"delay_ns\": 1000}}",
                    i - 1
                )
            })
            .collect();
        let text = format!(
            r#"{{"name": "s,\"faces\":[],\"fairness_jain\":", "duration_ns": 100000000,
            "routing": {{"mode": "shortest"}}, "nodes": [{}], "links": [{}],
            "apps": [{{"name": "c", "node": 0, "app": {{"kind": "consumer", "prefix": "/p",
                       "controller": {{"type": "constant_rate", "rate": 100.0}}}}}},
                     {{"name": "p", "node": {}, "app": {{"kind": "producer", "prefix": "/p",
                       "payload_size": 100}}}}]}}"#,
            names.join(","),
            links.join(","),
            nodes - 1
        );
        let spec = ScenarioSpec::from_json(&text).unwrap();
        let out = run(&spec, &RunOptions::default(), &mut |_| true).unwrap();
        (out.summary, out.meta)
    }

    #[test]
    fn the_parallel_json_is_serde_jsons() {
        // 1 node: no faces but the apps'; 2: one face per side; 40: many
        for nodes in [1, 2, 3, 40] {
            let (mut summary, meta) = if nodes == 1 {
                let (mut s, m) = outputs(2);
                s.faces.clear();
                (s, m)
            } else {
                outputs(nodes)
            };
            let want = (
                serde_json::to_string(&summary).unwrap(),
                serde_json::to_string(&meta).unwrap(),
            );
            let before = summary.clone();
            for parallel in [false, true] {
                let (s, m) = summary_and_meta(&mut summary, &meta, parallel);
                assert_eq!(s.unwrap(), want.0, "{nodes} nodes, parallel {parallel}");
                assert_eq!(m.unwrap(), want.1);
                assert_eq!(summary, before);
            }
            // every split of the faces between the threads
            for mine in 0..=summary.faces.len() {
                let (s, m) = split(&mut summary, &meta, mine, [0, 0]);
                assert_eq!(s.unwrap(), want.0, "{nodes} nodes, {mine} faces here");
                assert_eq!(m.unwrap(), want.1);
            }
        }
    }
}
