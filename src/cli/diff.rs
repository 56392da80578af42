//! `lowstate diff OLD`: what a change of the tree does to this minion —
//! the compile the other subcommands make (same options), against the
//! same compile of OLD (a config directory or a git revision), as the
//! change report `fleet --diff` prints for a fleet. Also the report
//! options and the old tree's extraction both commands share.

use super::{CmdResult, Common, Ctx, Failure};
use anyhow::anyhow;
use lowstate::changes::{markdown, ChangeSet, Noun, Report, Target};
use lowstate::salt::changes::{minion_changes, Compiled};
use lowstate::salt::config::Config;
use lowstate::salt::pipeline::Session;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub selection: super::Selection,
    /// The old tree: a config directory (holding `minion`), or a git
    /// revision of the repository that holds `-c DIR`.
    #[arg(value_name = "OLD_DIR|REV")]
    pub old: String,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The options of a change report (`diff`, `fleet --diff`).
#[derive(clap::Args, Debug, Clone)]
pub struct ReportArgs {
    /// Report format: text, json (structured old and new values),
    /// markdown (a pull-request comment: summary table, one collapsible
    /// section per group, diffs; within GitHub's 65,536-character limit),
    /// or html (one self-contained page, every group expandable, nothing
    /// cut).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Where the full report is (a URL, e.g. the CI job's artifact),
    /// named in the markdown's note when something had to be cut.
    #[arg(long, value_name = "URL")]
    pub full_report: Option<String>,
}

/// `--format` of a change report.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Plain text.
    Text,
    /// One JSON document.
    Json,
    /// GitHub-flavoured Markdown.
    Markdown,
    /// One self-contained HTML page (expandable groups, no network).
    Html,
}

/// Run `lowstate diff`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let sls = args.selection.sls.clone();
    let (dir, overrides, options) = args.common.prepare(ctx, sls.clone())?;
    let (old_dir, _guard) = old_tree(&dir, &args.old)?;
    let new = args.common.session(ctx, sls)?;
    let mut old_config = Config::load_with(&old_dir, &overrides)
        .map_err(|d| anyhow!("{}: {}", args.old, d.message))?;
    options.apply_to(&mut old_config);
    let old = Session::new(old_config, options);
    let id = new.config.id.clone();
    let (o, n) = (Compiled::of(&old), Compiled::of(&new));
    let changes = compare(ctx, &id, &o, &n);
    let report = Report {
        noun: Noun::MINION,
        old: args.old.clone(),
        new: dir.display().to_string(),
        targets: vec![Target { id, changes }],
    };
    print_report(ctx, report, &args.report)
}

/// One minion's change set, its failures' diagnostics printed to stderr
/// and its `no_log` values added to the run's secrets.
pub(super) fn compare(
    ctx: &Ctx,
    id: &str,
    old: &Result<Compiled, lowstate::Diagnostics>,
    new: &Result<Compiled, lowstate::Diagnostics>,
) -> ChangeSet {
    for (which, r) in [("old", old), ("new", new)] {
        match r {
            Ok(c) => ctx.hide_no_log(c.chunks.iter()),
            Err(d) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "lowstate: minion {id} failed with the {which} tree:"
                );
                ctx.print_diagnostics(&d.0);
            }
        }
    }
    minion_changes(old, new)
}

/// Mask the run's secrets in `report` and print it in `args.format`;
/// exit 1 when a target fails on either side.
pub(super) fn print_report(ctx: &Ctx, mut report: Report, args: &ReportArgs) -> CmdResult {
    let redactor = ctx.secrets.redactor();
    for t in &mut report.targets {
        t.changes.redact(&redactor);
    }
    let text = match args.format {
        ReportFormat::Text => lowstate::changes::text::render(&report),
        ReportFormat::Json => lowstate::changes::json::render(&report),
        ReportFormat::Markdown => {
            let mut opts = markdown::Options::default();
            if let Some(url) = &args.full_report {
                opts.full_report = format!("see {url}");
            }
            markdown::render(&report, &opts)
        }
        ReportFormat::Html => lowstate::changes::html::render(&report),
    };
    ctx.print(&text, None)?;
    if report.failed() {
        Err(Failure::RunFailed)
    } else {
        Ok(())
    }
}

/// The config directory of the old tree: a directory as given, or `REV`
/// of the git repository holding `dir`, extracted into a temp directory
/// (removed when the guard drops). Neither: a usage error naming it.
pub(super) fn old_tree(dir: &Path, old: &str) -> Result<(PathBuf, Option<TempTree>), Failure> {
    let as_dir = Path::new(old);
    if as_dir.join("minion").is_file() {
        return Ok((as_dir.to_path_buf(), None));
    }
    let git = |args: &[&str], cwd: &Path| -> Result<Vec<u8>, Failure> {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(cwd)
            .output()
            .map_err(|e| anyhow!("{old}: not a config directory, and git cannot run: {e}"))?;
        if !out.status.success() {
            return Err(Failure::Config(anyhow!(
                "{old}: neither a config directory (with a `minion` file) nor a git revision: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    };
    let abs = std::path::absolute(dir).map_err(|e| anyhow!("{}: {e}", dir.display()))?;
    let top = String::from_utf8_lossy(&git(&["rev-parse", "--show-toplevel"], &abs)?)
        .trim()
        .to_string();
    // A revision, not a path or an option that git would read otherwise.
    let commit = format!("{old}^{{commit}}");
    git(
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &commit,
        ],
        Path::new(&top),
    )?;
    let rel = abs
        .canonicalize()
        .ok()
        .and_then(|a| a.strip_prefix(&top).ok().map(Path::to_path_buf))
        .unwrap_or_default();
    let tmp = std::env::temp_dir().join(format!("lowstate-diff-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| anyhow!("{}: {e}", tmp.display()))?;
    let guard = TempTree(tmp.clone());
    let archive = git(&["archive", "--format=tar", &commit], Path::new(&top))?;
    let mut tar = std::process::Command::new("tar")
        .args(["-x", "-C"])
        .arg(&tmp)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| anyhow!("{old}: cannot run tar: {e}"))?;
    if let Some(mut stdin) = tar.stdin.take() {
        stdin
            .write_all(&archive)
            .map_err(|e| anyhow!("{old}: {e}"))?;
    }
    let status = tar.wait().map_err(|e| anyhow!("{old}: {e}"))?;
    if !status.success() {
        return Err(Failure::Config(anyhow!("{old}: tar failed")));
    }
    Ok((tmp.join(rel), Some(guard)))
}

/// A temp directory removed on drop.
pub(super) struct TempTree(PathBuf);

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
