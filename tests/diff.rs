//! The change report from the command line: `lowstate diff OLD` and
//! `fleet --diff OLD` in every format, their exit codes (a change is not
//! an error; a tree or a file that fails is), OLD that is neither a
//! directory nor a git revision, secrets masked everywhere, and the
//! Markdown through GitHub's own renderer (cmark-gfm, from PyPI's
//! `cmarkgfm`; `.ci/run` installs it); the same Markdown for a Heat stack
//! from the update preview (`lowstate hot NEW --diff-from OLD --format
//! markdown`) on cases of `tests/corpus-hot-update`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lowstate(dir: &Path, args: &[&str]) -> Output {
    common::lowstate_in(dir, args)
}

/// `fleet -c new --minions m.yaml --diff OLD --format FORMAT` in `dir`.
fn fleet_diff(dir: &Path, old: &str, format: &str) -> Output {
    lowstate(
        dir,
        &[
            "fleet",
            "-c",
            "new",
            "--minions",
            "m.yaml",
            "--diff",
            old,
            "--format",
            format,
        ],
    )
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowstate-diff-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, text: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const SECRETS: [&str; 2] = ["hunter22", "swordfish"];

/// Two trees: a changed argument, an added and a removed state, a
/// reordered pair, a changed template (with a secret pillar value in it),
/// a new file, a binary file, a `no_log` state whose secret changes.
fn trees(tag: &str) -> PathBuf {
    let d = temp(tag);
    for (tree, password, port, extra, order, logo) in [
        (
            "old",
            SECRETS[0],
            80,
            "gone: {test.nop: []}\n",
            "a\nb\n",
            &[0x89u8, 0x50, 0xff, 0][..],
        ),
        (
            "new",
            SECRETS[1],
            8080,
            "/etc/motd:\n  file.managed:\n    - contents: welcome\n",
            "b\na\n",
            &[0x89u8, 0x50, 0xfe, 0][..],
        ),
    ] {
        let t = d.join(tree);
        write(
            &t.join("minion"),
            "id: web1\nfile_roots:\n  base: [salt]\npillar_roots:\n  base: [pillar]\nlowstate_secret_pillar: ['db:password']\nlowstate_os: debian-12\n",
        );
        write(&t.join("pillar/top.sls"), "base:\n  '*':\n    - db\n");
        write(
            &t.join("pillar/db.sls"),
            format!("db:\n  password: {password}\n"),
        );
        write(
            &t.join("salt/top.sls"),
            "base:\n  '*':\n    - web\n    - order\n",
        );
        write(
            &t.join("salt/web.sls"),
            format!(
                "w: {{test.nop: [{{port: {port}}}]}}\n{extra}/etc/app.conf:\n  file.managed:\n    - source: salt://app.conf.j2\n    - template: jinja\n/etc/logo.bin:\n  file.managed:\n    - source: salt://logo.bin\nsecret:\n  test.nop:\n    - pw: {{{{ pillar.db.password }}}}\n    - no_log: True\n"
            ),
        );
        let order: String = order
            .lines()
            .map(|s| format!("{s}: {{test.nop: []}}\n"))
            .collect();
        write(&t.join("salt/order.sls"), order);
        write(
            &t.join("salt/app.conf.j2"),
            format!(
                "listen {port}\npassword {{{{ pillar.db.password }}}}\nname {{{{ grains.id }}}}\n"
            ),
        );
        write(&t.join("salt/logo.bin"), logo);
    }
    d
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn no_secret(text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "secret {s} shown:\n{text}");
    }
}

/// The text report of one minion, in full; every format masks the secrets
/// and exits 0 (changes are not errors).
#[test]
fn diff_reports_values_files_and_order_with_secrets_masked() {
    let d = trees("formats");
    let out = lowstate(&d, &["diff", "-c", "new", "old"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    no_secret(&stdout(&out));
    no_secret(&stderr(&out));
    insta::assert_snapshot!("diff_text", stdout(&out));
    for format in ["json", "markdown"] {
        let out = lowstate(&d, &["diff", "-c", "new", "old", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        no_secret(&stdout(&out));
        insta::assert_snapshot!(format!("diff_{format}"), stdout(&out));
    }
    let json: serde_json::Value = serde_json::from_slice(
        &lowstate(&d, &["diff", "-c", "new", "old", "--format", "json"]).stdout,
    )
    .unwrap();
    let group = &json["groups"][0];
    let files = group["files"].as_array().unwrap();
    let kinds: Vec<&str> = files
        .iter()
        .map(|f| f["change"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["new file", "changed", "changed"], "{files:#?}");
    assert_eq!(
        files[2]["diff"],
        serde_json::Value::Null,
        "binary: no diff text"
    );
    assert_eq!(files[2]["new"]["kind"], "binary");
    assert_eq!(group["order"][0]["item"]["id"], "b");
    let secret = group["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "secret")
        .unwrap();
    assert_eq!(secret["values"][0]["masked"], true);
    let _ = std::fs::remove_dir_all(&d);
}

/// Exit codes: 1 when the new tree does not compile (the report still
/// prints, the failure first) or a managed file cannot be rendered; 2 when
/// OLD is neither a directory nor a git revision, naming it.
#[test]
fn failures_exit_1_and_a_bad_old_exits_2_naming_it() {
    let d = trees("exit");
    write(
        &d.join("new/salt/app.conf.j2"),
        "listen {{ pillar.nope.port }}\n",
    );
    let out = lowstate(&d, &["diff", "-c", "new", "old", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let group = &json["groups"][0];
    assert_eq!(group["failed"], true);
    let error = group["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["change"] == "error")
        .expect("the file that fails to render is an error entry");
    assert!(
        error["new"]["error"].as_str().unwrap().contains("nope"),
        "{error}"
    );
    // The whole new tree failing: still a report, exit 1.
    write(
        &d.join("new/salt/web.sls"),
        "w: {test.nop: [{port: {{ nope.x }}}]}\n",
    );
    let out = lowstate(&d, &["diff", "-c", "new", "old"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("the new tree fails:"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("failed with the new tree"),
        "{}",
        stderr(&out)
    );
    // OLD neither a directory nor a revision (outside a repository, and in
    // one).
    for tag in ["no-repo", "repo"] {
        if tag == "repo" {
            let git = |args: &[&str]| {
                let ok = Command::new("git")
                    .args(args)
                    .current_dir(&d)
                    .output()
                    .unwrap();
                assert!(ok.status.success(), "{}", stderr(&ok));
            };
            git(&["init", "-q"]);
        }
        let out = lowstate(&d, &["diff", "-c", "new", "no-such-rev"]);
        assert_eq!(out.status.code(), Some(2), "{tag}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no-such-rev: neither a config directory"),
            "{tag}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
        write(&d.join("m.yaml"), "- id: web1\n");
        let out = fleet_diff(&d, "no-such-rev", "text");
        assert_eq!(out.status.code(), Some(2), "{tag}: {}", stderr(&out));
        assert!(stderr(&out).contains("no-such-rev"), "{}", stderr(&out));
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A fleet: minions with the same changes are one group; secrets stay
/// masked in every format.
#[test]
fn fleet_groups_minions_and_masks_secrets_in_every_format() {
    let d = trees("fleet");
    // Without `grains.id` in the template, the web minions share a change.
    for tree in ["old", "new"] {
        let p = d.join(tree).join("salt/app.conf.j2");
        let text = std::fs::read_to_string(&p).unwrap();
        write(&p, text.replace("name {{ grains.id }}\n", ""));
    }
    write(
        &d.join("m.yaml"),
        (1..=5)
            .map(|i| format!("- id: web{i}\n  grains: {{os: Debian}}\n"))
            .collect::<String>(),
    );
    for format in ["text", "json", "markdown"] {
        let out = fleet_diff(&d, "old", format);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        no_secret(&stdout(&out));
        no_secret(&stderr(&out));
        assert!(
            stdout(&out).contains("web1 … web5 (5 minions)"),
            "{format}: {}",
            stdout(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// cmark-gfm (GitHub's renderer, PyPI `cmarkgfm`) in the venv `.ci/run`
/// makes, else the system Python; `None` with a plain message when it is
/// missing outside CI, a failure under CI.
fn gfm_python() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("LOWSTATE_TOOLS_BIN")
        .map(|d| PathBuf::from(d).join("python3"))
        .into_iter()
        .collect();
    candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/bin/python3"));
    candidates.push(PathBuf::from("python3"));
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import cmarkgfm"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "cmarkgfm is missing: .ci/run installs it (pip install cmarkgfm) into target/ci-tools"
    );
    eprintln!("skipped: the GFM check needs cmarkgfm (pip install cmarkgfm; .ci/run does)");
    None
}

/// The Markdown file `md` rendered by cmark-gfm as GitHub does (raw HTML
/// kept).
fn gfm_html(python: &Path, md: &Path) -> String {
    let script = "import sys, cmarkgfm\n\
from cmarkgfm.cmark import Options\n\
text = open(sys.argv[1], encoding='utf-8').read()\n\
sys.stdout.write(cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE))\n";
    let html = Command::new(python)
        .args(["-c", script])
        .arg(md)
        .output()
        .unwrap();
    assert!(html.status.success(), "{}", stderr(&html));
    stdout(&html)
}

/// `lowstate hot template.yaml --diff-from old/template.yaml --format
/// markdown` in a case of `tests/corpus-hot-update`.
fn hot_markdown(case: &str) -> Output {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus-hot-update")
        .join(case);
    let mut args = vec!["hot", "template.yaml", "--diff-from", "old/template.yaml"];
    if dir.join("params.json").exists() {
        args.extend(["--parameters", "params.json"]);
    }
    args.extend(["--format", "markdown"]);
    lowstate(&dir, &args)
}

/// The update preview as a change report for one stack: replacements
/// first with Heat's reason, then updates in place, additions and
/// deletions (group members by `removal_policies` included), with old and
/// new values; a hidden parameter's values never shown.
#[test]
fn hot_update_preview_as_markdown() {
    for case in [
        "006-server-flavor-replace-policy",
        "018-group-removal-policy",
        "032-hidden-parameter",
    ] {
        let out = hot_markdown(case);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", stderr(&out));
        let md = stdout(&out);
        assert!(md.starts_with("<!-- lowstate:change-report -->\n"), "{md}");
        for secret in ["hunter2-new-secret", "s3cret-old-value"] {
            assert!(!md.contains(secret), "{case}: secret shown:\n{md}");
        }
        insta::assert_snapshot!(format!("hot_update_markdown_{case}"), md);
    }
    // An update Heat refuses (an immutable parameter changed) is a
    // failure of the new side: exit 1, the reason in the report.
    let out = hot_markdown("015-err-immutable-parameter");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("❌"), "{md}");
    assert!(md.contains("immutable and may not be updated"), "{md}");
    // Without --diff-from there is no report: a usage error.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus-hot-update/006-server-flavor-replace-policy");
    let out = lowstate(&dir, &["hot", "template.yaml", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--diff-from"), "{}", stderr(&out));
}

/// The stack report renders on GitHub's flavour too: two tables, the
/// masked value in its cell, the secret nowhere.
#[test]
fn hot_update_markdown_renders_as_github_does() {
    let Some(python) = gfm_python() else {
        return;
    };
    let out = hot_markdown("032-hidden-parameter");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = temp("hot-gfm");
    let md = d.join("report.md");
    std::fs::write(&md, &out.stdout).unwrap();
    let html = gfm_html(&python, &md);
    assert_eq!(html.matches("<table>").count(), 2, "{html}");
    assert!(html.contains("<th>Resource</th>"), "{html}");
    assert!(
        html.contains("<details><summary><b>template</b></summary>"),
        "{html}"
    );
    assert!(html.contains("&lt;redacted&gt;"), "{html}");
    assert!(html.contains("<code>10 → 20</code>"), "{html}");
    for secret in ["hunter2-new-secret", "s3cret-old-value"] {
        assert!(!html.contains(secret), "{html}");
    }
    assert!(!html.contains("|---"), "{html}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The Markdown report renders on GitHub's flavour: the summary table is a
/// table, each group a `<details>` with its summary, the diffs `diff`
/// code blocks, the masked values and pipes inside table cells intact.
#[test]
fn markdown_renders_as_github_does() {
    let Some(python) = gfm_python() else {
        return;
    };
    let d = trees("gfm");
    // A value with a pipe and backticks, inside a table cell.
    for (tree, v) in [("old", "a|b"), ("new", "a|`c`")] {
        let p = d.join(tree).join("salt/order.sls");
        let text = std::fs::read_to_string(&p).unwrap();
        write(&p, format!("{text}pipe: {{test.nop: [{{v: '{v}'}}]}}\n"));
    }
    let out = lowstate(&d, &["diff", "-c", "new", "old", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = d.join("report.md");
    std::fs::write(&md, &out.stdout).unwrap();
    let html = gfm_html(&python, &md);
    // Summary table and each group's state table.
    assert_eq!(html.matches("<table>").count(), 2, "{html}");
    assert!(html.contains("<th>Group</th>"), "{html}");
    assert!(
        html.contains("<details><summary><b>web1</b></summary>"),
        "{html}"
    );
    assert!(html.contains("</details>"), "{html}");
    assert!(html.contains(r#"<pre lang="diff"><code>@@"#), "{html}");
    assert!(
        html.contains("-listen 80\n") && html.contains("+listen 8080\n"),
        "{html}"
    );
    // The pipe stays inside its cell's code span.
    assert!(
        html.contains("<code>&quot;a|b&quot; → &quot;a|`c`&quot;</code>"),
        "{html}"
    );
    assert!(html.contains("&lt;redacted&gt;"), "{html}");
    no_secret(&html);
    // No stray Markdown: no literal table pipes or fences left in the HTML.
    assert!(!html.contains("|---"), "{html}");
    assert!(!html.contains("```"), "{html}");
    let _ = std::fs::remove_dir_all(&d);
}
