//! `lowstate order`: the execution order as a readable report, with why each
//! state is where it is.

use super::{CmdResult, Common, Failure};
use anyhow::Context;
use std::io::IsTerminal;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Colour: auto (on a terminal), always, never.
    #[arg(long, default_value = "auto")]
    pub color: String,
    #[command(flatten)]
    pub selection: super::Selection,
}

pub fn run(args: Args) -> CmdResult {
    let session = args.common.session(args.selection.sls.clone())?;
    let (graph, sources) = session.graph().map_err(Failure::Compile)?;
    let color = match args.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let text = lowstate::salt::report::order_report(&graph, Some(&sources), color);
    lowstate::emit::output(&text, None).context("cannot write output")?;
    Ok(())
}
