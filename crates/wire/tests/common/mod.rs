//! Shared by the python-ndn vector tests: hex strings and JSON-lines vector files.

use serde_json::Value;

/// The bytes of a hex string (two digits a byte).
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// One JSON value per line of a vector file.
pub fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
