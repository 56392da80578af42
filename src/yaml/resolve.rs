//! Scalar typing as Salt's loader does it: PyYAML's YAML 1.1 implicit
//! resolvers for plain scalars, then the constructors of `SafeConstructor`
//! with Salt's overrides (leading zeros of ints stripped, timestamps kept as
//! strings). Also the Python-like failures of those constructors.

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

/// A cursor over a plain scalar's bytes, for the resolvers below: each is
/// one of PyYAML's implicit-resolver regexes read as a parser (every
/// choice in them is decided by the next byte, so no backtracking is
/// needed). Building the regexes cost more than a whole small template's
/// load, on every run.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Cursor<'a> {
        Cursor {
            b: s.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn done(&self) -> bool {
        self.at == self.b.len()
    }

    /// Takes the next byte if `f` accepts it.
    fn eat(&mut self, f: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    /// Takes the bytes `f` accepts; how many.
    fn eat_all(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let from = self.at;
        while self.eat(&f) {}
        self.at - from
    }

    /// Takes `word` if the text goes on with it.
    fn eat_word(&mut self, word: &str) -> bool {
        let ok = self.b[self.at..].starts_with(word.as_bytes());
        if ok {
            self.at += word.len();
        }
        ok
    }

    /// `[-+]?`
    fn sign(&mut self) {
        self.eat(|c| c == b'-' || c == b'+');
    }

    /// `[0-9][0-9_]*` (`first`: the class of the first digit).
    fn digits(&mut self, first: impl Fn(u8) -> bool) -> bool {
        self.eat(first) && {
            self.eat_all(digit_or_underscore);
            true
        }
    }

    /// `(?::[0-5]?[0-9])+`: sexagesimal groups.
    fn sexagesimal(&mut self) -> bool {
        let mut groups = 0;
        while self.eat(|c| c == b':') {
            let n = self.eat_all(|c| c.is_ascii_digit());
            let g = &self.b[self.at - n..self.at];
            let ok = match g {
                [_] => true,
                [a, _] => (b'0'..=b'5').contains(a),
                _ => false,
            };
            if !ok {
                return false;
            }
            groups += 1;
        }
        groups > 0
    }

    /// `(?:[eE][-+][0-9]+)?` up to the end.
    fn exponent_then_end(&mut self) -> bool {
        if self.eat(|c| c == b'e' || c == b'E') {
            return self.eat(|c| c == b'-' || c == b'+')
                && self.eat_all(|c| c.is_ascii_digit()) > 0
                && self.done();
        }
        self.done()
    }

    /// One or two digits.
    fn one_or_two_digits(&mut self) -> bool {
        matches!(self.eat_all(|c| c.is_ascii_digit()), 1 | 2)
    }

    /// Exactly `n` digits.
    fn n_digits(&mut self, n: usize) -> bool {
        self.eat_all(|c| c.is_ascii_digit()) == n
    }
}

fn digit_or_underscore(c: u8) -> bool {
    c.is_ascii_digit() || c == b'_'
}

fn nonzero_digit(c: u8) -> bool {
    (b'1'..=b'9').contains(&c)
}

/// PyYAML's float resolver:
/// `^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?`
/// `|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?`
/// `|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*`
/// `|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`.
fn is_float(s: &str) -> bool {
    let mut c = Cursor::new(s);
    if matches!(c.peek(), Some(b'.')) {
        // No sign: `.5`, `.nan`, `.inf`.
        c.at = 1;
        if c.digits(|d| d.is_ascii_digit()) {
            return c.exponent_then_end();
        }
        return ["nan", "NaN", "NAN", "inf", "Inf", "INF"]
            .iter()
            .any(|w| &s[1..] == *w);
    }
    c.sign();
    if c.eat(|d| d == b'.') {
        return ["inf", "Inf", "INF"]
            .iter()
            .any(|w| c.eat_word(w) && c.done());
    }
    if !c.digits(|d| d.is_ascii_digit()) {
        return false;
    }
    if c.eat(|d| d == b'.') {
        c.eat_all(digit_or_underscore);
        return c.exponent_then_end();
    }
    c.sexagesimal() && c.eat(|d| d == b'.') && {
        c.eat_all(digit_or_underscore);
        c.done()
    }
}

/// PyYAML's int resolver: `^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+`
/// `|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+`
/// `|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`.
fn is_int(s: &str) -> bool {
    let mut c = Cursor::new(s);
    c.sign();
    let rest = &c.b[c.at..];
    let all =
        |from: usize, f: fn(u8) -> bool| rest.len() > from && rest[from..].iter().all(|&x| f(x));
    match rest {
        [b'0'] => true,
        [b'0', b'b', ..] => all(2, |x| x == b'0' || x == b'1' || x == b'_'),
        [b'0', b'x', ..] => all(2, |x| x.is_ascii_hexdigit() || x == b'_'),
        [b'0', ..] => all(1, |x| (b'0'..=b'7').contains(&x) || x == b'_'),
        _ => c.digits(nonzero_digit) && (c.done() || (c.sexagesimal() && c.done())),
    }
}

/// PyYAML's timestamp resolver: `^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}`
/// `|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?`
/// `:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?`
/// `(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`.
fn is_timestamp(s: &str) -> bool {
    if is_plain_date(s) {
        return true;
    }
    let mut c = Cursor::new(s);
    let blank = |x: u8| x == b' ' || x == b'\t';
    let date = c.n_digits(4)
        && c.eat(|x| x == b'-')
        && c.one_or_two_digits()
        && c.eat(|x| x == b'-')
        && c.one_or_two_digits();
    let separated = c.eat(|x| x == b'T' || x == b't') || c.eat_all(blank) > 0;
    if !(date
        && separated
        && c.one_or_two_digits()
        && c.eat(|x| x == b':')
        && c.n_digits(2)
        && c.eat(|x| x == b':')
        && c.n_digits(2))
    {
        return false;
    }
    if c.eat(|x| x == b'.') {
        c.eat_all(|x| x.is_ascii_digit());
    }
    if c.done() {
        return true;
    }
    c.eat_all(blank);
    if c.eat(|x| x == b'Z') {
        return c.done();
    }
    c.eat(|x| x == b'-' || x == b'+')
        && c.one_or_two_digits()
        && (c.done() || (c.eat(|x| x == b':') && c.n_digits(2) && c.done()))
}

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
    if (numeric || first == b'.') && s.as_bytes().contains(&b'.') && is_float(s) {
        return ScalarTag::Float;
    }
    if numeric {
        // Plain decimal digits (no leading zero): an int without asking the regex.
        let b = s.as_bytes();
        if b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1) {
            return ScalarTag::Int;
        }
        if is_int(s) {
            return ScalarTag::Int;
        }
    }
    if s == "<<" {
        return ScalarTag::Merge;
    }
    if matches!(s, "~" | "null" | "Null" | "NULL") {
        return ScalarTag::Null;
    }
    if first.is_ascii_digit() && is_timestamp(s) {
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

    /// A resolver's name, its regex, and the matcher that replaces it.
    type Resolver = (&'static str, regex::Regex, fn(&str) -> bool);

    /// PyYAML's resolver regexes, as `yaml/resolver.py` spells them: what
    /// the hand-written matchers must agree with.
    fn pyyaml_regexes() -> [Resolver; 3] {
        let re = |parts: &[&str]| regex::Regex::new(&parts.concat()).expect("valid regex");
        [
            (
                "float",
                re(&[
                    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
                    r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
                    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
                    r"|[-+]?\.(?:inf|Inf|INF)",
                    r"|\.(?:nan|NaN|NAN))$",
                ]),
                is_float,
            ),
            (
                "int",
                re(&[
                    r"^(?:[-+]?0b[0-1_]+",
                    r"|[-+]?0[0-7_]+",
                    r"|[-+]?(?:0|[1-9][0-9_]*)",
                    r"|[-+]?0x[0-9a-fA-F_]+",
                    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
                ]),
                is_int,
            ),
            (
                "timestamp",
                re(&[
                    r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
                    r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
                    r"(?:[Tt]|[ \t]+)[0-9][0-9]?",
                    r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
                    r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
                ]),
                is_timestamp,
            ),
        ]
    }

    #[test]
    fn the_matchers_agree_with_pyyaml_regexes() {
        let written = [
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
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-12-15 2:59:43.10",
            "2002-12-14",
            "2001-12-14 21:59:43.10 Z",
            "2001-12-14\t21:59:43.10+05",
            "2001-12-14 21:59:43.10 ",
            "1.5",
            "1.",
            ".5",
            "-.inf",
            ".Inf",
            ".NaN",
            "-.nan",
            "+.INF",
            "1e5",
            "1.0e5",
            "1.0e+5",
            "6.8523015e+5",
            "685.230_15e+03",
            "190:20:30.15",
            "1:60.5",
            "1:5.",
            "0b1010_0111",
            "0b",
            "+0b1",
            "02472256",
            "0x_0A_74_AE",
            "0xG",
            "685_230",
            "190:20:30",
            "1:60",
            "0:30",
            "-1:30",
            "1:",
            "0",
            "-0",
            "+",
            "-",
            "",
            "00",
            "08",
            "0_",
            "1_",
            "1__0",
            "1.1.1",
            "1.10.2",
            "1:2:3.4.5",
        ];
        let alphabet = b"0123456789-+._:bxXeEaFZTt \tinfNAn";
        // A small generator (no rand crate in the library): xorshift.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut random = Vec::new();
        for _ in 0..200_000 {
            let len = (next() % 14) as usize;
            let s: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            random.push(s);
        }
        // Dense in digits, separators and signs, where the forms live.
        let dense = b"0123456789-:.+ ";
        for _ in 0..200_000 {
            let len = (next() % 24) as usize;
            random.push(
                (0..len)
                    .map(|_| dense[(next() % dense.len() as u64) as usize] as char)
                    .collect(),
            );
        }
        // Timestamps are built from their parts (each part sometimes
        // a digit too long or too short, or missing), then one byte changed.
        let pick = |n: u64, from: &[&'static str]| from[(n % from.len() as u64) as usize];
        for _ in 0..100_000 {
            let digits = |n: u64| pick(n, &["", "1", "12", "123", "12", "59", "7"]).to_string();
            let mut t = String::new();
            t.push_str(pick(next(), &["2001", "201", "20011", "1999"]));
            t.push('-');
            t.push_str(&digits(next()));
            t.push_str(pick(next(), &["-", "-", "/"]));
            t.push_str(&digits(next()));
            t.push_str(pick(next(), &["T", "t", " ", "\t", "  ", "", "x"]));
            t.push_str(&digits(next()));
            t.push(':');
            t.push_str(&digits(next()));
            t.push_str(pick(next(), &[":", ":", ""]));
            t.push_str(&digits(next()));
            t.push_str(pick(next(), &["", ".", ".5", ".123"]));
            t.push_str(pick(next(), &["", " ", "\t", "  "]));
            t.push_str(pick(
                next(),
                &["", "Z", "+5", "-05", "-05:00", "+5:0", "+123", "z"],
            ));
            t.push_str(pick(next(), &["", "", "", " ", "x"]));
            if next() % 3 == 0 && !t.is_empty() {
                let at = (next() % t.len() as u64) as usize;
                let c = dense[(next() % dense.len() as u64) as usize] as char;
                t.replace_range(at..at + 1, &c.to_string());
            }
            random.push(t);
        }
        let mut matched = [0usize; 3];
        for (k, (name, re, f)) in pyyaml_regexes().iter().enumerate() {
            for s in written
                .iter()
                .copied()
                .chain(random.iter().map(String::as_str))
            {
                assert_eq!(f(s), re.is_match(s), "{name} on {s:?}");
                matched[k] += usize::from(re.is_match(s));
            }
        }
        // The generated texts reach every resolver's matches, not only its misses.
        assert!(matched.iter().all(|&n| n > 100), "{matched:?}");
        for s in written {
            let date = s.len() == 10 && pyyaml_regexes()[2].1.is_match(s);
            assert_eq!(is_plain_date(s), date, "{s}");
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
