//! `lowstate render SLS`: the text one SLS renders to, for debugging.

use super::{CmdResult, Common, Failure};
use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// The SLS to render (e.g. `nginx.config`).
    pub sls: String,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let session = args.common.session(None)?;
    let text = session.render_text(&args.sls).map_err(Failure::Compile)?;
    lowstate::emit::output(&super::redacted(&text), args.output.as_deref())
        .context("cannot write output")?;
    Ok(())
}
