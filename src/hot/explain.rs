//! `lowstate hot ... --explain [PARAM]`: where each parameter's value came
//! from. The layers, lowest first, are Heat's (`layered-inputs.md` §2.2,
//! §2.3): the template's `default:`, each environment file's
//! `parameter_defaults`, then in server mode the `-P` values under each
//! file's `parameters` (files win), in client mode the files' `parameters`
//! under `-P`. Hidden parameters are `<redacted>` everywhere.

use super::env::EnvFile;
use super::template::Template;
use super::EnvMode;
use crate::provenance::{Layer, LayerWrites, Provenance};
use crate::redact::REDACTED;
use crate::value::{Map, Value};

/// `file:line:col` of the key at `path` in a parsed file.
fn at(
    file: &crate::diag::SourceFile,
    tree: Option<&crate::yaml::Node>,
    path: &[&str],
) -> Option<String> {
    let r = super::template::key_span(tree, path)?;
    let (line, col) = file.line_col(r.start);
    Some(format!("{}:{line}:{col}", file.name))
}

/// The parameter layers one compile merged, in Heat's order, recorded
/// from the inputs as the compile read them (never read again): what
/// [`explain`] replays. Values are as written; [`explain`] masks the
/// hidden ones.
#[derive(Debug, Clone, Default)]
pub struct ParameterLayers {
    layers: Vec<Layer>,
    writes: Vec<LayerWrites>,
}

impl ParameterLayers {
    fn push(&mut self, kind: &str, origin: String, rule: &str, w: LayerWrites) {
        self.layers.push(Layer {
            kind: kind.into(),
            origin,
            rule: rule.into(),
        });
        self.writes.push(w);
    }
}

/// Record the layers of a compile's parameters from its parsed template,
/// environment files and `-P` values.
pub(crate) fn record(
    template: &Template,
    envs: &[EnvFile],
    cli: &[(String, Value)],
    mode: EnvMode,
) -> ParameterLayers {
    let mut out = ParameterLayers::default();
    let mut defaults = LayerWrites::new();
    for (k, def) in template
        .section("parameters")
        .and_then(Value::as_map)
        .map(Map::iter)
        .into_iter()
        .flatten()
    {
        let name = k.py_str();
        if let Some(d) = def.get("default") {
            defaults.push((
                vec![name.clone()],
                at(
                    &template.file,
                    template.tree.as_ref(),
                    &["parameters", &name, "default"],
                ),
                d.clone(),
            ));
        }
    }
    out.push(
        "template-default",
        template.file.name.clone(),
        "default",
        defaults,
    );
    let section = |e: &EnvFile, key: &str| -> LayerWrites {
        e.data
            .get(key)
            .and_then(Value::as_map)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let name = k.py_str();
                        let place = at(&e.file, e.tree.as_ref(), &[key, &name]);
                        (vec![name], place, v.clone())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let rule = |e: &EnvFile| match e.data.get("parameter_merge_strategies") {
        Some(s) => format!("parameter_merge_strategies {}", s.to_json()),
        None => "overwrite".to_string(),
    };
    let env_section = |out: &mut ParameterLayers, kind: &str, key: &str| {
        for e in envs {
            out.push(kind, e.file.name.clone(), &rule(e), section(e, key));
        }
    };
    env_section(
        &mut out,
        "heat-env-parameter-defaults",
        "parameter_defaults",
    );
    let cli: LayerWrites = cli
        .iter()
        .map(|(k, v)| (vec![k.clone()], None, v.clone()))
        .collect();
    let env_params = |out: &mut ParameterLayers| {
        env_section(out, "heat-env-parameters", "parameters");
    };
    match mode {
        EnvMode::Server => {
            out.push("heat-cli-param", "cli:-P".into(), "overwrite", cli);
            env_params(&mut out);
        }
        EnvMode::Client => {
            env_params(&mut out);
            out.push(
                "heat-cli-param",
                "cli:-P".into(),
                "overwrite (client mode: -P wins)",
                cli,
            );
        }
    }
    out
}

/// Heat's view of a written value being the parameter's value: `-P`
/// strings are typed by the parameter (`"10"` is 10, `"a,b"` is
/// `[a, b]`, a JSON string is its data).
fn same(written: &Value, result: &Value) -> bool {
    if written == result {
        return true;
    }
    match (written, result) {
        (Value::Str(s), Value::List(l)) => {
            l.iter().map(Value::py_str).collect::<Vec<_>>().join(",") == s.as_str()
        }
        (Value::Str(s), Value::Map(_)) => serde_json::from_str::<serde_json::Value>(s)
            .map(|j| Value::from_json(&j) == *result)
            .unwrap_or(false),
        (Value::Str(s), Value::Int(_) | Value::Float(_) | Value::Bool(_)) => {
            s.trim().eq_ignore_ascii_case(&result.py_str())
        }
        (Value::Int(_) | Value::Float(_) | Value::Bool(_), _) => {
            written.py_str() == result.py_str()
        }
        _ => false,
    }
}

/// The provenance of the top-level parameters of a compiled stack, from
/// the layers its compile recorded.
pub fn explain(compiled: &super::Compiled) -> Provenance {
    let params = compiled.document.get("parameters").and_then(Value::as_map);
    let hidden = |name: &str| {
        params
            .and_then(|m| m.get(name))
            .and_then(|p| p.get("hidden"))
            .is_some_and(|h| *h == Value::Bool(true))
    };
    let declared = |name: &str| params.is_some_and(|m| m.contains_key(name));
    let mask = |name: &str, v: &Value| {
        if hidden(name) {
            Value::str(REDACTED)
        } else {
            v.clone()
        }
    };
    let recorded = &compiled.parameter_layers;
    let layers = recorded.layers.clone();
    let writes: Vec<LayerWrites> = recorded
        .writes
        .iter()
        .map(|w| {
            w.iter()
                .map(|(path, place, v)| (path.clone(), place.clone(), mask(&path[0], v)))
                .collect()
        })
        .collect();
    let result: Map = params
        .map(|m| {
            m.iter()
                .map(|(k, p)| {
                    let name = k.py_str();
                    let v = p.get("value").cloned().unwrap_or_default();
                    (k.clone(), mask(&name, &v))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut p = Provenance::build_with(layers, writes, &Value::Map(result), ".", 1, &same);
    // A combined value is made of the layers Heat merged: `parameters`
    // and `-P` when there are any (else `parameter_defaults`); the template
    // default only stands in when nothing else was given.
    for leaf in &mut p.leaves {
        let kinds: Vec<String> = leaf
            .contributions
            .iter()
            .map(|w| p.layers[w.layer].kind.clone())
            .collect();
        let top = ["heat-env-parameters", "heat-cli-param"];
        let keep: &[&str] = if kinds.iter().any(|k| top.contains(&k.as_str())) {
            &top
        } else {
            &["heat-env-parameter-defaults"]
        };
        if kinds.iter().any(|k| keep.contains(&k.as_str())) {
            let layers = &p.layers;
            leaf.contributions
                .retain(|w| keep.contains(&layers[w.layer].kind.as_str()));
        }
    }
    for leaf in &mut p.leaves {
        if hidden(&leaf.path[0]) {
            // Rule 5: nothing about secrets' values, not even equality.
            for (_, how) in &mut leaf.overrode {
                *how = "hidden".into();
            }
        }
    }
    for d in &mut p.dropped {
        if d.path.len() == 1 && !declared(&d.path[0]) {
            d.reason = "the template declares no such parameter".into();
        }
    }
    p
}
