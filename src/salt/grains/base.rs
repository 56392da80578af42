//! The base system of an OS profile, from the distribution's own package
//! data (`tests/data/grains/gen-base-archive`): its base packages with
//! versions, executables, files, systemd services, users and groups. The
//! fresh-minion answers (`pkg.version`, `cmd.which`, `user.info`, ...)
//! answer from it; a profile without data answers as an empty system.

use crate::value::{Map, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// One profile's base system.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BaseSystem {
    /// The profile it belongs to.
    pub profile: String,
    /// Where the data came from, said in docs and warnings.
    pub source: String,
    /// Package name → version.
    pub packages: Map,
    /// Executables, by path.
    pub executables: BTreeSet<String>,
    /// Files, by path.
    pub files: BTreeSet<String>,
    /// systemd services, by unit name without `.service`.
    pub services: BTreeSet<String>,
    /// Users: name → base-passwd's fields.
    pub users: Map,
    /// Groups: name → base-passwd's fields.
    pub groups: Map,
}

/// The generated data files, by profile.
const DATA: &[(&str, &str)] = &[
    ("debian-11", include_str!("base/debian-11.json")),
    ("debian-12", include_str!("base/debian-12.json")),
    ("debian-13", include_str!("base/debian-13.json")),
    ("ubuntu-20.04", include_str!("base/ubuntu-20.04.json")),
    ("ubuntu-22.04", include_str!("base/ubuntu-22.04.json")),
    ("ubuntu-24.04", include_str!("base/ubuntu-24.04.json")),
];

/// The base system of `profile`, when there is data for it. Each file is
/// parsed the first time its profile is asked for, not the others with
/// it: every compile asks for its own profile's (which modules load).
pub fn base_system(profile: &str) -> Option<&'static BaseSystem> {
    static PARSED: [OnceLock<Option<BaseSystem>>; DATA.len()] =
        [const { OnceLock::new() }; DATA.len()];
    let i = DATA.iter().position(|(p, _)| *p == profile)?;
    PARSED[i]
        .get_or_init(|| parse(DATA[i].1))
        .as_ref()
        .filter(|b| b.profile == profile)
}

/// The profiles that have base-system data.
pub fn profiles_with_data() -> Vec<&'static str> {
    DATA.iter().map(|(p, _)| *p).collect()
}

fn parse(text: &str) -> Option<BaseSystem> {
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    let v = Value::from_json(&json);
    let m = v.as_map()?;
    let text_of = |k: &str| m.get(k).map(Value::py_str).unwrap_or_default();
    let set = |k: &str| -> BTreeSet<String> {
        m.get(k)
            .and_then(Value::as_list)
            .map(|l| l.iter().map(Value::py_str).collect())
            .unwrap_or_default()
    };
    let map = |k: &str| {
        m.get(k)
            .and_then(Value::as_map)
            .cloned()
            .unwrap_or_default()
    };
    Some(BaseSystem {
        profile: text_of("profile"),
        source: text_of("source"),
        packages: map("packages"),
        executables: set("executables"),
        files: set("files"),
        services: set("services"),
        users: map("users"),
        groups: map("groups"),
    })
}

/// A minion's `PATH` (as a service manager starts it), searched in order.
const PATH: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

fn int_field(m: &Map, k: &str) -> Value {
    let text = m.get(k).map(Value::py_str).unwrap_or_default();
    text.parse::<i64>().map_or(Value::str(text), Value::Int)
}

impl BaseSystem {
    /// `cmd.which`: the path of `cmd` on the `PATH`, or `None`.
    pub fn which(&self, cmd: &str) -> Option<String> {
        if cmd.contains('/') {
            return self.executables.contains(cmd).then(|| cmd.to_string());
        }
        PATH.iter()
            .map(|d| format!("{d}/{cmd}"))
            .find(|p| self.executables.contains(p))
    }

    /// `user.info(name)` as Salt's `useradd` module returns it (`{}` when
    /// there is no such user).
    pub fn user_info(&self, name: &str) -> Value {
        let Some(u) = self.users.get(name).and_then(Value::as_map) else {
            return Value::Map(Map::new());
        };
        let gid = int_field(u, "gid");
        let group = self
            .groups
            .iter()
            .find(|(_, g)| g.as_map().is_some_and(|g| int_field(g, "gid") == gid))
            .map(|(n, _)| n.clone());
        let mut m = Map::new();
        let s = |k: &str| Value::str(u.get(k).map(Value::py_str).unwrap_or_default());
        m.insert("fullname".into(), s("fullname"));
        m.insert("gid".into(), gid);
        m.insert("groups".into(), Value::List(group.into_iter().collect()));
        m.insert("home".into(), s("home"));
        m.insert("homephone".into(), Value::str(""));
        m.insert("name".into(), Value::str(name));
        m.insert("other".into(), Value::str(""));
        m.insert("passwd".into(), Value::str("x"));
        m.insert("roomnumber".into(), Value::str(""));
        m.insert("shell".into(), s("shell"));
        m.insert("uid".into(), int_field(u, "uid"));
        m.insert("workphone".into(), Value::str(""));
        Value::Map(m)
    }

    /// `group.info(name)` as Salt's `groupadd` module returns it (`{}` when
    /// there is no such group).
    pub fn group_info(&self, name: &str) -> Value {
        let Some(g) = self.groups.get(name).and_then(Value::as_map) else {
            return Value::Map(Map::new());
        };
        let mut m = Map::new();
        m.insert("gid".into(), int_field(g, "gid"));
        m.insert("members".into(), Value::List(Default::default()));
        m.insert("name".into(), Value::str(name));
        m.insert("passwd".into(), Value::str("x"));
        Value::Map(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_12_has_its_base_system() {
        let b = base_system("debian-12").expect("debian-12 data");
        // Merged /usr: `salt-call cmd.which sh` on Debian 12 says /usr/bin/sh.
        assert_eq!(b.which("sh"), Some("/usr/bin/sh".to_string()));
        assert_eq!(b.which("/bin/sh"), Some("/bin/sh".to_string()));
        assert_eq!(b.which("git"), None);
        assert!(b.files.contains("/etc/os-release"));
        // Made by tzdata's maintainer scripts, in no package's contents.
        assert!(b.files.contains("/etc/localtime"));
        assert!(b.packages.contains_key("dpkg"));
        let www = b.user_info("www-data");
        assert_eq!(www.get("uid"), Some(&Value::Int(33)));
        assert_eq!(www.get("home"), Some(&Value::str("/var/www")));
        assert_eq!(b.user_info("nosuch"), Value::Map(Map::new()));
        assert_eq!(b.group_info("root").get("gid"), Some(&Value::Int(0)));
        assert!(base_system("freebsd-14").is_none());
    }

    #[test]
    fn every_data_file_parses_as_its_profile() {
        for (name, _) in DATA {
            let b = base_system(name).unwrap_or_else(|| panic!("{name} data"));
            assert!(
                crate::salt::grains::profile(name).is_some(),
                "{name} is a profile"
            );
            assert!(b.packages.contains_key("base-files"), "{name}");
            assert!(b.files.contains("/etc/os-release"), "{name}");
            assert_eq!(
                b.user_info("root").get("uid"),
                Some(&Value::Int(0)),
                "{name}"
            );
        }
        let noble = base_system("ubuntu-24.04").expect("ubuntu-24.04 data");
        assert_eq!(noble.which("sh"), Some("/usr/bin/sh".to_string()));
        assert!(noble.packages.contains_key("ubuntu-minimal"));
    }
}
