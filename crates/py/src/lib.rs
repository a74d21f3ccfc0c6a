//! `ndncc._core`: the Python binding. The only crate that knows Python.
//!
//! One entry point, `run(spec_json, progress=None, tables=True) -> dict`, documented in
//! `docs/internals.md`. The simulator runs with the GIL released; the progress callback is
//! called with the GIL re-acquired, and a pending KeyboardInterrupt stops the run.

mod rt_apps;

use ndncc_sim::{
    run as sim_run, run_deferred as sim_run_deferred, RunOptions, ScenarioSpec, SimError,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

/// Runs a resolved scenario (JSON, see `crates/sim/src/spec.rs`) and returns
/// `{"summary": str, "meta": str, "tables": {table: {column: (dtype, bytes)}}, "phases": {…}}`.
/// `phases` holds the wall-clock seconds of the call's parts (`parse_s`, `routes_s`, `build_s`,
/// `loop_s`, `report_s`, `tables_s`, `teardown_s` of the network, `serialize_s` of the summary
/// and metadata to JSON, `free_s` of the parsed spec and Rust outputs): measurements for
/// `ndncc bench`, never part of the summary or the tables.
///
/// A large run (`ndncc_sim::is_large_network`) is freed on a background thread
/// (`ndncc_sim::deferred`): its `teardown_s` and `free_s` are then only the hand-over, and
/// [`settle`] waits for the freeing and returns how long it took.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None, tables=true))]
fn run<'py>(
    py: Python<'py>,
    spec_json: &str,
    progress: Option<Py<PyAny>>,
    tables: bool,
) -> PyResult<Bound<'py, PyDict>> {
    // the previous run's garbage first, so a loop of runs never holds more than one of them
    py.detach(ndncc_sim::deferred::settle);
    let started = std::time::Instant::now();
    let spec =
        ScenarioSpec::from_json(spec_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let parse_s = started.elapsed().as_secs_f64();
    let duration_s = spec.duration_ns as f64 * 1e-9;
    let big = ndncc_sim::is_large_network(&spec);
    if big {
        // huge pages for the network about to be built if NDNCC_HUGE_PAGES=1 (speed only)
        ndncc_sim::hugepages::prepare_if_requested();
    }
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
        if big {
            sim_run_deferred(&spec, &opts, &mut cb).map(|(out, left)| (out, Some(left)))
        } else {
            sim_run(&spec, &opts, &mut cb).map(|out| (out, None))
        }
    });
    let (mut out, leftovers) = match result {
        Ok(out) => out,
        Err(SimError::Interrupted) => {
            return Err(py_error.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted")))
        }
        Err(SimError::Spec(e)) => return Err(PyValueError::new_err(e.to_string())),
    };
    let d = PyDict::new(py);
    let started = std::time::Instant::now();
    // one thread: two did not pay in a fresh process (benches/README.md, eighth sitting)
    let (summary, meta) = py.detach(|| {
        (
            serde_json::to_string(&out.summary),
            serde_json::to_string(&out.meta),
        )
    });
    let (summary, meta) = (
        summary.map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        meta.map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
    );
    d.set_item("summary", PyString::new(py, &summary))?;
    d.set_item("meta", PyString::new(py, &meta))?;
    let serialize_s = started.elapsed().as_secs_f64();
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
    let p = out.phases;
    let started = std::time::Instant::now();
    if let Some(left) = leftovers {
        let tables = std::mem::take(&mut out.tables);
        ndncc_sim::deferred::drop_later((left, spec, out, summary, meta, tables));
    } else {
        drop((out, spec, summary, meta));
    }
    let free_s = started.elapsed().as_secs_f64();
    let phases = PyDict::new(py);
    for (k, v) in [
        ("parse_s", parse_s),
        ("routes_s", p.routes_s),
        ("build_s", p.build_s),
        ("loop_s", p.loop_s),
        ("report_s", p.report_s),
        ("tables_s", p.tables_s),
        ("teardown_s", p.teardown_s),
        ("serialize_s", serialize_s),
        ("free_s", free_s),
    ] {
        phases.set_item(k, v)?;
    }
    d.set_item("phases", phases)?;
    Ok(d)
}

/// Waits until the memory of the last large run is freed (see [`run`]); returns the seconds
/// the background thread took to free it, or None when nothing was pending. `ndncc bench`
/// calls it before reading the process's CPU time, so that `cpu_s` includes the freeing.
#[pyfunction]
fn settle(py: Python<'_>) -> Option<f64> {
    py.detach(ndncc_sim::deferred::settle)
}

/// Runs a UDP send loop on the OS clock (seed 003). `engine` is "rfc3448", "rfc3448-burst" or
/// "rmc"; `rates` a list of (time s, bits/s) steps starting at 0. Returns a dict with
/// `bin_bytes` (list), `packets`, `bytes`, `send_errors`, `wakeups`, `received_bytes`,
/// `elapsed_s`, `interrupted`, `wakes` (with `trace_wakes`: (time s, packets) per sending
/// wake-up) and `wait_t` / `wait_ns` (with `trace_waits`: each wake-up's time in s and waiting
/// time in ns). Ctrl-C stops the loop (KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (engine, rates, packet_size, duration_s, kr=1.0, period_s=0.001, granularity_s=0.001, bin_s=0.1, target=None, trace_wakes=false, trace_waits=false))]
#[allow(clippy::too_many_arguments)]
fn sendloop<'py>(
    py: Python<'py>,
    engine: &str,
    rates: Vec<(f64, f64)>,
    packet_size: usize,
    duration_s: f64,
    kr: f64,
    period_s: f64,
    granularity_s: f64,
    bin_s: f64,
    target: Option<String>,
    trace_wakes: bool,
    trace_waits: bool,
) -> PyResult<Bound<'py, PyDict>> {
    use ndncc_core::pacing::{Engine, Rfc3448, Rmc};
    use ndncc_rt::sendloop::{run as loop_run, RateStep, SendLoopConfig};
    use std::sync::atomic::{AtomicBool, Ordering};

    let engine = match engine {
        "rfc3448" => Engine::Rfc3448(Rfc3448::new(false, secs("granularity", granularity_s)?)),
        "rfc3448-burst" => Engine::Rfc3448(Rfc3448::new(true, secs("granularity", granularity_s)?)),
        "rmc" => {
            if !(kr > 0.0 && kr < 2.0) {
                return Err(PyValueError::new_err("kr must be in (0, 2)"));
            }
            Engine::Rmc(Rmc::new(kr, secs("period", period_s)?))
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown engine '{other}' (rfc3448, rfc3448-burst, rmc)"
            )))
        }
    };
    let ordered = rates.windows(2).all(|w| w[0].0 <= w[1].0);
    if rates.is_empty()
        || rates[0].0 != 0.0
        || !ordered
        || rates.iter().any(|&(_, r)| r.is_nan() || r <= 0.0)
    {
        return Err(PyValueError::new_err(
            "rates must start at time 0, be in time order and be positive",
        ));
    }
    if rates.iter().any(|&(_, r)| !r.is_finite()) {
        return Err(PyValueError::new_err("rates must be finite"));
    }
    if packet_size == 0 || packet_size > 65507 {
        return Err(PyValueError::new_err(
            "packet_size must be 1-65507 bytes (a UDP datagram)",
        ));
    }
    let bin = secs("bin", bin_s)?;
    if bin.0 == 0 {
        return Err(PyValueError::new_err("bin must be positive"));
    }
    let mut steps = Vec::with_capacity(rates.len());
    for &(t, bps) in &rates {
        steps.push(RateStep {
            at: secs("rate step time", t)?,
            bps,
        });
    }
    let target = match target {
        Some(t) => Some(
            t.parse()
                .map_err(|e| PyValueError::new_err(format!("target '{t}': {e}")))?,
        ),
        None => None,
    };
    let cfg = SendLoopConfig {
        engine,
        rates: steps,
        packet_size,
        duration: secs("duration", duration_s)?,
        target,
        bin,
        trace_wakes,
        trace_waits,
    };
    let stop = AtomicBool::new(false);
    let mut interrupted: Option<PyErr> = None;
    let result = py.detach(|| {
        std::thread::scope(|s| {
            let h = s.spawn(|| loop_run(&cfg, &stop));
            while !h.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(50));
                Python::attach(|py| {
                    if let Err(e) = py.check_signals() {
                        interrupted = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                });
            }
            h.join().expect("send loop thread")
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let r = result.map_err(|e| PyRuntimeError::new_err(format!("send loop: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("bin_bytes", r.bin_bytes)?;
    d.set_item("packets", r.packets)?;
    d.set_item("bytes", r.bytes)?;
    d.set_item("send_errors", r.send_errors)?;
    d.set_item("unsent", r.unsent)?;
    d.set_item("wakeups", r.wakeups)?;
    d.set_item("received_bytes", r.received_bytes)?;
    d.set_item("elapsed_s", r.elapsed_s)?;
    d.set_item("interrupted", r.interrupted)?;
    let wakes: Vec<(f64, u32)> = r.wakes.iter().map(|(t, n)| (t.as_secs_f64(), *n)).collect();
    d.set_item("wakes", wakes)?;
    // waiting times as two flat lists (times in s, waits in ns): a 60 s run has ~10^6 of them
    let (wait_t, wait_ns): (Vec<f64>, Vec<u64>) =
        r.waits.iter().map(|(t, w)| (t.as_secs_f64(), w.0)).unzip();
    d.set_item("wait_t", wait_t)?;
    d.set_item("wait_ns", wait_ns)?;
    Ok(d)
}

/// A resolved spec (JSON, plain or with compact lists) as the simulator reads it, written back
/// as plain JSON (every list as records, every default filled in): for tests of the compact
/// form. A spec that does not parse is a ValueError.
#[pyfunction]
fn parse_spec(spec_json: &str) -> PyResult<String> {
    let spec =
        ScenarioSpec::from_json(spec_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    serde_json::to_string(&spec).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Sleeps `requested_s` `count` times on the OS clock; returns the overshoots in ns.
#[pyfunction]
fn sleep_overshoot(py: Python<'_>, requested_s: f64, count: usize) -> PyResult<Vec<u64>> {
    let d = secs("requested", requested_s)?;
    let d = std::time::Duration::from_nanos(d.0);
    Ok(py.detach(|| ndncc_rt::probe::sleep_overshoot(d, count)))
}

/// The longest time the real-time functions take: 10^6 s (11.6 days).
const MAX_SECS: f64 = 1e6;

/// A time argument in seconds as a [`ndncc_core::Duration`]: finite, ≥ 0 and at most
/// [`MAX_SECS`] (a ValueError otherwise, never a panic).
fn secs(what: &str, s: f64) -> PyResult<ndncc_core::Duration> {
    if !(0.0..=MAX_SECS).contains(&s) {
        return Err(PyValueError::new_err(format!(
            "{what} must be between 0 and {MAX_SECS:e} s, got {s}"
        )));
    }
    Ok(ndncc_core::Duration::from_secs_f64(s))
}

/// The ndncc version compiled into the native module.
/// Every registered scheme part with its parameters, as JSON (`ndncc_core::schemes::registry`).
#[pyfunction]
fn scheme_schema() -> PyResult<String> {
    serde_json::to_string(&ndncc_core::schemes::registry::schema())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The strategies and router modules ndnccd loads, as JSON `{"strategies": [...], "modules":
/// [...]}` (`ndncc_rt::daemon::modules`; what `ndnccd --list-modules` prints). `ndncc emulate`
/// accepts exactly these.
#[pyfunction]
fn ndnccd_modules() -> String {
    ndncc_rt::daemon::modules::list_json()
}

/// The cross-parameter problems of a scheme part's resolved config (`kind`: "router" or
/// "controller"; `config`: JSON in the resolved spec's shape), as JSON `[{keys, problem, fix}]`;
/// a config that does not parse is a ValueError.
#[pyfunction]
fn check_scheme(kind: &str, config: &str) -> PyResult<String> {
    use ndncc_core::schemes::{ControllerConfig, RouterConfig};
    let bad = |e: serde_json::Error| PyValueError::new_err(e.to_string());
    let problems = match kind {
        "router" => {
            // keyed by the scheme's name as the scenario writes it ("hr-icp") or by its tag
            let map: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(config).map_err(bad)?;
            let tagged: serde_json::Map<_, _> = map
                .into_iter()
                .map(|(k, v)| (ndncc_core::schemes::registry::scheme_tag(&k), v))
                .collect();
            serde_json::from_value::<RouterConfig>(tagged.into())
                .map_err(bad)?
                .validate()
        }
        "controller" => serde_json::from_str::<ControllerConfig>(config)
            .map_err(bad)?
            .validate(),
        "component" => {
            serde_json::from_str::<ndncc_core::schemes::components::ComponentConfig>(config)
                .map_err(bad)?
                .validate()
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown scheme part kind {kind}"
            )))
        }
    };
    serde_json::to_string(&problems).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The FIB entries on net faces the simulator installs for a resolved scenario (JSON): a list of
/// `(node, prefix, link, cost)`, static `[[routes]]` and computed shortest-path ones
/// (`crates/sim/src/routing.rs`).
#[pyfunction]
fn routes(spec_json: &str) -> PyResult<Vec<(usize, String, usize, u32)>> {
    let spec =
        ScenarioSpec::from_json(spec_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    spec.check()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut names = ndncc_core::NameTable::new();
    let routes = ndncc_sim::routing::routes(&spec, &mut names);
    Ok(routes
        .iter()
        .map(|r| {
            (
                r.node as usize,
                names.uri(r.prefix),
                r.link as usize,
                r.cost,
            )
        })
        .collect())
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(settle, m)?)?;
    m.add_function(wrap_pyfunction!(parse_spec, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(routes, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_schema, m)?)?;
    m.add_function(wrap_pyfunction!(ndnccd_modules, m)?)?;
    m.add_function(wrap_pyfunction!(check_scheme, m)?)?;
    m.add_function(wrap_pyfunction!(sendloop, m)?)?;
    m.add_function(wrap_pyfunction!(sleep_overshoot, m)?)?;
    m.add_function(wrap_pyfunction!(rt_apps::rt_consumer, m)?)?;
    m.add_function(wrap_pyfunction!(rt_apps::rt_producer, m)?)?;
    m.add_function(wrap_pyfunction!(rt_apps::fw_bench, m)?)?;
    Ok(())
}
