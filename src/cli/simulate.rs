//! `lowstate simulate`: the run Salt's executor would make, without running
//! anything: run order, results, skipped states, fired `mod_watch`/listeners.

use super::{CmdResult, Common, Ctx, Failure};
use lowstate::salt::simulate::Assumptions;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimFormat {
    /// One line per state run.
    #[default]
    Text,
    /// The versioned JSON document (docs/output-format.md).
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Outcomes for non-`test` states (YAML/JSON, by ID, name or glob).
    #[arg(long, value_name = "FILE")]
    pub assume: Option<std::path::PathBuf>,
    #[arg(long, value_enum, default_value_t = SimFormat::Text)]
    pub format: SimFormat,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// Run `lowstate simulate`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let assume = match &args.assume {
        None => Assumptions::new(),
        Some(p) => Assumptions::load(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?,
    };
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    let run = session.simulate(&assume).map_err(|d| {
        if args.format == SimFormat::Json {
            super::failure_document(
                ctx,
                &d,
                super::DataFormat::Json,
                args.output.as_deref(),
                true,
            );
        }
        Failure::Compile(d)
    })?;
    let states = run
        .states
        .iter()
        .map(|s| (s.id.as_str(), s.name.py_str(), s.state.as_str()));
    for pattern in assume.unmatched(states) {
        eprintln!("lowstate: warning: --assume pattern '{pattern}' matches no state");
    }
    let text = match args.format {
        SimFormat::Json => {
            let mut s = run.to_document().to_json_pretty();
            s.push('\n');
            s
        }
        SimFormat::Text => text(&run.to_value()),
    };
    ctx.print(&text, args.output.as_deref())?;
    // Like Salt's retcode, a run with a failed state fails; lowstate keeps
    // exit 2 for usage errors, so a failed run is 1.
    if run
        .states
        .iter()
        .any(|s| s.result == lowstate::Value::Bool(false))
    {
        return Err(Failure::RunFailed);
    }
    Ok(())
}

fn text(rows: &lowstate::Value) -> String {
    let rows = rows.as_list().cloned().unwrap_or_default();
    let get =
        |r: &lowstate::Value, k: &str| r.get(k).map(lowstate::Value::py_str).unwrap_or_default();
    let fun = |r: &lowstate::Value| format!("{}.{}", get(r, "state"), get(r, "fun"));
    // Columns as wide as their longest cell (in characters), so long IDs
    // and functions keep the table aligned.
    let width = |f: &dyn Fn(&lowstate::Value) -> String, min: usize| {
        rows.iter()
            .map(|r| f(r).chars().count())
            .max()
            .unwrap_or(min)
            .max(min)
    };
    let wi = width(&|r| get(r, "id"), 2);
    let wf = width(&fun, 8);
    let wn = width(&|r| get(r, "run_num"), 1);
    let pad = |s: String, w: usize| {
        let n = s.chars().count();
        format!("{s}{}", " ".repeat(w.saturating_sub(n)))
    };
    let mut out = String::new();
    for r in &rows {
        let result = match r.get("result") {
            Some(lowstate::Value::Bool(true)) => "ok",
            Some(lowstate::Value::Bool(false)) => "FAILED",
            _ => "pending",
        };
        let ran = if r.get("ran").is_some_and(|v| !v.truthy()) {
            " (not run)"
        } else {
            ""
        };
        let changed = if r.get("changes").is_some_and(|v| v.truthy()) {
            " changed"
        } else {
            ""
        };
        let line = format!(
            "{:>wn$}  {}  {}  {result}{changed}{ran}: {}",
            get(r, "run_num"),
            pad(get(r, "id"), wi),
            pad(fun(r), wf),
            get(r, "comment").lines().next().unwrap_or(""),
        );
        out.push_str(&lowstate::diag::render::escape_controls(&line));
        out.push('\n');
    }
    out
}
