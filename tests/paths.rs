//! Reads never leave the configured roots: a test per escape kind (`..`,
//! an absolute path or URL, a symlink out of the roots) for every way a
//! Salt tree or a HOT template names a file. Each must fail with a message
//! that says why, and the planted secret must never be printed.

use std::path::{Path, PathBuf};
use std::process::Command;

const SECRET: &str = "s3cr3t-do-not-print";

/// A work directory with `secret.yaml` outside the tree, a Salt tree under
/// `t/` (one SLS `a` = `sls`) and a link `t/salt/link.yaml` to the secret.
fn setup(tag: &str, sls: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lowstate-paths-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("t/salt")).unwrap();
    std::fs::create_dir_all(d.join("h")).unwrap();
    std::fs::write(d.join("secret.yaml"), format!("secret: {SECRET}\n")).unwrap();
    std::fs::write(
        d.join("t/minion"),
        "id: m\nfile_roots:\n  base: [salt]\nlowstate_os: debian-12\n",
    )
    .unwrap();
    std::fs::write(d.join("t/salt/top.sls"), "base:\n  '*':\n    - a\n").unwrap();
    std::fs::write(
        d.join("t/salt/a.sls"),
        format!("{sls}\nx: {{test.nop: [{{name: \"{{{{ x }}}}\"}}]}}\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(d.join("secret.yaml"), d.join("t/salt/link.yaml")).unwrap();
    std::os::unix::fs::symlink(d.join("secret.yaml"), d.join("h/link.yaml")).unwrap();
    d
}

/// Run lowstate in `dir`; expect exit 1, `needle` on stderr, and the
/// secret nowhere. The diagnostic is snapshot-tested (as `tag`).
fn refused(dir: &Path, args: &[&str], needle: &str) {
    let tag = dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("lowstate-paths-"))
        .and_then(|n| n.rsplit_once('-'))
        .map(|(t, _)| t.to_string())
        .unwrap_or_default();
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run lowstate");
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: wanted {needle:?} in:\n{err}"
    );
    assert!(
        !err.contains(SECRET) && !stdout.contains(SECRET),
        "{args:?} printed the secret"
    );
    let shown = err.replace(&dir.display().to_string(), "<dir>");
    insta::assert_snapshot!(format!("paths-{tag}"), shown);
}

fn salt(tag: &str, sls: &str, needle: &str) {
    let d = setup(tag, sls);
    refused(&d, &["compile", "-c", "t"], needle);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn salt_import_with_dotdot_is_refused() {
    salt(
        "imp-dotdot",
        r#"{% import_yaml "../../secret.yaml" as x %}"#,
        "../../secret.yaml: the path leaves the file roots",
    );
}

#[test]
fn salt_include_with_dotdot_is_refused() {
    salt(
        "inc-dotdot",
        r#"{% set x = 1 %}{% include "../../secret.yaml" %}"#,
        "../../secret.yaml: the path leaves the file roots",
    );
}

#[test]
fn salt_import_of_an_absolute_path_is_refused() {
    let d = setup("imp-abs", "");
    let abs = "/etc/lowstate/secret.yaml";
    std::fs::write(
        d.join("t/salt/a.sls"),
        format!(
            "{{% import_yaml \"{abs}\" as x %}}\nx: {{test.nop: [{{name: \"{{{{ x }}}}\"}}]}}\n"
        ),
    )
    .unwrap();
    refused(
        &d,
        &["compile", "-c", "t"],
        "an absolute path is a file on the minion",
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn salt_import_through_a_symlink_out_of_the_roots_is_refused() {
    salt(
        "imp-link",
        r#"{% import_yaml "link.yaml" as x %}"#,
        "is a symlink to",
    );
}

#[test]
fn salt_fileserver_functions_refuse_escapes() {
    salt(
        "hash-dotdot",
        r#"{% set x = salt["hashutil.base64_encodefile"]("salt://../secret.yaml") %}"#,
        "not found in saltenv base",
    );
    salt(
        "hash-link",
        r#"{% set x = salt["hashutil.base64_encodefile"]("salt://link.yaml") %}"#,
        "not found in saltenv base",
    );
    let d = setup("hash-abs", "");
    let abs = "/etc/lowstate/secret.yaml";
    std::fs::write(
        d.join("t/salt/a.sls"),
        format!("{{% set x = salt[\"hashutil.base64_encodefile\"](\"{abs}\") %}}\nx: {{test.nop: []}}\n"),
    )
    .unwrap();
    refused(&d, &["compile", "-c", "t"], "reads");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn salt_sls_directory_linked_out_of_the_checkout_is_refused() {
    let d = setup("sls-link", "");
    std::fs::create_dir_all(d.join("outside/evil")).unwrap();
    std::fs::write(
        d.join("outside/evil/init.sls"),
        format!("{SECRET}: {{test.nop: []}}\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(d.join("outside/evil"), d.join("t/salt/evil")).unwrap();
    std::fs::write(d.join("t/salt/top.sls"), "base:\n  '*':\n    - evil\n").unwrap();
    refused(&d, &["compile", "-c", "t"], "symlink");
    let _ = std::fs::remove_dir_all(&d);
}

fn hot_get_file(tag: &str, path: &str, needle: &str) {
    let d = setup(tag, "");
    std::fs::write(
        d.join("h/t.yaml"),
        format!("heat_template_version: 2016-10-14\nresources:\n  c:\n    type: OS::Heat::SoftwareConfig\n    properties:\n      config: {{get_file: \"{path}\"}}\n"),
    )
    .unwrap();
    refused(&d, &["hot", "h/t.yaml"], needle);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn hot_get_file_with_dotdot_is_refused() {
    hot_get_file(
        "gf-dotdot",
        "../secret.yaml",
        "climbs out of the files root with `..`",
    );
}

#[test]
fn hot_get_file_of_an_absolute_path_or_url_is_refused() {
    let abs = std::env::temp_dir().join("x/secret.yaml");
    hot_get_file(
        "gf-abs",
        &abs.display().to_string(),
        "an absolute path or URL",
    );
    hot_get_file("gf-url", "file:///etc/passwd", "an absolute path or URL");
}

#[test]
fn hot_get_file_through_a_symlink_out_is_refused() {
    hot_get_file("gf-link", "link.yaml", "a symlink leads to");
}
