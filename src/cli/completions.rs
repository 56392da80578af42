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

/// Print the script on stdout; 0, or 2 when stdout cannot be written.
pub fn run(args: Args) -> i32 {
    let mut command = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "lowstate", &mut script);
    match lowstate::emit::output(&String::from_utf8_lossy(&script), None) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lowstate: cannot write the completion script: {e}");
            2
        }
    }
}
