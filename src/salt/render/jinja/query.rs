//! Salt's `json_query` filter (`salt.utils.data.json_query`): a JMESPath
//! query over template data. The query runs on the `jmespath` crate, the
//! JMESPath project's own Rust implementation (it passes the
//! specification's compliance suite), so the language is the one
//! `jmespath.py` implements for Salt.
//!
//! One difference is mended here: the crate keeps objects in sorted maps,
//! while Python's dicts keep their insertion order. The mappings of a
//! result, and what `keys()`/`values()` return, are put back in Python's
//! order: the order a multiselect hash (`{n: name, port: port}`) names
//! them, else the order of the input mapping with the same keys, else the
//! order the keys first occur in the input. And `sum()` of integers is an
//! integer, as Python's `sum` makes it.

use super::convert::to_jinja;
use super::salt::py_error;
use crate::value::Value;
use jmespath::functions::{ArgumentType, CustomFunction, Signature};
use jmespath::{Rcvar, Runtime, Variable};
use minijinja::value::Value as MjValue;
use minijinja::{Environment, Error};
use std::sync::Arc;

/// Register `json_query`.
pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_filter("json_query", json_query);
}

/// The key orders of the input's mappings, in document order.
#[derive(Debug, Default)]
struct KeyOrders {
    /// Each mapping's keys, as it had them.
    maps: Vec<Vec<String>>,
    /// Every key, at its first occurrence.
    first: Vec<String>,
    /// The query text (multiselect hashes name their keys there).
    expr: String,
}

impl KeyOrders {
    fn collect(v: &serde_json::Value, out: &mut KeyOrders) {
        match v {
            serde_json::Value::Object(m) => {
                let keys: Vec<String> = m.keys().cloned().collect();
                for k in &keys {
                    if !out.first.contains(k) {
                        out.first.push(k.clone());
                    }
                }
                out.maps.push(keys);
                for v in m.values() {
                    KeyOrders::collect(v, out);
                }
            }
            serde_json::Value::Array(l) => {
                for v in l {
                    KeyOrders::collect(v, out);
                }
            }
            _ => {}
        }
    }

    /// `keys` in the order Python would have them (see the module doc).
    fn order(&self, keys: &[String]) -> Vec<String> {
        let in_expr: Option<Vec<usize>> = keys.iter().map(|k| self.hash_key_position(k)).collect();
        if let Some(pos) = in_expr {
            let mut pairs: Vec<(usize, String)> =
                pos.into_iter().zip(keys.iter().cloned()).collect();
            pairs.sort();
            return pairs.into_iter().map(|(_, k)| k).collect();
        }
        let same_set =
            |m: &&Vec<String>| m.len() == keys.len() && keys.iter().all(|k| m.contains(k));
        if let Some(m) = self.maps.iter().find(same_set) {
            return m.clone();
        }
        let mut out = keys.to_vec();
        out.sort_by_key(|k| self.first.iter().position(|f| f == k).unwrap_or(usize::MAX));
        out
    }

    /// Where `key` is named as a multiselect hash key (`key:` or
    /// `"key":`) in the query.
    fn hash_key_position(&self, key: &str) -> Option<usize> {
        let e = self.expr.as_str();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        for (i, _) in e.match_indices(key) {
            let before = e[..i].chars().next_back();
            let after = &e[i + key.len()..];
            let quoted = before == Some('"') && after.starts_with('"');
            let rest = if quoted { &after[1..] } else { after };
            let bare_ok = !before.is_some_and(ident) && !rest.starts_with(ident);
            if (quoted || bare_ok) && rest.trim_start().starts_with(':') {
                return Some(i);
            }
        }
        None
    }

    /// `v` with every mapping's keys reordered.
    fn reorder(&self, v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(mut m) => {
                let keys: Vec<String> = m.keys().cloned().collect();
                let mut out = serde_json::Map::new();
                for k in self.order(&keys) {
                    if let Some(v) = m.remove(&k) {
                        out.insert(k, self.reorder(v));
                    }
                }
                serde_json::Value::Object(out)
            }
            serde_json::Value::Array(l) => {
                serde_json::Value::Array(l.into_iter().map(|v| self.reorder(v)).collect())
            }
            other => other,
        }
    }
}

/// `keys()` / `values()` of an object, its keys in the data's order.
fn ordered_fn(orders: Arc<KeyOrders>, values: bool) -> CustomFunction {
    CustomFunction::new(
        Signature::new(vec![ArgumentType::Object], None),
        Box::new(move |args: &[Rcvar], _ctx| {
            let obj = args[0].as_object().cloned().unwrap_or_default();
            let keys: Vec<String> = obj.keys().cloned().collect();
            let items = orders
                .order(&keys)
                .into_iter()
                .map(|k| {
                    if values {
                        obj.get(&k)
                            .cloned()
                            .unwrap_or_else(|| Rcvar::new(Variable::Null))
                    } else {
                        Rcvar::new(Variable::String(k))
                    }
                })
                .collect();
            Ok(Rcvar::new(Variable::Array(items)))
        }),
    )
}

/// `sum()` as Python's `sum`: integers add up to an integer (the crate
/// sums in floats).
fn python_sum() -> CustomFunction {
    CustomFunction::new(
        Signature::new(
            vec![ArgumentType::TypedArray(Box::new(ArgumentType::Number))],
            None,
        ),
        Box::new(|args: &[Rcvar], _ctx| {
            let items = args[0].as_array().cloned().unwrap_or_default();
            let ints: Option<Vec<i64>> = items
                .iter()
                .map(|v| match &**v {
                    Variable::Number(n) => n.as_i64(),
                    _ => None,
                })
                .collect();
            let n = match ints.and_then(|l| l.into_iter().try_fold(0i64, i64::checked_add)) {
                Some(i) => serde_json::Number::from(i),
                None => {
                    let f: f64 = items.iter().filter_map(|v| v.as_number()).sum();
                    serde_json::Number::from_f64(f).unwrap_or_else(|| serde_json::Number::from(0))
                }
            };
            Ok(Rcvar::new(Variable::Number(n)))
        }),
    )
}

/// `json_query(data, expr)`: `jmespath.search(expr, data)`.
fn json_query(data: MjValue, expr: String) -> Result<MjValue, Error> {
    let json = serde_json::to_value(&data)
        .map_err(|e| py_error(format!("json_query: the data is not JSON-like: {e}")))?;
    let mut orders = KeyOrders {
        expr: expr.clone(),
        ..KeyOrders::default()
    };
    KeyOrders::collect(&json, &mut orders);
    let orders = Arc::new(orders);
    let mut runtime = Runtime::new();
    runtime.register_builtin_functions();
    runtime.register_function("keys", Box::new(ordered_fn(orders.clone(), false)));
    runtime.register_function("values", Box::new(ordered_fn(orders.clone(), true)));
    runtime.register_function("sum", Box::new(python_sum()));
    let compiled = runtime
        .compile(&expr)
        .map_err(|e| py_error(format!("Invalid jmespath expression: {}", e.reason)))?;
    let input = Variable::from_serializable(&json)
        .map_err(|e| py_error(format!("json_query: {}", e.reason)))?;
    let found = compiled
        .search(input)
        .map_err(|e| py_error(format!("jmespath: {}", e.reason)))?;
    let out = serde_json::to_value(&*found).map_err(|e| py_error(format!("json_query: {e}")))?;
    Ok(to_jinja(&Value::from_json(&orders.reorder(out))))
}

#[cfg(test)]
mod tests {
    use super::super::tests::r as render_str;

    #[test]
    fn queries_follow_jmespath_and_keep_pythons_key_order() {
        assert_eq!(render_str("{{ {'a': {'c': 2}} | json_query('a.c') }}"), "2");
        assert_eq!(
            render_str("{{ {'s': [{'p': 80}, {'p': 25}]} | json_query('s[].p') }}"),
            "[80, 25]"
        );
        assert_eq!(
            render_str("{{ {'z': {'b': 1, 'a': 2}} | json_query('z') }}"),
            "{'b': 1, 'a': 2}"
        );
        assert_eq!(
            render_str("{{ {'z': {'b': 1, 'a': 2}} | json_query('keys(z)') }}"),
            "['b', 'a']"
        );
        assert_eq!(
            render_str("{{ {'s': [{'p': 80, 'n': 'h'}]} | json_query('s[].{n: n, p: p}') }}"),
            "[{'n': 'h', 'p': 80}]"
        );
        assert_eq!(render_str("{{ {'a': 1} | json_query('nope') }}"), "None");
        assert_eq!(render_str("{{ [1, 2] | json_query('sum(@)') }}"), "3");
        assert_eq!(render_str("{{ [1, 2.5] | json_query('sum(@)') }}"), "3.5");
        assert_eq!(render_str("{{ [1, 3] | json_query('avg(@)') }}"), "2.0");
    }
}
