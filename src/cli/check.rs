//! `lowstate check`: compile, then validate every state's arguments (Salt)
//! or every resource's properties (`--hot`, Heat) against the schemas of
//! the reference release, and print all findings at once (human, JSON,
//! GitHub annotations, SARIF or GitLab's code quality report) on stdout,
//! with a summary on stderr.
//! Exit 1 when an error is found (or a warning, with `--deny warnings`).

use super::{CmdResult, Common, Ctx, Failure};
use anyhow::{bail, Context as _};
use clap::ValueEnum;
use lowstate::diag::{render, Severity};
use lowstate::salt::check::{self, Catalogue, CheckOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `lowstate check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub selection: super::Selection,
    /// Check a Heat (HOT) template instead of the Salt tree.
    #[arg(long, value_name = "TEMPLATE")]
    pub hot: Option<PathBuf>,
    #[command(flatten)]
    pub hot_inputs: super::hot::Inputs,
    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,
    /// Also fail (exit 1) on warnings: `--deny warnings`.
    #[arg(long, value_name = "LEVEL", value_parser = ["warnings"])]
    pub deny: Option<String>,
    /// A version of a tool on the minion, for arguments only some versions
    /// support (`--assume-version pip=9.0.1`). Repeatable.
    #[arg(long = "assume-version", value_name = "TOOL=VERSION")]
    pub assume_version: Vec<String>,
}

/// `--format` of `check`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    /// Messages with source snippets.
    Human,
    /// One JSON document (`{"version": 2, "diagnostics": [...]}`).
    Json,
    /// GitHub Actions annotations (workflow commands).
    Github,
    /// SARIF 2.1.0, for code-scanning UIs.
    Sarif,
    /// GitLab's code quality report (Code Climate issues), for
    /// `artifacts:reports:codequality`.
    Codeclimate,
}

fn assumptions(list: &[String]) -> anyhow::Result<BTreeMap<String, Vec<u64>>> {
    let mut out = BTreeMap::new();
    for item in list {
        let Some((tool, version)) = item.split_once('=') else {
            bail!("--assume-version {item}: expected TOOL=VERSION");
        };
        let v = lowstate::rules::parse_version(version)
            .with_context(|| format!("--assume-version {item}: `{version}` is not a version"))?;
        out.insert(tool.trim().to_string(), v);
    }
    Ok(out)
}

/// Run `lowstate check`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let assume = assumptions(&args.assume_version)?;
    let (diags, subjects) = match &args.hot {
        Some(template) => {
            let input = super::hot::inputs(ctx, template, &args.hot_inputs)?;
            let compiled = lowstate::hot::compile(&input);
            ctx.secrets.add(compiled.secrets.clone());
            if !compiled.ok() {
                return Err(Failure::Compile(compiled.diagnostics.into()));
            }
            let n = match compiled.document.get("resources") {
                Some(lowstate::value::Value::List(l)) => l.len(),
                Some(lowstate::value::Value::Map(m)) => m.len(),
                _ => 0,
            };
            (
                lowstate::hot::check::check_compiled(&input, &compiled),
                format!("{n} resource{}", if n == 1 { "" } else { "s" }),
            )
        }
        None => {
            let session = args.common.session(ctx, args.selection.sls.clone())?;
            let plan = session.located_lowstate()?;
            ctx.hide_no_log(plan.lowstate.chunks.iter());
            let options = CheckOptions {
                assume_versions: assume,
                allow: session.config.check_allow.clone(),
                version: session.version,
            };
            let n = plan.lowstate.sequence.len();
            (
                check::check(&plan, &session.config, &options, &Catalogue::new()),
                format!("{n} state{}", if n == 1 { "" } else { "s" }),
            )
        }
    };
    let base = std::env::current_dir().ok();
    let text = match args.format {
        CheckFormat::Human => render::human(&diags, ctx.use_color(true)),
        CheckFormat::Json => {
            let mut t = render::json(&diags);
            t.push('\n');
            t
        }
        CheckFormat::Github => render::github(&diags, base.as_deref()),
        CheckFormat::Sarif => render::sarif(
            &diags,
            ("lowstate", env!("CARGO_PKG_VERSION")),
            base.as_deref(),
        ),
        CheckFormat::Codeclimate => {
            // Masked before rendering: the fingerprints hash the messages.
            let masked: Vec<_> = diags
                .iter()
                .cloned()
                .map(|mut d| {
                    d.message = ctx.redacted(&d.message);
                    d.notes = d.notes.iter().map(|n| ctx.redacted(n)).collect();
                    d
                })
                .collect();
            render::codeclimate(&masked, base.as_deref())
        }
    };
    ctx.print(&text, None)?;
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    eprintln!(
        "lowstate check: {errors} error{}, {warnings} warning{}, {infos} info in {subjects}",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    );
    let fail = errors > 0 || (args.deny.is_some() && warnings > 0);
    if fail {
        Err(Failure::Findings)
    } else {
        Ok(())
    }
}
