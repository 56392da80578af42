//! `lowstate codes`: print the diagnostic code registry as Markdown (the
//! text of `docs/diagnostics.md`).

use clap::Args as ClapArgs;

/// Arguments of `lowstate codes` (none).
#[derive(ClapArgs, Debug)]
pub struct Args {}

/// Print every registered code with its severity and meaning.
pub fn run(_args: Args, ctx: &super::Ctx) -> super::CmdResult {
    ctx.emit(&lowstate::diag::codes::markdown(), None)?;
    Ok(())
}
