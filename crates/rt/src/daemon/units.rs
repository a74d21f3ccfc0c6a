//! Times, sizes and queue capacities as a scenario file writes them ("10ms", "1500KB", "100p"),
//! for the router module's table in the daemon's config (`[forwarder.module.<scheme>]`), so that
//! table reads exactly like a scenario's `[nodes.NAME.schemes.<scheme>]`, and for the links'
//! `queue`. The rules are the Python front end's
//! (`python/ndncc/units.py`): a bare number is taken only when it is zero, negative values are
//! refused, the result must be a whole number of nanoseconds or bytes.

/// A time as integer nanoseconds: `"100ms"`, `"1.5s"`, `"250us"`, `"2min"`, or 0.
pub fn parse_time(text: &str) -> Result<u64, String> {
    let (number, unit) = split(text, "a time", "100ms")?;
    // units are read whatever their case, as the Python front end reads them ("10MS")
    let factor: u128 = match unit.to_lowercase().as_str() {
        "" => return zero_or_missing(number, text, "a time", "ms"),
        "ns" | "nsec" => 1,
        "us" | "µs" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        other => {
            return Err(format!(
                "unknown time unit '{other}' in {text:?} (fix: write e.g. \"100ms\"; units: ns, \
                 us, ms, s, min, h)"
            ))
        }
    };
    whole(
        number,
        factor,
        text,
        "nanoseconds",
        1_000_000_000_000_000_000,
    )
}

/// A size as bytes: `"1250B"`, `"1500KB"` (KB = 1000 B), `"64KiB"` (1024 B), or 0.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (number, unit) = split(text, "a size", "1250B")?;
    if unit.is_empty() {
        return zero_or_missing(number, text, "a size", "B");
    }
    if unit.eq_ignore_ascii_case("byte") || unit.eq_ignore_ascii_case("bytes") {
        return whole(number, 1, text, "bytes", u64::MAX as u128);
    }
    let (body, base) = unit.split_at(unit.len() - 1);
    if base == "b" {
        return Err(format!(
            "'b' in {text:?} means bits; sizes are in bytes (fix: write e.g. \"1250B\")"
        ));
    }
    let (prefix, binary) = match body.strip_suffix('i') {
        Some(p) if !p.is_empty() => (p, true),
        _ => (body, false),
    };
    let power = match prefix.to_ascii_lowercase().as_str() {
        "" if !binary => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        _ => usize::MAX,
    };
    if base != "B" || power == usize::MAX {
        return Err(format!(
            "unknown size unit '{unit}' in {text:?} (fix: write e.g. \"1250B\"; units: B, KB, \
             MB, GB, KiB, MiB, GiB)"
        ));
    }
    let factor = if binary { 1024u128 } else { 1000 }.pow(power as u32);
    whole(number, factor, text, "bytes", u64::MAX as u128)
}

/// A queue capacity as a scenario writes it (`python/ndncc/units.py`, `parse_queue`): packets
/// (`"100p"`, `"100 packets"`; units p, pkt, pkts, packet, packets) or a size as
/// [`parse_size`] reads it (`"1500KB"`, `"64KiB"`, `"20000B"`).
pub fn parse_queue(text: &str) -> Result<ndncc_core::face::QueueLimit, String> {
    use ndncc_core::face::QueueLimit;
    let (number, unit) = split(text, "a queue capacity", "100p")?;
    if unit.is_empty() {
        let shown = text.trim();
        return Err(format!(
            "queue capacity {shown:?} has no unit (fix: write \"{shown}p\" for packets or \
             \"{shown}KB\" for kilobytes)"
        ));
    }
    if ["p", "pkt", "pkts", "packet", "packets"]
        .iter()
        .any(|u| unit.eq_ignore_ascii_case(u))
    {
        let n = whole(number, 1, text, "packets", u32::MAX as u128)?;
        return Ok(QueueLimit::Packets(n as u32));
    }
    parse_size(text).map(QueueLimit::Bytes).map_err(|e| {
        if e.starts_with("unknown size unit") {
            format!(
                "unknown queue unit '{unit}' in {text:?} (fix: write e.g. \"100p\" or \
                 \"1500KB\"; units: p (packets), B, KB, MB, KiB, MiB)"
            )
        } else {
            e
        }
    })
}

/// An exact non-negative decimal: `digits / 10^scale`.
struct Decimal {
    digits: u128,
    scale: u32,
}

fn split<'a>(text: &'a str, what: &str, example: &str) -> Result<(Decimal, &'a str), String> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '+'
                || c == '-'
                || ((c == 'e' || c == 'E')
                    && t[i + 1..]
                        .starts_with(|n: char| n.is_ascii_digit() || n == '-' || n == '+')))
        })
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = (&t[..end], t[end..].trim());
    let bad = || format!("cannot read {text:?} as {what} (fix: write e.g. \"{example}\")");
    if num.starts_with('-') {
        return Err(format!(
            "{what} must not be negative, got {text:?} (fix: write e.g. \"{example}\")"
        ));
    }
    let num = num.strip_prefix('+').unwrap_or(num);
    let (mantissa, exp) = match num.find(['e', 'E']) {
        Some(i) => (&num[..i], num[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (num, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    let mut digits: u128 = format!("{int}{frac}").parse().map_err(|_| bad())?;
    let mut scale = frac.len() as i64 - exp as i64;
    while scale < 0 {
        digits = digits.checked_mul(10).ok_or_else(bad)?;
        scale += 1;
    }
    let scale = u32::try_from(scale).map_err(|_| bad())?;
    Ok((Decimal { digits, scale }, unit))
}

fn zero_or_missing(n: Decimal, text: &str, what: &str, unit: &str) -> Result<u64, String> {
    if n.digits == 0 {
        return Ok(0);
    }
    Err(format!(
        "{what} {:?} has no unit (fix: write \"{}{unit}\"; a bare number is taken only when it \
         is 0)",
        text.trim(),
        text.trim()
    ))
}

fn whole(n: Decimal, factor: u128, text: &str, of: &str, largest: u128) -> Result<u64, String> {
    let too_large = || format!("{text:?} is too large (fix: write a smaller value)");
    let scaled = n.digits.checked_mul(factor).ok_or_else(too_large)?;
    let divisor = 10u128.checked_pow(n.scale).ok_or_else(too_large)?;
    if scaled % divisor != 0 {
        return Err(format!(
            "{text:?} is not a whole number of {of} (fix: round it to a whole number of {of})"
        ));
    }
    let v = scaled / divisor;
    if v > largest {
        return Err(too_large());
    }
    Ok(v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_a_scenario_writes_them() {
        assert_eq!(parse_time("10ms"), Ok(10_000_000));
        // any case, as python/ndncc/units.py reads them
        assert_eq!(parse_time("10MS"), Ok(10_000_000));
        assert_eq!(parse_time("2Min"), Ok(120_000_000_000));
        assert_eq!(parse_time("250µS"), Ok(250_000));
        assert_eq!(parse_time("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_time(" 250 us "), Ok(250_000));
        assert_eq!(parse_time("2min"), Ok(120_000_000_000));
        assert_eq!(parse_time("1e3ms"), Ok(1_000_000_000));
        assert_eq!(parse_time("0"), Ok(0));
        assert!(parse_time("100").unwrap_err().contains("no unit"));
        assert!(parse_time("-1ms").unwrap_err().contains("negative"));
        assert!(parse_time("1.5ns").unwrap_err().contains("whole number"));
        assert!(parse_time("10parsecs")
            .unwrap_err()
            .contains("unknown time unit"));
        assert!(parse_time("ms").is_err());
        assert!(parse_time("nan ms").is_err());
        assert!(parse_time("99999999999999999999999h").is_err());
    }

    #[test]
    fn queues_read_as_a_scenario_writes_them() {
        use ndncc_core::face::QueueLimit;
        assert_eq!(parse_queue("100p"), Ok(QueueLimit::Packets(100)));
        assert_eq!(parse_queue("7 packets"), Ok(QueueLimit::Packets(7)));
        assert_eq!(parse_queue("1500KB"), Ok(QueueLimit::Bytes(1_500_000)));
        assert_eq!(parse_queue("64KiB"), Ok(QueueLimit::Bytes(65_536)));
        assert_eq!(parse_queue("20000B"), Ok(QueueLimit::Bytes(20_000)));
        assert!(parse_queue("100").unwrap_err().contains("no unit"));
        assert!(parse_queue("1.5p").unwrap_err().contains("whole number"));
        assert!(parse_queue("4294967296p")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_queue("100Kb").unwrap_err().contains("bits"));
        assert!(parse_queue("3 parsecs")
            .unwrap_err()
            .contains("unknown queue unit"));
        assert!(parse_queue("-3p").unwrap_err().contains("negative"));
    }

    #[test]
    fn sizes_read_as_a_scenario_writes_them() {
        assert_eq!(parse_size("1250B"), Ok(1250));
        assert_eq!(parse_size("1500KB"), Ok(1_500_000));
        assert_eq!(parse_size("1500kB"), Ok(1_500_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("2MiB"), Ok(2 << 20));
        assert_eq!(parse_size("10 bytes"), Ok(10));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("1250").unwrap_err().contains("no unit"));
        assert!(parse_size("100Kb").unwrap_err().contains("bits"));
        assert!(parse_size("1.5B").unwrap_err().contains("whole number"));
        assert!(parse_size("3XB").unwrap_err().contains("unknown size unit"));
        assert!(parse_size("1iB").is_err());
    }
}
