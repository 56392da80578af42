//! Python-style text of template values: `repr()`, `str()` and what Salt's
//! Jinja finalizer prints for `{{ value }}` (dicts as `{'k': 'v'}` in
//! insertion order, `None`/`True`, floats as Python's `repr`, and, inside
//! printed dicts, strings holding newlines/tabs as YAML double-quoted
//! scalars — Salt 3008's `PrintableDict`). Also Python's idea of a
//! whitespace character, which the filters and the pre-pass share.

use std::fmt::Write as _;

use minijinja::value::{Value, ValueKind};

use crate::value::py_str_repr;

/// Python's `str.isspace()` of one character, which is also what `\s`
/// matches in a `str` pattern: Unicode whitespace and the separators
/// `\x1c`-`\x1f` (Rust's `char::is_whitespace` leaves those out).
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\x1c'..='\x1f')
}

/// Python's type name of a value (`dict`, `list`, `str`, ...).
pub(crate) fn py_type_name(v: &Value) -> &'static str {
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
pub(crate) fn py_repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v, false);
    out
}

/// Python `str()` of a value: strings bare, everything else as `repr()`.
pub(crate) fn py_str(v: &Value) -> String {
    match v.as_str().filter(|_| v.kind() != ValueKind::Bytes) {
        Some(s) => s.to_string(),
        None if v.is_undefined() => String::new(),
        None => py_repr(v),
    }
}

/// What `{{ value }}` prints under Salt's finalizer.
pub(crate) fn finalize(v: &Value) -> String {
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
        // Jinja2's Undefined (Salt's StrictUndefined too) has this repr:
        // `[foo]|string` with `foo` unset is `[Undefined]`.
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number => write_number(out, v),
        // A safe string is MarkupSafe's `Markup`, whose repr says so.
        ValueKind::String if v.is_safe() => {
            let _ = write!(
                out,
                "Markup({})",
                py_str_repr(v.as_str().unwrap_or_default())
            );
        }
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
            if !printable && super::is_ordered_map(v) {
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
pub(crate) fn yaml_double_quoted(s: &str, allow_unicode: bool) -> String {
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

/// Python's `ascii()`: `repr()` with every non-ASCII character escaped.
pub(crate) fn py_ascii(v: &Value) -> String {
    let mut out = String::new();
    for c in py_repr(v).chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xff => {
                let _ = write!(out, "\\x{n:02x}");
            }
            n @ 0x100..=0xffff => {
                let _ = write!(out, "\\u{n:04x}");
            }
            n => {
                let _ = write!(out, "\\U{n:08x}");
            }
        }
    }
    out
}

/// `str.format` conversion flags (`{!r}`, `{0!s:>6}`, `{name[k]!a}`),
/// which minijinja's formatter does not parse. Returns `None` when `fmt`
/// has none (format it as it is); otherwise the format string with each
/// converted field replaced by a reference to an extra positional argument
/// (appended after `args`, already converted), and automatic field numbers
/// made explicit so they still count the converted fields. `kwargs` looks
/// up named fields.
pub(crate) fn str_format_conversions(
    fmt: &str,
    args: &[Value],
    kwargs: &dyn Fn(&str) -> Option<Value>,
) -> Result<Option<(String, Vec<Value>)>, String> {
    if !fmt.contains('!') {
        return Ok(None);
    }
    let mut out = String::with_capacity(fmt.len());
    let mut extra = Vec::new();
    let mut auto: Option<usize> = None;
    let mut manual = false;
    let mut converted = false;
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        rest = &rest[i..];
        if rest.len() > 1 && rest.as_bytes()[1] == c {
            out.push_str(&rest[..2]);
            rest = &rest[2..];
            continue;
        }
        if c == b'}' {
            return Err("Single '}' encountered in format string".into());
        }
        // The field: up to its matching '}' (a spec may nest `{width}`).
        let mut depth = 0usize;
        let mut end = None;
        let mut in_key = false;
        for (j, b) in rest.bytes().enumerate() {
            match b {
                b'[' if depth == 1 => in_key = true,
                b']' if in_key => in_key = false,
                _ if in_key => {}
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or("expected '}' before end of string")?;
        let body = &rest[1..end];
        rest = &rest[end + 1..];
        // field_name ['!' conversion] [':' spec]
        let mut name_end = body.len();
        let mut in_key = false;
        for (j, b) in body.bytes().enumerate() {
            match b {
                b'[' => in_key = true,
                b']' => in_key = false,
                b'!' | b':' if !in_key => {
                    name_end = j;
                    break;
                }
                _ => {}
            }
        }
        let name = &body[..name_end];
        let mut tail = &body[name_end..];
        let mut conversion = None;
        if let Some(t) = tail.strip_prefix('!') {
            let mut chars = t.chars();
            let conv = chars.next();
            tail = chars.as_str();
            if !(tail.is_empty() || tail.starts_with(':')) {
                return Err("expected ':' after conversion specifier".into());
            }
            conversion = match conv {
                Some(c @ ('r' | 's' | 'a')) => Some(c),
                Some(c) => return Err(format!("Unknown conversion specifier {c}")),
                None => return Err("unmatched '{' in format spec".into()),
            };
        }
        let split = name.find(['.', '[']).unwrap_or(name.len());
        let (first, path) = name.split_at(split);
        let index = if first.is_empty() {
            if manual {
                return Err(
                    "cannot switch from manual field specification to automatic field numbering"
                        .into(),
                );
            }
            let n = auto.map_or(0, |n| n + 1);
            auto = Some(n);
            Some(n)
        } else if let Ok(n) = first.parse::<usize>() {
            if auto.is_some() {
                return Err(
                    "cannot switch from automatic field numbering to manual field specification"
                        .into(),
                );
            }
            manual = true;
            Some(n)
        } else {
            None
        };
        let Some(conv) = conversion else {
            out.push('{');
            match index {
                Some(n) if first.is_empty() => {
                    let _ = write!(out, "{n}");
                }
                _ => out.push_str(first),
            }
            out.push_str(path);
            out.push_str(tail);
            out.push('}');
            continue;
        };
        converted = true;
        let mut value = match index {
            Some(n) => args.get(n).cloned().ok_or_else(|| {
                format!("Replacement index {n} out of range for positional args tuple")
            })?,
            None => kwargs(first).ok_or_else(|| format!("'{first}'"))?,
        };
        value = field_path(value, path)?;
        let text = match conv {
            'r' => py_repr(&value),
            'a' => py_ascii(&value),
            _ => py_str(&value),
        };
        let _ = write!(out, "{{{}{tail}}}", args.len() + extra.len());
        extra.push(Value::from(text));
    }
    out.push_str(rest);
    Ok(converted.then_some((out, extra)))
}

/// Follow a replacement field's `.attr` / `[key]` path from `value`.
fn field_path(mut value: Value, mut path: &str) -> Result<Value, String> {
    while !path.is_empty() {
        if let Some(p) = path.strip_prefix('.') {
            let end = p.find(['.', '[']).unwrap_or(p.len());
            let attr = &p[..end];
            if attr.is_empty() {
                return Err("Empty attribute in format string".into());
            }
            let owner = py_type_name(&value);
            value = value.get_attr(attr).map_err(|e| e.to_string())?;
            if value.is_undefined() {
                return Err(format!("'{owner}' object has no attribute '{attr}'"));
            }
            path = &p[end..];
        } else if let Some(p) = path.strip_prefix('[') {
            let end = p.find(']').ok_or("Missing ']' in format string")?;
            let key = &p[..end];
            let key = match key.parse::<i64>() {
                Ok(n) if key.bytes().all(|b| b.is_ascii_digit()) => Value::from(n),
                _ => Value::from(key),
            };
            let item = value.get_item(&key).map_err(|e| e.to_string())?;
            if item.is_undefined() {
                return Err(py_repr(&key));
            }
            value = item;
            path = &p[end + 1..];
        } else {
            return Err("Only '.' or '[' may follow ']' in format field specifier".into());
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::super::{new_list, new_map};
    use super::*;

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
