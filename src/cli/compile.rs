//! `lowstate compile`: the lowstate list, as `state.show_lowstate` prints it.

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

/// Run `lowstate compile`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    match session.located_lowstate() {
        Ok(plan) => {
            // The process ends after the output: freeing the requisite
            // graph and the source map (a few allocations per state) would
            // only cost time.
            let lowstate::salt::pipeline::LocatedLowstate {
                mut lowstate,
                sources,
            } = plan;
            std::mem::forget(sources);
            std::mem::forget(lowstate.graph.take());
            let chunks = lowstate.into_list();
            if args.out.redact {
                ctx.hide_no_log(chunks.iter());
            }
            let list = Value::List(chunks.into_iter().map(Value::Map).collect());
            let written = args.out.write(ctx, &list);
            // The process ends next: freeing every chunk one by one would
            // only cost time.
            std::mem::forget(list);
            written
        }
        Err(d) => {
            super::failure_document(
                ctx,
                &d,
                args.out.format,
                args.out.output.as_deref(),
                args.out.redact,
            );
            Err(Failure::Compile(d))
        }
    }
}
