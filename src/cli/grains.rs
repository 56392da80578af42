//! `lowstate grains`: the grains a compile uses, printed as `salt-call
//! grains.items --out=json` prints them; with `--explain [KEY]`, where each
//! came from (Salt itself, the OS profile, host facts, the `grains` file,
//! the config, `--grains`, `--grain`); `--list-os` lists the OS profiles.

use super::{CmdResult, Common, Ctx, DataFormat};
use lowstate::salt::config::Config;
use lowstate::salt::grains;
use lowstate::value::{Map, Value};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Json)]
    pub format: DataFormat,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Say where each grain came from (Salt itself, the OS profile, host
    /// facts, the `grains` file, the config, `--grains`, `--grain`), for
    /// every grain or KEY.
    #[arg(long, value_name = "KEY", num_args = 0..=1, default_missing_value = "")]
    pub explain: Option<String>,
    /// The form of `--explain`: human (default) or json.
    #[arg(long, value_enum, default_value_t = super::pillar::ExplainFormat::Human)]
    pub explain_format: super::pillar::ExplainFormat,
    /// List the OS profiles `--os` takes, with what each describes.
    #[arg(long)]
    pub list_os: bool,
}

/// Run `lowstate grains`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    if args.list_os {
        let mut text = String::new();
        for p in grains::profiles() {
            let default = if p.name == grains::DEFAULT_PROFILE {
                " (default)"
            } else {
                ""
            };
            text.push_str(&format!("{:<16} {}{default}\n", p.name, p.description));
        }
        ctx.emit(&text, args.output.as_deref())?;
        return Ok(());
    }
    let (dir, overrides, options) = args.common.prepare(ctx, None)?;
    let mut config = Config::load_with(&dir, &overrides).map_err(|d| anyhow::anyhow!(d.message))?;
    options.apply_to(&mut config);
    // The configured layers as the flags made them: the config's `grains:`
    // (replaced by `--grains`), then each `--grain`.
    let (file, flags) = args.common.grain_flags()?;
    let mut layers: Vec<(String, String, Map)> = Vec::new();
    match file {
        Some(m) => layers.push((
            "grains-flag".into(),
            format!(
                "cli:--grains {}",
                args.common.grains.clone().unwrap_or_default()
            ),
            m,
        )),
        None => {
            let raw = Config::read_raw(&dir).map_err(|d| anyhow::anyhow!(d.message))?;
            let own = raw
                .get("grains")
                .and_then(Value::as_map)
                .cloned()
                .unwrap_or_default();
            layers.push((
                "config".into(),
                format!("{} `grains:`", dir.join("minion").display()),
                own,
            ));
            // A `--settings`/`--user-env` file that sets `grains:` replaces it.
            if let Some(Value::Map(set)) = overrides.get("grains") {
                if flags.is_empty() && set != &layers[0].2 {
                    layers.push((
                        "settings".into(),
                        "--settings/--user-env".into(),
                        set.clone(),
                    ));
                }
            }
        }
    }
    for (k, v) in flags.iter() {
        let mut one = Map::new();
        one.insert(k.clone(), v.clone());
        layers.push((
            "grain-flag".into(),
            format!("cli:--grain {}={}", k.py_str(), v.py_str()),
            one,
        ));
    }
    let model = config
        .grains_with(layers)
        .map_err(|d| anyhow::anyhow!(d.message))?;
    if let Some(w) = model.assumed_warning() {
        ctx.print_diagnostics(&[w]);
    }
    let Some(key) = &args.explain else {
        let mut out = Map::new();
        out.insert("local".into(), Value::Map(model.value));
        ctx.write_value(
            &Value::Map(out),
            args.format.into(),
            args.output.as_deref(),
            false,
        )?;
        return Ok(());
    };
    if !key.is_empty() && !model.value.contains_key(key.as_str()) {
        let names: Vec<String> = model.value.keys().map(Value::py_str).collect();
        let hint = lowstate::diag::did_you_mean(key, names.iter().map(String::as_str))
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let d = lowstate::diag::Diagnostic::new(
            lowstate::diag::codes::CONFIG,
            format!("no grain `{key}`{hint}"),
        );
        return Err(lowstate::diag::Diagnostics(vec![d]).into());
    }
    let p = model.explain().filter(key);
    let text = args.explain_format.render(&p, &|_, v| v.clone());
    ctx.emit(&text, args.output.as_deref())?;
    Ok(())
}
