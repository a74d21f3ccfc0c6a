#![no_main]
//! Any string: a name that parses prints a URI that parses back to the same name.

use libfuzzer_sys::fuzz_target;
use ndncc_wire::Name;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(name) = Name::from_uri(text) {
        assert_eq!(Name::from_uri(&name.to_string()).unwrap(), name);
    }
});
