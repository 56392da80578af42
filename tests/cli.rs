//! The `lowstate` binary as a user runs it: exit codes, output files,
//! error formats.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lowstate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run lowstate")
}

fn corpus(case: &str) -> String {
    test_case("corpus", case)
}

/// `tests/<dir>/<case>`, absolute.
fn test_case(dir: &str, case: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir)
        .join(case)
        .display()
        .to_string()
}

/// A fresh directory under the system temp dir, removed with everything
/// in it when the guard is dropped: also when the test fails.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("lowstate-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

#[test]
fn compiles_the_example_tree_by_default() {
    let out = lowstate(&["compile"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON list");
    let chunks = v.as_array().expect("a list of chunks");
    assert!(chunks.len() >= 8, "example tree has several states");
    assert!(chunks
        .iter()
        .all(|c| c.get("fun").is_some() && c.get("order").is_some()));
}

#[test]
fn highstate_of_a_corpus_case_equals_salt() {
    let case = corpus("020-include-order");
    let out = lowstate(&["highstate", "-c", &case]);
    assert_eq!(out.status.code(), Some(0));
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let salt: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(&case).join("expected/highstate.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(ours, salt);
}

#[test]
fn compile_errors_exit_1_with_location() {
    let out = lowstate(&["compile", "-c", &corpus("089-err-missing-requisite")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[missing-requisite]"), "{err}");
    assert!(err.contains("-->") && err.contains(".sls:"), "{err}");
}

#[test]
fn json_error_format_is_machine_readable() {
    let out = lowstate(&[
        "compile",
        "-c",
        &corpus("093-err-yaml-duplicate-key"),
        "--error-format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "yaml-duplicate-key");
    assert!(d["primary"]["line"].as_i64().unwrap() > 0);
    // stdout keeps the result's format: Salt's list of error strings.
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        stdout[0].as_str().unwrap().contains("conflicting ID"),
        "{stdout}"
    );
}

#[test]
fn config_errors_exit_2() {
    let dir = temp_dir("noconf");
    let out = lowstate(&["compile", "-c", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("minion"));
    let out = lowstate(&["compile", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn output_file_is_written_whole() {
    let dir = temp_dir("out");
    let file = dir.join("low.json");
    let out = lowstate(&[
        "compile",
        "-c",
        &corpus("045-decl-shapes"),
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(v.is_array());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temp file left behind"
    );
}

#[test]
fn yaml_output_round_trips() {
    let out = lowstate(&[
        "compile",
        "-c",
        &corpus("045-decl-shapes"),
        "--format",
        "yaml",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let ours =
        lowstate::yaml::load_value(&text, lowstate::yaml::Dialect::Salt).expect("valid YAML");
    let json = lowstate(&["compile", "-c", &corpus("045-decl-shapes")]);
    let j: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(ours.to_json(), j);
}

#[test]
fn simulate_order_and_graph_run_on_a_corpus_case() {
    let case = corpus("074-run-prereq");
    let out = lowstate(&["simulate", "-c", &case, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    assert!(doc["states"].as_array().is_some_and(|s| !s.is_empty()));

    let out = lowstate(&["order", "-c", &case, "--color", "never"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("prereq") && !text.contains('\x1b'), "{text}");

    let out = lowstate(&["graph", "-c", &case, "--format", "html"]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(
        html.contains("id=\"plan-data\"")
            && !html.contains("http://cdn")
            && !html.contains("<script src")
    );
}

#[test]
fn pillar_and_render_commands() {
    let case = corpus("125-pillar-merge-include");
    let out = lowstate(&["pillar", "--unmask", "-c", &case]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["app"]["name"], "web");
    // Without --unmask, as Salt 3008's pillar.items: truthy values masked.
    let out = lowstate(&["pillar", "-c", &case]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["app"]["name"], "**********");
    let out = lowstate(&["render", "-c", &case, "show"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("- os_name: debian"));
}

/// Salt compiles no state while the pillar has errors (`show_lowstate`
/// raises "Pillar failed to render"): neither do we.
#[test]
fn pillar_errors_stop_the_compile() {
    let dir = temp_dir("pillar-fail");
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "minion",
        "id: m1\ngrains: {os: Debian}\nfile_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\n",
    );
    write("salt/top.sls", "base:\n  '*':\n    - a\n");
    write("salt/a.sls", "a:\n  test.nop: []\n");
    write("pillar/top.sls", "base:\n  '*':\n    - p\n");
    write("pillar/p.sls", "x: 1\nx: 2\n");
    let conf = dir.to_str().unwrap();
    for cmd in ["compile", "highstate"] {
        let out = lowstate(&[cmd, "-c", conf, "--error-format", "json"]);
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("\"pillar-render\""), "{err}");
        assert!(
            err.contains("Pillar failed to render. Additional info follows:\\n\\n- Rendering SLS 'p' failed. Please see master log for details."),
            "{err}"
        );
    }
    // A clean pillar compiles.
    write("pillar/p.sls", "x: 1\n");
    let out = lowstate(&["compile", "-c", conf]);
    assert_eq!(out.status.code(), Some(0));
}

/// The `lowstate hot` command line of the shipped example stack.
const HOT_EXAMPLE: &[&str] = &[
    "hot",
    "docs/examples/hot/stack.yaml",
    "-e",
    "docs/examples/hot/env/site.yaml",
];

/// The stack heat-oracle made the corpus's plans in (a user's default is
/// the template's name).
const ORACLE_STACK: &[&str] = &[
    "--stack-name",
    "oracle_stack",
    "--stack-id",
    "00000000-0000-4000-8000-000000000001",
    "--project-id",
    "oracle-project",
];

#[test]
fn hot_compiles_a_corpus_case_like_heat() {
    let case = "tests/corpus-hot/069-deps-explicit-and-implicit";
    let template = format!("{case}/template.yaml");
    let mut args = vec!["hot", template.as_str()];
    args.extend(ORACLE_STACK);
    let out = lowstate(&args);
    assert_prints_heats_plan(&out, &Path::new(env!("CARGO_MANIFEST_DIR")).join(case));
}

/// `out` succeeded and printed the case's `expected.json` (Heat's plan).
fn assert_prints_heats_plan(out: &Output, case: &Path) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let heat: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap())
            .unwrap();
    assert_eq!(ours, heat);
}

#[test]
fn hot_reads_get_file_beside_a_template_named_without_a_directory() {
    // `lowstate hot template.yaml` from the template's own directory: the
    // files directory is ".", not the empty parent of a bare name.
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-hot/059-get-file");
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["hot", "template.yaml"])
        .args(ORACLE_STACK)
        .current_dir(&case)
        .output()
        .expect("run lowstate");
    assert_prints_heats_plan(&out, &case);
}

#[test]
fn hot_get_file_climbs_with_dotdot_only_up_to_the_files_root() {
    let dir = tree(
        "hot-files-root",
        &[
            (
                "lib/template.yaml",
                "heat_template_version: 2015-10-15\nresources:\n  c:\n    type: OS::Heat::SoftwareConfig\n    properties:\n      config: {get_file: ../config/boot.sh}\n",
            ),
            ("config/boot.sh", "#!/bin/sh\necho boot\n"),
        ],
    );
    let template = dir.join("lib/template.yaml");
    let template = template.to_str().unwrap();
    let out = lowstate(&["hot", template]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--files-root DIR"), "{err}");
    let out = lowstate(&["hot", template, "--files-root", dir.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        plan["resources"][0]["properties"]["config"],
        "#!/bin/sh\necho boot\n"
    );
    // The root bounds the climb: a root below the file refuses it.
    let lib = dir.join("lib");
    let out = lowstate(&["hot", template, "--files-root", lib.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn hot_failure_is_exit_1_with_an_ok_false_document_and_a_located_error() {
    let out = lowstate(&[
        "hot",
        "tests/corpus-hot/072-deps-get-attr-unknown-resource/template.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["errors"][0]["kind"], "invalid_reference");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[hot-invalid-reference]"), "{err}");
    assert!(err.contains("template.yaml:"), "{err}");
}

#[test]
fn hot_usage_errors_are_exit_2() {
    let out = lowstate(&["hot", "no/such/template.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = lowstate(&["hot", "docs/examples/hot/stack.yaml", "-P", "novalue"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn hot_hidden_values_never_reach_a_human_output() {
    let secret = "example-only-secret";
    for format in ["text", "order", "dot", "mermaid", "html", "graph-json"] {
        let mut args = HOT_EXAMPLE.to_vec();
        args.extend(["--format", format]);
        let out = lowstate(&args);
        assert_eq!(out.status.code(), Some(0), "{format}");
        for stream in [&out.stdout, &out.stderr] {
            assert!(
                !String::from_utf8_lossy(stream).contains(secret),
                "{format} printed the hidden value"
            );
        }
    }
    // A failing constraint on a hidden parameter does not echo the value.
    let dir = temp_dir("hot-secret");
    let t = dir.join("t.yaml");
    std::fs::write(
        &t,
        "heat_template_version: 2015-10-15\nparameters:\n  pw:\n    type: string\n    hidden: true\n    constraints: [{allowed_values: [a, b]}]\nresources: {}\n",
    )
    .unwrap();
    let out = lowstate(&["hot", t.to_str().unwrap(), "-P", "pw=TopSecret123"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("TopSecret123"));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("TopSecret123"));
}

#[test]
fn hot_text_plan_masks_hidden_values_by_the_redactors_rule() {
    // Hidden values of four characters or more are masked wherever they
    // stand; a shorter one (`ab`) would blank out unrelated words.
    let dir = temp_dir("hot-short-secret");
    let t = dir.join("t.yaml");
    std::fs::write(
        &t,
        "heat_template_version: 2015-10-15\nparameters:\n  pw: {type: string, hidden: true}\n  key: {type: string, hidden: true}\nresources:\n  r:\n    type: OS::Heat::None\n    properties:\n      note: cabbage\n      token: {list_join: ['-', [{get_param: key}, x]]}\n",
    )
    .unwrap();
    let out = lowstate(&[
        "hot",
        t.to_str().unwrap(),
        "--format",
        "text",
        "-P",
        "pw=ab",
        "-P",
        "key=hunter22",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("note: cabbage"), "{text}");
    assert!(text.contains("token: ******-x"), "{text}");
    assert!(!text.contains("hunter22"), "{text}");
}

#[test]
fn docs_hot_md_shows_the_real_output() {
    for format in ["text", "order"] {
        let mut args = HOT_EXAMPLE.to_vec();
        args.extend(["--format", format]);
        hot_md_shows(&args);
    }
}

/// Runs `lowstate ARGS` and asserts that docs/hot.md shows its current
/// stdout; returns the run.
fn hot_md_shows(args: &[&str]) -> Output {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/hot.md")).unwrap();
    let out = lowstate(args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        doc.contains(text.trim_end()),
        "docs/hot.md does not show the current output of {args:?}:\n{text}"
    );
    out
}

/// docs/hot.md shows the current text of `--nested` and `--diff-from` on
/// its example tree (the preview's text and its Markdown change report).
#[test]
fn docs_hot_md_shows_the_nested_tree_and_the_update_preview() {
    let stack = "docs/examples/hot-tree/stack.yaml";
    for args in [
        vec!["hot", stack, "--nested", "--format", "text"],
        vec![
            "hot",
            stack,
            "--diff-from",
            "docs/examples/hot-tree/old/stack.yaml",
            "--format",
            "text",
        ],
        vec![
            "hot",
            stack,
            "--diff-from",
            "docs/examples/hot-tree/old/stack.yaml",
            "--format",
            "markdown",
        ],
    ] {
        let out = hot_md_shows(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

/// The drawings of a tree of stacks: every nested resource keyed by its
/// path and grouped by its stack; the HTML viewer starts the nested
/// stacks collapsed.
#[test]
fn hot_nested_views_show_the_tree_of_stacks() {
    let stack = "docs/examples/hot-tree/stack.yaml";
    let out = lowstate(&["hot", stack, "--nested", "--format", "order"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.contains(" nodes.1.server "))
        .unwrap_or_else(|| panic!("no nodes.1.server row:\n{text}"));
    assert!(
        row.contains(" nodes.1 ") && row.contains("OS::Nova::Server"),
        "{row}"
    );
    let out = lowstate(&["hot", stack, "--nested", "--format", "html"]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8_lossy(&out.stdout);
    for lane in ["nodes", "nodes.0", "nodes.1"] {
        let group = format!(r#"{{"name":"{lane}","count":2,"folded":true,"#);
        assert!(html.contains(&group), "lane {lane} is not drawn collapsed");
    }
    assert!(
        html.contains(r#""folded":false"#),
        "the root's waves are open"
    );
    // Without --nested: one stack, nothing folded.
    let out = lowstate(&["hot", stack, "--format", "html"]);
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(!html.contains("nodes.0") && !html.contains(r#""folded":true"#));
}

/// An update whose old side does not compile: the old side's diagnostics,
/// exit 1.
#[test]
fn hot_diff_from_a_broken_old_stack_reports_it_and_exits_1() {
    let dir = temp_dir("hot-diff-old");
    let old = dir.join("old.yaml");
    let new = dir.join("new.yaml");
    std::fs::write(
        &old,
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: OS::Heat::Value, properties: {value: {get_resource: nothere}}}\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "heat_template_version: 2016-10-14\nresources:\n  a: {type: OS::Heat::None}\n",
    )
    .unwrap();
    let out = lowstate(&[
        "hot",
        new.to_str().unwrap(),
        "--diff-from",
        old.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothere") && err.contains("in the old stack"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["errors"][0]["side"], "old");
}

#[test]
fn hot_get_attr_of_an_attribute_the_type_lacks_is_invalid_attribute() {
    let dir = temp_dir("hot-attr");
    let t = dir.join("t.yaml");
    std::fs::write(
        &t,
        "heat_template_version: 2015-10-15\nresources:\n  srv:\n    type: OS::Nova::Server\n  dns:\n    type: OS::Heat::Value\n    properties:\n      value: {get_attr: [srv, first_adress]}\n",
    )
    .unwrap();
    let out = lowstate(&["hot", t.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[hot-invalid-attribute]"), "{err}");
    assert!(err.contains("first_adress"), "{err}");
    // `show` and real attributes are fine.
    std::fs::write(
        &t,
        "heat_template_version: 2015-10-15\nresources:\n  srv:\n    type: OS::Nova::Server\n  dns:\n    type: OS::Heat::Value\n    properties:\n      value: [{get_attr: [srv, first_address]}, {get_attr: [srv, show]}]\n",
    )
    .unwrap();
    let out = lowstate(&["hot", t.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn hot_validate_takes_a_parameter_without_a_value_as_given_later() {
    let dir = temp_dir("hot-validate");
    let t = dir.join("t.yaml");
    std::fs::write(
        &t,
        "heat_template_version: 2016-10-14\nparameters:\n  key:\n    type: string\nresources:\n  srv:\n    type: OS::Nova::Server\n    properties:\n      image: cirros\n      flavor: m1.small\n      key_name: {get_param: key}\n      nmae: web\n",
    )
    .unwrap();
    let t = t.to_str().unwrap();
    // Heat's stack create: the value is missing, and nothing else is said.
    // `check` prints its findings on stdout.
    let out = lowstate(&["check", "--hot", t]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stdout);
    assert!(err.contains("error[hot-parameter-missing]"), "{err}");
    assert!(!err.contains("nmae"), "{err}");
    // Template validate: the value comes later, the misspelt property shows.
    let out = lowstate(&["check", "--hot", t, "--validate"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stdout);
    assert!(!err.contains("hot-parameter-missing"), "{err}");
    assert!(
        err.contains("error[unknown-argument]") && err.contains("nmae"),
        "{err}"
    );
    let out = lowstate(&["hot", t, "--validate"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["parameters"]["key"]["source"], "deferred");
    assert_eq!(
        doc["resources"][0]["properties"]["key_name"],
        serde_json::json!({"get_param": "key"})
    );
}

#[test]
fn a_failed_compile_prints_salts_error_list_on_stdout_and_diagnostics_on_stderr_once() {
    let case = corpus("089-err-missing-requisite");
    let out = lowstate(&["compile", "-c", &case]);
    assert_eq!(out.status.code(), Some(1));
    // stdout: the failure document in the result's format (Salt's list).
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let salt: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(&case).join("expected/lowstate.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(doc, salt);
    // stderr: the human diagnostics, not JSON.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error[missing-requisite]"), "{err}");
    // --error-format json: JSON on stderr only; stdout keeps the result format.
    let out = lowstate(&["compile", "-c", &case, "--error-format", "json"]);
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
    assert_eq!(err["diagnostics"][0]["code"], "missing-requisite");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc.is_array());
}

#[test]
fn a_failed_compile_leaves_the_output_file_as_it_was() {
    let dir = temp_dir("keep");
    let plan = dir.join("plan.json");
    std::fs::write(&plan, "previous plan\n").unwrap();
    let case = corpus("089-err-missing-requisite");
    let out = lowstate(&["compile", "-c", &case, "-o", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), "previous plan\n");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temp file left"
    );
}

#[test]
fn a_closed_pipe_stops_quietly() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["compile", "-c", "state_tree"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close the pipe.
    let mut one = [0u8; 1];
    child.stdout.as_mut().unwrap().read_exact(&mut one).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn output_errors_name_the_path_and_files_keep_mode_and_links() {
    let out = lowstate(&["compile", "-o", "/nonexistent-dir/x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-dir/x.json"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("mode");
        let real = dir.join("real.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        let out = lowstate(&["compile", "-o", link.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let meta = std::fs::metadata(&real).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        assert!(std::fs::read_to_string(&real).unwrap().starts_with('['));
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            2,
            "no temp file left"
        );
    }
}

#[test]
fn simulate_fails_when_a_state_fails_and_warns_on_unused_assumptions() {
    let dir = temp_dir("assume");
    let assume = dir.join("a.yaml");
    std::fs::write(
        &assume,
        "nginx:\n  result: false\nno-such-state-typo:\n  result: true\n",
    )
    .unwrap();
    let out = lowstate(&["simulate", "--assume", assume.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'no-such-state-typo' matches no state"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    // A compile failure with --format json still prints a document.
    let out = lowstate(&[
        "simulate",
        "-c",
        &corpus("089-err-missing-requisite"),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON document");
    assert!(doc.is_array());
}

#[test]
fn color_is_chosen_by_flag_and_no_color() {
    let out = lowstate(&["order", "--color", "always"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
    let out = lowstate(&["--color", "never", "order"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["order"])
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
}

#[test]
fn docs_cli_md_documents_every_subcommand_and_flag() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"))
        .unwrap()
        + &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/hot.md"))
            .unwrap();
    let commands = common::help_commands();
    let mut missing = Vec::new();
    for c in &commands {
        if !doc.contains(&format!("`{c}")) {
            missing.push(format!("command {c}"));
        }
        let sub = String::from_utf8_lossy(&lowstate(&[c, "--help"]).stdout).into_owned();
        for flag in sub.split_whitespace().filter(|w| w.starts_with("--")) {
            let flag = flag
                .trim_end_matches(',')
                .split(['=', '<', '['])
                .next()
                .unwrap_or("");
            if flag.len() > 2 && flag != "--help" && !doc.contains(flag) {
                missing.push(format!("{c} {flag}"));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/cli.md (or hot.md) lacks: {missing:?}"
    );
}

#[test]
fn the_readme_tour_runs_and_writes_nothing_into_the_repo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let tour = readme
        .split("## A tour of the CLI")
        .nth(1)
        .and_then(|t| t.split("```sh").nth(1))
        .and_then(|t| t.split("```").next())
        .expect("README has a tour");
    let before: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let mut ran = 0;
    for line in tour.lines() {
        let cmd = line.split('#').next().unwrap_or("").trim();
        let Some(args) = cmd.strip_prefix("lowstate ") else {
            continue;
        };
        if args.contains("path/to") {
            continue; // a placeholder for the user's own tree
        }
        let args: Vec<&str> = args.split_whitespace().collect();
        let out = lowstate(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{cmd}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 10, "ran {ran} tour commands");
    let after: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(before, after, "the tour wrote files into the repository");
}

#[test]
fn no_internal_markers_in_messages() {
    let dir = temp_dir("markers");
    std::fs::create_dir_all(dir.join("salt")).unwrap();
    std::fs::write(dir.join("minion"), "id: m\nfile_roots: {base: [salt]}\n").unwrap();
    std::fs::write(dir.join("salt/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(
        dir.join("salt/a.sls"),
        "{% from '../../x.jinja' import y %}\n{% import 'nope.jinja' as n %}\nfoo:\n  test.nop: []\n",
    )
    .unwrap();
    let out = lowstate(&["compile", "-c", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    for stream in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains('\u{1}') && !text.contains("u{1}"), "{text}");
        assert!(!text.contains("__import"), "{text}");
    }
}

/// The HTML viewer in a real headless browser (tests/browser/run.sh): the
/// example tree and a 5,200-state tree, a search, a click, a path; the
/// first paint is reported against its 2 s target, never judged (no timed
/// test: a busy machine must not fail it). Skipped, with a
/// message, where chromium is missing.
/// `OUT=DIR cargo test browser_viewer` keeps the screenshots in DIR.
#[test]
fn browser_viewer() {
    let has_chromium = ["chromium", "chromium-browser"].iter().any(|c| {
        Command::new("sh")
            .args(["-c", &format!("command -v {c}")])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !has_chromium {
        eprintln!("browser_viewer skipped: no chromium (apt-get install chromium)");
        return;
    }
    // The screenshots are kept where `OUT` says, else removed afterwards.
    let shots = temp_dir("screenshots");
    let mut run = Command::new("bash");
    run.arg("tests/browser/run.sh")
        .env("LOWSTATE", env!("CARGO_BIN_EXE_lowstate"))
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("OUT").is_none() {
        run.env("OUT", &*shots);
    }
    let out = run.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("select:nginx-service") && text.contains("select:b17-loop-3"),
        "{text}"
    );
}

/// A tree in a temp dir: `minion` plus files under it.
fn tree(tag: &str, files: &[(&str, &str)]) -> TempDir {
    let dir = temp_dir(tag);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

#[test]
fn the_config_is_found_where_a_salt_user_keeps_it() {
    let dir = tree(
        "discover",
        &[
            (
                "minion",
                "id: here\nfile_roots: {base: [salt]}\nlowstate_os: debian-12\n",
            ),
            ("salt/top.sls", "base:\n  here:\n    - a\n"),
            ("salt/a.sls", "a:\n  test.nop: []\n"),
        ],
    );
    // ./minion in the current directory is used, silently.
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .arg("compile")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    // Elsewhere, the example tree is used and stderr says so.
    let empty = temp_dir("nowhere");
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .arg("compile")
        .current_dir(&empty)
        .output()
        .unwrap();
    if !Path::new("/etc/salt/minion").exists() {
        assert!(String::from_utf8_lossy(&out.stderr).contains("compiling the example tree"));
    }
}

#[test]
fn settings_flags_replace_what_users_edit_the_config_for() {
    let dir = tree(
        "flags",
        &[
            (
                "minion",
                "id: web01\ngrains: {os: Debian}\nfile_roots: {base: [nowhere]}\n",
            ),
            (
                "roots/top.sls",
                "base:\n  'G@os:Ubuntu and G@cpus:4 and db*':\n    - a\n",
            ),
            (
                "roots/a.sls",
                "a:\n  test.show_notification:\n    - text: {{ grains['os'] }} {{ pillar['k'] }}\n",
            ),
            (
                "grains.json",
                "{\"local\": {\"os\": \"Ubuntu\", \"cpus\": 2}}",
            ),
            ("pillar.yaml", "k: from-file\n"),
        ],
    );
    let d = dir.to_str().unwrap();
    let root = format!("{d}/roots");
    let grains = format!("{d}/grains.json");
    let pillar = format!("@{d}/pillar.yaml");
    let out = lowstate(&[
        "compile",
        "-c",
        d,
        "--id",
        "db01",
        "--grains",
        &grains,
        "--grain",
        "cpus=4",
        "--file-root",
        &root,
        "--pillar",
        &pillar,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["text"], "Ubuntu from-file");
}

#[test]
fn nothing_to_compile_says_what_is_wrong() {
    let no_roots = tree("noroots", &[("minion", "id: x\n")]);
    let no_top = tree(
        "notop",
        &[
            ("minion", "id: x\nfile_roots: {base: [salt]}\n"),
            ("salt/a.sls", ""),
        ],
    );
    let bad_env = tree(
        "badenv",
        &[
            (
                "minion",
                "id: x\nsaltenv: dev\nfile_roots: {base: [salt]}\n",
            ),
            ("salt/top.sls", "base: {'*': [a]}\n"),
        ],
    );
    for (dir, want) in [
        (&no_roots, "no file_roots are configured"),
        (&no_top, "there is no top file (top.sls)"),
        (&bad_env, "saltenv 'dev' has no file_roots"),
    ] {
        let out = lowstate(&["compile", "-c", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{want}: {err}");
    }
}

#[test]
fn a_pillar_file_that_is_not_utf8_fails_the_pillar_as_in_salt() {
    let dir = tree(
        "pillar-utf8",
        &[
            (
                "minion",
                "id: web01\nfile_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\n",
            ),
            ("salt/top.sls", "base:\n  '*':\n    - a\n"),
            ("salt/a.sls", "a:\n  test.nop: []\n"),
            ("pillar/top.sls", "base:\n  '*':\n    - bad\n"),
        ],
    );
    std::fs::write(dir.join("pillar/bad.sls"), b"k: caf\xe9\n").unwrap();
    let out = lowstate(&["compile", "-c", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc[0],
        "Pillar failed to render. Additional info follows:\n\n- Rendering SLS 'bad' failed. Please see master log for details."
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("can't decode byte 0xe9 in position 6"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn symlinked_formulas_are_followed_inside_the_checkout_only() {
    let base = temp_dir("symlinks");
    let co = base.join("checkout");
    for (path, text) in [
        ("checkout/minion", "id: x\nfile_roots: {base: [salt]}\n"),
        ("checkout/salt/top.sls", "base:\n  '*':\n    - nginx\n"),
        (
            "checkout/formulas/nginx-formula/nginx/init.sls",
            "nginx-pkg:\n  pkg.installed: []\n",
        ),
        ("outside/evil/init.sls", "evil:\n  test.nop: []\n"),
    ] {
        let p = base.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::os::unix::fs::symlink("../formulas/nginx-formula/nginx", co.join("salt/nginx")).unwrap();
    std::os::unix::fs::symlink("../../outside/evil", co.join("salt/evil")).unwrap();
    let c = co.to_str().unwrap();
    // A formula linked from inside the checkout is followed, as Salt does.
    let out = lowstate(&["compile", "-c", c]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("nginx-pkg"));
    // A link out of the checkout is refused with a note naming the link,
    // its target and the key that allows it.
    std::fs::write(co.join("salt/top.sls"), "base:\n  '*':\n    - evil\n").unwrap();
    let out = lowstate(&["compile", "-c", c]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("salt/evil is a symlink to") && err.contains("lowstate_symlink_roots"),
        "{err}"
    );
    std::fs::write(
        co.join("minion"),
        "id: x\nfile_roots: {base: [salt]}\nlowstate_symlink_roots: [../outside]\n",
    )
    .unwrap();
    let out = lowstate(&["compile", "-c", c]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_absolute_import_path_is_refused_with_a_clear_error() {
    let dir = tree(
        "absimport",
        &[
            ("minion", "id: x\nfile_roots: {base: [salt]}\n"),
            ("salt/top.sls", "base:\n  '*':\n    - a\n"),
            (
                "salt/a.sls",
                "{% import_yaml '/etc/hosts.yaml' as h %}\na:\n  test.nop: []\n",
            ),
        ],
    );
    let out = lowstate(&["compile", "-c", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("an absolute path is a file on the minion"),
        "{err}"
    );
}

/// A panic never prints what it was formatting (it may be a secret): the
/// hook says where, exits non-zero, and LOWSTATE_DEBUG=1 shows the rest.
#[test]
fn a_panic_withholds_its_message() {
    let secret = "hunter2-panic-secret";
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["compile"])
        .env("LOWSTATE_TEST_PANIC", secret)
        .env_remove("LOWSTATE_DEBUG")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("error[internal]"), "{err}");
    assert!(err.contains("src/main.rs"), "{err}");
    assert!(!err.contains(secret), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["compile"])
        .env("LOWSTATE_TEST_PANIC", secret)
        .env("LOWSTATE_DEBUG", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(secret));
}

fn fresh_tree(tag: &str, mocks: &str) -> TempDir {
    let d = temp_dir(tag);
    std::fs::create_dir_all(d.join("salt")).unwrap();
    std::fs::write(
        d.join("minion"),
        format!("id: m\nfile_roots:\n  base: [salt]\n{mocks}"),
    )
    .unwrap();
    std::fs::write(d.join("salt/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(
        d.join("salt/a.sls"),
        "{% set v = salt['pkg.version']('nginx') %}{% set w = salt['pkg.version']('vim') %}\n{% set u = salt['user.info']('deploy') %}\nx: {test.nop: [{v: \"{{ v }}\"}, {u: {{ u|tojson }}}]}\n",
    )
    .unwrap();
    d
}

/// Queries about the minion's state get a fresh minion's answers with one
/// warning per function; a mock wins; --strict makes them errors.
#[test]
fn fresh_minion_answers_warn_once_per_function_and_strict_refuses() {
    let d = fresh_tree("fresh", "");
    let out = lowstate(&["compile", "-c", d.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("warning[fresh-minion-answer]").count(),
        2,
        "{err}"
    );
    assert_eq!(
        err.matches("`pkg.version` was answered").count(),
        1,
        "{err}"
    );
    insta::assert_snapshot!("fresh-minion-warnings", err);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["v"], "");
    assert_eq!(v[0]["u"], serde_json::json!({}));
    let strict = lowstate(&["compile", "-c", d.to_str().unwrap(), "--strict"]);
    let err = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(1), "{err}");
    assert!(
        err.contains("'pkg.version' needs a live minion and is not mocked"),
        "{err}"
    );
    let mocked = fresh_tree("fresh-mock", "mocks:\n  pkg.version: '1.2'\n");
    let out = lowstate(&["compile", "-c", mocked.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("`pkg.version` was answered"), "{err}");
    assert!(err.contains("`user.info` was answered"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["v"], "1.2");
}

/// docs/COMPATIBILITY.md lists every fresh-minion answer the code gives.
#[test]
fn compatibility_md_lists_the_fresh_minion_answers() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/COMPATIBILITY.md"),
    )
    .unwrap();
    for (f, answer) in lowstate::salt::render::jinja::salt::FRESH_MINION_ANSWERS {
        let row = format!("| `{f}` | {answer} |");
        assert!(doc.contains(&row), "COMPATIBILITY.md lacks {row}");
    }
}

/// Salt's config environment variables are not an input: one warning each,
/// and the compile is the same.
#[test]
fn salt_config_env_vars_are_ignored_with_a_warning() {
    let plain = lowstate(&["compile", "-c", "state_tree"]);
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(["compile", "-c", "state_tree"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SALT_CONFIG_DIR", "/nonexistent/salt")
        .env("SALT_MINION_CONFIG", "/nonexistent/salt/minion")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, plain.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("warning[ignored-env-var]").count(), 2);
    insta::assert_snapshot!("salt-env-var-warnings", err);
}

/// `ext_pillar` commands run only with `--run-ext-pillar` (their data then
/// merges after the pillar SLS, `%s` being the minion id); without it, and
/// for modules lowstate lacks, a warning says the data is missing.
#[test]
fn ext_pillar_commands_run_only_when_allowed() {
    let dir = temp_dir("ext-pillar");
    std::fs::create_dir_all(dir.join("pillar")).unwrap();
    std::fs::write(dir.join("pillar/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(dir.join("pillar/a.sls"), "k: sls\nm: {sls: 1}\n").unwrap();
    let config = serde_json::json!({
        "id": "web1",
        "pillar_roots": {"base": ["pillar"]},
        "ext_pillar": [
            {"cmd_json": r#"echo '{"k": "ext-%s", "m": {"ext": 1}}'"#},
            {"git": "main https://example.com/pillar.git"},
        ],
    });
    std::fs::write(
        dir.join("minion"),
        serde_json::to_string_pretty(&config).unwrap(),
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let off = lowstate(&["pillar", "--unmask", "-c", d]);
    assert_eq!(off.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&off.stdout).unwrap();
    assert_eq!(v, serde_json::json!({"k": "sls", "m": {"sls": 1}}));
    let err = String::from_utf8_lossy(&off.stderr);
    assert_eq!(
        err.matches("warning[ext-pillar-skipped]").count(),
        2,
        "{err}"
    );
    insta::assert_snapshot!("ext-pillar-warnings", err.replace(d, "DIR"));
    let on = lowstate(&["pillar", "--unmask", "--run-ext-pillar", "-c", d]);
    let v: serde_json::Value = serde_json::from_slice(&on.stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"k": "ext-web1", "m": {"sls": 1, "ext": 1}})
    );
    let err = String::from_utf8_lossy(&on.stderr);
    assert_eq!(
        err.matches("warning[ext-pillar-skipped]").count(),
        1,
        "{err}"
    );
    let explain = lowstate(&[
        "config",
        "-c",
        d,
        "--run-ext-pillar",
        "--explain",
        "lowstate_ext_pillar_commands",
    ]);
    let text = String::from_utf8_lossy(&explain.stdout);
    assert!(text.contains("cli:--run-ext-pillar"), "{text}");
}

/// Every flag that sets something is shorthand for one key of the user's
/// settings layer, and `config --explain` names the flag as its origin.
#[test]
fn every_setting_flag_is_recorded_as_its_cli_origin() {
    let mocks_dir = temp_dir("flag-mocks");
    let mocks = mocks_dir.join("mocks.yaml");
    std::fs::write(&mocks, "pkg.version: '1.0'\n").unwrap();
    let out = lowstate(&[
        "config",
        "-c",
        "state_tree",
        "--explain",
        "--id",
        "web9",
        "--grain",
        "role=db",
        "--file-root",
        "state_tree/salt",
        "--pillar-root",
        "state_tree/pillar",
        "--saltenv",
        "base",
        "--strict",
        "--salt-version",
        "3007",
        "--run-ext-pillar",
        "--mocks",
        mocks.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for (key, flag) in [
        ("id", "--id"),
        ("grains", "--grains/--grain"),
        ("file_roots", "--file-root"),
        ("pillar_roots", "--pillar-root"),
        ("saltenv", "--saltenv"),
        ("lowstate_strict", "--strict"),
        ("lowstate_salt_version", "--salt-version"),
        ("lowstate_ext_pillar_commands", "--run-ext-pillar"),
        ("mocks", "--mocks"),
    ] {
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| {
                !l.starts_with(&format!("{key} ")) && !l.starts_with(&format!("{key}:"))
            })
            .take(2)
            .collect();
        assert!(
            block.iter().any(|l| l.contains(&format!("cli:{flag}"))),
            "{key} is not recorded as cli:{flag}:\n{text}"
        );
    }
}

/// `minion.d/*.conf` merge over `minion` as Salt's `default_include` does,
/// and `config --explain` names the layer of each setting.
#[test]
fn minion_d_files_layer_over_minion_and_config_explains_them() {
    let dir = temp_dir("minion-d");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("state_tree");
    for sub in ["salt", "pillar"] {
        let status = Command::new("cp")
            .arg("-r")
            .arg(root.join(sub))
            .arg(&*dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::copy(root.join("minion"), dir.join("minion")).unwrap();
    std::fs::create_dir_all(dir.join("minion.d")).unwrap();
    std::fs::write(dir.join("minion.d/20-b.conf"), "failhard: true\n").unwrap();
    std::fs::write(
        dir.join("minion.d/10-a.conf"),
        "failhard: false\nstate_auto_order: false\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let out = lowstate(&[
        "config",
        "-c",
        d,
        "--explain",
        "--explain-format",
        "json",
        "--id",
        "x9",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let leaf = |k: &str| common::explain_leaf(&v, k).clone();
    // Sorted by name: 20-b.conf is read last and wins.
    assert!(leaf("failhard")["from"]["origin"]
        .as_str()
        .unwrap()
        .contains("20-b.conf"));
    assert_eq!(leaf("failhard")["value"], true);
    assert!(leaf("state_auto_order")["from"]["origin"]
        .as_str()
        .unwrap()
        .contains("10-a.conf"));
    assert_eq!(leaf("id")["from"]["origin"], "cli:--id");
    // A minion.d file that does not parse: a config error naming it.
    std::fs::write(dir.join("minion.d/30-bad.conf"), "a: [\n").unwrap();
    let out = lowstate(&["compile", "-c", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("30-bad.conf"));
}

/// `--settings` files, then `--user-env`, then flags: later wins, and
/// `config --explain` names the layer.
#[test]
fn settings_files_layer_under_the_flags() {
    let dir = temp_dir("settings");
    std::fs::write(dir.join("s1.yaml"), "id: from-settings\nfailhard: true\n").unwrap();
    std::fs::write(dir.join("u.yaml"), "id: from-user-env\n").unwrap();
    let s1 = dir.join("s1.yaml");
    let u = dir.join("u.yaml");
    let (s1, u) = (s1.to_str().unwrap(), u.to_str().unwrap());
    let explain = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "config",
            "-c",
            "state_tree",
            "--settings",
            s1,
            "--user-env",
            u,
        ];
        args.extend(extra);
        args.extend(["--explain", "--explain-format", "json"]);
        let out = lowstate(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let leaf = |v: &serde_json::Value, k: &str| common::explain_leaf(v, k).clone();
    let v = explain(&[]);
    assert_eq!(leaf(&v, "id")["value"], "from-user-env");
    assert_eq!(
        leaf(&v, "id")["from"]["origin"].as_str().unwrap(),
        format!("{u}:1:1")
    );
    assert_eq!(leaf(&v, "failhard")["value"], true);
    let v = explain(&["--id", "flag"]);
    assert_eq!(leaf(&v, "id")["from"]["origin"], "cli:--id");
    // A settings file that is not a mapping: a usage error naming it.
    std::fs::write(dir.join("bad.yaml"), "- a\n").unwrap();
    let out = lowstate(&[
        "compile",
        "-c",
        "state_tree",
        "--settings",
        dir.join("bad.yaml").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.yaml"));
}

fn files_case(case: &str) -> String {
    test_case("files-corpus", case)
}

#[test]
fn files_prints_salts_document_and_exits_1_on_error_entries() {
    let case = files_case("s09-errors");
    let out = lowstate(&["files", "-c", &case]);
    assert_eq!(out.status.code(), Some(1));
    // stdout is the whole document, byte for byte what Salt's oracle wrote.
    let expected = std::fs::read_to_string(Path::new(&case).join("expected/files.json")).unwrap();
    let ours = String::from_utf8(out.stdout).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&ours).unwrap();
    let exp: serde_json::Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(
        doc["files"].as_array().unwrap().len(),
        exp["files"].as_array().unwrap().len()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[jinja-undefined]"), "{stderr}");
    assert!(stderr.contains("no_such_var"), "{stderr}");
    // The document is Salt's text exactly (indent 2, non-ASCII kept,
    // base64 for binary files).
    let case = files_case("s11-binary");
    let out = lowstate(&["files", "-c", &case]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read_to_string(Path::new(&case).join("expected/files.json")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    // A tree whose files all render: exit 0.
    let case = files_case("s01-context-defaults");
    let out = lowstate(&["files", "-c", &case]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = std::fs::read_to_string(Path::new(&case).join("expected/files.json")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn files_text_format_and_output_dir() {
    let case = files_case("s13-names");
    let out = lowstate(&["files", "-c", &case, "--format", "text"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("==> /etc/n2 (state many) <==\nsecond\n"),
        "{text}"
    );
    let dir = temp_dir("files-out");
    let out = lowstate(&["files", "-c", &case, "-o", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    // The later state managing /etc/n1 wins, as on the minion; ~ is /root.
    assert_eq!(
        std::fs::read_to_string(dir.join("etc/n1")).unwrap(),
        "name=/etc/n1\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("root/.bashrc")).unwrap(),
        "name=/root/.bashrc\n"
    );
    assert_eq!(std::fs::read(dir.join("etc/empty")).unwrap(), b"");
    // Nothing but the files: no temp file left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.join("etc"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["empty", "n1", "n2"]);
}

#[test]
fn grains_prints_salts_merge_and_explains_it() {
    let dir = tree(
        "grains",
        &[
            (
                "minion",
                "id: web01.example.com\nfile_roots: {base: [salt]}\ngrains: {roles: [web], os: Ubuntu}\ngrains_blacklist: ['ip*']\n",
            ),
            ("grains", "datacenter: east\n"),
            ("salt/top.sls", "base: {}\n"),
        ],
    );
    let d = dir.to_str().unwrap();
    let out = lowstate(&["grains", "-c", d, "--grain", "rack=7"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Inferred from `os: Ubuntu`: no assumed-profile warning.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &v["local"];
    assert_eq!(g["os"], "Ubuntu");
    assert_eq!(g["osfinger"], "Ubuntu-24.04");
    assert_eq!(g["saltversion"], "3008.5");
    assert_eq!(g["host"], "web01");
    assert_eq!(g["datacenter"], "east");
    assert_eq!(g["rack"], 7);
    assert!(g.get("ip4_interfaces").is_none(), "blacklisted");
    // --salt-version gives that release's own grains.
    let out = lowstate(&["grains", "-c", d, "--salt-version", "3006"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["local"]["saltversioninfo"], serde_json::json!([3006, 30]));
    let out = lowstate(&["grains", "-c", d, "--grain", "rack=7", "--explain", "rack"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cli:--grain rack=7"), "{text}");
    let out = lowstate(&["grains", "-c", d, "--explain", "osrelease"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("OS profile ubuntu-24.04 (inferred from grains os=Ubuntu)"),
        "{text}"
    );
    let out = lowstate(&["grains", "-c", d, "--explain", "datacentre"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `datacenter`?"));
}

#[test]
fn grains_bad_input_exits_2_with_the_reason() {
    let dir = tree(
        "grains-bad",
        &[
            ("minion", "id: m\nfile_roots: {base: [salt]}\n"),
            ("grains", "- not\n- a mapping\n"),
        ],
    );
    let d = dir.to_str().unwrap();
    let out = lowstate(&["grains", "-c", d]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("grains must be a mapping, not list"), "{err}");
    std::fs::remove_file(dir.join("grains")).unwrap();
    let out = lowstate(&["grains", "-c", d, "--os", "debian-99"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown OS profile `debian-99`") && err.contains("debian-12"),
        "{err}"
    );
    let out = lowstate(&["grains", "-c", d, "--grains", "missing.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json: no such file"));
    let out = lowstate(&["grains", "--list-os"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert_eq!(list.lines().count(), 22, "{list}");
    assert!(list.contains("debian-12") && list.contains("(default)"));
    // Without an OS: the default profile and one warning.
    let out = lowstate(&["grains", "-c", d]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("assumed-os-profile").count(), 1, "{err}");
}

#[test]
fn os_profile_answers_a_fresh_minions_queries_from_its_base_system() {
    let dir = tree(
        "os-base",
        &[
            ("minion", "id: m\nfile_roots: {base: [salt]}\n"),
            ("salt/top.sls", "base:\n  '*':\n    - a\n"),
            (
                "salt/a.sls",
                "a:\n  test.nop:\n    - sh: {{ salt['cmd.which']('sh') }}\n    - git: {{ salt['cmd.has_exec']('git') }}\n    - www: {{ salt['user.info']('www-data').get('home') }}\n    - release: {{ grains['osfinger'] }}\n",
            ),
        ],
    );
    let d = dir.to_str().unwrap();
    let out = lowstate(&["compile", "-c", d, "--os", "debian-12"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chunk = &v[0];
    // Merged /usr: `salt-call --local cmd.which sh` on Debian 12 prints /usr/bin/sh.
    assert_eq!(chunk["sh"], "/usr/bin/sh");
    assert_eq!(chunk["git"], false);
    assert_eq!(chunk["www"], "/var/www");
    assert_eq!(chunk["release"], "Debian-12");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("freshly installed minion of OS profile debian-12"),
        "{err}"
    );
    // A profile without base-system data answers as an empty system.
    let out = lowstate(&["compile", "-c", d, "--os", "rocky-9"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // `{{ None }}` prints None, as in Salt.
    assert_eq!(v[0]["sh"], "None");
    assert_eq!(v[0]["release"], "Rocky Linux-9");
}

#[test]
fn hot_explain_and_parameter_files_read_yaml_as_the_compile_does() {
    // Heat's YAML rules, not Salt's: `0755` is octal (493) and the last of
    // repeated keys wins. `--explain` and `--parameters` once read these
    // files with Salt's rules (755, and a repeated key an error).
    let dir = temp_dir("hot-dialect");
    let t = dir.join("t.yaml");
    std::fs::write(
        &t,
        "heat_template_version: 2016-10-14\nparameters:\n  mode:\n    type: number\n    default: 0755\n  name:\n    type: string\n    default: first\n  name:\n    type: string\n    default: second\n  count:\n    type: number\n    default: 1\nresources: {}\n",
    )
    .unwrap();
    let values = dir.join("values.yaml");
    std::fs::write(&values, "count: 010\ncount: 011\n").unwrap();
    let (t, values) = (t.to_str().unwrap(), values.to_str().unwrap());
    let out = lowstate(&["hot", t, "--parameters", values]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let value = |p: &str| doc["parameters"][p]["value"].clone();
    assert_eq!(value("mode"), 493, "{doc}");
    assert_eq!(value("name"), "second", "{doc}");
    assert_eq!(value("count"), 9, "{doc}");

    let out = lowstate(&["hot", t, "--explain", "--explain-format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let leaf = |k: &str| common::explain_leaf(&v, k).clone();
    for (k, want) in [
        ("mode", serde_json::json!(493)),
        ("name", serde_json::json!("second")),
    ] {
        let l = leaf(k);
        assert_eq!(l["value"], want, "{l}");
        assert_eq!(l["from"]["value"], want, "{l}");
        assert!(
            l["from"]["origin"]
                .as_str()
                .is_some_and(|a| a.contains("t.yaml:")),
            "the template default is located: {l}"
        );
    }
}
