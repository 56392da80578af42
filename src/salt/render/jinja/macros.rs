//! Jinja2's catch-all macro arguments, which minijinja's macros lack: a
//! macro whose body reads `varargs` takes extra positional arguments into
//! that tuple, one whose body reads `kwargs` takes unknown keyword
//! arguments into that dict. The pre-pass declares `varargs` / `kwargs` as
//! the macro's last parameters and, after `{% endmacro %}`, rebinds the
//! macro's name to `__varmacro(macro, N, catch_varargs, catch_kwargs)`
//! (N: the parameters as written), the [`VarMacro`] that sorts a call's
//! arguments before handing them on.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Tuple, Value};
use minijinja::{Error, State};

use super::py::new_map;

/// A macro with Jinja2's `varargs` / `kwargs` catch-alls.
pub(super) struct VarMacro {
    inner: Value,
    /// The parameters as written (without the added catch-alls).
    params: Vec<String>,
    varargs: bool,
    kwargs: bool,
}

impl fmt::Debug for VarMacro {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner)
    }
}

/// `__varmacro(macro, n, varargs, kwargs)`: `macro` wrapped (or returned
/// as it is when it is not a macro with at least `n` parameters).
pub(super) fn wrap(inner: Value, n: usize, varargs: bool, kwargs: bool) -> Value {
    let Ok(names) = inner.get_attr("arguments") else {
        return inner;
    };
    let Ok(names) = names.try_iter() else {
        return inner;
    };
    let params: Vec<String> = names.take(n).map(|v| v.to_string()).collect();
    if params.len() != n {
        return inner;
    }
    Value::from_object(VarMacro {
        inner,
        params,
        varargs,
        kwargs,
    })
}

impl Object for VarMacro {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Str(&["name", "arguments", "caller"])
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.inner.get_attr(key.as_str()?).ok()
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let (pos, kw) = match args.split_last() {
            Some((last, rest)) if last.is_kwargs() => (rest, Some(Kwargs::try_from(last.clone())?)),
            _ => (args, None),
        };
        let n = self.params.len();
        let (pos, extra) = if self.varargs && pos.len() > n {
            pos.split_at(n)
        } else {
            (pos, &[][..])
        };
        let mut named: Vec<(String, Value)> = Vec::new();
        let mut caught = IndexMap::new();
        if let Some(kw) = &kw {
            for k in kw.args() {
                let v = kw.peek::<Value>(k)?;
                let known = k == "caller" || self.params.iter().any(|p| p == k);
                if self.kwargs && !known {
                    caught.insert(Value::from(k), v);
                } else {
                    named.push((k.to_string(), v));
                }
            }
        }
        if self.varargs {
            named.push((
                "varargs".into(),
                Value::from_object(Tuple::new(extra.to_vec())),
            ));
        }
        if self.kwargs {
            named.push(("kwargs".into(), new_map(caught)));
        }
        let mut call_args = pos.to_vec();
        call_args.push(Value::from(named.into_iter().collect::<Kwargs>()));
        self.inner.call(state, &call_args)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner)
    }
}
