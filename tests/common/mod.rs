//! Helpers shared by the integration tests.

use serde_json::Value as Json;

/// The first JSON path where `actual` differs from `expected` (objects as
/// maps, arrays by position, numbers numerically), or `None` when equal.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn first_difference(expected: &Json, actual: &Json, path: &str) -> Option<String> {
    difference(expected, actual, path, false)
}

/// As [`first_difference`], but an integer never equals a float (`1` vs `1.0`).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn first_difference_exact(expected: &Json, actual: &Json, path: &str) -> Option<String> {
    difference(expected, actual, path, true)
}

fn difference(expected: &Json, actual: &Json, path: &str, exact: bool) -> Option<String> {
    match (expected, actual) {
        (Json::Object(x), Json::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(format!("{path}.{k}: missing (expected {v})")),
                    Some(w) => {
                        if let Some(d) = difference(v, w, &format!("{path}.{k}"), exact) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}: unexpected key"))
        }
        (Json::Array(x), Json::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = difference(v, w, &format!("{path}[{i}]"), exact) {
                    return Some(d);
                }
            }
            (x.len() != y.len())
                .then(|| format!("{path}: expected {} items, got {}", x.len(), y.len()))
        }
        (Json::Number(x), Json::Number(y)) => {
            let same = x.as_f64() == y.as_f64() && (!exact || x.is_f64() == y.is_f64());
            (!same).then(|| format!("{path}: expected {x}, got {y}"))
        }
        _ => (expected != actual).then(|| format!("{path}: expected {expected}, got {actual}")),
    }
}

/// Run the `lowstate` binary with `args` in directory `dir`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn lowstate_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run lowstate")
}
