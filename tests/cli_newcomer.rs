//! The CLI as a new user meets it: flags beat the keys they stand for, and
//! the rough edges a first run hits (summaries, did-you-mean, readable
//! plans, drawings of a broken tree).

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
        "id: web1\nfile_roots:\n  base: [salt]\npillar_roots:\n  base: [pillar]\n",
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
    let leaf = |k: &str| {
        v["leaves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["path"] == k)
            .cloned()
            .unwrap_or_else(|| panic!("no leaf {k}"))
    };
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
