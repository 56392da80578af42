//! `lowstate order`: the execution order as a readable report, with why each
//! state is where it is.

use super::{CmdResult, Common, Ctx, Failure};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// Run `lowstate order`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    let (graph, sources) = session.graph().map_err(Failure::Compile)?;
    ctx.hide_no_log(graph.chunks.iter().filter_map(|c| c.chunk.as_map()));
    let text = lowstate::salt::report::order_report(&graph, Some(&sources), ctx.use_color(true));
    ctx.print(&text, None)?;
    Ok(())
}
