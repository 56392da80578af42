//! Building one minijinja `Environment` the way Salt configures Jinja2
//! (sandbox-like, strict undefined, no auto-escape, Salt's tags, globals,
//! tests and builtin-filter overrides), and rendering one file with Salt's
//! render context and trailing-newline rule.

use std::borrow::Cow;
use std::sync::Arc;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Kwargs, Rest, Tuple, Value as JValue, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State, UndefinedBehavior};

use super::convert::to_jinja;
use super::error::{
    jinja2_syntax_error, map_error, miss_scope, template_error, TopLevel, PREFIX_ERROR,
    PREFIX_RUNTIME,
};
use super::py::print as pyfmt;
use super::py::{new_list, new_map, pairs_of, to_mut_deep, to_mut_shallow, track, unpack, MutList};
use super::reads::Source;
use super::salt::py_error;
use super::{filters, loader, macros, prepass, salt};
use super::{EnvOptions, JinjaError, JinjaErrorKind, RenderData, SlsContext, TemplateLoader};

/// minijinja's syntax settings for `options` (invalid delimiters fall back
/// to the defaults).
pub(super) fn syntax_config(options: &EnvOptions) -> SyntaxConfig {
    let mut b = SyntaxConfig::builder();
    if let Some((s, e)) = &options.block {
        b.block_delimiters(s.clone(), e.clone());
    }
    if let Some((s, e)) = &options.variable {
        b.variable_delimiters(s.clone(), e.clone());
    }
    if let Some((s, e)) = &options.comment {
        b.comment_delimiters(s.clone(), e.clone());
    }
    if let Some(p) = &options.line_statement_prefix {
        b.line_statement_prefix(p.clone());
    }
    if let Some(p) = &options.line_comment_prefix {
        b.line_comment_prefix(p.clone());
    }
    b.trim_blocks(options.trim_blocks)
        .lstrip_blocks(options.lstrip_blocks)
        .keep_trailing_newline(options.keep_trailing_newline);
    b.build().unwrap_or_default()
}

pub(super) fn build_environment(
    saltenv: &str,
    options: &EnvOptions,
    data: Arc<RenderData>,
    templates: Arc<dyn TemplateLoader>,
) -> Environment<'static> {
    let mut env = Environment::new();
    // Jinja2 under Salt recurses as deep as Python's stack allows: macros
    // about 170 levels, includes and imports hundreds. minijinja's default
    // (500 units, about 90 macro levels) fails trees Salt renders; with its
    // stack growing on demand, this limit still stops runaway recursion
    // with "recursion limit exceeded" (the `render-depth` limit). Fuel
    // (`render-fuel`) stops a runaway loop.
    env.set_recursion_limit(data.limits.render_depth);
    env.set_fuel(Some(data.limits.render_fuel));
    env.set_debug(true);
    env.set_undefined_behavior(if options.allow_undefined {
        UndefinedBehavior::Lenient
    } else {
        UndefinedBehavior::Strict
    });
    env.set_auto_escape_callback(|_| AutoEscape::None);
    let syntax = syntax_config(options);
    env.set_syntax(syntax.clone());

    let saltenv = saltenv.to_string();
    env.set_loader(move |name| {
        // An absolute path names a file on the minion (Salt's import_yaml
        // and friends read it there); lowstate reads only the file roots,
        // and says so instead of "not found".
        if name.starts_with('/') {
            return Err(template_error(
                JinjaErrorKind::TemplateNotFound,
                PREFIX_ERROR,
                format!(
                    "{name}: an absolute path is a file on the minion; lowstate reads templates only from the file roots (use a path relative to a root, or salt://)"
                ),
            ));
        }
        let Some(path) = loader::resolve(name) else {
            // A relative name that climbs above the root of the file tree.
            if loader::leaves_root(name) {
                return Err(template_error(
                    JinjaErrorKind::TemplateNotFound,
                    PREFIX_ERROR,
                    format!(
                        "{}: the path leaves the file roots; lowstate reads templates only inside them",
                        loader::display_name(name)
                    ),
                ));
            }
            return Ok(None);
        };
        match templates.read(&saltenv, &path) {
            Some(src) => Ok(Some(
                prepass::rewrite(&loader::normalize_newlines(&src), &syntax).into_owned(),
            )),
            None => {
                if let Some(why) = templates.unreadable(&saltenv, &path) {
                    return Err(template_error(JinjaErrorKind::Other, PREFIX_ERROR, why));
                }
                match templates.refused(&saltenv, &path) {
                    Some(why) => Err(template_error(
                        JinjaErrorKind::TemplateNotFound,
                        PREFIX_ERROR,
                        why,
                    )),
                    None => Ok(None),
                }
            }
        }
    });
    env.set_path_join_callback(|name, _parent| Cow::Owned(loader::join_path(name)));
    env.set_unknown_method_callback(super::py::methods::unknown_method);
    env.set_formatter(|out, state, value| {
        if value.is_undefined() || value.kind() == ValueKind::String {
            return minijinja::escape_formatter(out, state, value);
        }
        // What `pyfmt::finalize` prints for an integer, without the buffer.
        if value.is_integer() {
            return write!(out, "{value}").map_err(Error::from);
        }
        out.write_str(&pyfmt::finalize(value)).map_err(Error::from)
    });

    // Python's str(): minijinja's own text differs for bytes (str() of
    // bytes is their repr, b'...'), for an undefined value inside a tuple
    // (`Undefined`) and for floats.
    env.add_filter(
        "string",
        |state: &State, v: JValue| -> Result<JValue, Error> {
            if matches!(v.kind(), ValueKind::String | ValueKind::Undefined) {
                return minijinja::filters::string(state, &v);
            }
            Ok(JValue::from(pyfmt::py_str(&v)))
        },
    );

    // Jinja2's join takes str() of each item: Salt's StrictUndefined
    // refuses it (minijinja joins an undefined item as nothing; the string
    // filter's refusal carries where the undefined value came from), and a
    // float is Python's text (`1e+20`, not minijinja's digits in full).
    env.add_filter(
        "join",
        |state: &mut State,
         v: JValue,
         joiner: Option<minijinja::value::StringInput<'_>>,
         attribute: Option<&str>,
         kw: Kwargs|
         -> Result<JValue, Error> {
            let by_attribute = attribute.is_some() || kw.has("attribute");
            let plain = v.kind() == ValueKind::String || v.kind() == ValueKind::Map;
            if let (false, false, Ok(items)) = (by_attribute, plain, v.try_iter()) {
                let mut texts = Vec::new();
                for item in items {
                    if item.is_undefined() {
                        minijinja::filters::string(state, &item)?;
                    }
                    texts.push(match item.kind() {
                        ValueKind::String => item,
                        _ => JValue::from(pyfmt::py_str(&item)),
                    });
                }
                return minijinja::filters::join(state, &JValue::from(texts), joiner, None, kw);
            }
            minijinja::filters::join(state, &v, joiner, attribute, kw)
        },
    );

    // Pre-pass helpers.
    env.add_function("__mut", to_mut_shallow);
    env.add_function("__noop", |_v: JValue| JValue::from(()));
    env.add_function("__iter", loop_iterable);
    env.add_function(
        "__iter_unpack",
        |v: JValue, n: usize| -> Result<JValue, Error> {
            let v = loop_iterable(v)?;
            let items: Result<Vec<JValue>, Error> = v.try_iter()?.map(|x| unpack(x, n)).collect();
            Ok(JValue::from(items?))
        },
    );
    env.add_function("__unpack", unpack);
    env.add_function("__import_enter", |state: &State, name: JValue| {
        let caller = loader::PATH_VARS.map(|k| state.lookup(k).unwrap_or(JValue::UNDEFINED));
        loader::import_enter(name.as_str(), caller)
    });
    env.add_function("__import_fresh", loader::import_fresh);
    env.add_function(
        "__import_leave",
        |module: Option<JValue>, names: Rest<JValue>| {
            loader::import_leave(module.unwrap_or(JValue::UNDEFINED), &names)
        },
    );
    env.add_function(
        "__varmacro",
        |m: JValue, n: usize, varargs: bool, kwargs: bool| macros::wrap(m, n, varargs, kwargs),
    );
    env.add_filter("__pyfmt", pyfmt_filter);
    env.add_filter("format", format_filter);
    env.add_function(
        "__import_yaml",
        |state: &State, name: JValue, with_ctx: bool| {
            load_yaml_text(&import_text(state, &name, with_ctx)?)
        },
    );
    env.add_function(
        "__import_json",
        |state: &State, name: JValue, with_ctx: bool| {
            load_json_text(&import_text(state, &name, with_ctx)?)
        },
    );
    env.add_function(
        "__import_text",
        |state: &State, name: JValue, with_ctx: bool| {
            import_text(state, &name, with_ctx).map(JValue::from)
        },
    );

    register_data_filters(&mut env);
    register_globals(&mut env, data);
    register_builtin_overrides(&mut env);
    register_tests(&mut env);
    filters::register(&mut env);
    super::textnet::register(&mut env);
    super::textwrap::register(&mut env);
    super::markup::register(&mut env);
    super::ipaddr::register(&mut env);
    super::itertools::register(&mut env);
    super::encode::register(&mut env);
    super::query::register(&mut env);
    env
}

fn register_globals(env: &mut Environment<'static>, _data: Arc<RenderData>) {
    env.add_function("raise", |msg: JValue| -> Result<JValue, Error> {
        Err(template_error(
            JinjaErrorKind::Raise,
            PREFIX_ERROR,
            pyfmt::py_str(&msg),
        ))
    });
    env.add_function(
        "odict",
        |args: Rest<JValue>, kw: Kwargs| -> Result<JValue, Error> {
            let d = dict_from(&args, kw)?;
            let m = pairs_of(&d)?.into_iter().collect();
            Ok(super::py::new_ordered_map(m))
        },
    );
    env.add_function(
        "dict",
        |args: Rest<JValue>, kw: Kwargs| -> Result<JValue, Error> { dict_from(&args, kw) },
    );
    env.add_function("show_full_context", |state: &State| -> JValue {
        let mut m = indexmap::IndexMap::new();
        for name in state.known_variables() {
            if name.starts_with("__") {
                continue;
            }
            if let Some(v) = state.lookup(&name) {
                let simple = matches!(
                    v.kind(),
                    ValueKind::None
                        | ValueKind::Bool
                        | ValueKind::Number
                        | ValueKind::String
                        | ValueKind::Map
                        | ValueKind::Seq
                );
                if simple {
                    m.insert(JValue::from(name.as_ref()), v);
                }
            }
        }
        new_map(m)
    });
    env.add_function(
        "ifelse",
        |state: &mut State, args: Rest<JValue>| -> Result<JValue, Error> {
            let salt = state
                .lookup("salt")
                .ok_or_else(|| Error::new(ErrorKind::UndefinedError, "`salt` is undefined"))?;
            let f = salt.get_item(&JValue::from("match.ifelse"))?;
            if f.is_undefined() {
                return Err(template_error(
                    JinjaErrorKind::Other,
                    PREFIX_ERROR,
                    "ifelse() needs the match.ifelse function, which is not available",
                ));
            }
            f.call(state, &args)
        },
    );
    env.add_function("cycler", |items: Rest<JValue>| -> Result<JValue, Error> {
        if items.is_empty() {
            return Err(template_error(
                JinjaErrorKind::Other,
                PREFIX_ERROR,
                "at least one item has to be provided",
            ));
        }
        Ok(JValue::from_object(Cycler {
            items: items.0,
            pos: std::sync::atomic::AtomicUsize::new(0),
        }))
    });
    env.add_function("joiner", minijinja_contrib::globals::joiner);
    env.add_function("lipsum", |_args: Rest<JValue>| -> Result<JValue, Error> {
        Err(template_error(
            JinjaErrorKind::Other,
            PREFIX_ERROR,
            "lipsum() is random and cannot be rendered at compile time",
        ))
    });
}

/// Jinja2's `cycler(*items)`: `next()` returns the current item and moves
/// on (wrapping), `current` is the item `next()` returns next, `reset()`
/// goes back to the first, `items` and `pos` are readable. (minijinja's
/// own cycler takes one list and has only `next()`.)
#[derive(Debug)]
struct Cycler {
    items: Vec<JValue>,
    pos: std::sync::atomic::AtomicUsize,
}

impl Cycler {
    fn pos(&self) -> usize {
        self.pos.load(std::sync::atomic::Ordering::Relaxed) % self.items.len().max(1)
    }
}

impl minijinja::value::Object for Cycler {
    fn repr(self: &Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        match key.as_str()? {
            "current" => self.items.get(self.pos()).cloned(),
            "pos" => Some(JValue::from(self.pos())),
            "items" => Some(JValue::from_object(minijinja::value::Tuple::from(
                self.items.clone(),
            ))),
            _ => None,
        }
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[JValue],
    ) -> Result<JValue, Error> {
        let no_args = |name: &str| {
            if args.is_empty() {
                Ok(())
            } else {
                Err(template_error(
                    JinjaErrorKind::Other,
                    PREFIX_ERROR,
                    format!(
                        "Cycler.{name}() takes 1 positional argument but {} were given",
                        args.len() + 1
                    ),
                ))
            }
        };
        let ordering = std::sync::atomic::Ordering::Relaxed;
        match method {
            "next" => {
                no_args(method)?;
                let idx = self.pos();
                self.pos
                    .store((idx + 1) % self.items.len().max(1), ordering);
                Ok(self.items.get(idx).cloned().unwrap_or_default())
            }
            "reset" => {
                no_args(method)?;
                self.pos.store(0, ordering);
                Ok(JValue::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// `dict(mapping_or_pairs, **kw)` / `odict(...)` → a mutable dict.
fn dict_from(args: &[JValue], kw: Kwargs) -> Result<JValue, Error> {
    let mut m = indexmap::IndexMap::new();
    if let Some(first) = args.first() {
        for (k, v) in pairs_of(first)? {
            m.insert(k, v);
        }
    }
    if args.len() > 1 {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            format!("dict expected at most 1 argument, got {}", args.len()),
        ));
    }
    for k in kw.args() {
        m.insert(JValue::from(k), kw.peek::<JValue>(k)?);
    }
    Ok(new_map(m))
}

/// What a `for` loop iterates, as Jinja2 sees it: None is not iterable
/// (minijinja loops zero times), and a string or a one-shot iterable (a
/// filter's generator) becomes a list, so the loop knows its length
/// (`loop.length`, `loop.revindex`, `loop.nextitem`, ...).
fn loop_iterable(v: JValue) -> Result<JValue, Error> {
    if v.is_none() {
        return Err(template_error(
            JinjaErrorKind::Other,
            PREFIX_ERROR,
            "'NoneType' object is not iterable",
        ));
    }
    if let Some(s) = v.as_str() {
        return Ok(JValue::from(
            s.chars()
                .map(|c| JValue::from(c.to_string()))
                .collect::<Vec<_>>(),
        ));
    }
    if v.kind() == ValueKind::Iterable && v.len().is_none() {
        return Ok(JValue::from(v.try_iter()?.collect::<Vec<_>>()));
    }
    Ok(v)
}

/// The keyword arguments of a call to a filter whose options (`params`,
/// after the filtered value) Jinja2 also takes positionally, with Python's
/// `TypeError` texts for too many arguments or one given twice.
fn positional_as_keywords(
    pyname: &str,
    params: &[&str],
    args: &[JValue],
    kw: &Kwargs,
) -> Result<Kwargs, Error> {
    if args.len() > params.len() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "{pyname}() takes from 1 to {} positional arguments but {} were given",
                params.len() + 1,
                args.len() + 1
            ),
        ));
    }
    let mut out: Vec<(String, JValue)> = Vec::with_capacity(args.len() + 2);
    for (name, v) in params.iter().zip(args) {
        if kw.has(name) {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("{pyname}() got multiple values for argument '{name}'"),
            ));
        }
        out.push((name.to_string(), v.clone()));
    }
    for k in kw.args() {
        out.push((k.to_string(), kw.peek::<JValue>(k)?));
    }
    Ok(out.into_iter().collect())
}

/// Jinja2 builtins whose minijinja versions differ from Jinja2's.
fn register_builtin_overrides(env: &mut Environment<'static>) {
    // minijinja's own filters that neither Jinja 3.1 nor Salt 3008.5 has:
    // Salt fails with `No filter named 'split'.` (a syntax error).
    for name in ["split", "lines", "chain", "bool"] {
        env.remove_filter(name);
    }
    // dictsort calls `value.items()`: an undefined value fails with its own
    // text in Jinja2 (the engine's error names the expression).
    // Jinja2's dictsort(value, case_sensitive=False, by='key', reverse=False)
    // and sort(value, reverse=False, case_sensitive=False, attribute=None)
    // take their options positionally too; minijinja's only by keyword.
    env.add_filter(
        "dictsort",
        |v: JValue, args: Rest<JValue>, kw: Kwargs| -> Result<JValue, Error> {
            let kw = positional_as_keywords(
                "do_dictsort",
                &["case_sensitive", "by", "reverse"],
                &args,
                &kw,
            )?;
            if v.is_undefined() {
                v.get_attr("items")?;
            }
            // Python cannot order keys (or values) of different types.
            let by_value = kw.peek::<Option<&str>>("by")? == Some("value");
            let case_sensitive = kw.peek::<Option<bool>>("case_sensitive")?.unwrap_or(false);
            let reverse = kw.peek::<Option<bool>>("reverse")?.unwrap_or(false);
            if v.kind() == ValueKind::Map {
                let keys: Vec<JValue> = pairs_of(&v)?
                    .into_iter()
                    .filter_map(|(k, x)| {
                        super::py::order::sort_filter_key(
                            if by_value { &x } else { &k },
                            None,
                            case_sensitive,
                        )
                    })
                    .collect();
                super::py::order::check_sort(keys, reverse)?;
            }
            minijinja::filters::dictsort(&v, kw)
        },
    );
    env.add_filter(
        "sort",
        |state: &State, v: JValue, args: Rest<JValue>, kw: Kwargs| -> Result<JValue, Error> {
            let kw = positional_as_keywords(
                "do_sort",
                &["reverse", "case_sensitive", "attribute"],
                &args,
                &kw,
            )?;
            // Python's order, or its TypeError for values of different
            // types (minijinja orders those).
            let attribute = kw.peek::<Option<JValue>>("attribute")?;
            let case_sensitive = kw.peek::<Option<bool>>("case_sensitive")?.unwrap_or(false);
            let reverse = kw.peek::<Option<bool>>("reverse")?.unwrap_or(false);
            let known = kw
                .args()
                .all(|k| ["reverse", "case_sensitive", "attribute"].contains(&k));
            let attr_ok = attribute.as_ref().is_none_or(|a| a.as_str().is_some());
            if let (true, true, false, Ok(items)) = (known, attr_ok, v.is_undefined(), v.try_iter())
            {
                let items: Vec<JValue> = items.collect();
                let attribute = attribute.as_ref().and_then(|a| a.as_str());
                let keys: Option<Vec<JValue>> = items
                    .iter()
                    .map(|x| super::py::order::sort_filter_key(x, attribute, case_sensitive))
                    .collect();
                return match keys {
                    Some(keys) => {
                        let keyed = keys.into_iter().zip(items).collect();
                        Ok(JValue::from(super::py::order::sort_keyed(keyed, reverse)?))
                    }
                    None => minijinja::filters::sort(state, JValue::from(items), kw),
                };
            }
            minijinja::filters::sort(state, v, kw)
        },
    );
    // default(value, default_value='', boolean=False). A `None` given as the
    // default is the default (Jinja2 prints it as `None`), not "no default".
    let default =
        |v: JValue, args: minijinja::value::Rest<JValue>, kw: Kwargs| -> Result<JValue, Error> {
            let boolean = match kw.get::<Option<bool>>("boolean")? {
                Some(x) => x,
                None => args.get(1).is_some_and(|x| x.is_true()),
            };
            let d = match kw.get::<Option<JValue>>("default_value")? {
                Some(x) => x,
                None => args.first().cloned().unwrap_or_else(|| JValue::from("")),
            };
            kw.assert_all_used()?;
            Ok(if v.is_undefined() || (boolean && !v.is_true()) {
                d
            } else {
                v
            })
        };
    env.add_filter("default", default);
    env.add_filter("d", default);
    env.add_filter(
        "list",
        |state: &State, v: JValue| -> Result<JValue, Error> {
            if let Some(l) = v.downcast_object_ref::<MutList>() {
                return Ok(new_list(l.lock().clone()));
            }
            Ok(to_mut_shallow(minijinja::filters::list(state, v)?))
        },
    );
    // replace(s, old, new, count=None)
    env.add_filter(
        "replace",
        |s: String, old: String, new: String, count: Option<i64>| -> String {
            match count {
                Some(n) if n >= 0 => s.replacen(&old, &new, n as usize),
                _ => s.replace(&old, &new),
            }
        },
    );
}

/// Python-semantics tests (Salt's own, `match`, `equalto` and `list`, are
/// registered with its filters).
fn register_tests(env: &mut Environment<'static>) {
    env.add_test("sequence", |v: JValue| {
        matches!(
            v.kind(),
            ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Bytes
        )
    });
    env.add_test("iterable", |state: &State, v: JValue| {
        filters::fail_if_undefined(state, &[&v])?;
        Ok::<_, Error>(matches!(
            v.kind(),
            ValueKind::String
                | ValueKind::Seq
                | ValueKind::Map
                | ValueKind::Iterable
                | ValueKind::Bytes
        ))
    });
    // Salt's StrictUndefined has `__call__` (which fails), so Python's
    // `callable()` says yes.
    env.add_test("callable", |v: JValue| {
        v.is_undefined() || v.kind() == ValueKind::Plain
    });
    register_strict_tests(env);
    // `list`, `equalto` and `match` are Salt's (filters.rs).
}

/// Jinja2's tests that operate on their value (compare, compute, call a
/// method, iterate) fail on an undefined one in Salt; minijinja's answer
/// false. These wrap minijinja's own tests with that failure. The tests
/// that only look at a value's type (`defined`, `none`, `string`,
/// `number`, `mapping`, `sequence`, ...) answer as before.
fn register_strict_tests(env: &mut Environment<'static>) {
    use filters::fail_if_undefined;
    use minijinja::tests;
    type Binary = fn(&JValue, &JValue) -> bool;
    let binary: [(&str, Binary); 14] = [
        ("eq", tests::is_eq),
        ("==", tests::is_eq),
        ("ne", tests::is_ne),
        ("!=", tests::is_ne),
        ("lt", tests::is_lt),
        ("lessthan", tests::is_lt),
        ("<", tests::is_lt),
        ("le", tests::is_le),
        ("<=", tests::is_le),
        ("gt", tests::is_gt),
        ("greaterthan", tests::is_gt),
        (">", tests::is_gt),
        ("ge", tests::is_ge),
        (">=", tests::is_ge),
    ];
    for (name, test) in binary {
        env.add_test(name, move |state: &State, v: JValue, other: JValue| {
            fail_if_undefined(state, &[&v, &other])?;
            Ok::<_, Error>(test(&v, &other))
        });
    }
    env.add_test("divisibleby", |state: &State, v: JValue, other: JValue| {
        fail_if_undefined(state, &[&v, &other])?;
        Ok::<_, Error>(tests::is_divisibleby(&v, &other))
    });
    env.add_test("in", |state: &State, v: JValue, other: JValue| {
        fail_if_undefined(state, &[&v, &other])?;
        tests::is_in(state, &v, &other)
    });
    type Unary = fn(&JValue) -> bool;
    let unary: [(&str, Unary); 4] = [
        ("odd", |v| tests::is_odd(v.clone())),
        ("even", |v| tests::is_even(v.clone())),
        ("lower", tests::is_lower),
        ("upper", tests::is_upper),
    ];
    for (name, test) in unary {
        env.add_test(name, move |state: &State, v: JValue| {
            fail_if_undefined(state, &[&v])?;
            Ok::<_, Error>(test(&v))
        });
    }
    env.add_test("filter", |state: &State, v: JValue| {
        fail_if_undefined(state, &[&v])?;
        Ok::<_, Error>(v.as_str().is_some_and(|name| tests::is_filter(state, name)))
    });
    env.add_test("test", |state: &State, v: JValue| {
        fail_if_undefined(state, &[&v])?;
        Ok::<_, Error>(v.as_str().is_some_and(|name| tests::is_test(state, name)))
    });
}

/// `'fmt' % arg`: a tuple spreads, a mapping feeds `%(name)s`.
fn pyfmt_filter(fmt: String, arg: JValue) -> Result<JValue, Error> {
    let conv = |v: JValue| -> JValue {
        match v.kind() {
            ValueKind::String | ValueKind::Number => v,
            _ => JValue::from(pyfmt::py_str(&v)),
        }
    };
    let Conversions {
        fmt,
        reprs,
        positional,
        named,
        stars,
    } = repr_conversions(&fmt);
    let tuple = arg.is_tuple();
    let mut args: Vec<JValue> = if tuple {
        arg.try_iter()?.collect()
    } else {
        vec![arg]
    };
    let mapping = !tuple && args[0].kind() == ValueKind::Map;
    // Python's count of positional arguments: a mapping alone may feed
    // none (only `%(name)s`), anything else must feed them all.
    if named && !mapping {
        return Err(py_error("format requires a mapping"));
    }
    if positional > args.len() {
        return Err(py_error("not enough arguments for format string"));
    }
    if positional < args.len() && !mapping {
        return Err(py_error(
            "not all arguments converted during string formatting",
        ));
    }
    if mapping {
        // `%(name)s`: convert the looked-up values.
        let pairs = pairs_of(&args[0])?;
        let m: indexmap::IndexMap<JValue, JValue> = pairs
            .into_iter()
            .map(|(k, v)| {
                let named_repr = k
                    .as_str()
                    .is_some_and(|n| reprs.iter().any(|r| r.as_deref() == Ok(n)));
                let v = if named_repr {
                    JValue::from(pyfmt::py_repr(&v))
                } else {
                    conv(v)
                };
                (k, v)
            })
            .collect();
        args = vec![JValue::from_object(m)];
    } else {
        for (i, a) in args.iter_mut().enumerate() {
            let is_repr = reprs.iter().any(|r| r.as_ref().err() == Some(&i));
            *a = if is_repr {
                JValue::from(pyfmt::py_repr(a))
            } else {
                conv(a.clone())
            };
        }
    }
    let fmt = if stars.is_empty() || mapping {
        fmt
    } else {
        // minijinja's printf has no `*`: the widths go into the format.
        let mut out = String::with_capacity(fmt.len() + 8);
        let mut last = 0;
        for &(at, i) in &stars {
            let n = args[i]
                .as_i64()
                .filter(|_| args[i].is_integer())
                .ok_or_else(|| py_error("* wants int"))?;
            out.push_str(&fmt[last..at]);
            out.push_str(&n.to_string());
            last = at + 1;
        }
        out.push_str(&fmt[last..]);
        for &(_, i) in stars.iter().rev() {
            args.remove(i);
        }
        out
    };
    minijinja::formatting::format(minijinja::formatting::FormatStyle::Printf, &fmt, &args)
        .map(JValue::from)
}

/// Jinja2's `format` filter: `value % (kwargs or args)`, Python's `%`
/// with the arguments as a tuple (or the keywords as a mapping).
fn format_filter(value: JValue, args: Rest<JValue>, kwargs: Kwargs) -> Result<JValue, Error> {
    let fmt = pyfmt::py_str(&value);
    let names: Vec<&str> = kwargs.args().collect();
    if names.is_empty() {
        return pyfmt_filter(fmt, JValue::from_object(Tuple::new(args.0)));
    }
    let mut m = indexmap::IndexMap::new();
    for name in names {
        m.insert(JValue::from(name), kwargs.get::<JValue>(name)?);
    }
    pyfmt_filter(fmt, JValue::from_object(m))
}

/// A `%` format read as Python reads it.
struct Conversions {
    /// The format with `%r` / `%a` turned into `%s`.
    fmt: String,
    /// The arguments those need `repr()` of: `Err(index)` for positional,
    /// `Ok(name)` for `%(name)r`.
    reprs: Vec<Result<String, usize>>,
    /// How many positional arguments it takes (`*` widths included).
    positional: usize,
    /// Whether it has a `%(name)` conversion.
    named: bool,
    /// Each `*` width or precision: its offset in `fmt` and the index of
    /// the positional argument it takes.
    stars: Vec<(usize, usize)>,
}

/// Read `fmt`'s conversions (see [`Conversions`]).
fn repr_conversions(fmt: &str) -> Conversions {
    let mut out = String::with_capacity(fmt.len());
    let mut reprs = Vec::new();
    let mut chars = fmt.chars().peekable();
    let mut index = 0;
    let mut named = false;
    let mut stars = Vec::new();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '%' {
            continue;
        }
        if chars.peek() == Some(&'%') {
            out.push('%');
            chars.next();
            continue;
        }
        let mut name = None;
        if chars.peek() == Some(&'(') {
            let mut n = String::new();
            for c in chars.by_ref() {
                out.push(c);
                if c == ')' {
                    break;
                }
                if c != '(' {
                    n.push(c);
                }
            }
            name = Some(n);
        }
        while let Some(&c) = chars.peek() {
            if c == '*' {
                stars.push((out.len(), index));
                index += 1;
            }
            if "-+ #0123456789.*hlL".contains(c) {
                out.push(c);
                chars.next();
            } else {
                break;
            }
        }
        match chars.next() {
            Some('r') | Some('a') => {
                out.push('s');
                reprs.push(name.clone().ok_or(index));
            }
            Some(c) => out.push(c),
            None => {}
        }
        if name.is_none() {
            index += 1;
        } else {
            named = true;
        }
    }
    Conversions {
        fmt: out,
        reprs,
        positional: index,
        named,
        stars,
    }
}

/// Render a data file for `import_yaml` & co.: Salt imports it like a
/// template, without the caller's context unless `with context` was given
/// (it still sees the render-wide globals and its own `tpldir`). Without
/// context, Jinja2 renders it once per render and reuses that module.
fn import_text(state: &State, name: &JValue, with_ctx: bool) -> Result<String, Error> {
    let name = name.as_str().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            "template name must be a string",
        )
    })?;
    let tmpl = state.get_template(name)?;
    if !with_ctx {
        let key = tmpl.name();
        if let Some(text) = loader::with_frame(|f| f.modules.get(key).cloned()).flatten() {
            return Ok(text);
        }
        let text = render_import(state, &tmpl, false)?;
        loader::with_frame(|f| f.modules.insert(key.to_string(), text.clone()));
        return Ok(text);
    }
    render_import(state, &tmpl, true)
}

fn render_import(
    state: &State,
    tmpl: &minijinja::Template,
    with_ctx: bool,
) -> Result<String, Error> {
    let mut ctx: Vec<(String, JValue)> = loader::with_frame(|f| {
        let mut v = f.base_context.clone();
        let names = loader::PATH_VARS.map(String::from);
        v.extend(names.into_iter().zip(loader::path_values(f)));
        v
    })
    .unwrap_or_default();
    if with_ctx {
        for var in state.known_variables() {
            if let Some(v) = state.lookup(&var) {
                ctx.push((var.to_string(), v));
            }
        }
    }
    render_capped(tmpl, map_value(ctx), RENDER_OUTPUT.with(|c| c.get()))
}

thread_local! {
    /// The `render-output` limit of the top-level render running on this
    /// thread (imports render inside it, on the same thread).
    static RENDER_OUTPUT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// Render `tmpl` into a string of at most `limit` bytes (the
/// `render-output` limit): past it, minijinja stops with a write failure
/// at the line that was writing.
fn render_capped(tmpl: &minijinja::Template, ctx: JValue, limit: usize) -> Result<String, Error> {
    struct Capped {
        out: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.out.len() + buf.len() > self.limit {
                return Err(std::io::Error::other("render-output limit"));
            }
            self.out.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // SLS templates mostly render to about twice their size: starting
    // there saves the output's regrowth (each a copy into fresh memory).
    let room = tmpl
        .source()
        .len()
        .saturating_mul(2)
        .clamp(256, limit.max(256));
    let mut w = Capped {
        out: Vec::with_capacity(room),
        limit,
    };
    tmpl.render_captured_to(ctx, &mut w)?;
    // minijinja writes whole UTF-8 strings; a cut can only come from the
    // limit, which fails instead.
    String::from_utf8(w.out).map_err(|_| Error::new(ErrorKind::WriteFailure, "not UTF-8"))
}

/// The serializer filters the data tags rely on: `load_yaml`, `load_json`,
/// `load_text` (results are mutable containers).
pub(crate) fn register_data_filters(env: &mut Environment<'static>) {
    env.add_filter("load_yaml", |v: JValue| load_yaml_text(&pyfmt::py_str(&v)));
    env.add_filter("load_json", |v: JValue| load_json_text(&pyfmt::py_str(&v)));
    env.add_filter("load_text", |v: JValue| JValue::from(pyfmt::py_str(&v)));
}

fn load_yaml_text(text: &str) -> Result<JValue, Error> {
    match crate::yaml::load_value(text, crate::yaml::Dialect::Salt) {
        Ok(v) => Ok(to_jinja(&v)),
        Err(e) => Err(template_error(
            JinjaErrorKind::Other,
            PREFIX_RUNTIME,
            format!("Encountered error loading yaml: {}", e.message),
        )),
    }
}

fn load_json_text(text: &str) -> Result<JValue, Error> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(j) => Ok(to_mut_deep(to_jinja(&crate::value::Value::from_json(&j)))),
        Err(_) => Err(template_error(
            JinjaErrorKind::Other,
            PREFIX_RUNTIME,
            format!("Unable to load json from {text}"),
        )),
    }
}

/// Salt's path variables for a file (`generate_sls_context`).
fn path_vars(ctx: &SlsContext) -> Vec<(&'static str, String)> {
    // Salt's `generate_sls_context`, on the full path of the file (a
    // state's is in the minion's cache, a pillar's under pillar_roots;
    // a path without a directory is taken as `/file`).
    let slspath = ctx.sls.replace('.', "/");
    let slspath = slspath.trim_end_matches('/');
    let full = if ctx.tplpath.contains('/') {
        ctx.tplpath.clone()
    } else {
        format!("/{}", ctx.tplfile)
    };
    let suffix = |tail: &str| full.len() - (slspath.len() + tail.len());
    let template = if ctx.sls.is_empty() {
        full.rsplit('/').next().unwrap_or(&full).to_string()
    } else if full.ends_with(&format!("{slspath}.sls")) {
        full[suffix(".sls")..].to_string()
    } else if full.ends_with(&format!("{slspath}/init.sls")) {
        full[suffix("/init.sls")..].to_string()
    } else {
        // Not an SLS file being rendered.
        let parent = match ctx.sls.rsplit_once('/') {
            Some((p, _)) if !p.is_empty() => p.to_string(),
            _ => ".".to_string(),
        };
        return vec![
            ("tplpath", ctx.tplpath.clone()),
            ("tplfile", ctx.sls.clone()),
            ("tpldir", parent),
        ];
    };
    let dir = template
        .rsplit_once('/')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default();
    vec![
        ("tplpath", ctx.tplpath.clone()),
        ("tplfile", template),
        (
            "tpldir",
            if dir.is_empty() {
                ".".into()
            } else {
                dir.clone()
            },
        ),
        ("tpldot", dir.replace('/', ".")),
        ("slspath", dir.clone()),
        ("slsdotpath", dir.replace('/', ".")),
        ("slscolonpath", dir.replace('/', ":")),
        ("sls_path", dir.replace('/', "_")),
    ]
}

/// The render's root dict of `source`, converted from `data` when the
/// template first looks at it. Pillar maps below the top are
/// `OrderedDict`s (from the YAML renderer), in `pillar` and in
/// `opts['pillar']` alike.
pub(super) fn root(data: &Arc<RenderData>, source: Source) -> JValue {
    use super::convert::{root_entries, to_jinja_data, to_jinja_pillar, Shape};
    use crate::value::Value;
    if !matches!(data.source(source), Value::Map(_)) {
        return track(to_jinja(data.source(source)), source);
    }
    let data = data.clone();
    super::py::track_lazy(
        source,
        Box::new(move || match data.source(source) {
            // Grains and pillar are shared between files (`shared`).
            Value::Map(m) => root_entries(m, |k, v| match (source, k.as_str()) {
                (Source::Grains, _) => to_jinja_data(v, Shape::Plain),
                (Source::Pillar, _) => to_jinja_data(v, Shape::Ordered),
                (Source::Opts, Some("pillar")) => to_jinja_pillar(v),
                (Source::Opts, _) => to_jinja(v),
            }),
            _ => Default::default(),
        }),
    )
}

/// The template variable of `source`: the run's shared object, if the
/// render shares them, else the render's own root.
fn variable(
    data: &Arc<RenderData>,
    run: &Option<Arc<super::shared::RunObjects>>,
    source: Source,
) -> JValue {
    match run.as_ref().and_then(|r| r.variable(source)) {
        Some(v) => v.clone(),
        None => root(data, source),
    }
}

/// An engine map from string-keyed pairs (later pairs win).
fn map_value(pairs: Vec<(String, JValue)>) -> JValue {
    JValue::from_object(
        pairs
            .into_iter()
            .map(|(k, v)| (JValue::from(k), v))
            .collect::<indexmap::IndexMap<_, _>>(),
    )
}

/// The text of the file being rendered.
pub(super) struct FileText<'a> {
    /// What Jinja renders (after `#jinja2:` header removal).
    pub source: &'a str,
    /// The file as given.
    pub original: &'a str,
    /// The 1-based line a header occupied.
    pub header_line: Option<usize>,
}

/// Render one top-level file.
pub(super) fn render(
    env: &Environment<'static>,
    options: &EnvOptions,
    data: &Arc<RenderData>,
    file: &FileText,
    ctx: &SlsContext,
    templates: &Arc<dyn TemplateLoader>,
) -> Result<String, JinjaError> {
    let run = super::shared::current();
    let mut base: Vec<(String, JValue)> = vec![
        // The roots note what the render reads of them (`reads`); a render
        // after one that changed them shares the run's (`shared`).
        ("grains".into(), variable(data, &run, Source::Grains)),
        ("pillar".into(), variable(data, &run, Source::Pillar)),
        ("opts".into(), root(data, Source::Opts)),
        (
            "salt".into(),
            salt::salt_object_with_files(data.clone(), Some(templates.clone())),
        ),
        ("saltenv".into(), JValue::from(ctx.saltenv.as_str())),
        ("sls".into(), JValue::from(ctx.sls.as_str())),
        ("proxy".into(), new_map(Default::default())),
        ("renderers".into(), new_map(Default::default())),
    ];
    let vars = path_vars(ctx);
    let tpldir = vars
        .iter()
        .find(|(k, _)| *k == "tpldir")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| ".".into());
    let tplfile = vars
        .iter()
        .find(|(k, _)| *k == "tplfile")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    for (k, v) in &vars {
        if !matches!(*k, "tpldir" | "tplfile" | "tpldot") {
            base.push((k.to_string(), JValue::from(v.as_str())));
        }
    }
    for (k, v) in &ctx.extra_vars {
        base.push((k.clone(), super::convert::to_jinja_ordered(v)));
    }
    let mut full = base.clone();
    for (k, v) in &vars {
        if matches!(*k, "tpldir" | "tplfile" | "tpldot") {
            full.push((k.to_string(), JValue::from(v.as_str())));
        }
    }
    let name = if ctx.tplfile.is_empty() {
        "<template>"
    } else {
        ctx.tplfile.as_str()
    };
    let context = Context {
        name,
        saltenv: &ctx.saltenv,
        tpldir: &tpldir,
        tplfile: &tplfile,
        base,
        full,
    };
    render_in(env, options, data, file, context, templates)
}

/// A file template's context (`file.managed`'s `template: jinja`): the
/// variables as given, nothing added; `tpldir` only when one of them sets
/// it (else a relative import fails, as Salt's loader has no `tpldir`).
pub(super) fn render_file_template(
    env: &Environment<'static>,
    options: &EnvOptions,
    data: &Arc<RenderData>,
    file: &FileText,
    t: &super::FileTemplate<'_>,
    templates: &Arc<dyn TemplateLoader>,
) -> Result<String, JinjaError> {
    let mut vars: Vec<(String, JValue)> = Vec::with_capacity(t.vars.len());
    for (k, v) in t.vars {
        let v = match v {
            super::FileVar::Value(v) => super::convert::to_jinja_ordered(v),
            super::FileVar::Grains => root(data, Source::Grains),
            super::FileVar::Pillar => root(data, Source::Pillar),
            super::FileVar::Opts => root(data, Source::Opts),
            super::FileVar::Salt => {
                salt::salt_object_with_files(data.clone(), Some(templates.clone()))
            }
        };
        vars.push((k.clone(), v));
    }
    let text_of = |key: &str| {
        t.vars.iter().rev().find_map(|(k, v)| match v {
            super::FileVar::Value(crate::value::Value::Str(s)) if k == key => Some(s.to_string()),
            _ => None,
        })
    };
    let tpldir = text_of("tpldir").unwrap_or_else(|| loader::UNSET_TPLDIR.to_string());
    let tplfile = text_of("tplfile").unwrap_or_default();
    let context = Context {
        name: t.name,
        saltenv: t.saltenv,
        tpldir: &tpldir,
        tplfile: &tplfile,
        base: vars.clone(),
        full: vars,
    };
    render_in(env, options, data, file, context, templates)
}

/// What one top-level render sees.
struct Context<'a> {
    /// The template's name in error messages.
    name: &'a str,
    saltenv: &'a str,
    /// The loader's `tpldir` / `tplfile` at the start.
    tpldir: &'a str,
    tplfile: &'a str,
    /// The context imported templates see.
    base: Vec<(String, JValue)>,
    /// The top-level template's own context.
    full: Vec<(String, JValue)>,
}

/// Render a top-level template with `context`, Salt's trailing-newline
/// rule and `newline_sequence` applied.
fn render_in(
    env: &Environment<'static>,
    options: &EnvOptions,
    data: &Arc<RenderData>,
    file: &FileText,
    context: Context<'_>,
    templates: &Arc<dyn TemplateLoader>,
) -> Result<String, JinjaError> {
    let FileText {
        source,
        original,
        header_line,
    } = *file;
    let Context {
        name,
        saltenv,
        tpldir,
        tplfile,
        base,
        full,
    } = context;
    let syntax = env.syntax().clone();
    let top = TopLevel {
        name,
        source,
        original,
        header_line,
        syntax: &syntax,
        loader: templates.as_ref(),
        saltenv,
    };
    let _frame = loader::push_frame(tpldir, tplfile, base);
    // Dropped after the errors below are mapped (they read the miss).
    let _misses = miss_scope();
    let rewritten = prepass::rewrite(source, &syntax);
    let tmpl = env
        .template_from_named_str(name, &rewritten)
        .map_err(|e| map_error(&e, &top))?;
    if let Some(e) = jinja2_syntax_error(&top) {
        return Err(e);
    }
    RENDER_OUTPUT.with(|c| c.set(data.limits.render_output));
    let mut out = render_capped(&tmpl, map_value(full), data.limits.render_output)
        .map_err(|e| map_error(&e, &top))?;
    if let Some(seq) = &options.newline_sequence {
        if seq != "\n" {
            out = out.replace('\n', seq);
        }
    }
    if source.ends_with('\n') {
        out.push('\n');
    }
    // The text is kept (diagnostics point into it): no spare room.
    out.shrink_to_fit();
    Ok(out)
}
