//! `lowstate hot`: compile an OpenStack Heat (HOT) template with its
//! environment files and parameters into the plan Heat would create
//! (JSON in the layout of docs/hot.md, YAML, or a readable text plan).

use super::{CmdResult, Ctx, ErrorFormat, Failure};
use anyhow::{bail, Context as _, Result};
use clap::ValueEnum;
use lowstate::diag::SourceFile;
use lowstate::hot::{self, Context, EnvMode, Input};
use lowstate::value::{Map, Value};
use std::path::{Path, PathBuf};

/// Arguments of `lowstate hot`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HOT template (YAML or JSON).
    #[arg(value_name = "TEMPLATE")]
    pub template: PathBuf,
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// How to print errors.
    #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
    pub error_format: ErrorFormat,
    /// Say where each parameter's value came from (template default,
    /// `parameter_defaults`, `-P`, `parameters` of each `-e` file), for
    /// every parameter or the one named.
    #[arg(long, value_name = "PARAM", num_args = 0..=1, default_missing_value = "")]
    pub explain: Option<String>,
    /// The form of `--explain`: human (default) or json.
    #[arg(long, value_enum, default_value_t = super::pillar::ExplainFormat::Human)]
    pub explain_format: super::pillar::ExplainFormat,
    /// Mask hidden parameters' values in the JSON/YAML document too, for
    /// sharing it (an executor needs them, so by default it keeps them).
    #[arg(long)]
    pub redact: bool,
    /// Expand nested stacks: provider templates, ResourceGroup,
    /// AutoScalingGroup and OS::Heat::Stack members, recursively.
    #[arg(long)]
    pub nested: bool,
    /// Preview an update instead: TEMPLATE is the new stack, OLD the
    /// existing one; lists what Heat would add, delete, update in place or
    /// replace, and why (nested stacks included).
    #[arg(long, value_name = "OLD")]
    pub diff_from: Option<PathBuf>,
    /// An environment file of the old stack (repeat for several).
    #[arg(long, value_name = "ENV", requires = "diff_from")]
    pub old_env: Vec<PathBuf>,
    /// Typed parameter values of the old stack (JSON or YAML mapping).
    #[arg(long, value_name = "FILE", requires = "diff_from")]
    pub old_parameters: Option<PathBuf>,
    /// Where the old stack's get_file and provider-template paths resolve
    /// (default: the old template's directory).
    #[arg(long, value_name = "DIR", requires = "diff_from")]
    pub old_files: Option<PathBuf>,
}

/// What a HOT compile reads besides the template (shared with `check --hot`).
#[derive(clap::Args, Debug, Clone)]
pub struct Inputs {
    /// An environment file; repeat for several, applied in order.
    #[arg(short = 'e', long = "environment", value_name = "ENV")]
    pub environments: Vec<PathBuf>,
    /// Typed parameter values: a JSON or YAML mapping of name to value.
    #[arg(long, value_name = "FILE")]
    pub parameters: Option<PathBuf>,
    /// A parameter value as Heat's CLI takes it (a string); several may be
    /// joined with `;`.
    #[arg(short = 'P', long = "parameter", value_name = "NAME=VALUE")]
    pub parameter: Vec<String>,
    /// Where get_file and provider-template paths resolve (default: the
    /// template's directory); nothing outside it is read, unless
    /// --files-root is given.
    #[arg(long, value_name = "DIR")]
    pub files: Option<PathBuf>,
    /// Let get_file paths climb with `..` (as Heat's client reads `../x`
    /// beside a template) up to DIR, a directory above the files directory;
    /// nothing outside DIR is read.
    #[arg(long, value_name = "DIR")]
    pub files_root: Option<PathBuf>,
    /// How environment files and -P values layer.
    #[arg(long, value_enum, default_value_t = Mode::Server)]
    pub env_mode: Mode,
    /// `OS::stack_name` (default: the template's file name without its
    /// extension).
    #[arg(long, value_name = "NAME")]
    pub stack_name: Option<String>,
    /// `OS::stack_id`.
    #[arg(long, value_name = "UUID", default_value = lowstate::hot::DEFAULT_STACK_ID)]
    pub stack_id: String,
    /// `OS::project_id`.
    #[arg(long, value_name = "ID", default_value = lowstate::hot::DEFAULT_PROJECT_ID)]
    pub project_id: String,
    /// The parent stack's facade resource for `resource_facade` (a JSON or
    /// YAML mapping with metadata, deletion_policy, update_policy).
    #[arg(long, value_name = "FILE")]
    pub parent: Option<PathBuf>,
    /// Heat's `max_template_size`: refuse larger templates.
    #[arg(long, value_name = "BYTES", default_value_t = lowstate::hot::template::MAX_TEMPLATE_SIZE)]
    pub max_template_size: usize,
    /// As `openstack orchestration template validate`: a parameter without
    /// a value (no -P, environment value or default) is given later; its
    /// get_param stays symbolic and the rest is compiled and checked
    /// (without it: Heat's stack create, where it is an error).
    #[arg(long)]
    pub validate: bool,
}

/// `--env-mode`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// heat-engine merges (Newton and later).
    Server,
    /// python-heatclient merges (the 2013–2016 era).
    Client,
}

/// `--format`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The plan document.
    Json,
    /// The same document as YAML.
    Yaml,
    /// A readable plan: waves, resources, resolved properties, outputs.
    Text,
    /// Why each resource is created where it is (the order report).
    Order,
    /// The dependency graph as Graphviz DOT.
    Dot,
    /// The dependency graph as Mermaid.
    Mermaid,
    /// The dependency graph as lowstate's graph JSON document.
    GraphJson,
    /// The dependency graph as a self-contained HTML page.
    Html,
    /// With `--diff-from`: the update preview as a change report in
    /// GitHub-flavoured Markdown (a pull-request comment, like `lowstate
    /// diff --format markdown`).
    Markdown,
}

impl Format {
    /// Whether the output is drawn from the plan (the graph of
    /// resources), not from the document.
    fn draws(self) -> bool {
        matches!(
            self,
            Format::Order | Format::Dot | Format::Mermaid | Format::GraphJson | Format::Html
        )
    }
}

fn read(path: &Path) -> Result<std::sync::Arc<SourceFile>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

fn mapping(path: &Path) -> Result<Map> {
    let file = read(path)?;
    match lowstate::yaml::load_value(&file.text, lowstate::yaml::Dialect::Heat) {
        Ok(Value::Map(m)) => Ok(m),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(_) => bail!("{}: expected a mapping", path.display()),
        Err(e) => bail!("{}: {}", path.display(), e.message),
    }
}

/// The compiler's input from the command line.
fn input(ctx: &Ctx, args: &Args) -> Result<Input> {
    let mut input = inputs(ctx, &args.template, &args.inputs)?;
    input.nested = args.nested;
    input.plan = args.format.draws();
    Ok(input)
}

/// The compiler's input: `template` and the other inputs.
pub fn inputs(ctx: &Ctx, template: &Path, args: &Inputs) -> Result<Input> {
    let mut parameters: Vec<(String, Value)> = Vec::new();
    if let Some(p) = &args.parameters {
        for (k, v) in mapping(p)? {
            parameters.push((k.py_str(), v));
        }
    }
    for p in &args.parameter {
        for one in p.split(';').filter(|s| !s.is_empty()) {
            let Some((k, v)) = one.split_once('=') else {
                bail!("-P {one}: expected NAME=VALUE");
            };
            parameters.retain(|(n, _)| n != k);
            parameters.push((k.to_string(), Value::str(v)));
        }
    }
    let mut environments = Vec::new();
    for e in &args.environments {
        environments.push(read(e)?);
    }
    let parent = match &args.parent {
        Some(p) => Some(Value::Map(mapping(p)?)),
        None => None,
    };
    Ok(Input {
        template: Some(read(template)?),
        environments,
        parameters,
        files_dir: args
            .files
            .clone()
            // `lowstate hot t.yaml`: the parent of a bare name is "", which
            // is the current directory.
            .or_else(|| {
                template.parent().map(|p| match p.as_os_str().is_empty() {
                    true => PathBuf::from("."),
                    false => p.to_path_buf(),
                })
            }),
        files_root: args.files_root.clone(),
        env_mode: match args.env_mode {
            Mode::Server => EnvMode::Server,
            Mode::Client => EnvMode::Client,
        },
        context: Context {
            stack_name: args.stack_name.clone().unwrap_or_else(|| {
                let stem = template.file_stem().unwrap_or_default().to_string_lossy();
                Context::stack_name_for(&stem)
            }),
            stack_id: args.stack_id.clone(),
            project_id: args.project_id.clone(),
        },
        parent,
        max_template_size: Some(args.max_template_size),
        limits: ctx.limits,
        nested: false,
        plan: false,
        unset: match args.validate {
            true => lowstate::hot::params::Unset::Deferred,
            false => lowstate::hot::params::Unset::Error,
        },
    })
}

/// Run `lowstate hot`: diagnostics on stderr, the plan (also of a stack
/// that fails: `ok: false`) on stdout or `-o`; exit 1 when it has errors.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    if args.format == Format::Markdown && args.diff_from.is_none() {
        return Err(markdown_needs_diff_from());
    }
    let input = input(ctx, &args)?;
    if let Some(old) = &args.diff_from {
        return run_diff(&args, ctx, &input, old);
    }
    let compiled = hot::compile(&input);
    ctx.secrets.add(compiled.secrets.clone());
    if !compiled.diagnostics.is_empty() {
        ctx.print_diagnostics(&compiled.diagnostics);
    }
    if let Some(param) = &args.explain {
        let p = hot::explain::explain(&compiled).filter(param);
        let text = args.explain_format.render(&p, &|_, v| v.clone());
        ctx.emit(&text, args.output.as_deref())?;
    } else {
        // Borrowed unless redacted: the document of a tree of stacks is
        // megabytes, not worth a copy only to print it.
        let document = || -> std::borrow::Cow<'_, Value> {
            if args.redact {
                std::borrow::Cow::Owned(ctx.secrets.value(&compiled.document))
            } else {
                std::borrow::Cow::Borrowed(&compiled.document)
            }
        };
        let text = match args.format {
            // Streamed as it is rendered, not made into one text first.
            Format::Json => None,
            Format::Yaml => Some(lowstate::yaml::dump(&document(), Default::default())),
            Format::Text => Some(text_plan(&compiled.document, &compiled.secrets)),
            Format::Order => Some(lowstate::plan::order_report(
                &compiled.plan,
                ctx.use_color(true),
            )),
            Format::Dot => Some(lowstate::plan::to_dot(&compiled.plan)),
            Format::Mermaid => Some(lowstate::plan::to_mermaid(&compiled.plan)),
            Format::GraphJson => {
                let mut t = lowstate::plan::to_json_document(&compiled.plan).to_json_pretty();
                t.push('\n');
                Some(t)
            }
            // One lane per creation wave.
            Format::Html => Some(lowstate::plan::to_html(
                &compiled.plan.grouped_by_rank("wave"),
            )),
            Format::Markdown => return Err(markdown_needs_diff_from()),
        };
        match text {
            Some(text) => ctx.emit(&text, args.output.as_deref())?,
            None => ctx.write_value(
                &compiled.document,
                lowstate::emit::Format::Json,
                args.output.as_deref(),
                args.redact,
            )?,
        }
    }
    let ok = compiled.ok();
    // The process ends here: freeing a tree of stacks' document node by
    // node is work nobody needs (the output is written), as compilers
    // leave their trees to the exit.
    std::mem::forget(compiled);
    if ok {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// The usage error of `--format markdown` without `--diff-from`.
fn markdown_needs_diff_from() -> Failure {
    anyhow::anyhow!(
        "--format markdown is the update preview's change report: it needs --diff-from OLD"
    )
    .into()
}

/// `--diff-from`: the update preview.
fn run_diff(args: &Args, ctx: &Ctx, new: &Input, old_template: &Path) -> CmdResult {
    let mut old_inputs = args.inputs.clone();
    old_inputs.environments = args.old_env.clone();
    old_inputs.parameters = args.old_parameters.clone();
    old_inputs.parameter = Vec::new();
    old_inputs.files = args.old_files.clone();
    let old = inputs(ctx, old_template, &old_inputs)?;
    let sides = hot::update::preview_sides(&old, new);
    let preview = &sides.preview;
    ctx.secrets.add(preview.secrets.clone());
    if !preview.diagnostics.is_empty() {
        ctx.print_diagnostics(&preview.diagnostics);
    }
    // Human outputs are masked; like the plan, JSON/YAML keep hidden
    // values unless --redact (an executor needs them).
    let document = || -> std::borrow::Cow<'_, Value> {
        if args.redact {
            std::borrow::Cow::Owned(ctx.secrets.value(&preview.document))
        } else {
            std::borrow::Cow::Borrowed(&preview.document)
        }
    };
    let text = match args.format {
        Format::Yaml => lowstate::yaml::dump(&document(), Default::default()),
        Format::Text => text_update(&ctx.secrets.value(&preview.document)),
        Format::Markdown => {
            let report = hot::changes::report(
                &sides,
                &old_template.display().to_string(),
                &args.template.display().to_string(),
            );
            let opts = lowstate::changes::markdown::Options {
                full_report: "run the same command with `--format json`".into(),
                ..Default::default()
            };
            lowstate::changes::markdown::render(&report, &opts)
        }
        _ => {
            let mut t = document().to_json_pretty();
            t.push('\n');
            t
        }
    };
    ctx.emit(&text, args.output.as_deref())?;
    if preview.ok() {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// The update preview for a reviewer: replacements first, then deletions,
/// additions, in-place updates, and how many stay.
fn text_update(doc: &Value) -> String {
    let mut out = String::new();
    if doc.get("ok") != Some(&Value::Bool(true)) {
        out.push_str("The update cannot be previewed (see the errors above).\n");
        return out;
    }
    let list = |k: &str| -> Vec<Value> {
        doc.get(k)
            .and_then(Value::as_list)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    };
    for (key, word) in [
        ("replaced", "REPLACE"),
        ("deleted", "DELETE"),
        ("added", "ADD"),
        ("updated", "UPDATE"),
    ] {
        let items = list(key);
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("{word} ({}):\n", items.len()));
        for e in items {
            let path = e.get("path").map(Value::py_str).unwrap_or_default();
            let ty = e.get("type").map(Value::py_str).unwrap_or_default();
            let reason = hot::changes::reason_text(&e);
            if reason.is_empty() {
                out.push_str(&format!("  {path} ({ty})\n"));
            } else {
                out.push_str(&format!("  {path} ({ty}): {reason}\n"));
            }
        }
    }
    let same = list("unchanged").len();
    out.push_str(&format!("unchanged: {same}\n"));
    out
}

/// A nested stack (`--nested`) as a tree: its template, parameters with
/// where each came from, and its resources by wave, recursively.
fn nested_text(out: &mut String, view: &Value, indent: usize, hidden: &[String]) {
    let pad = " ".repeat(indent);
    match view.get("template").filter(|t| !t.is_null()) {
        Some(t) => out.push_str(&format!("{pad}nested stack {}:\n", t.py_str())),
        None => out.push_str(&format!("{pad}nested stack:\n")),
    }
    if let Some(params) = view.get("parameters").and_then(Value::as_map) {
        for (k, p) in params {
            let v = p.get("value").cloned().unwrap_or_default();
            let text = mask(lowstate::yaml::dump(&v, Default::default()), hidden);
            out.push_str(&format!(
                "{pad}  {} = {}  (from {})\n",
                k.py_str(),
                text.trim_end().replace('\n', " "),
                p.get("source").map(Value::py_str).unwrap_or_default()
            ));
        }
    }
    let mut wave = -1i64;
    for r in view
        .get("resources")
        .and_then(Value::as_list)
        .into_iter()
        .flatten()
    {
        if let Some(Value::Int(w)) = r.get("wave") {
            if *w != wave {
                wave = *w;
                out.push_str(&format!("{pad}  wave {w}:\n"));
            }
        }
        let name = r.get("name").map(Value::py_str).unwrap_or_default();
        let ty = r.get("type").map(Value::py_str).unwrap_or_default();
        out.push_str(&format!("{pad}    {name} ({ty})\n"));
        if let Some(child) = r.get("nested") {
            nested_text(out, child, indent + 6, hidden);
        }
    }
}

fn mask(text: String, hidden: &[String]) -> String {
    lowstate::redact::Redactor::new(hidden.iter().cloned())
        .masking_as(lowstate::hot::params::HIDDEN)
        .text(&text)
}

/// The readable plan.
fn text_plan(doc: &Value, hidden: &[String]) -> String {
    let mut out = String::new();
    if doc.get("ok") != Some(&Value::Bool(true)) {
        out.push_str("The stack does not compile (see the errors above).\n");
        return out;
    }
    let version = doc
        .get("template_version")
        .map(Value::py_str)
        .unwrap_or_default();
    out.push_str(&format!("HOT template {version}\n"));
    if let Some(params) = doc.get("parameters").and_then(Value::as_map) {
        if !params.is_empty() {
            out.push_str("\nparameters:\n");
            for (k, p) in params {
                out.push_str(&format!(
                    "  {} = {}  ({}, from {})\n",
                    k.py_str(),
                    p.get("display").map(Value::py_str).unwrap_or_default(),
                    p.get("type").map(Value::py_str).unwrap_or_default(),
                    p.get("source").map(Value::py_str).unwrap_or_default()
                ));
            }
        }
    }
    let resources: Vec<&Value> = doc
        .get("resources")
        .and_then(Value::as_list)
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    let mut wave = -1i64;
    for r in resources {
        let w = r.get("wave").and_then(|v| match v {
            Value::Int(i) => Some(*i),
            _ => None,
        });
        if let Some(w) = w.filter(|w| *w != wave) {
            wave = w;
            out.push_str(&format!("\nwave {w}:\n"));
        }
        let name = r.get("name").map(Value::py_str).unwrap_or_default();
        let written = r.get("type").map(Value::py_str).unwrap_or_default();
        let resolved = r
            .get("resolved_type")
            .map(Value::py_str)
            .unwrap_or_default();
        let ty = if written == resolved {
            written
        } else {
            format!("{written} -> {resolved}")
        };
        out.push_str(&format!("  {name} ({ty})"));
        if let Some(p) = r.get("provider_template") {
            out.push_str(&format!(" provider template {}", p.py_str()));
        }
        out.push('\n');
        let requires: Vec<String> = r
            .get("requires")
            .and_then(Value::as_list)
            .map(|l| l.iter().map(Value::py_str).collect())
            .unwrap_or_default();
        if !requires.is_empty() {
            out.push_str(&format!("    after: {}\n", requires.join(", ")));
        }
        for section in ["properties", "metadata", "update_policy"] {
            if let Some(v) = r.get(section) {
                out.push_str(&mask(readable(section, v, 4), hidden));
            }
        }
        let policy = r
            .get("deletion_policy")
            .map(Value::py_str)
            .unwrap_or_default();
        if policy != "Delete" {
            out.push_str(&format!("    deletion_policy: {policy}\n"));
        }
        if let Some(view) = r.get("nested") {
            nested_text(&mut out, view, 4, hidden);
        }
    }
    if let Some(outputs) = doc.get("outputs").and_then(Value::as_map) {
        if !outputs.is_empty() {
            out.push_str("\noutputs:\n");
            for (k, o) in outputs {
                let v = o.get("value").cloned().unwrap_or_default();
                out.push_str(&mask(readable(&k.py_str(), &v, 2), hidden));
            }
        }
    }
    out
}

/// `key: value` for the text plan, indented by `indent`: scalars and short
/// flat collections on the key's line (YAML's spelling), longer ones as an
/// indented block, and a multi-line string as a literal block (`|`) whose
/// lines read as they will be written.
fn readable(key: &str, v: &Value, indent: usize) -> String {
    let mut out = String::new();
    entry(&format!("{key}:"), v, indent, &mut out);
    out
}

/// One entry (`head` is `key:` or `-`) of [`readable`].
fn entry(head: &str, v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    if let Some(s) = v
        .as_str()
        .filter(|s| s.trim_end_matches('\n').contains('\n'))
    {
        if !s.starts_with([' ', '\t']) {
            let chomp = if s.ends_with("\n\n") {
                "+"
            } else if s.ends_with('\n') {
                ""
            } else {
                "-"
            };
            out.push_str(&format!("{pad}{head} |{chomp}\n"));
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                match line.is_empty() {
                    true => out.push('\n'),
                    false => out.push_str(&format!("{pad}  {line}\n")),
                }
            }
            return;
        }
    }
    match v {
        Value::Map(m) if !m.is_empty() && !is_short(v) => {
            let mut body = String::new();
            for (k, x) in m {
                entry(&format!("{}:", inline(k)), x, indent + 2, &mut body);
            }
            match head {
                // A list item's mapping starts on the dash's line.
                "-" => out.push_str(&format!("{pad}- {}", &body[indent + 2..])),
                _ => out.push_str(&format!("{pad}{head}\n{body}")),
            }
        }
        Value::List(l) if !l.is_empty() && !is_short(v) => {
            out.push_str(&format!("{pad}{head}\n"));
            for x in l {
                entry("-", x, indent + 2, out);
            }
        }
        _ => out.push_str(&format!("{pad}{head} {}\n", inline(v))),
    }
}

/// Whether a collection prints on one line: only single-line scalars,
/// and not many of them.
fn is_short(v: &Value) -> bool {
    let flat =
        |x: &Value| !matches!(x, Value::Map(_) | Value::List(_)) && !x.py_str().contains('\n');
    let fits = |n: usize| n <= 6 && inline(v).chars().count() <= 60;
    match v {
        Value::Map(m) => m.iter().all(|(k, x)| flat(k) && flat(x)) && fits(m.len()),
        Value::List(l) => l.iter().all(flat) && fits(l.len()),
        _ => true,
    }
}

/// A value as YAML spells it on one line (quoted where YAML needs it):
/// a scalar as a block mapping's value, a collection in flow style.
fn inline(v: &Value) -> String {
    let mut one = Map::new();
    one.insert(Value::str("k"), v.clone());
    let flow = matches!(v, Value::Map(_) | Value::List(_));
    let text = lowstate::yaml::dump(
        &Value::Map(one),
        lowstate::yaml::DumpOptions { flow: Some(flow) },
    );
    let text = text.trim();
    let body = match flow {
        true => text.strip_prefix("{k: ").and_then(|t| t.strip_suffix('}')),
        false => text.strip_prefix("k: "),
    };
    let body = body.unwrap_or(text);
    match body.contains('\n') {
        // A long line YAML would fold: JSON's spelling is YAML too.
        true => v.to_json().to_string(),
        false => body.to_string(),
    }
}
