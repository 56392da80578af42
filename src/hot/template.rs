//! Template text → a mapping with its version and sections (spec §2–§4):
//! JSON is tried first, then YAML with Heat's rules; the version key picks
//! the function table and the sections and keys that exist.

use super::error;
use crate::diag::{codes, Diagnostic, SourceFile};
use crate::value::{Map, Value};
use crate::yaml::{Dialect, LoadOptions, Node, NodeValue};
use std::ops::Range;
use std::sync::Arc;

/// Heat's `max_template_size`.
pub const MAX_TEMPLATE_SIZE: usize = 524_288;

/// The HOT versions of the era lowstate compiles, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// 2013-05-23 (Icehouse).
    V20130523,
    /// 2014-10-16 (Juno).
    V20141016,
    /// 2015-04-30 (Kilo).
    V20150430,
    /// 2015-10-15 (Liberty).
    V20151015,
    /// 2016-04-08 (Mitaka).
    V20160408,
    /// 2016-10-14 (Newton).
    V20161014,
}

/// The version `written` names (`2016-10-14`, `newton`), when lowstate
/// compiles it.
pub fn version_of(written: &str) -> Option<Version> {
    KNOWN
        .iter()
        .find(|(w, _)| *w == written)
        .and_then(|(_, v)| *v)
}

/// Every version value Heat 27 knows, as written, with ours.
const KNOWN: &[(&str, Option<Version>)] = &[
    ("2013-05-23", Some(Version::V20130523)),
    ("2014-10-16", Some(Version::V20141016)),
    ("2015-04-30", Some(Version::V20150430)),
    ("2015-10-15", Some(Version::V20151015)),
    ("2016-04-08", Some(Version::V20160408)),
    ("2016-10-14", Some(Version::V20161014)),
    ("newton", Some(Version::V20161014)),
    ("2017-02-24", None),
    ("ocata", None),
    ("2017-09-01", None),
    ("pike", None),
    ("2018-03-02", None),
    ("queens", None),
    ("2018-08-31", None),
    ("rocky", None),
    ("2021-04-16", None),
    ("wallaby", None),
];

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    /// The text.
    pub file: Arc<SourceFile>,
    /// The YAML tree with spans (`None` for a JSON template).
    pub tree: Option<Node>,
    /// The template as data.
    pub data: Map,
    /// The version.
    pub version: Version,
    /// The version as written (`newton` stays `newton`).
    pub version_text: String,
    /// The names of its resource definitions once checked (Heat's steps 9
    /// and 10 read the template alone), or the first error: the stacks of
    /// a group of N members of one template check them once.
    pub(crate) definitions: std::sync::OnceLock<Result<Vec<String>, Diagnostic>>,
}

/// Why a template could not be read: the diagnostic, and the version as
/// written when it was known.
pub type ParseFailure = (Diagnostic, Option<String>);

/// A mapping or a null, read as a YAML/JSON text with Heat's rules
/// (JSON first). Used for templates and environment files.
pub fn read_mapping(
    file: &Arc<SourceFile>,
    code: crate::diag::Code,
    not_a_map: &str,
    limits: &crate::limits::Limits,
) -> Result<(Option<Node>, Value), Diagnostic> {
    if let Ok(j) = serde_json::from_str::<serde_json::Value>(&file.text) {
        let v = Value::from_json(&j);
        return match v {
            Value::Map(_) => Ok((None, v)),
            _ => Err(error(code, not_a_map, Some((file, 0..0)))),
        };
    }
    let options = LoadOptions::new(Dialect::Heat, limits);
    match crate::yaml::load_with(&file.text, &options) {
        Ok(node) => {
            let v = node.to_value();
            match v {
                Value::Map(_) => Ok((Some(node), v)),
                Value::Null => Ok((Some(node), Value::Map(Map::new()))),
                _ => Err(error(code, not_a_map, Some((file, node.span.clone())))),
            }
        }
        Err(e) => Err(error(code, e.message, Some((file, e.span)))),
    }
}

/// Parse a template.
pub fn parse(
    file: &Arc<SourceFile>,
    max_size: Option<usize>,
    limits: &crate::limits::Limits,
) -> Result<Template, ParseFailure> {
    let limit = max_size.unwrap_or(MAX_TEMPLATE_SIZE);
    if file.text.len() > limit {
        return Err((
            error(
                codes::HOT_TEMPLATE_PARSE,
                format!(
                    "Template size ({} bytes) exceeds maximum allowed size ({limit} bytes).",
                    file.text.len()
                ),
                None,
            ),
            None,
        ));
    }
    let (tree, data) = read_mapping(
        file,
        codes::HOT_TEMPLATE_PARSE,
        "The template is not a JSON object or YAML mapping.",
        limits,
    )
    .map_err(|d| (d, None))?;
    let Value::Map(data) = data else {
        unreachable!("read_mapping returns maps")
    };
    let at = |key: &str| key_span(tree.as_ref(), &[key]).map(|r| (file, r));
    for cfn in ["AWSTemplateFormatVersion", "HeatTemplateFormatVersion"] {
        if data.contains_key(cfn) && !data.contains_key("heat_template_version") {
            return Err((
                error(
                    codes::HOT_TEMPLATE_VERSION,
                    format!("not a HOT template: `{cfn}` marks an AWS CloudFormation (CFN) template, which lowstate does not compile"),
                    at(cfn),
                ),
                None,
            ));
        }
    }
    let Some(raw) = data.get("heat_template_version") else {
        return Err((
            error(
                codes::HOT_TEMPLATE_PARSE,
                "Template format version not found.",
                Some((file, 0..0)),
            ),
            None,
        ));
    };
    let Some(text) = raw.as_str().map(str::to_string) else {
        return Err((
            error(
                codes::HOT_TEMPLATE_VERSION,
                "Template version was not provided",
                at("heat_template_version"),
            ),
            None,
        ));
    };
    let text = text.as_str();
    let version = match KNOWN.iter().find(|(k, _)| *k == text) {
        Some((_, Some(v))) => *v,
        Some((_, None)) => {
            return Err((
                error(
                    codes::HOT_TEMPLATE_VERSION,
                    format!("The template version is invalid: \"heat_template_version: {text}\". lowstate compiles versions 2013-05-23 to 2016-10-14 (newton)"),
                    at("heat_template_version"),
                ),
                Some(text.to_string()),
            ))
        }
        None => {
            let known: Vec<String> = KNOWN.iter().map(|(k, _)| format!("\"{k}\"")).collect();
            return Err((
                error(
                    codes::HOT_TEMPLATE_VERSION,
                    format!(
                        "The template version is invalid: \"heat_template_version: {text}\". \"heat_template_version\" should be one of: {}",
                        known.join(", ")
                    ),
                    at("heat_template_version"),
                ),
                Some(text.to_string()),
            ))
        }
    };
    let t = Template {
        file: file.clone(),
        tree,
        data,
        version,
        version_text: text.to_string(),
        definitions: Default::default(),
    };
    for key in t.data.keys() {
        let k = key.py_str();
        let known = matches!(
            k.as_str(),
            "heat_template_version"
                | "description"
                | "parameter_groups"
                | "parameters"
                | "resources"
                | "outputs"
        ) || (k == "conditions" && version >= Version::V20161014);
        if !known {
            return Err((
                error(
                    codes::HOT_TEMPLATE_STRUCTURE,
                    format!("The template section is invalid: {k}"),
                    t.span(&[&k]).map(|r| (file, r)),
                ),
                Some(t.version_text.clone()),
            ));
        }
    }
    Ok(t)
}

impl Template {
    /// A top-level section as a map (`None` when absent or null).
    pub fn section(&self, name: &str) -> Option<&Value> {
        self.data.get(name).filter(|v| !v.is_null())
    }

    /// The span of the key at `path` (string keys from the root).
    pub fn span(&self, path: &[&str]) -> Option<Range<usize>> {
        key_span(self.tree.as_ref(), path)
    }
}

/// The span of the key at `path` in a YAML tree.
pub fn key_span(tree: Option<&Node>, path: &[&str]) -> Option<Range<usize>> {
    let mut node = tree?;
    let mut span = None;
    for step in path {
        let NodeValue::Map(pairs) = &node.value else {
            return span;
        };
        let (k, v) = pairs
            .iter()
            .find(|(k, _)| matches!(&k.value, NodeValue::Str(s) if s == step))?;
        span = Some(k.span.clone());
        node = v;
    }
    span
}
