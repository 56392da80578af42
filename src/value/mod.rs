//! The data model every stage shares: a Python-like value (what Salt's YAML
//! loader and Jinja produce) with insertion-ordered maps, plus JSON output that
//! prints floats the way Python's `repr` does.
//!
//! Maps are keyed by `Value` because YAML keys need not be strings (Salt
//! reports an integer ID as an error, so we must keep it). String keys hash
//! like `str`, so `map.get("name")` works without allocating.

use indexmap::Equivalent;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

mod json;
mod map;
pub(crate) mod pynum;
mod python;
pub use json::{dumps, write_json_str, JsonOptions};
pub(crate) use map::hash_of;
pub use map::{Entry, Map};
pub use python::{
    b64decode, b64encode, b64encode_lines, py_cmp, py_eq, py_number, sort_py_keys, sorted_keys_deep,
};

/// The string of [`Value::Str`]: up to 24 bytes inline, so keys and most
/// values in state data need no allocation of their own.
pub type Str = compact_str::CompactString;

/// The list of [`Value::List`]: one pointer wide (length and capacity live
/// in its allocation), which with [`Str`]'s spare byte keeps a `Value` at
/// 24 bytes.
pub type List = thin_vec::ThinVec<Value>;
pub use thin_vec::thin_vec as list;

/// Make room for one more item, growing 1, 2, 4, …: most maps and lists in
/// state data keep one or two items, where `ThinVec`'s first step (four)
/// would be mostly slack.
pub(crate) fn reserve_one<T>(v: &mut thin_vec::ThinVec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len().max(1));
    }
}

/// A Python-like value: what `yaml.safe_load` or a Jinja expression yields.
#[derive(Debug, Clone, Default)]
pub enum Value {
    #[default]
    /// Python `None`.
    Null,
    /// `bool`.
    Bool(bool),
    /// `int` (64-bit).
    Int(i64),
    /// `float`.
    Float(f64),
    /// `str`.
    Str(Str),
    /// `list`.
    List(List),
    /// `dict` (insertion-ordered).
    Map(Map),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Int(a), Float(b)) | (Float(b), Int(a)) => (*a as f64) == *b,
            (Str(a), Str(b)) => a == b,
            (List(a), List(b)) => a == b,
            (Map(a), Map(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| w == v))
            }
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            // Must hash exactly like `str` so `Equivalent<Value> for str` works.
            Value::Str(s) => s.as_str().hash(state),
            Value::Null => 0u8.hash(state),
            Value::Bool(b) => (*b as i64).hash(state),
            Value::Int(i) => i.hash(state),
            Value::Float(f) => {
                if f.fract() == 0.0 && f.is_finite() && f.abs() < 9.0e18 {
                    (*f as i64).hash(state)
                } else {
                    f.to_bits().hash(state)
                }
            }
            Value::List(l) => {
                1u8.hash(state);
                l.len().hash(state);
            }
            Value::Map(m) => {
                2u8.hash(state);
                m.len().hash(state);
            }
        }
    }
}

impl Equivalent<Value> for str {
    fn equivalent(&self, key: &Value) -> bool {
        matches!(key, Value::Str(s) if s == self)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.into())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s.into())
    }
}
/// A one-character string, as iterating a Python `str` yields.
impl From<char> for Value {
    fn from(c: char) -> Self {
        Value::Str(Str::from(c.encode_utf8(&mut [0; 4]) as &str))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<Vec<Value>> for Value {
    fn from(l: Vec<Value>) -> Self {
        Value::List(l.into())
    }
}
impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Map(m)
    }
}

impl Value {
    /// A string value (from a `&str`, a `String`, ...: a short one is
    /// stored inline without a detour through a heap `String`).
    pub fn str(s: impl Into<Str>) -> Value {
        Value::Str(s.into())
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    /// The map, if this is one.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
    /// The map, mutable, if this is one.
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
    /// The list, if this is one.
    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }
    /// Whether this is `None`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// Look a string key up in a map value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Python's truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// The Python type name Salt prints in messages (`int`, `str`, `dict`, ...).
    pub fn py_type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Map(_) => "dict",
        }
    }

    /// `str(value)` as Python prints it: strings bare, everything else as repr.
    pub fn py_str(&self) -> String {
        // A string's bytes copied (`to_string` would go through the
        // formatter).
        self.py_str_cow().into_owned()
    }

    /// [`Value::py_str`], borrowed when the value is a string.
    pub fn py_str_cow(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Value::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
            other => std::borrow::Cow::Owned(other.py_repr()),
        }
    }

    /// Python's `repr()` of the value (`{'a': 1, 'b': None}`).
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Float(f) => out.push_str(&py_float_repr(*f)),
            Value::Str(s) => out.push_str(&py_str_repr(s)),
            Value::List(l) => {
                out.push('[');
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }
}

/// Python's `repr(float)`: the shortest string that round-trips, with Python's
/// choice between positional and scientific notation.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits in scientific form.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        } else {
            let point = exp as usize + 1;
            if digits.len() <= point {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

/// Python's `repr(str)`: single quotes unless the string has a single quote
/// and no double quote; characters `str.isprintable()` rejects are escaped.
pub fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if py_unprintable(c) => {
                let u = c as u32;
                let _ = if u < 0x100 {
                    write!(out, "\\x{u:02x}")
                } else if u < 0x10000 {
                    write!(out, "\\u{u:04x}")
                } else {
                    write!(out, "\\U{u:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Characters Python's `str.isprintable()` rejects (the common ones).
fn py_unprintable(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || (0x7f..=0xa0).contains(&u)
        || u == 0xad
        || (0x2000..=0x200f).contains(&u)
        || (0x2028..=0x202f).contains(&u)
        || (0x205f..=0x206f).contains(&u)
        || u == 0x3000
        || u == 0xfeff
        || (0xd800..=0xdfff).contains(&u)
        || (0xe000..=0xf8ff).contains(&u)
        || (0xfff0..=0xfffb).contains(&u)
        || u == 0x1680
        || u == 0x180e
}

/// Build a map from `(key, value)` pairs with string keys.
#[macro_export]
macro_rules! vmap {
    ($($k:expr => $v:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut m = $crate::value::Map::new();
        $( m.insert($crate::value::Value::from($k), $crate::value::Value::from($v)); )*
        $crate::value::Value::Map(m)
    }};
}

/// Appends `v` as Python's `str()` prints it (nothing for `None`).
#[inline]
pub fn push_py_str(out: &mut String, v: Option<&Value>) {
    match v {
        Some(Value::Str(s)) => out.push_str(s),
        Some(other) => out.push_str(&other.py_str()),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        assert_eq!(py_float_repr(10000.0), "10000.0");
        assert_eq!(py_float_repr(10000.0001), "10000.0001");
        assert_eq!(py_float_repr(50.0001), "50.0001");
        assert_eq!(py_float_repr(1e16), "1e+16");
        assert_eq!(py_float_repr(0.0001), "0.0001");
        assert_eq!(py_float_repr(0.00001), "1e-05");
        assert_eq!(py_float_repr(-1.5), "-1.5");
        assert_eq!(py_float_repr(1010099.0), "1010099.0");
        assert_eq!(py_float_repr(1.5e300), "1.5e+300");
    }

    #[test]
    fn str_repr_quotes_like_python() {
        assert_eq!(py_str_repr("a"), "'a'");
        assert_eq!(py_str_repr("it's"), "\"it's\"");
        assert_eq!(py_str_repr("a'\"b"), "'a\\'\"b'");
        assert_eq!(py_str_repr("x\ny"), "'x\\ny'");
        assert_eq!(py_str_repr("\u{7f}\u{a0}é\u{200b}"), "'\\x7f\\xa0é\\u200b'");
        assert_eq!(py_str_repr("\u{e000}\u{1f600}"), "'\\ue000\u{1f600}'");
    }

    #[test]
    fn string_keys_look_up_without_allocating() {
        let v = vmap! {"a" => 1i64, "b" => "x"};
        assert_eq!(v.get("a"), Some(&Value::Int(1)));
        assert_eq!(v.get("b").and_then(Value::as_str), Some("x"));
        assert!(v.get("c").is_none());
    }

    #[test]
    fn json_output_uses_python_floats_and_order() {
        let v = vmap! {"z" => 10000.0, "a" => vec![Value::Null, Value::from(true)]};
        assert_eq!(
            v.to_json_pretty(),
            "{\n    \"z\": 10000.0,\n    \"a\": [\n        null,\n        true\n    ]\n}"
        );
        assert_eq!(v.py_repr(), "{'z': 10000.0, 'a': [None, True]}");
    }

    #[test]
    fn a_value_is_three_words() {
        // Str's spare byte holds the variant; List and Map are thin. A
        // chunk entry (key and value) is then 48 bytes instead of 64.
        assert_eq!(std::mem::size_of::<Value>(), 24);
    }

    #[test]
    fn streamed_json_matches_the_string_form() {
        let long: crate::value::List = (0..5000)
            .map(|i| vmap! {"i" => i as i64, "s" => format!("é\"{i}"), "e" => Map::new()})
            .collect();
        // Few top-level items holding large lists and maps: streamed, their
        // items rendered side by side (37 is not a multiple of a batch).
        let wide: Map = (0..37)
            .map(|i| {
                (
                    Value::from(format!("k{i}")),
                    vmap! {"l" => vec![Value::Int(i)]},
                )
            })
            .collect();
        let nested = vmap! {
            "a" => 1i64,
            "big" => Value::List(long.clone()),
            "wide" => Value::Map(wide.clone()),
            "deep" => vec![Value::Map(wide), Value::Null],
        };
        for v in [
            nested,
            Value::List(long),
            vmap! {"z" => 10000.0, "a" => vec![Value::Null, Value::from(true)]},
            Value::List(crate::value::list![]),
            Value::Map(Map::new()),
            Value::from("x"),
            Value::Int(3),
        ] {
            let mut out = Vec::new();
            v.write_json_pretty(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), v.to_json_pretty());
        }
    }
}
