//! `ndncc._core`: the Python binding. The only crate that knows Python.
//!
//! One entry point, `run(spec_json, progress=None, tables=True) -> dict`, documented in
//! `docs/internals.md`. The simulator runs with the GIL released; the progress callback is
//! called with the GIL re-acquired, and a pending KeyboardInterrupt stops the run.

use ndncc_sim::{run as sim_run, RunOptions, ScenarioSpec, SimError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

/// Runs a resolved scenario (JSON, see `crates/sim/src/spec.rs`) and returns
/// `{"summary": str, "meta": str, "tables": {table: {column: (dtype, bytes)}}}`.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None, tables=true))]
fn run<'py>(
    py: Python<'py>,
    spec_json: &str,
    progress: Option<Py<PyAny>>,
    tables: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let spec =
        ScenarioSpec::from_json(spec_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let duration_s = spec.duration_ns as f64 * 1e-9;
    let opts = RunOptions {
        tables,
        ..RunOptions::default()
    };
    let mut py_error: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut cb = |t: f64| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    py_error = Some(e);
                    return false;
                }
                if let Some(f) = &progress {
                    if let Err(e) = f.call1(py, (t, duration_s)) {
                        py_error = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        sim_run(&spec, &opts, &mut cb)
    });
    let out = match result {
        Ok(out) => out,
        Err(SimError::Interrupted) => {
            return Err(py_error.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted")))
        }
        Err(SimError::Spec(e)) => return Err(PyValueError::new_err(e.to_string())),
    };
    let to_json =
        |v: &dyn erased::Ser| v.json().map_err(|e| PyRuntimeError::new_err(e.to_string()));
    let d = PyDict::new(py);
    d.set_item("summary", to_json(&out.summary)?)?;
    d.set_item("meta", to_json(&out.meta)?)?;
    let tabs = PyDict::new(py);
    for (name, table) in &out.tables {
        let cols = PyDict::new(py);
        for (cname, col) in &table.columns {
            let raw = PyBytes::new(py, &col.to_le_bytes());
            let pair = PyTuple::new(
                py,
                [col.dtype().into_pyobject(py)?.into_any(), raw.into_any()],
            )?;
            cols.set_item(cname, pair)?;
        }
        tabs.set_item(name, cols)?;
    }
    d.set_item("tables", tabs)?;
    Ok(d)
}

mod erased {
    /// Serialize-to-JSON behind a trait object.
    pub trait Ser {
        fn json(&self) -> serde_json::Result<String>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> serde_json::Result<String> {
            serde_json::to_string(self)
        }
    }
}

/// The ndncc version compiled into the native module.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
