//! Python 3's ordering of template values, for the sorts Jinja2 and Salt
//! run through Python (`sort`, `dictsort`, `list.sort()`): numbers compare
//! with numbers, strings with strings, lists and tuples item by item; any
//! other pair (`1 < 'a'`, `None < None`, two dicts) raises
//! `TypeError: '<' not supported between instances of 'str' and 'int'`.
//! minijinja orders values of different kinds instead of failing.
//!
//! Which pair Python names depends on which comparison its sort makes
//! first, so [`sort_keyed`] makes CPython's comparisons in CPython's
//! order for lists under 64 items (one run: `count_run` then a binary
//! insertion sort); a longer list may name another incomparable pair.

use std::cmp::Ordering;

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

use super::print::py_type_name;

/// The `TypeError` Python raises for `a < b`.
fn not_supported(a: &Value, b: &Value) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "'<' not supported between instances of '{}' and '{}'",
            py_type_name(a),
            py_type_name(b)
        ),
    )
}

/// Python's `a < b`, or its `TypeError`.
pub(crate) fn py_lt(a: &Value, b: &Value) -> Result<bool, Error> {
    Ok(py_cmp(a, b)? == Ordering::Less)
}

/// Python's ordering of `a` and `b` as `<` (and `==` within sequences)
/// sees it.
fn py_cmp(a: &Value, b: &Value) -> Result<Ordering, Error> {
    let number = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    match (a.kind(), b.kind()) {
        _ if number(a) && number(b) => {
            if !number_is_float(a) && !number_is_float(b) {
                if let (Ok(x), Ok(y)) = (i128::try_from(a.clone()), i128::try_from(b.clone())) {
                    return Ok(x.cmp(&y));
                }
            }
            Ok(as_f64(a).partial_cmp(&as_f64(b)).unwrap_or(Ordering::Equal))
        }
        (ValueKind::String, ValueKind::String) => {
            Ok(a.as_str().unwrap_or("").cmp(b.as_str().unwrap_or("")))
        }
        (ValueKind::Seq, ValueKind::Seq) if a.is_tuple() == b.is_tuple() => {
            let (xs, ys): (Vec<Value>, Vec<Value>) =
                (a.try_iter()?.collect(), b.try_iter()?.collect());
            for (x, y) in xs.iter().zip(&ys) {
                // Python finds the first unequal pair with `==` (any two
                // values), then orders that pair with `<`.
                if x == y {
                    continue;
                }
                return py_cmp(x, y);
            }
            Ok(xs.len().cmp(&ys.len()))
        }
        _ => Err(not_supported(a, b)),
    }
}

fn number_is_float(v: &Value) -> bool {
    v.kind() == ValueKind::Number && !v.is_integer()
}

fn as_f64(v: &Value) -> f64 {
    if v.kind() == ValueKind::Bool {
        return if v.is_true() { 1.0 } else { 0.0 };
    }
    f64::try_from(v.clone()).unwrap_or(0.0)
}

/// Python's `TypeError` if `sorted(keys, reverse=...)` would raise one
/// (the sort itself is left to minijinja, which orders what Python can
/// order the same way).
pub(crate) fn check_sort(
    keys: impl IntoIterator<Item = Value>,
    reverse: bool,
) -> Result<(), Error> {
    sort_keyed(
        keys.into_iter().map(|k| (k, Value::from(()))).collect(),
        reverse,
    )
    .map(drop)
}

/// `sorted(items, key=..., reverse=...)` where each item comes with its
/// key: the items in Python's order, or Python's `TypeError`.
pub(crate) fn sort_keyed(
    mut items: Vec<(Value, Value)>,
    reverse: bool,
) -> Result<Vec<Value>, Error> {
    // CPython reverses, sorts stably, and reverses again.
    if reverse {
        items.reverse();
    }
    run_then_insert(&mut items)?;
    if reverse {
        items.reverse();
    }
    Ok(items.into_iter().map(|(_, v)| v).collect())
}

/// Lists this long or longer are sorted by merging (CPython merges runs
/// too); shorter ones by CPython's own steps.
const MERGE_FROM: usize = 64;

/// CPython's `list.sort` on fewer than 64 items: the leading run
/// (`count_run`, a strictly descending run reversed), then binary
/// insertion of the rest, comparing `later < earlier` as CPython does.
/// Longer lists get the same stable order from Rust's stable merge sort
/// (binary insertion would move items quadratically often); CPython
/// merges runs of 32 to 64 items, so an incomparable pair may be met in
/// another order there.
fn run_then_insert(items: &mut [(Value, Value)]) -> Result<(), Error> {
    let n = items.len();
    if n < 2 {
        return Ok(());
    }
    if n >= MERGE_FROM {
        let mut first_error = None;
        items.sort_by(|a, b| {
            py_cmp(&a.0, &b.0).unwrap_or_else(|e| {
                first_error.get_or_insert(e);
                Ordering::Equal
            })
        });
        return first_error.map_or(Ok(()), Err);
    }
    let lt = |a: &(Value, Value), b: &(Value, Value)| py_lt(&a.0, &b.0);
    let mut run = 2;
    if lt(&items[1], &items[0])? {
        while run < n && lt(&items[run], &items[run - 1])? {
            run += 1;
        }
        items[..run].reverse();
    } else {
        while run < n && !lt(&items[run], &items[run - 1])? {
            run += 1;
        }
    }
    for start in run..n {
        let (mut l, mut r) = (0, start);
        while l < r {
            let p = l + ((r - l) >> 1);
            if lt(&items[start], &items[p])? {
                r = p;
            } else {
                l = p + 1;
            }
        }
        items[l..=start].rotate_right(1);
    }
    Ok(())
}

/// The sort key Jinja2's `sort` filter makes of `item`: the item or the
/// comma-separated dotted `attribute` paths (a list when more than one),
/// strings lowered unless `case_sensitive`. `None` when a path does not
/// resolve (minijinja's own sort then reports it).
pub(crate) fn sort_filter_key(
    item: &Value,
    attribute: Option<&str>,
    case_sensitive: bool,
) -> Option<Value> {
    let fold = |v: Value| match v.as_str() {
        Some(s) if !case_sensitive && v.kind() == ValueKind::String => {
            Value::from(s.to_lowercase())
        }
        _ => v,
    };
    let Some(attribute) = attribute else {
        return Some(fold(item.clone()));
    };
    let mut keys = Vec::new();
    for part in attribute.split(',') {
        let mut v = item.clone();
        for seg in part.split('.') {
            v = match seg.parse::<i64>() {
                Ok(i) => v.get_item(&Value::from(i)).ok()?,
                Err(_) => v.get_attr(seg).ok()?,
            };
            if v.is_undefined() {
                return None;
            }
        }
        keys.push(fold(v));
    }
    if keys.len() == 1 {
        keys.pop()
    } else {
        Some(Value::from(keys))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sort(v: Vec<Value>) -> Result<Vec<Value>, String> {
        sort_keyed(v.into_iter().map(|x| (x.clone(), x)).collect(), false)
            .map_err(|e| e.detail().unwrap_or_default().to_string())
    }

    #[test]
    fn python_order_and_errors() {
        assert_eq!(
            sort(vec![Value::from(3), Value::from(1.5), Value::from(2)]).unwrap(),
            vec![Value::from(1.5), Value::from(2), Value::from(3)]
        );
        assert_eq!(
            sort(vec![Value::from(1), Value::from("a")]).unwrap_err(),
            "'<' not supported between instances of 'str' and 'int'"
        );
        assert_eq!(
            sort(vec![Value::from(1), Value::from(())]).unwrap_err(),
            "'<' not supported between instances of 'NoneType' and 'int'"
        );
        let big: Vec<Value> = (0..100).rev().map(Value::from).collect();
        let sorted = sort(big).unwrap();
        assert_eq!(sorted[0], Value::from(0));
        assert_eq!(sorted[99], Value::from(99));
        // A long list: the merge path, stable, and still Python's error.
        let mut long: Vec<Value> = (0..100).map(|i| Value::from((i * 37) % 100)).collect();
        let sorted = sort(long.clone()).unwrap();
        let keyed = (0..100)
            .map(|i| (Value::from(i % 3), Value::from(i)))
            .collect();
        let stable = sort_keyed(keyed, false).unwrap();
        assert_eq!(
            stable[..3],
            [Value::from(0), Value::from(3), Value::from(6)]
        );
        assert_eq!(sorted, (0..100).map(Value::from).collect::<Vec<_>>());
        long.push(Value::from("a"));
        assert!(sort(long)
            .unwrap_err()
            .contains("not supported between instances"));
    }
}
