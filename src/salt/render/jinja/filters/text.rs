//! Salt's text filters: `indent`, `to_bool`, `quote`, the `regex_*`
//! filters and the `match` test (Python `re` patterns on fancy-regex,
//! replacement templates expanded here), `uuid`, `base64_*`, case changes,
//! `is_hex`, `contains_whitespace`, `human_to_bytes`, `path_join`.

use super::*;

/// The filters of this file, by name.
pub(super) const FILTERS: &[(&str, Filter)] = &[
    ("indent", f_indent),
    ("to_bool", f_to_bool),
    ("quote", f_quote),
    ("regex_escape", f_regex_escape),
    ("regex_search", f_regex_search),
    ("regex_match", f_regex_match),
    ("regex_replace", f_regex_replace),
    ("uuid", f_uuid),
    ("md5", |a: Args| a.digest::<md5::Md5>()),
    ("sha1", |a: Args| a.digest::<sha1::Sha1>()),
    ("sha256", |a: Args| a.digest::<sha2::Sha256>()),
    ("sha512", |a: Args| a.digest::<sha2::Sha512>()),
    ("base64_encode", f_base64_encode),
    ("base64_decode", f_base64_decode),
    ("to_snake_case", f_to_snake_case),
    ("to_camelcase", f_to_camelcase),
    ("is_hex", f_is_hex),
    ("contains_whitespace", f_contains_whitespace),
    ("human_to_bytes", f_human_to_bytes),
    ("path_join", f_path_join),
];

pub(super) fn f_indent(a: Args) -> Result<MjValue, Error> {
    let s = a.raw(0, "s").cloned().unwrap_or_default();
    // Jinja2's do_indent starts with `s += "\n"`: anything but a string
    // fails there (a list a step later, at `s.splitlines()`).
    if s.as_str().is_none() && !s.is_undefined() {
        return Err(type_error(if s.is_tuple() {
            "can only concatenate tuple (not \"str\") to tuple".to_string()
        } else {
            match from_mj(&s)? {
                Value::List(_) => "'list' object has no attribute 'splitlines'".to_string(),
                other => format!(
                    "unsupported operand type(s) for +=: '{}' and 'str'",
                    other.py_type_name()
                ),
            }
        }));
    }
    let safe = s.is_safe();
    let s = s
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| s.to_string());
    let width = match a.value(1, "width")? {
        Some(Value::Int(n)) => " ".repeat(n.max(0) as usize),
        Some(Value::Str(w)) => w.to_string(),
        None => "    ".into(),
        Some(other) => {
            return Err(type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                other.py_type_name()
            )))
        }
    };
    let mut first = a.flag(2, "first", false);
    let blank = a.flag(3, "blank", false);
    if let Some(f) = a.raw(4, "indentfirst") {
        if !f.is_none() {
            first = f.is_true();
        }
    }
    let s = format!("{s}\n");
    let lines = py_splitlines(&s);
    let mut rv = if blank {
        lines.join(&format!("\n{width}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default().to_string();
        for line in it {
            rv.push('\n');
            if !line.is_empty() {
                rv.push_str(&width);
            }
            rv.push_str(line);
        }
        rv
    };
    if first {
        rv = format!("{width}{rv}");
    }
    Ok(if safe {
        MjValue::from_safe_string(rv)
    } else {
        MjValue::from(rv)
    })
}

/// Python's `str.splitlines()`.
pub(crate) fn py_splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        let (pos, c) = bytes[i];
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            out.push(&s[start..pos]);
            let mut next = pos + c.len_utf8();
            if c == '\r' && bytes.get(i + 1).is_some_and(|(_, n)| *n == '\n') {
                next += 1;
                i += 1;
            }
            start = next;
        }
        i += 1;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

pub(super) fn f_to_bool(a: Args) -> Result<MjValue, Error> {
    let v = a.req(0, "val")?;
    let b = match &v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Str(s) => matches!(s.to_lowercase().as_str(), "yes" | "1" | "true"),
        Value::Int(i) => *i > 0,
        Value::Float(_) => false,
        Value::List(l) => !l.is_empty(),
        Value::Map(m) => !m.is_empty(),
    };
    Ok(MjValue::from(b))
}

/// `shlex.quote`.
pub(crate) fn shlex_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

pub(super) fn f_quote(a: Args) -> Result<MjValue, Error> {
    match a.req(0, "txt")? {
        Value::Str(s) => Ok(MjValue::from(shlex_quote(&s))),
        other => Err(type_error(format!(
            "expected string or bytes-like object, got '{}'",
            other.py_type_name()
        ))),
    }
}

/// Python's `re.escape`.
pub(super) fn py_re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(super) fn f_regex_escape(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(py_re_escape(&a.text(0, "value")?)))
}

/// Compile a Python `re` pattern with Salt's flags.
pub(crate) fn compile(
    rgx: &str,
    ignorecase: bool,
    multiline: bool,
    anchored: bool,
) -> Result<fancy_regex::Regex, Error> {
    let flags = crate::pyre::Flags {
        ignorecase,
        multiline,
    };
    crate::pyre::compile_for(rgx, flags, anchored).map_err(|e| {
        py_error(format!(
            "invalid regular expression {}: {e}",
            py_str_repr(rgx)
        ))
    })
}

pub(super) fn search_groups(a: Args, anchored: bool) -> Result<MjValue, Error> {
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let re = compile(
        &rgx,
        a.flag(2, "ignorecase", false),
        a.flag(3, "multiline", false),
        anchored,
    )?;
    let caps = re.captures(&txt).map_err(|e| py_error(e.to_string()))?;
    let Some(caps) = caps else {
        return Ok(MjValue::from(()));
    };
    let groups: Vec<MjValue> = if caps.len() <= 1 {
        vec![MjValue::from(caps.get(0).map_or("", |m| m.as_str()))]
    } else {
        (1..caps.len())
            .map(|i| {
                caps.get(i)
                    .map_or(MjValue::from(()), |m| MjValue::from(m.as_str()))
            })
            .collect()
    };
    Ok(MjValue::from_object(minijinja::value::Tuple::from(groups)))
}

pub(super) fn f_regex_search(a: Args) -> Result<MjValue, Error> {
    search_groups(a, false)
}

pub(super) fn f_regex_match(a: Args) -> Result<MjValue, Error> {
    search_groups(a, true)
}

/// Expand a Python `re.sub` replacement template for one match.
pub(super) fn expand_py_template(
    tpl: &str,
    caps: &fancy_regex::Captures,
    re: &fancy_regex::Regex,
) -> Result<String, Error> {
    let mut out = String::new();
    let mut chars = tpl.chars().peekable();
    let group = |out: &mut String, idx: usize| -> Result<(), Error> {
        if idx >= caps.len() {
            return Err(py_error(format!("invalid group reference {idx}")));
        }
        out.push_str(caps.get(idx).map_or("", |m| m.as_str()));
        Ok(())
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            None => return Err(py_error("bad escape (end of pattern)")),
            Some(d) if d.is_ascii_digit() => {
                let mut num = d.to_string();
                if let Some(&e) = chars.peek() {
                    if e.is_ascii_digit() {
                        num.push(e);
                        chars.next();
                    }
                }
                group(&mut out, num.parse().unwrap_or(0))?;
            }
            Some('g') => {
                if chars.next() != Some('<') {
                    return Err(py_error("missing <"));
                }
                let name: String = chars.by_ref().take_while(|c| *c != '>').collect();
                match name.parse::<usize>() {
                    Ok(i) => group(&mut out, i)?,
                    Err(_) => {
                        let idx = re
                            .capture_names()
                            .position(|n| n == Some(name.as_str()))
                            .ok_or_else(|| py_error(format!("unknown group name '{name}'")))?;
                        group(&mut out, idx)?;
                    }
                }
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('\\') => out.push('\\'),
            Some(d) if d.is_ascii_alphabetic() => {
                return Err(py_error(format!("bad escape \\{d}")))
            }
            Some(d) => {
                out.push('\\');
                out.push(d);
            }
        }
    }
    Ok(out)
}

pub(super) fn f_regex_replace(a: Args) -> Result<MjValue, Error> {
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let val = a.text(2, "val")?;
    let re = compile(
        &rgx,
        a.flag(3, "ignorecase", false),
        a.flag(4, "multiline", false),
        false,
    )?;
    let mut out = String::with_capacity(txt.len());
    let mut last = 0;
    for caps in re.captures_iter(&txt) {
        let caps = caps.map_err(|e| py_error(e.to_string()))?;
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&txt[last..m.start()]);
        out.push_str(&expand_py_template(&val, &caps, &re)?);
        last = m.end();
    }
    out.push_str(&txt[last..]);
    Ok(MjValue::from(out))
}

/// `uuid.uuid5(GLOBAL_UUID, str(val))`.
pub(super) fn f_uuid(a: Args) -> Result<MjValue, Error> {
    use sha1::Digest;
    let name = a.text(0, "val")?;
    let ns: [u8; 16] = [
        0x91, 0x63, 0x3e, 0xbf, 0x1c, 0x86, 0x5e, 0x33, 0x93, 0x5a, 0x28, 0x06, 0x1f, 0x4b, 0x48,
        0x0e,
    ];
    let mut h = sha1::Sha1::new();
    h.update(ns);
    h.update(name.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(MjValue::from(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )))
}

pub(super) fn f_base64_encode(a: Args) -> Result<MjValue, Error> {
    let bytes = to_bytes(&a.req(0, "instr")?)?;
    Ok(MjValue::from(b64encode(&bytes)))
}

pub(super) fn f_base64_decode(a: Args) -> Result<MjValue, Error> {
    let text = a.text(0, "instr")?;
    let bytes = b64decode(&text)
        .map_err(|e| py_error(format!("Incorrect padding or invalid base64 data: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(MjValue::from(s)),
        Err(e) => Ok(MjValue::from_bytes(e.into_bytes())),
    }
}

pub(super) fn f_to_snake_case(a: Args) -> Result<MjValue, Error> {
    let s: Vec<char> = a.text(0, "camel_input")?.chars().collect();
    let Some(first) = s.first() else {
        return Err(py_error("string index out of range"));
    };
    let mut res: String = first.to_lowercase().collect();
    for i in 1..s.len() {
        let c = s[i];
        if c.is_uppercase()
            && (s[i - 1].is_lowercase() || (i != s.len() - 1 && s[i + 1].is_lowercase()))
        {
            res.push('_');
        }
        res.extend(c.to_lowercase());
    }
    Ok(MjValue::from(res))
}

pub(super) fn py_capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

pub(super) fn f_to_camelcase(a: Args) -> Result<MjValue, Error> {
    let s = a.text(0, "snake_input")?;
    let upper = a.flag(1, "uppercamel", false);
    let mut words: Vec<String> = s.split('_').map(str::to_string).collect();
    if upper {
        words[0] = py_capitalize(&words[0]);
    }
    let mut out = words[0].clone();
    for w in &words[1..] {
        out.push_str(&py_capitalize(w));
    }
    Ok(MjValue::from(out))
}

pub(super) fn f_is_hex(a: Args) -> Result<MjValue, Error> {
    let ok = match a.req(0, "value")? {
        Value::Str(s) => {
            let t = s.trim().replace('_', "");
            let t = t.strip_prefix(['+', '-']).unwrap_or(&t);
            let t = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .unwrap_or(t);
            !t.is_empty() && t.chars().all(|c| c.is_ascii_hexdigit())
        }
        _ => false,
    };
    Ok(MjValue::from(ok))
}

pub(super) fn f_contains_whitespace(a: Args) -> Result<MjValue, Error> {
    Ok(MjValue::from(
        a.text(0, "text")?.chars().any(char::is_whitespace),
    ))
}

pub(super) fn f_human_to_bytes(a: Args) -> Result<MjValue, Error> {
    let size = a.text(0, "size")?;
    let default_unit = a
        .value(1, "default_unit")?
        .map_or("B".to_string(), |v| v.py_str());
    let metric = a.flag(2, "handle_metric", false);
    let s = size.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim_start());
    let unit = if unit.is_empty() {
        default_unit.to_lowercase()
    } else {
        unit.to_lowercase()
    };
    let value = match num.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => match num.parse::<f64>() {
            Ok(f) => Value::Float(f),
            Err(_) => return Ok(MjValue::from(0)),
        },
    };
    const UNITS: &str = "bkmgtpezy";
    let first = unit.chars().next().unwrap_or('x');
    let p = match UNITS.find(first) {
        Some(p) => p as u32,
        None => return Ok(MjValue::from(0)),
    };
    let dec = if unit.len() == 2 && first != 'b' && unit.ends_with('b') {
        metric
    } else if unit == "b"
        || (first != 'b' && (unit.len() == 1 || (unit.len() == 3 && unit.ends_with("ib"))))
    {
        false
    } else {
        return Ok(MjValue::from(0));
    };
    let mult: f64 = if dec {
        10f64.powi((p * 3) as i32)
    } else {
        2f64.powi((p * 10) as i32)
    };
    let out = match value {
        Value::Int(i) => (i as f64 * mult) as i64,
        Value::Float(f) => (f * mult) as i64,
        _ => 0,
    };
    Ok(MjValue::from(out))
}

pub(super) fn f_path_join(a: Args) -> Result<MjValue, Error> {
    let mut parts = Vec::new();
    for p in &a.pos {
        parts.push(from_mj(p)?.py_str());
    }
    for (k, _) in &a.kw {
        if k != "use_posixpath" && !k.starts_with("__") {
            return Err(py_error(format!(
                "The following keyword arguments are not valid: {k}"
            )));
        }
    }
    let parts: Vec<String> = parts
        .iter()
        .map(|p| super::super::salt::posix_normpath(p))
        .collect();
    let Some((root, rest)) = parts.split_first() else {
        return Ok(MjValue::from(""));
    };
    if rest.is_empty() {
        return Ok(MjValue::from(root.clone()));
    }
    let mut all = vec![root.clone()];
    all.extend(rest.iter().map(|p| p.trim_start_matches('/').to_string()));
    Ok(MjValue::from(super::super::salt::posix_normpath(
        &super::super::salt::posix_join(&all),
    )))
}

pub(super) fn t_match(a: Args) -> Result<bool, Error> {
    if a.pos.first().is_some_and(MjValue::is_undefined) {
        // Salt's `re.match` on a StrictUndefined.
        return Err(py_error(
            "expected string or bytes-like object, got 'StrictUndefined'",
        ));
    }
    let txt = a.text(0, "txt")?;
    let rgx = a.text(1, "rgx")?;
    let re = compile(
        &rgx,
        a.flag(2, "ignorecase", false),
        a.flag(3, "multiline", false),
        true,
    )?;
    re.is_match(&txt).map_err(|e| py_error(e.to_string()))
}
