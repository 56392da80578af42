//! JSON as Python's `json.dumps` writes it, one writer for every caller,
//! with the keywords that legitimately differ between them
//! ([`JsonOptions`]: `sort_keys`, `ensure_ascii`, `indent`, `separators`):
//! the pretty-printed result document (`indent=4`, insertion order,
//! streamed in parallel batches), Jinja's `tojson`/`json.dumps`, and the
//! one-line `sort_keys=True` form templates splice into strings. Also the
//! conversions to and from `serde_json`.

use super::{py_float_repr, sort_py_keys, Value};
use std::fmt::Write as _;

/// The keywords of Python's `json.dumps` that callers set.
/// `JsonOptions::default()` is one line, keys in insertion order, non-ASCII
/// kept (`ensure_ascii=False`); [`JsonOptions::python`] is Python's own
/// default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonOptions {
    /// `sort_keys=True`: keys in Python's `sorted()` order (kept in
    /// insertion order when Python could not compare them).
    pub sort_keys: bool,
    /// `ensure_ascii=True`: everything outside printable ASCII as `\uXXXX`.
    pub ensure_ascii: bool,
    /// `None`: one line; `Some(s)`: a newline and `s` per level.
    pub indent: Option<String>,
    /// `(item, key)` separators; `None`: `(", ", ": ")`, or `(",", ": ")`
    /// with an indent.
    pub separators: Option<(String, String)>,
}

impl JsonOptions {
    /// Python's defaults: `json.dumps(v)` (one line, ASCII only).
    pub fn python() -> JsonOptions {
        JsonOptions {
            ensure_ascii: true,
            ..JsonOptions::default()
        }
    }

    /// `json.dumps(v, indent=n)` (ASCII only, insertion order): the
    /// layout of a pretty-printed result document.
    pub fn indented(n: usize) -> JsonOptions {
        JsonOptions {
            indent: Some(" ".repeat(n)),
            ..JsonOptions::python()
        }
    }

    /// The same with `sort_keys=True`.
    pub fn sorted(self) -> JsonOptions {
        JsonOptions {
            sort_keys: true,
            ..self
        }
    }
}

/// Python's `json.dumps(v, **options)`.
pub fn dumps(v: &Value, options: &JsonOptions) -> String {
    let mut out = String::new();
    Writer::new(options).value(&mut out, v, 0);
    out
}

/// One `json.dumps` call's settings, resolved once.
struct Writer<'a> {
    o: &'a JsonOptions,
    item_sep: &'a str,
    key_sep: &'a str,
    /// The indent's width when it is all spaces (one copy per line).
    spaces: Option<usize>,
    /// Where the text goes once it passes [`STREAM_CHUNK`] bytes (the
    /// sink empties it); none: it is all kept.
    sink: Option<&'a Sink<'a>>,
    /// Render the items of large lists and maps side by side (rayon).
    parallel: bool,
    /// Texts of side-by-side items already passed on, for the next ones.
    spare: Option<&'a Spare>,
}

/// Texts rendered side by side and already passed on, kept for the next
/// tasks to fill: a text is as large as a few items (a nested stack's is
/// tens of KiB), and a new one per task was fresh memory each time (a
/// page fault per 4 KiB, several hundred on a tree of stacks), where these
/// are warm.
type Spare = std::sync::Mutex<Vec<String>>;

/// At most this many texts are kept in a [`Spare`].
const SPARE_TEXTS: usize = 64;

/// A text from `spare` (emptied), or a new one.
fn take_text(spare: Option<&Spare>) -> String {
    spare.and_then(|s| s.lock().ok()?.pop()).unwrap_or_default()
}

/// Keep `text`, emptied, in `spare` for the next task.
fn give_back(spare: Option<&Spare>, mut text: String) {
    if let Some(mut kept) = spare.and_then(|s| s.lock().ok()) {
        if kept.len() < SPARE_TEXTS {
            text.clear();
            kept.push(text);
        }
    }
}

/// Lists and maps of this many items (some of them lists or maps) are
/// rendered this many items at a time side by side by a parallel
/// [`Writer`].
const PAR_ITEMS: usize = 32;

/// Items of such a list or map per parallel task.
const PAR_TASK_ITEMS: usize = 8;

/// What a streamed [`Writer`] hands its text to.
type Sink<'a> = std::cell::RefCell<&'a mut dyn FnMut(&mut String)>;

impl<'a> Writer<'a> {
    fn new(o: &'a JsonOptions) -> Writer<'a> {
        let (item_sep, key_sep) = match (&o.separators, &o.indent) {
            (Some((a, b)), _) => (a.as_str(), b.as_str()),
            (None, Some(_)) => (",", ": "),
            (None, None) => (", ", ": "),
        };
        let spaces = o
            .indent
            .as_deref()
            .filter(|s| s.bytes().all(|b| b == b' '))
            .map(str::len);
        Writer {
            o,
            item_sep,
            key_sep,
            spaces,
            sink: None,
            parallel: false,
            spare: None,
        }
    }

    /// With an indent: a line break and the indent of `level`.
    #[inline]
    fn newline(&self, out: &mut String, level: usize) {
        match (self.spaces, &self.o.indent) {
            (Some(width), _) => newline_indent(out, width * level),
            (None, Some(ind)) => {
                out.push('\n');
                for _ in 0..level {
                    out.push_str(ind);
                }
            }
            (None, None) => {}
        }
    }

    fn value(&self, out: &mut String, v: &Value, level: usize) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => push_int(out, *i),
            Value::Float(f) => push_float(out, *f),
            Value::Str(s) => write_json_str(out, s, self.o.ensure_ascii),
            Value::List(l) => {
                if l.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                if self.side_by_side(l.len(), l.iter()) {
                    self.items_par(out, l.len(), |i| (None, &l[i]), level + 1);
                } else {
                    for (i, x) in l.iter().enumerate() {
                        self.item(out, i, None, x, level + 1);
                    }
                }
                self.newline(out, level);
                out.push(']');
            }
            Value::Map(m) => {
                if m.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push('{');
                if self.o.sort_keys {
                    let mut entries: Vec<(&Value, &Value)> = m.iter().collect();
                    sort_py_keys(&mut entries);
                    for (i, (k, x)) in entries.into_iter().enumerate() {
                        self.item(out, i, Some(k), x, level + 1);
                    }
                } else if self.side_by_side(m.len(), m.values()) {
                    let entry = |i| {
                        let (k, x) = m.get_index(i).unwrap_or((&Value::Null, &Value::Null));
                        (Some(k), x)
                    };
                    self.items_par(out, m.len(), entry, level + 1);
                } else {
                    for (i, (k, x)) in m.iter().enumerate() {
                        self.item(out, i, Some(k), x, level + 1);
                    }
                }
                self.newline(out, level);
                out.push('}');
            }
        }
    }

    /// Whether a list or map of `len` items (`values`) is rendered side
    /// by side: a [`Writer::parallel`] one, large, holding lists or maps.
    fn side_by_side<'v>(&self, len: usize, mut values: impl Iterator<Item = &'v Value>) -> bool {
        self.parallel
            && len >= PAR_ITEMS
            && values.any(|v| matches!(v, Value::List(_) | Value::Map(_)))
    }

    /// Items `0..len` at `level` rendered side by side, a few at a time,
    /// and appended in order: the bytes of the serial loop.
    fn items_par<'v>(
        &self,
        out: &mut String,
        len: usize,
        item: impl Fn(usize) -> (Option<&'v Value>, &'v Value) + Sync,
        level: usize,
    ) {
        // Bytes per item so far: each task's text is sized from it.
        let mut per_item = 0;
        for start in (0..len).step_by(PAR_ITEMS) {
            let end = (start + PAR_ITEMS).min(len);
            let texts = render_par(
                self.o,
                (true, self.spare),
                start..end,
                PAR_TASK_ITEMS,
                per_item,
                level,
                &item,
            );
            per_item = texts.iter().map(String::len).sum::<usize>() / (end - start) + 16;
            for mut t in texts {
                match self.sink {
                    // A streamed writer hands each text on as it is, after
                    // what it holds: no copy into `out`.
                    Some(sink) => {
                        let mut sink = sink.borrow_mut();
                        if !out.is_empty() {
                            sink(out);
                        }
                        sink(&mut t);
                    }
                    None => out.push_str(&t),
                }
                give_back(self.spare, t);
            }
        }
    }

    /// Item `i` of a list (`key` None) or map at `level`, after the item
    /// separator unless it is the first.
    fn item(&self, out: &mut String, i: usize, key: Option<&Value>, v: &Value, level: usize) {
        if i > 0 {
            push_short(out, self.item_sep);
        }
        self.newline(out, level);
        if let Some(k) = key {
            match k {
                Value::Str(s) => write_json_str(out, s, self.o.ensure_ascii),
                other => write_json_str(out, &json_key(other), self.o.ensure_ascii),
            }
            push_short(out, self.key_sep);
        }
        self.value(out, v, level);
        if let Some(sink) = self.sink.filter(|_| out.len() >= STREAM_CHUNK) {
            (sink.borrow_mut())(out);
        }
    }
}

impl Value {
    /// Convert from a JSON value (used for corpus files and `--pillar`).
    pub fn from_json(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::Str(s.as_str().into()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (Value::Str(k.as_str().into()), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// Convert to a JSON value. Non-string keys become their Python `str()`,
    /// as Python's `json.dumps` does.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Str(s) => serde_json::Value::String(s.to_string()),
            Value::List(l) => serde_json::Value::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => serde_json::Value::Object(
                m.iter().map(|(k, v)| (json_key(k), v.to_json())).collect(),
            ),
        }
    }

    /// Serialise as JSON the way Salt's `--out=json` does: 4-space indent,
    /// insertion order, Python float repr, non-ASCII escaped
    /// (`json.dumps(v, indent=4)`).
    pub fn to_json_pretty(&self) -> String {
        dumps(self, &JsonOptions::indented(4))
    }

    /// Like [`Value::to_json_pretty`] but written to `w` as it goes (a
    /// list's or map's top-level items rendered in parallel batches, written
    /// in order), so a large result is never held as one string.
    pub fn write_json_pretty<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        let items = match self {
            Value::List(l) => l.len(),
            Value::Map(m) => m.len(),
            _ => 0,
        };
        // Few top-level items (a document of sections, not a list of
        // chunks): side by side they would gain nothing, one of them may
        // hold most of the text; it is written as it is rendered.
        if items < 2 * PAR_BATCH {
            return write_json_streamed(self, w);
        }
        match self {
            Value::List(l) if !l.is_empty() => {
                w.write_all(b"[")?;
                write_items_par(w, l.len(), |i| (None, &l[i]))?;
                w.write_all(b"\n]")
            }
            Value::Map(m) if !m.is_empty() => {
                w.write_all(b"{")?;
                write_items_par(w, m.len(), |i| {
                    let (k, v) = m.get_index(i).unwrap_or((&Value::Null, &Value::Null));
                    (Some(k), v)
                })?;
                w.write_all(b"\n}")
            }
            other => w.write_all(other.to_json_pretty().as_bytes()),
        }
    }
}

/// The items of a top-level list or map, pretty-printed at indent 4 and
/// written in order. Items are rendered in parallel, a batch per task and a
/// wave of batches at a time: the bytes are those of the serial form while
/// memory stays bounded.
fn write_items_par<'a, W: std::io::Write>(
    w: &mut W,
    len: usize,
    item: impl Fn(usize) -> (Option<&'a Value>, &'a Value) + Sync,
) -> std::io::Result<()> {
    const WAVE: usize = 32 * PAR_BATCH;
    let pretty = JsonOptions::indented(4);
    let spare = Spare::default();
    for wave in (0..len).step_by(WAVE) {
        let end = (wave + WAVE).min(len);
        // A state chunk prints in about 350 bytes: start near it.
        let texts = render_par(
            &pretty,
            (false, Some(&spare)),
            wave..end,
            PAR_BATCH,
            384,
            1,
            &item,
        );
        for t in texts {
            w.write_all(t.as_bytes())?;
            give_back(Some(&spare), t);
        }
    }
    Ok(())
}

/// Items `range` of a list or map at `level`, rendered side by side,
/// `per_task` items a task (each task's text sized for `per_item` bytes an
/// item; `parallel`: its own large lists and maps side by side too; the
/// texts taken from `spare` when it has some), the texts in order: joined,
/// the bytes of the serial loop.
fn render_par<'v>(
    o: &JsonOptions,
    (parallel, spare): (bool, Option<&Spare>),
    range: std::ops::Range<usize>,
    per_task: usize,
    per_item: usize,
    level: usize,
    item: &(impl Fn(usize) -> (Option<&'v Value>, &'v Value) + Sync),
) -> Vec<String> {
    use rayon::prelude::*;
    let end = range.end;
    range
        .into_par_iter()
        .step_by(per_task)
        .map(|from| {
            let to = (from + per_task).min(end);
            let mut w = Writer::new(o);
            w.parallel = parallel;
            w.spare = spare;
            let mut text = take_text(spare);
            text.reserve(per_item * (to - from));
            for i in from..to {
                let (key, v) = item(i);
                w.item(&mut text, i, key, v, level);
            }
            text
        })
        .collect()
}

/// Top-level items rendered per parallel task by [`write_items_par`].
const PAR_BATCH: usize = 256;

/// The text a streamed write holds before it passes it on.
const STREAM_CHUNK: usize = 64 << 10;

/// `v` pretty-printed at indent 4 and written to `w` in chunks of about
/// [`STREAM_CHUNK`] bytes as it is rendered (large nested lists and maps
/// side by side): the bytes of [`Value::to_json_pretty`] without the whole
/// text held at once.
fn write_json_streamed<W: std::io::Write>(v: &Value, w: &mut W) -> std::io::Result<()> {
    let pretty = JsonOptions::indented(4);
    let failed = std::cell::RefCell::new(None);
    let mut pass_on = |text: &mut String| {
        let mut failed = failed.borrow_mut();
        if failed.is_none() {
            if let Err(e) = w.write_all(text.as_bytes()) {
                *failed = Some(e);
            }
        }
        text.clear();
    };
    let sink = std::cell::RefCell::new(&mut pass_on as &mut dyn FnMut(&mut String));
    let spare = Spare::default();
    let mut writer = Writer::new(&pretty);
    writer.sink = Some(&sink);
    writer.parallel = true;
    writer.spare = Some(&spare);
    let mut out = String::with_capacity(STREAM_CHUNK + (STREAM_CHUNK >> 2));
    writer.value(&mut out, v, 0);
    (sink.borrow_mut())(&mut out);
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `s` appended a byte at a time when it is a separator's one or two
/// bytes (a call to `memcpy` per separator cost more than the copy).
#[inline]
fn push_short(out: &mut String, s: &str) {
    match s.as_bytes() {
        [a] if a.is_ascii() => out.push(*a as char),
        [a, b] if a.is_ascii() && b.is_ascii() => {
            out.push(*a as char);
            out.push(*b as char);
        }
        _ => out.push_str(s),
    }
}

/// A line break and `n` spaces, in one copy for the usual depths.
#[inline]
fn newline_indent(out: &mut String, n: usize) {
    const LINE: &str = "\n                                                                ";
    if let Some(line) = LINE.get(..n + 1) {
        out.push_str(line);
        return;
    }
    out.push_str(LINE);
    let mut n = n + 1 - LINE.len();
    while n > 0 {
        let k = n.min(LINE.len() - 1);
        out.push_str(&LINE[1..k + 1]);
        n -= k;
    }
}

/// An integer in decimal (what `{i}` prints), without the formatter.
fn push_int(out: &mut String, i: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = i.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        out.push('-');
    }
    // The digits are ASCII: this never falls back.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// The bytes JSON writes as they are: printable ASCII other than `"` and `\`.
const PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut c = 0x20;
    while c < 0x7f {
        plain[c] = c != b'"' as usize && c != b'\\' as usize;
        c += 1;
    }
    plain
};

/// Whether JSON writes `b` as is: printable ASCII other than `"` and `\`.
/// A table lookup a byte: the strings are short (keys, names), where a
/// vectorised loop spent more on its setup than on the bytes.
#[inline]
fn is_plain_json(b: &[u8]) -> bool {
    b.iter().all(|&c| PLAIN[c as usize])
}

/// A map key as Python's `json` writes a dict key: strings as they are,
/// `null`/`true`/`false`, floats as JSON writes them, other keys as `str()`.
fn json_key(k: &Value) -> String {
    match k {
        Value::Str(s) => s.to_string(),
        Value::Null => "null".into(),
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Float(f) => {
            let mut out = String::new();
            push_float(&mut out, *f);
            out
        }
        other => other.py_str(),
    }
}

/// A float as Python's `json` writes it: its `repr`, or `NaN`/`Infinity`.
fn push_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN")
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        out.push_str(&py_float_repr(f))
    }
}

/// A JSON string as Python's `json.dumps` writes it: control characters
/// escaped, and with `ensure_ascii` everything outside printable ASCII as
/// `\uXXXX` (UTF-16 units).
#[inline]
pub fn write_json_str(out: &mut String, s: &str, ensure_ascii: bool) {
    // Fast path: printable ASCII without quotes or backslashes is copied as is.
    if is_plain_json(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    write_escaped(out, s, ensure_ascii);
}

/// [`write_json_str`] of a string with bytes to escape.
fn write_escaped(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ensure_ascii && (c as u32) > 0x7e) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn json_pieces_are_written_as_the_formatter_would() {
        for i in [0, 7, -1, 10, 1_000_000, i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_int(&mut out, i);
            assert_eq!(out, i.to_string());
        }
        for n in [0, 4, 64, 65, 200] {
            let mut out = String::new();
            newline_indent(&mut out, n);
            assert_eq!(out, format!("\n{}", " ".repeat(n)));
        }
        for b in 0..=255u8 {
            let plain = (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
            assert_eq!(is_plain_json(&[b'a', b, b'z']), plain, "byte {b}");
        }
    }

    /// Each caller's options, against what CPython's `json.dumps` printed
    /// for the same value.
    #[test]
    fn every_caller_gets_what_python_prints() {
        let inner = vmap! {10i64 => "a", 9i64 => "é"};
        let list = vec![
            Value::Float(1.0),
            Value::Null,
            Value::Bool(true),
            Value::Float(1e16),
        ];
        let v = vmap! {"z" => inner.clone(), "a" => list.clone()};
        // Heat's parameter display: json.dumps(v).
        assert_eq!(
            dumps(&v, &JsonOptions::python()),
            r#"{"z": {"10": "a", "9": "\u00e9"}, "a": [1.0, null, true, 1e+16]}"#
        );
        // Heat's str_replace/list_join: sort_keys=True, ints sorted as ints.
        assert_eq!(
            dumps(&v, &JsonOptions::python().sorted()),
            r#"{"a": [1.0, null, true, 1e+16], "z": {"9": "\u00e9", "10": "a"}}"#
        );
        // The result document: indent=4.
        assert_eq!(
            dumps(&v, &JsonOptions::indented(4)),
            "{\n    \"z\": {\n        \"10\": \"a\",\n        \"9\": \"\\u00e9\"\n    },\n    \"a\": [\n        1.0,\n        null,\n        true,\n        1e+16\n    ]\n}"
        );
        assert_eq!(v.to_json_pretty(), dumps(&v, &JsonOptions::indented(4)));
        // Jinja's keywords: any indent text, separators, non-ASCII kept.
        let jinja = JsonOptions {
            indent: Some("\t".into()),
            separators: Some((",".into(), ":".into())),
            ..JsonOptions::default()
        };
        assert_eq!(
            dumps(&v, &jinja),
            "{\n\t\"z\":{\n\t\t\"10\":\"a\",\n\t\t\"9\":\"é\"\n\t},\n\t\"a\":[\n\t\t1.0,\n\t\tnull,\n\t\ttrue,\n\t\t1e+16\n\t]\n}"
        );
        // Keys that are not strings, and NaN.
        let mut odd = crate::value::Map::new();
        odd.insert(Value::Float(1.5), Value::str("k"));
        odd.insert(Value::Null, Value::List(crate::value::list![]));
        odd.insert(Value::Float(f64::NAN), Value::Float(f64::NAN));
        assert_eq!(
            dumps(&Value::Map(odd), &JsonOptions::python()),
            r#"{"1.5": "k", "null": [], "NaN": NaN}"#
        );
    }
}
