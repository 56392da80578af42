//! The Salt argument schemas (`src/salt/check/schemas/*.yaml`) against the
//! argspec data they are generated from (`tests/data/check/`, Salt 3008.5's
//! `sys.state_argspec`): the generated part of every file must equal what
//! the data gives, every file must parse, and the catalogue that compiles
//! them into the binary must list exactly these files.
//!
//! Generated per function: `loaded` (and `needs`), `unknown_args` (`abort-run`
//! without `**kwargs`; `pass-through` when the function hands `**kwargs` on
//! to another, per `salt-3008.5-state-kwargs.json`, an AST scan of Salt's
//! source; else `ignore`), each argspec argument's `required`/`default`, and
//! the names the function reads from `**kwargs` (`undeclared: true`).
//!
//! `LOWSTATE_REGEN_SCHEMAS=1 cargo test --test check_schemas` rewrites the
//! generated parts. It keeps, per file: the hand-written keys inside an
//! argument's braces, hand-written arguments, and everything below the
//! marker line (groups, versions, `unknown_args_override`, ...).

use lowstate::value::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MARKER: &str = "# --- hand-written (kept across regeneration) ---";
const GENERATED: &[&str] = &["required", "default", "undeclared"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn data_kwargs() -> serde_json::Value {
    data("salt-3008.5-state-kwargs.json")
}

fn data(name: &str) -> serde_json::Value {
    let text =
        std::fs::read_to_string(root().join("tests/data/check").join(name)).expect("data file");
    serde_json::from_str(&text).expect("data JSON")
}

fn argspec() -> serde_json::Value {
    data("salt-3008.5-state-argspec.json")
}

/// A value in YAML flow style (plain where that reads back the same).
fn flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(_) => v.py_repr(),
        Value::Str(s) => {
            let plain = !s.is_empty()
                && s.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '/')
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
                && lowstate::yaml::load_value(s, lowstate::yaml::Dialect::Salt)
                    .ok()
                    .as_ref()
                    == Some(v);
            if plain {
                s.to_string()
            } else {
                serde_json::Value::String(s.to_string()).to_string()
            }
        }
        Value::List(l) => format!("[{}]", l.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Map(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", flow(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

struct Existing {
    /// Argument → its hand-written keys (in file order).
    hand: BTreeMap<String, Vec<(String, Value)>>,
    /// Hand-written arguments (not in the argspec), in file order.
    extra: Vec<(String, String)>,
    tail: String,
}

fn read_existing(text: &str, known: &[String]) -> Existing {
    let mut out = Existing {
        hand: BTreeMap::new(),
        extra: Vec::new(),
        tail: String::new(),
    };
    let (head, tail) = match text.find(MARKER) {
        Some(i) => (&text[..i], &text[i + MARKER.len()..]),
        None => (text, ""),
    };
    out.tail = tail.trim_start_matches('\n').to_string();
    let mut in_args = false;
    for line in head.lines() {
        if line.starts_with("arguments:") {
            in_args = true;
            continue;
        }
        if !line.starts_with("  ") {
            in_args = false;
        }
        if !in_args || line.trim().is_empty() {
            continue;
        }
        let Some((name, body)) = line.trim().split_once(": ") else {
            continue;
        };
        let name = name.to_string();
        if !known.contains(&name) {
            out.extra.push((name, body.to_string()));
            continue;
        }
        let v = lowstate::yaml::load_value(body, lowstate::yaml::Dialect::Salt)
            .unwrap_or_else(|e| panic!("{line}: {e:?}"));
        let keys = v
            .as_map()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| !GENERATED.contains(&k.as_str().unwrap_or("")))
                    .map(|(k, v)| (k.py_str(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        out.hand.insert(name, keys);
    }
    out
}

/// The whole file for `fun`, given what it holds now.
fn generate(
    fun: &str,
    spec: &serde_json::Value,
    module: &serde_json::Value,
    kwargs: &serde_json::Value,
    old: &str,
) -> String {
    let declared: Vec<String> = spec["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let read: Vec<String> = kwargs["reads"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .filter(|n| !declared.contains(n))
                .collect()
        })
        .unwrap_or_default();
    let mut args = declared.clone();
    args.extend(read.iter().cloned());
    let defaults: Vec<serde_json::Value> = spec["defaults"].as_array().cloned().unwrap_or_default();
    let first_default = declared.len().saturating_sub(defaults.len());
    let existing = read_existing(old, &args);
    let mut out = String::new();
    out.push_str(&format!(
        "# {fun}: generated from tests/data/check/salt-3008.5-state-argspec.json\n\
         # (regenerate: LOWSTATE_REGEN_SCHEMAS=1 cargo test --test check_schemas); hand-written\n\
         # keys in an argument's braces, `undeclared` arguments and the part below the marker stay.\n"
    ));
    out.push_str("schema: lowstate/state-args/1\n");
    out.push_str(&format!("function: {fun}\n"));
    out.push_str("salt: \"3008.5\"\n");
    match module["loaded"].as_str() {
        Some("stub") => {
            out.push_str("loaded: stub\n");
            let needs: Vec<String> = module["stub_binaries"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            out.push_str(&format!("needs: [{}]\n", needs.join(", ")));
        }
        _ => out.push_str("loaded: host\n"),
    }
    let unknown = if spec["kwargs"].as_bool() != Some(true) {
        "abort-run"
    } else if kwargs["forwards"].as_bool() == Some(true) {
        "pass-through"
    } else {
        "ignore"
    };
    out.push_str(&format!("unknown_args: {unknown}\n"));
    out.push_str(if args.is_empty() && existing.extra.is_empty() {
        "arguments: {}\n"
    } else {
        "arguments:\n"
    });
    for (i, name) in args.iter().enumerate() {
        let mut parts = Vec::new();
        if i >= declared.len() {
            parts.push("undeclared: true".to_string());
        } else if i < first_default {
            parts.push("required: true".to_string());
        } else {
            let d = Value::from_json(&defaults[i - first_default]);
            parts.push(format!("default: {}", flow(&d)));
        }
        for (k, v) in existing
            .hand
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            parts.push(format!("{k}: {}", flow(v)));
        }
        out.push_str(&format!("  {name}: {{{}}}\n", parts.join(", ")));
    }
    for (name, body) in &existing.extra {
        out.push_str(&format!("  {name}: {body}\n"));
    }
    out.push_str(MARKER);
    out.push('\n');
    out.push_str(&existing.tail);
    out
}

fn schema_dir() -> PathBuf {
    root().join("src/salt/check/schemas")
}

fn catalogue(functions: &[String]) -> String {
    let mut out = String::from(
        "//! The compiled-in schema files, one per Salt 3008.5 state function\n\
         //! (generated with them by `tests/check_schemas.rs`; do not edit).\n\n\
         /// Function name → schema file text, sorted by name.\n\
         #[rustfmt::skip]\n\
         pub(super) const SCHEMAS: &[(&str, &str)] = &[\n",
    );
    for f in functions {
        out.push_str(&format!(
            "    (\"{f}\", include_str!(\"schemas/{f}.yaml\")),\n"
        ));
    }
    out.push_str("];\n\n/// State modules that did not load where the data was made, with Salt's reason\n/// (`module<TAB>reason` lines).\npub(super) const NOT_LOADED: &str = include_str!(\"not-loaded.tsv\");\n");
    out
}

fn not_loaded(spec: &serde_json::Value) -> String {
    let mut out = String::new();
    if let Some(m) = spec["not_loaded"].as_object() {
        let mut names: Vec<&String> = m.keys().collect();
        names.sort();
        for n in names {
            out.push_str(&format!("{n}\t{}\n", m[n].as_str().unwrap_or("")));
        }
    }
    out
}

#[test]
fn generated_parts_match_the_argspec_data() {
    let data = argspec();
    let kwargs = data_kwargs();
    let regen = std::env::var_os("LOWSTATE_REGEN_SCHEMAS").is_some();
    let dir = schema_dir();
    let functions = data["functions"].as_object().expect("functions");
    let mut names: Vec<String> = functions.keys().cloned().collect();
    names.sort();
    let mut stale = Vec::new();
    let mut want_files = vec![(
        root().join("src/salt/check/catalogue.rs"),
        catalogue(&names),
    )];
    want_files.push((
        root().join("src/salt/check/not-loaded.tsv"),
        not_loaded(&data),
    ));
    for name in &names {
        let module = name.split('.').next().unwrap_or("");
        let path = dir.join(format!("{name}.yaml"));
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let new = generate(
            name,
            &functions[name],
            &data["modules"][module],
            &kwargs["functions"][name.as_str()],
            &old,
        );
        want_files.push((path, new));
    }
    for (path, want) in &want_files {
        let have = std::fs::read_to_string(path).unwrap_or_default();
        if &have != want {
            if regen {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, want).unwrap();
            } else {
                stale.push(path.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    // A schema file for a function the data does not have.
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        if let Some(name) = file.strip_suffix(".yaml") {
            if !names.iter().any(|n| n == name) {
                stale.push(format!("{file} (no such function in the data)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "schema files differ from the argspec data (run LOWSTATE_REGEN_SCHEMAS=1 cargo test --test check_schemas):\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn every_schema_file_parses() {
    let mut bad = Vec::new();
    let mut n = 0;
    for entry in std::fs::read_dir(schema_dir()).expect("schemas").flatten() {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        match lowstate::rules::parse_schema(&file, &text) {
            Ok(s) => {
                n += 1;
                assert_eq!(format!("{}.yaml", s.name), file);
            }
            Err(e) => bad.push(e.to_string()),
        }
    }
    assert!(
        bad.is_empty(),
        "schema files that do not parse:\n{}",
        bad.join("\n")
    );
    assert_eq!(n, 319);
}
