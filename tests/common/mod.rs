//! Helpers shared by the integration tests.

use serde_json::Value as Json;

/// A known-failures list: `group/case/mode reason...` lines (`#` starts a
/// comment), key → reason. Such cases must still fail.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn known_failures(path: &std::path::Path) -> std::collections::HashMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((k, r)) => (k.to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// The first JSON path where `actual` differs from `expected` (objects as
/// maps, arrays by position, numbers numerically), or `None` when equal.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn first_difference(expected: &Json, actual: &Json, path: &str) -> Option<String> {
    difference(expected, actual, path, false)
}

/// As [`first_difference`], but an integer never equals a float (`1` vs `1.0`).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn first_difference_exact(expected: &Json, actual: &Json, path: &str) -> Option<String> {
    difference(expected, actual, path, true)
}

fn difference(expected: &Json, actual: &Json, path: &str, exact: bool) -> Option<String> {
    match (expected, actual) {
        (Json::Object(x), Json::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(format!("{path}.{k}: missing (expected {v})")),
                    Some(w) => {
                        if let Some(d) = difference(v, w, &format!("{path}.{k}"), exact) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}: unexpected key"))
        }
        (Json::Array(x), Json::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = difference(v, w, &format!("{path}[{i}]"), exact) {
                    return Some(d);
                }
            }
            (x.len() != y.len())
                .then(|| format!("{path}: expected {} items, got {}", x.len(), y.len()))
        }
        (Json::Number(x), Json::Number(y)) => {
            let same = x.as_f64() == y.as_f64() && (!exact || x.is_f64() == y.is_f64());
            (!same).then(|| format!("{path}: expected {x}, got {y}"))
        }
        _ => (expected != actual).then(|| format!("{path}: expected {expected}, got {actual}")),
    }
}

/// Run the `lowstate` binary with `args` in directory `dir`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn lowstate_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run lowstate")
}

/// A pillar-merge case of `tests/data/salt-3008.5-pillar-merge.json` as a
/// config directory under `dir`: its files, and a `minion` with its
/// options. Its `extra_args` are arguments of the call (`pillarenv=dev`),
/// not options: the caller passes them as flags.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn pillar_case(case: &Json, dir: &std::path::Path) {
    let inputs = &case["inputs"];
    std::fs::create_dir_all(dir.join("states")).unwrap();
    for (file, text) in inputs["files"].as_object().unwrap() {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.as_str().unwrap()).unwrap();
    }
    let mut config = serde_json::json!({
        "id": "oracle-minion",
        "file_roots": {"base": ["states"]},
        "pillar_roots": inputs.get("roots").cloned().unwrap_or(serde_json::json!({"base": ["p"]})),
    });
    for (k, v) in inputs["opts"].as_object().into_iter().flatten() {
        config[k] = v.clone();
    }
    std::fs::write(dir.join("minion"), config.to_string()).unwrap();
}

/// The env-merge cases of Heat (`tests/data/heat-27.0.1-env-merge.json`)
/// and their template written under `tmp` as 2016-10-14 (a version
/// lowstate compiles; the layering does not depend on it).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn heat_env_cases(tmp: &std::path::Path) -> (Json, std::path::PathBuf) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let data: Json = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/heat-27.0.1-env-merge.json")).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(tmp).unwrap();
    let template = tmp.join("t.yaml");
    std::fs::write(
        &template,
        data["template"]
            .as_str()
            .unwrap()
            .replace("2018-08-31", "2016-10-14"),
    )
    .unwrap();
    (data, template)
}

/// Run the `lowstate` binary from the repository root (without `NO_COLOR`).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn lowstate(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .output()
        .expect("run lowstate")
}

/// A conformance case's config as the oracle ran Salt with it: `salt-case`
/// adds the minion `id` to the configured grains when they lack it (its
/// `grains_blacklist: ['*']` drops Salt's own `id` grain with the rest).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn oracle_config(case: &std::path::Path) -> Result<lowstate::salt::config::Config, String> {
    use lowstate::value::Value;
    let mut raw = lowstate::salt::config::Config::read_raw(case).map_err(|d| d.message)?;
    let id = raw
        .get("id")
        .map(Value::py_str)
        .unwrap_or_else(|| "minion".into());
    if let Some(Value::Map(grains)) = raw.get_mut("grains") {
        if !grains.contains_key("id") {
            grains.insert("id".into(), Value::str(id.as_str()));
        }
    }
    lowstate::salt::config::Config::from_raw(case, raw).map_err(|d| d.message)
}

/// The subcommands `lowstate --help` lists, without `help`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn help_commands() -> Vec<String> {
    let help = String::from_utf8_lossy(&lowstate(&["--help"]).stdout).into_owned();
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 8, "{help}");
    commands
}

/// The leaf at `path` of an `--explain-format json` document (`pillar`,
/// `config`, `grains` and `hot --explain` print the same shape).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn explain_leaf<'a>(doc: &'a Json, path: &str) -> &'a Json {
    doc["leaves"]
        .as_array()
        .unwrap_or_else(|| panic!("no leaves in {doc}"))
        .iter()
        .find(|l| l["path"] == path)
        .unwrap_or_else(|| panic!("no leaf {path}: {doc}"))
}

/// Copy the directory tree `src` to `dst` (files and folders).
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn copy_dir(src: &std::path::Path, dst: &std::path::Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let p = e.path();
        let to = dst.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &to);
        } else {
            std::fs::copy(&p, &to).unwrap();
        }
    }
}
