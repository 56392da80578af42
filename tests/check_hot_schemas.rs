//! The HOT resource schemas of `lowstate check --hot`
//! (`src/hot/check/schemas/*.yaml`) and their catalogue
//! (`src/hot/check/catalogue.rs`) are generated from
//! `tests/data/heat-27.0.1-resource-schemas.json` (what Heat 27.0.1 reports
//! for every resource type). This test regenerates them in memory and fails
//! when a file's generated part differs; with `LOWSTATE_REGEN_SCHEMAS=1` it
//! rewrites them instead. Everything below a file's marker line is
//! hand-written (groups, notes) and kept verbatim. A second test loads
//! every schema file with the schema loader, so a schema that does not
//! parse fails here and never in a user's run.
//!
//! The catalogue `include_str!`s every file, so a schema file that is
//! missing stops the crate from building at all: restore it with git (a
//! type new in the data gets its file and its catalogue line from a
//! regeneration; a file whose type left the data is reported, to delete).

use serde_json::Value as Json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The line between the generated part and the hand-written part.
const MARKER: &str =
    "# ---- hand-written below this line (kept when the part above is regenerated) ----";

const DATA: &str = "tests/data/heat-27.0.1-resource-schemas.json";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema_dir() -> PathBuf {
    root().join("src/hot/check/schemas")
}

fn file_name(type_name: &str) -> String {
    format!("{}.yaml", type_name.replace("::", "__"))
}

fn regen() -> bool {
    std::env::var("LOWSTATE_REGEN_SCHEMAS").is_ok_and(|v| v == "1")
}

fn data() -> Json {
    let text = std::fs::read_to_string(root().join(DATA)).expect("the schema data file");
    serde_json::from_str(&text).expect("the schema data file is JSON")
}

/// A YAML key: plain when it cannot be read as anything but a string.
fn key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        k.to_string()
    } else {
        Json::String(k.to_string()).to_string()
    }
}

/// The schema `type` word of a Heat type (`any` has none).
fn type_word(t: &str) -> Option<&'static str> {
    match t {
        "string" => Some("string"),
        "integer" => Some("integer"),
        "number" => Some("number"),
        "boolean" => Some("boolean"),
        "list" => Some("list"),
        "map" => Some("mapping"),
        _ => None,
    }
}

/// A value in YAML flow style (JSON scalars, `, ` between items).
fn flow(v: &Json) -> String {
    match v {
        Json::Array(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Json::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, x)| format!("{}: {}", Json::String(k.clone()), flow(x)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

fn bounds(b: &Json) -> String {
    let mut parts = Vec::new();
    for k in ["min", "max"] {
        if let Some(v) = b.get(k).filter(|v| !v.is_null()) {
            parts.push(format!("{k}: {v}"));
        }
    }
    format!("{{{}}}", parts.join(", "))
}

/// The flow entries of one property (without its nested schema), and the
/// custom constraints only a cloud can check.
fn entries(p: &Json) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut custom = Vec::new();
    let ty = p.get("type").and_then(Json::as_str).unwrap_or("any");
    if let Some(w) = type_word(ty) {
        out.push(format!("type: {w}"));
    }
    if p.get("required").and_then(Json::as_bool) == Some(true) {
        out.push("required: true".into());
    }
    if let Some(d) = p.get("default").filter(|d| !d.is_null()) {
        out.push(format!("default: {}", flow(d)));
    }
    for c in p
        .get("constraints")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(v) = c.get("allowed_values") {
            // Heat checks each item of a list value against the list.
            let k = if ty == "list" {
                "item_values"
            } else {
                "values"
            };
            out.push(format!("{k}: {}", flow(v)));
        }
        if let Some(r) = c.get("range") {
            out.push(format!("range: {}", bounds(r)));
        }
        if let Some(r) = c.get("length") {
            out.push(format!("length: {}", bounds(r)));
        }
        if let Some(pat) = c.get("allowed_pattern").and_then(Json::as_str) {
            // Heat: re.match(pattern, value) and the match ends at the end.
            let anchored = Json::String(format!("^(?:{pat})$"));
            out.push(format!("pattern: {anchored}"));
        }
        if let Some(cc) = c.get("custom_constraint").and_then(Json::as_str) {
            custom.push(cc.to_string());
        }
    }
    (out, custom)
}

/// One rule (`head` is `name:` or `items:`) at `indent`.
fn rule(out: &mut String, indent: usize, head: &str, p: &Json) {
    let pad = " ".repeat(indent);
    let (flow, custom) = entries(p);
    let comment = if custom.is_empty() {
        String::new()
    } else {
        format!("  # {}: checked by the cloud", custom.join(", "))
    };
    let ty = p.get("type").and_then(Json::as_str).unwrap_or("any");
    let nested = p.get("schema").and_then(Json::as_object);
    let Some(nested) = nested else {
        let _ = writeln!(out, "{pad}{head} {{{}}}{comment}", flow.join(", "));
        return;
    };
    let _ = writeln!(out, "{pad}{head}{comment}");
    for e in &flow {
        let _ = writeln!(out, "{pad}  {e}");
    }
    match (ty, nested.get("*")) {
        ("list", Some(item)) => rule(out, indent + 2, "items:", item),
        _ => {
            let _ = writeln!(out, "{pad}  schema:");
            for (k, v) in nested {
                rule(out, indent + 4, &format!("{}:", key(k)), v);
            }
        }
    }
}

/// The generated part of one type's schema file (ends with the marker).
fn generate(name: &str, t: &Json) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {name}: the properties Heat 27.0.1 declares (type, required, default, allowed values,"
    );
    let _ = writeln!(
        out,
        "# range, length, allowed pattern), generated from {DATA} by"
    );
    let _ = writeln!(
        out,
        "# tests/check_hot_schemas.rs (LOWSTATE_REGEN_SCHEMAS=1 to rewrite). Edit below the marker only."
    );
    if let Some(st) = t.get("support_status") {
        let status = st.get("status").and_then(Json::as_str).unwrap_or("");
        if status != "SUPPORTED" {
            let msg = st.get("message").and_then(Json::as_str).unwrap_or("");
            let _ = writeln!(out, "# Heat's support status: {status}. {msg}");
        }
    }
    out.push_str("schema: lowstate/state-args/1\n");
    let _ = writeln!(out, "resource: {name}");
    out.push_str("heat: \"27.0.1\"\n");
    let props = t.get("properties").and_then(Json::as_object);
    match props {
        Some(props) if !props.is_empty() => {
            out.push_str("properties:\n");
            for (k, v) in props {
                rule(&mut out, 2, &format!("{}:", key(k)), v);
            }
        }
        _ => out.push_str("properties: {}\n"),
    }
    out.push_str(MARKER);
    out.push('\n');
    out
}

fn catalogue(names: &[&String]) -> String {
    let mut out = String::new();
    out.push_str("//! Generated by `tests/check_hot_schemas.rs` from\n");
    let _ = writeln!(out, "//! `{DATA}`: do not edit.");
    out.push('\n');
    out.push_str(
        "/// Every resource type Heat 27.0.1 registers and the text of its schema\n\
         /// file, sorted by type name.\n",
    );
    out.push_str("#[rustfmt::skip]\n");
    out.push_str("pub(super) const CATALOGUE: &[(&str, &str)] = &[\n");
    for n in names {
        let _ = writeln!(
            out,
            "    ({}, include_str!(\"schemas/{}\")),",
            Json::String(n.to_string()),
            file_name(n)
        );
    }
    out.push_str("];\n");
    out
}

/// The first line where two texts differ, for the failure message.
fn first_diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i), g.get(i));
        if a != b {
            return format!(
                "line {}: generated {:?}, file has {:?}",
                i + 1,
                a.unwrap_or(&"<end>"),
                b.unwrap_or(&"<end>")
            );
        }
    }
    "no difference".into()
}

#[test]
fn generated_schemas_match_the_data() {
    let data = data();
    let types = data["types"].as_object().expect("a `types` mapping");
    let dir = schema_dir();
    if regen() {
        std::fs::create_dir_all(&dir).expect("the schema directory");
    }
    let mut problems = Vec::new();
    for (name, t) in types {
        let path = dir.join(file_name(name));
        let generated = generate(name, t);
        let current = std::fs::read_to_string(&path).ok();
        let (head, tail) = match &current {
            Some(text) => match text.find(&format!("{MARKER}\n")) {
                Some(i) => (
                    text[..i + MARKER.len() + 1].to_string(),
                    text[i + MARKER.len() + 1..].to_string(),
                ),
                None => (text.clone(), String::new()),
            },
            None => (String::new(), String::new()),
        };
        if head == generated {
            continue;
        }
        if regen() {
            std::fs::write(&path, format!("{generated}{tail}")).expect("write a schema file");
            continue;
        }
        problems.push(match current {
            None => format!("{}: missing", path.display()),
            Some(_) => format!(
                "{}: the generated part differs from the data ({})",
                path.display(),
                first_diff(&generated, &head)
            ),
        });
    }
    // Files for types the data no longer has.
    let mut known: Vec<String> = types.keys().map(|n| file_name(n)).collect();
    known.sort();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        if f.ends_with(".yaml") && known.binary_search(&f).is_err() {
            problems.push(format!(
                "{}: no such type in {DATA} (delete the file)",
                e.path().display()
            ));
        }
    }
    let mut names: Vec<&String> = types.keys().collect();
    names.sort();
    let cat = catalogue(&names);
    let cat_path = root().join("src/hot/check/catalogue.rs");
    let current = std::fs::read_to_string(&cat_path).unwrap_or_default();
    if current != cat {
        if regen() {
            std::fs::write(&cat_path, &cat).expect("write the catalogue");
        } else {
            problems.push(format!(
                "{}: differs from the generated catalogue ({})",
                cat_path.display(),
                first_diff(&cat, &current)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} schema file(s) out of date; run `LOWSTATE_REGEN_SCHEMAS=1 cargo test --test check_hot_schemas`:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn schema_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(schema_dir())
        .expect("the schema directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_schema_file_parses() {
    let mut problems = Vec::new();
    let files = schema_files();
    assert!(files.len() >= 163, "only {} schema files", files.len());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match lowstate::rules::parse_schema(&name, &text) {
            Ok(s) => {
                let want = name.trim_end_matches(".yaml").replace("__", "::");
                if s.name != want || s.noun != "property" {
                    problems.push(format!("{name}: declares `{}`, not {want}", s.name));
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(lowstate::hot::check::types().count(), files.len());
}

#[test]
fn the_marker_is_in_every_file() {
    for path in schema_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            text.lines().filter(|l| *l == MARKER).count() == 1,
            "{}: needs exactly one marker line",
            Path::new(&path).display()
        );
    }
}
