//! `lowstate pillar`: the compiled pillar, as `pillar.items` prints it.

use super::{CmdResult, Common, Output};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: Output,
}

pub fn run(args: Args) -> CmdResult {
    let session = args.common.session(None)?;
    args.out.write(&session.data.pillar)
}
