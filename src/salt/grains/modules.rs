//! Which modules a minion of the chosen OS loads: Salt 3008.5's
//! `__virtual__` rules for the execution modules that decide what a state
//! tree compiles to (`service`, `pkg`, `at`, which carry `mod_watch`; and
//! `user`, `group`, `cron`, `mount` for the documented table), evaluated
//! against the minion's merged grains and the host facts of its OS profile
//! (booted with systemd, which commands a fresh install has).
//!
//! Salt turns `watch` into `require` when the state module has no
//! `mod_watch` loaded, so a FreeBSD minion (no `service` module in Salt's
//! core) orders `service.running` + `watch` as a `require`. A `__virtual__`
//! that reads a grain the minion does not have fails, and the module does
//! not load, as in Salt's loader.

use super::OsProfile;
use crate::value::{Map, Value};
use std::collections::BTreeSet;

/// What a fresh install of a profile's OS offers the `__virtual__` checks
/// that look at the host rather than the grains.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// `salt.utils.platform`: `linux`, `freebsd`, `darwin` or `windows`.
    pub platform: &'static str,
    /// `salt.utils.systemd.booted`: `/run/systemd/system` exists.
    pub systemd_booted: bool,
    /// Commands on the `PATH` that some `__virtual__` looks for.
    pub commands: Vec<&'static str>,
}

/// The commands some `__virtual__` looks for on the `PATH`.
const COMMANDS: &[&str] = &[
    "systemctl",
    "crontab",
    "at",
    "dnf",
    "yum",
    "zypper",
    "brew",
    "port",
    "launchctl",
    "plutil",
];

/// The host facts of `profile`: its platform from its `kernel`, systemd
/// from its `init`, and the commands its minimal install has (the package
/// manager, `crontab`, `at`, `launchctl`/`plutil`): from its base-system
/// data when it has some (as `cmd.which` answers), else as documented in
/// `docs/minion-model.md`.
pub fn host(profile: &OsProfile) -> Host {
    let grain = |k: &str| profile.grains.get(k).map(Value::py_str).unwrap_or_default();
    let platform = match grain("kernel").as_str() {
        "Windows" => "windows",
        "Darwin" => "darwin",
        "FreeBSD" => "freebsd",
        _ => "linux",
    };
    let commands: &'static [&'static str] =
        match (grain("os_family").as_str(), grain("os").as_str()) {
            ("Debian", _) => &["systemctl", "crontab"],
            ("RedHat", "Amazon") => &["systemctl", "dnf"],
            ("RedHat", _) => &["systemctl", "dnf", "crontab"],
            ("Suse", _) => &["systemctl", "zypper", "crontab"],
            ("Arch", _) => &["systemctl"],
            ("Alpine", _) => &["crontab"],
            ("FreeBSD", _) => &["crontab", "at"],
            ("MacOS", _) => &["launchctl", "plutil", "crontab", "at"],
            _ => &[],
        };
    let commands = match super::base_system(&profile.name) {
        Some(base) => COMMANDS
            .iter()
            .copied()
            .filter(|c| base.which(c).is_some())
            .collect(),
        None => commands.to_vec(),
    };
    Host {
        platform,
        systemd_booted: grain("init") == "systemd",
        commands,
    }
}

/// The virtual modules [`loaded`] decides, in the order the docs list them.
pub const MODULES: &[&str] = &["service", "pkg", "user", "group", "cron", "at", "mount"];

/// A grain as `__grains__[key]` reads it: `None` is Salt's `KeyError`,
/// which makes the module fail to load.
fn strict<'a>(grains: &'a Map, key: &str) -> Option<&'a Value> {
    grains.get(key)
}

/// A grain as a string, `__grains__.get(key)` style (absent → empty).
fn text(grains: &Map, key: &str) -> String {
    grains.get(key).map(Value::py_str).unwrap_or_default()
}

/// `osrelease_info[0]` (`__grains__.get("osrelease_info", [0])[0]`).
fn release_major(grains: &Map) -> i64 {
    match grains.get("osrelease_info") {
        Some(Value::List(l)) => match l.first() {
            Some(Value::Int(i)) => *i,
            _ => 0,
        },
        _ => 0,
    }
}

/// `osrelease_info` as a tuple of integers (missing → `None`).
fn release_info(grains: &Map) -> Option<Vec<i64>> {
    match strict(grains, "osrelease_info")? {
        Value::List(l) => Some(
            l.iter()
                .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                .collect(),
        ),
        _ => None,
    }
}

/// The module Salt loads under the virtual name `module` on this minion
/// (`systemd_service` for `service` on a systemd Linux, ...), or `None`
/// when no module of Salt 3008.5's core loads under that name.
pub fn provider(module: &str, grains: &Map, host: &Host) -> Option<&'static str> {
    let has = |cmd: &str| host.commands.contains(&cmd);
    let windows = host.platform == "windows";
    let darwin = host.platform == "darwin";
    let kernel_in = |names: &[&str]| {
        strict(grains, "kernel").is_some_and(|k| names.contains(&k.py_str().as_str()))
    };
    let os = strict(grains, "os").map(Value::py_str);
    let os_in = |names: &[&str]| os.as_deref().is_some_and(|o| names.contains(&o));
    let candidates: Vec<(&'static str, bool)> = match module {
        // In the loader's order: the files whose name contains `service`,
        // sorted, the first that loads wins.
        "service" => vec![
            (
                "debian_service",
                os_in(&["Debian", "Raspbian", "Devuan", "NILinuxRT"]) && !host.systemd_booted,
            ),
            ("linux_service", linux_service(grains, host)),
            (
                "mac_service",
                darwin
                    && has("launchctl")
                    && has("plutil")
                    && strict(grains, "osrelease")
                        .is_some_and(|r| version_at_least(&r.py_str(), &[10, 11])),
            ),
            ("rh_service", !host.systemd_booted && rh_service(grains)),
            (
                "systemd_service",
                text(grains, "kernel") == "Linux" && (host.systemd_booted || has("systemctl")),
            ),
            (
                "upstart_service",
                !host.systemd_booted && os_in(&["Ubuntu", "Linaro", "elementary OS", "Mint"]),
            ),
            ("win_service", windows),
        ],
        "pkg" => vec![
            ("aptpkg", text(grains, "os_family") == "Debian"),
            ("yumpkg", yumpkg(grains) && (has("dnf") || has("yum"))),
            (
                "zypperpkg",
                text(grains, "os_family") == "Suse" && has("zypper"),
            ),
            (
                "pacmanpkg",
                strict(grains, "os_family").is_some_and(|f| f.py_str() == "Arch"),
            ),
            ("pkgng", pkgng(grains)),
            (
                "mac_brew_pkg",
                os.as_deref() == Some("MacOS") && has("brew"),
            ),
            ("mac_portspkg", darwin && has("port")),
            ("win_pkg", windows),
        ],
        "user" => vec![
            ("useradd", kernel_in(&["Linux", "OpenBSD", "NetBSD", "AIX"])),
            ("pw_user", kernel_in(&["FreeBSD", "DragonFly"])),
            ("mac_user", mac_account(grains)),
            ("win_useradd", windows),
        ],
        "group" => vec![
            ("groupadd", kernel_in(&["Linux", "OpenBSD", "NetBSD"])),
            ("pw_group", kernel_in(&["FreeBSD", "DragonFly"])),
            ("mac_group", mac_account(grains)),
            ("win_groupadd", windows),
        ],
        "cron" => vec![("cron", has("crontab"))],
        "at" => vec![("at", !windows && has("at"))],
        "mount" => vec![("mount", !windows)],
        _ => Vec::new(),
    };
    candidates
        .into_iter()
        .find(|(_, ok)| *ok)
        .map(|(name, _)| name)
}

/// `linux_service.__virtual__`: the sysvinit-style module of a Linux whose
/// OS has no service module of its own (Alpine's OpenRC, ...): not on the
/// OSes it leaves to another module, `kernel` Linux (a missing grain is a
/// `KeyError`), an `init` grain that is absent, `sysvinit` or `unknown`,
/// and not booted with systemd.
fn linux_service(grains: &Map, host: &Host) -> bool {
    const DISABLE: &[&str] = &[
        "RedHat",
        "CentOS",
        "Amazon",
        "ScientificLinux",
        "CloudLinux",
        "Fedora",
        "Gentoo",
        "Ubuntu",
        "Debian",
        "Devuan",
        "ALT",
        "OEL",
        "Linaro",
        "elementary OS",
        "McAfee  OS Server",
        "Raspbian",
        "SUSE",
        "Slackware",
    ];
    match grains.get("os") {
        // `in` a set: a list or dict grain is unhashable, a TypeError.
        Some(Value::List(_) | Value::Map(_)) => return false,
        Some(Value::Str(os)) if DISABLE.contains(&os.as_str()) => return false,
        _ => {}
    }
    let init_ok = match grains.get("init") {
        None | Some(Value::Null) => true,
        Some(Value::Str(init)) => matches!(init.as_str(), "sysvinit" | "unknown"),
        Some(_) => false,
    };
    strict(grains, "kernel").is_some_and(|k| k.as_str() == Some("Linux"))
        && init_ok
        && !host.systemd_booted
}

/// `rh_service.__virtual__` without its systemd test.
fn rh_service(grains: &Map) -> bool {
    let Some(os) = strict(grains, "os").map(Value::py_str) else {
        return false;
    };
    const ENABLE: &[&str] = &[
        "XenServer",
        "XCP-ng",
        "RedHat",
        "CentOS",
        "ScientificLinux",
        "CloudLinux",
        "Amazon",
        "Fedora",
        "ALT",
        "OEL",
        "SUSE  Enterprise Server",
        "SUSE",
        "McAfee  OS Server",
        "VirtuozzoLinux",
    ];
    if !ENABLE.contains(&os.as_str()) {
        return false;
    }
    if os == "SUSE" {
        return text(grains, "osrelease").starts_with("11");
    }
    let major = release_major(grains);
    match os.as_str() {
        "XenServer" | "XCP-ng" => major < 7,
        "Fedora" => major < 15,
        "RedHat" | "CentOS" | "ScientificLinux" | "OEL" | "CloudLinux" => major < 7,
        _ => true,
    }
}

/// `yumpkg.__virtual__`'s grain test (the command test is the caller's).
fn yumpkg(grains: &Map) -> bool {
    let (Some(os), Some(family)) = (strict(grains, "os"), strict(grains, "os_family")) else {
        return false;
    };
    const ENABLED: &[&str] = &[
        "amazon",
        "xcp",
        "xenserver",
        "virtuozzolinux",
        "virtuozzo",
        "issabel pbx",
        "openeuler",
        "vmware photon os",
    ];
    family.py_str().to_lowercase() == "redhat"
        || ENABLED.contains(&os.py_str().to_lowercase().as_str())
}

/// `pkgng.__virtual__`: DragonFly, or FreeBSD 10 and later (`float(osrelease)`).
fn pkgng(grains: &Map) -> bool {
    let Some(kernel) = strict(grains, "kernel") else {
        return false;
    };
    if kernel.py_str() == "DragonFly" {
        return true;
    }
    if strict(grains, "os").map(Value::py_str).as_deref() != Some("FreeBSD") {
        return false;
    }
    match strict(grains, "osrelease") {
        Some(Value::Int(i)) => *i >= 10,
        Some(Value::Float(f)) => *f >= 10.0,
        Some(v) => v.py_str().trim().parse::<f64>().is_ok_and(|f| f >= 10.0),
        None => false,
    }
}

/// `mac_user`/`mac_group.__virtual__`: Darwin with `osrelease_info` ≥ 10.7.
fn mac_account(grains: &Map) -> bool {
    text(grains, "kernel") == "Darwin"
        && release_info(grains).is_some_and(|v| v.as_slice() >= [10, 7].as_slice())
}

/// `Version(text) >= Version(min)` for dotted numeric releases.
fn version_at_least(text: &str, min: &[i64]) -> bool {
    let parts: Vec<i64> = text
        .split('.')
        .map(|p| p.trim().parse::<i64>().unwrap_or(0))
        .collect();
    parts.as_slice() >= min
}

/// State modules of Salt 3008.5's core that define `mod_watch`, each with
/// the execution function its `__virtual__` needs (`None`: it always
/// loads). `etcd` has one too, but only with its Python library; add it
/// with the `mod_watch:` option.
pub const MOD_WATCH_STATES: &[(&str, Option<&str>)] = &[
    ("at", Some("at")),
    ("cmd", None),
    ("event", None),
    ("module", None),
    ("mount", None),
    ("pkg", Some("pkg")),
    ("service", Some("service")),
    ("test", None),
];

/// The state modules that have `mod_watch` on this minion: those of
/// [`MOD_WATCH_STATES`] whose execution module loads.
pub fn mod_watch_states(grains: &Map, host: &Host) -> BTreeSet<String> {
    MOD_WATCH_STATES
        .iter()
        .filter(|(_, needs)| needs.is_none_or(|m| provider(m, grains, host).is_some()))
        .map(|(s, _)| s.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salt::grains::{profile, profiles};

    fn table(name: &str) -> Vec<(&'static str, Option<&'static str>)> {
        let p = profile(name).unwrap();
        let h = host(p);
        MODULES
            .iter()
            .map(|m| (*m, provider(m, &p.grains, &h)))
            .collect()
    }

    #[test]
    fn freebsd_has_pkg_but_no_service() {
        let t = table("freebsd-14");
        assert_eq!(t[0], ("service", None));
        assert_eq!(t[1], ("pkg", Some("pkgng")));
        assert_eq!(t[2], ("user", Some("pw_user")));
        let p = profile("freebsd-14").unwrap();
        let w = mod_watch_states(&p.grains, &host(p));
        assert!(!w.contains("service") && w.contains("pkg") && w.contains("at"));
    }

    #[test]
    fn each_family_gets_salts_provider() {
        let pkg = |n: &str| table(n)[1].1;
        let service = |n: &str| table(n)[0].1;
        assert_eq!(pkg("debian-12"), Some("aptpkg"));
        assert_eq!(pkg("rocky-9"), Some("yumpkg"));
        assert_eq!(pkg("amazon-2023"), Some("yumpkg"));
        assert_eq!(pkg("sles-15"), Some("zypperpkg"));
        assert_eq!(pkg("arch"), Some("pacmanpkg"));
        assert_eq!(pkg("alpine-3.20"), None);
        assert_eq!(pkg("macos-14"), None);
        assert_eq!(pkg("windows-2022"), Some("win_pkg"));
        assert_eq!(service("ubuntu-24.04"), Some("systemd_service"));
        assert_eq!(service("alpine-3.20"), Some("linux_service"));
        assert_eq!(service("macos-14"), Some("mac_service"));
        assert_eq!(service("windows-2022"), Some("win_service"));
        assert_eq!(table("macos-14")[2].1, Some("mac_user"));
        assert_eq!(table("windows-2022")[6].1, None);
        for p in profiles() {
            assert!(
                table(&p.name).iter().any(|(_, v)| v.is_some()),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn a_missing_grain_fails_the_virtual_check() {
        // pkgng reads __grains__["osrelease"]: without it, no pkg module.
        let mut g = Map::new();
        g.insert("os".into(), Value::str("FreeBSD"));
        g.insert("kernel".into(), Value::str("FreeBSD"));
        let h = host(profile("freebsd-14").unwrap());
        assert_eq!(provider("pkg", &g, &h), None);
        g.insert("osrelease".into(), Value::str("14.2"));
        assert_eq!(provider("pkg", &g, &h), Some("pkgng"));
        // yumpkg needs both os and os_family.
        let rocky = host(profile("rocky-9").unwrap());
        let mut r = Map::new();
        r.insert("os_family".into(), Value::str("RedHat"));
        assert_eq!(provider("pkg", &r, &rocky), None);
        r.insert("os".into(), Value::str("Rocky"));
        assert_eq!(provider("pkg", &r, &rocky), Some("yumpkg"));
    }
}
