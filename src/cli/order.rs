//! `lowstate order`: the execution order as a readable report, with why each
//! state is where it is.

use super::{CmdResult, Common, Ctx, Failure};

/// `--format` of `order`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderFormat {
    /// Aligned columns; the reasons wrap at the terminal's width.
    #[default]
    Text,
    /// One JSON document: the states in order, each with its reasons.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OrderFormat::Text)]
    pub format: OrderFormat,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// Run `lowstate order`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    let (graph, sources) = session.graph().map_err(Failure::Compile)?;
    ctx.hide_no_log(graph.chunks.iter().filter_map(|c| c.chunk.as_map()));
    let plan = lowstate::salt::report::explain(&graph, Some(&sources));
    let text = match args.format {
        OrderFormat::Text => {
            // Wrapped only for a person at a terminal.
            let columns = match args.output {
                None => super::terminal_columns(),
                Some(_) => None,
            };
            lowstate::plan::order_report_in(&plan, ctx.use_color(true), columns)
        }
        OrderFormat::Json => {
            let mut t = lowstate::plan::order_document(&plan).to_json_pretty();
            t.push('\n');
            t
        }
    };
    ctx.print(&text, args.output.as_deref())?;
    Ok(())
}
