//! The `lowstate` binary: parses the command line and hands off to one
//! module per subcommand under `cli/`. Exit codes: 0 ok, 1 compile errors,
//! 2 usage or config errors.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    let code = cli::run(args);
    std::process::exit(code);
}
