//! The real-time apps: the simulator's consumer and producer (`ndncc_core::app`), same
//! controller, same sending engine, driven by the OS clock and a [`ClientFace`] to a forwarder.
//!
//! Each app is a state machine stepped by [`ConsumerApp::step`] / [`ProducerApp::step`] for a
//! wall-clock budget, so a caller (the Python CLI) can look at signals between steps. Time is
//! nanoseconds since the app started. The engine sleeps in the socket's read timeout: the OS
//! clock with its real granularity, as `docs/realtime.md` describes.

use crate::app_series::AppSeries;
use crate::app_wire::{self, AppNames, ChunkWire};
use crate::client_face::{ClientFace, Endpoint};
use ndncc_core::app::{Consumer, ConsumerConfig, Producer, ProducerConfig};
use ndncc_core::pacing::ClockModel;
use ndncc_core::rng::{RngStream, StreamKind};
use ndncc_core::{Duration, Instant, Packet};
use ndncc_sim::engines::engine_from_spec;
use ndncc_sim::spec::{ConsumerSpec, ProducerSpec};
use ndncc_wire::mgmt::{CommandInterest, ControlParameters, ControlResponse, Scope};
use ndncc_wire::{Frame, Name, NetPacket};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::io;

/// The longest single wait: a step returns within this after its budget.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// Packets the apps could not use, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Not decodable (counted and dropped, never fatal).
    pub malformed: u64,
    /// Well formed but not for this app (another name, a Data to a producer, …).
    pub unexpected: u64,
}

fn elapsed(t0: std::time::Instant) -> Instant {
    Instant(t0.elapsed().as_nanos() as u64)
}

fn wait_until(now: Instant, next: Option<Instant>, end: std::time::Instant) -> std::time::Duration {
    let left = end.saturating_duration_since(std::time::Instant::now());
    let timer = next.map_or(MAX_WAIT, |t| {
        std::time::Duration::from_nanos(t.0.saturating_sub(now.0))
    });
    timer.min(MAX_WAIT).min(left)
}

/// Interest Nonces drawn from the OS (`/dev/urandom`, 1 024 at a time): a real run never
/// repeats another run's Nonces, whatever its seed — forwarders compare them against their
/// dead-nonce lists and PIT in-records, so a rerun with the seed's Nonces would be dropped as
/// a loop. The simulator keeps drawing Nonces from its seeded streams.
pub struct OsNonces {
    source: std::fs::File,
    buf: Box<[u8; 4096]>,
    at: usize,
}

impl OsNonces {
    pub fn new() -> io::Result<OsNonces> {
        let source = std::fs::File::open("/dev/urandom")
            .map_err(|e| io::Error::new(e.kind(), format!("/dev/urandom (for Nonces): {e}")))?;
        let buf = Box::new([0; 4096]);
        let at = buf.len();
        Ok(OsNonces { source, buf, at })
    }

    /// The next Nonce.
    pub fn next_nonce(&mut self) -> io::Result<u32> {
        use std::io::Read;
        if self.at + 4 > self.buf.len() {
            self.source.read_exact(&mut self.buf[..])?;
            self.at = 0;
        }
        let b = &self.buf[self.at..self.at + 4];
        self.at += 4;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// What both apps' wall-clock loop keeps: the face, the OS clock and the receive buffer.
struct Wall {
    face: ClientFace,
    /// The wall-clock start (time 0 of the model).
    t0: std::time::Instant,
    /// When the run ends (model time), if it has a duration.
    end: Option<Instant>,
    rx: Vec<Vec<u8>>,
    done: bool,
}

impl Wall {
    fn new(face: ClientFace, t0: std::time::Instant, duration: Option<Duration>) -> Wall {
        Wall {
            face,
            t0,
            end: duration.map(|d| Instant(d.0)),
            rx: Vec::new(),
            done: false,
        }
    }
}

/// The model side of an app, as the shared wall-clock loop ([`run_steps`]) drives it.
trait Stepped {
    fn wall(&mut self) -> &mut Wall;
    /// Over before its end (the consumer: every sequence number settled).
    fn over(&self) -> bool;
    fn stop(&mut self, now: Instant);
    fn poll_timeout(&self) -> Option<Instant>;
    fn on_timeout(&mut self, now: Instant);
    /// Sends what the model put out.
    fn flush(&mut self) -> io::Result<()>;
    /// One packet from the face.
    fn handle(&mut self, bytes: &[u8]);
}

/// Runs `app` for up to `budget` of wall time; true once the run is over (its end passed or
/// [`Stepped::over`]).
fn run_steps<A: Stepped>(app: &mut A, budget: std::time::Duration) -> io::Result<bool> {
    let end = std::time::Instant::now() + budget;
    while !app.wall().done {
        let now = elapsed(app.wall().t0);
        if app.wall().end.is_some_and(|e| now >= e) || app.over() {
            app.stop(now);
            app.wall().done = true;
            break;
        }
        if app.poll_timeout().is_some_and(|t| t <= now) {
            app.on_timeout(now);
            app.flush()?;
            continue;
        }
        let next = match (app.poll_timeout(), app.wall().end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let wall = app.wall();
        wall.face.recv(wait_until(now, next, end), &mut wall.rx)?;
        let rx = std::mem::take(&mut wall.rx);
        for bytes in &rx {
            app.handle(bytes);
        }
        let wall = app.wall();
        wall.rx = rx;
        wall.rx.clear();
        app.flush()?;
        if std::time::Instant::now() >= end {
            break;
        }
    }
    Ok(app.wall().done)
}

/// What a consumer run did.
#[derive(Clone, Debug, Serialize)]
pub struct ConsumerReport {
    /// The model's Interests (one per chunk for a chunked consumer), retransmissions included.
    pub interests_sent: u64,
    /// Interests put on the wire: `interests_sent`, or for chunks asked by name
    /// ([`ChunkWire::Names`]) one per segment asked for.
    pub wire_interests: u64,
    pub retransmissions: u64,
    pub requested: u64,
    pub data_received: u64,
    pub data_bytes: u64,
    pub nacks: u64,
    pub timeouts: u64,
    pub marks: u64,
    pub late_data: u64,
    pub given_up: u64,
    pub dropped: Dropped,
    /// Wall time from start to the last step, seconds.
    pub elapsed_s: f64,
    /// Smoothed RTT at the end, seconds (`None` before the first sample).
    pub srtt_s: Option<f64>,
    /// Data received per second of the run.
    pub data_per_s: f64,
    /// Data wire bits received per second of the run, Mbit/s.
    pub mbps: f64,
    /// Per-bin counts, when asked for ([`ConsumerOptions::series_bin`]).
    pub series: Option<AppSeries>,
}

/// Optional behaviour of a [`ConsumerApp`] run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConsumerOptions {
    /// Stop sending this long after the start, and keep receiving (the answers to Interests
    /// already sent) until the run's duration ends: a scenario app's `stop` before the run's
    /// end, as the simulator does it.
    pub stop_sending: Option<Duration>,
    /// Record Interests sent and Data received per bin of this width ([`AppSeries`]).
    pub series_bin: Option<Duration>,
    /// How chunk Interests go on the wire (chunked consumers only).
    pub chunk_wire: ChunkWire,
}

/// A consumer connected to a forwarder.
pub struct ConsumerApp {
    wall: Wall,
    names: AppNames,
    consumer: Consumer,
    max_seq: Option<u64>,
    /// Segments per chunk of a chunked consumer.
    chunk_segments: Option<u32>,
    chunk_wire: ChunkWire,
    nonces: OsNonces,
    wire_interests: u64,
    out: Vec<Packet>,
    dropped: Dropped,
    stop_at: Option<Instant>,
    series: Option<AppSeries>,
}

impl ConsumerApp {
    /// Connects and builds the consumer `spec` describes (the scenario's `[[apps]]` consumer,
    /// resolved). `interest_size` is the model's Interest size (the wire has its own); `duration`
    /// bounds the run (with neither it nor `max_seq` it runs until stopped); `seed` seeds its
    /// random streams.
    pub fn new(
        ep: &Endpoint,
        spec: &ConsumerSpec,
        interest_size: u32,
        duration: Option<Duration>,
        seed: u64,
    ) -> Result<ConsumerApp, String> {
        Self::with_options(
            ep,
            spec,
            interest_size,
            duration,
            seed,
            ConsumerOptions::default(),
        )
    }

    /// [`ConsumerApp::new`] with [`ConsumerOptions`].
    pub fn with_options(
        ep: &Endpoint,
        spec: &ConsumerSpec,
        interest_size: u32,
        duration: Option<Duration>,
        seed: u64,
        opts: ConsumerOptions,
    ) -> Result<ConsumerApp, String> {
        let names = AppNames::new(&spec.prefix)?;
        let problems = spec.controller.validate();
        if let Some(p) = problems.first() {
            return Err(format!(
                "controller {}: {} ({})",
                p.keys.join(", "),
                p.problem,
                p.fix
            ));
        }
        let rng = |k| RngStream::new(seed, 0, StreamKind::App, k);
        let engine = engine_from_spec(&spec.engine, Duration(1), || rng(1));
        let cfg = ConsumerConfig {
            prefix: names.prefix_id,
            interest_size,
            lifetime: Duration(spec.lifetime_ns),
            timeout: Duration(spec.timeout_ns.unwrap_or(spec.lifetime_ns)),
            retx_on_timeout: spec.retx_on_timeout,
            retx_on_nack: spec.retx_on_nack,
            max_transmissions: spec.max_transmissions.max(1),
            start_seq: spec.start_seq,
            max_seq: spec.max_seq,
            record_delays: false,
            chunk_segments: spec.chunk_segments,
        };
        let mut consumer = Consumer::new(cfg, spec.controller.build(), engine, rng(0));
        // the real OS is the clock: the engine's timers fire when the socket wait returns
        consumer.clock = ClockModel::Ideal;
        let face = ClientFace::connect(ep).map_err(|e| e.to_string())?;
        let t0 = std::time::Instant::now();
        let mut app = ConsumerApp {
            wall: Wall::new(face, t0, duration),
            names,
            consumer,
            max_seq: spec.max_seq,
            chunk_segments: spec.chunk_segments,
            chunk_wire: opts.chunk_wire,
            nonces: OsNonces::new().map_err(|e| e.to_string())?,
            wire_interests: 0,
            out: Vec::new(),
            dropped: Dropped::default(),
            stop_at: opts.stop_sending.map(|d| Instant(d.0)),
            series: opts
                .series_bin
                .filter(|b| b.0 > 0)
                .map(|b| AppSeries::new(b.0)),
        };
        app.consumer.start(Instant(0), &mut app.out);
        app.flush().map_err(|e| e.to_string())?;
        Ok(app)
    }

    /// Every sequence number asked for has its answer or was given up.
    fn finished(&self) -> bool {
        let s = &self.consumer.stats;
        match self.max_seq {
            Some(m) => {
                s.requested >= m
                    && self.consumer.in_flight() == 0
                    && (self.chunk_segments.is_some() || s.data_received + s.given_up >= m)
            }
            None => false,
        }
    }

    /// Runs for up to `budget` of wall time; true once the run is over (its duration passed or
    /// every sequence number of `max_seq` is settled).
    pub fn step(&mut self, budget: std::time::Duration) -> io::Result<bool> {
        run_steps(self, budget)
    }

    pub fn report(&self) -> ConsumerReport {
        let s = &self.consumer.stats;
        let secs = self.wall.t0.elapsed().as_secs_f64().max(1e-9);
        ConsumerReport {
            interests_sent: s.interests_sent,
            wire_interests: self.wire_interests,
            retransmissions: s.retransmissions,
            requested: s.requested,
            data_received: s.data_received,
            data_bytes: s.data_bytes,
            nacks: s.nacks,
            timeouts: s.timeouts,
            marks: s.marks,
            late_data: s.late_data,
            given_up: s.given_up,
            dropped: self.dropped,
            elapsed_s: secs,
            srtt_s: self.consumer.rtt.srtt().map(|d| d.0 as f64 / 1e9),
            data_per_s: s.data_received as f64 / secs,
            mbps: s.data_bytes as f64 * 8.0 / secs / 1e6,
            series: self.series.clone(),
        }
    }
}

impl Stepped for ConsumerApp {
    fn wall(&mut self) -> &mut Wall {
        &mut self.wall
    }
    fn over(&self) -> bool {
        self.finished()
    }
    fn stop(&mut self, now: Instant) {
        self.consumer.stop(now);
    }
    fn poll_timeout(&self) -> Option<Instant> {
        match (self.consumer.poll_timeout(), self.stop_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn on_timeout(&mut self, now: Instant) {
        if self.stop_at.is_some_and(|t| t <= now) {
            self.stop_at = None;
            self.consumer.stop(now);
        }
        if self.consumer.poll_timeout().is_some_and(|t| t <= now) {
            self.consumer.on_timeout(now, &mut self.out);
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let now = elapsed(self.wall.t0);
        for p in self.out.drain(..) {
            if let Packet::Interest(i) = p {
                let mut drawn = Ok(());
                let nonces = &mut self.nonces;
                let wire = app_wire::interests_to_wire(&self.names, &i, self.chunk_wire, || {
                    nonces.next_nonce().unwrap_or_else(|e| {
                        drawn = Err(e);
                        0
                    })
                })
                .map_err(io::Error::other)?;
                drawn?;
                self.wire_interests += wire.len() as u64;
                if let Some(s) = &mut self.series {
                    s.add_interests(now.0, wire.len() as u64);
                }
                for bytes in &wire {
                    self.wall.face.send(bytes)?;
                }
            }
        }
        Ok(())
    }

    fn handle(&mut self, bytes: &[u8]) {
        let now = elapsed(self.wall.t0);
        let Ok(frame) = Frame::decode(bytes) else {
            self.dropped.malformed += 1;
            return;
        };
        match (&frame.net, &frame.lp) {
            (Some(NetPacket::Data(d)), lp) => {
                let n = self.chunk_segments;
                match app_wire::data_from_wire(&self.names, d, lp.as_ref(), now, n) {
                    Some(data) => {
                        let (n0, b0) = (
                            self.consumer.stats.data_received,
                            self.consumer.stats.data_bytes,
                        );
                        self.consumer.handle_data(now, &data, &mut self.out);
                        if let Some(s) = &mut self.series {
                            let st = &self.consumer.stats;
                            s.add_data(now.0, st.data_received - n0, st.data_bytes - b0);
                        }
                    }
                    None => self.dropped.unexpected += 1,
                }
            }
            (Some(NetPacket::Interest(i)), Some(lp)) if lp.nack.is_some() => {
                match app_wire::nack_from_wire(&self.names, i, lp, self.chunk_segments) {
                    Some(n) => self.consumer.handle_nack(now, &n, &mut self.out),
                    None => self.dropped.unexpected += 1,
                }
            }
            _ => self.dropped.unexpected += 1,
        }
    }
}

/// Registers `prefix` on the forwarder with `rib/register` (a signed command Interest) and
/// waits up to `timeout` for the answer. Packets that arrive with or after the answer are left
/// in `rest`, for the caller to handle. `/localhost/nfd` on Unix and TCP faces, `/localhop/nfd`
/// on UDP (ndnd's UDP faces are non-local).
pub fn register_prefix(
    face: &mut ClientFace,
    ep: &Endpoint,
    prefix: &Name,
    timeout: std::time::Duration,
    rest: &mut Vec<Vec<u8>>,
) -> Result<ControlResponse, String> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let salt = u64::from(std::process::id()) << 32 | (now_ms & 0xFFFF_FFFF);
    let cmd = CommandInterest {
        scope: if matches!(ep, Endpoint::Udp(_)) {
            Scope::Localhop
        } else {
            Scope::Localhost
        },
        module: "rib".into(),
        verb: "register".into(),
        params: ControlParameters::for_name(prefix.clone()),
        nonce: (salt ^ (salt >> 29)) as u32,
        lifetime_ms: timeout.as_millis() as u64,
        signature_time_ms: now_ms,
        signature_nonce: salt.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    };
    let wire = cmd.encode().map_err(|e| e.to_string())?;
    let name = ndncc_wire::InterestView::decode(&wire)
        .map_err(|e| e.to_string())?
        .name
        .value()
        .to_vec();
    face.send(&wire).map_err(|e| e.to_string())?;
    let end = std::time::Instant::now() + timeout;
    let mut rx = Vec::new();
    while std::time::Instant::now() < end {
        let left = end.saturating_duration_since(std::time::Instant::now());
        face.recv(left.min(MAX_WAIT), &mut rx)
            .map_err(|e| format!("registering {prefix}: {e}"))?;
        let mut packets = std::mem::take(&mut rx).into_iter();
        while let Some(bytes) = packets.next() {
            let Ok(Frame {
                net: Some(NetPacket::Data(d)),
                ..
            }) = Frame::decode(&bytes)
            else {
                rest.push(bytes);
                continue;
            };
            if d.name.value() != name.as_slice() {
                rest.push(bytes);
                continue;
            }
            rest.extend(packets.by_ref());
            let r = ControlResponse::decode(d.content.unwrap_or_default())
                .map_err(|e| format!("registering {prefix}: bad ControlResponse: {e}"))?;
            if !r.is_ok() {
                return Err(format!(
                    "registering {prefix}: the forwarder answered {} {}",
                    r.status_code, r.status_text
                ));
            }
            return Ok(r);
        }
    }
    Err(format!(
        "registering {prefix}: no answer from the forwarder within {} ms",
        timeout.as_millis()
    ))
}

/// What a producer run did.
#[derive(Clone, Debug, Serialize)]
pub struct ProducerReport {
    pub interests_received: u64,
    pub data_sent: u64,
    pub unanswered: u64,
    /// Interests that came with a PitToken (echoed on the Data).
    pub pit_tokens: u64,
    pub dropped: Dropped,
    /// The FaceId the forwarder registered the prefix on.
    pub face_id: Option<u64>,
    pub elapsed_s: f64,
}

/// A wire Interest waiting for the core producer's answer: its exact name and PitToken.
type Waiting = VecDeque<(Name, Option<Vec<u8>>)>;

/// A producer connected to a forwarder, its prefix registered.
pub struct ProducerApp {
    wall: Wall,
    names: AppNames,
    producer: Producer,
    waiting: HashMap<u64, Waiting>,
    out: Vec<Packet>,
    dropped: Dropped,
    pit_tokens: u64,
    face_id: Option<u64>,
    data_wire_size: Option<u32>,
}

impl ProducerApp {
    /// Connects, registers the prefix, and answers from then on. `data_overhead` is the
    /// model's Data header size (the wire has its own).
    pub fn new(
        ep: &Endpoint,
        spec: &ProducerSpec,
        data_overhead: u32,
        duration: Option<Duration>,
        register: bool,
    ) -> Result<ProducerApp, String> {
        let names = AppNames::new(&spec.prefix)?;
        let mut face = ClientFace::connect(ep).map_err(|e| e.to_string())?;
        let mut rx = Vec::new();
        let face_id = if register {
            let r = register_prefix(
                &mut face,
                ep,
                &names.prefix,
                std::time::Duration::from_secs(2),
                &mut rx,
            )?;
            r.body.and_then(|b| b.face_id)
        } else {
            None
        };
        let mut producer = Producer::new(ProducerConfig {
            prefix: names.prefix_id,
            payload: spec.payload_size,
            data_size: spec.payload_size.saturating_add(data_overhead),
            freshness: Duration(spec.freshness_ns),
            content_segments: spec.content_segments,
            processing_delay: Duration(spec.processing_delay_ns),
            // a real producer serves the whole content (multi-source shares are simulator-only)
            placement: None,
        });
        producer.start(Instant(0));
        let mut app = ProducerApp {
            wall: Wall::new(face, std::time::Instant::now(), duration),
            names,
            producer,
            waiting: HashMap::new(),
            out: Vec::new(),
            dropped: Dropped::default(),
            pit_tokens: 0,
            face_id,
            data_wire_size: None,
        };
        // Interests that came right behind the registration's answer
        for bytes in &rx {
            app.handle(bytes);
        }
        app.flush().map_err(|e| e.to_string())?;
        Ok(app)
    }

    /// Runs for up to `budget` of wall time; true once the duration has passed.
    pub fn step(&mut self, budget: std::time::Duration) -> io::Result<bool> {
        run_steps(self, budget)
    }

    /// Sends every Data with this wire size (the Data TLV, bytes) instead of the spec's
    /// payload of Content ([`app_wire::data_sized`]).
    pub fn set_data_wire_size(&mut self, size: Option<u32>) {
        self.data_wire_size = size;
    }

    pub fn report(&self) -> ProducerReport {
        let s = &self.producer.stats;
        ProducerReport {
            interests_received: s.interests_received,
            data_sent: s.data_sent,
            unanswered: s.unanswered,
            pit_tokens: self.pit_tokens,
            dropped: self.dropped,
            face_id: self.face_id,
            elapsed_s: self.wall.t0.elapsed().as_secs_f64(),
        }
    }
}

impl Stepped for ProducerApp {
    fn wall(&mut self) -> &mut Wall {
        &mut self.wall
    }
    fn over(&self) -> bool {
        false
    }
    fn stop(&mut self, now: Instant) {
        self.producer.stop(now);
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.producer.poll_timeout()
    }
    fn on_timeout(&mut self, now: Instant) {
        self.producer.on_timeout(now, &mut self.out);
    }

    fn flush(&mut self) -> io::Result<()> {
        for p in std::mem::take(&mut self.out) {
            let Packet::Data(d) = p else { continue };
            let Some(seq) = d.name.seq else { continue };
            let Some(q) = self.waiting.get_mut(&seq) else {
                continue;
            };
            // a chunk Interest gets several Data: the name and token stay until the last
            let last = d.ext.segment.is_none_or(|s| s.index + 1 >= s.count);
            let Some((name, token)) = (if last {
                q.pop_front()
            } else {
                q.front().cloned()
            }) else {
                continue;
            };
            if q.is_empty() {
                self.waiting.remove(&seq);
            }
            let d = match self.data_wire_size {
                Some(size) => app_wire::data_sized(&name, &d, size).map_err(io::Error::other)?,
                None => d,
            };
            let bytes =
                app_wire::data_to_wire(&name, &d, token.as_deref()).map_err(io::Error::other)?;
            self.wall.face.send(&bytes)?;
        }
        Ok(())
    }

    fn handle(&mut self, bytes: &[u8]) {
        let now = elapsed(self.wall.t0);
        let Ok(frame) = Frame::decode(bytes) else {
            self.dropped.malformed += 1;
            return;
        };
        let (Some(NetPacket::Interest(i)), lp) = (&frame.net, &frame.lp) else {
            self.dropped.unexpected += 1;
            return;
        };
        if lp.as_ref().is_some_and(|l| l.nack.is_some()) {
            self.dropped.unexpected += 1;
            return;
        }
        let Some(core) = app_wire::interest_from_wire(&self.names, i, lp.as_ref()) else {
            self.dropped.unexpected += 1;
            return;
        };
        let token = lp.as_ref().and_then(|l| l.pit_token).map(<[u8]>::to_vec);
        self.pit_tokens += u64::from(token.is_some());
        let seq = core.name.seq.unwrap_or(0);
        self.waiting
            .entry(seq)
            .or_default()
            .push_back((i.name.to_owned(), token));
        let unanswered = self.producer.stats.unanswered;
        self.producer
            .handle_interest(now, &self.names.table, &core, &mut self.out);
        if self.producer.stats.unanswered > unanswered {
            if let Some(q) = self.waiting.get_mut(&seq) {
                q.pop_back();
                if q.is_empty() {
                    self.waiting.remove(&seq);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_wire::mgmt::Command;
    use ndncc_wire::{Interest, InterestView, LpPacket};
    use std::io::{Read, Write};
    use std::os::unix::net::{UnixListener, UnixStream};

    /// Reads one TLV element from a blocking stream.
    fn read_element(s: &mut UnixStream) -> Vec<u8> {
        let mut buf = Vec::new();
        let mut byte = [0u8; 1];
        loop {
            s.read_exact(&mut byte).unwrap();
            buf.push(byte[0]);
            if let Ok(Some(len)) = ndncc_wire::packet::element_len(&buf, 1 << 16) {
                let mut rest = vec![0; len - buf.len()];
                s.read_exact(&mut rest).unwrap();
                buf.extend(rest);
                return buf;
            }
        }
    }

    /// A fresh Unix socket for a fake forwarder, in its own temporary folder (`tag` keeps
    /// tests that run at once apart): the folder (removed by the test), the path, the listener.
    fn fake_socket(tag: &str) -> (std::path::PathBuf, std::path::PathBuf, UnixListener) {
        let dir = std::env::temp_dir().join(format!("ndncc-apps-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("fw.sock");
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).unwrap();
        (dir, path, listener)
    }

    /// A fake forwarder: answers rib/register, then sends an Interest with a 6-byte PitToken
    /// (as ndnd does) and checks the Data carries it back, with the Interest's exact name.
    #[test]
    fn producer_registers_and_echoes_the_pit_token() {
        let (dir, path, listener) = fake_socket("p");
        let fake = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let cmd = read_element(&mut s);
            let view = InterestView::decode(&cmd).unwrap();
            let c = Command::parse(&view).unwrap().unwrap();
            assert_eq!((c.module.as_str(), c.verb.as_str()), ("rib", "register"));
            let mut params = c.params.unwrap();
            assert_eq!(params.name.as_ref().unwrap().to_string(), "/fake/p");
            params.face_id = Some(300);
            let reply =
                ndncc_wire::mgmt::command_reply(&view, &ControlResponse::new(200, "OK", params));
            s.write_all(&LpPacket::wrap(reply.encode()).encode().unwrap())
                .unwrap();
            let token = vec![9, 8, 7, 6, 5, 4];
            let i = Interest::new(Name::from_uri("/fake/p/seg=12").unwrap(), 77)
                .encode()
                .unwrap();
            let lp = LpPacket {
                pit_token: Some(token.clone()),
                ..LpPacket::wrap(i)
            };
            s.write_all(&lp.encode().unwrap()).unwrap();
            let back = read_element(&mut s);
            let f = Frame::decode(&back).unwrap();
            assert_eq!(f.lp.unwrap().pit_token, Some(&token[..]));
            let Some(NetPacket::Data(d)) = f.net else {
                panic!("not a Data")
            };
            assert_eq!(d.name.to_string(), "/fake/p/seg=12");
            assert_eq!(d.content.map(<[u8]>::len), Some(123));
            s // kept open until the producer has stopped stepping
        });
        let spec: ProducerSpec =
            serde_json::from_str(r#"{"prefix": "/fake/p", "payload_size": 123}"#).unwrap();
        let ep = Endpoint::Unix(path);
        let mut app = ProducerApp::new(&ep, &spec, 0, None, true).unwrap();
        let t0 = std::time::Instant::now();
        while app.report().data_sent == 0 && t0.elapsed() < std::time::Duration::from_secs(5) {
            app.step(std::time::Duration::from_millis(50)).unwrap();
        }
        let _stream = fake.join().unwrap();
        let r = app.report();
        assert_eq!((r.face_id, r.data_sent, r.pit_tokens), (Some(300), 1, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fake forwarder on a fresh socket: accepts one consumer and hands every packet it
    /// sends to `answer`, which returns the frames to send back; stops after `n` packets.
    fn fake_forwarder(
        tag: &str,
        n: usize,
        mut answer: impl FnMut(&[u8]) -> Vec<Vec<u8>> + Send + 'static,
    ) -> (Endpoint, std::thread::JoinHandle<Vec<Vec<u8>>>) {
        let (_dir, path, listener) = fake_socket(tag);
        let t = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let mut got = Vec::new();
            while got.len() < n {
                let p = read_element(&mut s);
                for back in answer(&p) {
                    s.write_all(&back).unwrap();
                }
                got.push(p);
            }
            got
        });
        (Endpoint::Unix(path), t)
    }

    fn consumer_spec(json: &str) -> ConsumerSpec {
        serde_json::from_str(json).unwrap()
    }

    /// Two runs of a consumer with the same spec and the same seed send different Nonces (they
    /// come from the OS, not from the seed): a forwarder's dead-nonce list does not drop the
    /// rerun as a loop.
    #[test]
    fn reruns_with_the_same_seed_send_different_nonces() {
        let spec = consumer_spec(
            r#"{"prefix": "/fake/n", "controller": {"type": "fixed_window", "window": 4},
                "max_seq": 4}"#,
        );
        let mut runs = Vec::new();
        for run in 0..2 {
            let (ep, fw) = fake_forwarder(&format!("nonce{run}"), 4, |_| Vec::new());
            let app = ConsumerApp::new(&ep, &spec, 40, None, 1).unwrap();
            let sent = fw.join().unwrap();
            drop(app);
            let nonces: Vec<(String, u32)> = sent
                .iter()
                .map(|p| {
                    let i = InterestView::decode(p).unwrap();
                    (i.name.to_string(), i.nonce.unwrap())
                })
                .collect();
            runs.push(nonces);
        }
        let names = |r: &Vec<(String, u32)>| r.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&runs[0]), names(&runs[1]), "the same Interests");
        for (a, b) in runs[0].iter().zip(&runs[1]) {
            assert_ne!(a.1, b.1, "{}: the same Nonce in both runs", a.0);
        }
    }

    /// A chunk of 4 segments asked by name: one Interest per segment, `seg = chunk × 4 +
    /// offset`, no LpPacket; Data named so (bare, as any forwarder passes them on) complete
    /// the chunks. With `ChunkWire::Lp`, one Interest per chunk in an LpPacket.
    #[test]
    fn chunks_are_asked_by_segment_name() {
        let spec = consumer_spec(
            r#"{"prefix": "/fake/c", "controller": {"type": "fixed_window", "window": 2},
                "max_seq": 2, "chunk_segments": 4}"#,
        );
        let (ep, fw) = fake_forwarder("chunks", 8, |p| {
            let f = Frame::decode(p).unwrap();
            assert!(f.lp.is_none(), "a bare Interest");
            let Some(NetPacket::Interest(i)) = f.net else {
                panic!("not an Interest")
            };
            let d = ndncc_wire::Data {
                name: i.name.to_owned(),
                content: Some(vec![0; 10]),
                ..ndncc_wire::Data::default()
            };
            vec![d.encode()]
        });
        let mut app = ConsumerApp::new(&ep, &spec, 40, None, 1).unwrap();
        let t0 = std::time::Instant::now();
        while !app.step(std::time::Duration::from_millis(50)).unwrap() {
            assert!(t0.elapsed() < std::time::Duration::from_secs(5), "not done");
        }
        let names: Vec<String> = fw
            .join()
            .unwrap()
            .iter()
            .map(|p| InterestView::decode(p).unwrap().name.to_string())
            .collect();
        let want: Vec<String> = (0..8).map(|s| format!("/fake/c/seg={s}")).collect();
        assert_eq!(names, want);
        let r = app.report();
        assert_eq!((r.interests_sent, r.wire_interests), (2, 8));
        assert_eq!((r.data_received, r.dropped), (8, Dropped::default()));
        assert_eq!(app.consumer.stats.completed, 2, "both chunks complete");

        let (ep, fw) = fake_forwarder("chunks-lp", 2, |_| Vec::new());
        let opts = ConsumerOptions {
            chunk_wire: ChunkWire::Lp,
            ..ConsumerOptions::default()
        };
        let app = ConsumerApp::with_options(&ep, &spec, 40, None, 1, opts).unwrap();
        let sent = fw.join().unwrap();
        drop(app);
        for (chunk, p) in sent.iter().enumerate() {
            let f = Frame::decode(p).unwrap();
            let Some(NetPacket::Interest(i)) = f.net else {
                panic!("not an Interest")
            };
            assert_eq!(i.name.to_string(), format!("/fake/c/seq={chunk}"));
            assert!(f.lp.is_some(), "the ChunkRequest rides in an LpPacket");
        }
    }

    /// A fake forwarder without routes: answers every Interest with a Nack(NoRoute) at once,
    /// while a window of 4 with a 200 ms lifetime runs for 600 ms of wall time. The NoRoute
    /// rule holds each Nacked Interest to its deadline: at most 4 Interests per 200 ms, i.e.
    /// 16 by 600 ms (the at-once rule sent one per Nack round trip, thousands).
    #[test]
    fn a_window_facing_noroute_sends_a_bounded_number() {
        let (dir, path, listener) = fake_socket("nr");
        let fake = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut interests = 0u64;
            let mut byte = [0u8; 1];
            let mut buf = Vec::new();
            // until the consumer closes the socket
            while s.read_exact(&mut byte).is_ok() {
                buf.push(byte[0]);
                let Ok(Some(len)) = ndncc_wire::packet::element_len(&buf, 1 << 16) else {
                    continue;
                };
                let mut rest = vec![0; len - buf.len()];
                s.read_exact(&mut rest).unwrap();
                buf.extend(rest);
                interests += 1;
                let nack = LpPacket {
                    nack: Some(ndncc_wire::lp::Nack {
                        reason: Some(ndncc_wire::lp::NackReason::NoRoute),
                    }),
                    ..LpPacket::wrap(std::mem::take(&mut buf))
                };
                if s.write_all(&nack.encode().unwrap()).is_err() {
                    break;
                }
            }
            interests
        });
        let spec = consumer_spec(
            r#"{"prefix": "/fake/nr", "controller": {"type": "fixed_window", "window": 4},
                "lifetime_ns": 200000000, "retx_on_nack": true}"#,
        );
        let ep = Endpoint::Unix(path);
        let mut app =
            ConsumerApp::new(&ep, &spec, 40, Some(Duration::from_millis(600)), 1).unwrap();
        while !app.step(std::time::Duration::from_millis(100)).unwrap() {}
        let r = app.report();
        drop(app);
        let received = fake.join().unwrap();
        let n = r.interests_sent;
        assert!(n <= 16, "{n} Interests in 600 ms");
        assert!(r.nacks >= 4, "{r:?}");
        assert_eq!((r.timeouts, r.data_received), (0, 0), "{r:?}");
        assert_eq!(
            received, r.wire_interests,
            "every Interest sent reached the forwarder"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A refused registration is an error that names the status.
    #[test]
    fn refused_registration_is_reported() {
        let (dir, path, listener) = fake_socket("r");
        let fake = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let cmd = read_element(&mut s);
            let view = InterestView::decode(&cmd).unwrap();
            let r = ControlResponse::new(403, "Unauthorized", ControlParameters::default());
            s.write_all(&ndncc_wire::mgmt::command_reply(&view, &r).encode())
                .unwrap();
        });
        let ep = Endpoint::Unix(path);
        let mut face = ClientFace::connect(&ep).unwrap();
        let prefix = Name::from_uri("/x").unwrap();
        let mut rest = Vec::new();
        let err = register_prefix(
            &mut face,
            &ep,
            &prefix,
            std::time::Duration::from_secs(3),
            &mut rest,
        )
        .unwrap_err();
        assert!(err.contains("403 Unauthorized"), "{err}");
        fake.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
