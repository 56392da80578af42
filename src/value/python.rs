//! Python's semantics on [`Value`], where both dialects' reference engines
//! run Python: `==` across numbers (`1 == 1.0 == True`), the ordering
//! `sorted()` uses (and where it would raise `TypeError`), and the
//! `base64` module's encodings.

use super::Value;
use std::cmp::Ordering;

/// The number Python compares a bool, int or float as (`True` is 1).
pub fn py_number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(*b as i64 as f64),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// Python `==` between values (`1 == 1.0 == True`), used for list membership.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (py_number(a), py_number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// Python's ordering of two values for `sorted()`; `None` when Python would
/// raise `TypeError` (e.g. str against int).
pub fn py_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y) {
                match py_cmp(p, q)? {
                    Ordering::Equal => continue,
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => py_number(a)?.partial_cmp(&py_number(b)?),
    }
}

/// Sort entries by key as Python's `sorted()` would; leave them unsorted when
/// Python could not compare the keys.
pub fn sort_py_keys(entries: &mut [(&Value, &Value)]) {
    let comparable = entries.windows(2).all(|w| py_cmp(w[0].0, w[1].0).is_some())
        && entries.iter().all(|(k, _)| py_cmp(k, k).is_some());
    if comparable {
        entries.sort_by(|a, b| py_cmp(a.0, b.0).unwrap_or(Ordering::Equal));
    }
}

/// A copy with every mapping's keys sorted as [`sort_py_keys`] sorts them.
pub fn sorted_keys_deep(v: &Value) -> Value {
    match v {
        Value::List(l) => Value::List(l.iter().map(sorted_keys_deep).collect()),
        Value::Map(m) => {
            let mut entries: Vec<(&Value, &Value)> = m.iter().collect();
            sort_py_keys(&mut entries);
            Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted_keys_deep(v)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// Python's `base64.b64encode(bytes)`, as text.
pub fn b64encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Python's `base64.encodebytes(bytes)`: 76-character lines, each ending in
/// a newline.
pub fn b64encode_lines(bytes: &[u8]) -> String {
    let one = b64encode(bytes);
    let mut out = String::with_capacity(one.len() + one.len() / 76 + 1);
    for chunk in one.as_bytes().chunks(76) {
        // Base64 text is ASCII: this never falls back.
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Python's `base64.b64decode(text)`: characters outside the alphabet are
/// discarded first (its default `validate=False`). The error is the
/// decoder's reason (bad padding, a stray symbol).
pub fn b64decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let clean: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "+/=".contains(*c))
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(clean.as_bytes())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_across_kinds_as_in_python() {
        assert!(py_eq(&Value::Int(1), &Value::Float(1.0)));
        assert!(py_eq(&Value::Bool(true), &Value::Int(1)));
        assert!(!py_eq(&Value::str("1"), &Value::Int(1)));
        assert_eq!(
            py_cmp(&Value::Int(2), &Value::Float(1.5)),
            Some(Ordering::Greater)
        );
        assert_eq!(py_cmp(&Value::str("a"), &Value::Int(1)), None);
        let (a, b, one) = (Value::str("b"), Value::str("a"), Value::Int(1));
        let mut keys = [(&a, &one), (&b, &one)];
        sort_py_keys(&mut keys);
        assert_eq!(keys[0].0, &b);
        let mut mixed = [(&a, &one), (&one, &one)];
        sort_py_keys(&mut mixed);
        assert_eq!(mixed[0].0, &a, "incomparable keys keep their order");
    }

    #[test]
    fn base64_as_python_writes_and_reads_it() {
        assert_eq!(b64encode(b"hello"), "aGVsbG8=");
        assert_eq!(
            b64encode_lines(&[0u8; 60])
                .lines()
                .map(str::len)
                .collect::<Vec<_>>(),
            [76, 4]
        );
        assert_eq!(b64decode("aGVs\nbG8=").unwrap(), b"hello");
        assert!(b64decode("aGVsbG8").is_err());
    }
}
