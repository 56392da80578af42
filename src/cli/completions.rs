//! `lowstate completions SHELL`: print the shell completion script for
//! bash, zsh, fish, PowerShell or elvish, generated from the same command
//! definition `--help` prints (clap_complete), so the two cannot drift.

use clap::CommandFactory as _;

/// Arguments of `lowstate completions`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print the script on stdout.
pub fn run(args: Args, ctx: &super::Ctx) -> super::CmdResult {
    let mut command = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "lowstate", &mut script);
    ctx.emit(&String::from_utf8_lossy(&script), None)?;
    Ok(())
}
