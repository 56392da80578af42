//! The CLI as a shell and `man` see it: `--version` names the reference
//! releases, `completions bash` completes in a real bash, and the manual
//! pages (`man`) carry every command and flag `--help` shows and render in
//! groff without a warning.

mod common;

use common::{help_commands as commands, lowstate};
use std::process::Command;

fn stdout(args: &[&str]) -> String {
    let out = lowstate(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "lowstate {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn version_names_the_reference_releases() {
    let expected = format!(
        "lowstate {} (Salt {}, Heat {})\n",
        env!("CARGO_PKG_VERSION"),
        lowstate::salt::REFERENCE_VERSION,
        lowstate::hot::REFERENCE_VERSION
    );
    assert_eq!(stdout(&["--version"]), expected);
    assert_eq!(stdout(&["-V"]), expected);
    assert!(expected.contains("Salt 3008.5, Heat 27.0.1"), "{expected}");
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    assert!(
        doc.contains(&format!("`{}`", expected.trim_end())),
        "docs/cli.md shows `{}`",
        expected.trim_end()
    );
}

/// The long flags a `--help` text shows.
fn flags(help: &str) -> Vec<String> {
    let mut flags: Vec<String> = help
        .split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches([',', '.', ')'])
                .split(['=', '<', '[', '`'])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .filter(|f| f.len() > 2)
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn completions_of_an_unknown_shell_exit_2_with_the_list() {
    let out = lowstate(&["completions", "nosuchshell"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(err.contains(shell), "{err}");
    }
}

#[test]
fn completion_scripts_name_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(&["completions", shell]);
        for c in commands() {
            assert!(script.contains(&c), "{shell}: {c} missing");
        }
        // clap_complete's elvish and PowerShell scripts complete names
        // only, not the values of options.
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(
                script.contains("codeclimate"),
                "{shell}: check --format values"
            );
        }
    }
}

/// What bash completes for `words` (the last one being completed), with
/// the script `lowstate completions bash` prints loaded as a user's
/// `.bashrc` would.
fn bash_complete(words: &[&str]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("lowstate-completion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("lowstate.bash");
    std::fs::write(&script, stdout(&["completions", "bash"])).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let driver = format!(
        "source '{}'\n\
         COMP_WORDS=({})\n\
         COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         prev=''; [ $COMP_CWORD -gt 0 ] && prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         _lowstate lowstate \"${{COMP_WORDS[COMP_CWORD]}}\" \"$prev\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &driver])
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut words: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    words.sort();
    words
}

#[test]
fn bash_completes_commands_flags_and_values() {
    if Command::new("bash").arg("--version").output().is_err() {
        eprintln!("skipped: bash is not installed");
        return;
    }
    assert_eq!(
        bash_complete(&["lowstate", "com"]),
        ["compile", "completions"]
    );
    assert_eq!(bash_complete(&["lowstate", "check", "--for"]), ["--format"]);
    assert_eq!(
        bash_complete(&["lowstate", "check", "--format", ""]),
        ["codeclimate", "github", "human", "json", "sarif"]
    );
    assert_eq!(bash_complete(&["lowstate", "completions", "ba"]), ["bash"]);
}

/// The text of a roff page with its escapes of `-` undone.
fn roff_text(page: &str) -> String {
    page.replace("\\-", "-")
        .replace("\\fB", "")
        .replace("\\fR", "")
}

#[test]
fn man_pages_match_help() {
    let main = roff_text(&stdout(&["man"]));
    let help = stdout(&["--help"]);
    assert!(main.contains(".TH lowstate 1"), "{main}");
    let about = help.lines().next().unwrap();
    assert!(
        main.contains(&about.replace('\'', "\\*(Aq")),
        "the page's NAME line is --help's first line: {about}"
    );
    for c in commands() {
        assert!(
            main.contains(&format!("lowstate-{c}(1)")),
            "main page lacks {c}"
        );
        let page = roff_text(&stdout(&["man", &c]));
        assert!(page.contains(&format!(".TH lowstate-{c} 1")), "{c}: {page}");
        let sub_help = stdout(&[&c, "--help"]);
        for flag in flags(&sub_help) {
            assert!(page.contains(&flag), "man {c} lacks {flag}");
        }
    }
    for flag in flags(&help) {
        assert!(main.contains(&flag), "main page lacks {flag}");
    }
    let out = lowstate(&["man", "nosuchcommand"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("compile, highstate"));
}

/// Every page is valid roff: groff renders it without a warning (`-k`:
/// through preconv, as `man` reads UTF-8 pages).
#[test]
fn man_pages_render_in_groff() {
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("skipped: groff is not installed (Debian's groff-base)");
        return;
    }
    let mut pages = vec![stdout(&["man"])];
    for c in commands() {
        pages.push(stdout(&["man", &c]));
    }
    for page in pages {
        let mut child = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("groff");
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let title = page.lines().find(|l| l.starts_with(".TH")).unwrap_or("");
        assert!(out.status.success(), "{title}");
        assert!(
            out.stderr.is_empty(),
            "{title}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
