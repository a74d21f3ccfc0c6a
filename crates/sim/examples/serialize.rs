//! Times the serialization of a run's summary and metadata, one after the other against on two
//! threads (`ndncc_sim::serialize`), alternated 15 times on the same outputs; prints the
//! fastest and the median of each:
//! `cargo run --release -p ndncc-sim --example serialize -- spec.json`; with `once seq` or
//! `once par` after the spec, one serialization in a fresh process.
use ndncc_sim::{run, serialize, RunOptions, ScenarioSpec};
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let spec = ScenarioSpec::from_json(&text).unwrap();
    let mut out = run(
        &spec,
        &RunOptions {
            tables: false,
            ..Default::default()
        },
        &mut |_| true,
    )
    .unwrap();
    // `once seq|par`: one serialization in this (fresh) process, as the binding does
    if let Some(mode) = std::env::args().nth(3) {
        let t = Instant::now();
        let (s, m) = serialize::summary_and_meta(&mut out.summary, &out.meta, mode == "par");
        let n = s.unwrap().len() + m.unwrap().len();
        println!("{mode} once {:.4} ({n} B)", t.elapsed().as_secs_f64());
        return;
    }
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    // alternated, so that both see the same load
    for _ in 0..15 {
        for p in [false, true] {
            let t = Instant::now();
            let (s, m) = serialize::summary_and_meta(&mut out.summary, &out.meta, p);
            let n = s.unwrap().len() + m.unwrap().len();
            let e = t.elapsed().as_secs_f64();
            assert!(n > 0);
            if p {
                par.push(e)
            } else {
                seq.push(e)
            }
        }
    }
    seq.sort_by(f64::total_cmp);
    par.sort_by(f64::total_cmp);
    println!(
        "seq min {:.4} med {:.4}  par min {:.4} med {:.4}",
        seq[0], seq[7], par[0], par[7]
    );
}
