//! Jinja2 3.1.6's HTML filters on MarkupSafe 3.0's `escape`: `forceescape`,
//! `xmlattr` and `urlize` (`jinja2.utils.urlize` with the environment
//! policies Salt leaves at their defaults: `rel="noopener"`, no target, no
//! extra schemes). Hands text to the template: `forceescape` a safe string
//! (`Markup`), the other two plain strings, since Salt renders without
//! auto-escaping.

use super::filters::{with_context_and_value, with_value};
use super::py::print::{is_py_space, py_str, py_type_name};
use super::salt::{bind, py_error, py_no_attribute};
use super::textwrap::is_py_word;
use minijinja::value::{Kwargs, Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error, State};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// Register the filters of this module.
pub(super) fn register(env: &mut Environment<'static>) {
    env.add_filter("escape", escape_filter);
    env.add_filter("e", escape_filter);
    env.add_filter("forceescape", forceescape);
    env.add_filter("xmlattr", xmlattr);
    env.add_filter("urlize", urlize_filter);
}

/// MarkupSafe's escaping of a text: `&`, `<`, `>`, `"` and `'` as
/// `&amp;`, `&lt;`, `&gt;`, `&#34;` and `&#39;`.
pub(super) fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// MarkupSafe's `escape(value)`: a safe string (one with `__html__`) as
/// it is, anything else as its escaped `str()`.
fn escape(v: &MjValue) -> String {
    if v.is_safe() {
        return py_str(v);
    }
    escape_text(&py_str(v))
}

/// MarkupSafe's `escape(s)`, which Jinja2 registers as `escape` and `e`:
/// a safe string as it is, anything else its escaped `str()` (`&#34;`,
/// `&#39;` where minijinja's writes `&quot;`, `&#x27;`), as a safe string.
/// An undefined value fails naming the variable, as `str()` of Salt's
/// `StrictUndefined` does.
fn escape_filter(
    state: &State,
    v: MjValue,
    args: Rest<MjValue>,
    kwargs: Kwargs,
) -> Result<MjValue, Error> {
    let a = bind("escape", "s", &with_value(v, args, kwargs)?)?;
    let value = a.raw("s").cloned().unwrap_or_default();
    if value.is_undefined() {
        return minijinja::filters::string(state, &value);
    }
    Ok(MjValue::from_safe_string(escape(&value)))
}

/// `do_forceescape(value)`: the escaped `str(value)`, even of a safe
/// string.
fn forceescape(v: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<MjValue, Error> {
    let a = bind("do_forceescape", "value", &with_value(v, args, kwargs)?)?;
    let value = a.raw("value").cloned().unwrap_or_default();
    Ok(MjValue::from_safe_string(escape_text(&py_str(&value))))
}

/// `re.search` of a non-text value: Python's TypeError.
fn not_a_string(v: &MjValue) -> Error {
    py_error(format!(
        "expected string or bytes-like object, got '{}'",
        py_type_name(v)
    ))
}

/// `do_xmlattr(eval_ctx, d, autospace=True)`: `key="value"` for each item
/// whose value is neither None nor undefined, key and value escaped,
/// joined with spaces, with a leading space when `autospace` and anything
/// was written. A key holding whitespace, `/`, `>` or `=` is refused.
fn xmlattr(v: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<MjValue, Error> {
    let all = with_context_and_value(v, args, kwargs)?;
    let a = bind("do_xmlattr", "eval_ctx, d, autospace=", &all)?;
    let d = a.raw("d").cloned().unwrap_or_default();
    if d.kind() != ValueKind::Map {
        return Err(py_no_attribute(&d, "items"));
    }
    let mut items = Vec::new();
    for key in d.try_iter()? {
        let value = d.get_item(&key)?;
        if value.is_none() || value.is_undefined() {
            continue;
        }
        let Some(name) = key.as_str().filter(|_| key.kind() == ValueKind::String) else {
            return Err(not_a_string(&key));
        };
        // `[\s/>=]` with re.ASCII.
        if name.chars().any(|c| {
            matches!(
                c,
                ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '/' | '>' | '='
            )
        }) {
            return Err(py_error(format!(
                "Invalid character in attribute name: {}",
                crate::value::py_str_repr(name)
            )));
        }
        items.push(format!("{}=\"{}\"", escape(&key), escape(&value)));
    }
    let mut rv = items.join(" ");
    if a.flag("autospace", true) && !rv.is_empty() {
        rv.insert(0, ' ');
    }
    Ok(MjValue::from(rv))
}

/// `do_urlize(eval_ctx, value, trim_url_limit=None, nofollow=False,
/// target=None, rel=None, extra_schemes=None)`.
fn urlize_filter(v: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<MjValue, Error> {
    let all = with_context_and_value(v, args, kwargs)?;
    let a = bind(
        "do_urlize",
        "eval_ctx, value, trim_url_limit=, nofollow=, target=, rel=, extra_schemes=",
        &all,
    )?;
    let given = |name: &str| a.raw(name).filter(|v| !v.is_none()).cloned();
    // `set((rel or "").split())`, nofollow, then the `urlize.rel` policy.
    let mut rel: BTreeSet<String> = BTreeSet::new();
    if let Some(r) = a.raw("rel").filter(|r| r.is_true()) {
        let Some(text) = r.as_str().filter(|_| r.kind() == ValueKind::String) else {
            return Err(py_no_attribute(r, "split"));
        };
        rel.extend(
            text.split(is_py_space)
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        );
    }
    if a.flag("nofollow", false) {
        rel.insert("nofollow".into());
    }
    rel.insert("noopener".into());
    let rel = rel.into_iter().collect::<Vec<_>>().join(" ");
    // The `urlize.target` policy is None: only an argument sets one.
    let target = given("target");
    let mut schemes = Vec::new();
    if let Some(list) = given("extra_schemes") {
        let items = list
            .try_iter()
            .map_err(|_| py_error(format!("'{}' object is not iterable", py_type_name(&list))))?;
        for scheme in items {
            let Some(text) = scheme
                .as_str()
                .filter(|_| scheme.kind() == ValueKind::String)
            else {
                return Err(not_a_string(&scheme));
            };
            if !is_uri_scheme(text) {
                return Err(super::template_error(
                    super::JinjaErrorKind::Other,
                    super::PREFIX_RUNTIME,
                    format!(
                        "{} is not a valid URI scheme prefix.",
                        crate::value::py_str_repr(text)
                    ),
                ));
            }
            schemes.push(text.to_string());
        }
    }
    let trim = match given("trim_url_limit") {
        None => None,
        Some(n) => Some(i64::try_from(n.clone())?),
    };
    let value = a.raw("value").cloned().unwrap_or_default();
    let options = Urlize {
        trim_url_limit: trim,
        rel: Some(rel).filter(|r| !r.is_empty()),
        target: target.filter(MjValue::is_true).map(|t| escape(&t)),
        extra_schemes: schemes,
    };
    Ok(MjValue::from(urlize(&escape(&value), &options)))
}

/// `_uri_scheme_re.fullmatch`: `[\w.+-]{2,}:` then at most two `/`.
fn is_uri_scheme(s: &str) -> bool {
    let trimmed = s.trim_end_matches('/');
    let Some(name) = trimmed.strip_suffix(':') else {
        return false;
    };
    s.len() - trimmed.len() <= 2
        && name.chars().count() >= 2
        && name
            .chars()
            .all(|c| is_py_word(c) || matches!(c, '.' | '+' | '-'))
}

/// The settings of one `urlize` call, `rel` and `target` already escaped
/// as they are written.
struct Urlize {
    trim_url_limit: Option<i64>,
    rel: Option<String>,
    target: Option<String>,
    extra_schemes: Vec<String>,
}

/// `_http_re`: `www.` or `http(s)://` and a host with a letter TLD (or an
/// IDNA one), a bare domain under a classic TLD, or `http(s)://` and an
/// IPv4 or bracketed IPv6 address; then a port and a path, query or
/// fragment. Python's `\w` is `[\p{L}\p{N}_]` here.
static HTTP_RE: LazyLock<Regex> = LazyLock::new(|| {
    let w = r"\p{L}\p{N}_";
    Regex::new(&format!(
        r"(?ix)^(
            (https?://|www\.)(([{w}%-]+\.)+)?([a-z]{{2,63}}|xn--[{w}%]{{2,59}})
          | ([{w}%-]{{2,63}}\.)+(com|net|int|edu|gov|org|info|mil)
          | (https?://)((([\d]{{1,3}})(\.[\d]{{1,3}}){{3}})|(\[([\da-f]{{0,4}}:){{2}}([\da-f]{{0,4}}:?){{1,6}}\]))
        )(?::[\d]{{1,5}})?(?:[/?\#]\S*)?$"
    ))
    .expect("valid pattern")
});

/// `_email_re`: `^\S+@\w[\w.-]*\.\w+$`.
static EMAIL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\S+@[\p{L}\p{N}_][\p{L}\p{N}_.-]*\.[\p{L}\p{N}_]+$").expect("valid pattern")
});

/// `jinja2.utils.urlize` of an already escaped text: each word (split at
/// whitespace) loses its leading `(`, `<`, `&lt;` and trailing `)`, `>`,
/// `.`, `,`, `&gt;` (the closers that balance openers inside stay), and
/// becomes a link when it is a web address or an email address.
fn urlize(text: &str, o: &Urlize) -> String {
    let rel_attr = o
        .rel
        .as_ref()
        .map_or(String::new(), |r| format!(" rel=\"{}\"", escape_text(r)));
    let target_attr = o
        .target
        .as_ref()
        .map_or(String::new(), |t| format!(" target=\"{t}\""));
    // `x[:limit] + "..."` past the limit; a negative limit counts from
    // the end, as Python slices.
    let trim = |x: &str| {
        let len = x.chars().count() as i64;
        match o.trim_url_limit {
            Some(n) if len > n => {
                let keep = if n < 0 { (len + n).max(0) } else { n };
                format!("{}...", x.chars().take(keep as usize).collect::<String>())
            }
            _ => x.to_string(),
        }
    };
    let mut out = String::with_capacity(text.len());
    for word in split_keeping_space(text) {
        let (head, rest) = split_head(word);
        let (middle, tail) = split_tail(rest);
        let (mut middle, mut tail) = (middle.to_string(), tail.to_string());
        balance(&mut middle, &mut tail);
        let linked = if HTTP_RE.is_match(&middle) {
            let href = if middle.starts_with("https://") || middle.starts_with("http://") {
                middle.clone()
            } else {
                format!("https://{middle}")
            };
            format!(
                "<a href=\"{href}\"{rel_attr}{target_attr}>{}</a>",
                trim(&middle)
            )
        } else if middle
            .strip_prefix("mailto:")
            .is_some_and(|m| EMAIL_RE.is_match(m))
        {
            format!("<a href=\"{middle}\">{}</a>", &middle[7..])
        } else if middle.contains('@')
            && !middle.starts_with("www.")
            && !middle.starts_with('@')
            && !middle.contains(':')
            && EMAIL_RE.is_match(&middle)
        {
            format!("<a href=\"mailto:{middle}\">{middle}</a>")
        } else {
            // Every scheme is tried in turn on what the one before left.
            for scheme in &o.extra_schemes {
                if middle != *scheme && middle.starts_with(scheme.as_str()) {
                    middle = format!("<a href=\"{middle}\"{rel_attr}{target_attr}>{middle}</a>");
                }
            }
            middle
        };
        out.push_str(head);
        out.push_str(&linked);
        out.push_str(&tail);
    }
    out
}

/// `re.split(r"(\s+)", text)`: words and the whitespace runs between them.
fn split_keeping_space(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let s = is_py_space(c);
        if space.is_some_and(|was| was != s) {
            out.push(&text[start..i]);
            start = i;
        }
        space = Some(s);
    }
    out.push(&text[start..]);
    out
}

/// `^([(<]|&lt;)+`: the openers a word starts with, and the rest.
fn split_head(word: &str) -> (&str, &str) {
    let mut i = 0;
    loop {
        let rest = &word[i..];
        if rest.starts_with(['(', '<']) {
            i += 1;
        } else if rest.starts_with("&lt;") {
            i += 4;
        } else {
            return word.split_at(i);
        }
    }
}

/// `([)>.,\n]|&gt;)+$`, searched: the longest run of closers and
/// punctuation the word ends with, and what comes before it.
fn split_tail(word: &str) -> (&str, &str) {
    let b = word.as_bytes();
    // ends[i]: the text from byte i on is made of closers only.
    let mut ends = vec![false; b.len() + 1];
    ends[b.len()] = true;
    for i in (0..b.len()).rev() {
        ends[i] = (matches!(b[i], b')' | b'>' | b'.' | b',' | b'\n') && ends[i + 1])
            || (b[i..].starts_with(b"&gt;") && ends[i + 4]);
    }
    match (0..b.len()).find(|&i| ends[i]) {
        Some(i) => word.split_at(i),
        None => (word, ""),
    }
}

/// Move closers back from the tail while the middle opens more than it
/// closes: `(`/`)`, `<`/`>` and `&lt;`/`&gt;`, each taking the tail up to
/// and including the closer.
fn balance(middle: &mut String, tail: &mut String) {
    for (open, close) in [("(", ")"), ("<", ">"), ("&lt;", "&gt;")] {
        let opened = middle.matches(open).count();
        if opened <= middle.matches(close).count() {
            continue;
        }
        for _ in 0..opened.min(tail.matches(close).count()) {
            let Some(at) = tail.find(close) else { break };
            let end = at + close.len();
            middle.push_str(&tail[..end]);
            tail.replace_range(..end, "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        urlize(
            &escape_text(text),
            &Urlize {
                trim_url_limit: None,
                rel: Some("noopener".into()),
                target: None,
                extra_schemes: Vec::new(),
            },
        )
    }

    #[test]
    fn escapes_as_markupsafe() {
        assert_eq!(
            escape_text(r#"<a href="x">&'"#),
            "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"
        );
        assert_eq!(escape(&MjValue::from_safe_string("<b>".into())), "<b>");
        assert_eq!(escape(&MjValue::from(true)), "True");
    }

    #[test]
    fn links_web_and_mail_addresses() {
        assert_eq!(
            plain("see http://example.com now"),
            r#"see <a href="http://example.com" rel="noopener">http://example.com</a> now"#
        );
        assert_eq!(
            plain("(www.example.org/a)."),
            r#"(<a href="https://www.example.org/a" rel="noopener">www.example.org/a</a>)."#
        );
        assert_eq!(
            plain("x@example.com"),
            r#"<a href="mailto:x@example.com">x@example.com</a>"#
        );
        assert_eq!(
            plain("example.io @a@b.com a:b@c.com"),
            "example.io @a@b.com a:b@c.com"
        );
        assert_eq!(
            plain("<http://1.2.3.4:80/x>"),
            r#"&lt;<a href="http://1.2.3.4:80/x" rel="noopener">http://1.2.3.4:80/x</a>&gt;"#
        );
    }

    #[test]
    fn tails_and_balanced_parentheses() {
        assert_eq!(split_tail("a.b&gt;.)"), ("a.b", "&gt;.)"));
        assert_eq!(split_tail("ab&gt"), ("ab&gt", ""));
        assert_eq!(split_head("((&lt;x"), ("((&lt;", "x"));
        let (mut m, mut t) = ("a(b".to_string(), ").)".to_string());
        balance(&mut m, &mut t);
        assert_eq!((m.as_str(), t.as_str()), ("a(b)", ".)"));
    }

    #[test]
    fn uri_schemes() {
        assert!(is_uri_scheme("ftp:") && is_uri_scheme("ftp://") && is_uri_scheme("a+b.c-d:/"));
        assert!(!is_uri_scheme("f:") && !is_uri_scheme("ftp:///") && !is_uri_scheme("ftp"));
    }
}
