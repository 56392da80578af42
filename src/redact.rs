//! Redaction of secret values in text people read (spec
//! `layered-inputs.md` §4.4 rules 1–3): every occurrence of a secret's
//! text of four or more characters becomes `<redacted>`, in diagnostics,
//! snippets (template and rendered text), reports and drawings — also when
//! a template built a longer string around it. The front ends say which
//! values are secret; nothing here knows where they came from.

use crate::value::{Map, Value};

/// What a secret prints as.
pub const REDACTED: &str = "<redacted>";

/// The shortest secret text replaced inside other text; shorter values
/// (a `0`, a `yes`) would blank out unrelated words, so only whole values
/// equal to them are masked where the structure is known.
pub const MIN_LEN: usize = 4;

/// A set of secret texts to mask.
#[derive(Debug, Clone)]
pub struct Redactor {
    secrets: Vec<String>,
    mask: &'static str,
}

impl Default for Redactor {
    fn default() -> Redactor {
        Redactor::new(Vec::new())
    }
}

impl Redactor {
    /// A redactor for these secret texts (longest first, so a secret that
    /// contains another is masked whole), masking as [`REDACTED`].
    pub fn new(values: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = values
            .into_iter()
            .filter(|s| s.chars().count() >= MIN_LEN)
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Redactor {
            secrets,
            mask: REDACTED,
        }
    }

    /// The same secrets masked as `mask` instead (a dialect's own
    /// spelling of a hidden value, e.g. Heat's `******`).
    pub fn masking_as(self, mask: &'static str) -> Redactor {
        Redactor { mask, ..self }
    }

    /// More secret texts.
    pub fn extend(&mut self, values: impl IntoIterator<Item = String>) {
        let mut all = std::mem::take(&mut self.secrets);
        all.extend(values);
        *self = Redactor::new(all).masking_as(self.mask);
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), self.mask);
            }
        }
        out
    }

    /// `v` with every string (keys too) redacted.
    pub fn value(&self, v: &Value) -> Value {
        match v {
            Value::Str(s) => Value::str(self.text(s)),
            Value::List(l) => Value::List(l.iter().map(|x| self.value(x)).collect()),
            Value::Map(m) => {
                let mut out = Map::new();
                for (k, x) in m.iter() {
                    out.insert(self.value(k), self.value(x));
                }
                Value::Map(out)
            }
            other => other.clone(),
        }
    }
}

/// `v` with every leaf replaced by [`REDACTED`], its structure kept (a
/// value the front end knows is secret as a whole: short texts, numbers
/// and empty values included).
pub fn mask_leaves(v: &Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.iter().map(|(k, x)| (k.clone(), mask_leaves(x))).collect()),
        Value::List(l) => Value::List(l.iter().map(mask_leaves).collect()),
        _ => Value::str(REDACTED),
    }
}

/// The secrets one run has met so far, shared by whoever finds them (a
/// compile, as soon as the tree has rendered and before later stages can
/// fail) and whoever prints (diagnostics, reports): a handle passed down,
/// cheap to clone, every clone the same set.
#[derive(Debug, Clone, Default)]
pub struct Secrets(std::sync::Arc<std::sync::RwLock<Redactor>>);

impl Secrets {
    /// Add secret texts (shorter than [`MIN_LEN`] ones are dropped).
    pub fn add(&self, values: impl IntoIterator<Item = String>) {
        let mut values = values.into_iter().peekable();
        if values.peek().is_none() {
            return;
        }
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .extend(values);
    }

    /// The secrets met so far.
    pub fn redactor(&self) -> Redactor {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// `text` with every secret met so far masked.
    pub fn text(&self, text: &str) -> String {
        let r = self.0.read().unwrap_or_else(|e| e.into_inner());
        if r.is_empty() {
            text.to_string()
        } else {
            r.text(text)
        }
    }

    /// `v` with every secret met so far masked.
    pub fn value(&self, v: &Value) -> Value {
        self.0.read().unwrap_or_else(|e| e.into_inner()).value(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_inside_other_text_longest_first() {
        let r = Redactor::new([
            "hunter2-pw".to_string(),
            "pw".to_string(),
            "hunter2".to_string(),
        ]);
        assert_eq!(
            r.text("user=app password=hunter2-pw; old=hunter2"),
            "user=app password=<redacted>; old=<redacted>"
        );
        let v =
            crate::yaml::load_value("a: [x-hunter2-pw, 1]", crate::yaml::Dialect::Salt).unwrap();
        assert_eq!(
            r.value(&v).to_json().to_string(),
            r#"{"a":["x-<redacted>",1]}"#
        );
        let heat = r.clone().masking_as("******");
        assert_eq!(heat.text("pw=hunter2 pw"), "pw=****** pw");
        assert_eq!(
            mask_leaves(&v).to_json().to_string(),
            r#"{"a":["<redacted>","<redacted>"]}"#
        );
    }

    #[test]
    fn shared_secrets_are_one_set() {
        let found = Secrets::default();
        let printer = found.clone();
        found.add(["hunter2".to_string(), "pw".to_string()]);
        assert_eq!(printer.text("pw=hunter2"), "pw=<redacted>");
    }
}
