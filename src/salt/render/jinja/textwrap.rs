//! Jinja2's `wordwrap` filter and the part of Python 3.11's
//! `textwrap.TextWrapper` it uses: each line of the text wrapped on its own,
//! no tab expansion, whitespace kept inside lines, no indents or line limit.
//! Hands the wrapped text to the template.

use super::filters::with_context_and_value;
use super::py::print::{is_py_space, py_str, py_type_name};
use super::salt::{bind, py_error, py_no_attribute};
use minijinja::value::{Kwargs, Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error};
use std::sync::LazyLock;

/// Register `wordwrap`.
pub(super) fn register(env: &mut Environment<'static>) {
    env.add_filter("wordwrap", wordwrap);
}

/// `do_wordwrap(environment, s, width=79, break_long_words=True,
/// wrapstring=None, break_on_hyphens=True)`: the lines of
/// `s.splitlines()` wrapped one by one, every line joined with
/// `wrapstring` (the environment's newline sequence, `\n`, by default).
fn wordwrap(v: MjValue, args: Rest<MjValue>, kwargs: Kwargs) -> Result<MjValue, Error> {
    let all = with_context_and_value(v, args, kwargs)?;
    let a = bind(
        "do_wordwrap",
        "environment, s, width=, break_long_words=, wrapstring=, break_on_hyphens=",
        &all,
    )?;
    let s = a.raw("s").cloned().unwrap_or_default();
    let Some(text) = s.as_str().filter(|_| s.kind() == ValueKind::String) else {
        return Err(py_no_attribute(&s, "splitlines"));
    };
    let width = a.raw("width").cloned();
    let wrapper = Wrapper {
        break_long_words: a.raw("break_long_words").is_none_or(MjValue::is_true),
        // `_split` asks `break_on_hyphens is True`, `_handle_long_word`
        // only its truth.
        split_on_hyphens: a
            .raw("break_on_hyphens")
            .is_none_or(|b| b.kind() == ValueKind::Bool && b.is_true()),
        break_on_hyphens: a.raw("break_on_hyphens").is_none_or(MjValue::is_true),
    };
    let wrapstring = match a.raw("wrapstring") {
        None => "\n".to_string(),
        Some(w) if w.is_none() => "\n".to_string(),
        Some(w) if w.kind() == ValueKind::String => py_str(w),
        Some(w) => return Err(py_no_attribute(w, "join")),
    };
    let mut paragraphs = Vec::new();
    for line in super::filters::py_splitlines(text) {
        // A width Python cannot compare fails at the first line only.
        let width = width.as_ref().map_or(Ok(Width::Int(79)), Width::of)?;
        paragraphs.push(wrapper.wrap(line, width)?.join(&wrapstring));
    }
    Ok(MjValue::from(paragraphs.join(&wrapstring)))
}

/// The `width` of a wrapper: Python compares a float as well as an int
/// (`True` is 1), but cannot cut a word at a float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Width {
    /// An int (or bool).
    Int(i64),
    /// A float.
    Float(f64),
}

impl Width {
    fn of(v: &MjValue) -> Result<Width, Error> {
        match v.kind() {
            ValueKind::Bool => Ok(Width::Int(i64::from(v.is_true()))),
            ValueKind::Number if v.is_integer() => i64::try_from(v.clone()).map(Width::Int),
            ValueKind::Number => f64::try_from(v.clone()).map(Width::Float),
            _ => Err(py_error(format!(
                "'<=' not supported between instances of '{}' and 'int'",
                py_type_name(v)
            ))),
        }
    }

    /// Whether `len` fits: `len <= width`.
    fn holds(self, len: usize) -> bool {
        match self {
            Width::Int(w) => i64::try_from(len).is_ok_and(|l| l <= w),
            Width::Float(w) => (len as f64) <= w,
        }
    }
}

/// A `TextWrapper(width, expand_tabs=False, replace_whitespace=False,
/// break_long_words, break_on_hyphens)`.
pub(super) struct Wrapper {
    /// Cut words longer than `width`.
    pub(super) break_long_words: bool,
    /// Split words after their hyphens (`wordsep_re`) rather than at
    /// whitespace only (`wordsep_simple_re`).
    pub(super) split_on_hyphens: bool,
    /// Cut a long word after its last hyphen that fits.
    pub(super) break_on_hyphens: bool,
}

impl Wrapper {
    /// `TextWrapper.wrap(text)`: the lines, none wider than `width` unless a
    /// long word may not be broken.
    pub(super) fn wrap(&self, text: &str, width: Width) -> Result<Vec<String>, Error> {
        let chars: Vec<char> = text.chars().collect();
        let chunks = if self.split_on_hyphens {
            split_words(&chars)
        } else {
            split_simple(&chars)
        };
        self.wrap_chunks(chunks, width)
    }

    /// `_wrap_chunks`: fill lines from the front of the chunk list,
    /// dropping whitespace at line ends (and at line starts but the first).
    fn wrap_chunks(&self, mut chunks: Vec<Vec<char>>, width: Width) -> Result<Vec<String>, Error> {
        let shown = match width {
            Width::Int(w) if w <= 0 => Some(w.to_string()),
            Width::Float(w) if w <= 0.0 => Some(crate::value::py_float_repr(w)),
            _ => None,
        };
        if let Some(shown) = shown {
            return Err(py_error(format!("invalid width {shown} (must be > 0)")));
        }
        let mut lines: Vec<String> = Vec::new();
        chunks.reverse();
        while !chunks.is_empty() {
            let mut line: Vec<Vec<char>> = Vec::new();
            let mut len = 0;
            if !lines.is_empty() && chunks.last().is_some_and(|c| is_blank(c)) {
                chunks.pop();
            }
            while let Some(chunk) = chunks.last() {
                if !width.holds(len + chunk.len()) {
                    break;
                }
                len += chunk.len();
                line.extend(chunks.pop());
            }
            if chunks.last().is_some_and(|c| !width.holds(c.len())) {
                let Width::Int(w) = width else {
                    if self.break_long_words {
                        return Err(py_error(
                            "slice indices must be integers or None or have an __index__ method",
                        ));
                    }
                    if line.is_empty() {
                        line.extend(chunks.pop());
                    }
                    continue_line(&mut lines, line);
                    continue;
                };
                self.handle_long_word(&mut chunks, &mut line, len, w as usize);
            }
            continue_line(&mut lines, line);
        }
        Ok(lines)
    }

    /// `_handle_long_word`: a chunk too wide for any line. Cut it to the
    /// space left (after its last fitting hyphen, when one follows a
    /// non-hyphen), or, unbroken, give it a line of its own.
    fn handle_long_word(
        &self,
        chunks: &mut Vec<Vec<char>>,
        line: &mut Vec<Vec<char>>,
        len: usize,
        width: usize,
    ) {
        // `width` is at least 1 and `len` at most `width`.
        let space_left = width.saturating_sub(len);
        if self.break_long_words {
            let Some(chunk) = chunks.last_mut() else {
                return;
            };
            let mut end = space_left.min(chunk.len());
            if self.break_on_hyphens && chunk.len() > space_left {
                if let Some(h) = chunk[..end].iter().rposition(|&c| c == '-') {
                    if h > 0 && chunk[..h].iter().any(|&c| c != '-') {
                        end = h + 1;
                    }
                }
            }
            let rest = chunk.split_off(end);
            line.push(std::mem::replace(chunk, rest));
        } else if line.is_empty() {
            line.extend(chunks.pop());
        }
    }
}

/// The end of a line in `_wrap_chunks`: its trailing whitespace chunk
/// dropped, the line kept when anything is left.
fn continue_line(lines: &mut Vec<String>, mut line: Vec<Vec<char>>) {
    if line.last().is_some_and(|c| is_blank(c)) {
        line.pop();
    }
    if !line.is_empty() {
        lines.push(line.concat().into_iter().collect());
    }
}

/// `chunk.strip() == ''`: empty, or only Python whitespace.
fn is_blank(chunk: &[char]) -> bool {
    chunk.iter().all(|&c| is_py_space(c))
}

/// textwrap's own whitespace: `\t\n\v\f\r` and space.
fn is_wrap_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// `[\p{L}\p{N}_]`: what Python's `\w` matches in a `str` pattern
/// (`str.isalnum()` or `_`); Rust's `char::is_alphanumeric` also takes
/// the combining vowel signs of Indic scripts.
static PY_WORD: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"^[\p{L}\p{N}_]$").expect("valid class"));

/// Python's `\w`.
pub(super) fn is_py_word(c: char) -> bool {
    c == '_' || c.is_ascii_alphanumeric() || {
        let mut buf = [0; 4];
        !c.is_ascii() && PY_WORD.is_match(c.encode_utf8(&mut buf))
    }
}

/// Python's `\d` (a decimal digit, `\p{Nd}`).
fn is_py_digit(c: char) -> bool {
    static DIGIT: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^\p{Nd}$").expect("valid class"));
    let mut buf = [0; 4];
    c.is_ascii_digit() || (!c.is_ascii() && DIGIT.is_match(c.encode_utf8(&mut buf)))
}

/// textwrap's `letter`, `[^\d\W]`.
fn is_letter(c: char) -> bool {
    is_py_word(c) && !is_py_digit(c)
}

/// textwrap's `word_punct`, `[\w!"'&.,?]`.
fn is_word_punct(c: char) -> bool {
    is_py_word(c) || matches!(c, '!' | '"' | '\'' | '&' | '.' | ',' | '?')
}

/// `wordsep_simple_re.split`: runs of whitespace and runs of the rest.
fn split_simple(t: &[char]) -> Vec<Vec<char>> {
    let mut out: Vec<Vec<char>> = Vec::new();
    let mut start = 0;
    for i in 1..=t.len() {
        if i == t.len() || is_wrap_space(t[i]) != is_wrap_space(t[i - 1]) {
            out.push(t[start..i].to_vec());
            start = i;
        }
    }
    out
}

/// `wordsep_re.split` (empty pieces dropped): whitespace runs, em-dashes
/// (`--` or more between a word character or punctuation and a word
/// character), and words, cut after a hyphen that has two letters (or a
/// letter, hyphen, letter) before it and a letter, an optional hyphen and
/// a letter after it. The pattern matches at every position, so the
/// pieces are exactly its matches.
fn split_words(t: &[char]) -> Vec<Vec<char>> {
    let mut out = Vec::new();
    let mut p = 0;
    while p < t.len() {
        let e = word_end(t, p);
        out.push(t[p..e].to_vec());
        p = e;
    }
    out
}

/// How many `-` start at `i` when there are two or more and a word
/// character follows them (`-{2,}(?=\w)`).
fn em_dash_at(t: &[char], i: usize) -> Option<usize> {
    let n = t[i..].iter().take_while(|&&c| c == '-').count();
    (n >= 2 && t.get(i + n).is_some_and(|&c| is_py_word(c))).then_some(n)
}

/// The end of the `wordsep_re` match starting at `p`.
fn word_end(t: &[char], p: usize) -> usize {
    let letter = |i: usize| t.get(i).is_some_and(|&c| is_letter(c));
    if is_wrap_space(t[p]) {
        return p + t[p..].iter().take_while(|&&c| is_wrap_space(c)).count();
    }
    if p > 0 && is_word_punct(t[p - 1]) {
        if let Some(n) = em_dash_at(t, p) {
            return p + n;
        }
    }
    // `\S+?` then the first of three endings that holds, trying the
    // shortest word first.
    let mut e = p + 1;
    loop {
        if t.get(e) == Some(&'-') {
            let before = (e >= 2 && letter(e - 2) && letter(e - 1))
                || (e >= 3 && letter(e - 3) && t[e - 2] == '-' && letter(e - 1));
            let h = e + 1;
            let after =
                letter(h) && (letter(h + 1) || (t.get(h + 1) == Some(&'-') && letter(h + 2)));
            if before && after {
                return h;
            }
        }
        if e == t.len() || is_wrap_space(t[e]) {
            return e;
        }
        if is_word_punct(t[e - 1]) && em_dash_at(t, e).is_some() {
            return e;
        }
        e += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(s: &str, hyphens: bool) -> Vec<String> {
        let t: Vec<char> = s.chars().collect();
        let c = if hyphens {
            split_words(&t)
        } else {
            split_simple(&t)
        };
        c.into_iter().map(|c| c.into_iter().collect()).collect()
    }

    fn wrap(s: &str, width: i64, long: bool, hyphens: bool) -> Vec<String> {
        Wrapper {
            break_long_words: long,
            split_on_hyphens: hyphens,
            break_on_hyphens: hyphens,
        }
        .wrap(s, Width::Int(width))
        .unwrap()
    }

    #[test]
    fn splits_as_textwrap_docstring() {
        // The example of `TextWrapper._split`'s docstring.
        let text = "Look, goof-ball -- use the -b option!";
        assert_eq!(
            chunks(text, true),
            [
                "Look,", " ", "goof-", "ball", " ", "--", " ", "use", " ", "the", " ", "-b", " ",
                "option!"
            ]
        );
        assert_eq!(
            chunks(text, false),
            [
                "Look,",
                " ",
                "goof-ball",
                " ",
                "--",
                " ",
                "use",
                " ",
                "the",
                " ",
                "-b",
                " ",
                "option!"
            ]
        );
    }

    #[test]
    fn hyphens_and_em_dashes() {
        assert_eq!(chunks("ab-cd-ef", true), ["ab-", "cd-", "ef"]);
        // One letter before the hyphen is not enough, but a-b- is.
        assert_eq!(chunks("a-b-cd", true), ["a-b-", "cd"]);
        assert_eq!(chunks("a-b-c", true), ["a-b-c"]);
        // A digit is no letter.
        assert_eq!(chunks("a1-bc", true), ["a1-bc"]);
        assert_eq!(chunks("word--word", true), ["word", "--", "word"]);
        assert_eq!(chunks("--foo", true), ["--foo"]);
        assert_eq!(chunks("a---", true), ["a---"]);
    }

    #[test]
    fn wraps_as_python() {
        assert_eq!(
            wrap("hello world foo", 5, true, true),
            ["hello", "world", "foo"]
        );
        assert_eq!(wrap("abcdefghij", 4, true, true), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("abcdefghij", 4, false, true), ["abcdefghij"]);
        assert_eq!(
            wrap("a abcdefghij b", 4, false, true),
            ["a", "abcdefghij", "b"]
        );
        // Leading whitespace stays on the first line only.
        assert_eq!(wrap("  ab  cd", 4, true, true), ["  ab", "cd"]);
        assert!(wrap("   ", 4, true, true).is_empty());
        // A split hyphenated word fills the line.
        assert_eq!(wrap("xxx-yyyyyyy", 6, true, true), ["xxx-yy", "yyyyy"]);
        // 3.11's long word cut after the last hyphen that fits (the split
        // leaves `ab1-` whole: a digit is no letter).
        assert_eq!(
            wrap("ab1-cdefghij", 6, true, true),
            ["ab1-", "cdefgh", "ij"]
        );
        assert_eq!(wrap("ab1-cdefghij", 6, true, false), ["ab1-cd", "efghij"]);
        // `break_on_hyphens=1`: whitespace split (`is True` fails), but the
        // hyphen-aware cut (truthy).
        let one = Wrapper {
            break_long_words: true,
            split_on_hyphens: false,
            break_on_hyphens: true,
        };
        assert_eq!(
            one.wrap("xxx-yyyyyyy", Width::Int(6)).unwrap(),
            ["xxx-", "yyyyyy", "y"]
        );
        // but not after hyphens only.
        assert_eq!(wrap("--yyyyyyyy", 6, true, true), ["--yyyy", "yyyy"]);
    }

    #[test]
    fn python_word_class() {
        assert!(is_py_word('é') && is_py_word('²') && is_py_word('_'));
        // A combining vowel sign (Mc) is alphabetic to Rust, not to Python.
        assert!(!is_py_word('\u{903}') && '\u{903}'.is_alphabetic());
        assert!(!is_letter('٣') && is_py_word('٣'));
    }
}
