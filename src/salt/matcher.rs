//! Salt's minion matchers, as a top file uses them to decide whether a
//! target applies to this minion: `glob`, `pcre`, `list`, `grain`,
//! `grain_pcre`, `pillar`, `pillar_pcre`, `pillar_exact`, `ipcidr`, `data`,
//! `nodegroup`, `range`, `resource`, `managing_minion` and the default
//! `compound` expression language (`G@ P@ I@ J@ L@ E@ S@ N@ T@ M@`, `and` /
//! `or` / `not` / parentheses, bare words are id globs). Also owns Salt's
//! `subdict_match` and `traverse_dict_and_list` (the `a:b:c` key-path walk).
//!
//! Behaviour follows Salt 3008.5's `salt/matchers/*.py`,
//! `salt.utils.data.subdict_match` and `salt.utils.minions`, including the
//! odd corners (grain values compare lower-cased, `re.match` anchors at the
//! start only, a malformed compound expression matches nothing). Where Salt
//! would raise an exception (an invalid regex, an unknown matcher name) we
//! return a [`MatchError`] so the caller can report it.

use crate::fnmatch::fnmatch;
use crate::salt::config::Config;
use crate::value::Value;
use std::net::IpAddr;

/// Everything a matcher may look at.
#[derive(Debug, Clone, Copy)]
pub struct Minion<'a> {
    /// The minion ID.
    pub id: &'a str,
    /// The grains.
    pub grains: &'a Value,
    /// The pillar.
    pub pillar: &'a Value,
    /// The minion opts: `nodegroups` and `resources` are read from here.
    pub opts: &'a Value,
}

impl<'a> Minion<'a> {
    /// The minion described by a config, with the given compiled pillar.
    pub fn new(config: &'a Config, pillar: &'a Value) -> Minion<'a> {
        Minion {
            id: &config.id,
            grains: &config.grains,
            pillar,
            opts: &config.opts,
        }
    }

    fn nodegroups(&self) -> Option<&'a Value> {
        self.opts.get("nodegroups")
    }
}

/// Where Salt would raise instead of answering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MatchError {
    /// `match: <name>` names no matcher module (Salt: KeyError in the loader).
    UnknownMatcher(String),
    /// A regex Python's `re` rejects, or that the `regex` crate cannot run
    /// (look-around, back-references).
    BadRegex {
        /// The pattern as written.
        pattern: String,
        /// Why it was refused.
        message: String,
    },
    /// A target that is not a string given to a matcher that needs one.
    NotAString {
        /// The matcher (`glob`, `pcre`, ...).
        matcher: &'static str,
        /// The target as Python prints it.
        target: String,
    },
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::UnknownMatcher(m) => write!(f, "Unknown matcher '{m}'"),
            MatchError::BadRegex { pattern, message } => {
                write!(f, "Invalid regular expression '{pattern}': {message}")
            }
            MatchError::NotAString { matcher, target } => {
                write!(
                    f,
                    "The {matcher} matcher needs a string target, got {target}"
                )
            }
        }
    }
}

impl std::error::Error for MatchError {}

/// A match, or why the target is invalid.
pub(crate) type MatchResult = Result<bool, MatchError>;

/// Salt's default target delimiter.
pub(crate) const DEFAULT_DELIM: &str = ":";

/// The matcher a top file target uses: `compound` unless the target's item
/// list holds a dict with a `match` key (the last one wins).
pub(crate) fn matcher_name(items: &[Value]) -> Value {
    let mut name = Value::from("compound");
    for item in items {
        if let Some(m) = item.as_map().and_then(|m| m.get("match")) {
            name = m.clone();
        }
    }
    name
}

/// Salt's `confirm_top`: does `target` (with its item list) match the minion?
pub(crate) fn confirm_top(target: &Value, items: &[Value], minion: &Minion) -> MatchResult {
    let name = matcher_name(items);
    match name.as_str() {
        Some(kind) => matches(kind, target, minion),
        None => Err(MatchError::UnknownMatcher(name.py_str())),
    }
}

/// Run the matcher called `kind` (`glob`, `grain`, ...) on a target.
pub(crate) fn matches(kind: &str, target: &Value, minion: &Minion) -> MatchResult {
    let s = target.as_str();
    let need = |matcher: &'static str| MatchError::NotAString {
        matcher,
        target: target.py_repr(),
    };
    match kind {
        "compound" => compound_match(target, minion),
        "glob" => Ok(s.is_some_and(|t| glob_match(t, minion.id))),
        "pcre" => pcre_match(s.ok_or_else(|| need("pcre"))?, minion.id),
        "list" => Ok(list_match(target, minion.id)),
        "grain" => Ok(grain_match(
            s.ok_or_else(|| need("grain"))?,
            DEFAULT_DELIM,
            minion,
        )),
        "grain_pcre" => Ok(grain_pcre_match(
            s.ok_or_else(|| need("grain_pcre"))?,
            DEFAULT_DELIM,
            minion,
        )),
        "pillar" => Ok(pillar_match(
            s.ok_or_else(|| need("pillar"))?,
            DEFAULT_DELIM,
            minion,
        )),
        "pillar_pcre" => Ok(pillar_pcre_match(
            s.ok_or_else(|| need("pillar_pcre"))?,
            DEFAULT_DELIM,
            minion,
        )),
        "pillar_exact" => Ok(pillar_exact_match(
            s.ok_or_else(|| need("pillar_exact"))?,
            DEFAULT_DELIM,
            minion,
        )),
        "ipcidr" => Ok(ipcidr_match(s.ok_or_else(|| need("ipcidr"))?, minion)),
        "data" => Ok(s.is_some_and(data_match)),
        "nodegroup" => nodegroup_match(target, minion),
        // seco.range is never installed: the range matcher answers False.
        "range" => Ok(false),
        "resource" => Ok(resource_match(s.ok_or_else(|| need("resource"))?, minion)),
        "managing_minion" => Ok(s == Some(minion.id)),
        other => Err(MatchError::UnknownMatcher(other.to_string())),
    }
}

/// `glob`: Python `fnmatch.fnmatch(minion_id, tgt)` (case-sensitive on Linux).
pub(crate) fn glob_match(tgt: &str, id: &str) -> bool {
    fnmatch(id, tgt)
}

/// `pcre`: Python `re.match(tgt, minion_id)`, anchored at the start only.
pub(crate) fn pcre_match(tgt: &str, id: &str) -> MatchResult {
    py_re_match(tgt, id)
}

/// `list`: a comma-separated string containing the id (or equal to it), or
/// a list holding it.
pub(crate) fn list_match(tgt: &Value, id: &str) -> bool {
    match tgt {
        Value::Str(t) => {
            t.contains(&format!(",{id},"))
                || t.starts_with(&format!("{id},"))
                || t.ends_with(&format!(",{id}"))
                || t == id
        }
        Value::List(l) => l.iter().any(|v| v.as_str() == Some(id)),
        Value::Map(m) => m.contains_key(id),
        _ => false,
    }
}

/// `grain`: `subdict_match` over the grains, fnmatch on lower-cased values.
pub(crate) fn grain_match(tgt: &str, delim: &str, minion: &Minion) -> bool {
    tgt.contains(delim) && subdict_match(minion.grains, tgt, delim, Mode::Glob)
}

/// `grain_pcre`: like `grain` with `re.match` on lower-cased values.
pub(crate) fn grain_pcre_match(tgt: &str, delim: &str, minion: &Minion) -> bool {
    tgt.contains(delim) && subdict_match(minion.grains, tgt, delim, Mode::Regex)
}

/// `pillar`: `subdict_match` over the pillar.
pub(crate) fn pillar_match(tgt: &str, delim: &str, minion: &Minion) -> bool {
    tgt.contains(delim) && subdict_match(minion.pillar, tgt, delim, Mode::Glob)
}

/// `pillar_pcre`.
pub(crate) fn pillar_pcre_match(tgt: &str, delim: &str, minion: &Minion) -> bool {
    tgt.contains(delim) && subdict_match(minion.pillar, tgt, delim, Mode::Regex)
}

/// `pillar_exact`: lower-cased string equality, no globbing.
pub(crate) fn pillar_exact_match(tgt: &str, delim: &str, minion: &Minion) -> bool {
    tgt.contains(delim) && subdict_match(minion.pillar, tgt, delim, Mode::Exact)
}

/// `data`: reads the minion's datastore, which is empty offline: no match.
pub(crate) fn data_match(tgt: &str) -> bool {
    let _ = tgt;
    false
}

/// `resource` (3008): `T@type:id` or `T@type` against the `resources` option.
pub(crate) fn resource_match(tgt: &str, minion: &Minion) -> bool {
    let Some(res) = minion.opts.get("resources").filter(|r| r.truthy()) else {
        return false;
    };
    match tgt.split_once(':') {
        Some((kind, id)) => match res.get(kind) {
            Some(Value::List(l)) => l.iter().any(|v| v.as_str() == Some(id)),
            Some(Value::Map(m)) => m.contains_key(id),
            Some(Value::Str(s)) => s.contains(id),
            _ => false,
        },
        None => res.get(tgt).is_some_and(Value::truthy),
    }
}

/// `ipcidr`: an address is looked up in the `ipv4`/`ipv6` grain list; a
/// network (strict: no host bits) matches when any grain address is in it.
pub(crate) fn ipcidr_match(tgt: &str, minion: &Minion) -> bool {
    let (net, prefix, is_addr) = if let Ok(addr) = tgt.parse::<IpAddr>() {
        (addr, 0, true)
    } else if let Some((net, prefix)) = parse_network(tgt) {
        (net, prefix, false)
    } else {
        // Salt logs "Invalid IP/CIDR target" and returns [] (falsy).
        return false;
    };
    let proto = if net.is_ipv4() { "ipv4" } else { "ipv6" };
    let Some(addrs) = minion.grains.get(proto) else {
        return false;
    };
    if is_addr {
        let text = net.to_string();
        return match addrs {
            Value::List(l) => l.iter().any(|v| v.as_str() == Some(text.as_str())),
            Value::Str(s) => s.contains(&text),
            Value::Map(m) => m.contains_key(text.as_str()),
            _ => false,
        };
    }
    let items: Vec<&Value> = match addrs {
        Value::List(l) => l.iter().collect(),
        other => vec![other],
    };
    items.into_iter().any(|item| {
        item.as_str()
            .and_then(|s| s.parse::<IpAddr>().ok())
            .is_some_and(|a| in_network(a, net, prefix))
    })
}

/// Python `ipaddress.ip_network(text)` (strict): `addr/len`, `addr/netmask`
/// (IPv4) or a bare address (a host network).
fn parse_network(text: &str) -> Option<(IpAddr, u32)> {
    let (addr, suffix) = match text.split_once('/') {
        Some((a, s)) => (a.parse::<IpAddr>().ok()?, Some(s)),
        None => (text.parse::<IpAddr>().ok()?, None),
    };
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let prefix = match suffix {
        None => max,
        Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            let p: u32 = s.parse().ok()?;
            if p > max {
                return None;
            }
            p
        }
        Some(s) => {
            // IPv4 netmask (255.255.0.0) or hostmask (0.0.255.255).
            let mask: std::net::Ipv4Addr = s.parse().ok()?;
            if !addr.is_ipv4() {
                return None;
            }
            let m = u32::from(mask);
            if m.leading_ones() + m.trailing_zeros() == 32 {
                m.leading_ones()
            } else if m.leading_zeros() + m.trailing_ones() == 32 {
                m.leading_zeros()
            } else {
                return None;
            }
        }
    };
    // strict=True: host bits must be zero.
    if !in_network(addr, addr, prefix) || host_bits(addr, prefix) {
        return None;
    }
    Some((addr, prefix))
}

fn host_bits(addr: IpAddr, prefix: u32) -> bool {
    match addr {
        IpAddr::V4(a) => {
            let v = u32::from(a);
            let mask = if prefix == 0 {
                0
            } else {
                u32::MAX << (32 - prefix)
            };
            v & !mask != 0
        }
        IpAddr::V6(a) => {
            let v = u128::from(a);
            let mask = if prefix == 0 {
                0
            } else {
                u128::MAX << (128 - prefix)
            };
            v & !mask != 0
        }
    }
}

fn in_network(addr: IpAddr, net: IpAddr, prefix: u32) -> bool {
    match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = if prefix == 0 {
                0
            } else {
                u32::MAX << (32 - prefix)
            };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = if prefix == 0 {
                0
            } else {
                u128::MAX << (128 - prefix)
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// `nodegroup`: the target names a nodegroup from the `nodegroups` option,
/// whose expansion is matched as a compound expression.
pub(crate) fn nodegroup_match(tgt: &Value, minion: &Minion) -> MatchResult {
    let Some(groups) = minion.nodegroups().filter(|g| g.truthy()) else {
        return Ok(false);
    };
    let Some(name) = tgt.as_str() else {
        return Ok(false);
    };
    if groups.get(name).is_none() {
        return Ok(false);
    }
    let words = nodegroup_comp(name, groups);
    compound_words(words, minion)
}

// ---------------------------------------------------------------------------
// subdict_match / traverse_dict_and_list

/// How `subdict_match` compares a leaf value with the pattern (both are
/// lower-cased first, as Salt does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Shell-style glob.
    Glob,
    /// Python regular expression.
    Regex,
    /// Exact (case-sensitive) equality.
    Exact,
}

/// Salt's `subdict_match`: `expr` is `key:path:pattern`; deeper key paths are
/// tried first, so `a:b:c` matches `data[a][b] == c` before `data[a] == "b:c"`.
pub(crate) fn subdict_match(data: &Value, expr: &str, delim: &str, mode: Mode) -> bool {
    if delim.is_empty() {
        return false;
    }
    let splits: Vec<&str> = expr.split(delim).collect();
    if splits.len() == 1 {
        return false;
    }
    for idx in (1..splits.len()).rev() {
        let key = splits[..idx].join(delim);
        let (matchstr, found) = if key == "*" {
            (expr.to_string(), Some(data))
        } else {
            (
                splits[idx..].join(delim),
                traverse_dict_and_list(data, &key, delim),
            )
        };
        let Some(found) = found else { continue };
        match found {
            Value::Map(m) if m.is_empty() => continue,
            Value::Map(_) => {
                if dict_match(found, &matchstr, mode) {
                    return true;
                }
            }
            Value::List(items) => {
                for member in items {
                    if member.as_map().is_some() && dict_match(member, &matchstr, mode) {
                        return true;
                    }
                    if leaf_match(member, &matchstr, mode) {
                        return true;
                    }
                }
            }
            other => {
                if leaf_match(other, &matchstr, mode) {
                    return true;
                }
            }
        }
    }
    false
}

/// `_match`: compare `str(target).lower()` with the lower-cased pattern.
fn leaf_match(target: &Value, pattern: &str, mode: Mode) -> bool {
    let target = target.py_str().to_lowercase();
    let pattern = pattern.to_lowercase();
    match mode {
        Mode::Regex => py_re_match(&pattern, &target).unwrap_or(false),
        Mode::Exact => target == pattern,
        Mode::Glob => fnmatch(&target, &pattern),
    }
}

/// `_dict_match`: the pattern names a key (exactly or by glob/regex), or is a
/// nested `key:value` expression; a leading `*:` searches every value.
fn dict_match(target: &Value, pattern: &str, mode: Mode) -> bool {
    let Some(map) = target.as_map() else {
        return false;
    };
    let (wildcard, pattern) = match pattern.strip_prefix("*:") {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    if pattern == "*" || map.contains_key(pattern) {
        return true;
    }
    if map.keys().any(|k| leaf_match(k, pattern, mode)) {
        return true;
    }
    if subdict_match(target, pattern, DEFAULT_DELIM, mode) {
        return true;
    }
    if wildcard {
        for value in map.values() {
            match value {
                Value::Map(_) => {
                    if dict_match(value, pattern, mode) {
                        return true;
                    }
                }
                Value::List(items) => {
                    if items.iter().any(|i| leaf_match(i, pattern, mode)) {
                        return true;
                    }
                }
                other => {
                    if leaf_match(other, pattern, mode) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Salt's `traverse_dict_and_list(data, key, delimiter=delim)`: walk `a:b:0`
/// through dicts and lists. `None` = not found (the caller substitutes its
/// default). An empty delimiter takes the whole key as one part.
pub(crate) fn traverse_dict_and_list<'v>(
    data: &'v Value,
    key: &str,
    delim: &str,
) -> Option<&'v Value> {
    if delim.is_empty() {
        traverse_parts(data, &[key])
    } else {
        let parts: Vec<&str> = key.split(delim).collect();
        traverse_parts(data, &parts)
    }
}

/// The walk of [`traverse_dict_and_list`] over parts already split. At a
/// list, a non-integer part selects the first dict element holding it; an
/// integer part first tries dict elements keyed by that integer, then
/// indexes the list (negative from the end). At a dict, a part missing as a
/// string is retried as the value `yamlify_arg` loads it to (`'1'` → `1`,
/// `'true'` → `True`) when that is not a string.
pub(crate) fn traverse_parts<'v>(data: &'v Value, parts: &[&str]) -> Option<&'v Value> {
    let mut ptr = data;
    for &each in parts {
        ptr = match ptr {
            Value::List(items) => match py_int(each) {
                None => items
                    .iter()
                    .filter_map(Value::as_map)
                    .find_map(|m| m.get(each))?,
                Some(idx) => {
                    let by_key = items
                        .iter()
                        .filter_map(Value::as_map)
                        .find_map(|m| m.get(&Value::Int(idx)));
                    match by_key {
                        Some(v) => v,
                        None => {
                            let len = items.len() as i64;
                            let i = if idx < 0 { idx + len } else { idx };
                            if i < 0 || i >= len {
                                return None;
                            }
                            &items[i as usize]
                        }
                    }
                }
            },
            Value::Map(m) => match m.get(each) {
                Some(v) => v,
                None => {
                    let loaded = yamlify_key(each)?;
                    m.get(&loaded)?
                }
            },
            _ => return None,
        };
    }
    Some(ptr)
}

/// Python `int(s)`: optional surrounding whitespace and sign, digits with
/// single underscores between them.
fn py_int(s: &str) -> Option<i64> {
    i64::try_from(crate::value::pynum::parse_int(s, 10)?).ok()
}

/// The non-string value `salt.utils.args.yamlify_arg` turns a key part into
/// (null, bool, int, float, typed as Salt's YAML loader types a plain
/// scalar), or `None` when it stays a string. Blank parts, `1_000`-style
/// digit runs and `None` are yamlify_arg's own cases; a part with a comment
/// or a line break is left alone.
pub(crate) fn yamlify_key(each: &str) -> Option<Value> {
    use crate::yaml::resolve::{construct, resolve_plain, Scalar};
    let t = each.trim();
    if t.is_empty() || each.contains(['\t', '\r', '\n', '#']) {
        return None;
    }
    if each.contains('_') && t.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    if each == "None" {
        return Some(Value::Null);
    }
    match construct(&resolve_plain(t), t).ok()? {
        Scalar::Null => Some(Value::Null),
        Scalar::Bool(b) => Some(Value::Bool(b)),
        Scalar::Int(i) => Some(Value::Int(i)),
        Scalar::Float(f) => Some(Value::Float(f)),
        Scalar::Str(_) => None,
    }
}

// ---------------------------------------------------------------------------
// Python regular expressions

/// Python `bool(re.match(pattern, text))`: anchored at the start, not the end.
pub(crate) fn py_re_match(pattern: &str, text: &str) -> Result<bool, MatchError> {
    let bad = |message: String| MatchError::BadRegex {
        pattern: pattern.to_string(),
        message,
    };
    let re = crate::pyre::compile_for(pattern, Default::default(), true)
        .map_err(|e| bad(e.to_string()))?;
    re.is_match(text).map_err(|e| bad(e.to_string()))
}

// ---------------------------------------------------------------------------
// Compound matcher

const OPERS: [&str; 5] = ["and", "or", "not", "(", ")"];

/// One word of a compound expression, split as `salt.utils.minions.parse_target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TargetWord<'a> {
    /// The match engine letter (`G`, `P`, `I`, ...), if any.
    pub engine: Option<char>,
    /// A custom delimiter (`G@key;value` style), if any.
    pub delimiter: Option<char>,
    /// The pattern after the engine prefix.
    pub pattern: &'a str,
}

/// `parse_target`: `E@pat`, `G<d>@pat` (a one-character delimiter for G, P,
/// I and J only), or a bare pattern.
pub(crate) fn parse_target(word: &str) -> TargetWord<'_> {
    let bare = TargetWord {
        engine: None,
        delimiter: None,
        pattern: word,
    };
    let mut it = word.char_indices();
    let Some((_, engine)) = it.next() else {
        return bare;
    };
    if !"GPIJLNSERTM".contains(engine) {
        return bare;
    }
    let rest = &word[engine.len_utf8()..];
    let valid_pattern = |p: &str| !p.is_empty() && !p.trim_end_matches('\n').contains('\n');
    if "GPIJ".contains(engine) {
        let mut r = rest.chars();
        if let (Some(d), Some('@')) = (r.next(), r.next()) {
            let pattern = &rest[d.len_utf8() + 1..];
            if d != '\n' && valid_pattern(pattern) {
                return TargetWord {
                    engine: Some(engine),
                    delimiter: Some(d),
                    pattern,
                };
            }
        }
    }
    if let Some(pattern) = rest.strip_prefix('@') {
        if valid_pattern(pattern) {
            return TargetWord {
                engine: Some(engine),
                delimiter: None,
                pattern,
            };
        }
    }
    bare
}

/// `compound`: a string is split on whitespace; a list is taken word by word.
pub(crate) fn compound_match(tgt: &Value, minion: &Minion) -> MatchResult {
    let words: Vec<String> = match tgt {
        Value::Str(s) => s.split_whitespace().map(str::to_string).collect(),
        Value::List(l) => l.iter().map(Value::py_str).collect(),
        _ => return Ok(false),
    };
    compound_words(words, minion)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Val(bool),
    And,
    Or,
    Not,
    Open,
    Close,
}

fn compound_words(words: Vec<String>, minion: &Minion) -> MatchResult {
    let mut queue: std::collections::VecDeque<String> = words.into();
    let mut results: Vec<Tok> = Vec::new();
    // Nodegroup expansion cannot loop (nested groups are skipped), but keep
    // a bound anyway.
    let mut expansions = 0usize;
    while let Some(word) = queue.pop_front() {
        if OPERS.contains(&word.as_str()) {
            let tok = match word.as_str() {
                "and" => Tok::And,
                "or" => Tok::Or,
                "not" => Tok::Not,
                "(" => Tok::Open,
                _ => Tok::Close,
            };
            match results.last() {
                Some(last) => {
                    if *last == Tok::Open && matches!(tok, Tok::And | Tok::Or) {
                        return Ok(false);
                    }
                    if tok == Tok::Not && !matches!(last, Tok::And | Tok::Or | Tok::Open) {
                        results.push(Tok::And);
                    }
                    results.push(tok);
                }
                None => {
                    if !matches!(tok, Tok::Open | Tok::Not) {
                        return Ok(false);
                    }
                    results.push(tok);
                }
            }
            continue;
        }
        let target = parse_target(&word);
        let Some(engine) = target.engine else {
            results.push(Tok::Val(glob_match(&word, minion.id)));
            continue;
        };
        let delim_buf;
        let delim = match target.delimiter {
            Some(d) => {
                delim_buf = d.to_string();
                delim_buf.as_str()
            }
            None => DEFAULT_DELIM,
        };
        let pattern = target.pattern;
        let value = match engine {
            'N' => {
                expansions += 1;
                if expansions > 1000 {
                    return Ok(false);
                }
                if let Some(groups) = minion.nodegroups() {
                    let expanded = nodegroup_comp(pattern, groups);
                    for w in expanded.into_iter().rev() {
                        queue.push_front(w);
                    }
                }
                continue;
            }
            'G' => grain_match(pattern, delim, minion),
            'P' => grain_pcre_match(pattern, delim, minion),
            'I' => pillar_match(pattern, delim, minion),
            'J' => pillar_pcre_match(pattern, delim, minion),
            'L' => list_match(&Value::from(pattern), minion.id),
            'S' => ipcidr_match(pattern, minion),
            'E' => pcre_match(pattern, minion.id)?,
            'T' => resource_match(pattern, minion),
            'M' => pattern == minion.id,
            // 'R' (range) without seco.range, or anything else.
            _ => return Ok(false),
        };
        results.push(Tok::Val(value));
    }
    Ok(eval_tokens(&results).unwrap_or(false))
}

/// Evaluate the joined results the way Python's `eval` would; `None` is a
/// syntax error. `( )` is an empty tuple (falsy), as in Python.
fn eval_tokens(toks: &[Tok]) -> Option<bool> {
    let mut pos = 0;
    let v = eval_or(toks, &mut pos)?;
    (pos == toks.len()).then_some(v)
}

fn eval_or(t: &[Tok], pos: &mut usize) -> Option<bool> {
    let mut v = eval_and(t, pos)?;
    while t.get(*pos) == Some(&Tok::Or) {
        *pos += 1;
        let r = eval_and(t, pos)?;
        v = v || r;
    }
    Some(v)
}

fn eval_and(t: &[Tok], pos: &mut usize) -> Option<bool> {
    let mut v = eval_not(t, pos)?;
    while t.get(*pos) == Some(&Tok::And) {
        *pos += 1;
        let r = eval_not(t, pos)?;
        v = v && r;
    }
    Some(v)
}

fn eval_not(t: &[Tok], pos: &mut usize) -> Option<bool> {
    match t.get(*pos)? {
        Tok::Not => {
            *pos += 1;
            Some(!eval_not(t, pos)?)
        }
        Tok::Val(b) => {
            *pos += 1;
            Some(*b)
        }
        Tok::Open => {
            *pos += 1;
            if t.get(*pos) == Some(&Tok::Close) {
                *pos += 1;
                return Some(false);
            }
            let v = eval_or(t, pos)?;
            if t.get(*pos) != Some(&Tok::Close) {
                return None;
            }
            *pos += 1;
            Some(v)
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Nodegroups

/// `salt.utils.minions.nodegroup_comp`: expand nodegroup `name` into compound
/// words. Nested `N@` groups are expanded in parentheses; a group of plain
/// names becomes `L@a,b`, one with regex characters `E@a,b`; an unknown or
/// recursively nested group expands to nothing.
pub(crate) fn nodegroup_comp(name: &str, groups: &Value) -> Vec<String> {
    let mut skip = Vec::new();
    nodegroup_comp_inner(name, groups, &mut skip, true)
}

fn nodegroup_comp_inner(
    name: &str,
    groups: &Value,
    skip: &mut Vec<String>,
    first_call: bool,
) -> Vec<String> {
    if !first_call && skip.iter().any(|s| s == name) {
        return Vec::new();
    }
    let Some(lookup) = groups.get(name) else {
        return Vec::new();
    };
    let words: Vec<String> = match lookup {
        Value::Str(s) => s.split_whitespace().map(str::to_string).collect(),
        Value::List(l) => l.iter().map(Value::py_str).collect(),
        _ => return Vec::new(),
    };
    skip.push(name.to_string());
    let mut ret = Vec::new();
    let mut expanded = false;
    for word in &words {
        if OPERS.contains(&word.as_str()) {
            ret.push(word.clone());
        } else if word.chars().count() >= 3 && word.starts_with("N@") {
            expanded = true;
            ret.extend(nodegroup_comp_inner(&word[2..], groups, skip, false));
        } else {
            ret.push(word.clone());
        }
    }
    if !ret.is_empty() {
        ret.insert(0, "(".into());
        ret.push(")".into());
    }
    skip.retain(|s| s != name);
    if expanded || !first_call {
        if !first_call {
            if let Some(joined) = nodegroup_regex(&words) {
                return vec![joined];
            }
        }
        ret
    } else {
        nodegroup_regex(&words).map_or(words, |j| vec![j])
    }
}

/// `_nodegroup_regex`: a group with no operators, no `*` and no `X@` words
/// is a list of ids (`L@...`), or a regex (`E@...`) if a word has regex chars.
fn nodegroup_regex(words: &[String]) -> Option<String> {
    if words.iter().any(|w| OPERS.contains(&w.as_str())) {
        return None;
    }
    let typed = |w: &str| {
        let mut c = w.chars();
        matches!((c.next(), c.next()), (Some(a), Some('@')) if a.is_ascii_uppercase())
    };
    if words.iter().any(|w| w.contains('*') || typed(w)) {
        return None;
    }
    let regex_chars = ['(', '[', '{', '\\', '?', '}', ']', ')'];
    let joined = words.join(",");
    if words.iter().any(|w| w.contains(regex_chars)) {
        Some(format!("E@{joined}"))
    } else {
        Some(format!("L@{joined}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;

    fn v(j: serde_json::Value) -> Value {
        Value::from_json(&j)
    }

    struct Fx {
        grains: Value,
        pillar: Value,
        opts: Value,
    }

    impl Fx {
        fn new() -> Fx {
            Fx {
                grains: v(serde_json::json!({
                    "id": "web01",
                    "os": "Debian",
                    "os_family": "Debian",
                    "kernel": "Linux",
                    "osmajorrelease": 12,
                    "roles": ["web", "cache"],
                    "site": {"dc": {"name": "east"}},
                    "virtual": true,
                    "ipv4": ["127.0.0.1", "10.1.2.3"],
                    "ipv6": ["::1", "fe80::1"],
                    "disks": [{"name": "sda"}, {"name": "sdb"}],
                    "url": "http://x",
                })),
                pillar: v(serde_json::json!({
                    "role": "frontend",
                    "app": {"tier": "web"},
                    "tags": ["red", "blue"],
                    "nums": {"2": "two-str"},
                })),
                opts: v(serde_json::json!({
                    "nodegroups": {
                        "webs": "web*",
                        "ids": ["db01", "web01"],
                        "nested": "N@webs and G@os:Debian",
                        "nomatch": "L@db01,db02",
                        "loop": "N@loop",
                        "rx": "web0[0-9]",
                    },
                    "resources": {"ssh": ["host1"], "dummy": ["d1"]},
                })),
            }
        }
        fn minion(&self) -> Minion<'_> {
            Minion {
                id: "web01",
                grains: &self.grains,
                pillar: &self.pillar,
                opts: &self.opts,
            }
        }
    }

    fn m(kind: &str, tgt: &str) -> bool {
        let fx = Fx::new();
        matches(kind, &Value::from(tgt), &fx.minion()).unwrap()
    }

    #[test]
    fn glob() {
        assert!(m("glob", "*"));
        assert!(m("glob", "web0?"));
        assert!(m("glob", "web[0-9]1"));
        assert!(!m("glob", "web[!0]*"));
        assert!(!m("glob", "WEB01"));
        assert!(!m("glob", "db*"));
        let fx = Fx::new();
        assert!(!matches("glob", &Value::Int(1), &fx.minion()).unwrap());
    }

    #[test]
    fn pcre_anchored_at_start_only() {
        assert!(m("pcre", "web"));
        assert!(m("pcre", r"^web\d+$"));
        assert!(!m("pcre", "eb01"));
        assert!(m("pcre", "web.*|db.*"));
        assert!(m("pcre", r"web01\Z"));
        assert!(!m("pcre", r"web0\Z"));
        assert!(m("pcre", "(?i)WEB"));
        assert!(m("pcre", "w{1}eb"));
        assert!(!m("pcre", "w{eb"));
        let fx = Fx::new();
        let err = matches("pcre", &Value::from("web("), &fx.minion());
        assert!(matches!(err, Err(MatchError::BadRegex { .. })));
    }

    #[test]
    fn python_regex_literals() {
        assert!(py_re_match("a{", "a{").unwrap());
        assert!(py_re_match("a{x}", "a{x}").unwrap());
        assert!(py_re_match("[[]x", "[x").unwrap());
        assert!(py_re_match("[]a]+", "]a]").unwrap());
        assert!(py_re_match("a{2,}", "aa").unwrap());
        assert!(!py_re_match("a{2,}", "a").unwrap());
        assert!(py_re_match("[a&&b]", "&").unwrap());
        assert!(py_re_match("xa{,2}y", "xaay").unwrap());
    }

    #[test]
    fn list() {
        assert!(m("list", "db01,web01"));
        assert!(m("list", "web01,db01"));
        assert!(m("list", "a,web01,b"));
        assert!(!m("list", "db01,web011"));
        assert!(m("list", "web01"));
        assert!(!m("list", "web0"));
        let fx = Fx::new();
        let l = v(serde_json::json!(["db01", "web01"]));
        assert!(matches("list", &l, &fx.minion()).unwrap());
        assert!(!matches("list", &Value::Int(3), &fx.minion()).unwrap());
    }

    #[test]
    fn grain() {
        assert!(m("grain", "os:Debian"));
        assert!(m("grain", "os:debian"), "values compare lower-cased");
        assert!(m("grain", "roles:web"));
        assert!(m("grain", "roles:cache"));
        assert!(!m("grain", "roles:db"));
        assert!(m("grain", "os_family:Deb*"));
        assert!(m("grain", "site:dc:name:east"));
        assert!(m("grain", "site:dc:name:*"));
        assert!(m("grain", "site:dc"), "a key of a dict grain");
        assert!(!m("grain", "os:RedHat"));
        assert!(m("grain", "osmajorrelease:12"));
        assert!(m("grain", "virtual:True"));
        assert!(m("grain", "virtual:true"));
        assert!(!m("grain", "os"), "no delimiter");
        assert!(!m("grain", "nosuch:x"));
        assert!(
            m("grain", "url:http://x"),
            "the value may hold the delimiter"
        );
        assert!(m("grain", "disks:name:sdb"), "dicts inside lists");
        assert!(m("grain", "disks:1:name:sdb"), "numeric list index");
        assert!(m("grain", "*:Debian"), "wildcard over top-level values");
        assert!(!m("grain", "OS:Debian"), "keys are case-sensitive");
    }

    #[test]
    fn grain_pcre() {
        assert!(m("grain_pcre", "os:^Deb"));
        assert!(m("grain_pcre", "os:D.*n"));
        assert!(!m("grain_pcre", "os:ebian"));
        assert!(m("grain_pcre", "roles:c.*"));
        assert!(!m("grain_pcre", "os:("), "invalid regex is no match");
    }

    #[test]
    fn pillar_engines() {
        assert!(m("pillar", "role:frontend"));
        assert!(m("pillar", "role:front*"));
        assert!(m("pillar", "app:tier:web"));
        assert!(m("pillar", "tags:red"));
        assert!(!m("pillar", "role:backend"));
        assert!(m("pillar_pcre", "role:^front"));
        assert!(!m("pillar_pcre", "role:^back"));
        assert!(!m("pillar_exact", "role:front*"));
        assert!(m("pillar_exact", "role:frontend"));
        assert!(m("pillar_exact", "tags:blue"));
        assert!(m("pillar", "nums:2:two-str"));
    }

    #[test]
    fn numeric_keys_via_yamlify() {
        let data = v(serde_json::json!({"a": {"x": 1}}));
        let mut inner = Map::new();
        inner.insert(Value::Int(5), Value::from("five"));
        let mut outer = Map::new();
        outer.insert(Value::from("n"), Value::Map(inner));
        let data2 = Value::Map(outer);
        assert_eq!(
            traverse_dict_and_list(&data2, "n:5", ":"),
            Some(&Value::from("five"))
        );
        assert_eq!(traverse_dict_and_list(&data2, "n:6", ":"), None);
        assert_eq!(
            traverse_dict_and_list(&data, "a:x", ":"),
            Some(&Value::Int(1))
        );
        assert_eq!(
            traverse_dict_and_list(&data, "a|x", "|"),
            Some(&Value::Int(1))
        );
        let l = v(serde_json::json!({"l": ["a", "b"]}));
        assert_eq!(
            traverse_dict_and_list(&l, "l:-1", ":"),
            Some(&Value::from("b"))
        );
        assert_eq!(traverse_dict_and_list(&l, "l:2", ":"), None);
    }

    #[test]
    fn key_parts_load_as_salts_yaml_loader_types_them() {
        let mut m = Map::new();
        m.insert(Value::Int(12), Value::from("twelve"));
        m.insert(Value::Int(-10), Value::from("octal"));
        m.insert(Value::Int(90), Value::from("sexagesimal"));
        m.insert(Value::Float(f64::INFINITY), Value::from("inf"));
        m.insert(Value::Float(150000.0), Value::from("float"));
        let d = Value::Map(m);
        let get = |k: &str| traverse_dict_and_list(&d, k, ":");
        // Salt's loader strips leading zeros of unsigned ints only.
        assert_eq!(get("012"), Some(&Value::from("twelve")));
        assert_eq!(get("-012"), Some(&Value::from("octal")));
        assert_eq!(
            traverse_dict_and_list(&d, "1:30", "|"),
            Some(&Value::from("sexagesimal"))
        );
        assert_eq!(get(".inf"), Some(&Value::from("inf")));
        // YAML 1.1 floats need a dot and a signed exponent.
        assert_eq!(get("1.5e5"), None);
        assert_eq!(get("1.5e+5"), Some(&Value::from("float")));
    }

    #[test]
    fn ipcidr() {
        assert!(m("ipcidr", "10.1.2.3"));
        assert!(m("ipcidr", "10.0.0.0/8"));
        assert!(m("ipcidr", "10.1.2.0/255.255.255.0"));
        assert!(!m("ipcidr", "192.168.0.0/16"));
        assert!(!m("ipcidr", "10.1.2.3/8"), "host bits set: invalid");
        assert!(m("ipcidr", "fe80::/10"));
        assert!(m("ipcidr", "::1"));
        assert!(!m("ipcidr", "not-an-ip"));
    }

    #[test]
    fn data_and_range() {
        assert!(!m("data", "key:value"));
        assert!(!m("range", "%cluster"));
    }

    #[test]
    fn resource_and_managing_minion() {
        assert!(m("resource", "ssh:host1"));
        assert!(!m("resource", "ssh:host2"));
        assert!(m("resource", "dummy"));
        assert!(m("managing_minion", "web01"));
        assert!(!m("managing_minion", "web0"));
    }

    #[test]
    fn unknown_matcher() {
        let fx = Fx::new();
        assert_eq!(
            matches("bogus", &Value::from("x"), &fx.minion()),
            Err(MatchError::UnknownMatcher("bogus".into()))
        );
    }

    #[test]
    fn parse_target_forms() {
        let t = parse_target("G@os:Debian");
        assert_eq!(
            (t.engine, t.delimiter, t.pattern),
            (Some('G'), None, "os:Debian")
        );
        let t = parse_target("G|@os|Debian");
        assert_eq!(
            (t.engine, t.delimiter, t.pattern),
            (Some('G'), Some('|'), "os|Debian")
        );
        let t = parse_target("L|@a,b");
        assert_eq!((t.engine, t.pattern), (None, "L|@a,b"));
        let t = parse_target("G@");
        assert_eq!(t.engine, None);
        let t = parse_target("X@foo");
        assert_eq!(t.engine, None);
        let t = parse_target("G@@x");
        assert_eq!(
            (t.engine, t.delimiter, t.pattern),
            (Some('G'), Some('@'), "x")
        );
    }

    #[test]
    fn compound() {
        assert!(m("compound", "web*"));
        assert!(m("compound", "web* and G@kernel:Linux"));
        assert!(m("compound", "web* and not G@kernel:Windows"));
        assert!(m("compound", "db* or G@os:Debian"));
        assert!(m("compound", "( db* or web* ) and G@os_family:Debian"));
        assert!(!m("compound", "not web*"));
        assert!(!m("compound", "web* and"), "malformed");
        assert!(!m("compound", "X@foo"), "unknown prefix is an id glob");
        assert!(m("compound", "db* or not G@os:RedHat"));
        assert!(m("compound", "web01 and L@web01,db01 and E@^w"));
        assert!(m("compound", "I@role:front*"));
        assert!(m("compound", "J@role:^fr"));
        assert!(m("compound", "P@os:D.*n"));
        assert!(m("compound", "S@10.0.0.0/8"));
        assert!(m("compound", "G|@site|dc|name|east"));
        assert!(!m("compound", "R@%foo"), "range engine unavailable");
        assert!(
            !m("compound", "R@%foo or web*"),
            "unavailable engine fails all"
        );
        assert!(!m("compound", "and web*"), "leading and");
        assert!(!m("compound", "( and web* )"));
        assert!(m("compound", "web* not db*"), "implicit and before not");
        assert!(!m("compound", "web* db*"), "two values: syntax error");
        assert!(!m("compound", ""));
        assert!(!m("compound", "( )"), "empty tuple is falsy");
        assert!(m("compound", "not ( )"));
        assert!(
            !m("compound", "not not web*"),
            "Salt inserts `and`: not and not"
        );
        assert!(!m("compound", "( web*"));
        assert!(m("compound", "T@ssh:host1 and M@web01"));
        assert!(
            m("compound", "db* or web* and G@os:Debian"),
            "and binds tighter"
        );
        assert!(!m("compound", "( db* or web* ) and G@os:RedHat"));
        let fx = Fx::new();
        let err = compound_match(&Value::from("E@web("), &fx.minion());
        assert!(err.is_err());
        assert!(!compound_match(&Value::Int(1), &fx.minion()).unwrap());
    }

    #[test]
    fn nodegroups() {
        let fx = Fx::new();
        let g = fx.opts.get("nodegroups").unwrap();
        assert_eq!(nodegroup_comp("webs", g), vec!["web*"]);
        assert_eq!(nodegroup_comp("ids", g), vec!["L@db01,web01"]);
        assert_eq!(nodegroup_comp("rx", g), vec!["E@web0[0-9]"]);
        assert_eq!(
            nodegroup_comp("nested", g),
            vec!["(", "(", "web*", ")", "and", "G@os:Debian", ")"]
        );
        assert_eq!(nodegroup_comp("loop", g), Vec::<String>::new());
        assert_eq!(nodegroup_comp("missing", g), Vec::<String>::new());
        assert!(m("nodegroup", "webs"));
        assert!(m("nodegroup", "ids"));
        assert!(m("nodegroup", "nested"));
        assert!(m("nodegroup", "rx"));
        assert!(!m("nodegroup", "nomatch"));
        assert!(!m("nodegroup", "missing"));
        assert!(!m("nodegroup", "loop"));
        assert!(m("compound", "N@webs"));
        assert!(m("compound", "N@nested and web01"));
        assert!(!m("compound", "N@missing"), "vanishes: empty expression");
        assert!(!m("compound", "web* and N@missing"));
        assert!(!m("compound", "N@nomatch"));
    }

    #[test]
    fn confirm_top_uses_last_match_dict() {
        let fx = Fx::new();
        let items = v(serde_json::json!([{"match": "pcre"}, "x", {"match": "grain"}]));
        let items = items.as_list().unwrap();
        assert_eq!(matcher_name(items), Value::from("grain"));
        assert!(confirm_top(&Value::from("os:Debian"), items, &fx.minion()).unwrap());
        let items = v(serde_json::json!(["x"]));
        assert!(confirm_top(&Value::from("web*"), items.as_list().unwrap(), &fx.minion()).unwrap());
        let items = v(serde_json::json!([{"match": 3}]));
        assert!(confirm_top(&Value::from("web*"), items.as_list().unwrap(), &fx.minion()).is_err());
    }
}
