//! Where every merged value came from, dialect-neutral: the layers of a
//! merge (pillar SLS files, overrides, environment files, defaults), each
//! layer's leaves with their places, and per leaf of the final data the
//! winning layer, the layers it overrode (newest first, with how they
//! lost), the contributions of a combined value, and values that never
//! reached the result. Built by replaying what each layer wrote against
//! the merged result, so it follows whatever merge rules the front end
//! applied (spec `layered-inputs.md` §4.2–4.3). Renderers: human and JSON.

use crate::value::{Map, Value};

/// What one layer wrote: each leaf's path, place (`file:line:col`) and value.
pub type LayerWrites = Vec<(Vec<String>, Option<String>, Value)>;

/// One input of a merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// `pillar-sls`, `pillar-override`, `heat-env-parameters`, ...
    pub kind: String,
    /// A file path, or `cli:--pillar`.
    pub origin: String,
    /// The rule it was merged with (`recurse`, `overwrite`, ...).
    pub rule: String,
}

/// A value one layer wrote at one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// The layer's index (its rank in the merge order).
    pub layer: usize,
    /// `file:line:col`, when known.
    pub at: Option<String>,
    /// The value written.
    pub value: Value,
}

/// The story of one leaf of the final data.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// The keys from the root.
    pub path: Vec<String>,
    /// The final value.
    pub value: Value,
    /// The winning write, when one layer's value is the result.
    pub from: Option<Write>,
    /// Earlier writes it replaced, newest first, with how they lost.
    pub overrode: Vec<(Write, String)>,
    /// The writes a combined value was made of (merged lists, joined
    /// strings), in merge order, when no single layer wrote the result.
    pub contributions: Vec<Write>,
}

/// A value some layer wrote that is not in the result.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    /// Its path.
    pub path: Vec<String>,
    /// The write.
    pub write: Write,
    /// Why it is not in the result.
    pub reason: String,
}

/// The provenance of one merged document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Provenance {
    /// The layers, in merge order.
    pub layers: Vec<Layer>,
    /// The leaves of the result, in the result's order.
    pub leaves: Vec<Leaf>,
    /// Writes that did not reach the result.
    pub dropped: Vec<Dropped>,
    /// How paths are joined for people (`:` for pillar, `.` for Heat).
    pub separator: String,
}

/// A leaf for provenance: a scalar, an empty container, or a list (lists
/// are values of their own; merged lists show up as contributions).
fn is_leaf(v: &Value) -> bool {
    match v {
        Value::Map(m) => m.is_empty(),
        _ => true,
    }
}

/// Every leaf of `v` with its path.
pub fn leaves(v: &Value) -> Vec<(Vec<String>, Value)> {
    leaves_to(v, 0)
}

/// Every leaf of `v` with its path, a value `depth` keys down counting as
/// a leaf (0: no limit).
pub fn leaves_to(v: &Value, depth: usize) -> Vec<(Vec<String>, Value)> {
    let mut out = Vec::new();
    fn walk(v: &Value, depth: usize, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
        if is_leaf(v) || (depth > 0 && path.len() == depth) {
            out.push((path.clone(), v.clone()));
            return;
        }
        if let Value::Map(m) = v {
            for (k, x) in m.iter() {
                path.push(k.py_str());
                walk(x, depth, path, out);
                path.pop();
            }
        }
    }
    walk(v, depth, &mut Vec::new(), &mut out);
    out
}

fn type_word(v: &Value) -> &'static str {
    match v {
        Value::Map(_) => "map",
        Value::List(_) => "list",
        Value::Null => "null",
        _ => "scalar",
    }
}

fn lookup<'v>(root: &'v Value, path: &[String]) -> Option<&'v Value> {
    let mut v = root;
    for k in path {
        v = v.as_map()?.get(k.as_str())?;
    }
    Some(v)
}

impl Provenance {
    /// Replay `writes` (per layer, in merge order: every leaf it wrote with
    /// its place) against `result`.
    pub fn build(
        layers: Vec<Layer>,
        writes: Vec<LayerWrites>,
        result: &Value,
        separator: &str,
    ) -> Provenance {
        Provenance::build_with(layers, writes, result, separator, 0, &|a, b| a == b)
    }

    /// [`Provenance::build`] with leaves no deeper than `depth` keys (0: no
    /// limit; Heat's parameters are leaves whatever their type) and the
    /// dialect's idea of a written value being the result
    /// (`same(written, result)`: Heat's `-P count=10` is the number 10).
    pub fn build_with(
        layers: Vec<Layer>,
        writes: Vec<LayerWrites>,
        result: &Value,
        separator: &str,
        depth: usize,
        same: &dyn Fn(&Value, &Value) -> bool,
    ) -> Provenance {
        let mut by_path: indexmap::IndexMap<Vec<String>, Vec<Write>> = indexmap::IndexMap::new();
        for (layer, ws) in writes.into_iter().enumerate() {
            for (path, at, value) in ws {
                by_path
                    .entry(path)
                    .or_default()
                    .push(Write { layer, at, value });
            }
        }
        let mut out = Provenance {
            layers,
            separator: separator.to_string(),
            ..Provenance::default()
        };
        for (path, value) in leaves_to(result, depth) {
            let ws = by_path.get(&path).cloned().unwrap_or_default();
            let winner = ws.iter().rposition(|w| same(&w.value, &value));
            let mut leaf = Leaf {
                path: path.clone(),
                value: value.clone(),
                from: None,
                overrode: Vec::new(),
                contributions: Vec::new(),
            };
            match winner {
                Some(i) => {
                    leaf.from = Some(ws[i].clone());
                    for w in ws[..i].iter().rev() {
                        let how = if type_word(&w.value) != type_word(&value) {
                            format!("type changed {}→{}", type_word(&w.value), type_word(&value))
                        } else if same(&w.value, &value) {
                            "same value".to_string()
                        } else {
                            out.layers[ws[i].layer].rule.clone()
                        };
                        leaf.overrode.push((w.clone(), how));
                    }
                    // Later writes the merge did not take.
                    for w in &ws[i + 1..] {
                        out.dropped.push(Dropped {
                            path: path.clone(),
                            write: w.clone(),
                            reason: format!(
                                "not taken: the merge kept the earlier value ({})",
                                out.layers[w.layer].rule
                            ),
                        });
                    }
                }
                None => leaf.contributions = ws,
            }
            out.leaves.push(leaf);
        }
        // Writes whose path is not in the result, or under a value that
        // is no longer a map.
        for (path, ws) in &by_path {
            if let Some(now) = lookup(result, path) {
                if is_leaf(now) || (depth > 0 && path.len() >= depth) {
                    continue;
                }
                // A scalar (or empty map) where the result has a map.
                for w in ws.iter().filter(|w| is_leaf(&w.value)) {
                    out.dropped.push(Dropped {
                        path: path.clone(),
                        write: w.clone(),
                        reason: format!(
                            "type changed {}→map: a later layer put a map here",
                            type_word(&w.value)
                        ),
                    });
                }
                continue;
            }
            let reason = match (1..path.len())
                .rev()
                .find_map(|n| lookup(result, &path[..n]).map(|v| (n, v)))
            {
                Some((n, v)) if !matches!(v, Value::Map(_)) => format!(
                    "{} became a {} in a later layer",
                    path[..n].join(separator),
                    type_word(v)
                ),
                _ => "not in the result (a later layer replaced the key above it)".to_string(),
            };
            for w in ws {
                out.dropped.push(Dropped {
                    path: path.clone(),
                    write: w.clone(),
                    reason: reason.clone(),
                });
            }
        }
        out
    }

    /// Only the leaves (and dropped writes) at or under `path` (split on
    /// the separator).
    pub fn filter(mut self, path: &str) -> Provenance {
        let want: Vec<String> = path
            .split(self.separator.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let under = |p: &[String]| p.len() >= want.len() && p[..want.len()] == want[..];
        self.leaves.retain(|l| under(&l.path));
        self.dropped.retain(|d| under(&d.path));
        self
    }

    /// One warning per silent type change (`type changed a→b` in
    /// `overrode`, or a value dropped because a later layer changed the
    /// kind of value above or at it).
    pub fn type_change_warnings(&self) -> Vec<crate::diag::Diagnostic> {
        let sep = self.separator.as_str();
        let mut out = Vec::new();
        for l in &self.leaves {
            for (w, how) in &l.overrode {
                if how.starts_with("type changed") {
                    out.push(crate::diag::Diagnostic::new(
                        crate::diag::codes::LAYER_TYPE_CHANGE,
                        format!(
                            "{}: {how}: {} replaced what {} wrote",
                            l.path.join(sep),
                            l.from.as_ref().map(|f| self.origin(f)).unwrap_or_default(),
                            self.origin(w)
                        ),
                    ));
                }
            }
        }
        for d in &self.dropped {
            if d.reason.starts_with("type changed") || d.reason.contains(" became a ") {
                out.push(crate::diag::Diagnostic::new(
                    crate::diag::codes::LAYER_TYPE_CHANGE,
                    format!(
                        "{}: the value {} wrote is gone: {}",
                        d.path.join(sep),
                        self.origin(&d.write),
                        d.reason
                    ),
                ));
            }
        }
        out
    }

    fn origin(&self, w: &Write) -> String {
        let layer = &self.layers[w.layer];
        match &w.at {
            Some(at) => at.clone(),
            None => layer.origin.clone(),
        }
    }

    /// The human form: per leaf `path = value`, then `from`, `overrode`,
    /// `combined from`; dropped writes last. `show` gives the value to
    /// print for a path (the caller masks secrets there), printed as Python
    /// prints it.
    pub fn human(&self, show: &dyn Fn(&[String], &Value) -> Value) -> String {
        let show = |p: &[String], v: &Value| show(p, v).py_repr();
        let mut out = String::new();
        let sep = self.separator.as_str();
        let width = self
            .leaves
            .iter()
            .flat_map(|l| {
                l.from
                    .iter()
                    .chain(l.overrode.iter().map(|(w, _)| w))
                    .chain(l.contributions.iter())
            })
            .map(|w| self.origin(w).len())
            .max()
            .unwrap_or(0)
            .min(60);
        for l in &self.leaves {
            out.push_str(&format!(
                "{} = {}\n",
                l.path.join(sep),
                show(&l.path, &l.value)
            ));
            if let Some(w) = &l.from {
                let layer = &self.layers[w.layer];
                out.push_str(&format!(
                    "  from      {:<width$}  ({}, {})\n",
                    self.origin(w),
                    layer.kind,
                    layer.rule
                ));
            }
            for (i, (w, how)) in l.overrode.iter().enumerate() {
                out.push_str(&format!(
                    "  {:<9} {:<width$}  {}  ({how})\n",
                    if i == 0 { "overrode" } else { "" },
                    self.origin(w),
                    show(&l.path, &w.value)
                ));
            }
            for (i, w) in l.contributions.iter().enumerate() {
                out.push_str(&format!(
                    "  {:<9} {:<width$}  {}\n",
                    if i == 0 { "combined" } else { "" },
                    self.origin(w),
                    show(&l.path, &w.value)
                ));
            }
            if l.from.is_none() && l.contributions.is_empty() {
                out.push_str(
                    "  from      (no layer wrote this value as it is: made by the merge)\n",
                );
            }
        }
        for d in &self.dropped {
            out.push_str(&format!(
                "dropped {} = {}\n  from      {}  ({})\n",
                d.path.join(sep),
                show(&d.path, &d.write.value),
                self.origin(&d.write),
                d.reason
            ));
        }
        out
    }

    /// The JSON form: `{"layers": [...], "leaves": [...], "dropped": [...]}`.
    pub fn to_value(&self, show: &dyn Fn(&[String], &Value) -> Value) -> Value {
        let write = |w: &Write, path: &[String]| {
            let mut m = Map::new();
            m.insert("layer".into(), Value::Int(w.layer as i64));
            m.insert("origin".into(), Value::str(self.origin(w)));
            m.insert("value".into(), show(path, &w.value));
            Value::Map(m)
        };
        let layers = self
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| {
                crate::vmap! {
                    "rank" => i as i64,
                    "kind" => l.kind.as_str(),
                    "origin" => l.origin.as_str(),
                    "rule" => l.rule.as_str(),
                }
            })
            .collect();
        let leaves = self
            .leaves
            .iter()
            .map(|l| {
                let mut m = Map::new();
                m.insert("path".into(), Value::str(l.path.join(&self.separator)));
                m.insert("value".into(), show(&l.path, &l.value));
                m.insert(
                    "from".into(),
                    l.from
                        .as_ref()
                        .map(|w| write(w, &l.path))
                        .unwrap_or_default(),
                );
                m.insert(
                    "overrode".into(),
                    Value::List(
                        l.overrode
                            .iter()
                            .map(|(w, how)| {
                                let mut v = write(w, &l.path);
                                if let Some(m) = v.as_map_mut() {
                                    m.insert("how".into(), Value::str(how.as_str()));
                                }
                                v
                            })
                            .collect(),
                    ),
                );
                m.insert(
                    "contributions".into(),
                    Value::List(l.contributions.iter().map(|w| write(w, &l.path)).collect()),
                );
                Value::Map(m)
            })
            .collect();
        let dropped = self
            .dropped
            .iter()
            .map(|d| {
                let mut v = write(&d.write, &d.path);
                if let Some(m) = v.as_map_mut() {
                    m.insert("path".into(), Value::str(d.path.join(&self.separator)));
                    m.insert("reason".into(), Value::str(d.reason.as_str()));
                }
                v
            })
            .collect();
        crate::vmap! {
            "layers" => Value::List(layers),
            "leaves" => Value::List(leaves),
            "dropped" => Value::List(dropped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(yaml: &str) -> Value {
        crate::yaml::load_value(yaml, crate::yaml::Dialect::Salt).unwrap()
    }

    fn layer(origin: &str) -> Layer {
        Layer {
            kind: "pillar-sls".into(),
            origin: origin.into(),
            rule: "recurse".into(),
        }
    }

    #[test]
    fn the_last_equal_write_wins_and_earlier_ones_are_overridden() {
        let a = v("common: {x: 1, over: a, lst: [1, 2]}\nkeep: 1");
        let b = v("common: {over: b, lst: [2, 3]}");
        let result = v("common: {x: 1, over: b, lst: [2, 3]}\nkeep: 1");
        let writes = [a, b]
            .iter()
            .enumerate()
            .map(|(i, d)| {
                leaves(d)
                    .into_iter()
                    .map(|(p, x)| (p, Some(format!("f{i}.sls:1:1")), x))
                    .collect()
            })
            .collect();
        let p = Provenance::build(vec![layer("a.sls"), layer("b.sls")], writes, &result, ":");
        let over = p
            .leaves
            .iter()
            .find(|l| l.path == ["common", "over"])
            .unwrap();
        assert_eq!(over.from.as_ref().unwrap().layer, 1);
        assert_eq!(over.overrode.len(), 1);
        assert_eq!(over.overrode[0].1, "recurse");
        let human = p.clone().filter("common:over").human(&|_, v| v.clone());
        assert_eq!(
            human,
            "common:over = 'b'\n  from      f1.sls:1:1  (pillar-sls, recurse)\n  overrode  f0.sls:1:1  'a'  (recurse)\n"
        );
    }

    #[test]
    fn a_key_that_became_a_scalar_drops_what_was_under_it() {
        let a = v("k: {deep: 1}");
        let b = v("k: plain");
        let result = v("k: plain");
        let writes = vec![
            vec![(
                vec!["k".to_string(), "deep".to_string()],
                None,
                Value::Int(1),
            )],
            vec![(vec!["k".to_string()], None, Value::str("plain"))],
        ];
        let _ = (a, b);
        let p = Provenance::build(vec![layer("a"), layer("b")], writes, &result, ":");
        assert_eq!(p.dropped.len(), 1);
        assert_eq!(p.dropped[0].reason, "k became a scalar in a later layer");
    }
}
