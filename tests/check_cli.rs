//! `lowstate check` as a user runs it: every output format of the same
//! findings (snapshots), exit codes, `--deny warnings`, inline and config
//! suppression, a SARIF log that follows the 2.1.0 schema's rules, and a
//! GitLab code quality report of the shape GitLab documents.

use std::process::Command;

mod common;

use common::lowstate;

fn check(format: &str) -> (i32, String, String) {
    let out = lowstate(&[
        "check",
        "-c",
        "tests/check-tree",
        "--color",
        "never",
        "--format",
        format,
    ]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn human_findings_with_snippets() {
    let (code, out, err) = check("human");
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.trim(),
        "lowstate check: 7 errors, 2 warnings, 0 info in 7 states"
    );
    insta::assert_snapshot!("check-human", out);
}

#[test]
fn json_findings() {
    let (code, out, _) = check("json");
    assert_eq!(code, 1);
    insta::assert_snapshot!("check-json", out);
}

#[test]
fn github_annotations() {
    let (code, out, _) = check("github");
    assert_eq!(code, 1);
    for line in out.lines() {
        assert!(
            line.starts_with("::error file=tests/check-tree/salt/web.sls,line=")
                || line.starts_with("::warning file=tests/check-tree/salt/web.sls,line="),
            "{line}"
        );
    }
    insta::assert_snapshot!("check-github", out);
}

#[test]
fn sarif_log() {
    let (code, out, _) = check("sarif");
    assert_eq!(code, 1);
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    validate_sarif(&log);
    // With the official schema at hand (`LOWSTATE_SARIF_SCHEMA=path/to/
    // sarif-schema-2.1.0.json`, from oasis-tcs/sarif-spec; not shipped
    // here) and Python's jsonschema, the log is validated against it too.
    if let Some(schema) = std::env::var_os("LOWSTATE_SARIF_SCHEMA") {
        let script = "import json,sys,jsonschema\n\
            s=json.load(open(sys.argv[1]));l=json.load(sys.stdin)\n\
            e=list(jsonschema.validators.validator_for(s)(s).iter_errors(l))\n\
            print(len(e));[print(x.message) for x in e[:5]];sys.exit(1 if e else 0)";
        let mut child = Command::new("python3")
            .args(["-c", script])
            .arg(schema)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(out.as_bytes())
            .unwrap();
        let r = child.wait_with_output().unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    }
    insta::assert_snapshot!("check-sarif", out);
}

/// GitLab's code quality report: GitLab documents a JSON array of objects
/// with `description`, `check_name`, `fingerprint` (unique per finding),
/// `severity` (info, minor, major, critical or blocker), `location.path`
/// (relative to the repository) and `location.lines.begin` (or
/// `location.positions.begin.line`), all required.
#[test]
fn codeclimate_report() {
    let (code, out, _) = check("codeclimate");
    assert_eq!(code, 1);
    let report: serde_json::Value = serde_json::from_str(&out).expect("the report is JSON");
    let issues = report.as_array().expect("the report is an array");
    let (_, json, _) = check("json");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        issues.len(),
        json["diagnostics"].as_array().unwrap().len(),
        "one issue per finding"
    );
    let mut fingerprints = std::collections::BTreeSet::new();
    for (i, issue) in issues.iter().enumerate() {
        let at = format!("issue {i}");
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(
                issue[key].as_str().is_some_and(|s| !s.is_empty()),
                "{at}: `{key}` must be a non-empty string"
            );
        }
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap()),
            "{at}: severity"
        );
        assert!(
            fingerprints.insert(issue["fingerprint"].as_str().unwrap().to_string()),
            "{at}: fingerprints are unique"
        );
        let path = issue["location"]["path"].as_str().expect("location.path");
        assert!(
            !path.starts_with('/') && !path.starts_with("./"),
            "{at}: {path} is relative to the repository"
        );
        assert!(std::path::Path::new(path).is_file(), "{at}: {path} exists");
        let begin = issue["location"]["lines"]["begin"]
            .as_u64()
            .expect("location.lines.begin");
        assert!(begin >= 1);
        assert!(issue["location"]["lines"]["end"].as_u64().unwrap() >= begin);
    }
    // The same finding as in the JSON output, at the same line.
    let first = &json["diagnostics"][0];
    assert_eq!(issues[0]["check_name"], first["code"]);
    assert!(issues[0]["description"]
        .as_str()
        .unwrap()
        .starts_with(first["message"].as_str().unwrap()));
    // Errors rank above warnings in GitLab's widget.
    let severities: std::collections::BTreeSet<&str> = issues
        .iter()
        .map(|i| i["severity"].as_str().unwrap())
        .collect();
    assert_eq!(
        severities,
        ["major", "minor"].into_iter().collect(),
        "7 errors and 2 warnings"
    );
    insta::assert_snapshot!("check-codeclimate", out);
}

/// A fingerprint names the finding, not its line: a line inserted above it
/// leaves every fingerprint as it was.
#[test]
fn codeclimate_fingerprints_survive_moved_lines() {
    let dir = std::env::temp_dir().join(format!("lowstate-check-cc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("minion"), "id: m\nfile_roots:\n  base: [.]\n").unwrap();
    let sls = "motd:\n  file.managed:\n    - name: /etc/motd\n    - txet: hi\n";
    let report = |text: &str| {
        std::fs::write(dir.join("w.sls"), text).unwrap();
        let out = lowstate(&[
            "check",
            "-c",
            dir.to_str().unwrap(),
            "--sls",
            "w",
            "--format",
            "codeclimate",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["fingerprint"].as_str().unwrap().to_string(),
                    i["location"]["lines"]["begin"].as_u64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let before = report(sls);
    let after = report(&format!("# a comment\n{sls}"));
    assert!(!before.is_empty());
    assert_eq!(before.len(), after.len());
    for ((f1, l1), (f2, l2)) in before.iter().zip(&after) {
        assert_eq!(f1, f2);
        assert_eq!(l1 + 1, *l2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn suppressed_findings_are_not_reported() {
    let (_, out, _) = check("json");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    // `# lowstate: allow(unknown-argument)` on the ID line of quiet-one.
    assert!(diags
        .iter()
        .all(|d| !d["message"].as_str().unwrap().contains("contents`")));
    // `lowstate_check_allow: [needs-binary]` in the minion config.
    assert!(diags.iter().all(|d| d["code"] != "needs-binary"));
    // Without the suppressions both are there.
    let dir = std::env::temp_dir().join(format!(
        "lowstate-check-unsuppressed-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("salt")).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check-tree");
    let sls = std::fs::read_to_string(root.join("salt/web.sls"))
        .unwrap()
        .replace("# lowstate: allow(unknown-argument)", "");
    std::fs::write(dir.join("salt/web.sls"), sls).unwrap();
    std::fs::copy(root.join("salt/top.sls"), dir.join("salt/top.sls")).unwrap();
    std::fs::write(
        dir.join("minion"),
        "id: web1\nfile_roots:\n  base: [salt]\n",
    )
    .unwrap();
    let out = lowstate(&["check", "-c", dir.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"needs-binary"), "{codes:?}");
    assert_eq!(
        codes.iter().filter(|c| **c == "unknown-argument").count(),
        2
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exit_codes_and_deny_warnings() {
    // The example tree is clean: exit 0, nothing on stdout.
    let out = lowstate(&["check"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    // Warnings only: 0, or 1 with --deny warnings.
    let dir = std::env::temp_dir().join(format!("lowstate-check-warn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("minion"), "id: m\nfile_roots:\n  base: [.]\n").unwrap();
    std::fs::write(
        dir.join("w.sls"),
        "motd:\n  file.managed:\n    - name: /etc/motd\n    - contents: hi\n    - no_such: 1\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let out = lowstate(&["check", "-c", d, "--sls", "w"]);
    assert_eq!(out.status.code(), Some(0));
    let out = lowstate(&["check", "-c", d, "--sls", "w", "--deny", "warnings"]);
    assert_eq!(out.status.code(), Some(1));
    // A bad flag value is a usage error.
    let out = lowstate(&["check", "-c", d, "--assume-version", "pip"]);
    assert_eq!(out.status.code(), Some(2));
    // A tree that does not compile: the compile's diagnostics, exit 1.
    std::fs::write(dir.join("bad.sls"), "a: [\n").unwrap();
    let out = lowstate(&["check", "-c", d, "--sls", "bad"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("yaml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_never_changes_what_compile_prints() {
    let before = lowstate(&["compile", "-c", "tests/check-tree"]);
    assert_eq!(before.status.code(), Some(0));
    let chunks: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    // The bad arguments are copied into the chunks, as Salt does.
    assert!(chunks
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c.get("txet").is_some()));
}

/// The rules of the SARIF 2.1.0 schema (sarif-schema-2.1.0.json, OASIS)
/// for every object lowstate writes: required properties, types, enums,
/// minimums, and no properties the schema does not define for them.
fn validate_sarif(log: &serde_json::Value) {
    fn keys(v: &serde_json::Value, at: &str, required: &[&str], allowed: &[&str]) {
        let m = v
            .as_object()
            .unwrap_or_else(|| panic!("{at}: not an object"));
        for r in required {
            assert!(m.contains_key(*r), "{at}: missing `{r}`");
        }
        for k in m.keys() {
            assert!(
                required.contains(&k.as_str()) || allowed.contains(&k.as_str()),
                "{at}: `{k}` is not a property of this object"
            );
        }
    }
    fn message(v: &serde_json::Value, at: &str) {
        keys(v, at, &["text"], &[]);
        assert!(v["text"].is_string(), "{at}.text");
    }
    fn location(v: &serde_json::Value, at: &str) {
        keys(v, at, &["physicalLocation"], &["id", "message"]);
        if let Some(id) = v.get("id") {
            assert!(id.as_i64().is_some_and(|i| i >= -1), "{at}.id");
        }
        if let Some(m) = v.get("message") {
            message(m, &format!("{at}.message"));
        }
        let p = &v["physicalLocation"];
        keys(
            p,
            &format!("{at}.physicalLocation"),
            &["artifactLocation"],
            &["region"],
        );
        let a = &p["artifactLocation"];
        keys(a, "artifactLocation", &["uri"], &[]);
        let uri = a["uri"].as_str().expect("uri");
        assert!(
            !uri.starts_with('/'),
            "{uri}: paths are relative to the working directory"
        );
        let r = &p["region"];
        keys(
            r,
            "region",
            &["startLine"],
            &["startColumn", "endLine", "endColumn", "snippet"],
        );
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            if let Some(n) = r.get(k) {
                assert!(n.as_i64().is_some_and(|n| n >= 1), "region.{k} >= 1");
            }
        }
        if let Some(s) = r.get("snippet") {
            keys(s, "snippet", &["text"], &[]);
        }
    }
    keys(log, "log", &["version", "runs"], &["$schema"]);
    assert_eq!(log["version"], "2.1.0");
    for (i, run) in log["runs"].as_array().expect("runs").iter().enumerate() {
        let at = format!("runs[{i}]");
        keys(run, &at, &["tool"], &["results", "columnKind"]);
        assert!(
            ["utf16CodeUnits", "unicodeCodePoints"].contains(&run["columnKind"].as_str().unwrap())
        );
        keys(&run["tool"], "tool", &["driver"], &[]);
        let driver = &run["tool"]["driver"];
        keys(driver, "driver", &["name"], &["version", "rules"]);
        let rules = driver["rules"].as_array().expect("rules");
        for r in rules {
            keys(
                r,
                "rule",
                &["id"],
                &["shortDescription", "defaultConfiguration"],
            );
            message(&r["shortDescription"], "shortDescription");
            keys(
                &r["defaultConfiguration"],
                "defaultConfiguration",
                &[],
                &["level"],
            );
        }
        for (j, res) in run["results"]
            .as_array()
            .expect("results")
            .iter()
            .enumerate()
        {
            let at = format!("{at}.results[{j}]");
            keys(
                res,
                &at,
                &["message"],
                &[
                    "ruleId",
                    "ruleIndex",
                    "level",
                    "locations",
                    "relatedLocations",
                ],
            );
            message(&res["message"], &at);
            assert!(["none", "note", "warning", "error"].contains(&res["level"].as_str().unwrap()));
            let index = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(
                rules[index]["id"], res["ruleId"],
                "{at}: ruleIndex points at its rule"
            );
            for l in res["locations"].as_array().into_iter().flatten() {
                location(l, &at);
            }
            for l in res["relatedLocations"].as_array().into_iter().flatten() {
                location(l, &at);
            }
        }
    }
}

/// A state that `names` expands into several chunks gets one finding,
/// naming the chunks, not one per chunk.
#[test]
fn names_expansions_report_once() {
    let dir = std::env::temp_dir().join(format!("lowstate-check-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("minion"), "id: m\nfile_roots:\n  base: [.]\n").unwrap();
    std::fs::write(
        dir.join("n.sls"),
        "tools:\n  pkg.installed:\n    - names: [vim, git, tmux]\n    - pkgs: notalist\n",
    )
    .unwrap();
    let out = lowstate(&[
        "check",
        "-c",
        dir.to_str().unwrap(),
        "--sls",
        "n",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1);
    assert!(diags[0]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "for each of the 3 states `names` makes here: vim, git, tmux"));
    let _ = std::fs::remove_dir_all(&dir);
}
