//! The Salt conformance corpus as data-driven tests: one trial per case
//! directory and mode under `tests/corpus/`. Expected files came from real
//! Salt 3008.5. Cases listed in `tests/corpus-known-failures.txt` must still
//! fail (a case that starts passing must be removed from the list).

mod common;

use common::{first_difference, known_failures};
use libtest_mimic::{Arguments, Failed, Trial};
use lowstate::diag::Diagnostics;
use lowstate::salt::config::SaltVersion;
use lowstate::salt::pipeline::{Options, Session};
use lowstate::value::Value;
use std::path::{Path, PathBuf};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let known = known_failures(&root.join("corpus-known-failures.txt"));
    let mut trials = Vec::new();
    for (group, dir, version) in [
        ("salt", root.join("corpus"), SaltVersion::V3008),
        ("salt3006", root.join("corpus-3006"), SaltVersion::V3006),
        ("extra", root.join("corpus-extra"), SaltVersion::V3008),
    ] {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        // A missing or empty corpus folder is a failure, not zero trials.
        let shown = dir.display().to_string();
        let count = cases.len();
        trials.push(Trial::test(format!("{group}/corpus-present"), move || {
            if count == 0 {
                return Err(format!("no corpus case under {shown}").into());
            }
            Ok(())
        }));
        for case in cases {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            for mode in ["highstate", "lowstate", "runorder"] {
                if !case.join("expected").join(format!("{mode}.json")).is_file() {
                    continue;
                }
                let key = format!("{group}/{name}/{mode}");
                let expect_fail = known.get(&key).cloned();
                let case = case.clone();
                let snapshot_name = key.replace('/', "__");
                trials.push(Trial::test(key, move || {
                    let result = run_case(&case, mode, version, &snapshot_name);
                    match (result, expect_fail) {
                        (r, None) => r,
                        (Ok(()), Some(reason)) => Err(format!(
                            "passes now but is listed in corpus-known-failures.txt ({reason}): remove it from the list"
                        )
                        .into()),
                        (Err(_), Some(_)) => Ok(()),
                    }
                }));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

struct CaseMeta {
    expect_error: bool,
    mentions: Vec<String>,
}

fn meta(case: &Path) -> CaseMeta {
    let text = std::fs::read_to_string(case.join("case.yaml")).unwrap_or_default();
    let v = lowstate::yaml::load_value(&text, lowstate::yaml::Dialect::Salt).unwrap_or_default();
    CaseMeta {
        expect_error: v.get("expect").and_then(Value::as_str) == Some("error"),
        mentions: v
            .get("error_mentions")
            .and_then(Value::as_list)
            .map(|l| l.iter().map(Value::py_str).collect())
            .unwrap_or_default(),
    }
}

fn run_case(
    case: &Path,
    mode: &str,
    version: SaltVersion,
    snapshot_name: &str,
) -> Result<(), Failed> {
    let meta = meta(case);
    let expected_text = std::fs::read_to_string(case.join("expected").join(format!("{mode}.json")))
        .map_err(|e| format!("cannot read expected: {e}"))?;
    let expected: serde_json::Value =
        serde_json::from_str(&expected_text).map_err(|e| format!("bad expected json: {e}"))?;
    let config = common::oracle_config(case).map_err(|m| format!("config: {m}"))?;
    let session = Session::new(
        config,
        Options {
            version: Some(version),
            ..Options::default()
        },
    );
    let actual: Result<Value, Diagnostics> = match mode {
        "highstate" => session.highstate().and_then(|hs| {
            if hs.errors.is_empty() {
                Ok(Value::Map(hs.high))
            } else {
                Err(hs.errors.into())
            }
        }),
        "lowstate" => session
            .lowstate()
            .map(|c| Value::List(c.into_iter().map(Value::Map).collect())),
        "runorder" => session
            .simulate(&lowstate::salt::simulate::Assumptions::new())
            .map(|r| r.to_value()),
        _ => unreachable!(),
    };
    // Salt failed in this mode when its output is a list of messages, or
    // (error cases 109, 121) an empty result.
    let salt_failed = match &expected {
        serde_json::Value::Array(items) => {
            !items.is_empty() && items.iter().all(serde_json::Value::is_string)
                || (items.is_empty() && meta.expect_error)
                // state.apply's "No States" pseudo result
                || (meta.expect_error && items.len() == 1 && items[0]["id"] == "states")
        }
        serde_json::Value::Object(o) => o.is_empty() && meta.expect_error,
        _ => false,
    };
    if salt_failed {
        let diags = match actual {
            Ok(v) => {
                return Err(format!(
                    "expected a compile error, got output:\n{}",
                    truncate(&v.to_json_pretty())
                )
                .into())
            }
            Err(d) => d,
        };
        // Every rendered diagnostic is pinned: a refactor that moves a span
        // or rewords a message shows up in review.
        // File names are relative to the case directory, wherever the
        // checkout is.
        let rendered = format!(
            "{}---- json ----\n{}\n",
            lowstate::diag::render::human(&diags.0, false),
            lowstate::diag::render::json(&diags.0)
        )
        .replace(&format!("{}/", case.display()), "");
        insta::with_settings!({
            snapshot_path => "snapshots/corpus",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(snapshot_name, rendered);
        });
        let all: String = diags
            .0
            .iter()
            .map(|d| {
                format!(
                    "{}\n{}\n{}\n{}\n",
                    d.message,
                    d.notes.join("\n"),
                    d.subjects
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    ""
                )
            })
            .collect();
        for m in &meta.mentions {
            if !all.contains(m.as_str()) {
                return Err(format!("diagnostics do not mention {m:?}:\n{all}").into());
            }
        }
        // Where Salt's own message list is known exactly, match it too
        // (except messages that embed a Python traceback).
        if let serde_json::Value::Array(items) = &expected {
            let exp: Vec<String> = items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect();
            // Salt's messages with a traceback or a host path (salt-case
            // writes <TMP>, <SITE>, ...) cannot be matched exactly.
            let host = ["Traceback", "<TMP>", "<SITE>", "<STDLIB>", "<CASE>"];
            let exact =
                exp.len() == items.len() && !exp.iter().any(|m| host.iter().any(|h| m.contains(h)));
            if exact && !exp.is_empty() && diags.messages() != exp {
                return Err(format!(
                    "messages differ from Salt's\n  salt: {exp:#?}\n  ours: {:#?}",
                    diags.messages()
                )
                .into());
            }
        }
        return Ok(());
    }
    let actual = match actual {
        Ok(v) => v.to_json(),
        Err(d) => return Err(format!("unexpected errors:\n{d}").into()),
    };
    match first_difference(&expected, &actual, "$") {
        None => Ok(()),
        Some(diff) => Err(format!(
            "{diff}\nactual:\n{}",
            truncate(&serde_json::to_string_pretty(&actual).unwrap_or_default())
        )
        .into()),
    }
}

fn truncate(s: &str) -> String {
    if s.len() > 3000 {
        let mut end = 3000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n...", &s[..end])
    } else {
        s.to_string()
    }
}
