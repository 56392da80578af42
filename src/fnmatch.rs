//! Python's `fnmatch.fnmatchcase`: `*` and `?` cross `.` and `/`, `[seq]` and
//! `[!seq]` classes, case-sensitive. Salt uses it for top targets, include
//! globs, requisite globs and excludes, so path-glob crates would be wrong.

/// True when `pattern` contains a glob character (Salt's test for globs).
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Match `name` against `pattern` with Python fnmatch semantics.
pub fn fnmatch(name: &str, pattern: &str) -> bool {
    if !is_glob(pattern) {
        return name == pattern;
    }
    if name.is_ascii() && pattern.is_ascii() {
        return matches(name.as_bytes(), pattern.as_bytes());
    }
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pattern.chars().collect();
    matches(&n, &p)
}

/// A pattern/name unit: bytes for ASCII text, chars otherwise.
trait Unit: Copy + Ord {
    fn is(self, c: char) -> bool;
}
impl Unit for u8 {
    fn is(self, c: char) -> bool {
        self as char == c
    }
}
impl Unit for char {
    fn is(self, c: char) -> bool {
        self == c
    }
}

fn matches<T: Unit>(name: &[T], pat: &[T]) -> bool {
    // Iterative matcher with single-star backtracking (linear-ish).
    let (mut ni, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < name.len() {
        if pi < pat.len() {
            let c = pat[pi];
            if c.is('*') {
                star = Some((pi, ni));
                pi += 1;
                continue;
            } else if c.is('?') {
                ni += 1;
                pi += 1;
                continue;
            } else if c.is('[') {
                if let Some((ok, next)) = class(&pat[pi..], name[ni]) {
                    if ok {
                        ni += 1;
                        pi += next;
                        continue;
                    }
                } else if name[ni].is('[') {
                    // An unclosed `[` is a literal, as in Python.
                    ni += 1;
                    pi += 1;
                    continue;
                }
            } else if c == name[ni] {
                ni += 1;
                pi += 1;
                continue;
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
    pat[pi..].iter().all(|&c| c.is('*'))
}

/// Parse a `[...]` class at the start of `pat`; returns (matched, length).
fn class<T: Unit>(pat: &[T], c: T) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = pat.get(1).is_some_and(|p| p.is('!'));
    if negate {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while i < pat.len() {
        let ch = pat[i];
        if ch.is(']') && i > start {
            return Some((hit != negate, i + 1));
        }
        if i + 2 < pat.len() && pat[i + 1].is('-') && !pat[i + 2].is(']') {
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
