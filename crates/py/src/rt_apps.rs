//! The real-time apps and the forwarder benchmark (`ndncc_rt::apps`, `ndncc_rt::fwbench`) for
//! `ndncc consumer`, `ndncc producer` and `ndncc bench forwarder`. Each runs with the GIL
//! released in steps of at most 100 ms; between steps a pending KeyboardInterrupt ends the run
//! (the report so far is returned with `"interrupted": true`). Reports are JSON strings.

use ndncc_rt::apps::{ConsumerApp, ConsumerOptions, ProducerApp};
use ndncc_rt::client_face::Endpoint;
use ndncc_rt::fwbench::{self, BenchConfig};
use ndncc_sim::spec::{ConsumerSpec, ProducerSpec};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const STEP: Duration = Duration::from_millis(100);

fn endpoint(s: &str) -> PyResult<Endpoint> {
    s.parse().map_err(PyValueError::new_err)
}

fn duration(what: &str, s: Option<f64>) -> PyResult<Option<ndncc_core::Duration>> {
    match s {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => {
            Ok(Some(ndncc_core::Duration::from_secs_f64(s)))
        }
        Some(s) => Err(PyValueError::new_err(format!(
            "{what} must be a positive number of seconds, got {s}"
        ))),
    }
}

/// Steps `step` until it reports done, an error, or Ctrl-C; returns whether interrupted.
fn drive(py: Python<'_>, mut step: impl FnMut() -> std::io::Result<bool> + Send) -> PyResult<bool> {
    loop {
        let done = py
            .detach(&mut step)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        if done {
            return Ok(false);
        }
        if py.check_signals().is_err() {
            return Ok(true);
        }
    }
}

fn with_interrupted<T: serde::Serialize>(report: &T, interrupted: bool) -> PyResult<String> {
    let mut v = serde_json::to_value(report).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    v["interrupted"] = interrupted.into();
    Ok(v.to_string())
}

/// Runs a consumer (`spec_json`: a resolved `[[apps]]` consumer, crates/sim/src/spec.rs
/// `ConsumerSpec`) against the forwarder at `endpoint`; returns its report as JSON.
/// `stop_s`: stop sending then and keep receiving until `duration_s`; `bin_s`: record the
/// per-bin series (`ndncc_rt::app_series`) in the report; `chunk_requests`: `names` or `lp`
/// (`ndncc_rt::app_wire::ChunkWire`).
#[pyfunction]
#[pyo3(signature = (endpoint, spec_json, interest_size=40, duration_s=None, seed=1, stop_s=None, bin_s=None, chunk_requests="names"))]
#[allow(clippy::too_many_arguments)]
pub fn rt_consumer(
    py: Python<'_>,
    endpoint: &str,
    spec_json: &str,
    interest_size: u32,
    duration_s: Option<f64>,
    seed: u64,
    stop_s: Option<f64>,
    bin_s: Option<f64>,
    chunk_requests: &str,
) -> PyResult<String> {
    let ep = self::endpoint(endpoint)?;
    let spec: ConsumerSpec = serde_json::from_str(spec_json)
        .map_err(|e| PyValueError::new_err(format!("consumer spec: {e}")))?;
    let d = duration("duration", duration_s)?;
    let opts = ConsumerOptions {
        stop_sending: duration("stop", stop_s)?,
        series_bin: duration("bin", bin_s)?,
        chunk_wire: chunk_requests.parse().map_err(PyValueError::new_err)?,
    };
    let mut app = py
        .detach(|| ConsumerApp::with_options(&ep, &spec, interest_size, d, seed, opts))
        .map_err(PyRuntimeError::new_err)?;
    let interrupted = drive(py, || app.step(STEP))?;
    with_interrupted(&app.report(), interrupted)
}

/// Runs a producer (`spec_json`: a resolved `ProducerSpec`), registering its prefix on the
/// forwarder first unless `register` is false; returns its report as JSON. With `ready_path`,
/// a file is written there once the prefix is registered (its content: the FaceId or
/// `null`), so that a supervisor knows when consumers may start. `data_wire_size`: every Data
/// TLV is made this many bytes (its Content resized) instead of carrying the spec's payload.
#[pyfunction]
#[pyo3(signature = (endpoint, spec_json, data_overhead=0, duration_s=None, register=true, ready_path=None, data_wire_size=None))]
#[allow(clippy::too_many_arguments)]
pub fn rt_producer(
    py: Python<'_>,
    endpoint: &str,
    spec_json: &str,
    data_overhead: u32,
    duration_s: Option<f64>,
    register: bool,
    ready_path: Option<std::path::PathBuf>,
    data_wire_size: Option<u32>,
) -> PyResult<String> {
    let ep = self::endpoint(endpoint)?;
    let spec: ProducerSpec = serde_json::from_str(spec_json)
        .map_err(|e| PyValueError::new_err(format!("producer spec: {e}")))?;
    let d = duration("duration", duration_s)?;
    let mut app = py
        .detach(|| ProducerApp::new(&ep, &spec, data_overhead, d, register))
        .map_err(PyRuntimeError::new_err)?;
    app.set_data_wire_size(data_wire_size);
    if let Some(path) = ready_path {
        let face = app
            .report()
            .face_id
            .map_or("null".into(), |f| f.to_string());
        std::fs::write(&path, face)
            .map_err(|e| PyRuntimeError::new_err(format!("{}: {e}", path.display())))?;
    }
    let interrupted = drive(py, || app.step(STEP))?;
    with_interrupted(&app.report(), interrupted)
}

/// One forwarder benchmark run (`ndncc_rt::fwbench`); returns its result as JSON.
#[pyfunction]
#[pyo3(signature = (producer, consumer, prefix, window, payload, duration_s, warmup_s=1.0, timeout_s=1.0))]
#[allow(clippy::too_many_arguments)]
pub fn fw_bench(
    py: Python<'_>,
    producer: &str,
    consumer: &str,
    prefix: &str,
    window: usize,
    payload: usize,
    duration_s: f64,
    warmup_s: f64,
    timeout_s: f64,
) -> PyResult<String> {
    let secs = |what: &str, s: f64| -> PyResult<Duration> {
        if s.is_finite() && (0.0..1e6).contains(&s) {
            Ok(Duration::from_secs_f64(s))
        } else {
            Err(PyValueError::new_err(format!(
                "{what} must be 0 to 1e6 s, got {s}"
            )))
        }
    };
    if payload > 8000 {
        return Err(PyValueError::new_err("payload must be at most 8000 bytes"));
    }
    let cfg = BenchConfig {
        producer: endpoint(producer)?,
        consumer: endpoint(consumer)?,
        prefix: prefix.to_string(),
        window,
        payload,
        duration: secs("duration", duration_s)?,
        warmup: secs("warmup", warmup_s)?,
        timeout: secs("timeout", timeout_s)?,
    };
    let stop = AtomicBool::new(false);
    let mut interrupted = false;
    let result = py.detach(|| {
        std::thread::scope(|s| {
            let h = s.spawn(|| fwbench::run(&cfg, &stop));
            while !h.is_finished() {
                std::thread::sleep(Duration::from_millis(50));
                Python::attach(|py| {
                    if py.check_signals().is_err() {
                        interrupted = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                });
            }
            h.join()
                .unwrap_or_else(|_| Err("benchmark thread panicked".into()))
        })
    });
    let r = result.map_err(PyRuntimeError::new_err)?;
    with_interrupted(&r, interrupted)
}
