//! NFD management status datasets: the Content of `faces/list` (FaceStatus), `status/general`
//! (GeneralStatus), `fib/list` (FibEntry), `rib/list` (RibEntry) and `strategy-choice/list`
//! (StrategyChoice). A dataset is the concatenation of its entries (segmented into Data
//! packets `…/v=<version>/seg=<n>` by the server; reassembling segments is the client's job).
//!
//! Entries are decoded leniently about order, strictly about duplicates and unknown critical
//! types (as ControlParameters in [`crate::mgmt`]).

use crate::error::{Error, Result};
use crate::mgmt::{
    nonneg, string, utf8, walk, write_strategy, BASE_CONGESTION_MARKING_INTERVAL, COST,
    DEFAULT_CONGESTION_THRESHOLD, EXPIRATION_PERIOD, FACE_ID, FACE_PERSISTENCY, FLAGS, LOCAL_URI,
    MTU, ORIGIN, STRATEGY, URI,
};
use crate::name::{Name, NameView};
use crate::tlv::{self, Element, Elements};
use crate::tt;

// Dataset TLV-TYPE numbers (NFD management protocol).
/// FaceStatus, GeneralStatus's NfdVersion, FibEntry, RibEntry, StrategyChoice: all 0x80.
pub const ENTRY: u64 = 0x80;
/// NextHopRecord (in FibEntry) and Route (in RibEntry).
pub const NEXT_HOP_RECORD: u64 = 0x81;
pub const ROUTE: u64 = 0x81;
pub const FACE_SCOPE: u64 = 0x84;
pub const LINK_TYPE: u64 = 0x86;
pub const N_IN_INTERESTS: u64 = 0x90;
pub const N_IN_DATA: u64 = 0x91;
pub const N_OUT_INTERESTS: u64 = 0x92;
pub const N_OUT_DATA: u64 = 0x93;
pub const N_IN_BYTES: u64 = 0x94;
pub const N_OUT_BYTES: u64 = 0x95;
pub const N_IN_NACKS: u64 = 0x97;
pub const N_OUT_NACKS: u64 = 0x98;
pub const N_SATISFIED_INTERESTS: u64 = 0x99;
pub const N_UNSATISFIED_INTERESTS: u64 = 0x9A;
// GeneralStatus.
pub const NFD_VERSION: u64 = 0x80;
pub const START_TIMESTAMP: u64 = 0x81;
pub const CURRENT_TIMESTAMP: u64 = 0x82;
pub const N_NAME_TREE_ENTRIES: u64 = 0x83;
pub const N_FIB_ENTRIES: u64 = 0x84;
pub const N_PIT_ENTRIES: u64 = 0x85;
pub const N_MEASUREMENTS_ENTRIES: u64 = 0x86;
pub const N_CS_ENTRIES: u64 = 0x87;
// ndnccd's own FaceStatus counters (not NFD's): even types, so non-critical, which NFD clients
// (python-ndn, ndnd) skip; written after Flags.
/// Packets the face's emulated transmit queue dropped (overflow or a scheme's discipline).
pub const NDNCC_N_QUEUE_DROPS: u64 = 0x0390;
/// Their bytes (NDN wire size).
pub const NDNCC_N_QUEUE_DROP_BYTES: u64 = 0x0392;

/// Packet counters of a face or a forwarder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub n_in_interests: u64,
    pub n_in_data: u64,
    pub n_in_nacks: u64,
    pub n_out_interests: u64,
    pub n_out_data: u64,
    pub n_out_nacks: u64,
}

impl Counters {
    fn write(&self, b: &mut Vec<u8>) {
        tlv::write_nonneg_tlv(b, N_IN_INTERESTS, self.n_in_interests);
        tlv::write_nonneg_tlv(b, N_IN_DATA, self.n_in_data);
        tlv::write_nonneg_tlv(b, N_IN_NACKS, self.n_in_nacks);
        tlv::write_nonneg_tlv(b, N_OUT_INTERESTS, self.n_out_interests);
        tlv::write_nonneg_tlv(b, N_OUT_DATA, self.n_out_data);
        tlv::write_nonneg_tlv(b, N_OUT_NACKS, self.n_out_nacks);
    }

    /// Stores a counter element; false when `e` is not one.
    fn read(&mut self, e: Element<'_>) -> Result<bool> {
        let slot = match e.typ {
            N_IN_INTERESTS => &mut self.n_in_interests,
            N_IN_DATA => &mut self.n_in_data,
            N_IN_NACKS => &mut self.n_in_nacks,
            N_OUT_INTERESTS => &mut self.n_out_interests,
            N_OUT_DATA => &mut self.n_out_data,
            N_OUT_NACKS => &mut self.n_out_nacks,
            _ => return Ok(false),
        };
        *slot = e.nonneg()?;
        Ok(true)
    }
}

/// One entry of `faces/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaceStatus {
    pub face_id: u64,
    pub uri: String,
    pub local_uri: String,
    /// Time left before an on-demand face expires, ms.
    pub expiration_period: Option<u64>,
    /// 0 non-local, 1 local.
    pub face_scope: u64,
    /// 0 persistent, 1 on-demand, 2 permanent.
    pub face_persistency: u64,
    /// 0 point-to-point, 1 multi-access, 2 ad hoc.
    pub link_type: u64,
    /// ns.
    pub base_congestion_marking_interval: Option<u64>,
    /// bytes.
    pub default_congestion_threshold: Option<u64>,
    /// bytes.
    pub mtu: Option<u64>,
    pub counters: Counters,
    pub n_in_bytes: u64,
    pub n_out_bytes: u64,
    /// Face flag bits ([`crate::mgmt::FACE_FLAG_LOCAL_FIELDS`], …).
    pub flags: u64,
    /// ndnccd: packets dropped by the face's transmit queue ([`NDNCC_N_QUEUE_DROPS`]).
    pub n_queue_drops: Option<u64>,
    /// ndnccd: their bytes ([`NDNCC_N_QUEUE_DROP_BYTES`]).
    pub n_queue_drop_bytes: Option<u64>,
}

impl FaceStatus {
    /// Appends the FaceStatus element.
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, ENTRY, |b| {
            tlv::write_nonneg_tlv(b, FACE_ID, self.face_id);
            string(b, URI, Some(&self.uri));
            string(b, LOCAL_URI, Some(&self.local_uri));
            nonneg(b, EXPIRATION_PERIOD, self.expiration_period);
            tlv::write_nonneg_tlv(b, FACE_SCOPE, self.face_scope);
            tlv::write_nonneg_tlv(b, FACE_PERSISTENCY, self.face_persistency);
            tlv::write_nonneg_tlv(b, LINK_TYPE, self.link_type);
            nonneg(
                b,
                BASE_CONGESTION_MARKING_INTERVAL,
                self.base_congestion_marking_interval,
            );
            nonneg(
                b,
                DEFAULT_CONGESTION_THRESHOLD,
                self.default_congestion_threshold,
            );
            nonneg(b, MTU, self.mtu);
            self.counters.write(b);
            tlv::write_nonneg_tlv(b, N_IN_BYTES, self.n_in_bytes);
            tlv::write_nonneg_tlv(b, N_OUT_BYTES, self.n_out_bytes);
            tlv::write_nonneg_tlv(b, FLAGS, self.flags);
            nonneg(b, NDNCC_N_QUEUE_DROPS, self.n_queue_drops);
            nonneg(b, NDNCC_N_QUEUE_DROP_BYTES, self.n_queue_drop_bytes);
        });
    }

    fn from_value(value: &[u8]) -> Result<Self> {
        let mut f = FaceStatus::default();
        let (mut id, mut uri, mut local) = (None, None, None);
        walk(value, |e| {
            match e.typ {
                FACE_ID => id = Some(e.nonneg()?),
                URI => uri = Some(utf8(e)?),
                LOCAL_URI => local = Some(utf8(e)?),
                EXPIRATION_PERIOD => f.expiration_period = Some(e.nonneg()?),
                FACE_SCOPE => f.face_scope = e.nonneg()?,
                FACE_PERSISTENCY => f.face_persistency = e.nonneg()?,
                LINK_TYPE => f.link_type = e.nonneg()?,
                BASE_CONGESTION_MARKING_INTERVAL => {
                    f.base_congestion_marking_interval = Some(e.nonneg()?)
                }
                DEFAULT_CONGESTION_THRESHOLD => f.default_congestion_threshold = Some(e.nonneg()?),
                MTU => f.mtu = Some(e.nonneg()?),
                N_IN_BYTES => f.n_in_bytes = e.nonneg()?,
                N_OUT_BYTES => f.n_out_bytes = e.nonneg()?,
                FLAGS => f.flags = e.nonneg()?,
                NDNCC_N_QUEUE_DROPS => f.n_queue_drops = Some(e.nonneg()?),
                NDNCC_N_QUEUE_DROP_BYTES => f.n_queue_drop_bytes = Some(e.nonneg()?),
                _ => return f.counters.read(e),
            }
            Ok(true)
        })?;
        f.face_id = id.ok_or(Error::Missing("FaceStatus FaceId"))?;
        f.uri = uri.ok_or(Error::Missing("FaceStatus Uri"))?;
        f.local_uri = local.ok_or(Error::Missing("FaceStatus LocalUri"))?;
        Ok(f)
    }
}

/// The Content of `status/general`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneralStatus {
    pub nfd_version: String,
    /// ms since the Unix epoch.
    pub start_timestamp: u64,
    /// ms since the Unix epoch.
    pub current_timestamp: u64,
    pub n_name_tree_entries: u64,
    pub n_fib_entries: u64,
    pub n_pit_entries: u64,
    pub n_measurements_entries: u64,
    pub n_cs_entries: u64,
    pub counters: Counters,
    pub n_satisfied_interests: u64,
    pub n_unsatisfied_interests: u64,
}

impl GeneralStatus {
    /// The dataset's bytes (a sequence of elements, no outer TLV).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(96);
        string(&mut b, NFD_VERSION, Some(&self.nfd_version));
        tlv::write_nonneg_tlv(&mut b, START_TIMESTAMP, self.start_timestamp);
        tlv::write_nonneg_tlv(&mut b, CURRENT_TIMESTAMP, self.current_timestamp);
        tlv::write_nonneg_tlv(&mut b, N_NAME_TREE_ENTRIES, self.n_name_tree_entries);
        tlv::write_nonneg_tlv(&mut b, N_FIB_ENTRIES, self.n_fib_entries);
        tlv::write_nonneg_tlv(&mut b, N_PIT_ENTRIES, self.n_pit_entries);
        tlv::write_nonneg_tlv(&mut b, N_MEASUREMENTS_ENTRIES, self.n_measurements_entries);
        tlv::write_nonneg_tlv(&mut b, N_CS_ENTRIES, self.n_cs_entries);
        self.counters.write(&mut b);
        tlv::write_nonneg_tlv(&mut b, N_SATISFIED_INTERESTS, self.n_satisfied_interests);
        tlv::write_nonneg_tlv(
            &mut b,
            N_UNSATISFIED_INTERESTS,
            self.n_unsatisfied_interests,
        );
        b
    }

    /// Decodes the dataset's bytes.
    pub fn decode(content: &[u8]) -> Result<Self> {
        let mut g = GeneralStatus::default();
        walk(content, |e| {
            let slot = match e.typ {
                NFD_VERSION => {
                    g.nfd_version = utf8(e)?;
                    return Ok(true);
                }
                START_TIMESTAMP => &mut g.start_timestamp,
                CURRENT_TIMESTAMP => &mut g.current_timestamp,
                N_NAME_TREE_ENTRIES => &mut g.n_name_tree_entries,
                N_FIB_ENTRIES => &mut g.n_fib_entries,
                N_PIT_ENTRIES => &mut g.n_pit_entries,
                N_MEASUREMENTS_ENTRIES => &mut g.n_measurements_entries,
                N_CS_ENTRIES => &mut g.n_cs_entries,
                N_SATISFIED_INTERESTS => &mut g.n_satisfied_interests,
                N_UNSATISFIED_INTERESTS => &mut g.n_unsatisfied_interests,
                _ => return g.counters.read(e),
            };
            *slot = e.nonneg()?;
            Ok(true)
        })?;
        Ok(g)
    }
}

/// One next hop of a FIB entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NextHop {
    pub face_id: u64,
    pub cost: u64,
}

/// One entry of `fib/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FibEntry {
    pub name: Name,
    pub next_hops: Vec<NextHop>,
}

/// One route of a RIB entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Route {
    pub face_id: u64,
    pub origin: u64,
    pub cost: u64,
    /// Route flag bits ([`crate::mgmt::ROUTE_FLAG_CHILD_INHERIT`], …).
    pub flags: u64,
    /// ms left; absent means no expiry.
    pub expiration_period: Option<u64>,
}

/// One entry of `rib/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RibEntry {
    pub name: Name,
    pub routes: Vec<Route>,
}

/// One entry of `strategy-choice/list`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StrategyChoice {
    pub name: Name,
    pub strategy: Name,
}

impl FibEntry {
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, ENTRY, |b| {
            self.name.encode(b);
            for h in &self.next_hops {
                tlv::write_nested(b, NEXT_HOP_RECORD, |r| {
                    tlv::write_nonneg_tlv(r, FACE_ID, h.face_id);
                    tlv::write_nonneg_tlv(r, COST, h.cost);
                });
            }
        });
    }

    fn from_value(value: &[u8]) -> Result<Self> {
        let mut it = Elements::new(value);
        let name = first_name(&mut it)?;
        let mut next_hops = Vec::new();
        for e in it {
            let e = e?;
            if e.typ != NEXT_HOP_RECORD {
                skip_or_fail(e.typ)?;
                continue;
            }
            let (mut face_id, mut cost) = (None, None);
            walk(e.value, |x| {
                match x.typ {
                    FACE_ID => face_id = Some(x.nonneg()?),
                    COST => cost = Some(x.nonneg()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            next_hops.push(NextHop {
                face_id: face_id.ok_or(Error::Missing("NextHopRecord FaceId"))?,
                cost: cost.ok_or(Error::Missing("NextHopRecord Cost"))?,
            });
        }
        Ok(FibEntry { name, next_hops })
    }
}

impl RibEntry {
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, ENTRY, |b| {
            self.name.encode(b);
            for r in &self.routes {
                tlv::write_nested(b, ROUTE, |x| {
                    tlv::write_nonneg_tlv(x, FACE_ID, r.face_id);
                    tlv::write_nonneg_tlv(x, ORIGIN, r.origin);
                    tlv::write_nonneg_tlv(x, COST, r.cost);
                    tlv::write_nonneg_tlv(x, FLAGS, r.flags);
                    nonneg(x, EXPIRATION_PERIOD, r.expiration_period);
                });
            }
        });
    }

    fn from_value(value: &[u8]) -> Result<Self> {
        let mut it = Elements::new(value);
        let name = first_name(&mut it)?;
        let mut routes = Vec::new();
        for e in it {
            let e = e?;
            if e.typ != ROUTE {
                skip_or_fail(e.typ)?;
                continue;
            }
            let mut r = Route::default();
            let mut face_id = None;
            walk(e.value, |x| {
                match x.typ {
                    FACE_ID => face_id = Some(x.nonneg()?),
                    ORIGIN => r.origin = x.nonneg()?,
                    COST => r.cost = x.nonneg()?,
                    FLAGS => r.flags = x.nonneg()?,
                    EXPIRATION_PERIOD => r.expiration_period = Some(x.nonneg()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            r.face_id = face_id.ok_or(Error::Missing("Route FaceId"))?;
            routes.push(r);
        }
        Ok(RibEntry { name, routes })
    }
}

impl StrategyChoice {
    pub fn encode_to(&self, buf: &mut Vec<u8>) {
        tlv::write_nested(buf, ENTRY, |b| {
            self.name.encode(b);
            write_strategy(b, &self.strategy);
        });
    }

    fn from_value(value: &[u8]) -> Result<Self> {
        let mut it = Elements::new(value);
        let name = first_name(&mut it)?;
        let e = it.next().ok_or(Error::Missing("Strategy"))??;
        e.expect(STRATEGY)?;
        let inner = Element::read_exact_typed(e.value, tt::NAME)?;
        let strategy = NameView::from_element(inner)?.to_owned();
        if let Some(extra) = it.next() {
            skip_or_fail(extra?.typ)?;
        }
        Ok(StrategyChoice { name, strategy })
    }
}

fn first_name(it: &mut Elements<'_>) -> Result<Name> {
    let e = it.next().ok_or(Error::Missing("Name"))??;
    Ok(NameView::from_element(e)?.to_owned())
}

fn skip_or_fail(typ: u64) -> Result<()> {
    if tlv::is_critical(typ) {
        Err(Error::UnknownCritical(typ))
    } else {
        Ok(())
    }
}

/// Decodes a dataset made of repeated 0x80 entries (faces/list, fib/list, rib/list,
/// strategy-choice/list) with `entry` reading each entry's TLV-VALUE.
fn entries<T>(content: &[u8], entry: impl Fn(&[u8]) -> Result<T>) -> Result<Vec<T>> {
    Elements::new(content)
        .map(|e| {
            let e = e?;
            e.expect(ENTRY)?;
            entry(e.value)
        })
        .collect()
}

/// Decodes the Content of `faces/list`.
pub fn decode_faces(content: &[u8]) -> Result<Vec<FaceStatus>> {
    entries(content, FaceStatus::from_value)
}

/// Decodes the Content of `fib/list`.
pub fn decode_fib(content: &[u8]) -> Result<Vec<FibEntry>> {
    entries(content, FibEntry::from_value)
}

/// Decodes the Content of `rib/list`.
pub fn decode_rib(content: &[u8]) -> Result<Vec<RibEntry>> {
    entries(content, RibEntry::from_value)
}

/// Decodes the Content of `strategy-choice/list`.
pub fn decode_strategy_choices(content: &[u8]) -> Result<Vec<StrategyChoice>> {
    entries(content, StrategyChoice::from_value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_status_round_trip_and_required_fields() {
        let f = FaceStatus {
            face_id: 257,
            uri: "unix:///tmp/x.sock".into(),
            local_uri: "fd://12".into(),
            face_scope: 1,
            face_persistency: 1,
            mtu: Some(8800),
            counters: Counters {
                n_in_interests: 5,
                n_out_data: 4,
                ..Default::default()
            },
            n_in_bytes: 1000,
            flags: 1,
            n_queue_drops: Some(3),
            n_queue_drop_bytes: Some(3750),
            ..Default::default()
        };
        let mut buf = Vec::new();
        f.encode_to(&mut buf);
        f.encode_to(&mut buf);
        assert_eq!(decode_faces(&buf), Ok(vec![f.clone(), f.clone()]));
        // the ndnccd counters are non-critical (even types), so NFD's clients skip them
        assert!(!tlv::is_critical(NDNCC_N_QUEUE_DROPS));
        assert!(!tlv::is_critical(NDNCC_N_QUEUE_DROP_BYTES));
        // No FaceId.
        assert!(decode_faces(&[0x80, 4, 0x72, 0, 0x81, 0]).is_err());
    }

    #[test]
    fn general_fib_rib_strategy_round_trip() {
        let g = GeneralStatus {
            nfd_version: "ndnccd 0.1".into(),
            start_timestamp: 1_700_000_000_000,
            n_pit_entries: 3,
            counters: Counters {
                n_out_nacks: 2,
                ..Default::default()
            },
            n_unsatisfied_interests: 9,
            ..Default::default()
        };
        assert_eq!(GeneralStatus::decode(&g.encode()), Ok(g));
        let fib = FibEntry {
            name: Name::from_uri("/a").unwrap(),
            next_hops: vec![
                NextHop {
                    face_id: 1,
                    cost: 0,
                },
                NextHop {
                    face_id: 2,
                    cost: 10,
                },
            ],
        };
        let rib = RibEntry {
            name: Name::from_uri("/b").unwrap(),
            routes: vec![Route {
                face_id: 3,
                origin: 255,
                cost: 1,
                flags: 1,
                expiration_period: Some(10),
            }],
        };
        let sc = StrategyChoice {
            name: Name::from_uri("/").unwrap(),
            strategy: Name::from_uri("/localhost/nfd/strategy/best-route/v=5").unwrap(),
        };
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        fib.encode_to(&mut a);
        rib.encode_to(&mut b);
        sc.encode_to(&mut c);
        assert_eq!(decode_fib(&a), Ok(vec![fib]));
        assert_eq!(decode_rib(&b), Ok(vec![rib]));
        assert_eq!(decode_strategy_choices(&c), Ok(vec![sc]));
        assert!(decode_fib(&[0x81, 0]).is_err());
    }
}
