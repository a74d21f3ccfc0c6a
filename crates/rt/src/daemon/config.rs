//! The `ndnccd` configuration file (TOML). Every field has a default; `docs/realtime.md` shows a
//! whole file. Unknown keys are errors (a misspelt knob must not be silently ignored).

use ndncc_core::face::QueueLimit;
use serde::Deserialize;
use std::path::PathBuf;

/// The whole file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub forwarder: ForwarderSection,
    pub listen: ListenSection,
    /// Emulation applied to every face the daemon accepts or creates (unless a `[[face]]`
    /// entry says otherwise).
    pub link: LinkConfig,
    /// Faces opened at start-up.
    #[serde(rename = "face")]
    pub faces: Vec<StaticFace>,
    /// Routes installed at start-up.
    #[serde(rename = "route")]
    pub routes: Vec<StaticRoute>,
    /// The control connection to an SDN controller (`ndnccd sdn-controller`), for a router
    /// module that talks to one (ndnSieve's); absent: none.
    pub sdn: Option<SdnSection>,
}

/// `[sdn]`: where the SDN controller is and who this router is in its topology
/// (`docs/sdn-control-protocol.md`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SdnSection {
    /// "unix:///path" or "tcp://HOST:PORT".
    pub controller: String,
    /// This router's node index in the controller's topology.
    pub node: u32,
    /// The control link's one-way delay, ms: the router holds each message it sends this
    /// long, and tells the controller to hold its messages to this router as long.
    #[serde(default = "default_sdn_delay_ms")]
    pub delay_ms: f64,
    /// False: the router only lends its faces and routes to the controller's topology (its
    /// module's messages are not sent, none come to it).
    #[serde(default = "yes")]
    pub joined: bool,
    /// Per `[[face]]`, in order: the scenario link it is on and the node at its other end
    /// (the faces not listed are not in the topology).
    #[serde(default)]
    pub faces: Vec<SdnFace>,
    /// Reconnection back-off after a failed or lost connection: the first wait, ms, doubling
    /// up to `retry_max_ms`.
    #[serde(default = "default_retry_min_ms")]
    pub retry_min_ms: f64,
    #[serde(default = "default_retry_max_ms")]
    pub retry_max_ms: f64,
}

/// One `[[face]]` in the controller's topology (`[sdn] faces = [{link = 0, peer = 1}, ...]`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SdnFace {
    pub link: u32,
    pub peer: u32,
}

fn default_sdn_delay_ms() -> f64 {
    1.0
}
fn yes() -> bool {
    true
}
fn default_retry_min_ms() -> f64 {
    100.0
}
fn default_retry_max_ms() -> f64 {
    2_000.0
}

/// The largest `forwarder.data_hold_ms` accepted: one hour, ms. Bytes are held for at most
/// `store_max` packets anyway; a longer hold is a typo (or a unit mistake), not a setting.
pub const DATA_HOLD_MAX_MS: u64 = 3_600_000;

/// `[forwarder]`: the core forwarder and the bounds of the face boundary.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ForwarderSection {
    /// A strategy of the core's registry: "best-route", "multicast", "weighted-multipath",
    /// "class-multipath" or "pcon" (`ndnccd --list-modules`).
    pub strategy: String,
    /// Most PIT entries; an Interest that would add one more is dropped (counted).
    pub pit_max: usize,
    /// Most interned names (base prefixes); beyond it new names are hashed (see
    /// `docs/internals.md`).
    pub names_max: usize,
    /// Content Store capacity, packets (0 = off, the default for congestion experiments).
    pub cs_capacity: usize,
    /// Most wire copies kept of Interests and of Data (each), packets.
    pub store_max: usize,
    /// How long a Data's bytes are kept after it arrived, ms (it must outlive its wait in the
    /// emulated queues; the CS keeps none longer). At most [`DATA_HOLD_MAX_MS`].
    pub data_hold_ms: u64,
    /// Largest TLV accepted from a stream face, bytes (a larger announced length closes it).
    pub max_packet: usize,
    /// Most bytes waiting to be written to one stream face before packets to it are dropped.
    pub max_write_buffer: usize,
    /// The router part of a scheme, as in a scenario's `[nodes.X.schemes.<name>]` (the same
    /// keys and units: times as "10ms", sizes as "1500B"): `[forwarder.module.sf]`,
    /// `[forwarder.module.mircc]`, ... (absent: none).
    #[serde(deserialize_with = "module_in_scenario_units")]
    pub module: Option<ndncc_core::schemes::RouterConfig>,
}

impl Default for ForwarderSection {
    fn default() -> Self {
        ForwarderSection {
            strategy: "best-route".into(),
            pit_max: 65_536,
            names_max: 100_000,
            cs_capacity: 0,
            store_max: 65_536,
            data_hold_ms: 10_000,
            max_packet: 8_800,
            max_write_buffer: 4 << 20,
            module: None,
        }
    }
}

/// `[listen]`: where faces are accepted. Each is optional; none at all is an error.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ListenSection {
    /// Unix stream socket path (python-ndn's default is `/run/nfd/nfd.sock`).
    pub unix: Option<PathBuf>,
    /// TCP address, e.g. "127.0.0.1:6363".
    pub tcp: Option<String>,
    /// UDP address, e.g. "127.0.0.1:6363": one face per remote address.
    pub udp: Option<String>,
}

/// User-space link emulation of a face's outgoing direction: a transmit queue drained at
/// `bandwidth_mbps`, then `delay_ms` of propagation. Without a bandwidth, packets leave as fast
/// as the socket takes them (the queue then only fills while the socket is full).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Mbit/s (1 Mbit = 10^6 bits); absent: not emulated.
    pub bandwidth_mbps: Option<f64>,
    /// One-way propagation delay, ms.
    pub delay_ms: f64,
    /// Transmit-queue capacity (drop-tail), as a scenario's `queue` writes it: packets
    /// ("100p") or bytes ("1500KB", "64KiB", "20000B"). A byte queue admits a packet while the
    /// bytes waiting plus its own (its NDN wire size) stay within the capacity.
    #[serde(deserialize_with = "queue_in_scenario_units")]
    pub queue: QueueLimit,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            bandwidth_mbps: None,
            delay_ms: 0.0,
            queue: QueueLimit::Packets(1000),
        }
    }
}

/// `queue = "100p"` or `queue = "1500KB"`: a scenario's queue capacity.
fn queue_in_scenario_units<'de, D: serde::Deserializer<'de>>(d: D) -> Result<QueueLimit, D::Error> {
    use serde::de::Error;
    match toml::Value::deserialize(d)? {
        toml::Value::String(s) => super::units::parse_queue(&s).map_err(D::Error::custom),
        other => Err(D::Error::custom(format!(
            "queue: expected a capacity such as \"100p\" (packets) or \"1500KB\" (bytes), got \
             {other}"
        ))),
    }
}

/// A `[[face]]`: a face opened at start-up.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StaticFace {
    /// "udp4://HOST:PORT", "tcp4://HOST:PORT" or "unix:///path".
    pub uri: String,
    /// This face's emulation (default: the `[link]` section).
    pub link: Option<LinkConfig>,
}

/// A `[[route]]`: prefix → the `face`-th `[[face]]` (0-based), with a cost.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StaticRoute {
    pub prefix: String,
    pub face: usize,
    #[serde(default)]
    pub cost: u32,
}

/// `[forwarder.module.<scheme>]` read as a scenario's `[nodes.X.schemes.<scheme>]`: the
/// scheme's times and sizes are converted from scenario units by its declared parameter kinds
/// (the registry's schema), then the table is the scheme's config.
fn module_in_scenario_units<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<ndncc_core::schemes::RouterConfig>, D::Error> {
    use serde::de::Error;
    let schema = ndncc_core::schemes::registry::schema();
    let value = serde_json::Value::deserialize(d)?;
    let tagged = scheme_table_in_scenario_units(&schema.routers, "forwarder.module", value)
        .map_err(D::Error::custom)?;
    let name = tagged
        .as_object()
        .and_then(|t| t.keys().next().cloned())
        .unwrap_or_default();
    serde_json::from_value(tagged)
        .map(Some)
        .map_err(|e| D::Error::custom(format!("forwarder.module.{name}: {e}")))
}

/// A table of one scheme part `{<name>: {key: value, ...}}` at `section` (e.g.
/// `forwarder.module`, the controller's `component`) in a scenario's units, converted by the
/// part's declared parameter kinds (`entries`: the registry's schema of routers or
/// components) to the part's config as JSON, tagged (`{<tag>: {...}}`); the error is one line.
pub fn scheme_table_in_scenario_units(
    entries: &[ndncc_core::schemes::registry::SchemaEntry],
    section: &str,
    value: serde_json::Value,
) -> Result<serde_json::Value, String> {
    use ndncc_core::schemes::params::Kind;
    use serde_json::Value;

    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
    let table = match value {
        Value::Object(t) => t,
        _ => {
            return Err(format!(
                "{section} must be a table of one scheme, e.g. [{section}.{}] (schemes: {})",
                names.first().copied().unwrap_or("name"),
                names.join(", ")
            ))
        }
    };
    if table.len() != 1 {
        return Err(format!(
            "{section} holds one scheme, got {} ({}); schemes: {}",
            table.len(),
            table.keys().cloned().collect::<Vec<_>>().join(", "),
            names.join(", ")
        ));
    }
    let (name, body) = table.into_iter().next().expect("one entry");
    let Some(entry) = entries.iter().find(|e| e.name == name || e.tag == name) else {
        return Err(format!(
            "{section}.{name}: unknown scheme (schemes: {})",
            names.join(", ")
        ));
    };
    let Value::Object(mut body) = body else {
        return Err(format!(
            "{section}.{name} must be a table of the scheme's keys (docs/schemes/\
             parameters.md)"
        ));
    };
    for (key, value) in body.iter_mut() {
        let Some(param) = entry.params.iter().find(|p| p.name == key) else {
            continue; // an unknown key: the scheme's config refuses it, naming the keys
        };
        let word = match &param.kind {
            Kind::SizeOr { word, .. } | Kind::RateOr { word } => Some(*word),
            _ => None,
        };
        if let (Some(w), Value::String(s)) = (word, &*value) {
            if s.trim().eq_ignore_ascii_case(w) {
                *value = Value::Null;
                continue;
            }
        }
        type Parse = fn(&str) -> Result<u64, String>;
        let (parse, what, example): (Parse, &str, &str) = match &param.kind {
            Kind::Time { .. } => (super::units::parse_time, "a time", "100ms"),
            Kind::Size { .. } | Kind::SizeOr { .. } => {
                (super::units::parse_size, "a size", "1250B")
            }
            _ => continue,
        };
        let text = match &*value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err(format!(
                    "{section}.{name}.{key}: expected {what} such as \"{example}\", got {other}"
                ))
            }
        };
        let n = parse(&text).map_err(|e| format!("{section}.{name}.{key}: {e}"))?;
        *value = Value::from(n);
    }
    Ok(Value::Object(
        [(entry.tag.clone(), Value::Object(body))]
            .into_iter()
            .collect(),
    ))
}

impl Config {
    /// Parses and checks a configuration text; the error is one line.
    pub fn parse(text: &str) -> Result<Config, String> {
        let c: Config = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            match e.span() {
                Some(s) => {
                    let before = text.get(..s.start).unwrap_or(text);
                    let line = before.matches('\n').count() + 1;
                    format!("line {line}: {msg}")
                }
                None => msg,
            }
        })?;
        c.check()?;
        Ok(c)
    }

    fn check(&self) -> Result<(), String> {
        let f = &self.forwarder;
        if !super::modules::knows_strategy(&f.strategy) {
            return Err(format!(
                "forwarder.strategy: unknown strategy {:?} ({})",
                f.strategy,
                super::modules::strategy_names().join(", ")
            ));
        }
        for (what, v) in [
            ("pit_max", f.pit_max),
            ("names_max", f.names_max),
            ("store_max", f.store_max),
            ("max_packet", f.max_packet),
            ("max_write_buffer", f.max_write_buffer),
        ] {
            if v == 0 {
                return Err(format!("forwarder.{what} must be at least 1"));
            }
        }
        if f.data_hold_ms > DATA_HOLD_MAX_MS {
            return Err(format!(
                "forwarder.data_hold_ms = {} is too long: at most {DATA_HOLD_MAX_MS} ms (1 h)",
                f.data_hold_ms
            ));
        }
        if let Some(m) = &f.module {
            if let Some(p) = m.validate().first() {
                return Err(format!(
                    "forwarder.module.{}.{}: {} ({})",
                    m.name(),
                    p.keys.join(", "),
                    p.problem,
                    p.fix
                ));
            }
        }
        if let Some(sdn) = &self.sdn {
            sdn.check(self.faces.len())?;
        }
        let l = &self.listen;
        if l.unix.is_none() && l.tcp.is_none() && l.udp.is_none() && self.faces.is_empty() {
            return Err("nothing to listen on: set [listen] unix, tcp or udp".into());
        }
        for (i, face) in self.faces.iter().enumerate() {
            face.link
                .unwrap_or(self.link)
                .check(&format!("face[{i}].link"))?;
        }
        self.link.check("link")?;
        for (i, r) in self.routes.iter().enumerate() {
            if r.face >= self.faces.len() {
                return Err(format!(
                    "route[{i}]: face {} does not exist ({} [[face]] entries)",
                    r.face,
                    self.faces.len()
                ));
            }
            if ndncc_wire::Name::from_uri(&r.prefix).is_err() {
                return Err(format!("route[{i}]: {:?} is not an NDN name", r.prefix));
            }
        }
        Ok(())
    }
}

impl SdnSection {
    fn check(&self, faces: usize) -> Result<(), String> {
        crate::sdn::Address::parse(&self.controller).map_err(|e| format!("sdn.controller: {e}"))?;
        if !(self.delay_ms.is_finite() && self.delay_ms >= 0.0) {
            return Err("sdn.delay_ms must be a non-negative number".into());
        }
        if self.faces.len() > faces {
            return Err(format!(
                "sdn.faces lists {} faces but there are {faces} [[face]] entries",
                self.faces.len()
            ));
        }
        if !(self.retry_min_ms.is_finite() && self.retry_min_ms > 0.0) {
            return Err("sdn.retry_min_ms must be a positive number".into());
        }
        if !(self.retry_max_ms.is_finite() && self.retry_max_ms >= self.retry_min_ms) {
            return Err("sdn.retry_max_ms must be at least sdn.retry_min_ms".into());
        }
        Ok(())
    }
}

impl LinkConfig {
    fn check(&self, at: &str) -> Result<(), String> {
        if let Some(b) = self.bandwidth_mbps {
            if !(b.is_finite() && b > 0.0) {
                return Err(format!("{at}.bandwidth_mbps must be a positive number"));
            }
        }
        if !(self.delay_ms.is_finite() && self.delay_ms >= 0.0) {
            return Err(format!("{at}.delay_ms must be a non-negative number"));
        }
        if matches!(self.queue, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
            return Err(format!("{at}.queue must be at least 1 packet or 1 byte"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_file_parses_and_defaults_fill_the_rest() {
        let c = Config::parse(
            r#"
            [forwarder]
            strategy = "multicast"
            pit_max = 10
            [listen]
            unix = "/tmp/x.sock"
            [link]
            bandwidth_mbps = 10
            delay_ms = 5
            [[face]]
            uri = "udp4://127.0.0.1:6364"
            [[route]]
            prefix = "/p"
            face = 0
            cost = 3
            "#,
        )
        .unwrap();
        assert_eq!(c.forwarder.pit_max, 10);
        assert_eq!(c.forwarder.names_max, 100_000);
        assert_eq!(c.link.bandwidth_mbps, Some(10.0));
        assert_eq!(c.link.queue, QueueLimit::Packets(1000));
        assert_eq!(c.routes[0].cost, 3);
        assert!(c.forwarder.module.is_none());
    }

    #[test]
    fn a_router_module_is_chosen_as_in_a_scenario() {
        let c = Config::parse("[listen]\ntcp = \"x\"\n[forwarder.module.sf]\n").unwrap();
        assert_eq!(c.forwarder.module.as_ref().map(|m| m.name()), Some("sf"));
        let e = Config::parse("[listen]\ntcp = \"x\"\n[forwarder.module.fastest]\n").unwrap_err();
        assert!(e.contains("fastest"), "{e}");
    }

    /// The `[forwarder.module.<name>]` table `body` parses to, as JSON.
    fn module_json(name: &str, body: &str) -> serde_json::Value {
        let c = Config::parse(&format!(
            "[listen]\ntcp = \"x\"\n[forwarder.module.{name}]\n{body}"
        ))
        .unwrap();
        serde_json::to_value(c.forwarder.module.unwrap()).unwrap()
    }

    #[test]
    fn a_module_takes_the_units_of_a_scenario() {
        let v = module_json(
            "mircc",
            "interval = \"10ms\"\ndata_size = \"1500B\"\ninitial_rtt = \"1.5s\"\n\
             leak_randomize = 0\n",
        );
        assert_eq!(v["mircc"]["interval"], 10_000_000);
        assert_eq!(v["mircc"]["data_size"], 1500);
        assert_eq!(v["mircc"]["initial_rtt"], 1_500_000_000u64);
        assert_eq!(v["mircc"]["leak_randomize"], 0);
        let v = module_json(
            "chopcop",
            "fisp_capacity = \"1500KB\"\nfisp_period = \"5ms\"\n",
        );
        assert_eq!(v["chopcop"]["fisp_capacity"], 1_500_000);
        assert_eq!(v["chopcop"]["fisp_period"], 5_000_000);
        let v = module_json("sf", "data_size = \"producers\"\n");
        assert!(v["sf"]["data_size"].is_null());
        // what a scenario refuses, the daemon refuses, naming the key, on one line
        for (body, want) in [
            ("interval = 100000000", "has no unit"),
            ("interval = \"-1ms\"", "negative"),
            ("interval = \"10parsecs\"", "unknown time unit"),
            ("interval = true", "expected a time"),
            ("data_size = \"12Kb\"", "bits"),
            ("interval = \"1ns\"", "interval"),
            ("intervall = \"10ms\"", "unknown field"),
        ] {
            let text = format!("[listen]\ntcp = \"x\"\n[forwarder.module.mircc]\n{body}\n");
            let e = Config::parse(&text).unwrap_err();
            assert!(e.contains(want), "{body}: {e}");
            // a reading error names the module table's line; a bound, the key
            assert!(e.contains("line 3") || want == "interval", "{body}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e = Config::parse(
            "[listen]\ntcp = \"x\"\n[forwarder.module.sf]\n[forwarder.module.mircc]\n",
        )
        .unwrap_err();
        assert!(e.contains("one scheme"), "{e}");
    }

    #[test]
    fn the_sdn_section_parses_and_its_mistakes_are_one_line_errors() {
        let base = "[listen]\ntcp = \"x\"\n[[face]]\nuri = \"udp4://127.0.0.1:1\"\n";
        let c = Config::parse(&format!(
            "{base}[sdn]\ncontroller = \"unix:///tmp/s.sock\"\nnode = 3\n\
             faces = [{{ link = 2, peer = 4 }}]\n"
        ))
        .unwrap();
        let s = c.sdn.unwrap();
        assert_eq!((s.node, s.delay_ms, s.joined), (3, 1.0, true));
        assert_eq!(s.faces, vec![SdnFace { link: 2, peer: 4 }]);
        assert_eq!((s.retry_min_ms, s.retry_max_ms), (100.0, 2000.0));
        for (sdn, want) in [
            ("controller = \"/tmp/s\"\nnode = 1", "sdn.controller"),
            ("controller = \"tcp://h\"\nnode = 1", "tcp://HOST:PORT"),
            ("controller = \"unix:///s\"", "missing field `node`"),
            (
                "controller = \"unix:///s\"\nnode = 1\ndelay_ms = -1",
                "sdn.delay_ms",
            ),
            (
                "controller = \"unix:///s\"\nnode = 1\nfaces = [{link=0,peer=1},{link=1,peer=2}]",
                "2 faces but there are 1",
            ),
            (
                "controller = \"unix:///s\"\nnode = 1\nretry_min_ms = 10\nretry_max_ms = 5",
                "retry_max_ms",
            ),
            (
                "controller = \"unix:///s\"\nnode = 1\nnode_name = \"R1\"",
                "unknown field",
            ),
        ] {
            let e = Config::parse(&format!("{base}[sdn]\n{sdn}\n")).unwrap_err();
            assert!(e.contains(want), "{sdn}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn mistakes_are_one_line_errors() {
        let bad = [
            ("[forwarder]\npit_maxx = 3\n[listen]\ntcp=\"x\"", "line 2"),
            (
                "[forwarder]\nstrategy = \"fastest\"\n[listen]\ntcp=\"x\"",
                "unknown strategy",
            ),
            ("", "nothing to listen on"),
            ("[listen]\ntcp=\"x\"\n[link]\ndelay_ms = -1", "delay_ms"),
            (
                "[listen]\ntcp=\"x\"\n[[route]]\nprefix=\"/p\"\nface=0",
                "does not exist",
            ),
            ("[forwarder]\npit_max = 0\n[listen]\ntcp=\"x\"", "pit_max"),
            (
                "[forwarder]\ndata_hold_ms = 9223372036854775807\n[listen]\ntcp=\"x\"",
                "data_hold_ms",
            ),
            (
                "[forwarder]\ndata_hold_ms = 3600001\n[listen]\ntcp=\"x\"",
                "at most 3600000 ms",
            ),
        ];
        let edge = "[forwarder]\ndata_hold_ms = 3600000\n[listen]\ntcp=\"x\"";
        assert_eq!(
            Config::parse(edge).unwrap().forwarder.data_hold_ms,
            3_600_000
        );
        for (text, want) in bad {
            let e = Config::parse(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
