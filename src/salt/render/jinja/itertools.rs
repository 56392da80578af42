//! Python's `itertools` as Salt 3008.5 passes them through as Jinja
//! filters (`combinations`, `combinations_with_replacement`, `compress`,
//! `permutations`, `product`, `zip_longest`; `zip` is minijinja's). Each
//! gives a one-shot iterator of tuples, computed as it is read, in the
//! order Python yields them.

use super::py::int_arg;
use super::salt::{bind, py_error};
use minijinja::value::{Kwargs, Rest, Tuple, Value as MjValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind};

/// Register the filters of this module.
pub(super) fn register(env: &mut Environment<'static>) {
    env.add_filter("combinations", |v: MjValue, r: Option<MjValue>| {
        let pool = items(&v)?;
        let r =
            r.ok_or_else(|| py_error("combinations() missing required argument 'r' (pos 2)"))?;
        let r = count(&r)?;
        Ok(iterator(pool, r, Combinations::Without))
    });
    env.add_filter(
        "combinations_with_replacement",
        |v: MjValue, r: Option<MjValue>| {
            let pool = items(&v)?;
            let r = r.ok_or_else(|| {
                py_error("combinations_with_replacement() missing required argument 'r' (pos 2)")
            })?;
            let r = count(&r)?;
            Ok(iterator(pool, r, Combinations::With))
        },
    );
    env.add_filter("permutations", |v: MjValue, r: Option<MjValue>| {
        let pool = items(&v)?;
        let r = match r.filter(|r| !r.is_none()) {
            Some(r) => count(&r)?,
            None => pool.len(),
        };
        Ok(permutations(pool, r))
    });
    env.add_filter(
        "product",
        |v: MjValue, rest: Rest<MjValue>, kwargs: Kwargs| -> Result<MjValue, Error> {
            let repeat = match kwargs.get::<Option<MjValue>>("repeat")? {
                Some(r) => count(&r)?,
                None => 1,
            };
            kwargs.assert_all_used()?;
            let mut pools = vec![items(&v)?];
            for p in rest.iter() {
                pools.push(items(p)?);
            }
            Ok(product(pools, repeat))
        },
    );
    env.add_filter(
        "zip_longest",
        |v: MjValue, rest: Rest<MjValue>, kwargs: Kwargs| -> Result<MjValue, Error> {
            let fill = kwargs
                .get::<Option<MjValue>>("fillvalue")?
                .unwrap_or(MjValue::from(()));
            kwargs.assert_all_used()?;
            let mut columns = vec![items(&v)?];
            for p in rest.iter() {
                columns.push(items(p)?);
            }
            let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
            Ok(MjValue::make_one_shot_iterator((0..rows).map(move |i| {
                tuple(
                    columns
                        .iter()
                        .map(|c| c.get(i).cloned().unwrap_or(fill.clone())),
                )
            })))
        },
    );
    env.add_filter(
        "compress",
        |args: Rest<MjValue>| -> Result<MjValue, Error> {
            let a = bind("compress", "data, selectors", &args)?;
            let data = items(a.raw("data").unwrap_or(&MjValue::UNDEFINED))?;
            let selectors = items(a.raw("selectors").unwrap_or(&MjValue::UNDEFINED))?;
            Ok(MjValue::make_one_shot_iterator(
                data.into_iter()
                    .zip(selectors)
                    .filter_map(|(d, s)| s.is_true().then_some(d)),
            ))
        },
    );
}

/// The items of an iterable (a string's characters, a dict's keys), as
/// `iter()` reads them.
fn items(v: &MjValue) -> Result<Vec<MjValue>, Error> {
    let not_iterable = || {
        py_error(format!(
            "'{}' object is not iterable",
            super::py::print::py_type_name(v)
        ))
    };
    if v.is_none() || matches!(v.kind(), ValueKind::Number | ValueKind::Bool) {
        return Err(not_iterable());
    }
    match v.try_iter() {
        Ok(it) => Ok(it.collect()),
        Err(e) if e.kind() == ErrorKind::UndefinedError => Err(e),
        Err(_) => Err(not_iterable()),
    }
}

/// A non-negative `r`.
fn count(r: &MjValue) -> Result<usize, Error> {
    let n = int_arg(r)?;
    usize::try_from(n).map_err(|_| py_error("r must be non-negative"))
}

fn tuple(items: impl Iterator<Item = MjValue>) -> MjValue {
    MjValue::from_object(Tuple::new(items.collect()))
}

/// With or without repeated items.
#[derive(Clone, Copy)]
enum Combinations {
    Without,
    With,
}

/// `combinations`/`combinations_with_replacement`: index tuples in
/// lexicographic order.
fn iterator(pool: Vec<MjValue>, r: usize, kind: Combinations) -> MjValue {
    let n = pool.len();
    let mut indices: Option<Vec<usize>> = match kind {
        Combinations::Without if r <= n => Some((0..r).collect()),
        Combinations::With if n > 0 || r == 0 => Some(vec![0; r]),
        _ => None,
    };
    MjValue::make_one_shot_iterator(std::iter::from_fn(move || {
        let current = indices.clone()?;
        let out = tuple(current.iter().map(|&i| pool[i].clone()));
        // The next index tuple, if any.
        let last = |i: usize| match kind {
            Combinations::Without => i + n - r,
            Combinations::With => n - 1,
        };
        indices = (0..r).rev().find(|&i| current[i] != last(i)).map(|i| {
            let mut next = current.clone();
            next[i] += 1;
            for j in i + 1..r {
                next[j] = match kind {
                    Combinations::Without => next[j - 1] + 1,
                    Combinations::With => next[i],
                };
            }
            next
        });
        Some(out)
    }))
}

/// `permutations(pool, r)`: Python's order (the cycles algorithm).
fn permutations(pool: Vec<MjValue>, r: usize) -> MjValue {
    let n = pool.len();
    let mut indices: Vec<usize> = (0..n).collect();
    let mut cycles: Vec<usize> = (0..r.min(n)).map(|i| n - i).collect();
    let mut more = r <= n;
    let mut first = true;
    MjValue::make_one_shot_iterator(std::iter::from_fn(move || {
        if !more {
            return None;
        }
        if !first {
            more = false;
            for i in (0..r).rev() {
                cycles[i] -= 1;
                if cycles[i] == 0 {
                    indices[i..].rotate_left(1);
                    cycles[i] = n - i;
                } else {
                    let j = cycles[i];
                    indices.swap(i, n - j);
                    more = true;
                    break;
                }
            }
            if !more {
                return None;
            }
        }
        first = false;
        Some(tuple(indices[..r].iter().map(|&i| pool[i].clone())))
    }))
}

/// `product(*pools, repeat=repeat)`: an odometer, the last pool fastest.
fn product(pools: Vec<Vec<MjValue>>, repeat: usize) -> MjValue {
    let pools: Vec<Vec<MjValue>> = (0..repeat).flat_map(|_| pools.iter().cloned()).collect();
    let mut indices = (!pools.iter().any(Vec::is_empty)).then(|| vec![0usize; pools.len()]);
    MjValue::make_one_shot_iterator(std::iter::from_fn(move || {
        let current = indices.clone()?;
        let out = tuple(current.iter().zip(&pools).map(|(&i, p)| p[i].clone()));
        let mut next = current;
        indices = None;
        for k in (0..pools.len()).rev() {
            next[k] += 1;
            if next[k] < pools[k].len() {
                indices = Some(next);
                break;
            }
            next[k] = 0;
        }
        Some(out)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(expr: &str) -> String {
        let mut env = Environment::new();
        register(&mut env);
        env.render_str(&format!("{{{{ {expr} }}}}"), ())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn yields_in_python_order() {
        assert_eq!(
            render("[1,2,3]|combinations(2)|list"),
            "[(1, 2), (1, 3), (2, 3)]"
        );
        assert_eq!(
            render("[1,2]|combinations_with_replacement(2)|list"),
            "[(1, 1), (1, 2), (2, 2)]"
        );
        assert_eq!(
            render("[1,2,3]|permutations(2)|list"),
            "[(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]"
        );
        assert_eq!(render("[1,2,3]|permutations|list|length"), "6");
        assert_eq!(
            render("[1,2]|product([3,4])|list"),
            "[(1, 3), (1, 4), (2, 3), (2, 4)]"
        );
        assert_eq!(render("[1,2]|product(repeat=2)|list|length"), "4");
        assert_eq!(render("[1]|combinations(2)|list"), "[]");
        assert_eq!(render("[1,2]|combinations(0)|list"), "[()]");
        assert_eq!(render("[]|product([1])|list"), "[]");
        assert_eq!(
            render("[1,2,3]|zip_longest([4], fillvalue=0)|list"),
            "[(1, 4), (2, 0), (3, 0)]"
        );
        assert_eq!(render("[1,2,3]|compress([1,0,1])|list"), "[1, 3]");
        assert_eq!(render("[1,2]|zip_longest([3])|list"), "[(1, 3), (2, None)]");
        assert!(render("[1]|combinations(-1)|list").contains("non-negative"));
    }
}
