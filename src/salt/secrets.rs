//! Secrets in the pillar: which paths the config names secret
//! (`lowstate_secret_pillar`, globs over colon-joined paths), and the
//! display masks: `<redacted>` for every leaf under a secret path, falsy
//! ones included (spec `layered-inputs.md` §4.4 rule 1), and Salt 3008's
//! own `pillar.items` mask (`**********` for truthy scalars, §1.5) unless
//! the user unmasks.

use crate::redact::mask_leaves;
use crate::value::{Map, Value};

/// Salt 3008's mask of a truthy pillar value.
pub const SALT_MASK: &str = "**********";

/// Whether `path` (or a path above it) matches one of `globs`.
pub fn is_secret(path: &[String], globs: &[String]) -> bool {
    (1..=path.len()).any(|n| {
        let joined = path[..n].join(":");
        globs.iter().any(|g| crate::fnmatch::fnmatch(&joined, g))
    })
}

fn salt_mask(v: &Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.iter().map(|(k, x)| (k.clone(), salt_mask(x))).collect()),
        Value::List(l) => Value::List(l.iter().map(salt_mask).collect()),
        other if other.truthy() => Value::str(SALT_MASK),
        other => other.clone(),
    }
}

/// The pillar as a person may see it: secret paths redacted always, the
/// rest masked as Salt masks `pillar.items` unless `unmask`. `_errors`
/// stays readable.
pub fn for_display(pillar: &Value, globs: &[String], unmask: bool) -> Value {
    fn walk(v: &Value, path: &mut Vec<String>, globs: &[String], unmask: bool) -> Value {
        let Value::Map(m) = v else {
            return show_leaf(path, v, globs, unmask);
        };
        let mut out = Map::new();
        for (k, x) in m.iter() {
            path.push(k.py_str());
            let shown = if path.len() == 1 && path[0] == "_errors" {
                x.clone()
            } else {
                walk(x, path, globs, unmask)
            };
            path.pop();
            out.insert(k.clone(), shown);
        }
        Value::Map(out)
    }
    walk(pillar, &mut Vec::new(), globs, unmask)
}

/// The text of every leaf at or under a secret path of `pillar` (for the
/// core redactor: these never reach a human output).
pub fn secret_values(pillar: &Value, globs: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if globs.is_empty() {
        return out;
    }
    fn all(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Map(m) => m.values().for_each(|x| all(x, out)),
            Value::List(l) => l.iter().for_each(|x| all(x, out)),
            Value::Null => {}
            other => out.push(other.py_str()),
        }
    }
    fn walk(v: &Value, path: &mut Vec<String>, globs: &[String], out: &mut Vec<String>) {
        if !path.is_empty() && is_secret(path, globs) {
            all(v, out);
            return;
        }
        if let Value::Map(m) = v {
            for (k, x) in m.iter() {
                path.push(k.py_str());
                walk(x, path, globs, out);
                path.pop();
            }
        }
    }
    walk(pillar, &mut Vec::new(), globs, &mut out);
    out
}

/// The argument values of states marked `no_log: True` (every string or
/// number under an argument other than `name`, requisites and Salt's own
/// keys): a human output does not print them.
pub fn no_log_values<'a>(chunks: impl Iterator<Item = &'a Map>) -> Vec<String> {
    let mut out = Vec::new();
    fn all(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Map(m) => m.values().for_each(|x| all(x, out)),
            Value::List(l) => l.iter().for_each(|x| all(x, out)),
            Value::Null | Value::Bool(_) => {}
            other => out.push(other.py_str()),
        }
    }
    for c in chunks {
        if !c.get("no_log").is_some_and(Value::truthy) {
            continue;
        }
        for (k, v) in crate::salt::low::chunk_args(c).iter() {
            if k.as_str() != Some("name") {
                all(v, &mut out);
            }
        }
    }
    out
}

/// [`no_log_values`] of high data (`ID → {module: [args]}`): known once the
/// tree rendered, so that the diagnostics of a compile failing later do
/// not print them either. States without a true `no_log` cost a scan only.
pub fn no_log_values_high(high: &Map) -> Vec<String> {
    use rayon::prelude::*;
    let is_no_log = |item: &Value| {
        item.as_map()
            .and_then(|m| m.get("no_log"))
            .is_some_and(Value::truthy)
    };
    // Each ID on its own, in parallel: every compile pays for this scan.
    let chunks: Vec<Map> = (0..high.len())
        .into_par_iter()
        .with_min_len(1024)
        .filter_map(|i| high.get_index(i)?.1.as_map())
        .flat_map_iter(|body| {
            body.iter().filter_map(|(module, args)| {
                let Value::List(items) = args else {
                    return None;
                };
                if module.as_str().is_some_and(|m| m.starts_with("__"))
                    || !items.iter().any(is_no_log)
                {
                    return None;
                }
                let mut chunk = Map::new();
                for (k, v) in items
                    .iter()
                    .filter_map(Value::as_map)
                    .flat_map(|m| m.iter())
                {
                    chunk.insert(k.clone(), v.clone());
                }
                Some(chunk)
            })
        })
        .collect();
    no_log_values(chunks.iter())
}

/// One leaf as a person may see it (for `--explain`).
pub fn show_leaf(path: &[String], v: &Value, globs: &[String], unmask: bool) -> Value {
    if is_secret(path, globs) {
        mask_leaves(v)
    } else if unmask {
        v.clone()
    } else {
        salt_mask(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::REDACTED;

    #[test]
    fn secret_paths_are_redacted_falsy_values_too_and_the_rest_masked_like_salt() {
        let p = crate::yaml::load_value(
            "db: {password: '', user: app, port: 0}\nsecrets: {api: {key: k1}}\n_errors: [boom]",
            crate::yaml::Dialect::Salt,
        )
        .unwrap();
        let globs = vec!["*:password".to_string(), "secrets".to_string()];
        let shown = for_display(&p, &globs, false);
        assert_eq!(
            shown.to_json().to_string(),
            r#"{"db":{"password":"<redacted>","user":"**********","port":0},"secrets":{"api":{"key":"<redacted>"}},"_errors":["boom"]}"#
        );
        let shown = for_display(&p, &globs, true);
        assert_eq!(
            shown.get("db").unwrap().get("user").unwrap(),
            &Value::str("app")
        );
        assert_eq!(
            shown.get("db").unwrap().get("password").unwrap(),
            &Value::str(REDACTED)
        );
    }
}
