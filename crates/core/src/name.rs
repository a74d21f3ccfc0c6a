//! Interned names.
//!
//! A simulated name is a *base* — an interned prefix such as `/prefix/A` — plus an optional
//! sequence (segment) number: `/prefix/A/seq=17`. Bases are interned once at set-up in a
//! [`NameTable`] that every node shares; each base knows its parent, so longest-prefix match
//! walks up the parent chain without allocating. Sequence numbers are never interned.
//!
//! The simulator's table is built at set-up and frozen (shared by every node through an `Arc`).
//! The real-time driver (`ndncc-rt`) owns its node's table alone and grows it at the face
//! boundary, one component at a time ([`NameTable::child`], [`NameTable::intern_child`]); see
//! `docs/internals.md`, "Names that arrive from the network". Nothing here is on the
//! simulator's per-packet path.

use rustc_hash::FxHashMap;
use std::fmt;

/// Index of an interned base name in a [`NameTable`]. `NameId(0)` is the root `/`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

impl NameId {
    pub const ROOT: NameId = NameId(0);
}

/// A full name: an interned base plus an optional sequence-number component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub base: NameId,
    /// The last component, a sequence (segment) number; `None` for a bare prefix.
    pub seq: Option<u64>,
}

impl Name {
    pub fn new(base: NameId, seq: u64) -> Name {
        Name {
            base,
            seq: Some(seq),
        }
    }
    pub fn prefix(base: NameId) -> Name {
        Name { base, seq: None }
    }
}

/// The set of interned base names.
#[derive(Clone, Debug)]
pub struct NameTable {
    /// For each id: (parent id, the last component). The root is its own parent.
    entries: Vec<(NameId, String)>,
    index: FxHashMap<(NameId, String), NameId>,
}

impl Default for NameTable {
    fn default() -> Self {
        NameTable {
            entries: vec![(NameId::ROOT, String::new())],
            index: FxHashMap::default(),
        }
    }
}

impl NameTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a URI such as `/prefix/A` (and all its ancestors) and returns its id.
    /// Empty components (`//`) are ignored; `/` is the root.
    pub fn intern(&mut self, uri: &str) -> NameId {
        let mut cur = NameId::ROOT;
        for comp in uri.split('/').filter(|c| !c.is_empty()) {
            let key = (cur, comp.to_string());
            cur = match self.index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = NameId(self.entries.len() as u32);
                    self.entries.push((cur, comp.to_string()));
                    self.index.insert(key, id);
                    id
                }
            };
        }
        cur
    }

    /// The child `comp` of `parent`, if interned (the component in its URI form).
    pub fn child(&self, parent: NameId, comp: &str) -> Option<NameId> {
        // the key is owned; a lookup allocates one String (the driver's path, not the sim's)
        self.index.get(&(parent, comp.to_string())).copied()
    }

    /// Interns the child `comp` (URI form, non-empty) of `parent` and returns its id.
    pub fn intern_child(&mut self, parent: NameId, comp: &str) -> NameId {
        let key = (parent, comp.to_string());
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = NameId(self.entries.len() as u32);
        self.entries.push((parent, comp.to_string()));
        self.index.insert(key, id);
        id
    }

    /// The last component of `id` in URI form (empty for the root).
    pub fn component(&self, id: NameId) -> &str {
        self.entries[id.0 as usize].1.as_str()
    }

    /// The components of `id` from the root down, in URI form.
    pub fn components(&self, id: NameId) -> Vec<&str> {
        let mut comps = Vec::new();
        let mut cur = id;
        while let Some(p) = self.parent(cur) {
            comps.push(self.entries[cur.0 as usize].1.as_str());
            cur = p;
        }
        comps.reverse();
        comps
    }

    /// The id of an already-interned URI.
    pub fn lookup(&self, uri: &str) -> Option<NameId> {
        let mut cur = NameId::ROOT;
        for comp in uri.split('/').filter(|c| !c.is_empty()) {
            cur = *self.index.get(&(cur, comp.to_string()))?;
        }
        Some(cur)
    }

    /// The parent of `id`, `None` for the root.
    pub fn parent(&self, id: NameId) -> Option<NameId> {
        if id == NameId::ROOT {
            None
        } else {
            Some(self.entries[id.0 as usize].0)
        }
    }

    /// True if `prefix` is `id` or one of its ancestors.
    pub fn is_prefix_of(&self, prefix: NameId, mut id: NameId) -> bool {
        loop {
            if id == prefix {
                return true;
            }
            match self.parent(id) {
                Some(p) => id = p,
                None => return false,
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The URI of a base name.
    pub fn uri(&self, id: NameId) -> String {
        format!("/{}", self.components(id).join("/"))
    }

    /// A displayable full name, e.g. `/prefix/A/seq=17`.
    pub fn display(&self, name: Name) -> impl fmt::Display + '_ {
        struct D<'a>(&'a NameTable, Name);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let base = self.0.uri(self.1.base);
                match self.1.seq {
                    Some(s) if base == "/" => write!(f, "/seq={s}"),
                    Some(s) => write!(f, "{base}/seq={s}"),
                    None => write!(f, "{base}"),
                }
            }
        }
        D(self, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent_and_hierarchical() {
        let mut t = NameTable::new();
        let a = t.intern("/prefix/A");
        let p = t.lookup("/prefix").unwrap();
        assert_eq!(t.intern("prefix/A/"), a);
        assert_eq!(t.parent(a), Some(p));
        assert_eq!(t.parent(p), Some(NameId::ROOT));
        assert!(t.is_prefix_of(p, a));
        assert!(!t.is_prefix_of(a, p));
        assert_eq!(t.uri(a), "/prefix/A");
        assert_eq!(t.uri(NameId::ROOT), "/");
        assert_eq!(format!("{}", t.display(Name::new(a, 3))), "/prefix/A/seq=3");
        assert_eq!(t.lookup("/nope"), None);
    }

    #[test]
    fn children_grow_the_table_one_component_at_a_time() {
        let mut t = NameTable::new();
        let p = t.intern("/prefix");
        assert_eq!(t.child(p, "A"), None);
        let a = t.intern_child(p, "A");
        assert_eq!(t.child(p, "A"), Some(a));
        assert_eq!(t.intern_child(p, "A"), a);
        assert_eq!(t.lookup("/prefix/A"), Some(a));
        assert_eq!(t.component(a), "A");
        assert_eq!(t.components(a), ["prefix", "A"]);
        assert_eq!(t.len(), 3);
    }
}
