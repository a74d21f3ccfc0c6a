//! Columnar results of a run.

use serde::Serialize;

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
}

impl Column {
    /// numpy dtype string of the column's little-endian bytes.
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::F64(_) => "<f8",
            Column::U64(_) => "<u8",
            Column::U32(_) => "<u4",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Little-endian raw bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Column::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Column::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Column::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
}

/// A table: named columns of equal length, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Static description of the simulated network (`meta` in `docs/internals.md`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Meta {
    pub nodes: Vec<String>,
    pub faces: Vec<FaceMeta>,
    pub apps: Vec<AppMeta>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FaceMeta {
    pub node: u32,
    pub face: u32,
    pub kind: &'static str,
    pub descr: String,
    pub peer: Option<u32>,
    pub link: Option<u32>,
    pub app: Option<u32>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AppMeta {
    pub name: String,
    pub node: u32,
    pub kind: &'static str,
    pub prefix: String,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct SimOutput {
    pub summary: crate::summary::Summary,
    pub meta: Meta,
    /// `app_series`, `face_series`, `node_series`, `delays` (empty when tables are off).
    pub tables: Vec<(String, Table)>,
    /// Wall-clock time of the run's phases (a measurement: not part of the outputs above).
    pub phases: crate::phases::Phases,
}

impl SimOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}
