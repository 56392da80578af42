//! `lowstate man [COMMAND]`: print the manual page (roff) of lowstate or
//! of one subcommand, generated from the same command definition `--help`
//! prints (clap_mangen). `lowstate man | man -l -` reads it; packagers
//! install the output as `lowstate.1` and `lowstate-COMMAND.1`.

use clap::CommandFactory as _;

/// Arguments of `lowstate man`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The subcommand whose page to print (default: the main page).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Print the page on stdout; 0, or 2 for an unknown subcommand or when
/// stdout cannot be written.
pub fn run(args: Args) -> i32 {
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
                eprintln!(
                    "lowstate: no command `{name}`; the commands are: {}",
                    names.join(", ")
                );
                return 2;
            };
            sub.clone().display_name(format!("lowstate-{name}"))
        }
    };
    let mut roff = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page)
        .source(format!("lowstate {}", super::version()))
        .render(&mut roff)
    {
        eprintln!("lowstate: cannot render the manual page: {e}");
        return 2;
    }
    match lowstate::emit::output(&String::from_utf8_lossy(&roff), None) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lowstate: cannot write the manual page: {e}");
            2
        }
    }
}
