//! Salt's requisite vocabulary, in one place: the requisite kinds (their
//! keys, Salt's weights and the order it processes them in, their
//! families), the keyword lists made of them (`STATE_REQUISITE_KEYWORDS`,
//! the `_in` forms `requisite_in` reads, every requisite spelling), and the
//! state tag `state_|-id_|-name_|-fun`. The resolver (`order`), the
//! graph the output stages read (`graph`), `high::extend`,
//! `high::requisite_in` and `check` all speak it.

use crate::plan::EdgeFamily;
use crate::value::{push_py_str, Value};

/// A requisite type that can be an edge of the graph, in Salt's precedence
/// order (the discriminant is Salt's weight).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReqKind {
    /// `onfail`.
    Onfail,
    /// `onfail_any`.
    OnfailAny,
    /// `onfail_all`.
    OnfailAll,
    /// `require`.
    Require,
    /// `require_any`.
    RequireAny,
    /// `onchanges`.
    Onchanges,
    /// `onchanges_any`.
    OnchangesAny,
    /// `watch`.
    Watch,
    /// `watch_any`.
    WatchAny,
    /// `prereq`.
    Prereq,
    /// `prerequired` (the other side of a prereq).
    Prerequired,
    /// `listen`.
    Listen,
}

impl ReqKind {
    /// Every kind, by discriminant.
    pub(crate) const ALL: [ReqKind; 12] = [
        ReqKind::Onfail,
        ReqKind::OnfailAny,
        ReqKind::OnfailAll,
        ReqKind::Require,
        ReqKind::RequireAny,
        ReqKind::Onchanges,
        ReqKind::OnchangesAny,
        ReqKind::Watch,
        ReqKind::WatchAny,
        ReqKind::Prereq,
        ReqKind::Prerequired,
        ReqKind::Listen,
    ];

    /// The kinds that make edges, in the order Salt processes a chunk's keys.
    pub const EDGE_KINDS: [ReqKind; 10] = [
        ReqKind::Require,
        ReqKind::RequireAny,
        ReqKind::Watch,
        ReqKind::WatchAny,
        ReqKind::Prereq,
        ReqKind::Onfail,
        ReqKind::OnfailAny,
        ReqKind::OnfailAll,
        ReqKind::Onchanges,
        ReqKind::OnchangesAny,
    ];

    /// Salt's weight: only edges at least as heavy as the heaviest seen so
    /// far pull a dependency forward.
    pub fn weight(self) -> u8 {
        self as u8
    }

    /// The kind written as `key` in SLS files, among those that make
    /// edges ([`ReqKind::EDGE_KINDS`]).
    pub fn from_key(key: &str) -> Option<ReqKind> {
        edge_rank(key).map(|r| ReqKind::EDGE_KINDS[r as usize])
    }

    /// Whether this kind makes graph edges (not `prerequired`, `listen`).
    pub fn is_edge(self) -> bool {
        !matches!(self, ReqKind::Prerequired | ReqKind::Listen)
    }

    /// The requisite family: the name without `_any`/`_all`
    /// (`prerequired` is prereq's, `listen` watch's: it triggers
    /// `mod_watch` too).
    pub fn base(self) -> EdgeBase {
        match self {
            ReqKind::Require | ReqKind::RequireAny => EdgeBase::Require,
            ReqKind::Watch | ReqKind::WatchAny | ReqKind::Listen => EdgeBase::Watch,
            ReqKind::Prereq | ReqKind::Prerequired => EdgeBase::Prereq,
            ReqKind::Onfail | ReqKind::OnfailAny | ReqKind::OnfailAll => EdgeBase::Onfail,
            ReqKind::Onchanges | ReqKind::OnchangesAny => EdgeBase::Onchanges,
        }
    }

    /// `*_any`: one of the dependencies suffices.
    pub fn is_any(self) -> bool {
        self.as_str().ends_with("_any")
    }

    /// `onfail_all`: all dependencies must fail.
    pub fn is_all(self) -> bool {
        self == ReqKind::OnfailAll
    }

    /// The requisite key.
    pub fn as_str(self) -> &'static str {
        match self {
            ReqKind::Onfail => "onfail",
            ReqKind::OnfailAny => "onfail_any",
            ReqKind::OnfailAll => "onfail_all",
            ReqKind::Require => "require",
            ReqKind::RequireAny => "require_any",
            ReqKind::Onchanges => "onchanges",
            ReqKind::OnchangesAny => "onchanges_any",
            ReqKind::Watch => "watch",
            ReqKind::WatchAny => "watch_any",
            ReqKind::Prereq => "prereq",
            ReqKind::Prerequired => "prerequired",
            ReqKind::Listen => "listen",
        }
    }
}

impl std::fmt::Display for ReqKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The position of a requisite key in [`ReqKind::EDGE_KINDS`].
pub(crate) fn edge_rank(key: &str) -> Option<u8> {
    Some(match key {
        "require" => 0,
        "require_any" => 1,
        "watch" => 2,
        "watch_any" => 3,
        "prereq" => 4,
        "onfail" => 5,
        "onfail_any" => 6,
        "onfail_all" => 7,
        "onchanges" => 8,
        "onchanges_any" => 9,
        _ => return None,
    })
}

/// The requisite family of a [`ReqKind`] (its name without `_any`/`_all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeBase {
    /// `require` and `require_any`.
    Require,
    /// `watch` and `watch_any`.
    Watch,
    /// `prereq`.
    Prereq,
    /// `onfail`, `onfail_any`, `onfail_all`.
    Onfail,
    /// `onchanges`, `onchanges_any`.
    Onchanges,
}

impl EdgeBase {
    /// The core's family of this requisite family (its colour in drawings
    /// and reports).
    pub fn family(self) -> EdgeFamily {
        match self {
            EdgeBase::Require => EdgeFamily::Requires,
            EdgeBase::Watch => EdgeFamily::Watches,
            EdgeBase::Prereq => EdgeFamily::Precheck,
            EdgeBase::Onfail => EdgeFamily::OnFailure,
            EdgeBase::Onchanges => EdgeFamily::OnChange,
        }
    }
}

/// Salt's `STATE_REQUISITE_KEYWORDS`: every [`ReqKind`] by weight, then
/// `onfail_stop`. An extend argument with one of these keys is appended to
/// the target's list instead of replacing it.
pub const REQUISITE_KEYWORDS: &[&str] = &[
    "onfail",
    "onfail_any",
    "onfail_all",
    "require",
    "require_any",
    "onchanges",
    "onchanges_any",
    "watch",
    "watch_any",
    "prereq",
    "prerequired",
    "listen",
    "onfail_stop",
];

/// The keys `requisite_in` turns into requisites of their targets
/// (Salt 3008's `req_in`; 3006/3007 add `prereq`).
pub const REQUISITE_IN_KEYWORDS: &[&str] = &[
    "require_in",
    "watch_in",
    "onfail_in",
    "onchanges_in",
    "use",
    "use_in",
    "prereq_in",
];

/// Every requisite spelling a state may carry (the kinds a user writes,
/// their `_in` forms, `use`): what an unknown argument may be a
/// misspelling of.
pub const REQUISITE_SPELLINGS: &[&str] = &[
    "require",
    "require_in",
    "require_any",
    "watch",
    "watch_in",
    "watch_any",
    "onchanges",
    "onchanges_in",
    "onchanges_any",
    "onfail",
    "onfail_in",
    "onfail_any",
    "onfail_all",
    "prereq",
    "prereq_in",
    "listen",
    "listen_in",
    "use",
    "use_in",
];

/// Whether `key` is a requisite in any form a state or a chunk may carry:
/// a kind ([`REQUISITE_KEYWORDS`]), its `_in` form, `use`
/// ([`REQUISITE_IN_KEYWORDS`]) or any other spelling
/// ([`REQUISITE_SPELLINGS`]).
pub fn is_requisite_key(key: &str) -> bool {
    REQUISITE_SPELLINGS.contains(&key)
        || REQUISITE_KEYWORDS.contains(&key)
        || REQUISITE_IN_KEYWORDS.contains(&key)
}

/// Separates the parts of a tag.
pub(crate) const TAG_SEP: &str = "_|-";

/// What Salt 3008 appends to a prerequired chunk's tag for its test run.
pub(crate) const PREREQ_SUFFIX: &str = "_|-__prereq_test__";

/// Salt's tag of a chunk, `state_|-id_|-name_|-fun`, from its parts as
/// strings.
pub fn gen_tag(state: &str, id: &str, name: &str, fun: &str) -> String {
    let mut tag = String::with_capacity(state.len() + id.len() + name.len() + fun.len() + 9);
    for (i, part) in [state, id, name, fun].into_iter().enumerate() {
        if i > 0 {
            tag.push_str(TAG_SEP);
        }
        tag.push_str(part);
    }
    tag
}

/// Append Salt's tag of a chunk from its fields as values, each as
/// Python's `str()` prints it (a missing one as nothing).
pub(crate) fn push_tag(tag: &mut String, parts: [Option<&Value>; 4]) {
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            tag.push_str(TAG_SEP);
        }
        push_py_str(tag, part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyword_lists_are_the_kinds() {
        let by_weight: Vec<&str> = ReqKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(REQUISITE_KEYWORDS[..12], by_weight[..]);
        for (i, k) in ReqKind::EDGE_KINDS.iter().enumerate() {
            assert_eq!(edge_rank(k.as_str()), Some(i as u8));
            assert_eq!(ReqKind::from_key(k.as_str()), Some(*k));
            assert!(k.is_edge());
            assert!(REQUISITE_SPELLINGS.contains(&k.as_str()));
        }
        assert_eq!(ReqKind::from_key("listen"), None);
        for form in REQUISITE_IN_KEYWORDS {
            assert!(REQUISITE_SPELLINGS.contains(form), "{form}");
        }
        for (i, k) in ReqKind::ALL.iter().enumerate() {
            assert_eq!(k.weight() as usize, i);
        }
    }

    #[test]
    fn every_state_function_accepts_every_requisite() {
        let internal = crate::salt::low::INTERNAL_KEYWORDS;
        for k in REQUISITE_KEYWORDS
            .iter()
            .chain(REQUISITE_IN_KEYWORDS)
            .chain(REQUISITE_SPELLINGS)
        {
            assert!(internal.contains(k), "{k}");
        }
    }

    #[test]
    fn tags_are_spelled_one_way() {
        let parts = ["file", "conf", "/etc/x", "managed"].map(Value::str);
        let mut tag = String::new();
        push_tag(
            &mut tag,
            [
                Some(&parts[0]),
                Some(&parts[1]),
                Some(&parts[2]),
                Some(&parts[3]),
            ],
        );
        assert_eq!(tag, gen_tag("file", "conf", "/etc/x", "managed"));
        assert_eq!(tag, "file_|-conf_|-/etc/x_|-managed");
    }
}
