//! Command-line interface: the shared options (`-c DIR`, output and error
//! formats, pillar/mocks overrides), the run's context ([`Ctx`]: colour,
//! limits, error format, the secrets met so far, fresh-minion answers; made
//! once and passed down, no process-wide state) with the one output path
//! every subcommand prints through, and dispatch to one module per
//! subcommand.

mod check;
mod codes;
mod compile;
mod completions;
mod config;
mod diff;
mod files;
mod fleet;
mod grains;
mod graph;
mod highstate;
mod hot;
mod lsp;
mod man;
mod order;
mod pillar;
mod render;
mod simulate;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use lowstate::diag::{render as diag_render, Diagnostic, Diagnostics};
use lowstate::emit::Format;
use lowstate::limits::Limits;
use lowstate::redact::Secrets;
use lowstate::salt::config::{Config, SaltVersion};
use lowstate::salt::pipeline::{Options, Session};
use lowstate::salt::render::jinja::MinionQueries;
use lowstate::value::Value;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Parser, Debug)]
#[command(
    name = "lowstate",
    version = version(),
    about = "Compile a SaltStack state tree to Salt's lowstate, offline"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour in human output: auto (on a terminal, unless NO_COLOR is
    /// set), always, never.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Set a resource limit (`render-fuel`, `render-output`, `render-depth`,
    /// `yaml-depth`, `yaml-nodes`, `states`, `output`, `hot-repeat`,
    /// `hot-string`, `memory`; sizes take k/M/G). Repeatable. See
    /// docs/limits.md for defaults.
    #[arg(long = "limit", value_name = "NAME=VALUE", global = true)]
    pub limit: Vec<String>,
}

/// What `--version` prints after the name: lowstate's version and the
/// releases it reproduces, for bug reports.
pub fn version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{} (Salt {}, Heat {})",
            env!("CARGO_PKG_VERSION"),
            lowstate::salt::REFERENCE_VERSION,
            lowstate::hot::REFERENCE_VERSION
        )
    })
}

/// One run of the binary: what every subcommand shares, made once from
/// the command line and passed down (no process-wide state).
pub struct Ctx {
    /// `--color`.
    color: ColorChoice,
    /// The resource limits (`--limit`, else the defaults).
    pub limits: Limits,
    /// How diagnostics are printed (the subcommand's `--error-format`).
    pub error_format: ErrorFormat,
    /// The secrets met so far (secret pillar values, `no_log` states'
    /// values, hidden HOT parameters), masked in every human output.
    pub secrets: Secrets,
    /// The functions that got a fresh minion's answer, shared by every
    /// session the command opens.
    pub queries: MinionQueries,
    /// Whether the `SALT_CONFIG_DIR` warning was given (once per run).
    env_warned: AtomicBool,
}

impl Ctx {
    /// The context of a run: `--color`, `--limit` (a bad one is a usage
    /// error), the subcommand's error format.
    pub fn new(color: ColorChoice, limit: &[String], error_format: ErrorFormat) -> Result<Ctx> {
        let mut limits = Limits::default();
        for setting in limit {
            limits
                .set(setting)
                .map_err(|e| anyhow::anyhow!("--limit {e}"))?;
        }
        Ok(Ctx {
            color,
            limits,
            error_format,
            secrets: Secrets::default(),
            queries: MinionQueries::default(),
            env_warned: AtomicBool::new(false),
        })
    }

    /// Whether to colour text written to stdout (`stdout`) or stderr.
    pub fn use_color(&self, stdout: bool) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let tty = if stdout {
                    std::io::stdout().is_terminal()
                } else {
                    std::io::stderr().is_terminal()
                };
                tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }

    /// `text` with this run's secrets masked.
    pub fn redacted(&self, text: &str) -> String {
        self.secrets.text(text)
    }

    /// The values of `no_log: True` states of a compiled plan, masked in
    /// human output from here on.
    pub fn hide_no_log<'a>(&self, chunks: impl Iterator<Item = &'a lowstate::Map>) {
        self.secrets
            .add(lowstate::salt::secrets::no_log_values(chunks));
    }

    /// Print diagnostics to stderr in the run's error format, secrets masked.
    pub fn print_diagnostics(&self, diags: &[Diagnostic]) {
        let text = match self.error_format {
            ErrorFormat::Human => diag_render::human(diags, self.use_color(false)),
            ErrorFormat::Json => {
                let mut t = diag_render::json(diags);
                t.push('\n');
                t
            }
        };
        let _ = write!(std::io::stderr(), "{}", self.redacted(&text));
    }

    /// Print a human text (a report, a drawing, rendered text) to stdout or
    /// atomically to `output`, secrets masked, within the `output` limit.
    pub fn print(&self, text: &str, output: Option<&Path>) -> Result<()> {
        self.emit(&self.redacted(text), output)
    }

    /// Print `text` as it is (a machine document, or one already masked)
    /// to stdout or atomically to `output`, within the `output` limit.
    pub fn emit(&self, text: &str, output: Option<&Path>) -> Result<()> {
        lowstate::emit::output(text, output, self.limits.output).context("cannot write output")
    }

    /// Write a data document (JSON streamed, or YAML) to stdout or `output`;
    /// `redact` masks the secrets in it too (`--redact`).
    pub fn write_value(
        &self,
        value: &Value,
        format: Format,
        output: Option<&Path>,
        redact: bool,
    ) -> Result<()> {
        let masked;
        let value = if redact {
            masked = self.secrets.value(value);
            &masked
        } else {
            value
        };
        lowstate::emit::write_value(value, format, output, self.limits.output)
            .context("cannot write output")
    }

    /// One warning per function that got a fresh minion's answer.
    fn report_fresh_answers(&self) {
        let answers = lowstate::salt::render::jinja::salt::FRESH_MINION_ANSWERS;
        let profiles: Vec<String> = self
            .queries
            .answered_by
            .lock()
            .map(|p| p.iter().filter(|p| !p.is_empty()).cloned().collect())
            .unwrap_or_default();
        let on = if profiles.is_empty() {
            String::new()
        } else {
            format!(" of OS profile {}", profiles.join(", "))
        };
        let diags: Vec<Diagnostic> = self
            .queries
            .answered()
            .into_iter()
            .map(|f| {
                let answer = answers
                    .iter()
                    .find(|(n, _)| *n == f)
                    .map_or("nothing", |(_, a)| *a);
                Diagnostic::new(
                    lowstate::diag::codes::FRESH_MINION_ANSWER,
                    format!("`{f}` was answered as a freshly installed minion{on} would: {answer}"),
                )
                .with_note(format!(
                    "pin the answer with `{f}: <answer>` under `mocks:` in the minion config or a `--mocks` file, or pass --strict to make this an error"
                ))
            })
            .collect();
        if !diags.is_empty() {
            self.print_diagnostics(&diags);
        }
    }
}

/// `--color`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// A subcommand's arguments, defined only when the command line names
/// that subcommand (clap's `Command::defer`): building every subcommand's
/// arguments, with their help, was most of a short run's start (about
/// 0.8 M instructions before a small template was read). Help, completions
/// and manual pages build them all as before.
#[derive(Debug, Clone)]
pub struct Deferred<T>(pub T);

impl<T: Args> Args for Deferred<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keep_about(cmd, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keep_about(cmd, T::augment_args_for_update))
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `augment` applied to `cmd`, keeping the about texts `cmd` had (the
/// subcommand's own, which clap sets after its arguments' struct's).
fn keep_about(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let cmd = augment(cmd);
    let cmd = match about {
        Some(text) => cmd.about(text),
        None => cmd.about(None::<&str>),
    };
    match long_about {
        Some(text) => cmd.long_about(text),
        None => cmd.long_about(None::<&str>),
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
}

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the lowstate (ordered chunks), as `state.show_lowstate` does.
    Compile(Deferred<compile::Args>),
    /// Print the high data, as `state.show_highstate` does.
    Highstate(Deferred<highstate::Args>),
    /// Print the compiled pillar, as `pillar.items` does.
    Pillar(Deferred<pillar::Args>),
    /// Print the effective settings (`opts`); `--explain` says where each came from.
    Config(Deferred<config::Args>),
    /// Print the rendered text of one SLS file (for debugging templates).
    Render(Deferred<render::Args>),
    /// Simulate the run: order, results, skipped states, fired watches.
    Simulate(Deferred<simulate::Args>),
    /// Render the files `file.managed` and `file.recurse` would write (the
    /// exact bytes, Salt's layout).
    Files(Deferred<files::Args>),
    /// Explain the execution order, state by state.
    Order(Deferred<order::Args>),
    /// Draw the requisite graph (dot, json, mermaid, html).
    Graph(Deferred<graph::Args>),
    /// Print the grains a compile uses, as `salt-call grains.items` does;
    /// `--explain` says where each came from, `--list-os` lists the OS profiles.
    Grains(Deferred<grains::Args>),
    /// What a change of the tree does to this minion: its states' old and
    /// new values, managed files' diffs, order changes (a change report).
    Diff(Deferred<diff::Args>),
    /// Compile every minion of a fleet (grains from `salt '*' grains.items`).
    Fleet(Deferred<fleet::Args>),
    /// Validate state arguments (or, with --hot, resource properties)
    /// against the reference release's schemas, all findings at once.
    Check(Deferred<Box<check::Args>>),
    /// Compile an OpenStack Heat (HOT) template into the plan Heat would create.
    Hot(Deferred<hot::Args>),
    /// List every diagnostic code with its severity and meaning (Markdown).
    Codes(Deferred<codes::Args>),
    /// Serve the Language Server Protocol on stdio (SLS and HOT files).
    Lsp(Deferred<lsp::Args>),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(Deferred<completions::Args>),
    /// Print the manual page (roff) of lowstate or of one command.
    Man(Deferred<man::Args>),
}

#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Config directory holding `minion`, or that file (default: the shipped
    /// `state_tree/`).
    #[arg(short = 'c', long = "config-dir", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// How to print errors.
    #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
    pub error_format: ErrorFormat,
    /// Extra pillar data (JSON, or @FILE with JSON or YAML), merged over the
    /// compiled pillar.
    #[arg(long, value_name = "JSON|@FILE")]
    pub pillar: Option<String>,
    /// The minion ID (the config's `id`).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The grains, replacing the config's: a JSON/YAML file or inline JSON
    /// (`salt-call grains.items --out=json` output is taken as is).
    #[arg(long, value_name = "FILE|JSON")]
    pub grains: Option<String>,
    /// One grain, set over the others (`--grain os=Ubuntu`; the value is
    /// typed as YAML: `--grain cpus=4` is a number). Repeatable.
    #[arg(long = "grain", value_name = "KEY=VALUE")]
    pub grain: Vec<String>,
    /// The minion's OS: one of the OS profiles (`lowstate grains
    /// --list-os`), whose grains Salt would compute on that system; sets
    /// `lowstate_os`. Default: inferred from the configured grains, else
    /// debian-12 (with an `assumed-os-profile` warning).
    #[arg(long = "os", value_name = "NAME")]
    pub os: Option<String>,
    /// A file root, replacing the config's `file_roots` for that saltenv
    /// (default `base`); repeat to add more. Relative to the current
    /// directory.
    #[arg(long = "file-root", value_name = "[ENV=]DIR")]
    pub file_root: Vec<String>,
    /// A pillar root, like --file-root for `pillar_roots`.
    #[arg(long = "pillar-root", value_name = "[ENV=]DIR")]
    pub pillar_root: Vec<String>,
    /// Answers for minion-side execution functions (YAML or JSON file);
    /// sets the `mocks` key.
    #[arg(long, value_name = "FILE")]
    pub mocks: Option<PathBuf>,
    /// Compile the pillar as a call given `pillarenv=ENV` does (`salt-call
    /// pillar.items pillarenv=ENV`): that env's pillar merged over the
    /// pillar of the config's `pillarenv` (every env when unset). To use
    /// only one env, set `pillarenv:` in the config instead.
    #[arg(long, value_name = "ENV")]
    pub pillarenv: Option<String>,
    /// Use only this saltenv; sets the `saltenv` key.
    #[arg(long)]
    pub saltenv: Option<String>,
    /// Reproduce this Salt release's behaviour: 3008 (default), 3007, 3006;
    /// sets `lowstate_salt_version`.
    #[arg(long, value_parser = parse_version)]
    pub salt_version: Option<SaltVersion>,
    /// Mention config keys that lowstate reads but does not act on.
    #[arg(short, long)]
    pub verbose: bool,
    /// Queries about the minion's own state (`pkg.version`, `user.info`,
    /// `mine.get`, ...) need a mock instead of a fresh minion's answer;
    /// sets `lowstate_strict: true`.
    #[arg(long)]
    pub strict: bool,
    /// Run the `ext_pillar` entries that run a command (`cmd_json`,
    /// `cmd_yaml`, `cmd_yamlex`), as Salt would; without it their data is
    /// missing, with a warning. Sets `lowstate_ext_pillar_commands: true`.
    #[arg(long = "run-ext-pillar")]
    pub run_ext_pillar: bool,
    /// A settings file: a YAML mapping of minion config keys, each replacing
    /// that key of `DIR/minion` and `minion.d`. Repeatable; later files win.
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// The user's own settings file, over the `--settings` files. Every
    /// flag (`--id`, `--grains`, `--file-root`, ...) is shorthand for one of
    /// its keys and beats it.
    #[arg(long = "user-env", value_name = "FILE")]
    pub user_env: Option<PathBuf>,
}

fn parse_version(s: &str) -> std::result::Result<SaltVersion, String> {
    SaltVersion::parse(s)
        .ok_or_else(|| format!("unsupported Salt version '{s}' (3006, 3007, 3008)"))
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorFormat {
    Human,
    Json,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataFormat {
    #[default]
    Json,
    Yaml,
}

impl From<DataFormat> for Format {
    fn from(f: DataFormat) -> Format {
        match f {
            DataFormat::Json => Format::Json,
            DataFormat::Yaml => Format::Yaml,
        }
    }
}

/// Why a command stopped.
pub enum Failure {
    /// Compile errors (exit 1).
    Compile(Diagnostics),
    /// Usage or config errors (exit 2).
    Config(anyhow::Error),
    /// A simulated run in which a state failed (exit 1; the result is
    /// already printed).
    RunFailed,
    /// `check` found errors (exit 1; the findings are already printed).
    Findings,
    /// A compile that failed with its errors already printed beside its
    /// result (`hot` writes the document of a failed stack too; exit 1).
    Reported,
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Config(e)
    }
}

impl From<Diagnostics> for Failure {
    fn from(d: Diagnostics) -> Self {
        Failure::Compile(d)
    }
}

pub type CmdResult = std::result::Result<(), Failure>;

impl Command {
    /// The subcommand's `--error-format`.
    fn error_format(&self) -> ErrorFormat {
        match self {
            Command::Codes(_) | Command::Completions(_) | Command::Man(_) | Command::Lsp(_) => {
                ErrorFormat::Human
            }
            Command::Hot(a) => a.error_format,
            Command::Check(a) => a.common.error_format,
            Command::Compile(a) => a.common.error_format,
            Command::Fleet(a) => a.common.error_format,
            Command::Diff(a) => a.common.error_format,
            Command::Highstate(a) => a.common.error_format,
            Command::Pillar(a) => a.common.error_format,
            Command::Config(a) => a.common.error_format,
            Command::Grains(a) => a.common.error_format,
            Command::Render(a) => a.common.error_format,
            Command::Files(a) => a.common.error_format,
            Command::Simulate(a) => a.common.error_format,
            Command::Order(a) => a.common.error_format,
            Command::Graph(a) => a.common.error_format,
        }
    }
}

/// Run the command line: the exit code (0 ok, 1 compile errors or
/// findings, 2 usage or config errors). `set_memory_cap` applies the
/// `memory` limit to the binary's allocator.
pub fn run(cli: Cli, set_memory_cap: &dyn Fn(usize)) -> i32 {
    let format = cli.command.error_format();
    let ctx = match Ctx::new(cli.color, &cli.limit, format) {
        Ok(ctx) => ctx,
        Err(e) => {
            let text = match format {
                ErrorFormat::Human => format!("lowstate: {e:#}\n"),
                ErrorFormat::Json => {
                    let d = Diagnostic::new(lowstate::diag::codes::CONFIG, format!("{e:#}"));
                    diag_render::json(&[d]) + "\n"
                }
            };
            let _ = write!(std::io::stderr(), "{text}");
            return 2;
        }
    };
    set_memory_cap(ctx.limits.memory);
    let result = match cli.command {
        // The server reports through the protocol, not the exit code.
        Command::Lsp(a) => return lsp::run(a.0),
        Command::Codes(a) => codes::run(a.0, &ctx),
        Command::Completions(a) => completions::run(a.0, &ctx),
        Command::Man(a) => man::run(a.0, &ctx),
        Command::Hot(a) => hot::run(a.0, &ctx),
        Command::Compile(a) => compile::run(a.0, &ctx),
        Command::Check(a) => check::run(*a.0, &ctx),
        Command::Fleet(a) => fleet::run(a.0, &ctx),
        Command::Diff(a) => diff::run(a.0, &ctx),
        Command::Highstate(a) => highstate::run(a.0, &ctx),
        Command::Pillar(a) => pillar::run(a.0, &ctx),
        Command::Config(a) => config::run(a.0, &ctx),
        Command::Grains(a) => grains::run(a.0, &ctx),
        Command::Render(a) => render::run(a.0, &ctx),
        Command::Files(a) => files::run(a.0, &ctx),
        Command::Simulate(a) => simulate::run(a.0, &ctx),
        Command::Order(a) => order::run(a.0, &ctx),
        Command::Graph(a) => graph::run(a.0, &ctx),
    };
    ctx.report_fresh_answers();
    match result {
        Ok(()) => 0,
        Err(Failure::Compile(d)) => {
            ctx.print_diagnostics(&d.0);
            1
        }
        Err(Failure::RunFailed | Failure::Findings | Failure::Reported) => 1,
        // An output over the `output` limit is the input's doing, like a
        // compile error.
        Err(Failure::Config(e)) if output_too_large(&e) => {
            ctx.print_failure(&e, lowstate::diag::codes::OUTPUT_TOO_LARGE);
            1
        }
        Err(Failure::Config(e)) => {
            let io = e
                .chain()
                .any(|c| c.downcast_ref::<std::io::Error>().is_some());
            let code = if io {
                lowstate::diag::codes::IO
            } else {
                lowstate::diag::codes::CONFIG
            };
            ctx.print_failure(&e, code);
            2
        }
    }
}

impl Ctx {
    /// A usage, config or I/O error: one `lowstate: ...` line, or with
    /// `--error-format json` one diagnostic with `code` in the JSON form.
    fn print_failure(&self, e: &anyhow::Error, code: lowstate::diag::Code) {
        let text = lowstate::text::without_os_error(&format!("{e:#}"));
        match self.error_format {
            ErrorFormat::Human => {
                let _ = writeln!(std::io::stderr(), "lowstate: {text}");
            }
            ErrorFormat::Json => self.print_diagnostics(&[Diagnostic::new(code, text)]),
        }
    }
}

/// The width of the terminal stdout is, when it is one (`COLUMNS` when
/// set, else the terminal's own size); `None` when stdout is a pipe or a
/// file, which get whole lines.
pub fn terminal_columns() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    if let Some(n) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return Some(n);
    }
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ fills the `winsize` it is given, nothing else.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// Whether `e` is (caused by) an output over the `output` limit.
fn output_too_large(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::FileTooLarge)
    })
}

/// On a failed compile, stdout still carries a document in the result's
/// format: Salt's list of error strings (what `state.show_lowstate
/// --out=json` prints). It is left out when stdout is the terminal the
/// diagnostics already went to (nothing twice on one screen), and with
/// `-o FILE` the file is left as it was (no plan is replaced by errors).
pub fn failure_document(
    ctx: &Ctx,
    d: &Diagnostics,
    format: DataFormat,
    output: Option<&Path>,
    redact: bool,
) {
    if output.is_some() || (std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) {
        return;
    }
    let list = Value::List(d.messages().into_iter().map(Value::str).collect());
    // A closed pipe is not worth a second error.
    let _ = ctx.write_value(&list, format.into(), None, redact);
}

impl Common {
    /// Salt reads its config location from `SALT_CONFIG_DIR` and
    /// `SALT_MINION_CONFIG`; lowstate never takes settings from the
    /// environment (one source of truth: files and flags). One warning per
    /// variable that is set, once per run, naming the flag to use.
    fn warn_salt_env_vars(&self, ctx: &Ctx) {
        if ctx.env_warned.swap(true, Ordering::Relaxed) {
            return;
        }
        {
            let mut diags = Vec::new();
            for (var, what) in [
                ("SALT_CONFIG_DIR", "the config directory"),
                ("SALT_MINION_CONFIG", "the minion config file"),
            ] {
                if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
                    diags.push(
                        Diagnostic::new(
                            lowstate::diag::codes::IGNORED_ENV_VAR,
                            format!("{var} is set and ignored: lowstate does not read settings from the environment"),
                        )
                        .with_note(format!(
                            "give {what} with `-c DIR` (the directory holding `minion`){}",
                            match &self.config_dir {
                                Some(d) => format!("; this run uses -c {}", d.display()),
                                None => String::new(),
                            }
                        )),
                    );
                }
            }
            if !diags.is_empty() {
                ctx.print_diagnostics(&diags);
            }
        }
    }

    /// The config directory, as a Salt user expects to find it: `-c DIR`
    /// (or `-c DIR/minion`, the file itself), else the current directory when it holds `minion`, else `/etc/salt`
    /// when `/etc/salt/minion` exists; else the current directory when it
    /// holds a state tree (the config its tree implies,
    /// [`lowstate::salt::config::implied_minion`]); else the shipped
    /// example tree. The last two are said on stderr.
    pub fn dir(&self) -> PathBuf {
        if let Some(d) = &self.config_dir {
            // `-c path/to/minion`: the file Salt's `-c` would find there.
            if d.is_file() && d.file_name().is_some_and(|n| n == "minion") {
                return match d.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
            }
            return d.clone();
        }
        if Path::new("minion").is_file() {
            return PathBuf::from(".");
        }
        if Path::new("/etc/salt/minion").is_file() {
            return PathBuf::from("/etc/salt");
        }
        if let Some(implied) = lowstate::salt::config::implied_minion(Path::new(".")) {
            eprintln!(
                "lowstate: no ./minion or /etc/salt/minion: compiling the state tree here, as this minion config would: {implied} (pass -c DIR for another)"
            );
            return PathBuf::from(".");
        }
        let example = [
            Path::new("state_tree").to_path_buf(),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("state_tree"),
        ]
        .into_iter()
        .find(|d| d.join("minion").is_file())
        .unwrap_or_else(|| PathBuf::from("state_tree"));
        eprintln!(
            "lowstate: no ./minion or /etc/salt/minion: compiling the example tree in {} (pass -c DIR for yours)",
            example.display()
        );
        example
    }

    /// The `--settings` files, then `--user-env`, in order: (kind, origin,
    /// keys, each key's write as read).
    pub fn settings_layers(
        &self,
    ) -> Result<
        Vec<(
            String,
            String,
            lowstate::Map,
            lowstate::provenance::LayerWrites,
        )>,
    > {
        let mut out = Vec::new();
        let files = self
            .settings
            .iter()
            .map(|p| ("settings", p))
            .chain(self.user_env.iter().map(|p| ("user-env", p)));
        for (kind, path) in files {
            let (_, map, writes) = lowstate::salt::config::read_mapping_file_traced(path)
                .map_err(|d| anyhow::anyhow!("settings file: {}", d.message))?;
            out.push((kind.to_string(), path.display().to_string(), map, writes));
        }
        Ok(out)
    }

    /// The minion config keys the command line sets (`--id`, `--grains`,
    /// `--grain`, `--file-root`, `--pillar-root`), over the `--settings` and
    /// `--user-env` files. lowstate's own flags (`--saltenv`, `--mocks`,
    /// `--salt-version`, `--strict`, `--run-ext-pillar`) are typed
    /// [`Options`] instead.
    fn overrides(&self, dir: &Path) -> Result<lowstate::Map> {
        let mut o = lowstate::Map::new();
        for (_, _, layer, _) in self.settings_layers()? {
            for (k, v) in layer {
                o.insert(k, v);
            }
        }
        if let Some(id) = &self.id {
            o.insert("id".into(), Value::str(id.as_str()));
        }
        if let Some(os) = &self.os {
            o.insert("lowstate_os".into(), Value::str(os.as_str()));
        }
        let (file, flags) = self.grain_flags()?;
        if file.is_some() || !flags.is_empty() {
            let mut g = match file {
                Some(m) => m,
                None => match o.get("grains") {
                    Some(Value::Map(g)) => g.clone(),
                    _ => Config::read_raw(dir)
                        .ok()
                        .and_then(|raw| raw.get("grains").and_then(Value::as_map).cloned())
                        .unwrap_or_default(),
                },
            };
            for (k, v) in flags {
                g.insert(k, v);
            }
            o.insert("grains".into(), Value::Map(g));
        }
        for (key, flags) in [
            ("file_roots", &self.file_root),
            ("pillar_roots", &self.pillar_root),
        ] {
            if flags.is_empty() {
                continue;
            }
            let mut roots = lowstate::Map::new();
            for f in flags {
                let (env, d) = f.split_once('=').unwrap_or(("base", f));
                let abs = std::path::absolute(d).unwrap_or_else(|_| PathBuf::from(d));
                let entry = roots
                    .entry(Value::str(env))
                    .or_insert_with(|| Value::List(Default::default()));
                if let Value::List(l) = entry {
                    l.push(Value::str(abs.display().to_string()));
                }
            }
            o.insert(Value::str(key), Value::Map(roots));
        }
        Ok(o)
    }

    /// The grains the flags give: the `--grains` mapping (which replaces the
    /// config's grains; `salt-call grains.items --out=json` output is taken
    /// as is) and the `--grain KEY=VALUE` settings, in order.
    pub fn grain_flags(&self) -> Result<(Option<lowstate::Map>, lowstate::Map)> {
        let file = match &self.grains {
            None => None,
            Some(arg) => {
                let mut v = read_data(arg, "--grains")?;
                // `salt-call grains.items --out=json` prints {"local": {...}}.
                if let Value::Map(m) = &v {
                    if m.len() == 1 && m.contains_key("local") {
                        v = m.get("local").cloned().unwrap_or_default();
                    }
                }
                match v {
                    Value::Map(m) => Some(m),
                    other => anyhow::bail!(
                        "--grains {arg}: the grains must be a mapping, not {}",
                        other.py_type_name()
                    ),
                }
            }
        };
        let mut flags = lowstate::Map::new();
        for kv in &self.grain {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("--grain {kv}: expected KEY=VALUE"))?;
            let v = lowstate::yaml::load_value(v, lowstate::yaml::Dialect::Salt)
                .unwrap_or_else(|_| Value::str(v));
            flags.insert(Value::str(k), v);
        }
        Ok((file, flags))
    }

    /// Load the config and set up a compile session.
    pub fn session(&self, ctx: &Ctx, sls: Option<Vec<String>>) -> Result<Session> {
        let (config, options) = self.config(ctx, sls)?;
        if self.verbose && !config.ignored_keys.is_empty() {
            eprintln!(
                "lowstate: config keys read but not acted on: {}",
                config.ignored_keys.join(", ")
            );
        }
        if !config.diagnostics.is_empty() {
            ctx.print_diagnostics(&config.diagnostics);
        }
        let session = Session::new(config, options);
        if !session.pillar_diagnostics.is_empty() {
            ctx.print_diagnostics(&session.pillar_diagnostics);
        }
        Ok(session)
    }

    /// The minion config with the flags applied (the flags' typed
    /// settings over their keys), and the compile options.
    pub fn config(&self, ctx: &Ctx, sls: Option<Vec<String>>) -> Result<(Config, Options)> {
        let (dir, overrides, options) = self.prepare(ctx, sls)?;
        let mut config =
            Config::load_with(&dir, &overrides).map_err(|d| anyhow::anyhow!(d.message))?;
        options.apply_to(&mut config);
        Ok((config, options))
    }

    /// Everything a session needs but the config itself: the config
    /// directory, the minion config keys the flags set, and the compile
    /// options (`--pillar`, `--pillarenv`, `--saltenv`, `--mocks`,
    /// `--salt-version`, `--strict`, `--run-ext-pillar`; the run's limits,
    /// secrets and fresh-minion answers).
    pub fn prepare(
        &self,
        ctx: &Ctx,
        sls: Option<Vec<String>>,
    ) -> Result<(PathBuf, lowstate::Map, Options)> {
        self.warn_salt_env_vars(ctx);
        let dir = self.dir();
        let overrides = self.overrides(&dir)?;
        let pillar_override = match &self.pillar {
            None => None,
            Some(text) => {
                let v = read_data(text, "--pillar")?;
                anyhow::ensure!(matches!(v, Value::Map(_)), "--pillar must be a mapping");
                Some(v)
            }
        };
        let mocks = match &self.mocks {
            None => None,
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read mocks file {}", p.display()))?;
                let v = lowstate::yaml::load_value(&text, lowstate::yaml::Dialect::Salt)
                    .map_err(|e| anyhow::anyhow!("mocks file {}: {}", p.display(), e.message))?;
                Some(v)
            }
        };
        let mut queries = ctx.queries.clone();
        queries.strict = self.strict;
        let options = Options {
            sls,
            saltenv: self.saltenv.clone(),
            version: self.salt_version,
            pillar_override,
            pillarenv: self.pillarenv.clone(),
            mocks,
            ext_pillar_commands: self.run_ext_pillar,
            limits: ctx.limits,
            secrets: ctx.secrets.clone(),
            queries,
        };
        Ok((dir, overrides, options))
    }
}

/// A flag's data: inline JSON, `@FILE`, or (for --grains) a file path;
/// files may be JSON or YAML.
fn read_data(arg: &str, flag: &str) -> Result<Value> {
    let from_file = |p: &str| -> Result<Value> {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("{flag}: cannot read {p}"))?;
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(j) => Ok(Value::from_json(&j)),
            Err(_) => lowstate::yaml::load_value(&text, lowstate::yaml::Dialect::Salt)
                .map_err(|e| anyhow::anyhow!("{flag}: {p}: {}", e.message)),
        }
    };
    if let Some(p) = arg.strip_prefix('@') {
        return from_file(p);
    }
    match serde_json::from_str::<serde_json::Value>(arg) {
        Ok(j) => Ok(Value::from_json(&j)),
        Err(_) if flag == "--grains" && Path::new(arg).is_file() => from_file(arg),
        // A file name, not JSON: say the file is missing.
        Err(_) if flag == "--grains" && !arg.trim_start().starts_with(['{', '[', '"']) => {
            anyhow::bail!("{flag} {arg}: no such file (give a JSON/YAML file, or inline JSON)")
        }
        Err(e) => anyhow::bail!("{flag} is not valid JSON (or @FILE): {e}"),
    }
}

/// Which SLS to compile: the top file's (default) or exactly these.
#[derive(Args, Debug, Clone)]
pub struct Selection {
    /// Exactly these SLS (comma-separated) instead of the top file, as
    /// `state.sls` would compile them.
    #[arg(long, value_delimiter = ',')]
    pub sls: Option<Vec<String>>,
}

/// Common output options of the data-printing subcommands.
#[derive(Args, Debug, Clone)]
pub struct Output {
    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Json)]
    pub format: DataFormat,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Mask secret values (pillar paths in `lowstate_secret_pillar`) in the
    /// output too, for sharing it; an executor needs them, so by default
    /// this machine output keeps them.
    #[arg(long)]
    pub redact: bool,
}

impl Output {
    /// Write `value` in the chosen format, to stdout or `-o`, masked with
    /// `--redact`.
    pub fn write(&self, ctx: &Ctx, value: &Value) -> CmdResult {
        ctx.write_value(
            value,
            self.format.into(),
            self.output.as_deref(),
            self.redact,
        )?;
        Ok(())
    }
}
