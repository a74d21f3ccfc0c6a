//! Names that arrive from the network: wire names to the core's interned [`Name`]s.
//!
//! The node owns its [`NameTable`] (the daemon's forwarder holds the only reference) and grows
//! it here, at the face boundary. The mapping is canonical, so an Interest and the Data that
//! answers it always meet on the same core name:
//!
//! * a trailing SegmentNameComponent (`seg=N`) becomes the core sequence `N`, a trailing
//!   SequenceNumNameComponent (`seq=N`) the sequence `N | 2^62` (`N < 2^62`): segments and
//!   sequence numbers are never interned, so a transfer adds one table entry, not one per packet;
//! * every other component is interned under its parent, keyed by its URI form (`"A"`,
//!   `"v=3"`, `"32=x"`), so `/prefix/A` from a config file and from a socket are one id;
//! * the table is bounded (`max_entries`): once it is full, the components not yet interned are
//!   hashed (SipHash with a per-process random key) into the sequence `h | 2^63`, under the
//!   deepest interned ancestor. Longest-prefix match still works (routes are always interned,
//!   and a route is an ancestor of the names it serves); flood names cost no table memory.
//!
//! Registered prefixes ([`NameMapper::intern_prefix`]) are interned whole, whatever the bound.

use ndncc_core::name::{Name, NameId, NameTable};
use ndncc_wire::name::NameView;
use ndncc_wire::tt;
use rustc_hash::{FxHashMap, FxHasher};
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// The sequence bit of a trailing SequenceNumNameComponent.
pub const SEQNUM_BIT: u64 = 1 << 62;
/// The sequence bit of a hashed remainder.
pub const HASHED_BIT: u64 = 1 << 63;

/// Maps wire names to core names, growing the node's table within a bound. One mapper serves
/// one table (its cache holds that table's ids).
#[derive(Debug)]
pub struct NameMapper {
    max_entries: usize,
    hasher: RandomState,
    /// Names mapped through the hashed fallback (the table was full).
    pub hashed: u64,
    /// (parent, component) → child, by a hash of the wire component, checked on every hit:
    /// a hit skips writing the component's URI key and the table's string lookup (a third of
    /// the daemon's instructions per packet before it). At most one entry per table entry
    /// mapped (a colliding key replaces the older one).
    cache: FxHashMap<u64, CacheEntry>,
}

#[derive(Debug)]
struct CacheEntry {
    parent: NameId,
    typ: u64,
    value: Box<[u8]>,
    child: NameId,
}

fn cache_key(parent: NameId, typ: u64, value: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u32(parent.0);
    h.write_u64(typ);
    h.write(value);
    h.finish()
}

impl NameMapper {
    /// `max_entries`: the most entries the table may reach through [`NameMapper::to_core`].
    pub fn new(max_entries: usize) -> Self {
        NameMapper {
            max_entries,
            hasher: RandomState::new(),
            hashed: 0,
            cache: FxHashMap::default(),
        }
    }

    /// The core name of a wire name (interning what is missing, within the bound).
    pub fn to_core(&mut self, table: &mut NameTable, name: &NameView<'_>) -> Name {
        let comps: Vec<_> = name.components().collect();
        let (body, seq) = match comps.split_last() {
            Some((last, rest)) => match trailing_seq(last.typ, last.value) {
                Some(s) => (rest, Some(s)),
                None => (comps.as_slice(), None),
            },
            None => (comps.as_slice(), None),
        };
        let mut cur = NameId::ROOT;
        for (i, c) in body.iter().enumerate() {
            let key = cache_key(cur, c.typ, c.value);
            if let Some(e) = self.cache.get(&key) {
                if e.parent == cur && e.typ == c.typ && *e.value == *c.value {
                    cur = e.child;
                    continue;
                }
            }
            let text = component_key(c);
            let parent = cur;
            cur = match table.child(cur, &text) {
                Some(id) => id,
                None if table.len() < self.max_entries => table.intern_child(cur, &text),
                None => {
                    self.hashed += 1;
                    let mut h = self.hasher.build_hasher();
                    for rest in comps.iter().skip(i) {
                        h.write_u64(rest.typ);
                        h.write(rest.value);
                        h.write_u8(0xff);
                    }
                    return Name {
                        base: cur,
                        seq: Some(h.finish() | HASHED_BIT),
                    };
                }
            };
            self.cache.insert(
                key,
                CacheEntry {
                    parent,
                    typ: c.typ,
                    value: c.value.into(),
                    child: cur,
                },
            );
        }
        Name { base: cur, seq }
    }

    /// Interns a registered prefix whole (every component, no sequence), ignoring the bound.
    pub fn intern_prefix(table: &mut NameTable, name: &NameView<'_>) -> NameId {
        name.components().fold(NameId::ROOT, |cur, c| {
            table.intern_child(cur, &component_key(&c))
        })
    }

    /// The wire form of an interned prefix (for management datasets).
    pub fn prefix_to_wire(table: &NameTable, id: NameId) -> ndncc_wire::Name {
        let comps = table
            .components(id)
            .into_iter()
            .filter_map(|c| ndncc_wire::Component::from_uri(c).ok())
            .collect();
        ndncc_wire::Name::from_components(comps)
    }
}

/// True when `value` is a NonNegativeInteger in its shortest form (1, 2, 4 or 8 bytes).
fn minimal_nonneg(value: &[u8]) -> bool {
    let n = value.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
    match value.len() {
        1 => true,
        2 => n > 0xff,
        4 => n > 0xffff,
        8 => n > 0xffff_ffff,
        _ => false,
    }
}

/// The table key of a component: its URI form, except that a number-typed component (`seg`,
/// `off`, `v`, `t`, `seq`) whose value is not a minimal NonNegativeInteger is written
/// `TYPE=%XX..` (its URI form would print the number, `seg=1` for bytes 00 01, and two names
/// would share one id). The key still parses back to the same component.
fn component_key(c: &ndncc_wire::name::ComponentView<'_>) -> String {
    let number_typed = matches!(
        c.typ,
        tt::SEGMENT_NAME_COMPONENT
            | tt::BYTE_OFFSET_NAME_COMPONENT
            | tt::VERSION_NAME_COMPONENT
            | tt::TIMESTAMP_NAME_COMPONENT
            | tt::SEQUENCE_NUM_NAME_COMPONENT
    );
    if number_typed && !minimal_nonneg(c.value) {
        let mut s = format!("{}=", c.typ);
        for b in c.value {
            s.push_str(&format!("%{b:02X}"));
        }
        s
    } else {
        c.to_string()
    }
}

/// The core sequence of a trailing segment or sequence-number component, if its value is a
/// minimally encoded NonNegativeInteger (1, 2, 4 or 8 bytes, the shortest that holds it). Any
/// other encoding (`seg=%00%01`, three bytes, ...) is a distinct NDN name: it is interned by its
/// URI form instead, so it never meets the core name of `seg=1`.
fn trailing_seq(typ: u64, value: &[u8]) -> Option<u64> {
    if !minimal_nonneg(value) {
        return None;
    }
    let n = value.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
    match typ {
        tt::SEGMENT_NAME_COMPONENT if n < SEQNUM_BIT => Some(n),
        tt::SEQUENCE_NUM_NAME_COMPONENT if n < SEQNUM_BIT => Some(n | SEQNUM_BIT),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_wire::Name as WName;

    fn core(m: &mut NameMapper, t: &mut NameTable, uri: &str) -> Name {
        let w = WName::from_uri(uri).unwrap().to_wire();
        m.to_core(t, &NameView::decode(&w).unwrap())
    }

    #[test]
    fn cached_components_map_like_the_table() {
        let mut t = NameTable::new();
        let mut m = NameMapper::new(1000);
        let names = [
            "/a/x", "/b/x", "/a/x/y", "/b/x/y", "/x", "/a/32=x", "/a/%01", "/a/%02",
        ];
        // twice: the second round is answered from the cache and must agree with the first
        let first: Vec<Name> = names.iter().map(|u| core(&mut m, &mut t, u)).collect();
        let second: Vec<Name> = names.iter().map(|u| core(&mut m, &mut t, u)).collect();
        assert_eq!(first, second);
        for (u, n) in names.iter().zip(&first) {
            assert_eq!(n.base, t.intern(u), "{u}");
        }
        let distinct: std::collections::HashSet<_> = first.iter().collect();
        assert_eq!(distinct.len(), names.len());
        assert_eq!(
            m.cache.len(),
            t.len() - 1,
            "one entry per interned name, root excluded"
        );
    }

    #[test]
    fn segments_and_sequence_numbers_are_not_interned() {
        let mut t = NameTable::new();
        let p = t.intern("/prefix/A");
        let mut m = NameMapper::new(1000);
        let a = core(&mut m, &mut t, "/prefix/A/seg=7");
        assert_eq!(a, Name::new(p, 7));
        let b = core(&mut m, &mut t, "/prefix/A/seq=7");
        assert_eq!(b, Name::new(p, 7 | SEQNUM_BIT));
        assert_ne!(a, b);
        assert_eq!(core(&mut m, &mut t, "/prefix/A"), Name::prefix(p));
        assert_eq!(t.len(), 3, "nothing new interned");
        let v = core(&mut m, &mut t, "/prefix/A/v=3/seg=0");
        assert_eq!(t.uri(v.base), "/prefix/A/v=3");
        assert_eq!(v.seq, Some(0));
    }

    #[test]
    fn only_minimal_nonnegative_integers_are_sequences() {
        let mut t = NameTable::new();
        let p = t.intern("/p");
        let mut m = NameMapper::new(1000);
        let one = core(&mut m, &mut t, "/p/seg=1");
        assert_eq!(one, Name::new(p, 1));
        assert_eq!(
            core(&mut m, &mut t, "/p/50=%01"),
            one,
            "the same wire bytes"
        );
        for (uri, n) in [
            ("/p/seg=256", 256),
            ("/p/seg=65536", 65536),
            ("/p/seq=1", 1),
        ] {
            let c = core(&mut m, &mut t, uri);
            assert_eq!(c.base, p, "{uri}");
            assert_eq!(c.seq.map(|s| s & !SEQNUM_BIT), Some(n), "{uri}");
        }
        // value bytes 00 01, 00 00 01 00, 00 01 00, ...: other names, kept apart
        let mut seen = vec![one, Name::new(p, 256), Name::new(p, 1 | SEQNUM_BIT)];
        for uri in [
            "/p/50=%00%01",
            "/p/50=%00%00%01%00",
            "/p/50=%00%01%00",
            "/p/58=%00%01",
            "/p/50=%00%00%00%00%00%00%00%01",
        ] {
            let c = core(&mut m, &mut t, uri);
            assert!(!seen.contains(&c), "{uri} collides with {c:?}");
            assert_eq!(
                core(&mut m, &mut t, uri),
                c,
                "{uri} maps the same way twice"
            );
            seen.push(c);
        }
        // inside a name too: /p/seg=1/x and /p/50=%00%01/x are two names
        let a = core(&mut m, &mut t, "/p/seg=1/x");
        let b = core(&mut m, &mut t, "/p/50=%00%01/x");
        assert_ne!(a, b);
        assert_eq!(
            NameMapper::prefix_to_wire(&t, b.base),
            WName::from_uri("/p/50=%00%01/x").unwrap(),
            "the key parses back to the same bytes"
        );
    }

    #[test]
    fn a_full_table_hashes_new_names_under_their_deepest_ancestor() {
        let mut t = NameTable::new();
        let p = t.intern("/p");
        let mut m = NameMapper::new(t.len());
        let x = core(&mut m, &mut t, "/p/x/y");
        let y = core(&mut m, &mut t, "/p/x/z");
        assert_eq!(x.base, p);
        assert_eq!(
            core(&mut m, &mut t, "/p/x/y"),
            x,
            "the same name maps the same way"
        );
        assert_ne!(x, y);
        assert!(x.seq.unwrap() & HASHED_BIT != 0);
        assert_eq!(t.len(), 2);
        assert_eq!(m.hashed, 3);
        // registrations are interned whatever the bound
        let w = WName::from_uri("/q/r").unwrap().to_wire();
        let q = NameMapper::intern_prefix(&mut t, &NameView::decode(&w).unwrap());
        assert_eq!(t.uri(q), "/q/r");
        assert_eq!(NameMapper::prefix_to_wire(&t, q).to_string(), "/q/r");
    }

    #[test]
    fn typed_and_escaped_components_round_trip_through_the_table() {
        let mut t = NameTable::new();
        let mut m = NameMapper::new(100);
        let n = core(&mut m, &mut t, "/a%20b/v=5/32=kw");
        assert_eq!(n.seq, None);
        let back = NameMapper::prefix_to_wire(&t, n.base);
        assert_eq!(back, WName::from_uri("/a%20b/v=5/32=kw").unwrap());
    }
}
