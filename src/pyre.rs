//! Python `re` patterns on Rust's regex engines. Salt (grain and pillar
//! PCRE matches, the `regex_*` filters and tests) and Heat
//! (`allowed_pattern`) hand their patterns to Python's `re`; lowstate runs
//! them with `fancy-regex` (which hands patterns without lookaround or
//! backreferences to the `regex` crate) after rewriting the spellings the
//! two read differently:
//!
//! * `\Z` is Python's end of text: `\z`;
//! * `(?P=name)` is a backreference: `\k<name>`;
//! * a `{` that does not start a repetition (`{m}`, `{m,}`, `{,n}`,
//!   `{m,n}`) is a literal in Python, and `{,n}` is `{0,n}`;
//! * inside a class `[` and the set operators `&&`, `~~`, `--` are
//!   literals in Python (`[[:alpha:]]` is the set `[:alph` then `]`, not a
//!   POSIX class);
//! * a quantified lookaround, which Rust refuses, matches as Python's does:
//!   `(?=x)*`, `(?=x)?`, `(?=x){0,n}` as nothing, `(?=x)+` and `(?=x){m,n}`
//!   (m >= 1) as `(?=x)`.
//!
//! Not rewritten (documented in docs/COMPATIBILITY.md): `$` without
//! MULTILINE, which Python also lets match before a final newline.

/// `pattern` spelled for `fancy-regex` with Python's meaning.
pub fn translate(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    // Where each open group starts in `out`, and whether it is a
    // lookaround without a capturing group inside (one that may be dropped).
    let mut groups: Vec<(usize, Group)> = Vec::new();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            match chars.get(i + 1) {
                Some('Z') if !in_class => out.push_str(r"\z"),
                Some(&n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                ']' => {
                    in_class = false;
                    out.push(']');
                }
                '[' => out.push_str(r"\["),
                '&' | '~' | '-' if chars.get(i + 1) == Some(&c) => {
                    // The first of the pair stays (for `-`, a range may end
                    // at it: `[+--]` is `+` to `-`); the second is a literal.
                    out.push(c);
                    out.push('\\');
                    out.push(c);
                    i += 1;
                }
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                // A leading `^` and a `]` right after the opening are part
                // of the class.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str(r"\]");
                    i += 1;
                }
                continue;
            }
            '(' => {
                let rest = &chars[i + 1..];
                if starts(rest, "?P=") {
                    if let Some(len) = rest.iter().position(|&c| c == ')') {
                        let name: String = rest[3..len].iter().collect();
                        out.push_str(&format!("\\k<{name}>"));
                        i += len + 2;
                        continue;
                    }
                }
                let kind = if ["?=", "?!", "?<=", "?<!"].iter().any(|p| starts(rest, p)) {
                    Group::Lookaround
                } else {
                    let named = starts(rest, "?P<") || (starts(rest, "?<") && !starts(rest, "?<="));
                    if named || rest.first() != Some(&'?') {
                        // A capturing group: a lookaround around it keeps
                        // its place (dropping it would renumber groups).
                        for g in groups.iter_mut() {
                            g.1 = Group::Other;
                        }
                    }
                    Group::Other
                };
                groups.push((out.len(), kind));
                out.push('(');
            }
            ')' => {
                out.push(')');
                if let Some((start, Group::Lookaround)) = groups.pop() {
                    if let Some((min, len)) = quantifier(&chars[i + 1..]) {
                        if min == 0 {
                            out.truncate(start);
                        }
                        i += 1 + len;
                        continue;
                    }
                }
            }
            '{' => match repetition(&chars[i..]) {
                Some(len) => {
                    // Copy the whole `{m,n}` so its `}` stays a quantifier.
                    out.push('{');
                    if chars.get(i + 1) == Some(&',') {
                        out.push('0');
                    }
                    out.extend(&chars[i + 1..i + len]);
                    i += len;
                    continue;
                }
                None => out.push_str(r"\{"),
            },
            '}' => out.push_str(r"\}"),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// `pattern` (Python's spelling) compiled as Python would read it.
pub fn compile(pattern: &str) -> Result<fancy_regex::Regex, fancy_regex::Error> {
    fancy_regex::Regex::new(&translate(pattern))
}

/// Python's `re.IGNORECASE` and `re.MULTILINE`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    /// `re.IGNORECASE`.
    pub ignorecase: bool,
    /// `re.MULTILINE`.
    pub multiline: bool,
}

/// `pattern` with `flags`, for `re.match` (`anchored`: at the start of the
/// text, not of each line) or `re.search`.
pub fn compile_for(
    pattern: &str,
    flags: Flags,
    anchored: bool,
) -> Result<fancy_regex::Regex, fancy_regex::Error> {
    let mut pat = String::with_capacity(pattern.len() + 16);
    if flags.ignorecase {
        pat.push_str("(?i)");
    }
    if flags.multiline {
        pat.push_str("(?m)");
    }
    let body = translate(pattern);
    if anchored {
        pat.push_str("\\A(?:");
        pat.push_str(&body);
        pat.push(')');
    } else {
        pat.push_str(&body);
    }
    fancy_regex::Regex::new(&pat)
}

/// What an open group is, for the quantified-lookaround rewrite.
#[derive(Clone, Copy)]
enum Group {
    Lookaround,
    Other,
}

fn starts(chars: &[char], prefix: &str) -> bool {
    prefix
        .chars()
        .enumerate()
        .all(|(k, p)| chars.get(k) == Some(&p))
}

/// The length of `{m}`, `{m,}`, `{,n}` or `{m,n}` at the start of `chars`
/// (through its `}`), if one is there.
fn repetition(chars: &[char]) -> Option<usize> {
    let end = chars.iter().position(|&c| c == '}')?;
    let body: String = chars[1..end].iter().collect();
    let digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
    let ok = match body.split_once(',') {
        None => !body.is_empty() && digits(&body),
        Some((a, b)) => digits(a) && digits(b) && !(a.is_empty() && b.is_empty()),
    };
    ok.then_some(end + 1)
}

/// A quantifier at the start of `chars` (`*`, `+`, `?`, `{m,n}`, each
/// maybe lazy `?` or possessive `+`): its minimum count and its length.
fn quantifier(chars: &[char]) -> Option<(u64, usize)> {
    let (min, len) = match chars.first()? {
        '*' | '?' => (0, 1),
        '+' => (1, 1),
        '{' => {
            let len = repetition(chars)?;
            let body: String = chars[1..len - 1].iter().collect();
            let min = body.split(',').next().unwrap_or("");
            (min.parse().unwrap_or(0), len)
        }
        _ => return None,
    };
    let suffix = matches!(chars.get(len), Some('?' | '+'));
    Some((min, len + usize::from(suffix)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether Python's `re.match(pattern, text)` would match (expected
    /// values printed by Python 3.11).
    fn matches(pattern: &str, text: &str) -> bool {
        compile_for(pattern, Flags::default(), true)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"))
            .is_match(text)
            .expect("runs")
    }

    #[test]
    fn spellings_python_reads_differently() {
        assert_eq!(translate(r"a\Z"), r"a\z");
        assert_eq!(translate(r"(?P<x>a)(?P=x)"), r"(?P<x>a)\k<x>");
        assert_eq!(translate("a{1"), r"a\{1");
        assert_eq!(translate("x{,2}"), "x{0,2}");
        assert_eq!(translate("x{2,}y{3}"), "x{2,}y{3}");
        assert_eq!(translate("[[:alpha:]]+"), r"[\[:alpha:]]+");
        assert_eq!(translate("[]a]"), r"[\]a]");
        assert_eq!(translate("[a&&b~~c]"), r"[a&\&b~\~c]");
        assert_eq!(translate("[+--]"), r"[+-\-]");
        assert_eq!(translate(r"[\Z]"), r"[\Z]");
    }

    #[test]
    fn quantified_lookarounds() {
        assert_eq!(translate("(?=b)*a"), "a");
        assert_eq!(translate("(?=b)*?a"), "a");
        assert_eq!(translate("(?!a)?a"), "a");
        assert_eq!(translate("(?=b){0,2}a"), "a");
        assert_eq!(translate("(?=a)+a"), "(?=a)a");
        assert_eq!(translate("(?=b){1,2}a"), "(?=b)a");
        assert_eq!(translate("a(?<=b)*"), "a");
        // Nested groups and classes inside the lookaround.
        assert_eq!(translate("(?=(?:[)]|x))*y"), "y");
        // A capturing group inside keeps the lookaround (and fails to
        // compile as before, rather than renumbering groups).
        assert_eq!(translate("(?=(a))*a"), "(?=(a))*a");
        assert_eq!(translate("(?=(?P<n>a))*a"), "(?=(?P<n>a))*a");
    }

    #[test]
    fn matches_as_python_does() {
        // (pattern, text, Python's answer)
        let cases = [
            ("(?=b)*a", "a", true),
            ("(?=b)+a", "a", false),
            ("(?=a)+a", "a", true),
            ("(?!a)?a", "a", true),
            ("(?=b){0,2}a", "a", true),
            ("(?=b){1,2}a", "a", false),
            ("a(?<=b)*", "a", true),
            ("[[:alpha:]]+", "a", false),
            ("[[:alpha:]]+", ":]", true),
            (r"a\Z", "a", true),
            ("[+--]", "+", true),
            ("x{,2}", "xx", true),
            ("a{1", "a{1", true),
            (
                r"[A-Za-z0-9]+(?=[\.\-][a-zA-Z0-9])*\.[a-zA-z09]+",
                "example.com",
                true,
            ),
        ];
        for (p, t, want) in cases {
            assert_eq!(matches(p, t), want, "{p} on {t}");
        }
    }
}
