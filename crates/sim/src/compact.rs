//! The compact form of a resolved spec's long lists (`nodes`, `links`, `apps`).
//!
//! A large generated scenario repeats one record thousands of times with a few fields changed
//! (10 000 pairs: 20 002 nodes, 20 001 links and 20 000 apps, ≈ 11 MB of JSON objects). Besides
//! the plain JSON array of records, each of these lists may be given as an object:
//!
//! ```json
//! {"rows": 3,
//!  "templates": [{"name": "C1", "strategy": "best-route"}],
//!  "template": [0, 0, 0],
//!  "columns": {"name": ["C1", "C2", "C3"]}}
//! ```
//!
//! Row `i` is `templates[template[i]]` (a whole record, parsed as in the plain form, defaults
//! and checks included) with each column's `i`-th value put in place of that field. `template`
//! may be left out when there is one template; `rows` is at most [`MAX_ROWS`]. Only the fields
//! below can be columns (every other field comes from the template): they are the ones that
//! differ from row to row in generated scenarios, and each is set with its type checked.
//!
//! * nodes: `name`, `strategy`, `cs_capacity`;
//! * links: `a`, `b`, `bandwidth_bps`, `delay_ns`, `loss`, `cost`;
//! * apps: `name`, `node`, `start_ns`, `stop_ns`, `prefix` (the producer's or consumer's).
//!
//! Why it is faster: each template goes through serde once (the apps' tagged enums buffer
//! every record in the plain form); a row is a clone of a parsed record plus a few typed
//! stores. `ndncc.scenario.compact` writes this form for long lists (`docs/internals.md`).

use crate::spec::{AppKind, AppSpec, LinkSpec, NodeSpec};
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// A record type that has a compact form: the fields that can be columns, and how to set them.
pub trait Row: DeserializeOwned + Clone {
    /// The list's name in the spec (for errors).
    const LIST: &'static str;
    /// The fields that may be columns.
    const COLUMNS: &'static [&'static str];
    /// Sets column `field` (one of [`Row::COLUMNS`]) to `v`, or says what `v` should be.
    fn set(&mut self, field: &str, v: &Value) -> Result<(), &'static str>;
}

fn string(v: &Value) -> Result<String, &'static str> {
    v.as_str().map(str::to_owned).ok_or("a string")
}
fn uint(v: &Value) -> Result<u64, &'static str> {
    v.as_u64().ok_or("an unsigned integer")
}
fn u32_of(v: &Value) -> Result<u32, &'static str> {
    uint(v)?
        .try_into()
        .map_err(|_| "an unsigned 32-bit integer")
}
fn index(v: &Value) -> Result<usize, &'static str> {
    uint(v)?.try_into().map_err(|_| "an index")
}

impl Row for NodeSpec {
    const LIST: &'static str = "nodes";
    const COLUMNS: &'static [&'static str] = &["name", "strategy", "cs_capacity"];
    fn set(&mut self, field: &str, v: &Value) -> Result<(), &'static str> {
        match field {
            "name" => self.name = string(v)?,
            "strategy" => self.strategy = string(v)?,
            "cs_capacity" => self.cs_capacity = u32_of(v)?,
            _ => unreachable!("checked against COLUMNS"),
        }
        Ok(())
    }
}

impl Row for LinkSpec {
    const LIST: &'static str = "links";
    const COLUMNS: &'static [&'static str] =
        &["a", "b", "bandwidth_bps", "delay_ns", "loss", "cost"];
    fn set(&mut self, field: &str, v: &Value) -> Result<(), &'static str> {
        match field {
            "a" => self.a = index(v)?,
            "b" => self.b = index(v)?,
            "bandwidth_bps" => self.bandwidth_bps = uint(v)?,
            "delay_ns" => self.delay_ns = uint(v)?,
            "loss" => self.loss = v.as_f64().ok_or("a number")?,
            "cost" => self.cost = u32_of(v)?,
            _ => unreachable!("checked against COLUMNS"),
        }
        Ok(())
    }
}

impl Row for AppSpec {
    const LIST: &'static str = "apps";
    const COLUMNS: &'static [&'static str] = &["name", "node", "start_ns", "stop_ns", "prefix"];
    fn set(&mut self, field: &str, v: &Value) -> Result<(), &'static str> {
        match field {
            "name" => self.name = string(v)?,
            "node" => self.node = index(v)?,
            "start_ns" => self.start_ns = uint(v)?,
            "stop_ns" => {
                self.stop_ns = match v {
                    Value::Null => None,
                    v => Some(uint(v).map_err(|_| "null or an unsigned integer")?),
                }
            }
            "prefix" => {
                let p = string(v)?;
                match &mut self.app {
                    AppKind::Producer(x) => x.prefix = p,
                    AppKind::Consumer(x) => x.prefix = p,
                }
            }
            _ => unreachable!("checked against COLUMNS"),
        }
        Ok(())
    }
}

/// The most rows a compact list may declare: the simulator indexes nodes and link directions
/// in 22 bits (`world::events::IDX_BITS`), so no runnable list is longer. Without a bound, a
/// mistyped `rows` with no column to check it against asked for terabytes and aborted.
pub const MAX_ROWS: usize = 1 << 22;

/// The compact form as written (see the module's doc).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Compact<T> {
    rows: usize,
    templates: Vec<T>,
    #[serde(default)]
    template: Option<Vec<usize>>,
    #[serde(default)]
    columns: BTreeMap<String, Vec<Value>>,
}

impl<T: Row> Compact<T> {
    fn expand(self) -> Result<Vec<T>, String> {
        let list = T::LIST;
        let n = self.rows;
        if n > MAX_ROWS {
            return Err(format!(
                "{list}: {n} rows, more than the simulator runs ({MAX_ROWS})"
            ));
        }
        if n > 0 && self.templates.is_empty() {
            return Err(format!("{list}: {n} rows but no templates"));
        }
        if let Some(t) = &self.template {
            if t.len() != n {
                return Err(format!(
                    "{list}: 'template' has {} values for {n} rows",
                    t.len()
                ));
            }
            if let Some(&bad) = t.iter().find(|&&i| i >= self.templates.len()) {
                return Err(format!(
                    "{list}: template {bad} does not exist ({} templates)",
                    self.templates.len()
                ));
            }
        } else if self.templates.len() > 1 {
            return Err(format!(
                "{list}: {} templates need a 'template' column",
                self.templates.len()
            ));
        }
        let mut columns = Vec::with_capacity(self.columns.len());
        for (name, values) in &self.columns {
            let Some(&field) = T::COLUMNS.iter().find(|&&c| c == name) else {
                return Err(format!(
                    "{list}: '{name}' cannot be a column (columns: {})",
                    T::COLUMNS.join(", ")
                ));
            };
            if values.len() != n {
                return Err(format!(
                    "{list}: column '{name}' has {} values for {n} rows",
                    values.len()
                ));
            }
            columns.push((field, values));
        }
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let t = self.template.as_ref().map_or(0, |t| t[i]);
            let mut row = self.templates[t].clone();
            for (field, values) in &columns {
                row.set(field, &values[i])
                    .map_err(|want| format!("{list}: column '{field}' row {i}: expected {want}"))?;
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// Reads a list of records in the plain form (a JSON array) or the compact one (an object):
/// `#[serde(deserialize_with = "crate::compact::rows")]`.
pub(crate) fn rows<'de, D: Deserializer<'de>, T: Row>(d: D) -> Result<Vec<T>, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: Row> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of {} or its compact form (an object)", T::LIST)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(x) = seq.next_element()? {
                out.push(x);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
            let c = Compact::<T>::deserialize(de::value::MapAccessDeserializer::new(map))?;
            c.expand().map_err(de::Error::custom)
        }
    }
    d.deserialize_any(V(PhantomData))
}

#[cfg(test)]
mod tests {
    use crate::ScenarioSpec;

    const HEAD: &str = r#""name": "t", "duration_ns": 1000000000"#;

    fn plain() -> ScenarioSpec {
        ScenarioSpec::from_json(&format!(
            r#"{{{HEAD},
            "nodes": [{{"name": "A"}}, {{"name": "B", "cs_capacity": 5, "strategy": "multicast"}},
                      {{"name": "C"}}],
            "links": [{{"a": 0, "b": 1, "bandwidth_bps": 10, "delay_ns": 7, "cost": 2}},
                      {{"a": 1, "b": 2, "bandwidth_bps": 20, "delay_ns": 9, "loss": 0.5,
                        "cost": 3}}],
            "apps": [{{"name": "c", "node": 0, "start_ns": 3, "stop_ns": 5,
                       "app": {{"kind": "consumer", "prefix": "/x",
                               "controller": {{"type": "constant_rate", "rate": 1.0}}}}}},
                     {{"name": "p", "node": 2,
                       "app": {{"kind": "producer", "prefix": "/y", "payload_size": 100}}}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn compact_lists_read_as_the_plain_ones() {
        let compact = ScenarioSpec::from_json(&format!(
            r#"{{{HEAD},
            "nodes": {{"rows": 3, "templates": [{{"name": "A", "strategy": "t"}}],
                      "columns": {{"name": ["A", "B", "C"], "cs_capacity": [0, 5, 0],
                                  "strategy": ["best-route", "multicast", "best-route"]}}}},
            "links": {{"rows": 2, "templates": [{{"a": 0, "b": 1, "bandwidth_bps": 10,
                                                "delay_ns": 7}}],
                      "columns": {{"a": [0, 1], "b": [1, 2], "bandwidth_bps": [10, 20],
                                  "delay_ns": [7, 9], "loss": [0, 0.5], "cost": [2, 3]}}}},
            "apps": {{"rows": 2, "template": [1, 0],
                     "templates": [{{"name": "p", "node": 1, "start_ns": 9,
                                     "app": {{"kind": "producer",
                                     "prefix": "/w", "payload_size": 100}}}},
                                   {{"name": "c", "node": 1, "app": {{"kind": "consumer",
                                     "prefix": "/z", "controller": {{"type": "constant_rate",
                                     "rate": 1.0}}}}}}],
                     "columns": {{"name": ["c", "p"], "stop_ns": [5, null], "node": [0, 2],
                                 "start_ns": [3, 0],
                                 "prefix": ["/x", "/y"]}}}}}}"#
        ))
        .unwrap();
        assert_eq!(compact, plain());
    }

    fn error(nodes: &str) -> String {
        ScenarioSpec::from_json(&format!(r#"{{{HEAD}, "nodes": {nodes}}}"#))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_compact_lists_get_a_one_line_error() {
        let cases = [
            (
                r#"{"rows": 2, "templates": [{"name": "A"}], "columns": {"name": ["A"]}}"#,
                "nodes: column 'name' has 1 values for 2 rows",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}], "columns": {"schemes": [{}]}}"#,
                "nodes: 'schemes' cannot be a column (columns: name, strategy, cs_capacity)",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}], "columns": {"cs_capacity": [-1]}}"#,
                "nodes: column 'cs_capacity' row 0: expected an unsigned integer",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}], "columns": {"name": [3]}}"#,
                "nodes: column 'name' row 0: expected a string",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}], "template": [1]}"#,
                "nodes: template 1 does not exist (1 templates)",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}, {"name": "B"}]}"#,
                "nodes: 2 templates need a 'template' column",
            ),
            (
                r#"{"rows": 2, "templates": [{"name": "A"}], "template": [0]}"#,
                "nodes: 'template' has 1 values for 2 rows",
            ),
            (
                r#"{"rows": 1, "templates": []}"#,
                "nodes: 1 rows but no templates",
            ),
            (
                r#"{"rows": 1, "templates": [{"name": "A"}], "colums": {}}"#,
                "unknown field `colums`",
            ),
            (
                r#"{"rows": 1, "templates": [{"nam": "A"}]}"#,
                "unknown field `nam`",
            ),
            (r#""A""#, "a list of nodes or its compact form"),
            (
                r#"{"rows": 1000000000000, "templates": [{"name": "A"}]}"#,
                "nodes: 1000000000000 rows, more than the simulator runs (4194304)",
            ),
        ];
        for (nodes, want) in cases {
            let e = error(nodes);
            assert!(e.contains(want), "{nodes}: {e}");
            assert!(
                e.starts_with("invalid scenario: JSON: ") && !e.contains('\n'),
                "{e}"
            );
        }
    }

    #[test]
    fn an_empty_compact_list_is_empty() {
        let s = ScenarioSpec::from_json(&format!(
            r#"{{{HEAD}, "nodes": [{{"name": "A"}}], "apps": {{"rows": 0, "templates": []}}}}"#
        ))
        .unwrap();
        assert!(s.apps.is_empty());
    }
}
