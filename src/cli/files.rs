//! `lowstate files`: the files `file.managed` (and `file.recurse`) would
//! write on this minion, rendered, as one JSON document, as text, or
//! written under a directory.

use super::{CmdResult, Common, Ctx, Failure};
use anyhow::Context;
use lowstate::salt::files::{self, RenderedFile};
use lowstate::value::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub selection: super::Selection,
    /// Output format: json (Salt's layout: one entry per file, content as
    /// text or base64) or text (each file under a header; secrets masked).
    #[arg(long, value_enum, default_value_t = FilesFormat::Json)]
    pub format: FilesFormat,
    /// Also write each rendered file under DIR, at its path on the minion
    /// (`/etc/motd` → DIR/etc/motd; a later state managing the same path
    /// wins, as on the minion). Each file is written atomically.
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Mask secret values (pillar paths in `lowstate_secret_pillar`) in the
    /// JSON document too (the text format always masks them).
    #[arg(long)]
    pub redact: bool,
}

/// `--format` of `lowstate files`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilesFormat {
    /// `{"files": [...]}`.
    Json,
    /// Each file under a `==> path <==` header.
    Text,
}

/// Run `lowstate files`.
pub fn run(args: Args, ctx: &Ctx) -> CmdResult {
    let session = args.common.session(ctx, args.selection.sls.clone())?;
    let plan = match session.located_lowstate() {
        Ok(p) => p,
        Err(d) => {
            // Salt's layout for a lowstate that does not compile.
            let mut doc = Map::new();
            doc.insert("files".into(), Value::List(Default::default()));
            doc.insert(
                "lowstate_errors".into(),
                Value::List(
                    d.messages()
                        .into_iter()
                        .map(|m| Value::str(ctx.redacted(&m)))
                        .collect(),
                ),
            );
            print_json(ctx, &Value::Map(doc))?;
            return Err(Failure::Compile(d));
        }
    };
    let chunks = plan.lowstate.into_list();
    ctx.hide_no_log(chunks.iter());
    let rendered = files::render_files(&session, &chunks, &plan.sources);
    match args.format {
        FilesFormat::Json => {
            let doc = files::document(&rendered);
            let doc = if args.redact {
                ctx.secrets.value(&doc)
            } else {
                doc
            };
            print_json(ctx, &doc)?;
        }
        FilesFormat::Text => ctx.print(&text(&rendered), None)?,
    }
    if let Some(dir) = &args.output_dir {
        write_tree(ctx, dir, &rendered)?;
    }
    let errors: Vec<_> = rendered
        .iter()
        .filter_map(|f| f.content.as_ref().err())
        .map(|e| e.diagnostic.clone())
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        ctx.print_diagnostics(&errors);
        Err(Failure::RunFailed)
    }
}

/// The document as `json.dumps(indent=2, ensure_ascii=False)` prints it.
fn print_json(ctx: &Ctx, doc: &Value) -> CmdResult {
    let mut text =
        serde_json::to_string_pretty(&doc.to_json()).context("cannot serialise the document")?;
    text.push('\n');
    ctx.emit(&text, None)?;
    Ok(())
}

/// Each file under a header; binary files and errors in one line.
fn text(rendered: &[RenderedFile]) -> String {
    let mut out = String::new();
    for f in rendered {
        let mut about = vec![format!("state {}", f.state_id.py_str())];
        if let Some(s) = &f.source {
            about.push(format!("source {s}"));
        }
        if !f.template.is_null() {
            about.push(format!("template {}", f.template.py_str()));
        }
        out.push_str(&format!(
            "==> {} ({}) <==\n",
            f.name.py_str(),
            about.join(", ")
        ));
        match (&f.content, f.text()) {
            (Err(e), _) => out.push_str(&format!("error: {}\n", e.message)),
            (Ok(_), Some(text)) => {
                out.push_str(text);
                if !text.is_empty() && !text.ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
            (Ok(bytes), None) => out.push_str(&format!(
                "binary, {} bytes, sha256 {}\n",
                bytes.len(),
                f.sha256().unwrap_or_default()
            )),
        }
        out.push('\n');
    }
    out
}

/// Write every rendered file at its path under `dir` (later entries for
/// the same path win); one disk sync at the end.
fn write_tree(ctx: &Ctx, dir: &Path, rendered: &[RenderedFile]) -> CmdResult {
    let batch = lowstate::emit::AtomicBatch::new(ctx.limits.output);
    for f in rendered {
        let Ok(bytes) = &f.content else { continue };
        let name = files::expanduser(&f.name.py_str());
        let rel: PathBuf = Path::new(&name)
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(p) => Some(p),
                _ => None,
            })
            .collect();
        if rel.as_os_str().is_empty() || name.split('/').any(|p| p == "..") {
            let _ = writeln!(
                std::io::stderr(),
                "lowstate: {name}: not written under {} (not a path below /)",
                dir.display()
            );
            continue;
        }
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        batch
            .write_bytes(&path, bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    batch
        .finish()
        .with_context(|| format!("cannot sync {}", dir.display()))?;
    Ok(())
}
