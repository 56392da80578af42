//! `lowstate pillar`: the compiled pillar, as `pillar.items` prints it;
//! with `--explain [PATH]`, where every value came from.

use super::{CmdResult, Common, Ctx, Output};

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
        return args.out.write(ctx, &shown);
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
    let provenance = provenance.unwrap_or_default().filter(path);
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
