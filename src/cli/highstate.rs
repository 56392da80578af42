//! `lowstate highstate`: the high data, as `state.show_highstate` prints it.

use super::{CmdResult, Common, Failure, Output};
use lowstate::value::Value;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: Output,
    /// Render exactly these SLS (comma-separated) instead of the top file.
    #[arg(long, value_delimiter = ',')]
    pub sls: Option<Vec<String>>,
}

pub fn run(args: Args) -> CmdResult {
    let session = args.common.session(args.sls.clone())?;
    let hs = session.highstate()?;
    if !hs.errors.is_empty() {
        return Err(Failure::Compile(hs.errors.into()));
    }
    args.out.write(&Value::Map(hs.high))
}
