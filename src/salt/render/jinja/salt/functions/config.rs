//! The `config` execution module: `config.get`, `option`, `merge`, `items`,
//! `dot_vals` over opts, grains, pillar and `salt.modules.config.DEFAULTS`.

use super::{map_of, sdb_check, Call};
use crate::salt::dictupdate;
use crate::salt::render::jinja::convert::to_jinja_ordered;
use crate::salt::render::jinja::convert::Shape;
use crate::salt::render::jinja::reads::Source;
use crate::salt::render::jinja::salt::data::traverse;
use crate::salt::render::jinja::salt::{py_error, to_mj, Bound};
use crate::salt::render::jinja::RenderData;
use crate::value::{Map, Value};
use minijinja::value::Value as MjValue;
use minijinja::Error;

/// `salt.modules.config.DEFAULTS` (paths as on a Linux minion).
pub(super) fn config_defaults() -> Value {
    let text = r#"{
        "mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": "",
        "redis.db": "0", "redis.host": "salt", "redis.port": 6379,
        "test.foo": "unconfigured", "ca.cert_base_path": "/etc/pki",
        "solr.cores": [], "solr.host": "localhost", "solr.port": "8983",
        "solr.baseurl": "/solr", "solr.type": "master", "solr.request_timeout": null,
        "solr.init_script": "/etc/rc.d/solr",
        "solr.dih.import_options": {"clean": false, "optimize": true, "commit": true, "verbose": false},
        "solr.backup_path": null, "solr.num_backups": 1,
        "poudriere.config": "/usr/local/etc/poudriere.conf",
        "poudriere.config_dir": "/usr/local/etc/poudriere.d",
        "ldap.uri": "", "ldap.server": "localhost", "ldap.port": "389", "ldap.tls": false,
        "ldap.no_verify": false, "ldap.anonymous": true, "ldap.scope": 2, "ldap.attrs": null,
        "ldap.binddn": "", "ldap.bindpw": "", "hosts.file": "/etc/hosts",
        "aliases.file": "/etc/aliases",
        "virt": {"tunnel": false, "images": "/srv/salt-images"},
        "docker.exec_driver": "docker-exec",
        "docker.compare_container_networks": {
            "static": ["Aliases", "Links", "IPAMConfig"],
            "automatic": ["IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway"]
        }
    }"#;
    serde_json::from_str(text)
        .map(|j| Value::from_json(&j))
        .unwrap_or_default()
}

pub(super) fn pillar_master(data: &RenderData) -> Value {
    data.pillar
        .get("master")
        .cloned()
        .unwrap_or(Value::Map(Map::new()))
}

pub(super) fn config_get(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let key = a.string("key", "")?;
    let delimiter = a.string("delimiter", ":")?;
    let data = c.data;
    let defaults = config_defaults();
    let master = pillar_master(data);
    match a.get("merge")? {
        None | Some(Value::Null) => {
            let sources: [(&str, &Value); 5] = [
                ("omit_opts", &data.opts),
                ("omit_grains", &data.grains),
                ("omit_pillar", &data.pillar),
                ("omit_master", &master),
                ("", &defaults),
            ];
            for (omit, src) in sources {
                if !omit.is_empty() && a.flag(omit, false) {
                    continue;
                }
                if let Some(v) = traverse(src, &key, &delimiter) {
                    if v != &Value::str("_|-") {
                        let found = sdb_check(v.clone())?;
                        // Pillar maps are OrderedDicts (from the YAML renderer);
                        // grains and pillar are Salt's shared objects.
                        return Ok(match omit {
                            "omit_pillar" => c.part(Source::Pillar, v, Shape::Ordered),
                            "omit_master" => to_jinja_ordered(v),
                            "omit_grains" => c.part(Source::Grains, v, Shape::Plain),
                            _ => found,
                        });
                    }
                }
            }
        }
        Some(strategy) => {
            let strategy = match strategy.py_str().as_str() {
                s @ ("recurse" | "overwrite") => s.to_string(),
                _ => "recurse".to_string(),
            };
            let mut merged = defaults;
            for src in [&master, &data.pillar, &data.grains, &data.opts] {
                merged = dictupdate::merge(&merged, src, &strategy, "yaml", false)
                    .map_err(|e| py_error(e.message))?;
            }
            if let Some(v) = traverse(&merged, &key, &delimiter) {
                if v != &Value::str("_|-") {
                    return sdb_check(v.clone());
                }
            }
        }
    }
    Ok(a.raw("default")
        .cloned()
        .unwrap_or_else(|| MjValue::from("")))
}

pub(super) fn config_option(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.get_or("value", Value::Null)?;
    let all = a.flag("omit_all", false);
    let omit = |n: &str| all || a.flag(n, false);
    let wildcard = a.flag("wildcard", false);
    let default = match a.get("default")? {
        None | Some(Value::Null) if wildcard => Value::Map(Map::new()),
        None | Some(Value::Null) => Value::str(""),
        Some(d) => d,
    };
    let data = c.data;
    let master = pillar_master(data);
    let defaults = config_defaults();
    if !wildcard {
        for (flag, src) in [
            ("omit_opts", &data.opts),
            ("omit_grains", &data.grains),
            ("omit_pillar", &data.pillar),
            ("omit_master", &master),
        ] {
            if !omit(flag) {
                if let Some(v) = src.as_map().and_then(|m| m.get(&value)) {
                    return Ok(to_mj(v));
                }
            }
        }
        return Ok(to_mj(
            defaults
                .as_map()
                .and_then(|m| m.get(&value))
                .unwrap_or(&default),
        ));
    }
    let pattern = value.py_str();
    let mut ret = Map::new();
    for (flag, src) in [
        ("omit_master", &master),
        ("omit_pillar", &data.pillar),
        ("omit_grains", &data.grains),
        ("omit_opts", &data.opts),
    ] {
        if !omit(flag) {
            for (k, v) in map_of(src) {
                if crate::fnmatch::fnmatch(&k.py_str(), &pattern) {
                    ret.insert(k, v);
                }
            }
        }
    }
    for (k, v) in map_of(&defaults) {
        if crate::fnmatch::fnmatch(&k.py_str(), &pattern) && !ret.contains_key(&k) {
            ret.insert(k, v);
        }
    }
    Ok(to_mj(&if ret.is_empty() {
        default
    } else {
        Value::Map(ret)
    }))
}

pub(super) fn config_merge(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let value = a.get_or("value", Value::Null)?;
    let data = c.data;
    let master = pillar_master(data);
    let mut ret: Option<Value> = None;
    let mut sources: Vec<&Value> = Vec::new();
    if !a.flag("omit_opts", false) {
        sources.push(&data.opts);
    }
    if !a.flag("omit_master", false) {
        sources.push(&master);
    }
    if !a.flag("omit_pillar", false) {
        sources.push(&data.pillar);
    }
    for src in sources {
        let Some(tmp) = src.as_map().and_then(|m| m.get(&value)) else {
            continue;
        };
        ret = Some(match ret {
            None => {
                if let Value::Str(_) = tmp {
                    return Ok(to_mj(tmp));
                }
                tmp.clone()
            }
            Some(Value::Map(r)) if matches!(tmp, Value::Map(_)) => {
                let mut t = tmp.clone();
                if let Value::Map(t) = &mut t {
                    for (k, v) in r {
                        t.insert(k, v);
                    }
                }
                t
            }
            Some(Value::List(mut r)) if matches!(tmp, Value::List(_)) => {
                r.extend(tmp.as_list().cloned().unwrap_or_default());
                Value::List(r)
            }
            Some(r) => r,
        });
    }
    if let Some(r) = ret {
        return Ok(to_mj(&r));
    }
    if let Some(d) = config_defaults().as_map().and_then(|m| m.get(&value)) {
        return Ok(to_mj(d));
    }
    Ok(a.raw("default")
        .cloned()
        .unwrap_or_else(|| MjValue::from("")))
}

pub(super) fn config_items(c: &mut Call, _a: Bound) -> Result<MjValue, Error> {
    Ok(to_mj(&c.data.opts))
}

pub(super) fn config_dot_vals(c: &mut Call, a: Bound) -> Result<MjValue, Error> {
    let prefix = format!("{}.", a.string("value", "")?);
    let mut ret = Map::new();
    for src in [&pillar_master(c.data), &c.data.opts] {
        for (k, v) in map_of(src) {
            if k.py_str().starts_with(&prefix) {
                ret.insert(k, v);
            }
        }
    }
    Ok(to_mj(&Value::Map(ret)))
}
