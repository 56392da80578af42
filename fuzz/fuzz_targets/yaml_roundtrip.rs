//! Differential: our typing of a document against our dump and re-load of
//! it. Whatever loads must dump to YAML that loads back to the same value
//! (PyYAML's `safe_dump`/`safe_load` round trip, which Salt relies on when
//! it passes rendered data on).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::yaml::{dump, load_value, Dialect, DumpOptions};
use lowstate::Value;

/// Strict equality: the same type at every place (`1`, `1.0` and `true`
/// are different documents), NaN equal to NaN.
fn same(a: &Value, b: &Value) -> bool {
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return false;
    }
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| same(ka, kb) && same(va, vb))
        }
        _ => a == b,
    }
}

/// Whether a string anywhere in `v` holds NEL, LS or PS.
fn has_yaml11_break(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.contains(['\u{85}', '\u{2028}', '\u{2029}']),
        Value::List(l) => l.iter().any(has_yaml11_break),
        Value::Map(m) => m
            .iter()
            .any(|(k, v)| has_yaml11_break(k) || has_yaml11_break(v)),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = load_value(text, Dialect::Salt) else {
        return;
    };
    // YAML 1.1 line breaks that saphyr-parser reads as characters
    // (docs/COMPATIBILITY.md, "YAML"): dumped raw, they cannot come back.
    if has_yaml11_break(&value) {
        return;
    }
    for flow in [None, Some(false), Some(true)] {
        let dumped = dump(&value, DumpOptions { flow });
        let again = match load_value(&dumped, Dialect::Salt) {
            Ok(v) => v,
            // A known loader difference (docs/COMPATIBILITY.md, "YAML"):
            // saphyr-parser nests flow collections at most 255
            // deep; block style (the input) has no such limit.
            Err(e) if e.message.contains("nested more than 255 deep") => continue,
            Err(e) => panic!("dump of {value:?} does not load: {}\n{dumped}", e.message),
        };
        assert!(
            same(&value, &again),
            "round trip changed the value:\n{value:?}\n{dumped}\n{again:?}"
        );
    }
});
