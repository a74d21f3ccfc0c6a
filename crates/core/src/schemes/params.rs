//! Scheme parameters: one declaration per parameter gives its field, its default, its bounds,
//! its unit and its documentation, and everything else (the `Default` impl, the bound checks,
//! the schema the Python front end validates scenario files against, the generated docs) is
//! derived from it.
//!
//! A scheme declares its config with [`scheme_config!`](crate::scheme_config):
//!
//! ```ignore
//! scheme_config! {
//!     /// Router settings; defaults are seed 002's values.
//!     pub struct SfConfig {
//!         /// D: maximum bucket depth in Interests (seed 002: 50).
//!         depth: f64 = 50.0, Kind::number(1.0);
//!     }
//! }
//! ```
//!
//! Values in a config are in base units: durations in nanoseconds ([`Duration`]), rates in
//! Interests (packets) per second, sizes in bytes. The scenario file writes durations and sizes
//! with units ("100ms", "1250B"); the front end converts them.

use crate::time::Duration;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest rate a parameter may hold: one packet per nanosecond, the simulator's
/// resolution.
pub const MAX_RATE: f64 = 1e9;

/// The Data wire size a size-or-word parameter (`Kind::SizeOr`) takes when a hand-written spec
/// leaves it out (the scenario resolver fills it in from the producers): 1250 B, 10 000 bit.
pub const FALLBACK_DATA_SIZE: u32 = 1250;

/// What values a parameter takes, with its bounds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kind {
    /// A finite number in `[min, max)` (`(min, …` with `min_open`, `…, max]` with
    /// `max_closed`); no upper bound when `max` is `None`.
    Number {
        min: f64,
        min_open: bool,
        max: Option<f64>,
        max_closed: bool,
    },
    /// A rate or a factor of one: a number in `(0, MAX_RATE]`.
    Positive,
    /// A rate in `(0, MAX_RATE]`, or the word `word` for "derived by the resolver or the
    /// scheme" (`None` in the config).
    RateOr { word: &'static str },
    /// A whole number in `[min, max]`.
    Integer { min: u64, max: u64 },
    /// true or false.
    Bool,
    /// A duration (integer nanoseconds in the config); zero refused when `positive`; at least
    /// `min_ns`.
    Time { positive: bool, min_ns: u64 },
    /// A size in bytes in `[min, max]`.
    Size { min: u64, max: u64 },
    /// A size in bytes in `[min, max]`, or the word `word` for "derived by the resolver"
    /// (`None` in the config).
    SizeOr {
        min: u64,
        max: u64,
        word: &'static str,
    },
}

impl Kind {
    /// A number of at least `min` (a closed lower bound, no upper bound).
    pub const fn number(min: f64) -> Kind {
        Kind::Number {
            min,
            min_open: false,
            max: None,
            max_closed: false,
        }
    }
    /// A number in `(min, max)`.
    pub const fn open_range(min: f64, max: f64) -> Kind {
        Kind::Number {
            min,
            min_open: true,
            max: Some(max),
            max_closed: false,
        }
    }
    /// A number in `(min, max]`: a gain or a weight of which `max` is the whole.
    pub const fn open_closed(min: f64, max: f64) -> Kind {
        Kind::Number {
            min,
            min_open: true,
            max: Some(max),
            max_closed: true,
        }
    }
    /// A number in `[min, max)`.
    pub const fn range(min: f64, max: f64) -> Kind {
        Kind::Number {
            min,
            min_open: false,
            max: Some(max),
            max_closed: false,
        }
    }
    /// Any duration, zero included.
    pub const TIME: Kind = Kind::Time {
        positive: false,
        min_ns: 0,
    };
    /// A positive duration.
    pub const POSITIVE_TIME: Kind = Kind::Time {
        positive: true,
        min_ns: 1,
    };
    /// The period of a timer: at least 1 µs (a 1 ns period is 10⁹ events per second).
    pub const PERIOD: Kind = Kind::Time {
        positive: true,
        min_ns: 1_000,
    };
    /// A Data or Interest wire size in bytes.
    pub const PACKET_SIZE: Kind = Kind::Size {
        min: 1,
        max: u32::MAX as u64,
    };

    /// A Data wire size, or "producers": the size the scenario's producers send (payload +
    /// `[packets] data_overhead`), filled in by the resolver.
    pub const DATA_SIZE_OR_PRODUCERS: Kind = Kind::SizeOr {
        min: 1,
        max: u32::MAX as u64,
        word: "producers",
    };

    /// Whether `v` (the parameter's value in a config, as JSON) is allowed; the reason if not.
    pub fn check(&self, v: &serde_json::Value) -> Result<(), String> {
        let num = v.as_f64();
        match self {
            Kind::Number {
                min,
                min_open,
                max,
                max_closed,
            } => {
                let x = num.filter(|x| x.is_finite()).ok_or("not a finite number")?;
                let below = if *min_open { x <= *min } else { x < *min };
                let above = max.is_some_and(|m| if *max_closed { x > m } else { x >= m });
                if below || above {
                    let low = if *min_open { '(' } else { '[' };
                    let high = if *max_closed { ']' } else { ')' };
                    return Err(match max {
                        Some(m) => format!("{x} is not in {low}{min}, {m}{high}"),
                        None => format!("{x} is below {min}"),
                    });
                }
            }
            Kind::Positive => positive_rate(num)?,
            Kind::RateOr { .. } => {
                if !v.is_null() {
                    positive_rate(num)?
                }
            }
            Kind::Integer { min, max } | Kind::Size { min, max } => {
                let x = v.as_u64().ok_or("not a whole number")?;
                if x < *min || x > *max {
                    return Err(format!("{x} is not in [{min}, {max}]"));
                }
            }
            Kind::SizeOr { min, max, .. } => {
                if !v.is_null() {
                    Kind::Size {
                        min: *min,
                        max: *max,
                    }
                    .check(v)?
                }
            }
            Kind::Bool => {
                v.as_bool().ok_or("not true or false")?;
            }
            Kind::Time { positive, min_ns } => {
                let x = v.as_u64().ok_or("not a whole number of nanoseconds")?;
                if (*positive && x == 0) || x < *min_ns {
                    return Err(format!("{x} ns is below {} ns", (*min_ns).max(1)));
                }
            }
        }
        Ok(())
    }
}

/// A number as Python's `{:g}` writes it (6 significant digits, no trailing zeros), for
/// messages.
pub fn g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exp) {
        let s = format!("{x:.5e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn positive_rate(x: Option<f64>) -> Result<(), String> {
    match x {
        Some(x) if x > 0.0 && x <= MAX_RATE => Ok(()),
        Some(x) => Err(format!("{x} is not in (0, {MAX_RATE}]")),
        None => Err("not a number".into()),
    }
}

/// One parameter of a scheme's config.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Param {
    /// The field, as written in scenario files and in the resolved spec.
    pub name: &'static str,
    pub kind: Kind,
    /// The unit of the value in scenario files, for docs ("Interests/s", "bytes", "time").
    pub unit: &'static str,
    /// The default, in the config's base units (`null`: derived, see the doc).
    pub default: serde_json::Value,
    /// The field's doc comment: the paper's symbol first, then what it does.
    pub doc: String,
    /// The scenario must give it (its `default` is then `null`).
    pub required: bool,
    /// A typical value for messages: the default (for a required parameter, the value Rust
    /// tests use).
    pub example: serde_json::Value,
}

/// A config value that breaks a rule: the parameters involved (`keys`, the one to report it
/// at first), what is wrong, how to fix it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    pub keys: Vec<String>,
    pub problem: String,
    pub fix: String,
}

impl Problem {
    pub fn new(keys: &[&str], problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Problem {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// The window controllers' cross-check: `initial_window` below `min_window` is a problem.
    pub fn window_below_floor(initial_window: f64, min_window: f64) -> Option<Problem> {
        (initial_window < min_window).then(|| {
            Problem::new(
                &["initial_window", "min_window"],
                format!("initial_window ({initial_window}) is below min_window ({min_window})"),
                format!("set initial_window to at least {min_window}"),
            )
        })
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (fix: {})",
            self.keys.join(", "),
            self.problem,
            self.fix
        )
    }
}

/// The parameter list [`scheme_config!`](crate::scheme_config) generates for a config.
pub trait Declared {
    /// Every parameter, in declaration order.
    fn param_list() -> Vec<Param>;
}

/// A scheme part's settings: declared with [`scheme_config!`](crate::scheme_config).
pub trait SchemeConfig:
    Declared + Clone + std::fmt::Debug + Default + Serialize + serde::de::DeserializeOwned
{
    /// Every parameter, in declaration order.
    fn params() -> Vec<Param> {
        Self::param_list()
    }

    /// Rules between parameters (each parameter's own bounds are checked by [`Self::validate`]).
    fn cross_checks(&self) -> Vec<Problem> {
        Vec::new()
    }

    /// Every parameter within its bounds, then the cross checks.
    fn validate(&self) -> Vec<Problem> {
        let value = serde_json::to_value(self).expect("a config serializes");
        let mut problems: Vec<Problem> = Self::params()
            .iter()
            .filter_map(|p| {
                let v = value.get(p.name).unwrap_or(&serde_json::Value::Null);
                p.kind.check(v).err().map(|why| {
                    Problem::new(&[p.name], why, format!("see `ndncc schemes`: {}", p.doc))
                })
            })
            .collect();
        if problems.is_empty() {
            problems = self.cross_checks();
        }
        problems
    }
}

/// Declares a scheme's config struct: one line per parameter with its doc comment, type,
/// default and [`Kind`], then its unit for the docs, then optionally `required` (the scenario
/// must give it; the default is then used by Rust tests only).
///
/// Generates the struct (serde, every field defaulted, unknown fields refused), its `Default`
/// and its parameter list ([`Declared`]).
#[macro_export]
macro_rules! scheme_config {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $field:ident : $ty:ty = $default:expr, $kind:expr, $unit:literal $(, $req:ident)?;
            )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $( $(#[doc = $doc])+ pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::schemes::params::Declared for $name {
            fn param_list() -> Vec<$crate::schemes::params::Param> {
                let d = serde_json::to_value($name::default()).expect("a config serializes");
                vec![$(
                    $crate::schemes::params::Param {
                        name: stringify!($field),
                        kind: $kind,
                        unit: $unit,
                        default: if false $(|| stringify!($req) == "required")? {
                            serde_json::Value::Null
                        } else {
                            d[stringify!($field)].clone()
                        },
                        doc: [$($doc.trim()),+].join(" "),
                        required: false $(|| stringify!($req) == "required")?,
                        example: d[stringify!($field)].clone(),
                    },
                )*]
            }
        }
    };
}

/// serde for [`Duration`] in configs: integer nanoseconds.
impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64::deserialize(d).map(Duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_read_as_python_writes_them() {
        assert_eq!(g(1220.703125), "1220.7");
        assert_eq!(g(2000.0), "2000");
        assert_eq!(g(0.5), "0.5");
        assert_eq!(g(1.001), "1.001");
        assert_eq!(g(1e9), "1e+09");
        assert_eq!(g(1e-6), "1e-06");
    }

    #[test]
    fn kinds_check_their_bounds() {
        assert!(Kind::number(1.0).check(&json!(1.0)).is_ok());
        assert!(Kind::number(1.0).check(&json!(0.99)).is_err());
        assert!(Kind::open_range(0.0, 1.0).check(&json!(0.0)).is_err());
        assert!(Kind::open_range(0.0, 1.0).check(&json!(0.5)).is_ok());
        assert!(Kind::open_range(0.0, 1.0).check(&json!(1.0)).is_err());
        assert!(Kind::range(0.0, 1.0).check(&json!(0.0)).is_ok());
        assert!(Kind::open_closed(0.0, 1.0).check(&json!(1.0)).is_ok());
        assert!(Kind::open_closed(0.0, 1.0).check(&json!(1.01)).is_err());
        assert!(Kind::open_closed(0.0, 1.0).check(&json!(0.0)).is_err());
        assert!(Kind::Positive.check(&json!(0.0)).is_err());
        assert!(Kind::Positive.check(&json!(2e9)).is_err());
        assert!(Kind::RateOr { word: "line" }.check(&json!(null)).is_ok());
        assert!(Kind::RateOr { word: "line" }.check(&json!(-1)).is_err());
        assert!(Kind::PERIOD.check(&json!(999)).is_err());
        assert!(Kind::PERIOD.check(&json!(1000)).is_ok());
        assert!(Kind::TIME.check(&json!(0)).is_ok());
        assert!(Kind::POSITIVE_TIME.check(&json!(0)).is_err());
        assert!(Kind::PACKET_SIZE.check(&json!(0)).is_err());
        assert!(Kind::Bool.check(&json!(1)).is_err());
        assert!(Kind::DATA_SIZE_OR_PRODUCERS.check(&json!(null)).is_ok());
        assert!(Kind::DATA_SIZE_OR_PRODUCERS.check(&json!(1054)).is_ok());
        assert!(Kind::DATA_SIZE_OR_PRODUCERS.check(&json!(0)).is_err());
    }
}
