//! `lowstate man [COMMAND]`: print the manual page (roff) of lowstate or
//! of one subcommand, generated from the same command definition `--help`
//! prints (clap_mangen). `lowstate man | man -l -` reads it; packagers
//! install the output as `lowstate.1` and `lowstate-COMMAND.1`.

use anyhow::Context as _;
use clap::CommandFactory as _;

/// Arguments of `lowstate man`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The subcommand whose page to print (default: the main page).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Print the page on stdout (an unknown subcommand is a usage error).
pub fn run(args: Args, ctx: &super::Ctx) -> super::CmdResult {
    let mut top = super::Cli::command();
    // Propagates the global options (`--color`, `--limit`) to every
    // subcommand, as `lowstate COMMAND --help` shows them.
    top.build();
    let page = match &args.command {
        None => top,
        Some(name) => {
            let Some(sub) = top.find_subcommand(name) else {
                let names: Vec<&str> = top
                    .get_subcommands()
                    .map(|c| c.get_name())
                    .filter(|n| *n != "help")
                    .collect();
                return Err(anyhow::anyhow!(
                    "no command `{name}`; the commands are: {}",
                    names.join(", ")
                )
                .into());
            };
            sub.clone().display_name(format!("lowstate-{name}"))
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .source(format!("lowstate {}", super::version()))
        .render(&mut roff)
        .context("cannot render the manual page")?;
    ctx.emit(&String::from_utf8_lossy(&roff), None)?;
    Ok(())
}
