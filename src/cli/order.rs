//! `lowstate order`: the execution order as a readable report, with why each
//! state is where it is.

use super::{CmdResult, Common, Failure};
use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub selection: super::Selection,
}

pub fn run(args: Args) -> CmdResult {
    let session = args.common.session(args.selection.sls.clone())?;
    let (graph, sources) = session.graph().map_err(Failure::Compile)?;
    super::hide_no_log(graph.chunks.iter().filter_map(|c| c.chunk.as_map()));
    let text = lowstate::salt::report::order_report(&graph, Some(&sources), super::use_color(true));
    lowstate::emit::output(&super::redacted(&text), None).context("cannot write output")?;
    Ok(())
}
