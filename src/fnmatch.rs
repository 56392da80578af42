//! Python's `fnmatch.fnmatchcase`: `*` and `?` cross `.` and `/`, `[seq]` and
//! `[!seq]` classes, case-sensitive. Salt uses it for top targets, include
//! globs, requisite globs and excludes, so path-glob crates would be wrong.

/// True when `pattern` contains a glob character (Salt's test for globs).
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Match `name` against `pattern` with Python fnmatch semantics.
pub fn fnmatch(name: &str, pattern: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pattern.chars().collect();
    matches(&n, &p)
}

fn matches(name: &[char], pat: &[char]) -> bool {
    // Iterative matcher with single-star backtracking (linear-ish).
    let (mut ni, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < name.len() {
        if pi < pat.len() {
            match pat[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    ni += 1;
                    pi += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&pat[pi..], name[ni]) {
                        if ok {
                            ni += 1;
                            pi += next;
                            continue;
                        }
                    } else if name[ni] == '[' {
                        // An unclosed `[` is a literal, as in Python.
                        ni += 1;
                        pi += 1;
                        continue;
                    }
                }
                c if c == name[ni] => {
                    ni += 1;
                    pi += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pat[pi..].iter().all(|&c| c == '*')
}

/// Parse a `[...]` class at the start of `pat`; returns (matched, length).
fn class(pat: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(1), Some('!'));
    if negate {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while i < pat.len() {
        let ch = pat[i];
        if ch == ']' && i > start {
            return Some((hit != negate, i + 1));
        }
        if i + 2 < pat.len() && pat[i + 1] == '-' && pat[i + 2] != ']' {
            if pat[i] <= c && c <= pat[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if ch == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_fnmatch_semantics() {
        assert!(fnmatch("web01", "web*"));
        assert!(fnmatch("a.b/c", "a*c"));
        assert!(fnmatch("lib.x", "lib.*"));
        assert!(!fnmatch("lib", "lib.*"));
        assert!(fnmatch("web1", "web?"));
        assert!(fnmatch("web1", "web[0-9]"));
        assert!(!fnmatch("weba", "web[0-9]"));
        assert!(fnmatch("weba", "web[!0-9]"));
        assert!(fnmatch("a]", "a[]]"));
        assert!(fnmatch("x[", "x["));
        assert!(!fnmatch("Web", "web"));
        assert!(fnmatch("", "*"));
        assert!(fnmatch("abcabd", "*abd"));
        assert!(is_glob("srv-*") && !is_glob("srv"));
    }
}
