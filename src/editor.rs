//! What an editor asks of a compiled tree, in terms both dialects share:
//! issues located in the files a person edits (a [`Diagnostic`]'s labels
//! turned into one place to underline, the related places and a fix when
//! the fix is certain), symbols, places to jump to and completion items.
//! Positions are byte ranges in the text the editor holds; the protocol
//! (lines, UTF-16 columns, JSON-RPC) is the binary's business.

use crate::diag::{Diagnostic, Severity};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A byte range in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file (absolute).
    pub path: PathBuf,
    /// The bytes.
    pub range: Range<usize>,
}

/// A text edit that fixes an issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the editor offers (`Replace with 'nginx-package'`).
    pub title: String,
    /// The bytes to replace, in the issue's file.
    pub range: Range<usize>,
    /// The new text.
    pub replacement: String,
}

/// A diagnostic as an editor shows it.
#[derive(Debug, Clone)]
pub struct Issue {
    /// Where to underline.
    pub at: Place,
    /// How bad it is.
    pub severity: Severity,
    /// The registered code (`missing-requisite`).
    pub code: &'static str,
    /// The message, with the diagnostic's notes on lines of their own.
    pub message: String,
    /// The other places involved (the other side of a conflict, the
    /// template line behind rendered text), with what each label says.
    pub related: Vec<(Place, String)>,
    /// A certain fix, if there is one.
    pub fix: Option<Fix>,
}

/// Turn a diagnostic into an issue: the first label that points into a
/// file `source` knows (the primary label, else a secondary one: the
/// template line behind a rendered text) is where it shows; the other
/// labels in known files are related. `fallback` is where a diagnostic
/// without any such label shows (`None`: it is not about an editable
/// file).
pub fn issue_of(
    d: &Diagnostic,
    source: &dyn Fn(&str) -> Option<PathBuf>,
    fallback: Option<Place>,
) -> Option<Issue> {
    let labels = d.primary.iter().chain(d.secondary.iter());
    let mut places = labels.filter_map(|l| {
        let path = source(&l.file.name)?;
        Some((
            Place {
                path,
                range: l.range.clone(),
            },
            l.message.clone(),
        ))
    });
    let at = places.next().map(|(p, _)| p).or(fallback)?;
    let related = places.filter(|(p, _)| *p != at).collect();
    let mut message = d.message.clone();
    for n in &d.notes {
        message.push('\n');
        message.push_str(n);
    }
    Some(Issue {
        at,
        severity: d.severity,
        code: d.code.name,
        message,
        related,
        fix: None,
    })
}

/// What kind of thing a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// A file-level section (`include`, `parameters`).
    Namespace,
    /// A Salt state ID, a Heat resource.
    Object,
    /// A state declaration (`pkg.installed`).
    Function,
    /// A Heat parameter or output.
    Variable,
}

/// A named thing declared in a file.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// A short description (the state functions, the resource type).
    pub detail: String,
    /// Its kind.
    pub kind: SymbolKind,
    /// Where it is declared (the whole declaration).
    pub at: Place,
    /// Where its name is written.
    pub name_at: Range<usize>,
    /// What it declares inside.
    pub children: Vec<Symbol>,
}

/// What kind of completion an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// A state module, a resource type namespace.
    Module,
    /// A state function, an intrinsic function.
    Function,
    /// An argument or property.
    Property,
    /// A requisite kind, a template keyword.
    Keyword,
    /// An ID, a resource, a parameter.
    Reference,
    /// An SLS name or a file.
    File,
    /// A resource type.
    Type,
}

/// One completion item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// What is inserted.
    pub label: String,
    /// A short description.
    pub detail: String,
    /// Its kind.
    pub kind: CompletionKind,
}

impl Completion {
    /// An item.
    pub fn new(label: impl Into<String>, detail: impl Into<String>, kind: CompletionKind) -> Self {
        Completion {
            label: label.into(),
            detail: detail.into(),
            kind,
        }
    }
}

/// The word at `offset` in `text` (letters, digits and `_-.:/@`), and its
/// range.
pub fn word_at(text: &str, offset: usize) -> Option<(Range<usize>, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || "_-.:/@".contains(c);
    let offset = crate::text::floor_char_boundary(text, offset.min(text.len()));
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    // A word does not end in `:` (a mapping key).
    let mut end = end;
    while end > start && text[..end].ends_with(':') {
        end -= 1;
    }
    (start < end).then(|| (start..end, &text[start..end]))
}

/// The known name closest to `name` (edit distance at most 2 and at most
/// half its length), for did-you-mean.
pub fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    crate::rules::suggest(name, known)
}

/// The byte range of the first whole occurrence of `needle` in `text` at or
/// after `from` (not inside a longer word).
pub fn find_word(text: &str, needle: &str, from: usize) -> Option<Range<usize>> {
    if needle.is_empty() {
        return None;
    }
    let is_word = |c: char| c.is_alphanumeric() || "_-.".contains(c);
    let mut at = crate::text::floor_char_boundary(text, from.min(text.len()));
    while let Some(i) = text[at..].find(needle) {
        let s = at + i;
        let e = s + needle.len();
        let before = text[..s].chars().next_back().is_none_or(|c| !is_word(c));
        let after = text[e..].chars().next().is_none_or(|c| !is_word(c));
        if before && after {
            return Some(s..e);
        }
        at = s + needle.len();
    }
    None
}

/// Whether `path` lies under one of `dirs` (both as given; callers pass
/// absolute, canonical paths).
pub fn under_any(path: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| path.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_stop_at_spaces_and_key_colons() {
        let t = "  - pkg: nginx-package\n";
        assert_eq!(word_at(t, 5).map(|w| w.1), Some("pkg"));
        assert_eq!(word_at(t, 12).map(|w| w.1), Some("nginx-package"));
        assert_eq!(word_at(t, 0), None);
        assert_eq!(
            word_at("source: salt://a/b.conf", 12).map(|w| w.1),
            Some("salt://a/b.conf")
        );
    }

    #[test]
    fn whole_words_only() {
        let t = "nginx-package nginx";
        assert_eq!(find_word(t, "nginx", 0), Some(14..19));
        assert_eq!(
            did_you_mean("ngnix", ["nginx", "apache"].into_iter()),
            Some("nginx")
        );
        assert_eq!(did_you_mean("zzz", ["nginx"].into_iter()), None);
    }
}
