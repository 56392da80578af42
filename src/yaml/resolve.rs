//! Scalar typing as Salt's loader does it: PyYAML's YAML 1.1 implicit
//! resolvers for plain scalars, then the constructors of `SafeConstructor`
//! with Salt's overrides (leading zeros of ints stripped, timestamps kept as
//! strings). Also the Python-like failures of those constructors.

use regex::Regex;
use std::sync::LazyLock;

/// The core-schema prefix of `!!` tags.
pub(crate) const CORE: &str = "tag:yaml.org,2002:";

/// A resolved scalar tag (what PyYAML's resolver or an explicit tag gives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScalarTag {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Timestamp,
    Merge,
    /// `=`: PyYAML resolves it but has no constructor for it.
    Value,
    Binary,
    /// Any other tag, spelled in full (`!foo`, `tag:yaml.org,2002:set`).
    Other(String),
}

impl ScalarTag {
    /// Map a full tag to a scalar tag.
    pub(crate) fn from_full(tag: &str) -> ScalarTag {
        match tag.strip_prefix(CORE) {
            Some("null") => ScalarTag::Null,
            Some("bool") => ScalarTag::Bool,
            Some("int") => ScalarTag::Int,
            Some("float") => ScalarTag::Float,
            Some("str") | Some("python/unicode") => ScalarTag::Str,
            Some("timestamp") => ScalarTag::Timestamp,
            Some("merge") => ScalarTag::Merge,
            Some("value") => ScalarTag::Value,
            Some("binary") => ScalarTag::Binary,
            _ => ScalarTag::Other(tag.to_string()),
        }
    }

    /// The full tag, as PyYAML prints it in node reprs and messages.
    pub(crate) fn full(&self) -> String {
        let short = match self {
            ScalarTag::Null => "null",
            ScalarTag::Bool => "bool",
            ScalarTag::Int => "int",
            ScalarTag::Float => "float",
            ScalarTag::Str => "str",
            ScalarTag::Timestamp => "timestamp",
            ScalarTag::Merge => "merge",
            ScalarTag::Value => "value",
            ScalarTag::Binary => "binary",
            ScalarTag::Other(t) => return t.clone(),
        };
        format!("{CORE}{short}")
    }
}

/// PyYAML's bool resolver, `^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`,
/// as a word list (`test`, a common key, would otherwise run the regex).
const BOOL_WORDS: [&str; 18] = [
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on",
    "On", "ON", "off", "Off", "OFF",
];

static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.(?:nan|NaN|NAN))$"
    ))
    .expect("valid regex")
});
static INT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[-+]?0b[0-1_]+",
        r"|[-+]?0[0-7_]+",
        r"|[-+]?(?:0|[1-9][0-9_]*)",
        r"|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
    ))
    .expect("valid regex")
});
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?",
        r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
    ))
    .expect("valid regex")
});

/// `YYYY-MM-DD`, the timestamp regex's first form, without the regex
/// (every Heat template's version is one: most loads then never build it).
fn is_plain_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// PyYAML's implicit resolution of a plain scalar (resolvers are tried in
/// registration order among those registered for the first character).
pub(crate) fn resolve_plain(s: &str) -> ScalarTag {
    let Some(&first) = s.as_bytes().first() else {
        return ScalarTag::Null;
    };
    // The boolean words are 2 to 5 letters long.
    if s.len() <= 5
        && matches!(
            first,
            b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O'
        )
        && BOOL_WORDS.contains(&s)
    {
        return ScalarTag::Bool;
    }
    let numeric = matches!(first, b'-' | b'+' | b'0'..=b'9');
    // Every float form has a `.`: plain ints skip the regex.
    if (numeric || first == b'.') && s.as_bytes().contains(&b'.') && FLOAT.is_match(s) {
        return ScalarTag::Float;
    }
    if numeric {
        // Plain decimal digits (no leading zero): an int without asking the regex.
        let b = s.as_bytes();
        if b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1) {
            return ScalarTag::Int;
        }
        if INT.is_match(s) {
            return ScalarTag::Int;
        }
    }
    if s == "<<" {
        return ScalarTag::Merge;
    }
    if matches!(s, "~" | "null" | "Null" | "NULL") {
        return ScalarTag::Null;
    }
    if first.is_ascii_digit() && (is_plain_date(s) || TIMESTAMP.is_match(s)) {
        return ScalarTag::Timestamp;
    }
    if s == "=" {
        return ScalarTag::Value;
    }
    ScalarTag::Str
}

/// A constructed scalar.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

/// Why a constructor failed: a PyYAML `ConstructorError` problem (Salt
/// reports it as a render error) or another Python exception's `str()`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConstructFail {
    Constructor(String),
    Python(String),
}

/// Construct a scalar of the given tag, as `SaltYamlSafeLoader` would.
pub(crate) fn construct(tag: &ScalarTag, text: &str) -> Result<Scalar, ConstructFail> {
    match tag {
        ScalarTag::Null => Ok(Scalar::Null),
        ScalarTag::Str | ScalarTag::Timestamp => Ok(Scalar::Str(text.to_string())),
        ScalarTag::Bool if text.is_ascii() => {
            const TRUE: [&str; 3] = ["yes", "true", "on"];
            const FALSE: [&str; 3] = ["no", "false", "off"];
            if TRUE.iter().any(|w| w.eq_ignore_ascii_case(text)) {
                Ok(Scalar::Bool(true))
            } else if FALSE.iter().any(|w| w.eq_ignore_ascii_case(text)) {
                Ok(Scalar::Bool(false))
            } else {
                Err(ConstructFail::Python(crate::value::py_str_repr(
                    &text.to_ascii_lowercase(),
                )))
            }
        }
        ScalarTag::Bool => match text.to_lowercase().as_str() {
            "yes" | "true" | "on" => Ok(Scalar::Bool(true)),
            "no" | "false" | "off" => Ok(Scalar::Bool(false)),
            other => Err(ConstructFail::Python(crate::value::py_str_repr(other))),
        },
        ScalarTag::Int => construct_int(text),
        ScalarTag::Float => construct_float(text),
        ScalarTag::Binary => construct_binary(text),
        ScalarTag::Merge | ScalarTag::Value | ScalarTag::Other(_) => {
            Err(ConstructFail::Constructor(format!(
                "could not determine a constructor for the tag {}",
                crate::value::py_str_repr(&tag.full())
            )))
        }
    }
}

const INDEX_ERROR: &str = "string index out of range";

/// `SafeConstructor.construct_yaml_int` after Salt's leading-zero stripping.
fn construct_int(text: &str) -> Result<Scalar, ConstructFail> {
    // Fast path: plain decimal digits without a leading zero that fit in i64.
    let b = text.as_bytes();
    if !b.is_empty()
        && b.len() <= 18
        && b.iter().all(u8::is_ascii_digit)
        && (b[0] != b'0' || b.len() == 1)
    {
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Scalar::Int(i));
        }
    }
    let mut value = text.to_string();
    if value != "0"
        && value.starts_with('0')
        && !value.starts_with("0b")
        && !value.starts_with("0x")
    {
        value = value.trim_start_matches('0').to_string();
        if value.is_empty() {
            value = "0".into();
        }
    }
    let value: String = value.chars().filter(|&c| c != '_').collect();
    let first = value
        .chars()
        .next()
        .ok_or_else(|| ConstructFail::Python(INDEX_ERROR.into()))?;
    let negative = first == '-';
    let digits = if first == '-' || first == '+' {
        &value[1..]
    } else {
        &value[..]
    };
    let magnitude = if digits == "0" {
        PyInt::Small(0)
    } else if let Some(rest) = digits.strip_prefix("0b") {
        py_int(rest, 2)?
    } else if let Some(rest) = digits.strip_prefix("0x") {
        py_int(rest, 16)?
    } else if digits.starts_with('0') {
        py_int(digits, 8)?
    } else if digits.contains(':') {
        let mut acc = PyInt::Small(0);
        for part in digits.split(':') {
            acc = acc.mul_add(60, py_int(part, 10)?);
        }
        acc
    } else if digits.is_empty() {
        return Err(ConstructFail::Python(INDEX_ERROR.into()));
    } else {
        py_int(digits, 10)?
    };
    Ok(magnitude.into_scalar(negative))
}

/// An integer that may not fit in `i64` (Python ints are unbounded); the
/// large ones become floats, the closest we can represent.
#[derive(Debug, Clone, Copy)]
enum PyInt {
    Small(i128),
    Big(f64),
}

impl PyInt {
    fn mul_add(self, base: u32, add: PyInt) -> PyInt {
        match (self, add) {
            (PyInt::Small(a), PyInt::Small(b)) => a
                .checked_mul(base as i128)
                .and_then(|m| m.checked_add(b))
                .map_or(PyInt::Big(a as f64 * base as f64 + b as f64), PyInt::Small),
            (a, b) => PyInt::Big(a.as_f64() * base as f64 + b.as_f64()),
        }
    }
    fn as_f64(self) -> f64 {
        match self {
            PyInt::Small(v) => v as f64,
            PyInt::Big(f) => f,
        }
    }
    fn into_scalar(self, negative: bool) -> Scalar {
        match self {
            PyInt::Small(v) => {
                let v = if negative { -v } else { v };
                i64::try_from(v).map_or(Scalar::Float(v as f64), Scalar::Int)
            }
            PyInt::Big(f) => Scalar::Float(if negative { -f } else { f }),
        }
    }
}

/// Python's `int(s, base)` for the strings the constructors pass it
/// (surrounding whitespace and one sign allowed, underscores already gone).
fn py_int(s: &str, base: u32) -> Result<PyInt, ConstructFail> {
    let invalid = || {
        ConstructFail::Python(format!(
            "invalid literal for int() with base {base}: {}",
            crate::value::py_str_repr(s)
        ))
    };
    let t = s.trim();
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    // int("0o17", 8) and friends accept their own prefix.
    let body = match base {
        2 => body.strip_prefix("0b").unwrap_or(body),
        8 => body.strip_prefix("0o").unwrap_or(body),
        16 => body.strip_prefix("0x").unwrap_or(body),
        _ => body,
    };
    if body.is_empty() {
        return Err(invalid());
    }
    let mut acc = PyInt::Small(0);
    for c in body.chars() {
        let d = c.to_digit(base).ok_or_else(invalid)?;
        acc = acc.mul_add(base, PyInt::Small(d as i128));
    }
    if negative {
        acc = match acc {
            PyInt::Small(v) => PyInt::Small(-v),
            PyInt::Big(f) => PyInt::Big(-f),
        };
    }
    Ok(acc)
}

/// `SafeConstructor.construct_yaml_float`.
fn construct_float(text: &str) -> Result<Scalar, ConstructFail> {
    let value: String = text.chars().filter(|&c| c != '_').collect();
    let value = value.to_lowercase();
    let first = value
        .chars()
        .next()
        .ok_or_else(|| ConstructFail::Python(INDEX_ERROR.into()))?;
    let sign = if first == '-' { -1.0 } else { 1.0 };
    let body = if first == '-' || first == '+' {
        &value[1..]
    } else {
        &value[..]
    };
    if body == ".inf" {
        return Ok(Scalar::Float(sign * f64::INFINITY));
    }
    if body == ".nan" {
        return Ok(Scalar::Float(f64::NAN));
    }
    if body.contains(':') {
        let mut acc = 0.0;
        for part in body.split(':') {
            acc = acc * 60.0 + py_float(part)?;
        }
        return Ok(Scalar::Float(sign * acc));
    }
    Ok(Scalar::Float(sign * py_float(body)?))
}

/// Python's `float(s)`.
fn py_float(s: &str) -> Result<f64, ConstructFail> {
    crate::value::pynum::parse_float(s).ok_or_else(|| {
        ConstructFail::Python(format!(
            "could not convert string to float: {}",
            crate::value::py_str_repr(s)
        ))
    })
}

/// `!!binary`: base64 (Salt pads missing `=`); the bytes become a string.
fn construct_binary(text: &str) -> Result<Scalar, ConstructFail> {
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut out = Vec::new();
    for c in text.chars() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' => 62,
            '/' => 63,
            '=' => break,
            c if c.is_whitespace() => continue,
            _ => {
                return Err(ConstructFail::Constructor(
                    "failed to decode base64 data: Non-base64 digit found".into(),
                ))
            }
        };
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    Ok(Scalar::Str(String::from_utf8_lossy(&out).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(s: &str) -> Scalar {
        construct(&resolve_plain(s), s).expect("constructs")
    }

    #[test]
    fn spec_table() {
        assert_eq!(load("0644"), Scalar::Int(644));
        assert_eq!(load("0o644"), Scalar::Str("0o644".into()));
        assert_eq!(load("0x1F"), Scalar::Int(31));
        assert_eq!(load("0b101"), Scalar::Int(5));
        assert_eq!(load("00"), Scalar::Int(0));
        assert_eq!(load("012345678"), Scalar::Str("012345678".into()));
        assert_eq!(load("1:20"), Scalar::Int(80));
        assert_eq!(load("1_000"), Scalar::Int(1000));
        assert_eq!(load("1e3"), Scalar::Str("1e3".into()));
        assert_eq!(load("1.0e3"), Scalar::Str("1.0e3".into()));
        assert_eq!(load("1.0e+3"), Scalar::Float(1000.0));
        assert_eq!(load("1.5"), Scalar::Float(1.5));
        assert_eq!(load("1.10"), Scalar::Float(1.1));
        assert_eq!(load("-7"), Scalar::Int(-7));
        assert_eq!(load("+7"), Scalar::Int(7));
        for t in [
            "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
        ] {
            assert_eq!(load(t), Scalar::Bool(true), "{t}");
        }
        for f in [
            "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ] {
            assert_eq!(load(f), Scalar::Bool(false), "{f}");
        }
        for s in [
            "y",
            "n",
            "yEs",
            "tRUE",
            "2024-01-02",
            "2024-01-02 10:00:00",
            "1.10.2",
        ] {
            assert_eq!(load(s), Scalar::Str(s.into()), "{s}");
        }
        for n in ["~", "null", "Null", "NULL", ""] {
            assert_eq!(load(n), Scalar::Null, "{n:?}");
        }
    }

    #[test]
    fn plain_dates_skip_only_what_the_regex_matches() {
        for s in [
            "2016-10-14",
            "2016-1-14",
            "2016-10-1",
            "20161014xx",
            "2016-10-14T",
            "2016/10/14",
            "201a-10-14",
            "2016-10-145",
            "2016-10-14 ",
            "0000-00-00",
            "2016-10-14t10:00:00",
        ] {
            assert!(!is_plain_date(s) || TIMESTAMP.is_match(s), "{s}");
            assert_eq!(
                is_plain_date(s),
                s.len() == 10 && TIMESTAMP.is_match(s),
                "{s}"
            );
        }
    }

    #[test]
    fn python_int_corners() {
        // Salt only strips zeros when the text starts with 0: signed octals stay octal.
        assert_eq!(load("-0644"), Scalar::Int(-420));
        assert_eq!(load("+010"), Scalar::Int(8));
        assert_eq!(load("0_644"), Scalar::Int(644));
        assert_eq!(load("-0x10"), Scalar::Int(-16));
        assert_eq!(load("1:00:00"), Scalar::Int(3600));
        assert_eq!(load("-1:30"), Scalar::Int(-90));
        assert_eq!(load("99999999999999999999"), Scalar::Float(1e20));
        assert!(matches!(
            construct(&ScalarTag::Int, "0_"),
            Err(ConstructFail::Python(m)) if m == INDEX_ERROR
        ));
        assert!(matches!(
            construct(&ScalarTag::Int, "abc"),
            Err(ConstructFail::Python(m)) if m == "invalid literal for int() with base 10: 'abc'"
        ));
    }

    #[test]
    fn floats() {
        assert_eq!(load(".5"), Scalar::Float(0.5));
        assert_eq!(load("1."), Scalar::Float(1.0));
        assert_eq!(load("-.inf"), Scalar::Float(f64::NEG_INFINITY));
        assert_eq!(load(".Inf"), Scalar::Float(f64::INFINITY));
        assert!(matches!(load(".NaN"), Scalar::Float(f) if f.is_nan()));
        assert_eq!(load("1:30.5"), Scalar::Float(90.5));
        assert_eq!(load("1_0.5"), Scalar::Float(10.5));
        assert_eq!(load("1.e+3"), Scalar::Float(1000.0));
        assert_eq!(load("._"), Scalar::Str("._".into()));
        assert_eq!(load(".nan."), Scalar::Str(".nan.".into()));
        assert_eq!(
            construct(&ScalarTag::Float, "1e3"),
            Ok(Scalar::Float(1000.0))
        );
        assert!(construct(&ScalarTag::Float, "x").is_err());
    }

    #[test]
    fn merge_value_and_unknown_tags() {
        assert_eq!(resolve_plain("<<"), ScalarTag::Merge);
        assert_eq!(resolve_plain("="), ScalarTag::Value);
        assert_eq!(
            construct(&ScalarTag::Value, "="),
            Err(ConstructFail::Constructor(
                "could not determine a constructor for the tag 'tag:yaml.org,2002:value'".into()
            ))
        );
        assert_eq!(ScalarTag::from_full("!foo").full(), "!foo");
        assert_eq!(construct(&ScalarTag::Null, "x"), Ok(Scalar::Null));
        assert_eq!(construct(&ScalarTag::Bool, "ON"), Ok(Scalar::Bool(true)));
        assert_eq!(
            construct(&ScalarTag::Binary, "aGVsbG8"),
            Ok(Scalar::Str("hello".into()))
        );
    }
}
