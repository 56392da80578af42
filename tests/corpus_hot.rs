//! The HOT conformance corpus (`tests/corpus-hot/`, expected outputs from
//! Heat 27.0.1's engine): one test per case. `expect: ok` cases compare the
//! whole JSON document (object key order ignored, array order and int vs
//! float kept) and show the first differing JSON path; `expect: error`
//! cases check the kind of the first diagnostic and that the diagnostics
//! mention every `error_mentions` string. Every rendered diagnostic of an
//! error case is snapshot-tested. Cases listed in
//! `tests/corpus-hot-known-failures.txt` are expected to fail.

mod common;

use common::first_difference_exact as first_difference;
use libtest_mimic::{Arguments, Failed, Trial};
use lowstate::diag::SourceFile;
use lowstate::hot::{self, Context, EnvMode, Input};
use lowstate::value::Value;
use std::path::{Path, PathBuf};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let known = known_failures(&root.join("corpus-hot-known-failures.txt"));
    let mut trials = Vec::new();
    for dir in [
        "corpus-hot",
        "corpus-hot-extra",
        "corpus-hot-nested",
        "corpus-hot-update",
    ] {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        // A missing or empty corpus folder is a failure, not zero trials.
        let count = cases.len();
        trials.push(Trial::test(format!("{dir}/corpus-present"), move || {
            if count == 0 {
                return Err(format!("no corpus case under tests/{dir}").into());
            }
            Ok(())
        }));
        for case in cases {
            let name = format!("{dir}/{}", case.file_name().unwrap().to_string_lossy());
            let expect_fail = known.iter().any(|k| k == &name);
            trials.push(Trial::test(name.clone(), move || {
                match (run_case(&case, &name), expect_fail) {
                    (r, false) => r,
                    (Ok(()), true) => Err(
                        "passes now but is listed in corpus-hot-known-failures.txt: remove it"
                            .into(),
                    ),
                    (Err(_), true) => Ok(()),
                }
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn known_failures(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn source(path: &Path, name: String) -> std::sync::Arc<SourceFile> {
    SourceFile::new(name, std::fs::read_to_string(path).unwrap_or_default())
}

/// The compiler's input for a case directory.
pub fn input_of(case: &Path) -> (Input, Value) {
    let meta = lowstate::yaml::load_value(
        &std::fs::read_to_string(case.join("case.yaml")).unwrap_or_default(),
        lowstate::yaml::Dialect::Salt,
    )
    .unwrap_or(Value::Null);
    let template = if case.join("template.yaml").is_file() {
        case.join("template.yaml")
    } else {
        case.join("template.json")
    };
    let mut envs: Vec<PathBuf> = std::fs::read_dir(case.join("env"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    envs.sort();
    let parameters = std::fs::read_to_string(case.join("params.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .map(|j| match Value::from_json(&j) {
            Value::Map(m) => m.into_iter().map(|(k, v)| (k.py_str(), v)).collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    // heat-oracle's stack, unless the case names its own.
    let mut context = Context {
        stack_name: "oracle_stack".into(),
        stack_id: "00000000-0000-4000-8000-000000000001".into(),
        project_id: "oracle-project".into(),
    };
    if let Some(c) = meta.get("context") {
        let get = |k: &str, d: &str| c.get(k).map_or(d.to_string(), Value::py_str);
        context = Context {
            stack_name: get("stack_name", &context.stack_name),
            stack_id: get("stack_id", &context.stack_id),
            project_id: get("project_id", &context.project_id),
        };
    }
    let input = Input {
        template: Some(source(&template, file_name(&template))),
        environments: envs
            .iter()
            .map(|p| source(p, format!("env/{}", file_name(p))))
            .collect(),
        parameters,
        files_dir: Some(case.to_path_buf()),
        files_root: None,
        env_mode: match meta.get("env_mode").and_then(Value::as_str) {
            Some("client") => EnvMode::Client,
            _ => EnvMode::Server,
        },
        context,
        parent: meta.get("parent").cloned(),
        max_template_size: None,
        limits: Default::default(),
        nested: meta.get("nested").is_some_and(Value::truthy),
        plan: false,
        unset: Default::default(),
    };
    (input, meta)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn run_case(case: &Path, name: &str) -> Result<(), Failed> {
    let (input, meta) = input_of(case);
    // An update case: CASE holds the new stack, CASE/old the old one.
    let result = if case.join("old").is_dir() {
        let (old, _) = input_of(&case.join("old"));
        let old = Input {
            env_mode: match meta.get("old_env_mode").and_then(Value::as_str) {
                Some("client") => EnvMode::Client,
                Some(_) => EnvMode::Server,
                None => input.env_mode,
            },
            ..old
        };
        hot::update::preview(&old, &input)
    } else {
        let compiled = hot::compile(&input);
        // The drawings' plan changes nothing in the document.
        let drawn = hot::compile(&Input {
            plan: true,
            ..input.clone()
        });
        let human = |c: &hot::Compiled| lowstate::diag::render::human(&c.diagnostics, false);
        if drawn.document != compiled.document || human(&drawn) != human(&compiled) {
            return Err("the document or diagnostics differ when the plan is built".into());
        }
        compiled
    };
    let expect = meta.get("expect").and_then(Value::as_str).unwrap_or("ok");
    if expect == "error" {
        let kind = meta
            .get("error_kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(first) = result.diagnostics.iter().find(|d| d.is_error()) else {
            return Err(format!(
                "expected a {kind} error, compiled:\n{}",
                truncate(&result.document.to_json_pretty())
            )
            .into());
        };
        let got = hot::kind_of(first.code);
        if got != kind {
            return Err(format!("first error is {got}, expected {kind}: {}", first.message).into());
        }
        let text = lowstate::diag::render::human(&result.diagnostics, false);
        for m in meta
            .get("error_mentions")
            .and_then(Value::as_list)
            .into_iter()
            .flatten()
        {
            let m = m.py_str();
            if !text.contains(&m) {
                return Err(format!("diagnostics do not mention {m:?}:\n{text}").into());
            }
        }
        insta::with_settings!({
            snapshot_path => "snapshots/corpus-hot",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name.replace('/', "__"), text);
        });
        return Ok(());
    }
    if !result.ok() {
        return Err(format!(
            "expected ok, failed:\n{}",
            lowstate::diag::render::human(&result.diagnostics, false)
        )
        .into());
    }
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(case.join("expected.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let actual: serde_json::Value =
        serde_json::from_str(&result.document.to_json_pretty()).map_err(|e| e.to_string())?;
    match first_difference(&expected, &actual, "$") {
        None => Ok(()),
        Some(d) => Err(d.into()),
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(3000).collect()
}
