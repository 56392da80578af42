//! Template names and loading: names are paths relative to the saltenv
//! root (`salt://` and absolute names are not found, nothing may leave the
//! root), read through `TemplateLoader` and pre-passed. Relative names
//! (`./x`, `../x`) follow Salt's quirk: they resolve against the loader's
//! global `tpldir`, i.e. the directory of the last template loaded by a
//! non-relative name in this render, and the first resolution of a name
//! sticks for the rest of the render (Jinja caches by name). That
//! per-render state lives in a thread-local stack of frames (renders are
//! synchronous; nested renders push their own frame).

use super::{FileListing, TemplateLoader};
use crate::salt::fileserver::FileServer;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use minijinja::Value as JValue;

/// Per-render loader state.
pub(super) struct Frame {
    /// Loader-global `tpldir` / `tplfile` / `tpldot` (what Salt's loader
    /// writes into the environment globals on every load).
    pub tpldir: String,
    pub tplfile: String,
    /// Names already loaded in this render.
    loaded: HashSet<String>,
    /// Relative name → resolved name (first resolution wins).
    relative: HashMap<String, String>,
    /// The render context every imported data file sees (grains, salt, ...).
    pub base_context: Vec<(String, JValue)>,
    /// The caller's `tplfile` / `tpldir` / `tpldot` around each import
    /// without context (see [`import_enter`]).
    saved: Vec<[JValue; 3]>,
    /// Data files imported without context, by name, as first rendered:
    /// Jinja2 keeps such a module for the rest of the render.
    pub modules: HashMap<String, String>,
    /// The template each running import without context names (resolved;
    /// `None` when the name is not a string), innermost last.
    importing: Vec<Option<String>>,
    /// Templates imported without context, by resolved name, as first
    /// evaluated: Jinja2 evaluates such a template once per render and
    /// hands every later import the same module, so a mutation through
    /// one import shows through all.
    shared: HashMap<String, JValue>,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Pops the frame when the render ends (also on unwinding).
pub(super) struct FrameGuard(());

impl Drop for FrameGuard {
    fn drop(&mut self) {
        FRAMES.with(|f| {
            f.borrow_mut().pop();
        });
    }
}

/// The loader's `tpldir` before any is known (a file template whose
/// context sets none): a relative name does not resolve, as in Salt's
/// loader without a `tpldir` global.
pub(super) const UNSET_TPLDIR: &str = "\u{0}unset";

/// Start a render whose top-level template sits in `tpldir`.
pub(super) fn push_frame(
    tpldir: &str,
    tplfile: &str,
    base_context: Vec<(String, JValue)>,
) -> FrameGuard {
    FRAMES.with(|f| {
        f.borrow_mut().push(Frame {
            tpldir: tpldir.to_string(),
            tplfile: tplfile.to_string(),
            loaded: HashSet::new(),
            relative: HashMap::new(),
            base_context,
            saved: Vec::new(),
            modules: HashMap::new(),
            importing: Vec::new(),
            shared: HashMap::new(),
        })
    });
    FrameGuard(())
}

/// Run `f` on the current frame, if any.
pub(super) fn with_frame<R>(f: impl FnOnce(&mut Frame) -> R) -> Option<R> {
    FRAMES.with(|frames| frames.borrow_mut().last_mut().map(f))
}

/// Marks a name that must not be found (a relative name leaving the root).
const REJECT: char = '\u{1}';

fn is_relative(name: &str) -> bool {
    matches!(name.split('/').next(), Some(".") | Some(".."))
}

/// `os.path.dirname`, with Salt's `.` for the root.
fn dir_of(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((d, _)) if !d.is_empty() => d.to_string(),
        _ => ".".to_string(),
    }
}

/// POSIX `normpath` of a relative path; `None` if it leaves the root.
pub(super) fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// The environment's path-join callback.
pub(super) fn join_path(name: &str) -> String {
    let joined = join_in_frame(name);
    super::reads::template(&joined);
    joined
}

fn join_in_frame(name: &str) -> String {
    with_frame(|frame| {
        if is_relative(name) {
            if let Some(r) = frame.relative.get(name) {
                return r.clone();
            }
            if frame.tpldir == UNSET_TPLDIR {
                return format!("{REJECT}{name}");
            }
            let base = if frame.tpldir == "." {
                ""
            } else {
                frame.tpldir.as_str()
            };
            let resolved = match normalize(&format!("{base}/{name}")) {
                Some(p) if !p.is_empty() => p,
                _ => format!("{REJECT}{name}"),
            };
            frame.relative.insert(name.to_string(), resolved.clone());
            frame.tplfile = name.to_string();
            resolved
        } else {
            if frame.loaded.insert(name.to_string()) {
                frame.tpldir = dir_of(name);
                frame.tplfile = name.to_string();
            }
            name.to_string()
        }
    })
    .unwrap_or_else(|| name.to_string())
}

/// The names of the loader-global path variables.
pub(super) const PATH_VARS: [&str; 3] = ["tplfile", "tpldir", "tpldot"];

/// The values of [`PATH_VARS`] in this frame (`tpldot` from the directory
/// before Salt turns `""` into `.`).
pub(super) fn path_values(frame: &Frame) -> [JValue; 3] {
    let tpldot = if frame.tpldir == "." {
        String::new()
    } else {
        frame.tpldir.replace('/', ".")
    };
    [
        JValue::from(frame.tplfile.as_str()),
        JValue::from(frame.tpldir.as_str()),
        JValue::from(tpldot),
    ]
}

/// Before an import without context: Jinja2 gives the imported template
/// only the globals, where Salt's loader has just written the imported
/// name as `tplfile` / `tpldir` / `tpldot`; minijinja imports with the
/// caller's context. The pre-pass sets these three variables to what this
/// returns around the import (`caller` holds their values, restored by
/// [`import_leave`]). Loading `name` here is what the import itself does
/// next, and doing it twice changes nothing.
pub(super) fn import_enter(name: Option<&str>, caller: [JValue; 3]) -> JValue {
    let resolved = name.map(join_path);
    with_frame(|frame| {
        frame.importing.push(resolved);
        frame.saved.push(caller.clone());
        JValue::from(path_values(frame).to_vec())
    })
    .unwrap_or_else(|| JValue::from(caller.to_vec()))
}

/// Whether the running import (see [`import_enter`]) must evaluate its
/// template: not when this render has its module already.
pub(super) fn import_fresh() -> bool {
    with_frame(|frame| match frame.importing.last() {
        Some(Some(key)) => !frame.shared.contains_key(key),
        _ => true,
    })
    .unwrap_or(true)
}

/// After the import: the caller's own values back, then what the import
/// takes from `module` (just evaluated, unset when [`import_fresh`] said
/// no) or from the module this render evaluated first: the module itself
/// for `*`, else its attribute of each name.
pub(super) fn import_leave(module: JValue, names: &[JValue]) -> JValue {
    with_frame(|frame| {
        let key = frame.importing.pop().flatten();
        let mut out: Vec<JValue> = match frame.saved.pop() {
            Some(v) => v.to_vec(),
            None => vec![JValue::UNDEFINED; 3],
        };
        let module = match key {
            Some(key) => frame.shared.entry(key).or_insert(module).clone(),
            None => module,
        };
        for name in names {
            out.push(match name.as_str() {
                Some("*") => module.clone(),
                Some(n) => module.get_attr(n).unwrap_or(JValue::UNDEFINED),
                None => JValue::UNDEFINED,
            });
        }
        JValue::from(out)
    })
    .unwrap_or_else(|| JValue::from(vec![JValue::UNDEFINED; 3]))
}

/// The name to show for a template name produced by [`join_path`].
pub(super) fn display_name(name: &str) -> &str {
    name.strip_prefix(REJECT).unwrap_or(name)
}

/// Whether template name `name` was refused for climbing above the root
/// (a `..` too many).
pub(super) fn leaves_root(name: &str) -> bool {
    name.starts_with(REJECT)
        || (!name.starts_with('/') && !name.contains("://") && normalize(name).is_none())
}

/// The fileserver path for a template name, or `None` (TemplateNotFound).
pub(super) fn resolve(name: &str) -> Option<String> {
    if name.starts_with(REJECT)
        || name.starts_with('/')
        || name.contains("://")
        || name.contains('\\')
    {
        return None;
    }
    normalize(name).filter(|p| !p.is_empty())
}

/// Jinja2 reads templates with universal newlines: `\r\n` and `\r` become `\n`.
pub(super) fn normalize_newlines(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        s.into()
    }
}

/// The fileserver serves templates: imports, includes and `import_*` read
/// through it, and `cp.list_*` list its roots.
impl TemplateLoader for FileServer {
    fn read(&self, saltenv: &str, path: &str) -> Option<String> {
        // Every read counts (the Jinja loader's are also noted where the
        // name is joined, since minijinja asks the loader once; others,
        // such as `hashutil.base64_encodefile`, read here each time).
        super::reads::template(path);
        FileServer::read(self, saltenv, path)
    }

    fn listing(&self, saltenv: &str) -> Option<Arc<FileListing>> {
        Some(self.list_paths(saltenv))
    }

    fn unreadable(&self, saltenv: &str, path: &str) -> Option<String> {
        let file = self.find_file(saltenv, path)?;
        let bytes = match self.read_path(&file) {
            Ok(b) => b,
            Err(e) => return Some(format!("{path}: {e}")),
        };
        let (pos, why) = crate::salt::fileserver::decode_utf8(bytes.clone()).err()?;
        let line = 1 + bytes[..pos].iter().filter(|&&b| b == b'\n').count();
        Some(format!("{why} (in {path}, line {line})"))
    }

    fn refused(&self, saltenv: &str, path: &str) -> Option<String> {
        let (link, target) = self.refused_link(saltenv, path)?;
        Some(format!(
            "{path}: {} is a symlink to {}, outside the file roots and the checkout; lowstate does not follow it (allow the directory with `lowstate_symlink_roots`, or see `fileserver_followsymlinks`)",
            link.display(),
            target.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_follow_the_last_load() {
        let _g = push_frame("x/z", "x/z/init.sls", Vec::new());
        assert_eq!(join_path("lib/macros.jinja"), "lib/macros.jinja");
        assert_eq!(join_path("./helper.jinja"), "lib/helper.jinja");
        // cached by name for the rest of the render
        assert_eq!(join_path("other/a.jinja"), "other/a.jinja");
        assert_eq!(join_path("./helper.jinja"), "lib/helper.jinja");
        assert_eq!(join_path("../../../x"), "\u{1}../../../x");
        assert_eq!(resolve(&join_path("../../../x")), None);
    }

    #[test]
    fn names_stay_inside_the_root() {
        assert_eq!(resolve("salt://lib/m.jinja"), None);
        assert_eq!(resolve("/etc/passwd"), None);
        assert_eq!(resolve("a/../../b"), None);
        assert_eq!(resolve("a/./b//c"), Some("a/b/c".into()));
        assert_eq!(resolve("a/../b"), Some("b".into()));
    }
}
