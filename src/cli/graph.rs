//! `lowstate graph`: the requisite graph as DOT, JSON, Mermaid or a
//! self-contained HTML page.

use super::{CmdResult, Common, Ctx, Failure};
use lowstate::plan;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphFormat {
    #[default]
    Dot,
    Json,
    Mermaid,
    Html,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// Run `lowstate graph`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    // A requisite cycle is when the picture is needed most: the chunks
    // are drawn unordered with the cycle highlighted, then the error is
    // reported (exit 1).
    let (g, sources, cycle) = match session.graph() {
        Ok((g, sources)) => (g, sources, None),
        Err(d) if is_cycle(&d) => {
            let (g, sources) = session.unordered_graph().map_err(Failure::Compile)?;
            (g, sources, Some(d))
        }
        Err(d) => return Err(Failure::Compile(d)),
    };
    ctx.hide_no_log(g.chunks.iter().filter_map(|c| c.chunk.as_map()));
    let mut plan = match args.format {
        // The page shows why each state sits where it does.
        GraphFormat::Html => lowstate::salt::report::explain(&g, Some(&sources)),
        _ => g.to_plan(),
    };
    if cycle.is_some() {
        plan.mark_cycles();
    }
    let mut text = match args.format {
        GraphFormat::Dot => plan::to_dot(&plan),
        GraphFormat::Json => plan::to_json_document(&plan).to_json_pretty(),
        GraphFormat::Mermaid => plan::to_mermaid(&plan),
        GraphFormat::Html => plan::to_html(&plan),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    ctx.print(&text, args.output.as_deref())?;
    match cycle {
        Some(d) => Err(Failure::Compile(d)),
        None => Ok(()),
    }
}

/// Whether the errors are a requisite cycle and nothing else.
fn is_cycle(d: &lowstate::Diagnostics) -> bool {
    let errors = || d.0.iter().filter(|x| x.is_error());
    errors().count() > 0 && errors().all(|x| x.code == lowstate::diag::codes::REQUISITE_CYCLE)
}
