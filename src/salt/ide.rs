//! What an editor asks of a Salt tree (`lowstate lsp`): a [`Workspace`]
//! is a config directory whose compiles reuse each other's renders (the
//! render cache of [`crate::salt::share`], with the files an edit touched
//! forgotten) and read the editor's unsaved texts instead of the files
//! on disk. An [`Analysis`] is one compile's knowledge: the located
//! issues of every file (compile and `check` diagnostics, with fixes where
//! the fix is certain), and the answers to go-to-definition, references,
//! symbols, hover and completion on an SLS text.
//!
//! Nothing here writes a file or runs a command: `ext_pillar` commands
//! stay off whatever the config says.

use crate::diag::{codes, Diagnostic, Severity};
use crate::editor::{
    did_you_mean, find_word, issue_of, word_at, Completion, CompletionKind, Fix, Issue, Place,
    Symbol, SymbolKind,
};
use crate::salt::check::{self, Catalogue, CheckOptions};
use crate::salt::config::Config;
use crate::salt::fleet::FleetShare;
use crate::salt::incremental::{recompile_file, CrossRefs, Edit};
use crate::salt::pipeline::{LocatedLowstate as Plan, Options, Session};
use crate::value::{Map, Value};

mod text;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use text::{ancestors, id_declaration, missing_target, resolve_relative};
pub use text::{document_symbols, jinja_refs, pillar_key_at, sls_name};

// The requisite kinds a state can declare (with `_in` and `_any`).
use crate::salt::requisite::REQUISITE_SPELLINGS as REQUISITES;

/// Arguments every state takes besides its function's own.
const GLOBAL_ARGS: &[&str] = &[
    "name",
    "names",
    "order",
    "unless",
    "onlyif",
    "creates",
    "check_cmd",
    "retry",
    "parallel",
    "failhard",
    "reload_modules",
    "reload_pillar",
    "reload_grains",
    "fire_event",
];

/// A Salt config directory opened in an editor.
pub struct Workspace {
    config: Config,
    share: Arc<FleetShare>,
    catalogue: Arc<Catalogue>,
    /// The findings of chunks checked by earlier compiles.
    checked: check::CheckCache,
    /// The editor's texts, by the path the fileserver forms for them.
    open: BTreeMap<PathBuf, String>,
    /// The directories whose files belong to this workspace (canonical).
    dirs: Vec<PathBuf>,
    /// What changed since the last analysis.
    edits: Edits,
    /// What the last whole compile of the highstate says about states
    /// reaching into other files (`None`: it failed).
    cross: Option<CrossRefs>,
    /// The serial number the next analysis gets.
    serial: u64,
    /// The last analysis that was made to the end (`None` while one is
    /// being made: the check cache then holds what it checked, which may
    /// be no analysis's plan).
    finished: Option<u64>,
}

/// The edits since the last analysis.
#[derive(Debug, Clone, Default)]
enum Edits {
    /// None.
    #[default]
    None,
    /// Of one SLS file's text only (the file, as the fileserver names it).
    One(PathBuf, Edit),
    /// Anything else.
    More,
}

/// How far an edit reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// One SLS file's renders.
    OneSls,
    /// The pillar: its renders (a state render is reused only while the
    /// pillar values it read stay the same).
    Pillar,
    /// Every render (a Jinja library, a top file, the pillar, the config).
    Everything,
    /// Nothing the compile reads.
    Nothing,
}

impl Workspace {
    /// Open the config directory `dir` (holding `minion`). `ext_pillar`
    /// commands are never run.
    pub fn open(dir: &Path) -> Result<Workspace, Diagnostic> {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let config = load_config(&dir)?;
        let share = Arc::new(FleetShare::new(&config, false));
        let mut dirs = vec![dir.clone()];
        for roots in config
            .file_roots
            .values()
            .chain(config.pillar_roots.values())
        {
            for r in roots {
                dirs.push(r.canonicalize().unwrap_or_else(|_| r.clone()));
            }
        }
        Ok(Workspace {
            config,
            share,
            catalogue: Arc::new(Catalogue::new()),
            checked: check::CheckCache::default(),
            open: BTreeMap::new(),
            dirs,
            edits: Edits::More,
            cross: None,
            serial: 0,
            finished: None,
        })
    }

    /// The config directory.
    pub fn dir(&self) -> &Path {
        &self.config.dir
    }

    /// The `base` file roots (`pillar`: the pillar roots), joined with
    /// `, ` (`none` when there are none).
    pub fn roots(&self, pillar: bool) -> String {
        let roots = match pillar {
            true => &self.config.pillar_roots,
            false => &self.config.file_roots,
        };
        let list: Vec<String> = roots
            .get("base")
            .into_iter()
            .flatten()
            .map(|p| p.display().to_string())
            .collect();
        match list.is_empty() {
            true => "none".into(),
            false => list.join(", "),
        }
    }

    /// Whether `path` (absolute) belongs to this workspace: the config
    /// directory, a file root or a pillar root, or a file a root serves
    /// through a symlink.
    pub fn contains(&self, path: &Path) -> bool {
        crate::editor::under_any(path, &self.dirs) || self.share.fs.locate(path).is_some()
    }

    /// The path the compile knows `path` by (a root joined with the file's
    /// relative path), when a file root serves it.
    pub fn served_path(&self, path: &Path) -> Option<PathBuf> {
        self.share.fs.locate(path).map(|(_, _, p)| p)
    }

    /// Take the editor's text of `path` (`None`: the file on disk again),
    /// and forget what it invalidates. Returns how far the edit reaches.
    pub fn set_text(&mut self, path: &Path, text: Option<String>) -> Reach {
        let key = self.served_path(path).unwrap_or_else(|| path.to_path_buf());
        if self.open.get(&key).map(String::as_str) == text.as_deref() && text.is_some() {
            return Reach::Nothing;
        }
        match &text {
            Some(t) => self.open.insert(key.clone(), t.clone()),
            None => self.open.remove(&key),
        };
        let reach = self.reach(path);
        match reach {
            Reach::Nothing => {}
            Reach::OneSls => {
                self.share.fs.set_text(&key, text.as_deref());
                self.checked.forget_file(&key.display().to_string());
                self.checked.forget_file(&path.display().to_string());
                let fs = self.share.fs.clone();
                let mut gone = self
                    .share
                    .sls
                    .take_where(|env, sls| fs.find_sls(env, sls).is_some_and(|f| f.path == key));
                self.edits = match std::mem::take(&mut self.edits) {
                    // The file's render before the edit: one, in one saltenv.
                    Edits::None => match (gone.pop(), gone.is_empty()) {
                        (Some(((env, sls), mut renders)), true) if renders.len() == 1 => {
                            let before = renders.remove(0);
                            Edits::One(key.clone(), Edit { env, sls, before })
                        }
                        _ => Edits::More,
                    },
                    Edits::One(file, edit) if file == key => Edits::One(file, edit),
                    _ => Edits::More,
                };
            }
            Reach::Pillar => {
                self.edits = Edits::More;
                self.share.pillar.set_text(path, text.as_deref());
                // What templates print may change: findings pointing into
                // rendered texts with it.
                self.checked.clear();
            }
            Reach::Everything => self.restart(),
        }
        reach
    }

    /// What an edit of `path` can change: an SLS file that no other
    /// template imports by name, its own renders; anything else under
    /// the roots or the config directory, every render.
    fn reach(&self, path: &Path) -> Reach {
        if !self.contains(path) {
            return Reach::Nothing;
        }
        let pillar = self
            .config
            .pillar_roots
            .values()
            .flatten()
            .any(|r| path.starts_with(r.canonicalize().unwrap_or_else(|_| r.clone())));
        let Some((env, rel, _)) = self.share.fs.locate(path) else {
            // A pillar SLS: the pillar's renders read it afresh (a Jinja
            // file is cached in the Jinja environments: start again).
            let sls = path.extension().is_some_and(|e| e == "sls");
            return if pillar && sls {
                Reach::Pillar
            } else {
                Reach::Everything
            };
        };
        let top = self.config.state_top.trim_start_matches("salt://");
        if pillar || !rel.ends_with(".sls") || rel == top || self.imported(&env, &rel) {
            Reach::Everything
        } else {
            Reach::OneSls
        }
    }

    /// Whether an open text names `rel` in a Jinja import or include (its
    /// renders then depend on `rel`'s text).
    fn imported(&self, _env: &str, rel: &str) -> bool {
        self.open.values().any(|t| {
            jinja_refs(t)
                .iter()
                .any(|(_, r)| r.trim_start_matches("./") == rel)
        })
    }

    /// The work of copying every cached render ahead of the next compile,
    /// which then takes those copies instead of copying renders itself
    /// ([`crate::salt::share::RenderShare::spare_work`]): to run while the
    /// editor is quiet; it stops once `stop` is set (a compile begins).
    pub fn spare_work(
        &self,
        stop: Arc<std::sync::atomic::AtomicBool>,
    ) -> impl FnOnce() + Send + 'static {
        self.share.sls.spare_work(stop)
    }

    /// A fresh render cache and fileserver (with the editor's texts), and
    /// the config read again.
    fn restart(&mut self) {
        self.edits = Edits::More;
        self.checked.clear();
        if let Ok(c) = load_config(&self.config.dir) {
            self.config = c;
        }
        self.share = Arc::new(FleetShare::new(&self.config, false));
        for (p, t) in &self.open {
            self.share.fs.set_text(p, Some(t));
            self.share.pillar.set_text(p, Some(t));
        }
    }

    /// Compile the highstate (and, alone, every open SLS the top file does
    /// not reach) and check it. `previous` is the last analysis: after an
    /// edit of one SLS file its plan is taken and updated, when that gives
    /// the whole compile's plan exactly ([`recompile_file`]); it is left as
    /// it was otherwise.
    pub fn analyse(&mut self, previous: &mut Option<Analysis>) -> Analysis {
        let last = self.finished.take();
        self.serial += 1;
        let mut a = self.analyse_afresh_or_not(last, previous);
        a.serial = self.serial;
        self.finished = Some(self.serial);
        a
    }

    fn analyse_afresh_or_not(
        &mut self,
        last: Option<u64>,
        previous: &mut Option<Analysis>,
    ) -> Analysis {
        if let Edits::One(_, edit) = std::mem::take(&mut self.edits) {
            let after_last = previous.as_ref().is_some_and(|p| Some(p.serial) == last);
            if let Some(a) = after_last
                .then(|| self.analyse_edit(previous, &edit))
                .flatten()
            {
                return a;
            }
        }
        self.edits = Edits::None;
        let session =
            Session::in_share(self.config.clone(), Options::default(), self.share.clone());
        let mut diags: Vec<Diagnostic> = session.pillar_diagnostics.clone();
        let secrets =
            crate::salt::secrets::secret_values(&session.data.pillar, &self.config.secret_pillar);
        let mut known = Known::default();
        let mut reached: BTreeSet<String> = BTreeSet::new();
        let mut cross = None;
        let plan = match session
            .located_lowstate_noting(&mut reached, &mut |hs| cross = Some(CrossRefs::of(hs)))
        {
            Ok(plan) => {
                diags.extend(self.check(&session, &plan, None));
                Some(plan)
            }
            Err(e) => {
                diags.extend(e.0);
                None
            }
        };
        self.cross = cross.filter(|_| plan.is_some());
        match plan {
            Some(plan) => known.add_plan(plan),
            None => {
                known.sls.extend(reached);
                known.failed.push(session);
            }
        }
        // Open SLS files the highstate does not reach: compiled alone.
        let mut reached: BTreeSet<String> = known.sls.clone();
        for path in self.open.keys() {
            let Some((env, rel, _)) = self.share.fs.locate(path) else {
                continue;
            };
            let Some(sls) = sls_name(&rel) else { continue };
            if reached.contains(&format!("{env}:{sls}")) || rel == self.config.state_top {
                continue;
            }
            let options = Options {
                sls: Some(vec![sls.clone()]),
                saltenv: Some(env.clone()),
                ..Options::default()
            };
            let alone = Session::in_share(self.config.clone(), options, self.share.clone());
            let mut alone_reached = BTreeSet::new();
            match alone.located_lowstate_noting(&mut alone_reached, &mut |_| {}) {
                Ok(p) => {
                    diags.extend(self.check(&alone, &p, None));
                    known.add_plan(p);
                }
                Err(e) => {
                    diags.extend(e.0);
                    known.sls.extend(alone_reached);
                    known.failed.push(alone);
                }
            }
            reached.insert(format!("{env}:{sls}"));
        }
        self.finish(diags, secrets, known)
    }

    /// The analysis after an edit of one SLS file, from the last analysis's
    /// plan with the file compiled again into it, when the last analysis
    /// compiled the highstate alone (every open file in it) and the edit
    /// can be compiled that way. `None`, with `previous` as it was,
    /// otherwise.
    fn analyse_edit(&self, previous: &mut Option<Analysis>, edit: &Edit) -> Option<Analysis> {
        let cross = self.cross.as_ref()?;
        let prev = previous.as_mut()?;
        if prev.known.plans.len() != 1 || !prev.known.failed.is_empty() {
            return None;
        }
        for path in self.open.keys() {
            let Some((env, rel, _)) = self.share.fs.locate(path) else {
                continue;
            };
            let reached =
                sls_name(&rel).is_some_and(|sls| prev.known.sls.contains(&format!("{env}:{sls}")));
            if !reached && rel != self.config.state_top {
                return None;
            }
        }
        let session =
            Session::in_share(self.config.clone(), Options::default(), self.share.clone());
        let changed = recompile_file(&session, &mut prev.known.plans[0], edit, cross)?;
        let plan = previous.take()?.known.plans.pop()?;
        let mut diags: Vec<Diagnostic> = session.pillar_diagnostics.clone();
        let secrets =
            crate::salt::secrets::secret_values(&session.data.pillar, &self.config.secret_pillar);
        diags.extend(self.check(&session, &plan, Some(&changed)));
        let mut known = Known::default();
        known.add_plan(plan);
        let mut a = self.finish(diags, secrets, known);
        a.edited = true;
        Some(a)
    }

    /// The analysis of compiles that found `diags` and `known`, with
    /// `secrets` masked (and every `no_log` state's values).
    fn finish(&self, diags: Vec<Diagnostic>, mut secrets: Vec<String>, known: Known) -> Analysis {
        secrets.extend(crate::salt::secrets::no_log_values(
            known
                .no_log
                .iter()
                .filter_map(|&(p, c)| known.plans.get(p)?.lowstate.chunks.get(c)),
        ));
        let mut a = Analysis {
            issues: BTreeMap::new(),
            known,
            redactor: crate::redact::Redactor::new(secrets),
            catalogue: self.catalogue.clone(),
            share: self.share.clone(),
            config: self.config.clone(),
            open: self.open.clone(),
            report: OnceLock::new(),
            provenance: OnceLock::new(),
            states: OnceLock::new(),
            edited: false,
            serial: 0,
        };
        a.locate(diags);
        a
    }

    /// `changed`: see [`check::check_after`].
    fn check(&self, session: &Session, plan: &Plan, changed: Option<&[usize]>) -> Vec<Diagnostic> {
        let options = CheckOptions {
            assume_versions: BTreeMap::new(),
            allow: session.config.check_allow.clone(),
            version: session.version,
        };
        check::check_after(
            plan,
            &session.config,
            &options,
            &self.catalogue,
            &self.checked,
            changed,
        )
    }
}

/// The config of `dir` (its `minion`, else the one its state tree
/// implies), with `ext_pillar` commands off.
fn load_config(dir: &Path) -> Result<Config, Diagnostic> {
    let mut overrides = Map::new();
    overrides.insert("lowstate_ext_pillar_commands".into(), Value::Bool(false));
    Config::load_with(dir, &overrides)
}

/// What the compiles of one analysis found out about states.
#[derive(Default)]
struct Known {
    /// `env:sls` of every compiled file.
    sls: BTreeSet<String>,
    /// The plans made: the highstate's (when it compiled), then those of
    /// open files compiled alone.
    plans: Vec<Plan>,
    /// The compiles that made no plan: their high data is read (rendered
    /// again from the render cache) when a question needs it, not for
    /// the diagnostics.
    failed: Vec<Session>,
    /// Their high data, once read.
    high_part: OnceLock<HighPart>,
    /// The chunks with a `no_log` key (plan, chunk), in order.
    no_log: Vec<(usize, usize)>,
}

/// What the compiles that made no plan know.
#[derive(Default)]
struct HighPart {
    /// Where states were written.
    sources: Vec<crate::salt::high::SourceMap>,
    /// IDs → state modules.
    high_ids: BTreeMap<String, Vec<String>>,
    /// IDs → their high data.
    high: Map,
}

impl HighPart {
    fn add_high(&mut self, high: &Map, sources: crate::salt::high::SourceMap) {
        for (id, body) in high.iter() {
            let Some(body) = body.as_map() else { continue };
            let modules = body
                .keys()
                .filter_map(|k| k.as_str())
                .filter(|k| !k.starts_with("__"))
                .map(|k| k.split('.').next().unwrap_or(k).to_string())
                .collect();
            self.high_ids.insert(id.py_str(), modules);
            self.high.insert(id.clone(), Value::Map(body.clone()));
        }
        self.sources.push(sources);
    }
}

impl Known {
    /// Every chunk (the highstate's, then the open files' compiled alone).
    fn chunks(&self) -> impl Iterator<Item = &Map> {
        self.plans.iter().flat_map(|p| p.lowstate.chunks.iter())
    }

    /// Take in a plan: note the SLS files of its chunks (each `env:sls`
    /// formed once per run of chunks from one file) and its chunks with a
    /// `no_log` key, in one pass over each chunk's keys.
    fn add_plan(&mut self, plan: Plan) {
        let p = self.plans.len();
        let mut last: Option<(&Value, Option<&Value>)> = None;
        for (i, c) in plan.lowstate.chunks.iter().enumerate() {
            let (mut sls, mut env) = (None, None);
            for (k, v) in c.iter() {
                let Value::Str(k) = k else { continue };
                match k.as_str() {
                    "__sls__" => sls = Some(v),
                    "__env__" => env = Some(v),
                    "no_log" => self.no_log.push((p, i)),
                    _ => {}
                }
            }
            let Some(s) = sls else { continue };
            let here = (s, env);
            if last == Some(here) {
                continue;
            }
            last = Some(here);
            let env = here.1.map_or("base".into(), Value::py_str);
            self.sls.insert(format!("{env}:{}", s.py_str()));
        }
        self.plans.push(plan);
    }

    /// The high data of the compiles that made no plan.
    fn high_part(&self) -> &HighPart {
        self.high_part.get_or_init(|| {
            let mut part = HighPart::default();
            for session in &self.failed {
                if let Ok(hs) = session.highstate() {
                    part.add_high(&hs.high, hs.sources);
                }
            }
            part
        })
    }

    /// Every (ID, state module, name) the compiles know.
    fn states(&self) -> Vec<(String, String, String)> {
        let mut out: Vec<(String, String, String)> = self
            .chunks()
            .map(|c| {
                let g = |k: &str| c.get(k).map(Value::py_str).unwrap_or_default();
                (g("__id__"), g("state"), g("name"))
            })
            .collect();
        for (id, modules) in &self.high_part().high_ids {
            for m in modules {
                out.push((id.clone(), m.clone(), id.clone()));
            }
        }
        out
    }

    fn id_spans(&self, id: &str) -> Option<crate::salt::high::source_map::IdSpans> {
        self.sources_iter().find_map(|s| s.id_spans(id))
    }

    fn sources_iter(&self) -> impl Iterator<Item = &crate::salt::high::SourceMap> {
        self.plans
            .iter()
            .map(|p| &p.sources)
            .chain(self.high_part().sources.iter())
    }
}

/// One compile's knowledge of the tree.
pub struct Analysis {
    /// The issues of every file, by path.
    pub issues: BTreeMap<PathBuf, Vec<Issue>>,
    known: Known,
    redactor: crate::redact::Redactor,
    catalogue: Arc<Catalogue>,
    share: Arc<FleetShare>,
    config: Config,
    open: BTreeMap<PathBuf, String>,
    report: OnceLock<Option<crate::plan::Plan>>,
    provenance: OnceLock<Option<crate::provenance::Provenance>>,
    /// [`Known::states`], made once.
    states: OnceLock<Vec<(String, String, String)>>,
    /// Made by compiling one edited file into the last analysis's plan.
    edited: bool,
    /// Its number among the workspace's analyses.
    serial: u64,
}

impl Analysis {
    /// The spans of every compiled file, worked out (kept with the renders
    /// the next compiles reuse): work to run off the editor's path, e.g. on
    /// another thread, so that the first diagnostic after an edit that
    /// needs a span does not wait for every file's.
    pub fn span_work(&self) -> impl FnOnce() + Send + 'static {
        let maps: Vec<crate::salt::high::SourceMap> =
            self.known.plans.iter().map(|p| p.sources.clone()).collect();
        move || maps.iter().for_each(crate::salt::high::SourceMap::work_out)
    }

    /// Turn the compile's diagnostics into issues of the workspace's files.
    fn locate(&mut self, diags: Vec<Diagnostic>) {
        let mut seen = BTreeSet::new();
        // Did-you-mean searches left (see `refine`).
        let mut budget = 64;
        for d in diags {
            let fallback = d
                .subject(crate::salt::SLS)
                .and_then(|s| self.sls_place(s.rsplit(':').next().unwrap_or(s)));
            let source = |name: &str| {
                let p = PathBuf::from(name);
                (p.is_absolute() && self.in_roots(&p)).then_some(p)
            };
            let Some(mut issue) = issue_of(&d, &source, fallback) else {
                continue;
            };
            issue.message = self.redactor.text(&issue.message);
            for (_, m) in &mut issue.related {
                *m = self.redactor.text(m);
            }
            self.refine(&d, &mut issue, &mut budget);
            // The other side of a conflict in another file shows it too
            // (the duplicate ID where it is declared again).
            let mut mirrors = Vec::new();
            for (p, _) in &issue.related {
                if p.path != issue.at.path {
                    let mut other = issue.clone();
                    other.at = p.clone();
                    other.fix = None;
                    other.related = vec![(issue.at.clone(), "the other side of this".to_string())];
                    mirrors.push(other);
                }
            }
            for i in std::iter::once(issue).chain(mirrors) {
                let key = (
                    i.at.path.clone(),
                    i.at.range.start,
                    i.code,
                    i.message.clone(),
                );
                if seen.insert(key) {
                    self.issues.entry(i.at.path.clone()).or_default().push(i);
                }
            }
        }
    }

    fn in_roots(&self, p: &Path) -> bool {
        self.share.fs.locate(p).is_some() || p.starts_with(&self.config.dir)
    }

    /// The start of the file of SLS `sls` (in the first saltenv serving it).
    fn sls_place(&self, sls: &str) -> Option<Place> {
        let fs = &self.share.fs;
        let env = fs
            .envs()
            .find(|e| fs.find_sls(e, sls).is_some())?
            .to_string();
        let f = fs.find_sls(&env, sls)?;
        Some(Place {
            path: f.path,
            range: 0..0,
        })
    }

    /// The text of `path`: the editor's, else the file's.
    fn text(&self, path: &Path) -> Option<std::borrow::Cow<'_, str>> {
        match self.open.get(path) {
            Some(t) => Some(std::borrow::Cow::Borrowed(t)),
            None => self
                .share
                .fs
                .read_text(path)
                .ok()
                .map(std::borrow::Cow::Owned),
        }
    }

    /// Every (ID, state module, name) the compiles know.
    fn states(&self) -> &[(String, String, String)] {
        self.states.get_or_init(|| self.known.states())
    }

    /// Point a missing requisite at its target, and offer the closest
    /// existing state; point an unknown argument's fix at its key.
    fn refine(&self, d: &Diagnostic, issue: &mut Issue, budget: &mut usize) {
        if d.code == codes::MISSING_REQUISITE {
            let Some((module, target)) = missing_target(&d.message) else {
                return;
            };
            let Some(text) = self.text(&issue.at.path) else {
                return;
            };
            let Some(r) = find_word(&text, &target, issue.at.range.start) else {
                return;
            };
            issue.at.range = r.clone();
            // The compile may say it already (`did you mean `pkg: x`?`):
            // the fix is what it says; else the closest known state, for
            // at most `budget` issues (each search reads every state).
            let said = d.notes.iter().find_map(|n| {
                let s = n.strip_prefix("did you mean `")?.strip_suffix("`?")?;
                Some(s.split_once(": ").map_or(s, |(_, t)| t).to_string())
            });
            let best = match said {
                Some(best) => Some(best),
                None if *budget > 0 => {
                    *budget -= 1;
                    // Declared, but in a file this compile does not
                    // include (another compile knows it): no spelling to
                    // fix, an include to add.
                    let module_given = Some(module.as_str()).filter(|m| !m.is_empty());
                    if let Some(p) = self.state_places(&target, module_given).first() {
                        let sls = self
                            .share
                            .fs
                            .locate(&p.path)
                            .and_then(|(_, rel, _)| sls_name(&rel));
                        issue.message.push_str(&match sls {
                            Some(sls) => format!(
                                "\n`{target}` is declared in SLS `{sls}`, which this compile does not include (add `- {sls}` under `include:`)"
                            ),
                            None => format!(
                                "\n`{target}` is declared in {}, which this compile does not include",
                                p.path.display()
                            ),
                        });
                        return;
                    }
                    let states = self.states();
                    let names = states
                        .iter()
                        .filter(|(_, m, _)| *m == module || module.is_empty())
                        .flat_map(|(id, _, name)| [id.as_str(), name.as_str()]);
                    did_you_mean(&target, names).map(|best| {
                        issue.message.push_str(&format!("\ndid you mean `{best}`?"));
                        best.to_string()
                    })
                }
                None => None,
            };
            if let Some(best) = best {
                issue.fix = Some(Fix {
                    title: format!("Replace with `{best}`"),
                    range: r,
                    replacement: best.to_string(),
                });
            }
            return;
        }
        // `check`'s unknown arguments carry the suggestion in a note.
        let best = d.notes.iter().find_map(|n| {
            n.strip_prefix("did you mean `")
                .and_then(|s| s.strip_suffix("`?"))
        });
        if let (Some(best), Some(text)) = (best, self.text(&issue.at.path)) {
            let r = issue.at.range.clone();
            let Some(seg) = text.get(r.clone()) else {
                return;
            };
            let key_start = seg.find(|c: char| c.is_alphanumeric() || c == '_');
            if let Some(ks) = key_start {
                let rest = &seg[ks..];
                let len = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let range = r.start + ks..r.start + ks + len;
                issue.fix = Some(Fix {
                    title: format!("Replace with `{best}`"),
                    range,
                    replacement: best.to_string(),
                });
            }
        }
    }

    /// The state function under `offset`: `pkg.installed` or, on `pkg:`
    /// or an argument line, the enclosing declaration's.
    fn function_at(&self, text: &str, offset: usize) -> Option<String> {
        let (_, word) = word_at(text, offset)?;
        if word.contains('.') && self.catalogue.schema(word).is_some() {
            return Some(word.to_string());
        }
        None
    }

    /// Where the thing at `offset` of `path` is defined.
    pub fn definition(&self, path: &Path, text: &str, offset: usize) -> Vec<Place> {
        let fs = &self.share.fs;
        let here = fs.locate(path);
        let env = here.as_ref().map_or("base".to_string(), |h| h.0.clone());
        // Jinja imports.
        for (r, name) in jinja_refs(text) {
            if r.start <= offset && offset <= r.end {
                let rel = match (name.strip_prefix("./"), &here) {
                    (Some(n), Some((_, rel, _))) => match rel.rsplit_once('/') {
                        Some((dir, _)) => format!("{dir}/{n}"),
                        None => n.to_string(),
                    },
                    _ => name.clone(),
                };
                return fs
                    .find_file(&env, &rel)
                    .map(file_start)
                    .into_iter()
                    .collect();
            }
        }
        let Some((_, word)) = word_at(text, offset) else {
            return Vec::new();
        };
        if let Some(p) = word.strip_prefix("salt://") {
            let p = p.split('?').next().unwrap_or(p);
            return fs.find_file(&env, p).map(file_start).into_iter().collect();
        }
        let (line, anc) = ancestors(text, offset);
        let here_sls = here.as_ref().and_then(|h| sls_name(&h.1));
        let is_init = here.as_ref().is_some_and(|h| h.1.ends_with("init.sls"));
        let line_key = line.trim().trim_start_matches("- ");
        // `include:` entries and `sls:` requisites name SLS files.
        if (anc.last().is_some_and(|(_, k, _)| k == "include") && anc.len() == 1)
            || line_key.starts_with("sls:")
        {
            let word = word.strip_prefix("sls:").unwrap_or(word);
            let name = resolve_relative(word, here_sls.as_deref(), is_init);
            return fs
                .find_sls(&env, &name)
                .map(|f| file_start(f.path))
                .into_iter()
                .collect();
        }
        // A requisite target, an `extend:` target, any known ID or name.
        let target = word.rsplit(':').next().unwrap_or(word);
        let module = line_key
            .split_once(':')
            .map(|(m, _)| m.trim())
            .filter(|m| !m.is_empty() && *m != target);
        let places = self.state_places(target, module);
        if !places.is_empty() {
            return places;
        }
        // A requisite on a state no compile holds (declared in a branch
        // the template did not take with this minion's data, or in a file
        // that does not render): the ID this file declares so, at the
        // start of a line.
        let requisite = anc
            .first()
            .is_some_and(|(_, k, _)| REQUISITES.contains(&k.as_str()));
        if !requisite {
            return Vec::new();
        }
        id_declaration(text, target)
            .map(|range| Place {
                path: path.to_path_buf(),
                range,
            })
            .into_iter()
            .collect()
    }

    /// Where the states with ID or name `target` (of `module`, if given)
    /// are declared.
    fn state_places(&self, target: &str, module: Option<&str>) -> Vec<Place> {
        let mut ids: Vec<String> = self
            .states()
            .iter()
            .filter(|(id, m, name)| {
                (id == target || name == target) && module.is_none_or(|x| x == m)
            })
            .map(|(id, _, _)| id.clone())
            .collect();
        ids.dedup();
        let mut out = Vec::new();
        for id in ids {
            if let Some(s) = self.known.id_spans(&id) {
                let p = Place {
                    path: PathBuf::from(&s.file.name),
                    range: s.key.clone(),
                };
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The ID declared at `offset`, when the cursor is on an ID key (or on
    /// a requisite naming one).
    fn id_at(&self, text: &str, offset: usize) -> Option<String> {
        let (_, word) = word_at(text, offset)?;
        let states = self.states();
        let target = word.rsplit(':').next().unwrap_or(word);
        states
            .iter()
            .find(|(id, _, name)| id == target || name == target)
            .map(|(id, _, _)| id.clone())
    }

    /// Who requires, watches, extends... the state at `offset`, and its
    /// declaration when `declaration`.
    pub fn references(&self, text: &str, offset: usize, declaration: bool) -> Vec<Place> {
        let Some(id) = self.id_at(text, offset) else {
            return Vec::new();
        };
        let names: BTreeSet<String> = self
            .states()
            .iter()
            .filter(|(i, _, _)| *i == id)
            .flat_map(|(i, _, n)| [i.clone(), n.clone()])
            .collect();
        let mut out = Vec::new();
        if declaration {
            out.extend(self.state_places(&id, None));
        }
        for c in self.known.chunks() {
            for kind in REQUISITES {
                let Some(Value::List(items)) = c.get(*kind) else {
                    continue;
                };
                for it in items.iter() {
                    let t = match it {
                        Value::Map(m) => m.values().next().map(Value::py_str),
                        v => Some(v.py_str()),
                    };
                    if !t.is_some_and(|t| names.contains(&t)) {
                        continue;
                    }
                    let cid = c.get("__id__").map(Value::py_str).unwrap_or_default();
                    let state = c.get("state").map(Value::py_str).unwrap_or_default();
                    if let Some(l) = self
                        .known
                        .sources_iter()
                        .find_map(|s| s.arg(&cid, &state, kind))
                    {
                        let mut range = l.range.clone();
                        if let Some(r) = names
                            .iter()
                            .find_map(|n| find_word(&l.file.text, n, range.start))
                        {
                            range = r;
                        }
                        let p = Place {
                            path: PathBuf::from(&l.file.name),
                            range,
                        };
                        if !out.contains(&p) {
                            out.push(p);
                        }
                    }
                }
            }
        }
        for s in self.known.sources_iter() {
            for e in s.extends(&id) {
                let p = Place {
                    path: PathBuf::from(&e.file.name),
                    range: e.key.clone(),
                };
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The IDs of every compiled file whose name contains `query`.
    pub fn workspace_symbols(&self, query: &str) -> Vec<Symbol> {
        let q = query.to_lowercase();
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        for s in self.known.sources_iter() {
            for (id, spans) in s.ids() {
                if id.contains('@') || !id.to_lowercase().contains(&q) || !seen.insert(id.clone()) {
                    continue;
                }
                out.push(Symbol {
                    detail: spans.states.keys().cloned().collect::<Vec<_>>().join(", "),
                    name: id,
                    kind: SymbolKind::Object,
                    at: Place {
                        path: PathBuf::from(&spans.file.name),
                        range: spans.key.clone(),
                    },
                    name_at: spans.key.clone(),
                    children: Vec::new(),
                });
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Hover text (Markdown) for `offset` of `path`.
    pub fn hover(&self, text: &str, offset: usize) -> Option<String> {
        if let Some(p) = pillar_key_at(text, offset) {
            return self.pillar_hover(&p);
        }
        if let Some(f) = self.function_at(text, offset) {
            return self.function_hover(&f);
        }
        let id = self.id_at(text, offset)?;
        Some(self.redactor.text(&self.state_hover(&id)))
    }

    fn state_hover(&self, id: &str) -> String {
        let mut out = format!("**{id}**\n");
        let chunks: Vec<&Map> = self
            .known
            .chunks()
            .filter(|c| c.get("__id__").is_some_and(|v| v.py_str() == id))
            .collect();
        let report = self.report.get_or_init(|| {
            let plan = self.known.plans.first()?;
            let g = crate::salt::graph::ChunkGraph::from_ordered(&plan.lowstate).ok()?;
            Some(crate::salt::report::explain(&g, Some(&plan.sources)))
        });
        for c in &chunks {
            let fun = format!(
                "{}.{}",
                c.get("state").map(Value::py_str).unwrap_or_default(),
                c.get("fun").map(Value::py_str).unwrap_or_default()
            );
            let name = c.get("name").map(Value::py_str).unwrap_or_default();
            out.push_str(&format!("\n`{fun}` name `{name}`"));
            if let Some(o) = c.get("order") {
                out.push_str(&format!(", order {}", o.py_str()));
            }
            out.push('\n');
        }
        if let Some(plan) = report {
            for (pos, n) in plan.order.iter().enumerate() {
                let node = &plan.nodes[*n];
                if node.title != id || node.secondary {
                    continue;
                }
                out.push_str(&format!(
                    "\nruns {} of {} (`{}`)\n",
                    pos + 1,
                    plan.order.len(),
                    node.kind
                ));
                for r in &node.reasons {
                    out.push_str(&format!("- {}\n", r.text));
                }
            }
        }
        if chunks.is_empty() {
            if let Some(body) = self.known.high_part().high.get(id) {
                out.push_str(
                    "\nhigh data (the tree does not compile, so no run order):\n\n```yaml\n",
                );
                let mut m = Map::new();
                m.insert(Value::str(id), body.clone());
                out.push_str(&crate::yaml::dump(
                    &self.redactor.value(&Value::Map(m)),
                    Default::default(),
                ));
                out.push_str("```\n");
            }
        } else {
            let list = Value::List(chunks.iter().map(|c| Value::Map((*c).clone())).collect());
            out.push_str("\n```yaml\n");
            out.push_str(&crate::yaml::dump(
                &self.redactor.value(&list),
                Default::default(),
            ));
            out.push_str("```\n");
        }
        out
    }

    fn function_hover(&self, fun: &str) -> Option<String> {
        let schema = self.catalogue.schema(fun)?;
        let mut out = format!("**{fun}** (Salt 3008.5 argspec)\n\n");
        for (name, rule) in &schema.arguments {
            if rule.undeclared {
                continue;
            }
            out.push_str(&format!("- `{name}`"));
            if rule.required {
                out.push_str(" (required)");
            } else if let Some(d) = &rule.default {
                out.push_str(&format!(" = `{}`", d.py_repr()));
            }
            out.push('\n');
        }
        if !schema.groups.is_empty() {
            out.push_str("\nrules:\n");
            for g in &schema.groups {
                let words = g.message.clone().unwrap_or_else(|| g.id.clone());
                out.push_str(&format!("- {words}\n"));
            }
        }
        Some(out)
    }

    fn pillar_hover(&self, key: &str) -> Option<String> {
        let prov = self.provenance.get_or_init(|| {
            let (_, _, p) = crate::salt::pillar::compile_traced_in(
                crate::salt::pillar::PillarInputs {
                    config: &self.config,
                    mocks: self.config.mocks.clone(),
                    overlay: None,
                    limits: Default::default(),
                    queries: &Default::default(),
                    call_pillarenv: None,
                },
                &self.share.pillar,
            );
            p
        });
        let globs = &self.config.secret_pillar;
        let mask = self.config.pillar_mask_output;
        let show = |p: &[String], v: &Value| crate::salt::secrets::show_leaf(p, v, globs, !mask);
        let text = prov.as_ref()?.clone().filter(key).human(&show);
        // Say how to see the values Salt's mask hides (secrets stay hidden).
        let how = if mask && text.contains(crate::salt::secrets::SALT_MASK) {
            "\nValues are masked as Salt's `pillar.items` masks them: \
             `pillar_mask_output: False` in the minion config shows them \
             (paths in `lowstate_secret_pillar` stay hidden).\n"
        } else {
            ""
        };
        Some(format!(
            "**pillar `{key}`**\n\n```\n{}```\n{how}",
            self.redactor.text(&text)
        ))
    }

    /// Completions at `offset` of `path`.
    pub fn completion(&self, path: &Path, text: &str, offset: usize) -> Vec<Completion> {
        let (line, anc) = ancestors(text, offset);
        let before = &line[..line
            .len()
            .min(offset - text[..offset].rfind('\n').map_or(0, |i| i + 1))];
        let trimmed = before.trim_start();
        let fs = &self.share.fs;
        let env = fs.locate(path).map_or("base".to_string(), |h| h.0);
        let mut out = Vec::new();
        // Under `include:`: SLS names.
        if anc.first().is_some_and(|(_, k, _)| k == "include") || trimmed.starts_with("- sls:") {
            for s in fs.list_sls(&env) {
                out.push(Completion::new(s.clone(), "SLS", CompletionKind::File));
            }
            return out;
        }
        match anc.len() {
            // An ID's body: state modules and functions.
            1 => {
                for f in self.catalogue.functions() {
                    out.push(Completion::new(
                        f,
                        "state function",
                        CompletionKind::Function,
                    ));
                }
            }
            // A declaration's arguments: the function's, the global ones,
            // requisite kinds.
            2 => {
                let fun = &anc[0].1;
                if let Some(schema) = self.catalogue.schema(fun) {
                    for (name, rule) in &schema.arguments {
                        let detail = if rule.required {
                            "required"
                        } else {
                            "argument"
                        };
                        out.push(Completion::new(
                            name.clone(),
                            detail,
                            CompletionKind::Property,
                        ));
                    }
                }
                for a in GLOBAL_ARGS {
                    out.push(Completion::new(
                        *a,
                        "state argument",
                        CompletionKind::Property,
                    ));
                }
                for r in REQUISITES {
                    out.push(Completion::new(*r, "requisite", CompletionKind::Keyword));
                }
            }
            // A requisite's targets: `module: ID`.
            _ if anc
                .first()
                .is_some_and(|(_, k, _)| REQUISITES.contains(&k.as_str())) =>
            {
                let mut seen = BTreeSet::new();
                for (id, m, _) in self.states() {
                    let label = format!("{m}: {id}");
                    if seen.insert(label.clone()) {
                        out.push(Completion::new(label, "state", CompletionKind::Reference));
                    }
                }
                out.push(Completion::new(
                    "sls",
                    "a whole SLS",
                    CompletionKind::Keyword,
                ));
            }
            _ => {}
        }
        out
    }
}

fn file_start(path: PathBuf) -> Place {
    Place { path, range: 0..0 }
}

/// Whether `severity` fails a compile.
pub fn is_error(severity: Severity) -> bool {
    severity == Severity::Error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_includes_resolve_like_salt() {
        assert_eq!(
            resolve_relative(".install", Some("nginx"), true),
            "nginx.install"
        );
        assert_eq!(resolve_relative(".b", Some("a.x"), false), "a.b");
        assert_eq!(resolve_relative("..c", Some("a.b.x"), false), "a.c");
        assert_eq!(resolve_relative("z", Some("a"), true), "z");
    }

    #[test]
    fn reads_the_missing_target() {
        let m = "Referenced state does not exist for requisite [require: (pkg: nginx-pakage)] in state [nginx] in SLS [nginx.service]";
        assert_eq!(
            missing_target(m),
            Some(("pkg".to_string(), "nginx-pakage".to_string()))
        );
    }

    #[test]
    fn pillar_keys_in_templates() {
        let t = "x: {{ pillar['web']['port'] }} {{ salt['pillar.get']('a:b', 1) }} {{ pillar.get('c') }}";
        assert_eq!(pillar_key_at(t, 10).as_deref(), Some("web:port"));
        assert_eq!(pillar_key_at(t, 40).as_deref(), Some("a:b"));
        assert_eq!(pillar_key_at(t, 70).as_deref(), Some("c"));
        assert_eq!(pillar_key_at("pillar", 2), None);
    }

    #[test]
    fn symbols_of_a_text() {
        let t = "include:\n  - a\nweb:\n  pkg.installed:\n    - name: x\n  service.running: []\n";
        let s = document_symbols(Path::new("/x.sls"), t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].name, "web");
        assert_eq!(s[1].detail, "pkg.installed, service.running");
        assert_eq!(s[1].children.len(), 2);
    }

    #[test]
    fn id_declarations_at_the_start_of_a_line() {
        let t = "{% if x %}\nget-redis:\n  file.managed: []\n'q d':\n  - a: get-redis\n";
        assert_eq!(id_declaration(t, "get-redis"), Some(11..20));
        assert_eq!(id_declaration(t, "q d"), Some(42..45));
        // Not a key of its own line at the first column: not a declaration.
        assert_eq!(id_declaration("  get-redis:\n", "get-redis"), None);
        assert_eq!(id_declaration("x: get-redis\n", "get-redis"), None);
        assert_eq!(id_declaration(t, "a"), None);
    }

    #[test]
    fn jinja_names() {
        let t = "{%- from tpldir ~ '/m.jinja' import x %}{% import 'lib/a.jinja' as a %}";
        let r = jinja_refs(t);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].1, "./m.jinja");
        assert_eq!(r[1].1, "lib/a.jinja");
        assert_eq!(sls_name("a/b/init.sls").as_deref(), Some("a.b"));
    }
}

#[cfg(test)]
mod incremental {
    use super::*;

    /// A fresh temp dir named for `name` holding `files` (path, text).
    fn write_tree<T: AsRef<str>>(name: &str, files: &[(&str, T)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lowstate-ide-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (rel, text) in files {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text.as_ref()).unwrap();
        }
        dir.canonicalize().unwrap()
    }

    /// A small tree: three SLS files under a top file, a macro file and a
    /// pillar, in a fresh temp dir.
    fn tree(name: &str) -> PathBuf {
        let files = [
            (
                "minion",
                "id: web1\ngrains: {os: Debian, os_family: Debian, kernel: Linux}\nfile_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\n",
            ),
            ("salt/top.sls", "base:\n  '*':\n    - a\n    - b\n    - c\n"),
            (
                "salt/macros.jinja",
                "{% macro noop(id) %}\n{{ id }}:\n  test.nop: []\n{% endmacro %}\n",
            ),
            (
                "salt/a.sls",
                "a-one:\n  test.nop:\n    - name: {{ pillar.get('name', 'none') }}\na-two:\n  test.succeed_without_changes:\n    - require:\n      - test: a-one\n",
            ),
            (
                "salt/b.sls",
                "{% from 'macros.jinja' import noop %}\ninclude:\n  - a\n{{ noop('b-macro') }}\nb-one:\n  test.nop:\n    - require:\n      - test: a-two\n",
            ),
            ("salt/c.sls", "c-one:\n  test.nop: []\n"),
            ("pillar/top.sls", "base:\n  '*':\n    - p\n"),
            ("pillar/p.sls", "name: first\n"),
        ];
        write_tree(name, &files)
    }

    /// The issues and every plan's lowstate, in order.
    fn all_of(a: &Analysis) -> String {
        let plans: Vec<Vec<Map>> = a.known.plans.iter().map(|p| p.lowstate.to_list()).collect();
        format!("{:#?}\n{plans:#?}", a.issues)
    }

    /// A workspace that saw `edits` one by one, each compiled into the last
    /// analysis (as the server does), against a fresh workspace given the
    /// same texts: the issues and the plans are the same after each edit.
    /// Returns how many edits were compiled into the last plan.
    fn edit_and_compare(dir: &Path, edits: &[(&str, &str)]) -> usize {
        let mut ws = Workspace::open(dir).unwrap();
        let mut open: BTreeMap<PathBuf, String> = BTreeMap::new();
        let mut last = None;
        let mut edited = 0;
        for (rel, text) in edits {
            let path = dir.join(rel);
            ws.set_text(&path, Some(text.to_string()));
            open.insert(path, text.to_string());
            let a = ws.analyse(&mut last);
            edited += usize::from(a.edited);
            let got = all_of(&a);
            last = Some(a);
            // As the server does between edits: the next compile takes
            // these copies of the cached renders.
            ws.spare_work(Arc::default())();
            let mut fresh = Workspace::open(dir).unwrap();
            for (p, t) in &open {
                fresh.set_text(p, Some(t.clone()));
            }
            let want = all_of(&fresh.analyse(&mut None));
            assert_eq!(got, want, "after the edit of {rel}:\n{text}");
        }
        edited
    }

    /// After every edit, the workspace that saw the edits one by one
    /// reports what a fresh workspace given the same texts reports: IDs
    /// added and removed, includes, requisites and `require_in` across
    /// files, `extend`, duplicates, a cycle, a misspelt argument, the
    /// pillar and the macro file edited in the editor.
    #[test]
    fn edits_one_by_one_equal_a_fresh_compile() {
        let dir = tree("steps");
        let edits: &[(&str, &str)] = &[
            // A requisite on an ID that does not exist yet, then does.
            ("salt/c.sls", "c-one:\n  test.nop:\n    - require:\n      - test: a-three\n"),
            ("salt/a.sls", "a-one:\n  test.nop:\n    - name: {{ pillar.get('name', 'none') }}\na-two:\n  test.succeed_without_changes:\n    - require:\n      - test: a-one\na-three:\n  test.nop: []\n"),
            // Removed again; a duplicate ID across files.
            ("salt/a.sls", "a-one:\n  test.nop:\n    - name: {{ pillar.get('name', 'none') }}\na-two:\n  test.succeed_without_changes:\n    - require:\n      - test: a-one\nc-one:\n  test.nop: []\n"),
            ("salt/a.sls", "a-one:\n  test.nop:\n    - name: {{ pillar.get('name', 'none') }}\na-two:\n  test.succeed_without_changes:\n    - require:\n      - test: a-one\na-three:\n  test.nop: []\n"),
            // require_in across files, a cycle, then fixed.
            ("salt/c.sls", "c-one:\n  test.nop:\n    - require:\n      - test: a-three\n    - require_in:\n      - test: a-one\n"),
            ("salt/c.sls", "c-one:\n  test.nop:\n    - require:\n      - test: a-three\n    - require_in:\n      - test: a-three\n"),
            ("salt/c.sls", "include:\n  - b\nc-one:\n  test.nop:\n    - require:\n      - test: b-macro\n"),
            // extend of another file's ID, and of a missing one.
            ("salt/c.sls", "include:\n  - a\nextend:\n  a-one:\n    test.nop:\n      - name: extended\nc-one:\n  test.nop: []\n"),
            ("salt/c.sls", "include:\n  - a\nextend:\n  a-gone:\n    test.nop:\n      - name: extended\nc-one:\n  test.nop: []\n"),
            // A misspelt argument, an unknown function.
            ("salt/c.sls", "c-one:\n  test.nop:\n    - nmae: x\nc-two:\n  test.nopp: []\n"),
            // The pillar and the macro file in the editor.
            ("pillar/p.sls", "name: second\n"),
            ("pillar/p.sls", "name: [unclosed\n"),
            ("salt/macros.jinja", "{% macro noop(id) %}\n{{ id }}:\n  test.nop:\n    - require:\n      - test: nowhere\n{% endmacro %}\n"),
            ("pillar/p.sls", "name: third\n"),
            ("salt/b.sls", "include:\n  - a\n  - missing\nb-one:\n  test.nop: []\n"),
            ("salt/b.sls", "b-one: [broken\n"),
            ("salt/b.sls", "b-one:\n  test.nop:\n    - require:\n      - test: a-one\n"),
        ];
        edit_and_compare(&dir, edits);
        // What the editor had is what the compile read: the pillar buffer's
        // value reaches the state (no diagnostic names it, so compare the
        // chunk).
        let mut ws = Workspace::open(&dir).unwrap();
        for (rel, text) in edits {
            ws.set_text(&dir.join(rel), Some(text.to_string()));
        }
        let a = ws.analyse(&mut None);
        let names: Vec<String> = a
            .known
            .chunks()
            .filter_map(|c| c.get("name").map(Value::py_str))
            .collect();
        assert!(names.iter().any(|n| n == "third"), "{names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file that changes the pillar in place changes it for the files
    /// Salt renders after it: an edit that adds, changes or removes such a
    /// change is seen by those files at once (never a render cached for
    /// other data), and an edit of a later file still sees it.
    #[test]
    fn edits_of_a_file_that_changes_the_pillar_reach_later_files() {
        let dir = tree("mutation");
        let c =
            "c-one:\n  test.nop:\n    - name: {{ pillar.name }} {{ salt['pillar.get']('name') }}\n";
        let a = |change: &str| {
            format!("{change}a-one:\n  test.nop:\n    - name: {{{{ pillar.name }}}}\na-two:\n  test.nop: []\n")
        };
        let steps: &[(&str, String, &str)] = &[
            ("salt/c.sls", c.to_string(), "first first"),
            ("salt/a.sls", a("{% do pillar.update({'name': 'var'}) %}\n"), "var first"),
            ("salt/a.sls", a("{% do pillar.update({'name': 'again'}) %}{% do salt['pillar.get']('n', {}) %}\n"), "again first"),
            ("salt/c.sls", format!("{c}c-two:\n  test.nop: []\n"), "again first"),
            ("salt/a.sls", a("{% set p = salt['pillar.raw']() %}{% do p.update({'name': 'fn'}) %}\n"), "first fn"),
            ("salt/a.sls", a(""), "first first"),
        ];
        let mut ws = Workspace::open(&dir).unwrap();
        let mut open: BTreeMap<PathBuf, String> = BTreeMap::new();
        let mut last = None;
        for (rel, text, want) in steps {
            let path = dir.join(rel);
            ws.set_text(&path, Some(text.clone()));
            open.insert(path, text.clone());
            let got = ws.analyse(&mut last);
            ws.spare_work(Arc::default())();
            let name = |a: &Analysis| {
                a.known
                    .chunks()
                    .find(|ch| ch.get("__id__").map(Value::py_str).as_deref() == Some("c-one"))
                    .and_then(|ch| ch.get("name").map(Value::py_str))
            };
            assert_eq!(
                name(&got).as_deref(),
                Some(*want),
                "after the edit of {rel}:\n{text}"
            );
            let mut fresh = Workspace::open(&dir).unwrap();
            for (p, t) in &open {
                fresh.set_text(p, Some(t.clone()));
            }
            assert_eq!(
                all_of(&got),
                all_of(&fresh.analyse(&mut None)),
                "after the edit of {rel}"
            );
            last = Some(got);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Edits that change only states' own arguments and functions are
    /// compiled into the last plan, not the whole tree again, with the same
    /// issues, chunks and order: `names`, an explicit order, `watch` (which
    /// ordering moves), reverse requisites inside the file, a requisite on
    /// another file, a function changed (the tie-break reads it), a
    /// misspelt argument, an argument added, a `name`, an ID no requisite
    /// names; edits that change what ordering reads (a requisite, a name
    /// some requisite names) are compiled whole.
    #[test]
    fn edits_of_arguments_are_compiled_into_the_last_plan() {
        let dir = tree("local");
        let c = |one: &str, two: &str, text: &str| {
            format!(
                "c-one:\n  test.{one}:\n    - text: {text}\n    - names:\n      - n1\n      - n2:\n        - order: 5\n\
                 c-two:\n  test.{two}:\n    - text: {{{{ '{text}' | upper }}}}\n    - watch:\n      - test: a-two\n    - require_in:\n      - test: c-three\n\
                 c-three:\n  test.nop:\n    - text: {text}\n"
            )
        };
        let texts = [
            c("nop", "succeed_with_changes", "v1"),
            c("nop", "succeed_with_changes", "v2"),
            c("succeed_without_changes", "succeed_with_changes", "v2"),
            c("succeed_without_changes", "nop", "v3"),
            c("nopp", "nop", "v3"),
            c("nop", "nop", "v4"),
            // An argument more (compiled into the plan too), then a
            // requisite changed (a whole compile).
            c("nop", "nop", "v4").replace(
                "- text: v4\n    - names",
                "- text: v4\n    - extra: 1\n    - names",
            ),
            c("nop", "nop", "v5").replace("- test: a-two", "- test: a-one"),
            c("nop", "nop", "v6").replace("- test: a-two", "- test: a-one"),
            // Values Python's `==` calls equal, which a lowstate prints
            // apart: each into the plan.
            c("nop", "nop", "1").replace("- test: a-two", "- test: a-one"),
            c("nop", "nop", "1.0").replace("- test: a-two", "- test: a-one"),
            c("nop", "nop", "true").replace("- test: a-two", "- test: a-one"),
            // A state no requisite names renamed: into the plan.
            c("nop", "nop", "v6")
                .replace("- test: a-two", "- test: a-one")
                .replace("c-one:", "c-uno:"),
        ];
        let a_text = |fun: &str, name: &str| {
            format!("a-one:\n  test.nop:\n    - name: {name}\na-two:\n  test.{fun}:\n    - nmae: x\n    - require:\n      - test: a-one\n")
        };
        let a_texts = [
            a_text("succeed_without_changes", "first"),
            a_text("succeed_with_changes", "first"),
            // A `name` no requisite names: into the plan too.
            a_text("succeed_with_changes", "second"),
            // A `name` a requisite names (`a-two`, which `c-two` watches):
            // a whole compile.
            a_text("succeed_with_changes", "a-two"),
            a_text("nop", "second"),
        ];
        let mut edits: Vec<(&str, &str)> =
            texts.iter().map(|t| ("salt/c.sls", t.as_str())).collect();
        edits.extend(a_texts.iter().map(|t| ("salt/a.sls", t.as_str())));
        let edited = edit_and_compare(&dir, &edits);
        // The first compile, the requisite changed and the name a
        // requisite names (set, then changed again) compile whole; the
        // others go into the last plan.
        assert_eq!(edited, edits.len() - 4, "edits compiled into the last plan");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Random edits of a generated tree (includes, requisites within and
    /// across files, `watch`, `onchanges`, `require_in`, `names`, an
    /// explicit order, a macro): argument values, functions and names
    /// (some of them other states' IDs, which requisites name), IDs (of a
    /// state no requisite names, one that requisites name, one that another
    /// file declares), an argument added, a requisite retargeted. After each, the issues and plans equal a fresh
    /// workspace's; most edits are compiled into the last plan.
    #[test]
    fn random_edits_equal_a_fresh_compile() {
        const FUNS: [&str; 4] = [
            "nop",
            "succeed_without_changes",
            "succeed_with_changes",
            "configurable_test_state",
        ];
        struct State {
            id: String,
            name: Option<String>,
            fun: usize,
            text: u32,
            extra: bool,
            require: Option<String>,
        }
        let files = 8;
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut tree: Vec<Vec<State>> = (0..files)
            .map(|f| {
                (0..6)
                    .map(|s| State {
                        id: format!("f{f}-s{s}"),
                        name: None,
                        fun: (f + s) % 3,
                        text: 0,
                        extra: false,
                        require: (s > 0).then(|| format!("f{f}-s{}", s - 1)),
                    })
                    .collect()
            })
            .collect();
        // Per file: the ID of the state its macro call makes.
        let mut mids: Vec<String> = (0..files).map(|f| format!("f{f}-m")).collect();
        let text_of = |f: usize, states: &[State], mid: &str| {
            let mut t = String::from("{% from 'macros.jinja' import stamp %}\n");
            if f > 0 {
                t += &format!("include:\n  - f{}\n", f - 1);
            }
            for (i, st) in states.iter().enumerate() {
                t += &format!(
                    "{}:\n  test.{}:\n    - text: v{}\n",
                    st.id, FUNS[st.fun], st.text
                );
                if let Some(name) = &st.name {
                    t += &format!("    - name: {name}\n");
                }
                if st.extra {
                    t += "    - extra: 1\n";
                }
                if i == 1 {
                    t += &format!(
                        "    - names:\n      - f{f}-n1\n      - f{f}-n2:\n        - order: 5\n"
                    );
                }
                if let Some(r) = &st.require {
                    let kind = ["require", "watch", "onchanges"][i % 3];
                    t += &format!("    - {kind}:\n      - test: {r}\n");
                }
                if i == 2 {
                    t += &format!("    - require_in:\n      - test: {}\n", states[5].id);
                }
                if i == 3 && f > 0 {
                    t += &format!("    - require:\n      - test: f{}-s0\n", f - 1);
                }
            }
            t += &format!("{{{{ stamp('{mid}', '{}') }}}}\n", states[0].id);
            t
        };
        let mut written: Vec<(String, String)> = vec![
            (
                "minion".into(),
                "id: web1\ngrains: {os: Debian, os_family: Debian, kernel: Linux}\nfile_roots: {base: [salt]}\n".into(),
            ),
            (
                "salt/macros.jinja".into(),
                "{% macro stamp(id, after) -%}\n{{ id }}:\n  test.nop:\n    - require:\n      - test: {{ after }}\n{%- endmacro %}\n".into(),
            ),
        ];
        let mut top = String::from("base:\n  '*':\n");
        for (f, states) in tree.iter().enumerate() {
            top += &format!("    - f{f}\n");
            written.push((format!("salt/f{f}.sls"), text_of(f, states, &mids[f])));
        }
        written.push(("salt/top.sls".into(), top));
        let written: Vec<(&str, &String)> = written.iter().map(|(p, t)| (p.as_str(), t)).collect();
        let dir = write_tree("random", &written);
        let mut edits: Vec<(String, String)> = Vec::new();
        for _ in 0..120 {
            let f = next(files);
            let s = next(6);
            let st = &mut tree[f][s];
            match next(20) {
                0 => st.extra = !st.extra,
                1 if s > 0 => {
                    st.require = Some(format!("f{f}-s{}", next(s)));
                }
                2 => {
                    // An ID renamed (its requisites then miss), and back.
                    let id = std::mem::replace(&mut st.id, format!("f{f}-s{s}-x"));
                    edits.push((format!("salt/f{f}.sls"), text_of(f, &tree[f], &mids[f])));
                    tree[f][s].id = id;
                }
                // A name: of its own, or another state's ID (which
                // requisites name; and back, as it may make a cycle).
                3 => st.name = Some(format!("n{}", next(4))),
                4 => {
                    let name = st.name.replace(format!("f{f}-s{}", next(6)));
                    edits.push((format!("salt/f{f}.sls"), text_of(f, &tree[f], &mids[f])));
                    tree[f][s].name = name;
                }
                5 => st.name = None,
                // The macro's state renamed (no requisite names it), or
                // given another file's macro state's ID (a conflict), and
                // back.
                6 => mids[f] = format!("f{f}-m{}", next(3)),
                7 => {
                    let other = mids[(f + 1) % files].clone();
                    let mid = std::mem::replace(&mut mids[f], other);
                    edits.push((format!("salt/f{f}.sls"), text_of(f, &tree[f], &mids[f])));
                    mids[f] = mid;
                }
                8..=10 => st.fun = next(FUNS.len()),
                _ => st.text += 1,
            }
            edits.push((format!("salt/f{f}.sls"), text_of(f, &tree[f], &mids[f])));
        }
        let edits: Vec<(&str, &str)> = edits
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let edited = edit_and_compare(&dir, &edits);
        assert!(
            edited > edits.len() / 2,
            "{edited} of {} edits compiled into the last plan",
            edits.len()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
