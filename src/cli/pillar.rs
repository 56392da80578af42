//! `lowstate pillar`: the compiled pillar, as `pillar.items` prints it;
//! with `--explain [PATH]`, where every value came from.

use super::{CmdResult, Common, Ctx, Failure, Output};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: Output,
    /// Say where each pillar value came from (the SLS file and line that
    /// won, what it overrode, what was dropped), for the whole pillar or
    /// the values at and under PATH (colon-separated: `nginx:port`).
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "")]
    pub explain: Option<String>,
    /// The form of `--explain`: human (default) or json.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Human)]
    pub explain_format: ExplainFormat,
    /// Print values as they are, as `pillar.items unmask=True` does
    /// (Salt 3008 masks them). Paths named in `lowstate_secret_pillar`
    /// stay `<redacted>` even so.
    #[arg(long)]
    pub unmask: bool,
}

/// `--explain-format` (of `pillar`, `hot` and `config`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainFormat {
    /// Leaf by leaf, for people.
    Human,
    /// One JSON document: layers, leaves, dropped values.
    Json,
}

impl ExplainFormat {
    /// `p` in this form; `show` gives the value to print for a path (the
    /// caller masks secrets there).
    pub fn render(
        self,
        p: &lowstate::provenance::Provenance,
        show: &dyn Fn(&[String], &lowstate::value::Value) -> lowstate::value::Value,
    ) -> String {
        match self {
            ExplainFormat::Human => p.human(show),
            ExplainFormat::Json => {
                let mut t = p.to_value(show).to_json_pretty();
                t.push('\n');
                t
            }
        }
    }
}

/// Run `lowstate pillar`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let Some(path) = &args.explain else {
        let session = args.common.session(ctx, None)?;
        let unmask = args.unmask || !session.config.pillar_mask_output;
        let shown = lowstate::salt::secrets::for_display(
            &session.data.pillar,
            &session.config.secret_pillar,
            unmask,
        );
        args.out.write(ctx, &shown)?;
        // Salt's `pillar.items` prints `_errors` and succeeds; lowstate
        // prints the same document, and a failed pillar file is exit 1.
        return if session.pillar_diagnostics.iter().any(|d| d.is_error()) {
            Err(Failure::Reported)
        } else {
            Ok(())
        };
    };
    let (config, options) = args.common.config(ctx, None)?;
    let mocks = config.mocks.clone();
    let (_, errors, provenance) = lowstate::salt::pillar::compile_traced(
        lowstate::salt::pillar::PillarInputs {
            config: &config,
            mocks,
            overlay: options.pillar_override.as_ref(),
            limits: options.limits,
            queries: &options.queries,
            call_pillarenv: options.pillarenv.as_deref(),
        },
        true,
    );
    if !errors.is_empty() {
        ctx.print_diagnostics(&errors);
    }
    let provenance = provenance.unwrap_or_default();
    if let Some(d) = unknown_path(&provenance, path) {
        return Err(lowstate::diag::Diagnostics(vec![d]).into());
    }
    let provenance = provenance.filter(path);
    let warnings = provenance.type_change_warnings();
    if !warnings.is_empty() {
        ctx.print_diagnostics(&warnings);
    }
    let unmask = args.unmask || !config.pillar_mask_output;
    let show = |p: &[String], v: &lowstate::value::Value| {
        lowstate::salt::secrets::show_leaf(p, v, &config.secret_pillar, unmask)
    };
    let text = args.explain_format.render(&provenance, &show);
    ctx.emit(&text, args.out.output.as_deref())?;
    Ok(())
}

/// The error for `--explain PATH` when no value of the pillar is at or
/// under `PATH`, with the closest path the pillar has.
fn unknown_path(
    p: &lowstate::provenance::Provenance,
    path: &str,
) -> Option<lowstate::diag::Diagnostic> {
    let sep = p.separator.as_str();
    let want: Vec<&str> = path.split(sep).filter(|s| !s.is_empty()).collect();
    if want.is_empty() {
        return None;
    }
    let paths = p
        .leaves
        .iter()
        .map(|l| &l.path)
        .chain(p.dropped.iter().map(|d| &d.path));
    let mut known: Vec<String> = Vec::new();
    for full in paths {
        if full.len() >= want.len() && full[..want.len()].iter().zip(&want).all(|(a, b)| a == b) {
            return None;
        }
        for n in 1..=full.len() {
            let prefix = full[..n].join(sep);
            if !known.contains(&prefix) {
                known.push(prefix);
            }
        }
    }
    let wanted = want.join(sep);
    let hint = lowstate::diag::did_you_mean(&wanted, known.iter().map(String::as_str))
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    Some(
        lowstate::diag::Diagnostic::new(
            lowstate::diag::codes::CONFIG,
            format!("the pillar has no `{wanted}`{hint}"),
        )
        .with_note("`lowstate pillar` prints the whole pillar; `--explain` with no PATH explains all of it"),
    )
}
