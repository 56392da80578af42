//! Python's readings of a string as a number: `int(s, base)` and
//! `float(s)`, with their grammar (surrounding whitespace, one sign,
//! single underscores between digits, base prefixes, `inf`/`nan`). Every
//! place that takes text the way Python's constructors do (Jinja's `int`
//! and `float` filters, Salt's matchers, schema checks) reads it here.

/// Digits of `base` with single underscores between them (Python's
/// numeric literal grammar); `lead` also allows one underscore first (after
/// a base prefix, as in `0x_1f`).
fn digits_ok(s: &str, base: u32, lead: bool) -> bool {
    let s = if lead {
        s.strip_prefix('_').unwrap_or(s)
    } else {
        s
    };
    !s.is_empty()
        && !s.starts_with('_')
        && !s.ends_with('_')
        && !s.contains("__")
        && s.chars().all(|c| c == '_' || c.is_digit(base))
}

/// Python's `int(s, base)` for a string: `None` where Python raises
/// `ValueError` (and for values past `i128`). `base` 0 reads the prefix
/// (`0x`, `0o`, `0b`; a decimal may not start with `0` then); 2, 8 and 16
/// also accept their own prefix.
pub(crate) fn parse_int(s: &str, base: u32) -> Option<i128> {
    if base == 1 || base > 36 {
        return None;
    }
    let t = s.trim();
    let (negative, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let prefix = |b: &str| -> Option<u32> {
        let p = b.get(..2)?.to_ascii_lowercase();
        match p.as_str() {
            "0x" => Some(16),
            "0o" => Some(8),
            "0b" => Some(2),
            _ => None,
        }
    };
    let (base, digits, prefixed) = match (base, prefix(body)) {
        (0, Some(b)) => (b, &body[2..], true),
        (0, None) => {
            // `int("010", 0)` is an error; `int("0_0", 0)` is not.
            if body.starts_with('0') && body.chars().any(|c| c != '0' && c != '_') {
                return None;
            }
            (10, body, false)
        }
        (b, Some(p)) if p == b => (b, &body[2..], true),
        (b, _) => (b, body, false),
    };
    if !digits_ok(digits, base, prefixed) {
        return None;
    }
    let mut acc: i128 = 0;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = c.to_digit(base)?;
        acc = acc
            .checked_mul(i128::from(base))?
            .checked_add(i128::from(d))?;
    }
    Some(if negative { -acc } else { acc })
}

/// Python's `float(s)` for a string: `None` where Python raises
/// `ValueError`. Out-of-range values give an infinity, as in Python.
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let negative = t.starts_with('-');
    let lower = body.to_ascii_lowercase();
    let special = match lower.as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(f) = special {
        return Some(if negative { -f } else { f });
    }
    let (mantissa, exponent) = match lower.find('e') {
        Some(i) => (&lower[..i], Some(&lower[i + 1..])),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    let int_ok = int.is_empty() || digits_ok(int, 10, false);
    let frac_ok = frac.is_none_or(|f| f.is_empty() || digits_ok(f, 10, false));
    let has_digits = !int.is_empty() || frac.is_some_and(|f| !f.is_empty());
    let exp_ok =
        exponent.is_none_or(|e| digits_ok(e.strip_prefix(['+', '-']).unwrap_or(e), 10, false));
    if !(int_ok && frac_ok && has_digits && exp_ok) {
        return None;
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    clean.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_as_python_reads_them() {
        let cases: &[(&str, u32, Option<i128>)] = &[
            (" 42 ", 10, Some(42)),
            ("-7", 10, Some(-7)),
            ("+7", 10, Some(7)),
            ("1_000", 10, Some(1000)),
            ("1__000", 10, None),
            ("_1", 10, None),
            ("1_", 10, None),
            ("", 10, None),
            ("-", 10, None),
            ("12abc", 10, None),
            ("42.5", 10, None),
            ("0x10", 10, None),
            ("0x1F", 16, Some(31)),
            ("0X1f", 16, Some(31)),
            ("1F", 16, Some(31)),
            ("0x_1f", 16, Some(31)),
            ("_1f", 16, None),
            ("0b101", 0, Some(5)),
            ("0o17", 0, Some(15)),
            ("010", 0, None),
            ("00", 0, Some(0)),
            ("0_0", 0, Some(0)),
            ("12", 8, Some(10)),
            ("z", 36, Some(35)),
            ("1", 37, None),
            ("1", 1, None),
        ];
        for &(s, base, want) in cases {
            assert_eq!(parse_int(s, base), want, "int({s:?}, {base})");
        }
    }

    #[test]
    fn floats_as_python_reads_them() {
        let cases: &[(&str, Option<f64>)] = &[
            ("7 ", Some(7.0)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("1_000.5", Some(1000.5)),
            ("1e3", Some(1000.0)),
            ("-4.5E+1", Some(-45.0)),
            ("1e400", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("inf", Some(f64::INFINITY)),
            ("", None),
            (".", None),
            ("e5", None),
            ("1e", None),
            ("abc", None),
            ("1_", None),
            ("1._5", None),
            ("0x10", None),
            ("1,000", None),
        ];
        for &(s, want) in cases {
            assert_eq!(parse_float(s), want, "float({s:?})");
        }
        assert!(parse_float(" NaN ").is_some_and(f64::is_nan));
    }
}
