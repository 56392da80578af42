//! `lowstate config`: the effective settings (the minion config with
//! Salt's defaults, `minion.d/*.conf` and the flags applied, as `opts`
//! shows them); with `--explain [KEY]`, where each setting came from.

use super::{CmdResult, Common, Ctx, Output};
use lowstate::salt::config::Config;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: Output,
    /// Say where each setting came from (Salt's defaults, `DIR/minion`,
    /// each `minion.d/*.conf`, a flag), for every setting or KEY.
    #[arg(long, value_name = "KEY", num_args = 0..=1, default_missing_value = "")]
    pub explain: Option<String>,
    /// The form of `--explain`: human (default) or json.
    #[arg(long, value_enum, default_value_t = super::pillar::ExplainFormat::Human)]
    pub explain_format: super::pillar::ExplainFormat,
}

/// The flag that sets a top-level key.
fn flag_of(key: &str) -> String {
    match key {
        "id" => "--id",
        "grains" => "--grains/--grain",
        "file_roots" => "--file-root",
        "pillar_roots" => "--pillar-root",
        "lowstate_ext_pillar_commands" => "--run-ext-pillar",
        "lowstate_strict" => "--strict",
        "lowstate_salt_version" => "--salt-version",
        other => return format!("--{}", other.replace('_', "-")),
    }
    .to_string()
}

/// Run `lowstate config`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let (dir, mut overrides, options) = args.common.prepare(ctx, None)?;
    let mut config = Config::load_with(&dir, &overrides).map_err(|d| anyhow::anyhow!(d.message))?;
    options.apply_to(&mut config);
    let Some(key) = &args.explain else {
        return args.out.write(ctx, &config.opts);
    };
    let settings = args.common.settings_layers()?;
    // The typed flags count as the keys they stand for.
    for (k, v) in options.config_keys() {
        overrides.insert(k, v);
    }
    let p = lowstate::salt::config::explain(&config, &settings, &overrides, &flag_of).filter(key);
    let text = args.explain_format.render(&p, &|_, v| v.clone());
    ctx.emit(&text, args.out.output.as_deref())?;
    Ok(())
}
