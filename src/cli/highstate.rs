//! `lowstate highstate`: the high data, as `state.show_highstate` prints it.

use super::{CmdResult, Common, Ctx, Failure, Output};
use lowstate::value::Value;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: Output,
    #[command(flatten)]
    pub selection: super::Selection,
}

/// Run `lowstate highstate`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    let hs = session.highstate().inspect_err(|d| {
        super::failure_document(
            ctx,
            d,
            args.out.format,
            args.out.output.as_deref(),
            args.out.redact,
        )
    })?;
    if !hs.errors.is_empty() {
        let d = hs.errors.into();
        super::failure_document(
            ctx,
            &d,
            args.out.format,
            args.out.output.as_deref(),
            args.out.redact,
        );
        return Err(Failure::Compile(d));
    }
    args.out.write(ctx, &Value::Map(hs.high))
}
