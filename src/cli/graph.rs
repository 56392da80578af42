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
    let (g, sources) = session.graph().map_err(Failure::Compile)?;
    ctx.hide_no_log(g.chunks.iter().filter_map(|c| c.chunk.as_map()));
    let mut text = match args.format {
        GraphFormat::Dot => plan::to_dot(&g.to_plan()),
        GraphFormat::Json => plan::to_json_document(&g.to_plan()).to_json_pretty(),
        GraphFormat::Mermaid => plan::to_mermaid(&g.to_plan()),
        // The page shows why each state sits where it does.
        GraphFormat::Html => plan::to_html(&lowstate::salt::report::explain(&g, Some(&sources))),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    ctx.print(&text, args.output.as_deref())?;
    Ok(())
}
