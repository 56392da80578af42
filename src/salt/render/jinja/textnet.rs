//! Jinja2's text filters minijinja lacks or computes otherwise
//! (`truncate`, `wordcount`, `center`, `urlencode`; `filesizeformat` and
//! `striptags` come from minijinja-contrib), as Jinja2 3.1 computes them.

use super::py::int_arg;
use super::py::print::py_str;
use super::salt::py_error;
use minijinja::value::{Kwargs, Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error};

/// Register the filters of this module.
pub(super) fn register(env: &mut Environment<'static>) {
    env.add_filter("truncate", truncate);
    env.add_filter("wordcount", |v: MjValue| wordcount(&py_str(&v)));
    env.add_filter("center", center);
    env.add_filter("urlencode", urlencode);
    env.add_filter("filesizeformat", minijinja_contrib::filters::filesizeformat);
    env.add_filter("striptags", minijinja_contrib::filters::striptags);
}

/// Jinja2's `urlencode`: text (or anything not iterable) quoted as a URL
/// path; a dict, or an iterable of pairs, as a query string (`+` for a
/// space, `&` between pairs).
fn urlencode(v: MjValue) -> Result<MjValue, Error> {
    let iterable = matches!(
        v.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
    );
    if !iterable {
        return Ok(MjValue::from(url_quote(&v, false)));
    }
    let mut parts = Vec::new();
    for item in v.try_iter()? {
        let (key, value) = if v.kind() == ValueKind::Map {
            let value = v.get_item(&item)?;
            (item, value)
        } else {
            // `for k, v in items`: Python's unpacking and its errors.
            let pair = super::py::unpack(item, 2)?;
            (pair.get_item_by_index(0)?, pair.get_item_by_index(1)?)
        };
        parts.push(format!(
            "{}={}",
            url_quote(&key, true),
            url_quote(&value, true)
        ));
    }
    Ok(MjValue::from(parts.join("&")))
}

/// Jinja2's `url_quote`: the UTF-8 bytes of `str(v)` percent-encoded but
/// for letters, digits and `_.-~` (and `/` outside a query); in a query a
/// space is `+`.
fn url_quote(v: &MjValue, for_qs: bool) -> String {
    let bytes: Vec<u8> = match v.as_bytes().filter(|_| v.kind() == ValueKind::Bytes) {
        Some(b) => b.to_vec(),
        None => py_str(v).into_bytes(),
    };
    let mut out = String::with_capacity(bytes.len());
    for b in bytes {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(char::from(b))
            }
            b'/' if !for_qs => out.push('/'),
            b' ' if for_qs => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A positional or keyword argument (`i` counts after the filtered value).
fn arg(args: &[MjValue], kwargs: &Kwargs, i: usize, name: &str) -> Result<Option<MjValue>, Error> {
    match args.get(i) {
        Some(v) => Ok(Some(v.clone())),
        None => kwargs.get(name),
    }
}

fn int_of(v: Option<MjValue>, default: i64) -> Result<i64, Error> {
    v.map_or(Ok(default), |v| int_arg(&v))
}

/// `do_truncate(s, length=255, killwords=False, end='...', leeway=5)`.
fn truncate(value: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<String, Error> {
    let s = py_str(&value);
    let length = int_of(arg(&args, &kwargs, 0, "length")?, 255)?;
    let killwords = arg(&args, &kwargs, 1, "killwords")?.is_some_and(|v| v.is_true());
    let end = arg(&args, &kwargs, 2, "end")?.map_or("...".to_string(), |v| py_str(&v));
    let leeway = int_of(arg(&args, &kwargs, 3, "leeway")?, 5)?;
    kwargs.assert_all_used()?;
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(py_error(format!(
            "AssertionError: expected length >= {end_len}, got {length}"
        )));
    }
    if leeway < 0 {
        return Err(py_error(format!(
            "AssertionError: expected leeway >= 0, got {leeway}"
        )));
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() as i64 <= length + leeway {
        return Ok(s);
    }
    let head: String = chars[..(length - end_len) as usize].iter().collect();
    let kept = if killwords {
        head
    } else {
        // `rsplit(" ", 1)[0]`
        match head.rfind(' ') {
            Some(i) => head[..i].to_string(),
            None => head,
        }
    };
    Ok(kept + &end)
}

/// `len(re.findall(r"\w+", s))`.
fn wordcount(s: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in s.chars() {
        let word = c.is_alphanumeric() || c == '_';
        if word && !in_word {
            count += 1;
        }
        in_word = word;
    }
    count
}

/// `str(value).center(width=80)`: CPython puts the odd space on the left
/// when both the padding and the width are odd.
fn center(value: MjValue, width: Option<MjValue>) -> Result<String, Error> {
    let s = py_str(&value);
    let width = int_of(width, 80)?;
    let len = s.chars().count() as i64;
    if width <= len {
        return Ok(s);
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    Ok(format!(
        "{}{s}{}",
        " ".repeat(left as usize),
        " ".repeat((marg - left) as usize)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_filters_as_jinja2() {
        let t = |s: &str, n: i64, kill: bool| {
            let kw = Kwargs::from_iter(Vec::<(&str, MjValue)>::new());
            truncate(
                MjValue::from(s),
                Rest(vec![MjValue::from(n), MjValue::from(kill)]),
                kw,
            )
            .unwrap()
        };
        assert_eq!(t("hello world foo", 9, false), "hello...");
        assert_eq!(t("hello world foo", 9, true), "hello ...");
        assert_eq!(t("short", 9, false), "short");
        assert_eq!(t("hello world fo", 9, false), "hello world fo");
        assert_eq!(wordcount("it's a dog_cat, 42!"), 5);
        assert_eq!(
            center(MjValue::from("ab"), Some(MjValue::from(5))).unwrap(),
            "  ab "
        );
        assert_eq!(
            center(MjValue::from("abc"), Some(MjValue::from(6))).unwrap(),
            " abc  "
        );
    }
}
