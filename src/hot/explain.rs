//! `lowstate hot ... --explain [PARAM]`: where each parameter's value came
//! from. The layers, lowest first, are Heat's (`layered-inputs.md` §2.2,
//! §2.3): the template's `default:`, each environment file's
//! `parameter_defaults`, then in server mode the `-P` values under each
//! file's `parameters` (files win), in client mode the files' `parameters`
//! under `-P`. Hidden parameters are `<redacted>` everywhere.

use super::{EnvMode, Input};
use crate::provenance::{Layer, LayerWrites, Provenance};
use crate::value::{Map, Value};

/// What a human output shows instead of a hidden parameter's value.
pub const REDACTED: &str = "<redacted>";

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

/// The provenance of the top-level parameters of a compiled stack.
pub fn explain(input: &Input, compiled: &super::Compiled) -> Provenance {
    let Some(template) = &input.template else {
        return Provenance::default();
    };
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
    let mut layers = Vec::new();
    let mut writes: Vec<LayerWrites> = Vec::new();
    let mut push = |kind: &str, origin: String, rule: &str, w: LayerWrites| {
        layers.push(Layer {
            kind: kind.into(),
            origin,
            rule: rule.into(),
        });
        writes.push(w);
    };
    // The template's defaults, read as the compile reads the template
    // (JSON first, then Heat's YAML rules: `0755` is octal, the last of
    // repeated keys wins).
    let (ttree, tdata) = super::template::read_mapping(
        template,
        crate::diag::codes::HOT_TEMPLATE_PARSE,
        "",
        &input.limits,
    )
    .unwrap_or_default();
    // A JSON template is data without spans: its keys are located through
    // the same text read as Heat's YAML.
    let ttree =
        ttree.or_else(|| crate::yaml::load(&template.text, crate::yaml::Dialect::Heat).ok());
    let envs: Vec<super::env::EnvFile> = input
        .environments
        .iter()
        .filter_map(|f| super::env::read(f, &input.limits).ok())
        .collect();
    let mut defaults = LayerWrites::new();
    for (k, def) in tdata
        .get("parameters")
        .and_then(Value::as_map)
        .map(Map::iter)
        .into_iter()
        .flatten()
    {
        let name = k.py_str();
        if let Some(d) = def.get("default") {
            defaults.push((
                vec![name.clone()],
                at(template, ttree.as_ref(), &["parameters", &name, "default"]),
                mask(&name, d),
            ));
        }
    }
    push(
        "template-default",
        template.name.clone(),
        "default",
        defaults,
    );
    let section = |e: &super::env::EnvFile, key: &str| -> LayerWrites {
        e.data
            .get(key)
            .and_then(Value::as_map)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let name = k.py_str();
                        let place = at(&e.file, e.tree.as_ref(), &[key, &name]);
                        (vec![name.clone()], place, mask(&name, v))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let rule = |e: &super::env::EnvFile| match e.data.get("parameter_merge_strategies") {
        Some(s) => format!("parameter_merge_strategies {}", s.to_json()),
        None => "overwrite".to_string(),
    };
    for e in &envs {
        push(
            "heat-env-parameter-defaults",
            e.file.name.clone(),
            &rule(e),
            section(e, "parameter_defaults"),
        );
    }
    let cli: LayerWrites = input
        .parameters
        .iter()
        .map(|(k, v)| (vec![k.clone()], None, mask(k, v)))
        .collect();
    let env_params = |push: &mut dyn FnMut(&str, String, &str, LayerWrites)| {
        for e in &envs {
            push(
                "heat-env-parameters",
                e.file.name.clone(),
                &rule(e),
                section(e, "parameters"),
            );
        }
    };
    match input.env_mode {
        EnvMode::Server => {
            push("heat-cli-param", "cli:-P".into(), "overwrite", cli);
            env_params(&mut push);
        }
        EnvMode::Client => {
            env_params(&mut push);
            push(
                "heat-cli-param",
                "cli:-P".into(),
                "overwrite (client mode: -P wins)",
                cli,
            );
        }
    }
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
