//! Salt's address tests and filters (`is_ip`, `is_ipv4`, `is_ipv6`,
//! `ipaddr`, `ipv4`, `ipv6`, `ip_host`, `network_hosts`, `network_size`,
//! `ipwrap`, from `salt/utils/network.py`), on the rules of the Python
//! `ipaddress` module Salt 3008.5 runs on (3.11): what parses as an address
//! or an interface, and how it prints.

use super::filters::with_value;
use super::py::print::py_str;
use super::salt::{bind, py_error, Bound};
use minijinja::value::{Kwargs, Rest, Value as MjValue, ValueKind};
use minijinja::{Environment, Error};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Register the tests-as-filters and filters of this module.
pub(super) fn register(env: &mut Environment<'static>) {
    for (name, version) in [("is_ip", None), ("is_ipv4", Some(4)), ("is_ipv6", Some(6))] {
        env.add_filter(
            name,
            move |v: MjValue, args: Rest<MjValue>, kwargs: Kwargs| {
                let a = bind(name, "ip_addr, options=", &with_value(v, args, kwargs)?)?;
                let ip = a.raw("ip_addr").and_then(PyIp::of);
                is_ip(ip.as_ref(), version, a.raw("options"))
            },
        );
    }
    for (name, version) in [("ipaddr", None), ("ipv4", Some(4)), ("ipv6", Some(6))] {
        env.add_filter(
            name,
            move |v: MjValue, args: Rest<MjValue>, kwargs: Kwargs| {
                let a = bind(name, "value, options=", &with_value(v, args, kwargs)?)?;
                let (value, options) = value_and_options(&a);
                Ok(match version {
                    Some(version) => ipv_filter(&value, version, options.as_ref())?,
                    None => ipaddr(&value, options.as_ref())?,
                }
                .map_or(MjValue::from(()), Filtered::into_value))
            },
        );
    }
    env.add_filter(
        "ip_host",
        |v: MjValue, args: Rest<MjValue>, kwargs: Kwargs| {
            per_entry("ip_host", v, args, kwargs, |ip| {
                Ok(MjValue::from(ip.interface()))
            })
        },
    );
    env.add_filter(
        "network_hosts",
        |v: MjValue, args: Rest<MjValue>, kwargs: Kwargs| {
            per_entry("network_hosts", v, args, kwargs, network_hosts)
        },
    );
    env.add_filter(
        "network_size",
        |v: MjValue, args: Rest<MjValue>, kwargs: Kwargs| {
            per_entry("network_size", v, args, kwargs, |ip| match ip.network().1 {
                // 2**128 addresses: past what a number holds here.
                0 => Err(py_error(format!(
                    "network_size: {} has 2**128 addresses, past what lowstate can count",
                    ip.text()
                ))),
                n => Ok(MjValue::from(n)),
            })
        },
    );
    env.add_filter("ipwrap", |v: MjValue| ipwrap(&v));
}

fn value_and_options(a: &Bound) -> (MjValue, Option<MjValue>) {
    let value = a.raw("value").cloned().unwrap_or_default();
    (value, a.raw("options").cloned())
}

/// An address or interface as `ipaddress.ip_address(v)`, else
/// `ip_interface(v)`, reads it.
#[derive(Debug, Clone, PartialEq)]
struct PyIp {
    ip: IpAddr,
    /// An IPv6 scope id (`fe80::1%eth0`).
    scope: Option<String>,
    /// The prefix length, for an interface.
    prefix: Option<u8>,
}

impl PyIp {
    /// An address (an integer, `bool` too, reads as one), or an address
    /// with a prefix length or netmask.
    fn of(v: &MjValue) -> Option<PyIp> {
        let n: i128 = match v.kind() {
            ValueKind::Bool => i128::from(v.is_true()),
            ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).ok()?,
            ValueKind::String => return PyIp::parse(v.as_str()?),
            _ => return None,
        };
        let ip = if n < 0 {
            return None;
        } else if let Ok(n) = u32::try_from(n) {
            IpAddr::V4(Ipv4Addr::from(n))
        } else {
            IpAddr::V6(Ipv6Addr::from(u128::try_from(n).ok()?))
        };
        Some(PyIp {
            ip,
            scope: None,
            prefix: None,
        })
    }

    /// `ip_address(s)`, else `ip_interface(s)`.
    fn parse(s: &str) -> Option<PyIp> {
        let (addr, suffix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let (bare, scope) = match addr.split_once('%') {
            Some((a, scope)) if !scope.is_empty() && !scope.contains('%') && a.contains(':') => {
                (a, Some(scope.to_string()))
            }
            Some(_) => return None,
            None => (addr, None),
        };
        let ip: IpAddr = bare.parse().ok()?;
        let prefix = match suffix {
            None => None,
            Some(p) => Some(prefix_of(&ip, p)?),
        };
        Some(PyIp { ip, scope, prefix })
    }

    fn bits(&self) -> u8 {
        if self.ip.is_ipv4() {
            32
        } else {
            128
        }
    }

    fn prefix_len(&self) -> u8 {
        self.prefix.unwrap_or(self.bits())
    }

    fn version(&self) -> u8 {
        if self.ip.is_ipv4() {
            4
        } else {
            6
        }
    }

    /// `str(address)` (with the scope id), without a prefix.
    fn address(&self) -> String {
        let mut s = addr_str(&self.ip);
        if let Some(scope) = &self.scope {
            s.push('%');
            s.push_str(scope);
        }
        s
    }

    /// `str()` of what was read: an address, or `addr/prefixlen`.
    fn text(&self) -> String {
        match self.prefix {
            None => self.address(),
            Some(p) => format!("{}/{p}", self.address()),
        }
    }

    /// `str(ipaddress.ip_interface(str(self)))`: always with a prefix.
    fn interface(&self) -> String {
        format!("{}/{}", self.address(), self.prefix_len())
    }

    /// The network `ip_network(self, strict=False)` covers: its first
    /// address and its size.
    fn network(&self) -> (u128, u128) {
        let host = self.bits() - self.prefix_len();
        let n = match self.ip {
            IpAddr::V4(a) => u128::from(u32::from(a)),
            IpAddr::V6(a) => u128::from(a),
        };
        let mask = if host >= 128 { 0 } else { !0u128 << host };
        (
            n & mask,
            1u128 << u32::from(host).min(127) << u32::from(host == 128),
        )
    }
}

/// `str()` of an address as Python prints it: IPv6 lower-case, the longest
/// run of two or more zero groups (the first of equal runs) as `::`, and no
/// dotted form for IPv4-mapped addresses.
fn addr_str(ip: &IpAddr) -> String {
    let a = match ip {
        IpAddr::V4(a) => return a.to_string(),
        IpAddr::V6(a) => a.segments(),
    };
    let (mut best, mut best_len, mut run) = (0usize, 0usize, 0usize);
    for (i, &g) in a.iter().enumerate() {
        run = if g == 0 { run + 1 } else { 0 };
        if run > best_len {
            best_len = run;
            best = i + 1 - run;
        }
    }
    let hex = |gs: &[u16]| {
        gs.iter()
            .map(|g| format!("{g:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if best_len < 2 {
        return hex(&a);
    }
    format!("{}::{}", hex(&a[..best]), hex(&a[best + best_len..]))
}

/// A prefix length (ASCII digits only) or, for IPv4, a netmask or hostmask
/// in dotted form.
fn prefix_of(ip: &IpAddr, p: &str) -> Option<u8> {
    let max = if ip.is_ipv4() { 32 } else { 128 };
    if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
        return p.parse::<u8>().ok().filter(|&n| n <= max);
    }
    if !ip.is_ipv4() {
        return None;
    }
    let m = u32::from(p.parse::<Ipv4Addr>().ok()?);
    // A netmask is ones then zeros; a hostmask zeros then ones.
    if m.leading_ones() + m.trailing_zeros() == 32 {
        Some(m.leading_ones() as u8)
    } else if m.leading_zeros() + m.trailing_ones() == 32 {
        Some(m.leading_zeros() as u8)
    } else {
        None
    }
}

/// Python 3.11's `_IPv4Constants._private_networks`.
const V4_PRIVATE: &[(&str, u8)] = &[
    ("0.0.0.0", 8),
    ("10.0.0.0", 8),
    ("127.0.0.0", 8),
    ("169.254.0.0", 16),
    ("172.16.0.0", 12),
    ("192.0.0.0", 29),
    ("192.0.0.170", 31),
    ("192.0.2.0", 24),
    ("192.168.0.0", 16),
    ("198.18.0.0", 15),
    ("198.51.100.0", 24),
    ("203.0.113.0", 24),
    ("240.0.0.0", 4),
    ("255.255.255.255", 32),
];

/// Python 3.11's `_IPv6Constants._private_networks`.
const V6_PRIVATE: &[(&str, u8)] = &[
    ("::1", 128),
    ("::", 128),
    ("::ffff:0:0", 96),
    ("100::", 64),
    ("2001::", 23),
    ("2001:2::", 48),
    ("2001:db8::", 32),
    ("2001:10::", 28),
    ("fc00::", 7),
    ("fe80::", 10),
];

/// Python 3.11's `_IPv6Constants._reserved_networks`.
const V6_RESERVED: &[(&str, u8)] = &[
    ("::", 8),
    ("100::", 8),
    ("200::", 7),
    ("400::", 6),
    ("800::", 5),
    ("1000::", 4),
    ("4000::", 3),
    ("6000::", 3),
    ("8000::", 3),
    ("a000::", 3),
    ("c000::", 3),
    ("e000::", 4),
    ("f000::", 5),
    ("f800::", 6),
    ("fe00::", 9),
];

impl PyIp {
    /// Is the address in one of `nets` (of its own version)?
    fn in_any(&self, nets: &[(&str, u8)]) -> bool {
        nets.iter()
            .any(|&(net, len)| match (self.ip, net.parse::<IpAddr>()) {
                (IpAddr::V4(a), Ok(IpAddr::V4(n))) => {
                    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                    u32::from(a) & mask == u32::from(n)
                }
                (IpAddr::V6(a), Ok(IpAddr::V6(n))) => {
                    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                    u128::from(a) & mask == u128::from(n)
                }
                _ => false,
            })
    }

    /// `is_private`; an IPv4-mapped IPv6 address answers for its IPv4 one.
    fn is_private(&self) -> bool {
        match self.ip {
            IpAddr::V4(_) => self.in_any(V4_PRIVATE),
            IpAddr::V6(a) => match a.segments() {
                [0, 0, 0, 0, 0, 0xffff, hi, lo] => PyIp {
                    ip: IpAddr::V4(Ipv4Addr::from(u32::from(hi) << 16 | u32::from(lo))),
                    scope: None,
                    prefix: None,
                }
                .in_any(V4_PRIVATE),
                _ => self.in_any(V6_PRIVATE),
            },
        }
    }
}

/// `is_ip`/`is_ipv4`/`is_ipv6`: read, of the asked version, passing the
/// `options` checks.
fn is_ip(ip: Option<&PyIp>, version: Option<u8>, options: Option<&MjValue>) -> Result<bool, Error> {
    match ip {
        Some(ip) if version.is_none_or(|v| v == ip.version()) => options_hold(ip, options),
        _ => Ok(false),
    }
}

/// `_ip_options`: every named check holds (unknown names are ignored).
fn options_hold(ip: &PyIp, options: Option<&MjValue>) -> Result<bool, Error> {
    let Some(options) = options.filter(|o| o.is_true()) else {
        return Ok(true);
    };
    let text = py_str(options);
    for option in text.split(',').map(str::trim) {
        let ok = match option {
            // Salt's `_ip_options_global` is `not is_private`.
            "global" | "public" => !ip.is_private(),
            "link-local" | "linklocal" | "ll" | "link_local" => {
                ip.in_any(&[("169.254.0.0", 16), ("fe80::", 10)])
            }
            "loopback" | "lo" => match (ip.ip, ip.prefix) {
                // An IPv6 interface is loopback only as `::1/128`.
                (IpAddr::V6(_), Some(p)) if p < 128 => false,
                (a, _) => a.is_loopback(),
            },
            "multicast" => ip.ip.is_multicast(),
            "private" => ip.is_private(),
            "reserved" => match ip.ip {
                IpAddr::V4(_) => ip.in_any(&[("240.0.0.0", 4)]),
                IpAddr::V6(_) => ip.in_any(V6_RESERVED),
            },
            "site-local" | "sl" | "site_local" => ip.in_any(&[("fec0::", 10)]),
            // An IPv4 interface never equals `0.0.0.0`; an IPv6 one is
            // unspecified only as `::/128`.
            "unspecified" => match (ip.ip, ip.prefix) {
                (IpAddr::V4(_), Some(_)) => false,
                (IpAddr::V6(_), Some(p)) if p < 128 => false,
                (a, _) => a.is_unspecified(),
            },
            _ => true,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `_is_ipv(v, version, options)`: what was read, if it is of `version`
/// and passes the options.
fn is_ipv(v: &MjValue, version: u8, options: Option<&MjValue>) -> Result<Option<PyIp>, Error> {
    match PyIp::of(v) {
        Some(ip) if ip.version() == version && options_hold(&ip, options)? => Ok(Some(ip)),
        _ => Ok(None),
    }
}

/// What `ipv4`/`ipv6`/`ipaddr` give: one address for a string, the
/// matching ones for a list.
enum Filtered {
    One(PyIp),
    Many(Vec<PyIp>),
}

impl Filtered {
    fn into_value(self) -> MjValue {
        match self {
            Filtered::One(ip) => MjValue::from(ip.text()),
            Filtered::Many(ips) => ips.iter().map(|ip| MjValue::from(ip.text())).collect(),
        }
    }

    fn entries(self) -> Vec<PyIp> {
        match self {
            Filtered::One(ip) => vec![ip],
            Filtered::Many(ips) => ips,
        }
    }
}

/// A value `_ipv_filter` takes item by item: a list, tuple or iterator.
fn is_list(v: &MjValue) -> bool {
    matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable)
}

/// `_ipv_filter`: a string is read; a list keeps its items of `version`;
/// anything else is None.
fn ipv_filter(
    v: &MjValue,
    version: u8,
    options: Option<&MjValue>,
) -> Result<Option<Filtered>, Error> {
    if matches!(v.kind(), ValueKind::String | ValueKind::Bytes) {
        return Ok(is_ipv(v, version, options)?.map(Filtered::One));
    }
    if !is_list(v) {
        return Ok(None);
    }
    let mut out = Vec::new();
    for item in v.try_iter()? {
        out.extend(is_ipv(&item, version, options)?);
    }
    Ok(Some(Filtered::Many(out)))
}

/// `ipaddr`: the IPv4 result, else the IPv6 one; for a list, both, IPv4
/// first.
fn ipaddr(v: &MjValue, options: Option<&MjValue>) -> Result<Option<Filtered>, Error> {
    Ok(
        match (ipv_filter(v, 4, options)?, ipv_filter(v, 6, options)?) {
            (Some(Filtered::Many(mut a)), Some(Filtered::Many(b))) => {
                a.extend(b);
                Some(Filtered::Many(a))
            }
            (Some(Filtered::One(a)), _) => Some(Filtered::One(a)),
            (_, b) => b,
        },
    )
}

/// `ip_host`, `network_hosts`, `network_size`: `_filter_ipaddr` (by the
/// `version` argument, else `ipaddr`), then `f` on the one entry of a
/// string, or on each entry of a list.
fn per_entry(
    name: &'static str,
    v: MjValue,
    args: Rest<MjValue>,
    kwargs: Kwargs,
    f: impl Fn(&PyIp) -> Result<MjValue, Error>,
) -> Result<MjValue, Error> {
    let a = bind(
        name,
        "value, options=, version=",
        &with_value(v, args, kwargs)?,
    )?;
    let (value, options) = value_and_options(&a);
    let filtered = match a.raw("version").and_then(MjValue::as_i64) {
        Some(4) => ipv_filter(&value, 4, options.as_ref())?,
        Some(6) => ipv_filter(&value, 6, options.as_ref())?,
        _ => ipaddr(&value, options.as_ref())?,
    };
    let entries = filtered.map(Filtered::entries).unwrap_or_default();
    let Some(first) = entries.first() else {
        return Ok(MjValue::from(()));
    };
    if !is_list(&value) {
        return f(first);
    }
    entries.iter().map(f).collect()
}

/// The most host bits a network `network_hosts` lists may have (65,536
/// addresses): Salt would build a list of any size (slowly); a compile
/// stops with an error instead.
const MAX_HOST_BITS: u8 = 16;

/// `[str(h) for h in ip_network(ip, strict=False).hosts()]`: IPv4 leaves
/// out the network and broadcast addresses (a /31 or /32 keeps all), IPv6
/// the subnet-router anycast address (a /127 or /128 keeps all).
fn network_hosts(ip: &PyIp) -> Result<MjValue, Error> {
    let host_bits = ip.bits() - ip.prefix_len();
    if host_bits > MAX_HOST_BITS {
        return Err(py_error(format!(
            "network_hosts: {} has 2**{host_bits} addresses; lowstate lists at most 2**{MAX_HOST_BITS}",
            ip.text()
        )));
    }
    let (first, size) = ip.network();
    let (start, count) = match (ip.ip.is_ipv4(), host_bits) {
        (_, 0 | 1) => (first, size),
        (true, _) => (first + 1, size - 2),
        (false, _) => (first + 1, size - 1),
    };
    Ok((start..start + count)
        .map(|n| {
            let a = if ip.ip.is_ipv4() {
                IpAddr::V4(Ipv4Addr::from(n as u32))
            } else {
                IpAddr::V6(Ipv6Addr::from(n))
            };
            MjValue::from(addr_str(&a))
        })
        .collect())
}

/// `ipwrap`: IPv6 addresses in brackets; other items as they are.
fn ipwrap(v: &MjValue) -> Result<MjValue, Error> {
    let wrap = |item: MjValue| -> Result<MjValue, Error> {
        let Some(ip) = is_ipv(&item, 6, None)? else {
            return Ok(item);
        };
        // `ip_bracket`: `ip_address(str(addr).strip('[]'))`, which refuses
        // an interface.
        if ip.prefix.is_some() {
            return Err(py_error(format!(
                "'{}' does not appear to be an IPv4 or IPv6 address",
                py_str(&item)
            )));
        }
        Ok(MjValue::from(format!("[{}]", ip.address())))
    };
    if v.kind() == ValueKind::Seq {
        return v.try_iter()?.map(wrap).collect();
    }
    wrap(v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<String> {
        PyIp::parse(s).map(|ip| ip.text())
    }

    #[test]
    fn addresses_as_python_reads_them() {
        let yes = |s: &str, v: Option<u8>| is_ip(PyIp::parse(s).as_ref(), v, None).unwrap();
        assert!(yes("192.0.2.1", Some(4)));
        assert!(yes("10.0.0.1/24", Some(4)));
        assert!(yes("10.0.0.1/255.255.255.0", None));
        assert!(!yes("10.0.0.1/33", None));
        assert!(!yes("10.0.0.1/255.0.255.0", None));
        assert!(yes("fe80::1%eth0", Some(6)));
        assert!(!yes("fe80::1%a%b", None));
        assert!(!yes("192.0.2.1", Some(6)));
        assert!(!yes("example.com", None));
        assert!(!yes("010.0.0.1", None));
        assert!(PyIp::of(&MjValue::from(5)).is_some_and(|ip| ip.text() == "0.0.0.5"));
        let lo = MjValue::from("loopback");
        let ip = |s| PyIp::parse(s);
        assert!(is_ip(ip("127.0.0.1").as_ref(), None, Some(&lo)).unwrap());
        assert!(!is_ip(ip("10.0.0.1").as_ref(), None, Some(&lo)).unwrap());
    }

    #[test]
    fn addresses_print_as_python() {
        assert_eq!(
            text("10.0.0.1/255.255.255.0").as_deref(),
            Some("10.0.0.1/24")
        );
        assert_eq!(text("10.0.0.1/0.0.0.255").as_deref(), Some("10.0.0.1/24"));
        assert_eq!(
            text("2001:DB8:0:0:1:0:0:1").as_deref(),
            Some("2001:db8::1:0:0:1")
        );
        assert_eq!(text("::ffff:1.2.3.4").as_deref(), Some("::ffff:102:304"));
        assert_eq!(text("::").as_deref(), Some("::"));
        assert_eq!(text("1:0:2:3:4:5:6:7").as_deref(), Some("1:0:2:3:4:5:6:7"));
        assert_eq!(text("fe80::1%eth0/64").as_deref(), Some("fe80::1%eth0/64"));
    }

    #[test]
    fn networks_as_python_counts_them() {
        let hosts = |s: &str| {
            let v = network_hosts(&PyIp::parse(s).unwrap()).unwrap();
            v.try_iter()
                .unwrap()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(hosts("192.168.0.1/30"), ["192.168.0.1", "192.168.0.2"]);
        assert_eq!(hosts("192.168.0.1/31"), ["192.168.0.0", "192.168.0.1"]);
        assert_eq!(hosts("192.168.0.1"), ["192.168.0.1"]);
        assert_eq!(hosts("fe80::/126"), ["fe80::1", "fe80::2", "fe80::3"]);
        assert!(network_hosts(&PyIp::parse("10.0.0.0/8").unwrap()).is_err());
        let size = |s: &str| PyIp::parse(s).unwrap().network().1;
        assert_eq!(size("10.0.0.0/8"), 1 << 24);
        assert_eq!(size("::/0"), 0, "2**128 wraps: network_size refuses it");
    }
}
