//! Python-style text of template values: `repr()`, `str()` and what Salt's
//! Jinja finalizer prints for `{{ value }}` (dicts as `{'k': 'v'}` in
//! insertion order, `None`/`True`, floats as Python's `repr`, and, inside
//! printed dicts, strings holding newlines/tabs as YAML double-quoted
//! scalars — Salt 3008's `PrintableDict`).

use std::fmt::Write as _;

use minijinja::value::{Value, ValueKind};

use crate::value::py_str_repr;

/// Python's type name of a value (`dict`, `list`, `str`, ...).
pub fn py_type_name(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number => {
            if v.is_integer() {
                "int"
            } else {
                "float"
            }
        }
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq if v.is_tuple() => "tuple",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => "object",
    }
}

/// Python `repr()` of a value.
pub fn py_repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v, false);
    out
}

/// Python `str()` of a value: strings bare, everything else as `repr()`.
pub fn py_str(v: &Value) -> String {
    match v.as_str().filter(|_| v.kind() != ValueKind::Bytes) {
        Some(s) => s.to_string(),
        None if v.is_undefined() => String::new(),
        None => py_repr(v),
    }
}

/// What `{{ value }}` prints under Salt's finalizer.
pub fn finalize(v: &Value) -> String {
    match v.as_str().filter(|_| v.kind() != ValueKind::Bytes) {
        Some(s) => s.to_string(),
        None if v.is_undefined() => String::new(),
        None => {
            let mut out = String::new();
            write_repr(&mut out, v, true);
            out
        }
    }
}

fn write_number(out: &mut String, v: &Value) {
    if v.is_integer() {
        let _ = write!(out, "{v}");
    } else {
        match f64::try_from(v.clone()) {
            Ok(f) => out.push_str(&crate::value::py_float_repr(f)),
            Err(_) => {
                let _ = write!(out, "{v}");
            }
        }
    }
}

/// `printable`: format dicts as Salt's `PrintableDict` does. Containers
/// (plain or `mutable`) are read through minijinja's object protocol; only
/// whether a map is an `OrderedDict` is asked of `mutable`.
fn write_repr(out: &mut String, v: &Value, printable: bool) {
    match v.kind() {
        ValueKind::Undefined => {}
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number => write_number(out, v),
        ValueKind::String => out.push_str(&py_str_repr(v.as_str().unwrap_or_default())),
        ValueKind::Bytes => write_bytes_repr(out, v.as_bytes().unwrap_or_default()),
        ValueKind::Map => {
            let mut pairs = Vec::new();
            if let Ok(it) = v.try_iter() {
                for k in it {
                    let val = v.get_item(&k).unwrap_or_default();
                    pairs.push((k, val));
                }
            }
            if !printable && super::mutable::is_ordered_map(v) {
                write_ordered_dict(out, &pairs)
            } else {
                write_dict(out, &pairs, printable)
            }
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = v.try_iter().map(|it| it.collect()).unwrap_or_default();
            write_seq(out, &items, v.is_tuple(), printable)
        }
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

fn write_dict(out: &mut String, pairs: &[(Value, Value)], printable: bool) {
    out.push('{');
    for (i, (k, val)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, k, printable);
        out.push_str(": ");
        match val.as_str() {
            Some(s) if printable && s.contains(['\n', '\r', '\t']) => {
                out.push_str(&yaml_double_quoted(s, true))
            }
            _ => write_repr(out, val, printable),
        }
    }
    out.push('}');
}

/// Python's `repr()` of `bytes`: `b'...'` (double quotes when the bytes
/// hold a `'` and no `"`), printable ASCII as is, tab, newline and return
/// as `\t`, `\n`, `\r`, the rest as `\xNN`.
fn write_bytes_repr(out: &mut String, b: &[u8]) {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    out.push('b');
    out.push(quote);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if char::from(c) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(c)),
            _ => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(quote);
}

/// Python 3.11's `repr()` of an `OrderedDict`: `OrderedDict([('k', v)])`,
/// `OrderedDict()` when empty. (Salt's finalizer prints it as a dict.)
fn write_ordered_dict(out: &mut String, pairs: &[(Value, Value)]) {
    out.push_str("OrderedDict(");
    if !pairs.is_empty() {
        out.push('[');
        for (i, (k, val)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('(');
            write_repr(out, k, false);
            out.push_str(", ");
            write_repr(out, val, false);
            out.push(')');
        }
        out.push(']');
    }
    out.push(')');
}

fn write_seq(out: &mut String, items: &[Value], tuple: bool, printable: bool) {
    out.push(if tuple { '(' } else { '[' });
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, item, printable);
    }
    if tuple && items.len() == 1 {
        out.push(',');
    }
    out.push(if tuple { ')' } else { ']' });
}

/// PyYAML's `Emitter.write_double_quoted` without line folding: `"`, `\\`,
/// NEL, the Unicode line and paragraph separators, BOM and non-printable
/// characters escaped (with `allow_unicode=False` also everything outside
/// printable ASCII), short escapes where YAML has them.
pub fn yaml_double_quoted(s: &str, allow_unicode: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        let u = c as u32;
        let printable = (0x20..=0x7e).contains(&u)
            || (allow_unicode && ((0xa0..=0xd7ff).contains(&u) || (0xe000..=0xfffd).contains(&u)));
        if printable
            && !matches!(
                c,
                '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
            )
        {
            out.push(c);
            continue;
        }
        let short = match c {
            '\0' => Some('0'),
            '\x07' => Some('a'),
            '\x08' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\x0b' => Some('v'),
            '\x0c' => Some('f'),
            '\r' => Some('r'),
            '\x1b' => Some('e'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '\u{85}' => Some('N'),
            '\u{a0}' => Some('_'),
            '\u{2028}' => Some('L'),
            '\u{2029}' => Some('P'),
            _ => None,
        };
        let _ = match short {
            Some(e) => write!(out, "\\{e}"),
            None if u <= 0xff => write!(out, "\\x{u:02X}"),
            None if u <= 0xffff => write!(out, "\\u{u:04X}"),
            None => write!(out, "\\U{u:08X}"),
        };
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salt::render::jinja::mutable::{new_list, new_map};

    #[test]
    fn python_repr_of_values() {
        let m = new_map(
            [
                (Value::from("k"), Value::from("v")),
                (Value::from("n"), Value::from(())),
                (Value::from("b"), Value::from(true)),
                (Value::from("f"), Value::from(1e-7)),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(finalize(&m), "{'k': 'v', 'n': None, 'b': True, 'f': 1e-07}");
        let l = new_list(vec![
            "it's".into(),
            Value::from(2.0),
            Value::from(1u64 << 40),
        ]);
        assert_eq!(finalize(&l), "[\"it's\", 2.0, 1099511627776]");
        let t = Value::from(minijinja::value::Tuple::from([Value::from(1)]));
        assert_eq!(py_repr(&t), "(1,)");
    }

    #[test]
    fn printable_dict_quotes_multiline_values() {
        let m = new_map(
            [
                (Value::from("a"), Value::from("x\ny")),
                (Value::from("b"), Value::from("it's")),
                (Value::from("c"), new_list(vec!["p\nq".into()])),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(
            finalize(&m),
            "{'a': \"x\\ny\", 'b': \"it's\", 'c': ['p\\nq']}"
        );
        assert_eq!(py_str(&m), "{'a': 'x\\ny', 'b': \"it's\", 'c': ['p\\nq']}");
        assert_eq!(yaml_double_quoted("é\t\"\u{1}", true), "\"é\\t\\\"\\x01\"");
        // PyYAML prints U+00A0 with allow_unicode and escapes beyond U+FFFD.
        assert_eq!(
            yaml_double_quoted("\u{a0}\u{feff}\u{1f600}", true),
            "\"\u{a0}\\uFEFF\\U0001F600\""
        );
        assert_eq!(
            yaml_double_quoted("é\u{a0}\u{85}", false),
            "\"\\xE9\\_\\N\""
        );
    }
}
