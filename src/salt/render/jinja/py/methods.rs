//! Python methods on template values that minijinja lacks: the string
//! methods pycompat does not have (`split`/`rsplit` on whitespace,
//! `partition`, `format`, `center`, `zfill`, `encode`...), `bytes.decode`,
//! `copy()` of an engine dict or list, then pycompat itself, and a clear
//! error for a mutator called on an immutable engine value. The mutable
//! containers' own methods are in the parent module.

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

use super::print as pyfmt;
use super::{err, int_arg, new_list, new_map, pairs_of, split_kwargs, to_mut_shallow};

const MUTATORS: &[&str] = &[
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "append",
    "extend",
    "insert",
    "remove",
    "reverse",
    "sort",
];

/// The unknown-method callback: Python string methods pycompat lacks, then
/// pycompat (with container results made mutable), then a clear error for
/// mutators called on an immutable engine value.
pub(crate) fn unknown_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    if let (Some(b), "decode") = (value.as_bytes(), method) {
        return py_decode(b, str_arg(args, 0)?.unwrap_or("utf-8"));
    }
    if let Some(s) = value.as_str().filter(|_| value.kind() == ValueKind::String) {
        if let Some(rv) = string_method(s, method, args)? {
            return Ok(rv);
        }
    }
    if matches!(value.kind(), ValueKind::Map | ValueKind::Seq)
        && method == "copy"
        && args.is_empty()
    {
        return Ok(to_mut_shallow_copy(value));
    }
    match minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args) {
        Ok(rv) => Ok(to_mut_shallow(rv)),
        Err(e) if e.kind() == ErrorKind::UnknownMethod => {
            if MUTATORS.contains(&method) && matches!(value.kind(), ValueKind::Map | ValueKind::Seq)
            {
                Err(err(format!(
                    "cannot call .{method}() on an immutable {} (the result of a filter or operator); \
                     assign it with {{% set %}} first",
                    if value.kind() == ValueKind::Map { "dict" } else { "list" }
                )))
            } else {
                // Jinja2's `object_type_repr`: `None` is named as such.
                let owner = if value.is_none() {
                    "None".to_string()
                } else {
                    format!("{} object", pyfmt::py_type_name(value))
                };
                Err(Error::new(
                    ErrorKind::UnknownMethod,
                    format!("'{owner}' has no attribute '{method}'"),
                ))
            }
        }
        Err(e) => Err(e),
    }
}

fn to_mut_shallow_copy(v: &Value) -> Value {
    if v.kind() == ValueKind::Map {
        new_map(pairs_of(v).unwrap_or_default().into_iter().collect())
    } else {
        new_list(v.try_iter().map(|i| i.collect()).unwrap_or_default())
    }
}

fn str_arg(args: &[Value], i: usize) -> Result<Option<&str>, Error> {
    match args.get(i) {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .as_str()
            .map(Some)
            .ok_or_else(|| err("TypeError: must be str")),
    }
}

/// Python's `str.split`/`rsplit` without a separator (runs of whitespace).
fn split_ws(s: &str, maxsplit: i64, from_right: bool) -> Vec<Value> {
    let words: Vec<&str> = s
        .split(pyfmt::is_py_space)
        .filter(|w| !w.is_empty())
        .collect();
    if maxsplit < 0 || words.len() as i64 <= maxsplit + 1 {
        return words.into_iter().map(Value::from).collect();
    }
    let n = maxsplit as usize;
    if from_right {
        // keep the leftmost remainder intact (without its trailing whitespace)
        let mut out = Vec::new();
        let mut rest = s.trim_end_matches(pyfmt::is_py_space);
        for _ in 0..n {
            let cut = rest.rfind(pyfmt::is_py_space).unwrap_or(0);
            out.push(Value::from(
                rest[cut..].trim_start_matches(pyfmt::is_py_space),
            ));
            rest = rest[..cut].trim_end_matches(pyfmt::is_py_space);
        }
        out.push(Value::from(rest));
        out.reverse();
        out
    } else {
        let mut out = Vec::new();
        let mut rest = s.trim_start_matches(pyfmt::is_py_space);
        for _ in 0..n {
            let cut = rest.find(pyfmt::is_py_space).unwrap_or(rest.len());
            out.push(Value::from(&rest[..cut]));
            rest = rest[cut..].trim_start_matches(pyfmt::is_py_space);
        }
        out.push(Value::from(rest));
        out
    }
}

/// Python string methods missing from pycompat. `Ok(None)`: not ours.
fn string_method(s: &str, method: &str, all_args: &[Value]) -> Result<Option<Value>, Error> {
    let (args, kwargs) = split_kwargs(all_args);
    let kw = |name: &str| -> Result<Option<Value>, Error> {
        match &kwargs {
            Some(k) => k.get::<Option<Value>>(name),
            None => Ok(None),
        }
    };
    let rv = match method {
        "split" | "rsplit" => {
            let sep = match kw("sep")? {
                Some(v) if !v.is_none() => Some(v.to_string()),
                _ => str_arg(args, 0)?.map(str::to_string),
            };
            let maxsplit = match kw("maxsplit")? {
                Some(v) => int_arg(&v)?,
                None => args.get(1).map(int_arg).transpose()?.unwrap_or(-1),
            };
            let from_right = method == "rsplit";
            let parts: Vec<Value> = match sep {
                None => split_ws(s, maxsplit, from_right),
                Some(sep) if sep.is_empty() => return Err(err("ValueError: empty separator")),
                Some(sep) => {
                    let n = if maxsplit < 0 {
                        usize::MAX
                    } else {
                        maxsplit as usize + 1
                    };
                    if from_right {
                        let mut v: Vec<Value> =
                            s.rsplitn(n, sep.as_str()).map(Value::from).collect();
                        v.reverse();
                        v
                    } else {
                        s.splitn(n, sep.as_str()).map(Value::from).collect()
                    }
                }
            };
            new_list(parts)
        }
        // Conversion flags (`{!r}`): the converted fields become extra
        // positional arguments, the rest is minijinja's `str.format`.
        "format" => {
            let named = |n: &str| kwargs.as_ref().and_then(|k| k.peek::<Value>(n).ok());
            let Some((fmt, extra)) = pyfmt::str_format_conversions(s, args, &named).map_err(err)?
            else {
                return Ok(None);
            };
            let mut all: Vec<Value> = args.to_vec();
            all.extend(extra);
            all.extend(all_args.last().filter(|v| v.is_kwargs()).cloned());
            Value::from(minijinja::formatting::format(
                minijinja::formatting::FormatStyle::StrFormat,
                &fmt,
                &all,
            )?)
        }
        "partition" | "rpartition" => {
            let sep =
                str_arg(args, 0)?.ok_or_else(|| err("partition() takes exactly one argument"))?;
            if sep.is_empty() {
                return Err(err("ValueError: empty separator"));
            }
            let found = if method == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts: [Value; 3] = match found {
                Some(i) => [s[..i].into(), sep.into(), s[i + sep.len()..].into()],
                None if method == "partition" => [s.into(), "".into(), "".into()],
                None => ["".into(), "".into(), s.into()],
            };
            Value::from(minijinja::value::Tuple::from(parts))
        }
        // Python's `str.title()`: a letter after a cased letter is lowered,
        // any other is raised (digits and `_` start a word too, unlike the
        // `title` filter's).
        "title" if args.is_empty() => {
            let mut out = String::with_capacity(s.len());
            let mut after_cased = false;
            for c in s.chars() {
                let cased = c.is_lowercase() || c.is_uppercase();
                if after_cased {
                    out.extend(c.to_lowercase());
                } else {
                    out.extend(c.to_uppercase());
                }
                after_cased = cased;
            }
            Value::from(out)
        }
        "zfill" => {
            let width = args.first().map(int_arg).transpose()?.unwrap_or(0).max(0) as usize;
            let len = s.chars().count();
            if len >= width {
                Value::from(s)
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), s),
                };
                Value::from(format!("{sign}{}{rest}", "0".repeat(width - len)))
            }
        }
        "ljust" | "rjust" | "center" => {
            let width = args.first().map(int_arg).transpose()?.unwrap_or(0).max(0) as usize;
            let fill = str_arg(args, 1)?
                .and_then(|f| f.chars().next())
                .unwrap_or(' ');
            let len = s.chars().count();
            if len >= width {
                Value::from(s)
            } else {
                let pad = width - len;
                let (left, right) = match method {
                    "ljust" => (0, pad),
                    "rjust" => (pad, 0),
                    // Python puts the extra char on the right when width is odd... unless len is odd
                    _ => {
                        let left = pad / 2 + (pad & width & 1);
                        (left, pad - left)
                    }
                };
                let f = fill.to_string();
                Value::from(format!("{}{s}{}", f.repeat(left), f.repeat(right)))
            }
        }
        "index" | "rindex" => {
            let sub = str_arg(args, 0)?.unwrap_or("");
            let found = if method == "index" {
                s.find(sub)
            } else {
                s.rfind(sub)
            };
            match found {
                Some(i) => Value::from(s[..i].chars().count()),
                None => return Err(err("ValueError: substring not found")),
            }
        }
        "casefold" => Value::from(s.to_lowercase()),
        "swapcase" => Value::from(
            s.chars()
                .flat_map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().collect::<Vec<_>>()
                    } else {
                        c.to_uppercase().collect::<Vec<_>>()
                    }
                })
                .collect::<String>(),
        ),
        "isidentifier" => Value::from(
            s.chars()
                .next()
                .is_some_and(|c| c == '_' || c.is_alphabetic())
                && s.chars().all(|c| c == '_' || c.is_alphanumeric()),
        ),
        "istitle" => {
            let mut prev_cased = false;
            let mut any = false;
            let mut ok = true;
            for c in s.chars() {
                if c.is_uppercase() {
                    ok &= !prev_cased;
                    prev_cased = true;
                    any = true;
                } else if c.is_lowercase() {
                    ok &= prev_cased;
                    prev_cased = true;
                    any = true;
                } else {
                    prev_cased = false;
                }
            }
            Value::from(ok && any)
        }
        "expandtabs" => {
            let size = args.first().map(int_arg).transpose()?.unwrap_or(8).max(0) as usize;
            let mut out = String::new();
            let mut col = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if size == 0 { 0 } else { size - col % size };
                        out.push_str(&" ".repeat(n));
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::from(out)
        }
        "removeprefix" => {
            let p = str_arg(args, 0)?.unwrap_or("");
            Value::from(s.strip_prefix(p).unwrap_or(s))
        }
        "removesuffix" => {
            let p = str_arg(args, 0)?.unwrap_or("");
            Value::from(s.strip_suffix(p).unwrap_or(s))
        }
        "encode" => Value::from_bytes(py_encode(s, str_arg(args, 0)?.unwrap_or("utf-8"))?),
        _ => return Ok(None),
    };
    Ok(Some(rv))
}

/// Python's name of a codec lookup (`UTF8`, `utf_8` and `u8` are
/// `utf-8`), for the three codecs templates use.
fn codec(name: &str) -> Result<&'static str, Error> {
    let norm = name.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    match norm.as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "cp65001" => Ok("utf-8"),
        "ascii" | "us_ascii" | "646" => Ok("ascii"),
        "latin_1" | "latin1" | "latin" | "l1" | "iso8859_1" | "iso_8859_1" | "8859" | "cp819" => {
            Ok("latin-1")
        }
        _ => Err(err(format!("unknown encoding: {name}"))),
    }
}

/// Python's `str.encode(encoding)` (strict errors).
fn py_encode(s: &str, encoding: &str) -> Result<Vec<u8>, Error> {
    let limit = match codec(encoding)? {
        "utf-8" => return Ok(s.as_bytes().to_vec()),
        "ascii" => 0x80,
        _ => 0x100,
    };
    let name = if limit == 0x80 { "ascii" } else { "latin-1" };
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            u8::try_from(c as u32).ok().filter(|b| u32::from(*b) < limit).ok_or_else(|| {
                err(format!(
                    "'{name}' codec can't encode character {} in position {i}: ordinal not in range({limit})",
                    crate::value::py_str_repr(&c.to_string())
                ))
            })
        })
        .collect()
}

/// Python's `bytes.decode(encoding)` (strict errors).
fn py_decode(b: &[u8], encoding: &str) -> Result<Value, Error> {
    match codec(encoding)? {
        "utf-8" => std::str::from_utf8(b).map(Value::from).map_err(|e| {
            err(format!(
                "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
                b[e.valid_up_to()],
                e.valid_up_to()
            ))
        }),
        "ascii" => match b.iter().position(|c| *c >= 0x80) {
            Some(i) => Err(err(format!(
                "'ascii' codec can't decode byte 0x{:02x} in position {i}: ordinal not in range(128)",
                b[i]
            ))),
            None => Ok(Value::from(b.iter().map(|c| char::from(*c)).collect::<String>())),
        },
        _ => Ok(Value::from(b.iter().map(|c| char::from(*c)).collect::<String>())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_split_variants() {
        let call = |s: &str, m: &str, a: Vec<Value>| {
            pyfmt::py_repr(&string_method(s, m, &a).unwrap().unwrap())
        };
        assert_eq!(
            call("a/b/c", "rsplit", vec!["/".into(), 1.into()]),
            "['a/b', 'c']"
        );
        assert_eq!(
            call("a/b/c", "split", vec!["/".into(), 1.into()]),
            "['a', 'b/c']"
        );
        assert_eq!(
            call("  a  b c ", "rsplit", vec![Value::from(()), 1.into()]),
            "['  a  b', 'c']"
        );
        assert_eq!(call("  a  b c ", "split", vec![]), "['a', 'b', 'c']");
        assert_eq!(
            call("a.b.yaml", "rpartition", vec![".".into()]),
            "('a.b', '.', 'yaml')"
        );
        assert_eq!(call("ab", "partition", vec![".".into()]), "('ab', '', '')");
        assert_eq!(call("-42", "zfill", vec![5.into()]), "'-0042'");
        assert_eq!(call("ab", "center", vec![5.into(), "*".into()]), "'**ab*'");
        assert_eq!(call("abc", "center", vec![6.into()]), "' abc  '");
    }
}
