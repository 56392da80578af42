//! `lowstate render SLS`: the text one SLS renders to, for debugging.

use super::{CmdResult, Common, Ctx, Failure};

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

/// Run `lowstate render`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, None)?;
    let text = session.render_text(&args.sls).map_err(Failure::Compile)?;
    ctx.print(&text, args.output.as_deref())?;
    Ok(())
}
