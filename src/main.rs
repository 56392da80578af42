//! The `lowstate` binary: parses the command line and hands off to one
//! module per subcommand under `cli/`. Exit codes: 0 ok, 1 compile errors,
//! 2 usage or config errors.

mod cli;

use clap::Parser;

/// mimalloc instead of the system allocator: a compile allocates and frees
/// millions of small maps and strings, and glibc's malloc/free were a quarter
/// of the profile (and slower still across rayon's render threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args = cli::Cli::parse();
    let code = cli::run(args);
    std::process::exit(code);
}
