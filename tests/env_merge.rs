//! Heat 27.0.1's environment layering, case by case: every case of
//! `tests/data/heat-27.0.1-env-merge.json` (the same template with `-e`
//! files and `-P` values, run through Heat's own merge code) compiled by
//! `lowstate hot` must give Heat's answer: success or Heat's error message,
//! each parameter's value, and the merged `parameters`,
//! `parameter_defaults` and `resource_registry`.
//!
//! The cases' template says `heat_template_version: 2018-08-31`, a version
//! lowstate does not compile (docs/hot.md); the layering does not depend on
//! it, so the test runs the same template as 2016-10-14. Hidden parameters
//! print as `******` in lowstate's document (Heat's parameter listing does
//! the same; the oracle printed raw values).

mod common;

use std::process::Command;

#[test]
fn env_merge_cases_of_heat_27() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/data/heat-env");
    let tmp = std::env::temp_dir().join(format!("lowstate-env-merge-{}", std::process::id()));
    let (data, template) = common::heat_env_cases(&tmp);
    let cases = data["cases"].as_object().unwrap();
    let mut problems = Vec::new();
    for (id, case) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
            .arg("hot")
            .arg(&template)
            .args(
                case["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap()),
            )
            .current_dir(&dir)
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let messages: Vec<&str> = doc["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["message"].as_str().unwrap_or(""))
            .collect();
        let heat_errors: Vec<&str> = case["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        let mut diff = Vec::new();
        if doc["ok"] != case["ok"] || messages != heat_errors {
            diff.push(format!(
                "ok/errors: Heat {} {heat_errors:?}, lowstate {} {messages:?}",
                case["ok"], doc["ok"]
            ));
        }
        if case["ok"] == true {
            for (name, want) in case["parameters"].as_object().unwrap() {
                let p = &doc["parameters"][name];
                let want = if p["hidden"] == true {
                    serde_json::json!("******")
                } else {
                    want.clone()
                };
                if p["value"] != want {
                    diff.push(format!(
                        "parameter {name}: Heat {want}, lowstate {}",
                        p["value"]
                    ));
                }
            }
            let env = &doc["environment"];
            for (ours, heat) in [
                ("parameters", "env_parameters"),
                ("parameter_defaults", "env_parameter_defaults"),
                ("resource_registry", "env_resource_registry"),
            ] {
                if env[ours] != case[heat] {
                    diff.push(format!(
                        "{ours}: Heat {}, lowstate {}",
                        case[heat], env[ours]
                    ));
                }
            }
        }
        if !diff.is_empty() {
            problems.push(format!("{id}: {}", diff.join("; ")));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(cases.len(), 28);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `--explain` on the same cases: the winner, what it overrode, merged
/// parts, and hidden values never printed.
#[test]
fn explain_names_the_layer_of_each_parameter() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/data/heat-env");
    let tmp = std::env::temp_dir().join(format!("lowstate-env-explain-{}", std::process::id()));
    let (data, template) = common::heat_env_cases(&tmp);
    let run = |case: &str, param: &str| -> (serde_json::Value, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
            .arg("hot")
            .arg(&template)
            .args(
                data["cases"][case]["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap()),
            )
            .arg(format!("--explain={param}"))
            .args(["--explain-format", "json"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["leaves"][0].clone(), all)
    };
    let origins = |ws: &serde_json::Value| -> Vec<String> {
        ws.as_array()
            .unwrap()
            .iter()
            .map(|w| {
                w["origin"]
                    .as_str()
                    .unwrap()
                    .split(':')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    // Server mode: the file's `parameters` beat -P.
    let (leaf, _) = run("env-parameters-beat-cli(server)", "name");
    assert_eq!(
        leaf["from"]["origin"].as_str().unwrap().split(':').next(),
        Some("e1.yaml")
    );
    assert_eq!(origins(&leaf["overrode"])[0], "cli");
    // Client mode: -P last.
    let (leaf, _) = run("cli-beats-env(client)", "name");
    assert_eq!(leaf["from"]["origin"], "cli:-P");
    // parameter_defaults over the template default.
    let (leaf, _) = run("parameter-defaults", "name");
    assert_eq!(
        leaf["from"]["origin"].as_str().unwrap().split(':').next(),
        Some("pd.yaml")
    );
    // A merged string lists its parts.
    let (leaf, _) = run("merge-string-over-cli", "name");
    assert!(leaf["from"].is_null());
    assert_eq!(origins(&leaf["contributions"]), ["cli", "m_name1.yaml"]);
    // A hidden parameter: the layer is named, the value never printed.
    let (leaf, all) = run("hidden-param", "secret");
    assert_eq!(leaf["value"], "<redacted>");
    assert_eq!(leaf["from"]["origin"], "cli:-P");
    assert!(
        !all.contains("cli-secret") && !all.contains("template-secret"),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `--explain` replays the layers the compile itself merged, read once
/// with Heat's YAML rules: a repeated key's last value wins there too (a
/// second read with other rules lost the template default).
#[test]
fn explain_reads_the_inputs_as_the_compile_did() {
    let tmp = std::env::temp_dir().join(format!("lowstate-env-dup-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let template = tmp.join("dup.yaml");
    std::fs::write(
        &template,
        "heat_template_version: 2015-10-15\nparameters:\n  p:\n    type: string\n    default: first\n    default: second\nresources: {}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .arg("hot")
        .arg(&template)
        .args(["--explain=p", "--explain-format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let leaf = &v["leaves"][0];
    assert_eq!(leaf["value"], "second");
    assert_eq!(v["layers"][0]["kind"], "template-default", "{v}");
    assert_eq!(leaf["from"]["layer"], 0, "{v}");
    assert_eq!(leaf["from"]["value"], "second", "{v}");
    let _ = std::fs::remove_dir_all(&tmp);
}
