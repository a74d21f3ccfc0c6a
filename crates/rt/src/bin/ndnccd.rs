//! `ndnccd [CONFIG.toml] [--unix PATH] [--tcp HOST:PORT] [--udp HOST:PORT]`: the ndncc
//! forwarder daemon (`docs/realtime.md`). The flags override or complete the file's `[listen]`
//! section. Stops on SIGINT / SIGTERM and prints its counters as one JSON line on stderr.
//! `ndnccd --list-modules` prints the strategies and router modules it loads as one JSON line
//! (`{"strategies": [...], "modules": [...]}`) and exits.
//!
//! `ndnccd sdn-controller CONFIG.toml`: the SDN controller instead
//! (`docs/sdn-control-protocol.md`); it prints `sdn-controller: stopped {...}` when stopped.

use ndncc_rt::daemon::config::Config;
use ndncc_rt::daemon::Daemon;

const USAGE: &str =
    "usage: ndnccd [CONFIG.toml] [--unix PATH] [--tcp HOST:PORT] [--udp HOST:PORT] \
                     | ndnccd --list-modules | ndnccd sdn-controller CONFIG.toml";

fn fail(msg: &str) -> ! {
    eprintln!("ndnccd: {msg}");
    std::process::exit(2)
}

const CONTROLLER_USAGE: &str = "usage: ndnccd sdn-controller CONFIG.toml";

fn controller(mut args: impl Iterator<Item = String>) {
    use ndncc_rt::sdn::controller::{Controller, ControllerConfig};
    let fail = |msg: &str| -> ! {
        eprintln!("sdn-controller: {msg}");
        std::process::exit(2)
    };
    let path = match args.next() {
        Some(a) if a == "-h" || a == "--help" => {
            println!("{CONTROLLER_USAGE}");
            return;
        }
        Some(a) if !a.starts_with('-') => a,
        Some(a) => fail(&format!("unknown option {a}; {CONTROLLER_USAGE}")),
        None => fail(&format!(
            "a configuration file is needed; {CONTROLLER_USAGE}"
        )),
    };
    if let Some(a) = args.next() {
        fail(&format!("unexpected argument {a:?}; {CONTROLLER_USAGE}"));
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")));
    let cfg = ControllerConfig::parse(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let mut c = Controller::bind(cfg).unwrap_or_else(|e| fail(&e));
    c.stop_on_signals().unwrap_or_else(|e| fail(&e));
    let at: Vec<String> = c.addresses().iter().map(|a| a.to_string()).collect();
    eprintln!("sdn-controller: running ({})", at.join(", "));
    match c.run() {
        Ok(_) => eprintln!("sdn-controller: stopped {}", c.report()),
        Err(e) => fail(&e),
    }
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "sdn-controller") {
        args.next();
        controller(args);
        return;
    }
    let mut file = None;
    let (mut unix, mut tcp, mut udp) = (None, None, None);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value; {USAGE}")))
        };
        match a.as_str() {
            "--unix" => unix = Some(value("--unix")),
            "--tcp" => tcp = Some(value("--tcp")),
            "--udp" => udp = Some(value("--udp")),
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            "--list-modules" => {
                println!("{}", ndncc_rt::daemon::modules::list_json());
                return;
            }
            s if s.starts_with('-') => fail(&format!("unknown option {s}; {USAGE}")),
            s if file.is_none() => file = Some(s.to_string()),
            s => fail(&format!("unexpected argument {s:?}; {USAGE}")),
        }
    }
    let text = match &file {
        Some(path) => std::fs::read_to_string(path)
            .unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}"))),
        None => String::new(),
    };
    let mut with_flags = text.clone();
    // flags override the file: append a [listen] table only when the file has none
    if unix.is_some() || tcp.is_some() || udp.is_some() {
        let mut cfg: toml::Table = toml::from_str(&text).unwrap_or_default();
        let listen = cfg
            .entry("listen")
            .or_insert_with(|| toml::Value::Table(Default::default()));
        if let toml::Value::Table(t) = listen {
            for (k, v) in [("unix", &unix), ("tcp", &tcp), ("udp", &udp)] {
                if let Some(v) = v {
                    t.insert(k.into(), toml::Value::String(v.clone()));
                }
            }
        }
        with_flags = toml::to_string(&cfg).unwrap_or(text);
    }
    let where_ = file.as_deref().unwrap_or("the command line");
    let cfg = Config::parse(&with_flags).unwrap_or_else(|e| fail(&format!("{where_}: {e}")));
    let mut d = Daemon::bind(cfg).unwrap_or_else(|e| fail(&e));
    d.stop_on_signals().unwrap_or_else(|e| fail(&e));
    eprintln!("ndnccd: running ({})", d.describe());
    match d.run() {
        Ok(_) => eprintln!("ndnccd: stopped {}", d.report()),
        Err(e) => fail(&e),
    }
}
