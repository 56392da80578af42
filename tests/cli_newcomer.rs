//! The CLI as a new user meets it: flags beat the keys they stand for, and
//! the rough edges a first run hits (summaries, did-you-mean, readable
//! plans, drawings of a broken tree).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lowstate_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(dir)
        .env_remove("SALT_CONFIG_DIR")
        .env_remove("SALT_MINION_CONFIG")
        .output()
        .expect("run lowstate")
}

/// A fresh directory, removed with everything in it when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d =
            std::env::temp_dir().join(format!("lowstate-newcomer-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    fn write(&self, rel: &str, text: &str) -> &TempDir {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A Salt tree with `minion` and `top.sls`, the given SLS files under
/// `salt/`.
fn salt_tree(name: &str, files: &[(&str, &str)]) -> TempDir {
    let t = TempDir::new(name);
    t.write(
        "minion",
        "id: web1\nlowstate_os: debian-12\nfile_roots:\n  base: [salt]\npillar_roots:\n  base: [pillar]\n",
    );
    for (rel, text) in files {
        t.write(&format!("salt/{rel}"), text);
    }
    t
}

/// A typed flag beats the key it stands for, and `config --explain` names
/// the flag as the key's origin.
#[test]
fn flags_beat_their_keys_and_explain_names_the_flag() {
    let t = salt_tree(
        "flags",
        &[
            ("top.sls", "base:\n  '*': [a]\n"),
            ("a.sls", "a:\n  test.nop\n"),
        ],
    );
    t.write(
        "minion",
        "id: web1\nfile_roots:\n  base: [salt]\nlowstate_salt_version: 3006\nsaltenv: dev\n",
    );
    let d = t.0.to_str().unwrap();
    let out = lowstate_in(
        &t.0,
        &[
            "config",
            "-c",
            d,
            "--salt-version",
            "3007",
            "--saltenv",
            "base",
            "--strict",
            "--explain",
            "--explain-format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let leaf = |k: &str| common::explain_leaf(&v, k).clone();
    assert_eq!(leaf("lowstate_salt_version")["value"], 3007);
    assert_eq!(
        leaf("lowstate_salt_version")["from"]["origin"],
        "cli:--salt-version"
    );
    assert_eq!(leaf("saltenv")["value"], "base");
    assert_eq!(leaf("saltenv")["from"]["origin"], "cli:--saltenv");
    assert_eq!(leaf("lowstate_strict")["from"]["origin"], "cli:--strict");
    // The compile uses the flag's saltenv, not the file's `dev`.
    let out = lowstate_in(&t.0, &["compile", "-c", d, "--saltenv", "base"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"__id__\": \"a\""),
        "{}",
        stdout(&out)
    );
}

/// A HOT template in a directory of its own.
fn hot_template(name: &str, file: &str, text: &str) -> TempDir {
    let t = TempDir::new(name);
    t.write(file, text);
    t
}

/// Nobody named the stack: it is called after the template, with a
/// UUID-shaped id and a plain project, as a user's stack would be.
#[test]
fn hot_default_stack_is_named_after_the_template() {
    let t = hot_template(
        "stack-name",
        "my-app.yaml",
        "heat_template_version: 2016-10-14\nresources: {}\noutputs:\n  name: {value: {get_param: OS::stack_name}}\n  id: {value: {get_param: OS::stack_id}}\n  project: {value: {get_param: OS::project_id}}\n",
    );
    let out = lowstate_in(&t.0, &["hot", "my-app.yaml", "--format", "text"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("  name: my-app\n"), "{text}");
    assert!(
        text.contains("  id: 6c1f3b52-9d4e-4a7b-8e21-5f0a9c3d7b14\n"),
        "{text}"
    );
    assert!(text.contains("  project: demo\n"), "{text}");
    let out = lowstate_in(
        &t.0,
        &[
            "hot",
            "my-app.yaml",
            "--format",
            "text",
            "--stack-name",
            "prod",
        ],
    );
    assert!(stdout(&out).contains("  name: prod\n"), "{}", stdout(&out));
}

/// The text plan: nested values as indented blocks, short flat ones on
/// one line, multi-line strings as literal blocks that read as written.
#[test]
fn hot_text_plan_prints_nested_values_and_multiline_strings_readably() {
    let t = hot_template(
        "text-plan",
        "web.yaml",
        r#"heat_template_version: 2016-10-14
resources:
  boot:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: |
        #!/bin/sh
        echo "hello"

        exit 0
      inputs:
        - name: port
          type: Number
          description: the port the server listens on, which clients must be able to reach
      options: {a: 1, b: [x, y]}
outputs:
  config:
    value: {get_attr: [boot, config]}
"#,
    );
    let out = lowstate_in(&t.0, &["hot", "web.yaml", "--format", "text"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!("hot-text-plan", stdout(&out));
}

/// `simulate` ends with the summary `salt-call state.apply` prints.
#[test]
fn simulate_ends_with_salts_summary() {
    let t = salt_tree(
        "simulate-summary",
        &[
            ("top.sls", "base:\n  '*': [app]\n"),
            (
                "app.sls",
                "pkg:\n  pkg.installed:\n    - name: nginx\nconf:\n  file.managed:\n    - name: /etc/nginx.conf\n    - require:\n      - pkg: pkg\nnoop:\n  test.succeed_without_changes\n",
            ),
        ],
    );
    t.write("assume.yaml", "pkg: {result: false, comment: no mirror}\n");
    let d = t.0.to_str().unwrap();
    let out = lowstate_in(&t.0, &["simulate", "-c", d, "--assume", "assume.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    insta::assert_snapshot!("simulate-summary", stdout(&out));
}

/// A tree whose states have long reasons.
fn order_tree(name: &str) -> TempDir {
    salt_tree(
        name,
        &[
            ("top.sls", "base:\n  '*': [web]\n"),
            (
                "web.sls",
                "nginx-package-with-a-long-id:\n  pkg.installed:\n    - name: nginx\nnginx-service:\n  service.running:\n    - name: nginx\n    - watch:\n      - pkg: nginx-package-with-a-long-id\n",
            ),
        ],
    )
}

/// `order --format json`: the report as data.
#[test]
fn order_prints_json() {
    let t = order_tree("order-json");
    let d = t.0.to_str().unwrap();
    let out = lowstate_in(&t.0, &["order", "-c", d, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], 1);
    let states = v["states"].as_array().unwrap();
    assert_eq!(states.len(), 2);
    assert_eq!(states[1]["id"], "nginx-service");
    assert_eq!(states[1]["sls"], "web");
    assert_eq!(states[1]["function"], "service.running");
    assert_eq!(states[1]["order"], 10001);
    let why = states[1]["why"].as_array().unwrap();
    assert!(
        why.iter().any(|w| w["family"] == "watches"
            && w["text"]
                .as_str()
                .unwrap()
                .contains("nginx-package-with-a-long-id")),
        "{why:?}"
    );
}

/// On a terminal `order` wraps the reasons at its width; into a pipe the
/// lines stay whole. The terminal is `script`'s pseudo-terminal.
#[test]
fn order_wraps_at_the_terminal_width_only_on_a_terminal() {
    let t = order_tree("order-width");
    let d = t.0.to_str().unwrap();
    let piped = lowstate_in(&t.0, &["order", "-c", d]);
    let long = stdout(&piped)
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(long > 100, "{}", stdout(&piped));
    let bin = env!("CARGO_BIN_EXE_lowstate");
    let run = Command::new("script")
        .args([
            "-qec",
            &format!("{bin} order -c {d} --color never"),
            "/dev/null",
        ])
        .env("COLUMNS", "100")
        .current_dir(&t.0)
        .output();
    let Ok(run) = run else {
        eprintln!("skipped the terminal half: no `script` (util-linux) to make a pseudo-terminal");
        return;
    };
    let text = stdout(&run).replace('\r', "");
    assert!(text.contains("nginx-service"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert!(
        text.lines().count() > stdout(&piped).lines().count(),
        "{text}"
    );
}

/// `check --hot` on a stack that stops at its parameters: every missing
/// or invalid value at once (the first is the one Heat reports), and the
/// summary line.
#[test]
fn check_hot_reports_every_missing_parameter_at_once() {
    let t = hot_template(
        "seven-params",
        "app.yaml",
        "heat_template_version: 2016-10-14\nparameters:\n  image: {type: string}\n  flavor: {type: string}\n  count: {type: number}\n  key_name: {type: string}\n  config: {type: json}\n  dns: {type: comma_delimited_list}\n  debug: {type: boolean}\nresources: {}\n",
    );
    let out = lowstate_in(
        &t.0,
        &[
            "check",
            "--hot",
            "app.yaml",
            "-P",
            "count=many",
            "--color",
            "never",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("error[").count(), 7, "{text}");
    assert!(
        stderr(&out)
            .contains("lowstate check: 7 errors, 0 warnings, 0 info in the parameters of app.yaml"),
        "{}",
        stderr(&out)
    );
    insta::assert_snapshot!("check-hot-every-parameter", text);
}

/// A resource type Heat does not know: a warning with Heat's refusal and
/// the closest type; an error (exit 1) with `--strict`.
#[test]
fn check_hot_warns_of_an_unknown_type_with_a_did_you_mean() {
    let t = hot_template(
        "unknown-type",
        "app.yaml",
        "heat_template_version: 2016-10-14\nresources:\n  placeholder:\n    type: OS::Heat::Nonee\n",
    );
    let out = lowstate_in(&t.0, &["check", "--hot", "app.yaml", "--color", "never"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!("check-hot-unknown-type", stdout(&out));
    let out = lowstate_in(
        &t.0,
        &["check", "--hot", "app.yaml", "--color", "never", "--strict"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("error[hot-unknown-type]"),
        "{}",
        stdout(&out)
    );
}

/// A resource whose body is empty gets Heat's own message.
#[test]
fn hot_null_resource_body_gets_heats_message() {
    let t = hot_template(
        "null-body",
        "app.yaml",
        "heat_template_version: 2016-10-14\nresources:\n  port:\n",
    );
    let out = lowstate_in(&t.0, &["hot", "app.yaml", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("hot-null-resource-body", stderr(&out));
}

/// `graph` of a tree with a requisite cycle: the tree is drawn with the
/// cycle highlighted, then the cycle is reported (exit 1).
#[test]
fn graph_draws_a_requisite_cycle_highlighted() {
    let t = salt_tree(
        "graph-cycle",
        &[
            ("top.sls", "base:\n  '*': [app]\n"),
            (
                "app.sls",
                "a:\n  test.nop:\n    - require:\n      - test: b\nb:\n  test.nop:\n    - require:\n      - test: a\nc:\n  test.nop:\n    - require:\n      - test: a\n",
            ),
        ],
    );
    let d = t.0.to_str().unwrap();
    let out = lowstate_in(&t.0, &["graph", "-c", d, "--color", "never"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error[requisite-cycle]: Recursive requisites were found"),
        "{}",
        stderr(&out)
    );
    insta::assert_snapshot!("graph-cycle-dot", stdout(&out));
    for (format, mark) in [
        ("json", "\"cycle\": true"),
        ("mermaid", "cycle: require"),
        ("html", "cycle: require"),
    ] {
        let out = lowstate_in(&t.0, &["graph", "-c", d, "--format", format]);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(
            stdout(&out).matches(mark).count() >= 2,
            "{format}: {}",
            stdout(&out)
        );
    }
}

/// A misspelt requisite target and a misspelt state function get a
/// did-you-mean.
#[test]
fn misspelt_requisite_targets_and_functions_get_a_did_you_mean() {
    let t = salt_tree(
        "did-you-mean",
        &[
            ("top.sls", "base:\n  '*': [web]\n"),
            (
                "web.sls",
                "nginx:\n  pkg.installed: []\n  service.running:\n    - require:\n      - pkg: ngnix\n",
            ),
        ],
    );
    let out = lowstate_in(&t.0, &["compile", "-c", ".", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("did-you-mean-requisite", stderr(&out));
    t.write(
        "salt/web.sls",
        "nginx:\n  pkg.installed: []\n  service.runing:\n    - require:\n      - pkg: nginx\n",
    );
    let out = lowstate_in(&t.0, &["check", "-c", ".", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("did-you-mean-function", stdout(&out));
}

/// A state whose ID Jinja generates: `check` points at the ID's line in
/// the template (and the argument's), once for every state it makes.
#[test]
fn check_points_at_the_template_line_of_a_generated_id() {
    let t = salt_tree(
        "jinja-id",
        &[
            ("top.sls", "base:\n  '*': [users]\n"),
            (
                "users.sls",
                "{% for u in ['alice', 'bob'] %}\n{{ u }}-home:\n  file.managed:\n    - name: /home/{{ u }}/.profile\n    - source: salt://profile\n    - contents: x\n{% endfor %}\n",
            ),
        ],
    );
    let out = lowstate_in(&t.0, &["check", "-c", ".", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.matches("--> ./salt/users.sls:2:1").count(),
        2,
        "{text}"
    );
    insta::assert_snapshot!("check-generated-id", text);
}

/// The HTML view of a stack: one lane per creation wave, in Heat's words
/// (resources, what they depend on), not Salt's.
#[test]
fn hot_html_lays_the_stack_out_by_wave_in_heats_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = lowstate_in(
        root,
        &[
            "hot",
            "docs/examples/hot/stack.yaml",
            "-e",
            "docs/examples/hot/env/site.yaml",
            "--format",
            "html",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = stdout(&out);
    for wave in 0..4 {
        assert!(
            page.contains(&format!("\"group\":\"wave {wave}\"")),
            "wave {wave}"
        );
    }
    assert!(page.contains("\"groupName\":\"wave\""));
    assert!(page.contains("\"needs\":\"Depends on\",\"neededBy\":\"Required by\""));
    assert!(
        page.contains("resources, <b>"),
        "the summary counts resources"
    );
    assert!(!page.contains("requisites"), "no Salt words");
    // Salt's page keeps Salt's words.
    let t = order_tree("html-words");
    let out = lowstate_in(&t.0, &["graph", "-c", ".", "--format", "html"]);
    assert!(stdout(&out).contains("Click a state for its requisites"));
}

/// Several runs' exit codes and stderr, one labelled section each, for
/// one snapshot.
fn runs(dir: &Path, cases: &[(&str, &[&str])]) -> String {
    let mut text = String::new();
    for (label, args) in cases {
        let out = lowstate_in(dir, args);
        text.push_str(&format!(
            "== {label}: lowstate {}\nexit {}\n{}",
            args.join(" "),
            out.status.code().unwrap_or(-1),
            stderr(&out)
        ));
    }
    text
}

/// `-c` given the minion file itself works; another file, a missing
/// directory, a missing or malformed `--grains` file, a `grains` file that
/// is not a mapping and an unknown OS name are exit 2 with a message that
/// names the path (as JSON too with `--error-format json`).
#[test]
fn first_contact_config_errors_name_the_path() {
    let t = salt_tree(
        "first-contact",
        &[
            ("top.sls", "base:\n  '*': [a]\n"),
            ("a.sls", "a:\n  test.nop\n"),
        ],
    );
    t.write("other.conf", "id: x\n");
    t.write("list.json", "[1, 2]\n");
    t.write("bad/minion", "id: x\n");
    t.write("bad/grains", "- not\n- a mapping\n");
    let ok = lowstate_in(&t.0, &["compile", "-c", "minion"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    assert!(stdout(&ok).contains("\"__id__\": \"a\""));
    let text = runs(
        &t.0,
        &[
            ("a file other than minion", &["compile", "-c", "other.conf"]),
            ("no such directory", &["compile", "-c", "nodir"]),
            (
                "as JSON",
                &["compile", "-c", "nodir", "--error-format", "json"],
            ),
            (
                "missing --grains file",
                &["compile", "--grains", "missing.json"],
            ),
            (
                "--grains not a mapping",
                &["compile", "--grains", "list.json"],
            ),
            ("grains file not a mapping", &["compile", "-c", "bad"]),
            ("unknown OS profile", &["compile", "--os", "debain-12"]),
            (
                "a bad --limit as JSON",
                &["compile", "--limit", "bogus=1", "--error-format", "json"],
            ),
        ],
    );
    insta::assert_snapshot!("first-contact-config-errors", text);
}

/// `pillar --explain KEY` for a key the pillar lacks is exit 1 with a
/// did-you-mean; `lowstate pillar` prints Salt's `_errors` document and
/// exits 1 when a pillar file fails.
#[test]
fn pillar_explain_of_a_missing_key_and_a_failing_pillar_exit_1() {
    let t = salt_tree("pillar-errors", &[("top.sls", "base:\n  '*': []\n")]);
    t.write("pillar/top.sls", "base:\n  '*': [p]\n");
    t.write("pillar/p.sls", "nginx:\n  port: 80\n");
    let good = lowstate_in(&t.0, &["pillar", "--explain", "nginx:port"]);
    assert_eq!(good.status.code(), Some(0), "{}", stderr(&good));
    let mut text = runs(
        &t.0,
        &[
            ("a misspelt key", &["pillar", "--explain", "ngnix"]),
            ("a misspelt leaf", &["pillar", "--explain", "nginx:prot"]),
        ],
    );
    t.write("pillar/p.sls", "nginx: [1\n");
    let out = lowstate_in(&t.0, &["pillar"]);
    text.push_str(&format!(
        "== a pillar file that fails: lowstate pillar\nexit {}\n{}",
        out.status.code().unwrap_or(-1),
        stdout(&out)
    ));
    insta::assert_snapshot!("pillar-explain-missing-key", text);
}

/// Printed paths are folded (`site/../salt/a.sls` → `./salt/a.sls`), and a
/// Jinja undefined on a `pillar[...]` lookup keeps Salt's message and adds
/// a note naming the key and `pillar.get`.
#[test]
fn undefined_pillar_key_gets_a_note_and_a_folded_path() {
    let t = salt_tree(
        "pillar-undefined",
        &[
            ("top.sls", "base:\n  '*': [a]\n"),
            (
                "a.sls",
                "a:\n  test.nop:\n    - name: {{ pillar['nginx']['prot'] }}\n",
            ),
        ],
    );
    t.write(
        "minion",
        "id: web1\nlowstate_os: debian-12\nfile_roots:\n  base: [site/../salt]\npillar_roots:\n  base: [pillar]\n",
    );
    t.write("pillar/top.sls", "base:\n  '*': [p]\n");
    t.write("pillar/p.sls", "nginx:\n  port: 80\n");
    let out = lowstate_in(&t.0, &["compile", "-c", "."]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("undefined-pillar-key-note", stderr(&out));
}

/// An `--assume` entry that is not a mapping is named as written, with no
/// Rust `Some("...")` around it.
#[test]
fn assume_errors_name_the_pattern_plainly() {
    let t = salt_tree(
        "assume-error",
        &[
            ("top.sls", "base:\n  '*': [a]\n"),
            ("a.sls", "nginx_install:\n  test.nop\n"),
        ],
    );
    t.write("assume.yaml", "nginx_install: passed\n");
    let out = lowstate_in(&t.0, &["simulate", "--assume", "assume.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("Some("), "{err}");
    insta::assert_snapshot!("assume-error-plain", err);
}

/// A states repository without `minion` (here `salt/` and `pillar/` with
/// top files) compiles as the `minion` it implies: from its directory
/// without `-c` (said on stderr), and with `-c DIR`. A formula checkout
/// (an SLS one directory down, no top file) compiles its SLS with
/// `--sls`.
#[test]
fn a_state_tree_without_a_minion_compiles_as_the_config_it_implies() {
    let t = TempDir::new("implied");
    t.write("salt/top.sls", "base:\n  '*': [web]\n");
    t.write(
        "salt/web.sls",
        "web:\n  pkg.installed:\n    - name: {{ pillar['pkg'] }}\n",
    );
    t.write("pillar/top.sls", "base:\n  '*': [p]\n");
    t.write("pillar/p.sls", "pkg: nginx\n");
    let here = lowstate_in(&t.0, &["compile"]);
    assert_eq!(here.status.code(), Some(0), "{}", stderr(&here));
    assert!(
        stdout(&here).contains("\"name\": \"nginx\""),
        "{}",
        stdout(&here)
    );
    assert!(
        stderr(&here).contains("compiling the state tree here"),
        "{}",
        stderr(&here)
    );
    let parent = t.0.parent().unwrap();
    let name = t.0.file_name().unwrap().to_str().unwrap();
    let given = lowstate_in(parent, &["compile", "-c", name]);
    assert_eq!(given.status.code(), Some(0), "{}", stderr(&given));
    assert_eq!(stdout(&given), stdout(&here));
    assert!(!t.0.join("minion").exists());

    let f = TempDir::new("implied-formula");
    f.write("nginx/init.sls", "nginx:\n  pkg.installed: []\n");
    f.write("pillar.example", "nginx: {}\n");
    let out = lowstate_in(&f.0, &["compile", "--sls", "nginx"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"__sls__\": \"nginx\""),
        "{}",
        stdout(&out)
    );
}
