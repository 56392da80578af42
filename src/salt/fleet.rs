//! Fleets: the minion lists `lowstate fleet` reads (in the forms Salt
//! users already have), the stable shards that spread one fleet over
//! several machines, and the work the minions of one run share ([`Fleet`]:
//! the fileservers, the built Jinja environments and the render caches of
//! [`crate::salt::share`], for states, top files and pillar). Compiling each minion is the pipeline's job.

use crate::diag::{codes, Diagnostic};
use crate::salt::config::Config;
use crate::salt::fileserver::FileServer;
use crate::salt::render::jinja::Environments;
use crate::salt::share::{CacheStats, Dep, RenderShare};
use crate::value::{Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The shared work of a fleet run, grouped by settings: minions whose
/// config (apart from id and grains) and options (apart from the pillar
/// override) are equal share one [`FleetShare`]
/// (`Session::in_fleet` says which settings count).
pub struct Fleet {
    verify: bool,
    /// (settings, settings with the config directory left out, share).
    shares: Mutex<Vec<(String, String, Arc<FleetShare>)>>,
}

impl Fleet {
    /// A fleet run. With `verify`, every cache hit is also rendered afresh
    /// and a difference fails that minion with an internal error naming
    /// the file and the minion (for tests).
    pub fn new(verify: bool) -> Fleet {
        Fleet {
            verify,
            shares: Mutex::new(Vec::new()),
        }
    }

    /// The share of the minions whose settings are `settings` (made from
    /// `config` the first time). `portable` is the same settings with the
    /// config directory left out: a new share takes the first share of
    /// another tree with equal `portable` settings as its twin (the other
    /// side of `fleet --diff`), and reuses its renders where every file
    /// they read is the same in both trees.
    pub fn share_for(
        &self,
        settings: String,
        portable: String,
        config: &Config,
    ) -> Arc<FleetShare> {
        let mut shares = self.shares.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, s)) = shares.iter().find(|(k, _, _)| *k == settings) {
            return s.clone();
        }
        let mut share = FleetShare::new(config, self.verify);
        share.twin = shares
            .iter()
            .find(|(_, p, _)| *p == portable)
            .map(|(_, _, s)| TwinShare {
                share: s.clone(),
                same: Mutex::default(),
            });
        let share = Arc::new(share);
        shares.push((settings, portable, share.clone()));
        share
    }

    /// Render cache counts over every share so far.
    pub fn stats(&self) -> CacheStats {
        let shares = self.shares.lock().unwrap_or_else(|e| e.into_inner());
        let mut total = CacheStats::default();
        for (_, _, s) in shares.iter() {
            total.add(&s.sls.stats());
            total.add(&s.tops.stats());
            total.add(&s.pillar.stats());
        }
        total
    }
}

/// What the minions of one settings group share.
pub struct FleetShare {
    /// The fileserver over `file_roots`.
    pub fs: Arc<FileServer>,
    /// Built Jinja environments (SLS and top file options).
    pub envs: Arc<Environments>,
    /// Rendered SLS files.
    pub sls: RenderShare<crate::salt::high::prepare::SlsRender>,
    /// Rendered top files (and the SLS their `include`s name).
    pub tops: RenderShare<Result<Option<Value>, Diagnostic>>,
    /// The pillar's fileserver and renders.
    pub pillar: crate::salt::pillar::PillarShare,
    /// Render every hit afresh too and compare.
    pub verify: bool,
    /// The share of the other tree with the same settings, if any.
    pub twin: Option<TwinShare>,
}

/// The other tree's share, and which files read the same in both trees
/// (each file compared once).
pub struct TwinShare {
    /// The other tree's share.
    pub share: Arc<FleetShare>,
    same: Mutex<HashMap<(bool, String, String), bool>>,
}

impl FleetShare {
    /// Whether `dep` reads the same in this share's tree and its twin's
    /// (false without a twin).
    pub fn same_in_twin(&self, dep: Dep) -> bool {
        let Some(twin) = &self.twin else {
            return false;
        };
        let key = match dep {
            Dep::Sls(env, sls) => (true, env.to_string(), sls.to_string()),
            Dep::File(env, rel) => (false, env.to_string(), rel.to_string()),
        };
        if let Some(same) = twin
            .same
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return *same;
        }
        let (this, other) = (&self.fs, &twin.share.fs);
        let same = match dep {
            Dep::Sls(env, sls) => match (this.find_sls(env, sls), other.find_sls(env, sls)) {
                (Some(a), Some(b)) => {
                    a.rel == b.rel
                        && matches!((this.read_sls(&a), other.read_sls(&b)), (Ok(x), Ok(y)) if x == y)
                }
                (None, None) => true,
                _ => false,
            },
            Dep::File(env, rel) => match (this.find_file(env, rel), other.find_file(env, rel)) {
                (Some(a), Some(b)) => {
                    matches!((this.read_path(&a), other.read_path(&b)), (Ok(x), Ok(y)) if x == y)
                }
                (None, None) => {
                    this.refused_link(env, rel).is_none() && other.refused_link(env, rel).is_none()
                }
                _ => false,
            },
        };
        twin.same
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, same);
        same
    }
}

impl FleetShare {
    /// The share of the compiles with `config`'s settings (a fleet's
    /// group, or the compiles of one editor session).
    pub fn new(config: &Config, verify: bool) -> FleetShare {
        FleetShare {
            fs: Arc::new(FileServer::with_links(
                &config.file_roots,
                &config.link_policy(),
            )),
            envs: Arc::default(),
            sls: RenderShare::default(),
            tops: RenderShare::default(),
            pillar: crate::salt::pillar::PillarShare::new(config, verify),
            verify,
            twin: None,
        }
    }
}

/// One minion of a fleet: its id, its grains and, optionally, pillar data
/// merged over the compiled pillar (as `--pillar` is).
#[derive(Debug, Clone, PartialEq)]
pub struct FleetMinion {
    /// The minion id.
    pub id: String,
    /// Its grains (a mapping).
    pub grains: Value,
    /// Pillar overrides (a mapping), if any.
    pub pillar: Option<Value>,
}

fn bad(path: &Path, why: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(
        codes::CONFIG,
        format!("minion list {}: {why}", path.display()),
    )
}

/// Read a minion list from `path`, in any of three forms:
///
/// - the output of `salt '*' grains.items --out=json`: a stream of JSON
///   objects `{id: grains}` (one per minion, or one for all with
///   `--static`);
/// - a directory of `<id>.json` grains files (JSON or YAML; a file holding
///   `{"local": grains}` or `{id: grains}` is unwrapped, as
///   `salt-call grains.items --out=json` prints it);
/// - a YAML (or JSON) list of `{id, grains, pillar}` mappings.
///
/// Minions come back sorted by id; an id given twice is an error.
pub fn read_minions(path: &Path) -> Result<Vec<FleetMinion>, Diagnostic> {
    let mut minions = if path.is_dir() {
        read_dir(path)?
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| bad(path, e))?;
        parse_minions(&text).map_err(|why| bad(path, why))?
    };
    minions.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(w) = minions.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(bad(path, format!("minion `{}` is listed twice", w[0].id)));
    }
    Ok(minions)
}

/// The minions of a list's text (the file forms of [`read_minions`]).
pub fn parse_minions(text: &str) -> Result<Vec<FleetMinion>, String> {
    let trimmed = text.trim_start();
    // A stream of JSON objects: Salt's `--out=json` for many minions.
    if trimmed.starts_with('{') {
        let mut out = Vec::new();
        for item in serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>() {
            let item =
                item.map_err(|e| format!("not a JSON stream of {{id: grains}} objects: {e}"))?;
            let Value::Map(m) = Value::from_json(&item) else {
                return Err("each JSON object must map minion ids to grains".into());
            };
            for (id, grains) in m {
                out.push(minion(id.py_str(), grains, None)?);
            }
        }
        return Ok(out);
    }
    let value = crate::yaml::load_value(text, crate::yaml::Dialect::Salt).map_err(|e| e.message)?;
    let Value::List(items) = value else {
        return Err(
            "expected `salt '*' grains.items --out=json` output or a list of {id, grains, pillar}"
                .into(),
        );
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let m = item
                .as_map()
                .ok_or_else(|| format!("entry {} is not a mapping", i + 1))?;
            let id = match m.get("id") {
                Some(Value::Str(s)) => s.to_string(),
                Some(v @ (Value::Int(_) | Value::Float(_) | Value::Bool(_))) => v.py_str(),
                _ => return Err(format!("entry {} has no `id`", i + 1)),
            };
            let grains = m.get("grains").cloned().unwrap_or(Value::Map(Map::new()));
            minion(id, grains, m.get("pillar").cloned())
        })
        .collect()
}

fn minion(id: String, grains: Value, pillar: Option<Value>) -> Result<FleetMinion, String> {
    if id.is_empty() || id.contains('/') || id == "." || id == ".." {
        return Err(format!("`{id}` is not a usable minion id"));
    }
    if !matches!(grains, Value::Map(_)) {
        return Err(format!("the grains of `{id}` are not a mapping"));
    }
    if pillar
        .as_ref()
        .is_some_and(|p| !matches!(p, Value::Map(_) | Value::Null))
    {
        return Err(format!("the pillar of `{id}` is not a mapping"));
    }
    Ok(FleetMinion {
        id,
        grains,
        pillar: pillar.filter(|p| !p.is_null()),
    })
}

fn read_dir(dir: &Path) -> Result<Vec<FleetMinion>, Diagnostic> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| bad(dir, e))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") || !path.is_file() {
            continue;
        }
        let Some(id) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).map_err(|e| bad(&path, e))?;
        let value = crate::yaml::load_value(&text, crate::yaml::Dialect::Salt)
            .map_err(|e| bad(&path, e.message))?;
        // `salt-call grains.items --out=json` prints {"local": {...}};
        // `salt ID grains.items --out=json` prints {ID: {...}}.
        let grains = match value {
            Value::Map(m) if m.len() == 1 && (m.contains_key("local") || m.contains_key(id)) => {
                m.into_iter().next().map(|(_, v)| v).unwrap_or_default()
            }
            v => v,
        };
        out.push(minion(id.to_string(), grains, None).map_err(|why| bad(&path, why))?);
    }
    Ok(out)
}

/// A `--shard K/N` selection: minion ids fall into N stable slices by a
/// hash of the id (FNV-1a), so adding or removing a minion never moves
/// another one to a different shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K, from 1.
    pub index: u64,
    /// N.
    pub count: u64,
}

impl Shard {
    /// Parse `K/N` (1 ≤ K ≤ N).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: expected K/N, e.g. 2/8"))?;
        let k: u64 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: K is not a number"))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: N is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("`{s}`: K must be between 1 and N"));
        }
        Ok(Shard { index: k, count: n })
    }

    /// Whether minion `id` belongs to this shard.
    pub fn holds(&self, id: &str) -> bool {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in id.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        // A shard built by hand with K = 0 or N = 0 holds nothing.
        self.count > 0 && self.index > 0 && h % self.count == self.index - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salt_json_stream_and_static_object_and_yaml_list() {
        let stream =
            "{\n  \"web1\": {\"os\": \"Debian\"}\n}\n{\n  \"db1\": {\"os\": \"RedHat\"}\n}\n";
        let m = parse_minions(stream).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].id, "db1");
        let one = r#"{"web1": {"os": "Debian"}, "db1": {"os": "RedHat"}}"#;
        assert_eq!(parse_minions(one).unwrap().len(), 2);
        let yaml = "- id: web1\n  grains: {os: Debian}\n  pillar: {role: web}\n- id: 7\n";
        let m = parse_minions(yaml).unwrap();
        assert_eq!(m[0].pillar, Some(crate::vmap! {"role" => "web"}));
        assert_eq!(m[1].id, "7");
        assert_eq!(m[1].grains, Value::Map(Map::new()));
    }

    #[test]
    fn bad_lists_say_why() {
        assert!(parse_minions("- {grains: {}}\n")
            .unwrap_err()
            .contains("no `id`"));
        assert!(parse_minions(r#"{"a/b": {}}"#)
            .unwrap_err()
            .contains("not a usable"));
        assert!(parse_minions(r#"{"a": 1}"#)
            .unwrap_err()
            .contains("not a mapping"));
        assert!(parse_minions("just text").is_err());
    }

    #[test]
    fn shards_partition_the_fleet_stably() {
        let ids: Vec<String> = (0..1000).map(|i| format!("minion{i}")).collect();
        let shards: Vec<Shard> = (1..=4).map(|k| Shard { index: k, count: 4 }).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.holds(id)).count(), 1, "{id}");
        }
        let first = ids.iter().filter(|id| shards[0].holds(id)).count();
        assert!((150..350).contains(&first), "{first}");
        assert!(Shard::parse("0/4").is_err() && Shard::parse("5/4").is_err());
        assert_eq!(Shard::parse("2/8").unwrap(), Shard { index: 2, count: 8 });
    }
}
