//! Secrets never reach a human output. A secret is planted in the pillar of
//! `tests/leak-tree` (`db:password`, named by `lowstate_secret_pillar`) and
//! used by states through Jinja (a file's contents, a bad `recurse`, a
//! requisite that names it and fails the compile), and in a Heat hidden
//! parameter set by an environment file; the arguments of a `no_log: True`
//! state are not printed either. Every subcommand in every output
//! format runs; the secret's bytes must not appear on stdout or stderr.
//! The machine outputs an executor reads (`compile`, `highstate`, `hot
//! --format json|yaml`) keep the values unless `--redact` is given; the
//! test checks that they do (the secret really is in the plan).

use std::process::Command;

const SALT_SECRET: &str = "S3cretPass-123";
const HOT_SECRET: &str = "example-only-secret";
/// Arguments of a `no_log: True` state (one of them in a check finding).
const NO_LOG: [&str; 2] = ["NoLogValue-42", "NoLogFlag-77"];

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lowstate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .output()
        .expect("run lowstate");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn planted_secrets_never_reach_a_human_output() {
    let c = ["-c", "tests/leak-tree"];
    let salt: Vec<Vec<&str>> = vec![
        vec!["compile", "--redact"],
        vec!["compile", "--redact", "--format", "yaml"],
        vec!["compile", "--sls", "bad"],
        vec!["compile", "--sls", "bad", "--redact"],
        vec![
            "compile",
            "--sls",
            "bad",
            "--error-format",
            "json",
            "--redact",
        ],
        vec!["compile", "--sls", "nolog_bad"],
        vec!["compile", "--sls", "nolog_bad", "--error-format", "json"],
        vec!["highstate", "--redact"],
        vec!["highstate", "--redact", "--format", "yaml"],
        vec!["pillar"],
        vec!["pillar", "--unmask"],
        vec!["pillar", "--unmask", "--format", "yaml"],
        vec!["pillar", "--explain"],
        vec!["pillar", "--explain", "--unmask"],
        vec![
            "pillar",
            "--explain",
            "--unmask",
            "--explain-format",
            "json",
        ],
        vec!["config"],
        vec!["config", "--explain"],
        vec!["render", "app"],
        vec!["render", "bad"],
        vec!["simulate"],
        vec!["simulate", "--format", "json"],
        vec!["order"],
        vec!["graph", "--format", "dot"],
        vec!["graph", "--format", "mermaid"],
        vec!["graph", "--format", "json"],
        vec!["graph", "--format", "html"],
        vec!["check"],
        vec!["check", "--format", "json"],
        vec!["check", "--format", "github"],
        vec!["check", "--format", "sarif"],
        vec!["check", "--format", "codeclimate"],
    ];
    let mut scanned = 0;
    let secrets = [SALT_SECRET, NO_LOG[0], NO_LOG[1]];
    for args in &salt {
        let mut all: Vec<&str> = args.clone();
        all.extend(c);
        let printed = run(&all);
        // `compile --sls bad` without --redact: the failure document on a
        // non-terminal stdout is Salt's error list (machine output).
        if args.iter().any(|a| a.ends_with("bad"))
            && !args.contains(&"--redact")
            && args[0] == "compile"
        {
            let stderr_only = printed.lines().filter(|l| {
                !l.starts_with(' ')
                    && !l.starts_with('[')
                    && !l.starts_with(']')
                    && !l.starts_with('"')
            });
            assert!(
                stderr_only
                    .clone()
                    .all(|l| !secrets.iter().any(|s| l.contains(s))),
                "{all:?}:\n{printed}"
            );
        } else {
            for secret in secrets {
                assert!(
                    !printed.contains(secret),
                    "`lowstate {}` printed the secret {secret}:\n{printed}",
                    all.join(" ")
                );
            }
        }
        scanned += 1;
    }
    // The machine output keeps it (an executor needs it).
    let plan = run(&["compile", "-c", "tests/leak-tree"]);
    assert!(plan.contains(SALT_SECRET) && plan.contains(NO_LOG[0]));
    assert!(run(&["check", "-c", "tests/leak-tree", "--format", "json"]).contains("makedirs"));
    let hot = [
        "docs/examples/hot/stack.yaml",
        "-e",
        "docs/examples/hot/env/site.yaml",
    ];
    let mut doc = vec!["hot"];
    doc.extend(hot);
    assert!(run(&doc).contains(HOT_SECRET), "the plan document keeps it");
    for extra in [
        &["--format", "json", "--redact"][..],
        &["--format", "yaml", "--redact"][..],
        &["--format", "text"][..],
        &["--format", "order"][..],
        &["--format", "dot"][..],
        &["--format", "mermaid"][..],
        &["--format", "graph-json"][..],
        &["--format", "html"][..],
        &["--explain"][..],
        &["--explain", "--explain-format", "json"][..],
    ] {
        let mut all = vec!["hot"];
        all.extend(hot);
        all.extend(extra);
        let printed = run(&all);
        assert!(
            !printed.contains(HOT_SECRET),
            "`lowstate {}` printed the secret",
            all.join(" ")
        );
        scanned += 1;
    }
    for format in ["human", "json", "github", "sarif", "codeclimate"] {
        let printed = run(&["check", "--hot", hot[0], "-e", hot[2], "--format", format]);
        assert!(
            !printed.contains(HOT_SECRET),
            "check --hot --format {format} printed the secret"
        );
        scanned += 1;
    }
    assert_eq!(scanned, 46, "outputs scanned");
}
