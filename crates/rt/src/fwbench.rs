//! A load generator for one forwarder (`ndncc bench forwarder`): a minimal producer and a
//! windowed consumer, each on its own connection and thread, exchange Interests and Data through
//! the forwarder as fast as it forwards them.
//!
//! The consumer keeps `window` Interests outstanding (a new one for every Data or timeout), the
//! producer answers each with `payload` bytes of Content (DigestSha256, PitToken echoed).
//! Counting starts after a warm-up and stops at the end of the run: exchanges per second (Data
//! received), Mbit/s of Data wire bytes and of payload, timeouts, and the mean RTT.

use crate::apps::register_prefix;
use crate::client_face::{ClientFace, Endpoint};
use ndncc_wire::{Component, Data, Frame, Interest, LpPacket, MetaInfo, Name, NetPacket};
use serde::Serialize;
use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Where the producer connects.
    pub producer: Endpoint,
    /// Where the consumer connects.
    pub consumer: Endpoint,
    /// Prefix of the run's names (make it unique per run).
    pub prefix: String,
    /// Interests outstanding.
    pub window: usize,
    /// Content bytes per Data.
    pub payload: usize,
    /// Measured time, after the warm-up.
    pub duration: Duration,
    pub warmup: Duration,
    /// An Interest unanswered this long is counted lost and replaced.
    pub timeout: Duration,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct BenchResult {
    /// Data received in the measured interval.
    pub exchanges: u64,
    pub exchanges_per_s: f64,
    /// Data wire bytes (the element as received, LpPacket included) per second, Mbit/s.
    pub wire_mbps: f64,
    /// Content bytes per second, Mbit/s.
    pub payload_mbps: f64,
    pub interests_sent: u64,
    pub timeouts: u64,
    /// Mean Interest→Data time in the measured interval, µs.
    pub mean_rtt_us: f64,
    /// The measured interval, s.
    pub elapsed_s: f64,
    /// Data the producer sent over the whole run (warm-up included).
    pub producer_data: u64,
    /// Packets neither side could decode.
    pub malformed: u64,
}

/// A tiny xorshift for nonces (the load generator needs no reproducible stream).
struct Nonces(u64);

impl Nonces {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

fn producer_loop(
    cfg: &BenchConfig,
    prefix: &Name,
    ready: mpsc::Sender<Result<(), String>>,
    stop: &AtomicBool,
) -> (u64, u64) {
    let mut face = match ClientFace::connect(&cfg.producer) {
        Ok(f) => f,
        Err(e) => {
            let _ = ready.send(Err(format!("producer: {e}")));
            return (0, 0);
        }
    };
    // the consumer starts after the answer: nothing else can arrive with it
    let mut rest = Vec::new();
    if let Err(e) = register_prefix(
        &mut face,
        &cfg.producer,
        prefix,
        Duration::from_secs(2),
        &mut rest,
    ) {
        let _ = ready.send(Err(format!("producer: {e}")));
        return (0, 0);
    }
    let _ = ready.send(Ok(()));
    let content = vec![0x5A; cfg.payload];
    let (mut sent, mut malformed) = (0u64, 0u64);
    let mut rx = Vec::new();
    let (mut out_batch, mut scratch) = (Vec::new(), Vec::new());
    while !stop.load(Ordering::Relaxed) {
        if face.recv(Duration::from_millis(20), &mut rx).is_err() {
            break;
        }
        // the answers to one read go out in one write (stream faces)
        for bytes in rx.drain(..) {
            let Ok(frame) = Frame::decode(&bytes) else {
                malformed += 1;
                continue;
            };
            let Some(NetPacket::Interest(i)) = frame.net else {
                continue;
            };
            let data = Data {
                name: i.name.to_owned(),
                meta: Some(MetaInfo::default()),
                content: Some(content.clone()),
                ..Data::default()
            }
            .encode();
            let token = frame.lp.and_then(|l| l.pit_token).map(<[u8]>::to_vec);
            let out = match token {
                Some(t) => LpPacket {
                    pit_token: Some(t),
                    ..LpPacket::wrap(data)
                }
                .encode()
                .unwrap_or_default(),
                None => data,
            };
            out_batch.push(out);
        }
        if face.send_many(&out_batch, &mut scratch).is_err() {
            return (sent, malformed);
        }
        sent += out_batch.len() as u64;
        out_batch.clear();
    }
    (sent, malformed)
}

/// Runs the producer and the consumer; `stop` ends the run early.
pub fn run(cfg: &BenchConfig, stop: &AtomicBool) -> Result<BenchResult, String> {
    if cfg.window == 0 || cfg.duration.is_zero() {
        return Err("window and duration must be positive".into());
    }
    let prefix = Name::from_uri(&cfg.prefix).map_err(|e| format!("prefix: {e}"))?;
    let producer_stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        let p = s.spawn(|| producer_loop(cfg, &prefix, tx, &producer_stop));
        let result = match rx.recv() {
            Ok(Ok(())) => consumer_loop(cfg, &prefix, stop).map_err(|e| format!("consumer: {e}")),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("producer thread ended".into()),
        };
        producer_stop.store(true, Ordering::Relaxed);
        let (sent, malformed) = p.join().unwrap_or((0, 0));
        result.map(|mut r| {
            r.producer_data = sent;
            r.malformed += malformed;
            r
        })
    })
}

/// Queues the Interest for `next_seq` in `batch` and records when.
/// The consumer's outstanding Interests: each new one is encoded into `batch` (sent at the
/// end of the turn) and remembered in `pending` with its sending instant.
struct Requests<'a> {
    prefix: &'a Name,
    lifetime: Duration,
    nonces: Nonces,
    pending: HashMap<u64, Instant>,
    next_seq: u64,
    batch: Vec<Vec<u8>>,
}

impl Requests<'_> {
    fn issue(&mut self) -> io::Result<()> {
        let i = Interest {
            name: self
                .prefix
                .clone()
                .with(Component::sequence_num(self.next_seq)),
            nonce: Some(self.nonces.next()),
            lifetime: Some(self.lifetime.as_millis() as u64),
            ..Interest::default()
        };
        self.batch.push(i.encode().map_err(io::Error::other)?);
        self.pending.insert(self.next_seq, Instant::now());
        self.next_seq += 1;
        Ok(())
    }
}

fn consumer_loop(cfg: &BenchConfig, prefix: &Name, stop: &AtomicBool) -> io::Result<BenchResult> {
    let mut face = ClientFace::connect(&cfg.consumer)?;
    // the Interests of one turn go out in one write (stream faces)
    let mut req = Requests {
        prefix,
        lifetime: cfg.timeout,
        nonces: Nonces(0x2545_F491_4F6C_DD1D ^ u64::from(std::process::id())),
        pending: HashMap::with_capacity(cfg.window * 2),
        next_seq: 0,
        batch: Vec::new(),
    };
    let mut scratch = Vec::new();
    let mut r = BenchResult::default();
    let (mut bytes_in, mut payload_in, mut rtt_sum) = (0u64, 0u64, 0f64);
    let t0 = Instant::now();
    let measure_from = t0 + cfg.warmup;
    let end = measure_from + cfg.duration;
    let mut measuring = false;
    for _ in 0..cfg.window {
        req.issue()?;
    }
    face.send_many(&req.batch, &mut scratch)?;
    req.batch.clear();
    let mut rx = Vec::new();
    let mut last_sweep = Instant::now();
    let mut sent_at_start = 0;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if !measuring && now >= measure_from {
            measuring = true;
            sent_at_start = req.next_seq;
        }
        face.recv(Duration::from_millis(10), &mut rx)?;
        let now = Instant::now();
        for bytes in rx.drain(..) {
            let Ok(frame) = Frame::decode(&bytes) else {
                r.malformed += 1;
                continue;
            };
            let Some(NetPacket::Data(d)) = frame.net else {
                continue;
            };
            let Some(seq) = d
                .name
                .last()
                .and_then(|c| c.number_of(ndncc_wire::tt::SEQUENCE_NUM_NAME_COMPONENT))
            else {
                continue;
            };
            let Some(sent) = req.pending.remove(&seq) else {
                continue;
            };
            if measuring {
                r.exchanges += 1;
                bytes_in += bytes.len() as u64;
                payload_in += d.content.map_or(0, <[u8]>::len) as u64;
                rtt_sum += now.duration_since(sent).as_secs_f64();
            }
            req.issue()?;
        }
        if now.duration_since(last_sweep) >= Duration::from_millis(50) {
            last_sweep = now;
            let expired: Vec<u64> = req
                .pending
                .iter()
                .filter(|(_, &t)| now.duration_since(t) >= cfg.timeout)
                .map(|(&s, _)| s)
                .collect();
            for seq in expired {
                req.pending.remove(&seq);
                if measuring {
                    r.timeouts += 1;
                }
                req.issue()?;
            }
        }
        face.send_many(&req.batch, &mut scratch)?;
        req.batch.clear();
    }
    let secs = Instant::now()
        .min(end)
        .saturating_duration_since(measure_from)
        .as_secs_f64()
        .max(1e-9);
    r.elapsed_s = secs;
    r.interests_sent = req.next_seq.saturating_sub(sent_at_start);
    r.exchanges_per_s = r.exchanges as f64 / secs;
    r.wire_mbps = bytes_in as f64 * 8.0 / secs / 1e6;
    r.payload_mbps = payload_in as f64 * 8.0 / secs / 1e6;
    r.mean_rtt_us = if r.exchanges > 0 {
        rtt_sum / r.exchanges as f64 * 1e6
    } else {
        0.0
    };
    Ok(r)
}
