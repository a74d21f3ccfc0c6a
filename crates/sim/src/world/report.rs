//! The run's summary (per consumer, producer and face) and the metadata of faces and apps.

use super::build::app_prefix;
use super::World;
use crate::output::{AppMeta, FaceMeta, Meta};
use crate::spec::AppKind;
use crate::summary::{jain, ConsumerSummary, DelayStats, FaceSummary, ProducerSummary, Summary};
use ndncc_core::app::App;
use ndncc_core::face::FaceKind;

impl<'a> World<'a> {
    /// The summary and the metadata, in one pass over the faces (at 10 000 pairs each of the
    /// 60 000 faces is out of cache: a second pass would fetch them again).
    pub(super) fn report(&self) -> (Summary, Meta) {
        let (apps, producers) = self.app_summaries();
        let tputs: Vec<f64> = apps.iter().map(|c| c.throughput_mbps).collect();
        let (faces, face_meta) = self.faces();
        let summary = Summary {
            scenario: self.spec.name.clone(),
            seed: self.spec.seed,
            run: self.spec.run,
            sim_time_s: self.spec.duration_ns as f64 * 1e-9,
            events: self.processed,
            packet_hops: self.packet_hops,
            link_losses: self.link_losses,
            apps,
            producers,
            faces,
            fairness_jain: jain(&tputs),
        };
        let apps = self
            .spec
            .apps
            .iter()
            .map(|a| {
                let kind = match &a.app {
                    AppKind::Producer(_) => "producer",
                    AppKind::Consumer(_) => "consumer",
                };
                AppMeta {
                    name: a.name.clone(),
                    node: a.node as u32,
                    kind,
                    prefix: app_prefix(a).to_string(),
                }
            })
            .collect();
        let meta = Meta {
            nodes: self.spec.nodes.iter().map(|n| n.name.clone()).collect(),
            faces: face_meta,
            apps,
        };
        (summary, meta)
    }

    /// Every face's summary and metadata, node by node in face order.
    fn faces(&self) -> (Vec<FaceSummary>, Vec<FaceMeta>) {
        // one face per link end and per app (a capacity hint: the vectors are not regrown)
        let n = 2 * self.spec.links.len() + self.spec.apps.len();
        let (mut faces, mut metas) = (Vec::with_capacity(n), Vec::with_capacity(n));
        // (node, slot) -> global app index, for the app faces
        let global: rustc_hash::FxHashMap<(u32, u32), u32> = self
            .apps
            .iter()
            .enumerate()
            .map(|(g, l)| ((l.node, l.slot), g as u32))
            .collect();
        for (ni, node) in self.nodes.iter().enumerate() {
            let node_name = &self.spec.nodes[ni].name;
            for face in node.fwd.faces() {
                let c = &face.counters;
                let (kind, descr, peer, link, app) = match face.kind {
                    FaceKind::Net { peer, link } => (
                        "net",
                        mac_descr(link, self.spec.links[link as usize].a == ni),
                        Some(peer),
                        Some(link),
                        None,
                    ),
                    FaceKind::App { app } => {
                        let global = global.get(&(ni as u32, app)).copied();
                        ("app", "appFace://".to_string(), None, None, global)
                    }
                };
                faces.push(FaceSummary {
                    node: node_name.clone(),
                    face: face.id.ndnsim_id(),
                    descr: descr.clone(),
                    peer: peer.map(|p| self.spec.nodes[p as usize].name.clone()),
                    in_interests: c.in_pkts[0],
                    out_interests: c.out_pkts[0],
                    in_data: c.in_pkts[1],
                    out_data: c.out_pkts[1],
                    in_nacks: c.in_pkts[2],
                    out_nacks: c.out_pkts[2],
                    in_bytes: c.in_bytes.iter().sum(),
                    out_bytes: c.out_bytes.iter().sum(),
                    out_interest_bytes: c.out_bytes[0],
                    out_data_bytes: c.out_bytes[1],
                    out_nack_bytes: c.out_bytes[2],
                    drops: c.drops,
                    drop_bytes: c.drop_bytes,
                    marks: c.marks,
                    max_queue_pkts: face.max_pkts,
                    max_queue_bytes: face.max_bytes,
                });
                metas.push(FaceMeta {
                    node: ni as u32,
                    face: face.id.ndnsim_id(),
                    kind,
                    descr,
                    peer,
                    link,
                    app,
                });
            }
        }
        (faces, metas)
    }

    /// The consumers' and the producers' summaries, in app order.
    fn app_summaries(&self) -> (Vec<ConsumerSummary>, Vec<ProducerSummary>) {
        let duration = self.spec.duration_ns;
        let mut consumers = Vec::with_capacity(self.apps.len());
        let mut producers = Vec::with_capacity(self.apps.len());
        for (i, loc) in self.apps.iter().enumerate() {
            let a = &self.spec.apps[i];
            let node_name = self.spec.nodes[a.node].name.clone();
            match &self.nodes[loc.node as usize].apps[loc.slot as usize].app {
                App::Consumer(c) => {
                    let st = c.stats;
                    let stop = a.stop_ns.unwrap_or(duration).min(duration);
                    let active = stop.saturating_sub(a.start_ns) as f64 * 1e-9;
                    let mut delays: Vec<f64> = c
                        .delays
                        .iter()
                        .map(|d| d.full_delay.as_secs_f64() * 1e3)
                        .collect();
                    let ratio =
                        (st.requested > 0).then(|| st.completed as f64 / st.requested as f64);
                    consumers.push(ConsumerSummary {
                        name: a.name.clone(),
                        node: node_name,
                        prefix: app_prefix(a).to_string(),
                        interests_sent: st.interests_sent,
                        data_received: st.data_received,
                        nacks_received: st.nacks,
                        timeouts: st.timeouts,
                        retransmissions: st.retransmissions,
                        data_bytes: st.data_bytes,
                        marks: st.marks,
                        requested: st.requested,
                        completed: st.completed,
                        max_burst: st.max_burst,
                        active_time_s: active,
                        throughput_mbps: if active > 0.0 {
                            st.data_bytes as f64 * 8.0 / active / 1e6
                        } else {
                            0.0
                        },
                        delivery_ratio: ratio,
                        loss_rate: ratio.map(|r| 1.0 - r),
                        delay_ms: DelayStats::of(&mut delays),
                    });
                }
                App::Producer(p) => producers.push(ProducerSummary {
                    name: a.name.clone(),
                    node: node_name,
                    prefix: app_prefix(a).to_string(),
                    interests_received: p.stats.interests_received,
                    data_sent: p.stats.data_sent,
                }),
            }
        }
        (consumers, producers)
    }
}

/// ndnSIM-style net-device face description: one MAC per link end, numbered from 1.
fn mac_descr(link: u32, is_a: bool) -> String {
    // written by hand: `format!` with six `{:02x}` was a tenth of building a large network
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = 2 * link as u64 + if is_a { 1 } else { 2 };
    let mut s = String::with_capacity(28);
    s.push_str("netdev://[");
    for (i, byte) in n.to_be_bytes()[2..].iter().enumerate() {
        if i > 0 {
            s.push(':');
        }
        s.push(HEX[(byte >> 4) as usize] as char);
        s.push(HEX[(byte & 15) as usize] as char);
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn mac_descr_is_ndnsims() {
        assert_eq!(super::mac_descr(0, true), "netdev://[00:00:00:00:00:01]");
        assert_eq!(super::mac_descr(0, false), "netdev://[00:00:00:00:00:02]");
        assert_eq!(
            super::mac_descr(200_000, false),
            "netdev://[00:00:00:06:1a:82]"
        );
    }
}
