//! Source texts and positions. A [`SourceFile`] is a text with the name
//! messages call it by; its one [`LineIndex`] (built on first use) does all
//! the line and column arithmetic of the crate. Lines and columns are
//! 1-based, and columns count characters (as libyaml, Jinja and editors
//! do), not bytes.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// Where each line of a text starts. Built once per text in O(n); every
/// lookup is a binary search.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of the start of each line; the first is 0.
    starts: Vec<usize>,
    /// Length of the text in bytes.
    len: usize,
    /// The text is ASCII: columns are byte distances.
    ascii: bool,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            len: text.len(),
            ascii: text.is_ascii(),
        }
    }

    /// How many lines the text has (a final line without `\n` counts; a
    /// text ending in `\n` has an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// Byte offset where the line holding `offset` starts.
    pub fn line_start(&self, offset: usize) -> usize {
        self.starts[self.line_of(offset)]
    }

    /// Byte offset where 0-based line `line` starts (the text's end past
    /// the last line).
    pub fn start_of_line(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.len)
    }

    /// 1-based (line, column) of byte `offset` in `text` (the text this
    /// index was built from); the column counts characters.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = if self.ascii {
            offset - start
        } else {
            text.get(start..offset).map_or(0, |t| t.chars().count())
        };
        (line + 1, col + 1)
    }

    /// Byte range of 1-based `line` without its line break (`\n` or
    /// `\r\n`); an empty range at the end for a line past the last.
    pub fn line_range(&self, text: &str, line: usize) -> Range<usize> {
        let Some(&start) = line.checked_sub(1).and_then(|l| self.starts.get(l)) else {
            return self.len..self.len;
        };
        let mut end = self.starts.get(line).map_or(self.len, |&next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end
    }
}

/// The largest char boundary of `s` at or before byte `i`.
pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A text a diagnostic can point into: an SLS template, the text Jinja
/// rendered from it, a minion config, a Heat template, an environment file.
#[derive(Debug)]
pub struct SourceFile {
    /// What to call the file in messages (a path relative to the config dir,
    /// or `<rendered base:web>` for rendered text).
    pub name: String,
    /// The whole text.
    pub text: String,
    index: OnceLock<LineIndex>,
}

impl SourceFile {
    /// A shared source file.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<SourceFile> {
        Arc::new(SourceFile {
            name: name.into(),
            text: text.into(),
            index: OnceLock::new(),
        })
    }

    /// The file's line index (built on first use).
    pub fn lines(&self) -> &LineIndex {
        self.index.get_or_init(|| LineIndex::new(&self.text))
    }

    /// 1-based (line, column) of a byte offset; the column counts characters.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines().line_col(&self.text, offset)
    }

    /// Byte range of a 1-based line (without its line break).
    pub fn line_range(&self, line: usize) -> Range<usize> {
        self.lines().line_range(&self.text, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_from_one() {
        let f = SourceFile::new("x", "ab\ncdé\r\nf");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (2, 4));
        // Inside a multi-byte character: its start.
        assert_eq!(f.line_col(6), (2, 3));
        assert_eq!(&f.text[f.line_range(2)], "cdé");
        assert_eq!(&f.text[f.line_range(3)], "f");
        assert_eq!(f.line_range(9), 10..10);
        assert_eq!(f.line_col(1000), (3, 2));
        assert_eq!(f.lines().line_count(), 3);
        assert_eq!(f.lines().line_start(5), 3);
        assert_eq!(f.lines().start_of_line(2), 9);
    }

    #[test]
    fn empty_and_trailing_newline() {
        let i = LineIndex::new("");
        assert_eq!(i.line_col("", 0), (1, 1));
        let t = "a\n";
        let i = LineIndex::new(t);
        assert_eq!(i.line_count(), 2);
        assert_eq!(i.line_col(t, 2), (2, 1));
        assert_eq!(i.line_range(t, 2), 2..2);
    }
}

/// An I/O error as people read it: the system's reason without Rust's
/// ` (os error N)` suffix, lower-cased (`no such file or directory`).
pub fn io_reason(e: &std::io::Error) -> String {
    let text = without_os_error(&e.to_string());
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// `text` with every ` (os error N)` that Rust's I/O errors append taken
/// out.
pub fn without_os_error(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" (os error ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " (os error ".len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            rest = &after[digits + 1..];
        } else {
            out.push_str(" (os error ");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `path` with `x/..` pairs and inner `.` components folded away, as
/// messages print it (`site/../f/x.sls` → `f/x.sls`); a leading `./` and
/// leading `..` components stay. Purely lexical: the file system is not
/// asked.
pub fn normal_path(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir if !out.is_empty() => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return std::path::PathBuf::from(".");
    }
    out.iter().collect()
}

#[cfg(test)]
mod path_tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn paths_are_folded_lexically() {
        let n = |p: &str| normal_path(Path::new(p)).display().to_string();
        assert_eq!(n("site/../f/x.sls"), "f/x.sls");
        assert_eq!(n("./site/../salt/a.sls"), "./salt/a.sls");
        assert_eq!(n("t1/../t1/site/./../salt"), "t1/salt");
        assert_eq!(n("../up/x"), "../up/x");
        assert_eq!(n("/a/../../b"), "/b");
        assert_eq!(n("a/.."), ".");
        assert_eq!(
            io_reason(&std::io::Error::from(std::io::ErrorKind::NotFound)),
            "entity not found"
        );
        assert_eq!(
            without_os_error("x: No such file or directory (os error 2)"),
            "x: No such file or directory"
        );
    }
}
