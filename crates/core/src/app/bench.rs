//! A consumer driven by hand, as a driver drives it: the test decides when each Interest's Data
//! arrives (or that it is lost), and how late each timer wake-up lands (on a real clock a
//! wake-up never lands exactly on the instant asked for). No forwarder, no links.

use super::consumer::{Consumer, ConsumerConfig};
use crate::harness::test_consumer;
use crate::name::{Name, NameId, NameTable};
use crate::packet::{Data, DataExt, Packet};
use crate::schemes::registry::Controller;
use crate::time::{Duration, Instant};
use std::collections::BTreeMap;

pub(crate) struct Bench {
    pub c: Consumer,
    prefix: NameId,
    out: Vec<Packet>,
    /// Every Interest sent: (instant, sequence number).
    pub sent: Vec<(Instant, u64)>,
    /// Data on their way: (arrival, order) -> sequence number.
    arrivals: BTreeMap<(Instant, u64), u64>,
    order: u64,
    pub now: Instant,
    /// Timer wake-ups: (instant asked for, instant woken).
    pub wakes: Vec<(Instant, Instant)>,
}

/// `t` seconds.
pub(crate) fn s(t: f64) -> Instant {
    Instant(Duration::from_secs_f64(t).0)
}

impl Bench {
    pub fn new(controller: Controller, cfg: impl FnOnce(&mut ConsumerConfig)) -> Bench {
        let mut names = NameTable::new();
        let prefix = names.intern("/p");
        let c = test_consumer(prefix, controller, cfg);
        Bench {
            c,
            prefix,
            out: Vec::new(),
            sent: Vec::new(),
            arrivals: BTreeMap::new(),
            order: 0,
            now: Instant::ZERO,
            wakes: Vec::new(),
        }
    }

    /// How many times `seq` was sent before `t`, and when.
    pub fn sends_of(&self, seq: u64) -> Vec<Instant> {
        self.sent
            .iter()
            .filter(|&&(_, q)| q == seq)
            .map(|&(t, _)| t)
            .collect()
    }

    /// The sequence numbers sent at `t`, in order.
    pub fn sent_at(&self, t: Instant) -> Vec<u64> {
        self.sent
            .iter()
            .filter(|&&(at, _)| at == t)
            .map(|&(_, q)| q)
            .collect()
    }

    /// Files the Interests the consumer just sent; `respond(sent, seq, nth)` gives the
    /// arrival of its Data (`nth`: 1 for its first send), `None` = lost.
    fn collect(&mut self, respond: &mut impl FnMut(Instant, u64, usize) -> Option<Instant>) {
        for p in std::mem::take(&mut self.out) {
            if let Packet::Interest(i) = p {
                let seq = i.name.seq.expect("a sequence number");
                self.sent.push((self.now, seq));
                let nth = self.sends_of(seq).len();
                if let Some(at) = respond(self.now, seq, nth) {
                    self.order += 1;
                    self.arrivals.insert((at.max(self.now), self.order), seq);
                }
            }
        }
    }

    /// Starts the consumer at 0 and runs it until `end`: Data arrive as `respond` says, timers
    /// fire `late(asked)` after the instant they ask for.
    pub fn run(
        &mut self,
        end: Instant,
        mut respond: impl FnMut(Instant, u64, usize) -> Option<Instant>,
        mut late: impl FnMut(Instant) -> Duration,
    ) {
        if !self.c.is_active() {
            self.c.start(self.now, &mut self.out);
            self.collect(&mut respond);
        }
        // the wake-up pending: (asked, fires)
        let mut timer: Option<(Instant, Instant)> = None;
        loop {
            let asked = self.c.poll_timeout();
            if timer.map(|(a, _)| Some(a)) != Some(asked) {
                timer = asked.map(|a| (a, (a + late(a)).max(self.now)));
            }
            let data = self.arrivals.keys().next().copied();
            let next = match (data, timer) {
                (Some((d, _)), Some((_, f))) => d.min(f),
                (Some((d, _)), None) => d,
                (None, Some((_, f))) => f,
                (None, None) => break,
            };
            if next > end {
                break;
            }
            self.now = next;
            if let Some(key) = data.filter(|&(d, _)| d == next) {
                let seq = self.arrivals.remove(&key).expect("an arrival");
                let d = Data {
                    name: Name::new(self.prefix, seq),
                    payload: 1000,
                    size: 1040,
                    freshness: Duration::ZERO,
                    created: next,
                    ext: DataExt::default(),
                };
                self.c.handle_data(next, &d, &mut self.out);
            } else {
                let (a, f) = timer.take().expect("a timer");
                self.wakes.push((a, f));
                self.c.on_timeout(f, &mut self.out);
                // a wake-up at or after the instant asked for uses it up: a consumer that asks
                // for the same instant again would never run what was due
                assert_ne!(
                    self.c.poll_timeout(),
                    Some(a),
                    "woken at {f:?} for {a:?}, the consumer asks for {a:?} again"
                );
            }
            self.collect(&mut respond);
        }
        self.now = end;
    }
}
