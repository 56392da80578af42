//! External pillars (`ext_pillar:` in the minion config): which entries
//! lowstate can give data for, and running them.
//!
//! Salt calls each entry's module after the pillar SLS files (before them
//! with `ext_pillar_first: True`) and merges what it returns with the
//! pillar merge strategy. Of Salt's modules, lowstate implements the three
//! that only run a command and parse its output — `cmd_json`, `cmd_yaml`
//! and `cmd_yamlex` — and runs them only when the user allows it
//! (`lowstate_ext_pillar_commands: true`, or `--run-ext-pillar`): a compile
//! that reviews a change must not run what the change configures. Every
//! entry whose data is missing from the pillar (a command not allowed, a
//! module lowstate does not have, a malformed entry, a command that fails)
//! is a located warning, where Salt only logs; none stops the compile.

use crate::diag::{codes, Diagnostic};
use crate::value::Value;

/// One entry of `ext_pillar`, as the config gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtPillar {
    /// The module name (`cmd_json`).
    pub module: String,
    /// Its argument (the command, for the `cmd_*` modules).
    pub arg: Value,
    /// Its place in the `ext_pillar` list.
    pub index: usize,
}

/// The modules lowstate can run (they run a command).
const COMMAND_MODULES: &[&str] = &["cmd_json", "cmd_yaml", "cmd_yamlex"];

/// The `ext_pillar` entries of `opts`, or the warning Salt would log for a
/// malformed option (Salt then skips every external pillar).
pub fn entries(opts: &Value) -> Result<Vec<ExtPillar>, Diagnostic> {
    let Some(option) = opts.get("ext_pillar") else {
        return Ok(Vec::new());
    };
    let Value::List(items) = option else {
        if matches!(option, Value::Null) {
            return Ok(Vec::new());
        }
        return Err(Diagnostic::new(
            codes::EXT_PILLAR_SKIPPED,
            "The \"ext_pillar\" option is malformed: it must be a list of {module: argument} mappings; no external pillar was used",
        ));
    };
    let mut out = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Value::Map(m) = item else {
            return Err(Diagnostic::new(
                codes::EXT_PILLAR_SKIPPED,
                format!(
                    "The \"ext_pillar\" option is malformed: the entry `{}` is not a {{module: argument}} mapping; no external pillar was used",
                    item.py_str()
                ),
            ));
        };
        for (k, v) in m {
            out.push(ExtPillar {
                module: k.py_str(),
                arg: v.clone(),
                index,
            });
        }
    }
    Ok(out)
}

/// What one entry gave: its data (a mapping to merge), or nothing and why.
pub type ExtResult = Result<Value, Diagnostic>;

/// Run `entry` for `minion_id`, when `allow_commands`; else say why its
/// data is missing. Data that is not a mapping is returned as it is (the
/// merge then fails as Salt's does).
pub fn run(entry: &ExtPillar, minion_id: &str, allow_commands: bool) -> ExtResult {
    let name = &entry.module;
    if !COMMAND_MODULES.contains(&name.as_str()) {
        return Err(Diagnostic::new(
            codes::EXT_PILLAR_SKIPPED,
            format!("ext_pillar `{name}` is not supported by lowstate: its data is missing from the pillar"),
        )
        .with_note("give its data with `--pillar @FILE` (merged last, over every pillar layer)"));
    }
    let Value::Str(command) = &entry.arg else {
        return Err(Diagnostic::new(
            codes::EXT_PILLAR_SKIPPED,
            format!(
                "ext_pillar `{name}` takes a command string, not `{}`: its data is missing from the pillar",
                entry.arg.py_str()
            ),
        ));
    };
    if !allow_commands {
        return Err(Diagnostic::new(
            codes::EXT_PILLAR_SKIPPED,
            format!("ext_pillar `{name}` runs a command, and lowstate runs none unless allowed: its data is missing from the pillar"),
        )
        .with_note("allow it with `--run-ext-pillar` (setting `lowstate_ext_pillar_commands: true`), or give its data with `--pillar @FILE`"));
    }
    // Salt's cmd_* modules put the minion id where the command says `%s`.
    let command = command.replace("%s", minion_id);
    let failed = |why: String| {
        Diagnostic::new(
            codes::EXT_PILLAR_FAILED,
            format!("ext_pillar `{name}`: {why}; Salt logs this and uses no data from it"),
        )
    };
    let output = run_command(&command).map_err(failed)?;
    let data = match name.as_str() {
        "cmd_json" => serde_json::from_str::<serde_json::Value>(&output)
            .map(|j| Value::from_json(&j))
            .map_err(|e| format!("the output of `{command}` is not JSON ({e})")),
        "cmd_yamlex" => crate::salt::yamlex::load(
            &output,
            &crate::yaml::LoadOptions::new(crate::yaml::Dialect::Yamlex, &Default::default()),
        )
        .map(|y| y.into_value())
        .map_err(|e| format!("the output of `{command}` is not YAML ({})", e.message)),
        _ => crate::yaml::load_value(&output, crate::yaml::Dialect::Salt)
            .map_err(|e| format!("the output of `{command}` is not YAML ({})", e.message)),
    };
    data.map_err(failed)
}

/// Run `command` as Salt's `cmd.run` does from a pillar module: split as a
/// POSIX shell would split words (no shell: `python_shell` is off there),
/// in the home directory, stdout and stderr together, trailing whitespace
/// stripped. A command that cannot start or exits non-zero is an error.
fn run_command(command: &str) -> Result<String, String> {
    let words =
        shlex::split(command).ok_or_else(|| format!("cannot split the command `{command}`"))?;
    let Some((program, args)) = words.split_first() else {
        return Err("the command is empty".into());
    };
    let mut cmd = std::process::Command::new(program);
    cmd.args(args).stdin(std::process::Stdio::null());
    if let Some(home) = std::env::var_os("HOME") {
        if std::path::Path::new(&home).is_dir() {
            cmd.current_dir(home);
        }
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!("`{command}` failed ({})", out.status));
    }
    Ok(text.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Map;

    fn opts(yaml: &str) -> Value {
        crate::yaml::load_value(yaml, crate::yaml::Dialect::Salt).unwrap()
    }

    #[test]
    fn entries_read_in_order_and_malformed_options_are_refused() {
        let e = entries(&opts("ext_pillar: [{cmd_json: echo 1}, {git: x}]")).unwrap();
        assert_eq!(
            e.iter().map(|e| e.module.as_str()).collect::<Vec<_>>(),
            ["cmd_json", "git"]
        );
        assert!(entries(&opts("ext_pillar: cmd_json")).is_err());
        assert!(entries(&opts("ext_pillar: [cmd_json]")).is_err());
        assert!(entries(&Value::Map(Map::new())).unwrap().is_empty());
    }

    #[test]
    fn commands_run_only_when_allowed() {
        let e = ExtPillar {
            module: "cmd_json".into(),
            arg: Value::str(r#"echo '{"who": "%s"}'"#),
            index: 0,
        };
        let d = run(&e, "web1", false).unwrap_err();
        assert_eq!(d.code, codes::EXT_PILLAR_SKIPPED);
        assert!(d.notes[0].contains("--run-ext-pillar"));
        let v = run(&e, "web1", true).unwrap();
        assert_eq!(v.get("who"), Some(&Value::str("web1")));
    }

    #[test]
    fn unknown_modules_bad_output_and_failing_commands_are_warnings() {
        let git = ExtPillar {
            module: "git".into(),
            arg: Value::str("main https://x"),
            index: 0,
        };
        assert!(run(&git, "m", true)
            .unwrap_err()
            .message
            .contains("not supported"));
        let bad = ExtPillar {
            module: "cmd_json".into(),
            arg: Value::str("echo not-json"),
            index: 0,
        };
        let d = run(&bad, "m", true).unwrap_err();
        assert_eq!(d.code, codes::EXT_PILLAR_FAILED);
        assert!(d.message.contains("not JSON"));
        let fails = ExtPillar {
            module: "cmd_yaml".into(),
            arg: Value::str("false"),
            index: 0,
        };
        assert!(run(&fails, "m", true)
            .unwrap_err()
            .message
            .contains("failed"));
        let yaml = ExtPillar {
            module: "cmd_yaml".into(),
            arg: Value::str("echo 'a: yes'"),
            index: 0,
        };
        assert_eq!(
            run(&yaml, "m", true).unwrap().get("a"),
            Some(&Value::Bool(true))
        );
    }
}
