//! Time-series tables: per-app, per-face and per-node rows every trace bin.

use super::World;
use crate::output::{Column, Table};
use ndncc_core::app::App;
use ndncc_core::face::FaceCounters;
use ndncc_core::forwarder::{NodeCounters, Strategy};
use ndncc_core::schemes::RouterModule;
use ndncc_core::{FaceId, Instant};

/// Time-series accumulation: cumulative counters at the previous sample, and the rows so far.
#[derive(Default)]
pub(super) struct Series {
    prev_face: Vec<Vec<FaceCounters>>,
    prev_node: Vec<(NodeCounters, u64, u64)>,
    prev_app: Vec<ndncc_core::app::ConsumerStats>,
    app: Cols<12>,
    face: Cols<25>,
    node: Cols<9>,
    /// The router modules' named face gauges: columns `scheme_<name>`, in the order the nodes
    /// first declare them, one value per face row (NaN where a module keeps none).
    gauges: FaceGauges,
}

/// Named gauge columns of the face table.
#[derive(Default)]
struct FaceGauges {
    names: Vec<&'static str>,
    /// Per node: for each column, the index of that gauge in its module's list (None: the
    /// module has no such gauge), derived once from the names.
    source_of: Vec<Vec<Option<usize>>>,
    values: Vec<Vec<f64>>,
    scratch: Vec<f64>,
}

impl FaceGauges {
    /// Learns every node's gauge names (once).
    fn declare(&mut self, nodes: &[ndncc_core::Node]) {
        for node in nodes {
            for n in own_gauges(node) {
                if !self.names.contains(&n) {
                    self.names.push(n);
                }
            }
        }
        self.source_of = nodes
            .iter()
            .map(|node| {
                let own = own_gauges(node);
                self.names
                    .iter()
                    .map(|c| own.iter().position(|n| n == c))
                    .collect()
            })
            .collect();
        self.values = vec![Vec::new(); self.names.len()];
    }

    /// Appends one face row: the module's and the strategy's gauges of `face` where they have
    /// them, NaN elsewhere.
    fn push(
        &mut self,
        node: usize,
        module: Option<&mut RouterModule>,
        strategy: &Strategy,
        now: Instant,
        face: FaceId,
    ) {
        let own = module.as_ref().map_or(0, |m| m.gauge_names().len());
        let theirs = strategy.gauge_names().len();
        self.scratch.clear();
        self.scratch.resize(own + theirs, f64::NAN);
        if let Some(m) = module.filter(|_| own > 0) {
            m.face_gauges(now, face, &mut self.scratch[..own]);
        }
        if theirs > 0 {
            strategy.face_gauges(face, &mut self.scratch[own..]);
        }
        for (column, source) in self.values.iter_mut().zip(&self.source_of[node]) {
            column.push(source.map_or(f64::NAN, |k| self.scratch[k]));
        }
    }

    fn into_columns(self) -> impl Iterator<Item = (String, Column)> {
        self.names
            .into_iter()
            .zip(self.values)
            .map(|(n, v)| (format!("scheme_{n}"), Column::F64(v)))
    }
}

/// A node's gauge names: its router module's, then its strategy's.
fn own_gauges(node: &ndncc_core::Node) -> Vec<&'static str> {
    let f = &node.fwd;
    let m = f.core.module().gauge_names().iter();
    m.chain(f.strategy.gauge_names()).copied().collect()
}

/// Row-major accumulation of numeric columns, all stored as f64 or u64 per column kind.
struct Cols<const N: usize> {
    f: [Vec<f64>; N],
    u: [Vec<u64>; N],
}

impl<const N: usize> Default for Cols<N> {
    fn default() -> Self {
        Cols {
            f: std::array::from_fn(|_| Vec::new()),
            u: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl<'a> World<'a> {
    pub(super) fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let s = &mut self.series;
        // apps (consumers only)
        if s.prev_app.len() < self.apps.len() {
            s.prev_app = vec![Default::default(); self.apps.len()];
        }
        for (i, loc) in self.apps.iter().enumerate() {
            let App::Consumer(c) = &self.nodes[loc.node as usize].apps[loc.slot as usize].app
            else {
                continue;
            };
            let st = c.stats;
            let p = s.prev_app[i];
            let a = &mut s.app;
            a.f[0].push(t);
            a.u[1].push(i as u64);
            a.u[2].push(st.interests_sent - p.interests_sent);
            a.u[3].push(st.retransmissions - p.retransmissions);
            a.u[4].push(st.data_received - p.data_received);
            a.u[5].push(st.data_bytes - p.data_bytes);
            a.u[6].push(st.nacks - p.nacks);
            a.u[7].push(st.timeouts - p.timeouts);
            a.f[8].push(c.target_rate().unwrap_or(f64::NAN));
            a.f[9].push(c.target_window().unwrap_or(f64::NAN));
            a.u[10].push(c.in_flight() as u64);
            a.f[11].push(c.rtt.srtt().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3));
            s.prev_app[i] = st;
        }
        // faces
        if s.prev_face.len() < self.nodes.len() {
            s.prev_face = self
                .nodes
                .iter()
                .map(|n| vec![FaceCounters::default(); n.fwd.faces().len()])
                .collect();
            s.prev_node = vec![(NodeCounters::default(), 0, 0); self.nodes.len()];
            s.gauges.declare(&self.nodes);
        }
        for (ni, node) in self.nodes.iter_mut().enumerate() {
            let (core, strategy) = (&mut node.fwd.core, &node.fwd.strategy);
            let (faces, mut module) = core.faces_and_module_mut();
            for (fi, face) in faces.iter_mut().enumerate() {
                let c = face.counters;
                let p = s.prev_face[ni][fi];
                let f = &mut s.face;
                f.f[0].push(t);
                f.u[1].push(ni as u64);
                f.u[2].push(face.id.ndnsim_id() as u64);
                let diffs = [
                    c.in_pkts[0] - p.in_pkts[0],
                    c.out_pkts[0] - p.out_pkts[0],
                    c.in_pkts[1] - p.in_pkts[1],
                    c.out_pkts[1] - p.out_pkts[1],
                    c.in_pkts[2] - p.in_pkts[2],
                    c.out_pkts[2] - p.out_pkts[2],
                    c.in_bytes[0] - p.in_bytes[0],
                    c.out_bytes[0] - p.out_bytes[0],
                    c.in_bytes[1] - p.in_bytes[1],
                    c.out_bytes[1] - p.out_bytes[1],
                    c.in_bytes[2] - p.in_bytes[2],
                    c.out_bytes[2] - p.out_bytes[2],
                    c.in_satisfied - p.in_satisfied,
                    c.in_timed_out - p.in_timed_out,
                    c.out_satisfied - p.out_satisfied,
                    c.out_timed_out - p.out_timed_out,
                    c.drops - p.drops,
                    c.drop_bytes - p.drop_bytes,
                    c.marks - p.marks,
                    face.queue_len() as u64,
                    face.queue_bytes(),
                    face.window_max_pkts,
                ];
                for (k, v) in diffs.into_iter().enumerate() {
                    f.u[3 + k].push(v);
                }
                s.gauges
                    .push(ni, module.as_deref_mut(), strategy, self.now, face.id);
                face.window_max_pkts = face.queue_len() as u64;
                s.prev_face[ni][fi] = c;
            }
            let nc = node.fwd.core.counters;
            let cs = node.fwd.core.cs();
            let (pn, ph, pm) = s.prev_node[ni];
            let n = &mut s.node;
            n.f[0].push(t);
            n.u[1].push(ni as u64);
            n.u[2].push(nc.satisfied - pn.satisfied);
            n.u[3].push(nc.timed_out - pn.timed_out);
            n.u[4].push(nc.rejected - pn.rejected);
            n.u[5].push(node.fwd.core.pit.len() as u64);
            n.u[6].push(cs.len() as u64);
            n.u[7].push(cs.hits - ph);
            n.u[8].push(cs.misses - pm);
            s.prev_node[ni] = (nc, cs.hits, cs.misses);
        }
    }

    pub(super) fn tables(&mut self) -> Vec<(String, Table)> {
        let s = std::mem::take(&mut self.series);
        let app = make_table(
            s.app,
            &[
                ("time_s", 'f'),
                ("app", 'i'),
                ("interests", 'u'),
                ("retransmissions", 'u'),
                ("data", 'u'),
                ("data_bytes", 'u'),
                ("nacks", 'u'),
                ("timeouts", 'u'),
                ("rate", 'f'),
                ("window", 'f'),
                ("in_flight", 'u'),
                ("srtt_ms", 'f'),
            ],
        );
        let face_cols = [
            ("time_s", 'f'),
            ("node", 'i'),
            ("face", 'i'),
            ("in_interests", 'u'),
            ("out_interests", 'u'),
            ("in_data", 'u'),
            ("out_data", 'u'),
            ("in_nacks", 'u'),
            ("out_nacks", 'u'),
            ("in_interest_bytes", 'u'),
            ("out_interest_bytes", 'u'),
            ("in_data_bytes", 'u'),
            ("out_data_bytes", 'u'),
            ("in_nack_bytes", 'u'),
            ("out_nack_bytes", 'u'),
            ("in_satisfied", 'u'),
            ("in_timed_out", 'u'),
            ("out_satisfied", 'u'),
            ("out_timed_out", 'u'),
            ("drops", 'u'),
            ("drop_bytes", 'u'),
            ("marks", 'u'),
            ("queue_pkts", 'u'),
            ("queue_bytes", 'u'),
            ("queue_max_pkts", 'u'),
        ];
        let mut face = make_table(s.face, &face_cols);
        face.columns.extend(s.gauges.into_columns());
        let node = make_table(
            s.node,
            &[
                ("time_s", 'f'),
                ("node", 'i'),
                ("satisfied", 'u'),
                ("timed_out", 'u'),
                ("rejected", 'u'),
                ("pit_entries", 'u'),
                ("cs_entries", 'u'),
                ("cs_hits", 'u'),
                ("cs_misses", 'u'),
            ],
        );
        let mut d_time = Vec::new();
        let mut d_app = Vec::new();
        let mut d_seq = Vec::new();
        let mut d_last = Vec::new();
        let mut d_full = Vec::new();
        let mut d_tx = Vec::new();
        let mut d_hops = Vec::new();
        for (i, loc) in self.apps.iter().enumerate() {
            if let App::Consumer(c) = &self.nodes[loc.node as usize].apps[loc.slot as usize].app {
                for r in &c.delays {
                    d_time.push(r.time.as_secs_f64());
                    d_app.push(i as u32);
                    d_seq.push(r.seq);
                    d_last.push(r.last_delay.as_secs_f64());
                    d_full.push(r.full_delay.as_secs_f64());
                    d_tx.push(r.transmissions);
                    d_hops.push(r.hops as u32);
                }
            }
        }
        let delays = Table {
            columns: vec![
                ("time_s".into(), Column::F64(d_time)),
                ("app".into(), Column::U32(d_app)),
                ("seq".into(), Column::U64(d_seq)),
                ("last_delay_s".into(), Column::F64(d_last)),
                ("full_delay_s".into(), Column::F64(d_full)),
                ("transmissions".into(), Column::U32(d_tx)),
                ("hop_count".into(), Column::U32(d_hops)),
            ],
        };
        vec![
            ("app_series".into(), app),
            ("face_series".into(), face),
            ("node_series".into(), node),
            ("delays".into(), delays),
        ]
    }
}

/// Turns accumulated columns into a table; kind 'f' = f64, 'u' = u64, 'i' = u32 (indices).
fn make_table<const N: usize>(mut cols: Cols<N>, spec: &[(&str, char)]) -> Table {
    let columns = spec
        .iter()
        .enumerate()
        .map(|(k, (name, kind))| {
            let col = match kind {
                'f' => Column::F64(std::mem::take(&mut cols.f[k])),
                'i' => Column::U32(cols.u[k].iter().map(|&x| x as u32).collect()),
                _ => Column::U64(std::mem::take(&mut cols.u[k])),
            };
            (name.to_string(), col)
        })
        .collect();
    Table { columns }
}
