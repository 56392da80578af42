//! Salt's `strftime` / `date_format` filter (`salt/utils/dateutils.py`) for
//! the inputs whose answer does not depend on the clock: an epoch number
//! (`datetime.fromtimestamp`, read in UTC, the timezone a CI machine has)
//! and a fixed `YYYY-MM-DD` / `YYYY/MM/DD` date with an optional
//! `HH:MM[:SS[.frac]]` time, which Salt hands to `timelib` (PHP's
//! `strtotime`: a day or month past its end rolls over, day 0 is the last
//! day of the month before). The format is Python's `datetime.strftime`
//! on glibc in the C locale (flags `-`, `_`, `0`, `^`, `#` and a width;
//! `%f`, `%z`, `%Z` as Python fills them for a naive datetime).
//!
//! Everything else is refused with a clear error rather than answered
//! differently: no date (Salt's "now"), relative or free-form strings
//! (`tomorrow`, `Jan 2 2024`, digit strings, which `timelib` sometimes reads
//! as a time of today), time zones, and directives outside that set.

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind};

use super::py::print as pyfmt;

/// A naive date-time, as Python's `datetime` without `tzinfo`.
struct DateTime {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micro: i64,
    /// Days since 1970-01-01.
    days: i64,
}

/// The filter: `date|strftime(format='%Y-%m-%d')`.
pub(super) fn filter(
    date: Option<Value>,
    format: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let format = match (format, kwargs.get::<Option<Value>>("format")?) {
        (Some(_), Some(_)) => {
            return Err(Error::new(
                ErrorKind::TooManyArguments,
                "strftime() got multiple values for argument 'format'",
            ))
        }
        (Some(f), None) | (None, Some(f)) => f,
        (None, None) => Value::from("%Y-%m-%d"),
    };
    kwargs.assert_all_used()?;
    let date = date.filter(|d| !d.is_none()).ok_or_else(|| {
        unsupported("strftime of no date is the current time, which is not known at compile time")
    })?;
    let Some(format) = format
        .as_str()
        .filter(|_| format.kind() == ValueKind::String)
    else {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "strftime() argument 1 must be str, not {}",
                pyfmt::py_type_name(&format)
            ),
        ));
    };
    let dt = cast(&date)?;
    render(&dt, format).map(Value::from)
}

/// `format` applied to the Unix epoch (1970-01-01 00:00:00, a naive
/// datetime): what the fresh-minion answer to `status.time` reads, since the
/// minion's clock is not known at compile time. `None` for a format this
/// module does not render.
pub(super) fn at_epoch(format: &str) -> Option<String> {
    render(&from_days(0, 0, 0, 0, 0)?, format).ok()
}

fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("filter 'strftime': {what}; only an epoch number or a fixed YYYY-MM-DD[ HH:MM[:SS]] date is supported at compile time"),
    )
}

/// Salt's error for a date it cannot read (`timelib` installed).
fn unparsable(date: &Value) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("Unable to parse {}", pyfmt::py_str(date)),
    )
}

/// `date_cast`: a number is an epoch, a string a fixed date.
fn cast(date: &Value) -> Result<DateTime, Error> {
    match date.kind() {
        ValueKind::Number => {
            let (secs, micro) = if date.is_integer() {
                let n = i64::try_from(date.clone()).map_err(|_| unparsable(date))?;
                (n, 0)
            } else {
                let f = f64::try_from(date.clone()).map_err(|_| unparsable(date))?;
                if !f.is_finite() || f.abs() > 1e15 {
                    return Err(unparsable(date));
                }
                // Python's fromtimestamp: microseconds rounded half to even.
                let whole = f.trunc();
                let mut us = ((f - whole) * 1e6).round_ties_even() as i64;
                let mut secs = whole as i64;
                if us >= 1_000_000 {
                    secs += 1;
                    us -= 1_000_000;
                } else if us < 0 {
                    secs -= 1;
                    us += 1_000_000;
                }
                (secs, us)
            };
            let days = secs.div_euclid(86_400);
            let rem = secs.rem_euclid(86_400);
            from_days(days, rem / 3600, rem / 60 % 60, rem % 60, micro)
                .ok_or_else(|| unparsable(date))
        }
        ValueKind::String => {
            let s = date.as_str().unwrap_or_default();
            match parse_fixed(s.trim()) {
                Some(Ok((y, m, d, hh, mm, ss))) => {
                    // timelib rolls a month 0 back a year, a day past the
                    // month's end (up to 31) forward, and second 60 on.
                    let (y, m) = if m == 0 { (y - 1, 12) } else { (y, m) };
                    let days = days_from_civil(y, m, 1) + d - 1;
                    let secs = hh * 3600 + mm * 60 + ss;
                    let days = days + secs / 86_400;
                    let secs = secs % 86_400;
                    from_days(days, secs / 3600, secs / 60 % 60, secs % 60, 0)
                        .ok_or_else(|| unparsable(date))
                }
                Some(Err(())) => Err(unparsable(date)),
                None => Err(unsupported(&format!(
                    "the date {} is not a fixed date (it may be relative to now)",
                    pyfmt::py_repr(date)
                ))),
            }
        }
        _ => Err(unsupported(&format!(
            "a {} is not a date",
            pyfmt::py_type_name(date)
        ))),
    }
}

/// `YYYY-M-D` or `YYYY/M/D`, then optionally (after spaces or `T`)
/// `H:MM[:SS[.frac]]`. `None`: not this shape; `Some(Err)`: this shape
/// with a field out of range (Salt fails too).
#[allow(clippy::type_complexity)]
fn parse_fixed(s: &str) -> Option<Result<(i64, i64, i64, i64, i64, i64), ()>> {
    fn digits(s: &str, min: usize, max: usize) -> Option<(i64, &str)> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        if n < min || n > max {
            return None;
        }
        Some((s[..n].parse().ok()?, &s[n..]))
    }
    let (year, rest) = digits(s, 4, 4)?;
    let sep = rest.chars().next().filter(|c| *c == '-' || *c == '/')?;
    let (month, rest) = digits(&rest[1..], 1, 2)?;
    let rest = rest.strip_prefix(sep)?;
    let (day, rest) = digits(rest, 1, 2)?;
    let (mut hour, mut minute, mut second) = (0, 0, 0);
    if !rest.is_empty() {
        let rest = match rest.strip_prefix('T') {
            Some(r) => r,
            None if rest.starts_with(' ') => rest.trim_start_matches(' '),
            None => return None,
        };
        let (h, r) = digits(rest, 1, 2)?;
        let r = r.strip_prefix(':')?;
        let (m, mut r) = digits(r, 1, 2)?;
        hour = h;
        minute = m;
        if let Some(after) = r.strip_prefix(':') {
            let (sec, after) = digits(after, 1, 2)?;
            second = sec;
            r = after;
            if let Some(frac) = r.strip_prefix('.') {
                let (_, after) = digits(frac, 1, 9)?;
                r = after;
            }
        }
        if !r.is_empty() {
            return None;
        }
    }
    let valid = year >= 1
        && month <= 12
        && (0..=31).contains(&day)
        && hour <= 23
        && minute <= 59
        && second <= 60;
    Some(if valid {
        Ok((year, month, day, hour, minute, second))
    } else {
        Err(())
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date-time `days` after 1970-01-01 at the given time; `None` outside
/// Python's years 1 to 9999.
fn from_days(days: i64, hour: i64, minute: i64, second: i64, micro: i64) -> Option<DateTime> {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (1..=9999).contains(&year).then_some(DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
        days,
    })
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

impl DateTime {
    /// 0 = Sunday.
    fn weekday(&self) -> i64 {
        (self.days + 4).rem_euclid(7)
    }

    /// 0-based day of the year.
    fn yday(&self) -> i64 {
        self.days - days_from_civil(self.year, 1, 1)
    }

    /// ISO 8601 year and week.
    fn iso_week(&self) -> (i64, i64) {
        let wday = (self.weekday() + 6) % 7; // Monday = 0
        let thursday = self.days - wday + 3;
        let year = from_days(thursday, 0, 0, 0, 0).map_or(self.year, |d| d.year);
        let week = (thursday - days_from_civil(year, 1, 1)) / 7 + 1;
        (year, week)
    }
}

/// A directive's text: a number with its default width and padding, or
/// text.
enum Piece {
    Num(i64, usize, char),
    Text(String),
}

fn render(dt: &DateTime, format: &str) -> Result<String, Error> {
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek().filter(|f| "-_0^#".contains(**f)) {
            flags.push(f);
            chars.next();
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        if chars.peek().is_some_and(|m| *m == 'E' || *m == 'O') {
            chars.next();
        }
        let Some(conv) = chars.next() else {
            return Err(unsupported("a format ending in '%'"));
        };
        let plain = flags.is_empty() && width.is_empty();
        let piece = match conv {
            // Python fills these itself for a naive datetime.
            'f' if plain => Piece::Text(format!("{:06}", dt.micro)),
            'z' | 'Z' if plain => Piece::Text(String::new()),
            '%' => Piece::Text("%".into()),
            'n' => Piece::Text("\n".into()),
            't' => Piece::Text("\t".into()),
            'a' => Piece::Text(DAYS[dt.weekday() as usize][..3].into()),
            'A' => Piece::Text(DAYS[dt.weekday() as usize].into()),
            'b' | 'h' => Piece::Text(MONTHS[dt.month as usize - 1][..3].into()),
            'B' => Piece::Text(MONTHS[dt.month as usize - 1].into()),
            'p' => Piece::Text(if dt.hour < 12 { "AM" } else { "PM" }.into()),
            'P' => Piece::Text(if dt.hour < 12 { "am" } else { "pm" }.into()),
            'c' => Piece::Text(render(dt, "%a %b %e %H:%M:%S %Y")?),
            'D' | 'x' => Piece::Text(render(dt, "%m/%d/%y")?),
            'F' => Piece::Text(render(dt, "%Y-%m-%d")?),
            'T' | 'X' => Piece::Text(render(dt, "%H:%M:%S")?),
            'R' => Piece::Text(render(dt, "%H:%M")?),
            'r' => Piece::Text(render(dt, "%I:%M:%S %p")?),
            'd' => Piece::Num(dt.day, 2, '0'),
            'e' => Piece::Num(dt.day, 2, ' '),
            'H' => Piece::Num(dt.hour, 2, '0'),
            'k' => Piece::Num(dt.hour, 2, ' '),
            'I' => Piece::Num((dt.hour + 11) % 12 + 1, 2, '0'),
            'l' => Piece::Num((dt.hour + 11) % 12 + 1, 2, ' '),
            'j' => Piece::Num(dt.yday() + 1, 3, '0'),
            'm' => Piece::Num(dt.month, 2, '0'),
            'M' => Piece::Num(dt.minute, 2, '0'),
            'S' => Piece::Num(dt.second, 2, '0'),
            'y' => Piece::Num(dt.year % 100, 2, '0'),
            'Y' => Piece::Num(dt.year, 1, '0'),
            'C' => Piece::Num(dt.year / 100, 2, '0'),
            'G' => Piece::Num(dt.iso_week().0, 1, '0'),
            'g' => Piece::Num(dt.iso_week().0 % 100, 2, '0'),
            'V' => Piece::Num(dt.iso_week().1, 2, '0'),
            'U' => Piece::Num((dt.yday() + 7 - dt.weekday()) / 7, 2, '0'),
            'W' => Piece::Num((dt.yday() + 7 - (dt.weekday() + 6) % 7) / 7, 2, '0'),
            'u' => Piece::Num((dt.weekday() + 6) % 7 + 1, 1, '0'),
            'w' => Piece::Num(dt.weekday(), 1, '0'),
            's' => Piece::Num(
                dt.days * 86_400 + dt.hour * 3600 + dt.minute * 60 + dt.second,
                1,
                '0',
            ),
            other => {
                return Err(unsupported(&format!(
                    "the directive '%{flags}{width}{other}' is not implemented"
                )))
            }
        };
        let width: Option<usize> = width.parse().ok();
        let pad_flag = flags.chars().rev().find(|f| "-_0".contains(*f));
        match piece {
            Piece::Num(n, default, pad) => {
                let digits = n.to_string();
                let (w, pad) = match pad_flag {
                    Some('-') => (0, pad),
                    Some('_') => (width.unwrap_or(default), ' '),
                    Some(_) => (width.unwrap_or(default), '0'),
                    None => (width.unwrap_or(default), pad),
                };
                for _ in digits.len()..w {
                    out.push(pad);
                }
                out.push_str(&digits);
            }
            Piece::Text(mut t) => {
                if flags.contains('^') {
                    t = t.to_uppercase();
                } else if flags.contains('#') {
                    t = match conv {
                        'a' | 'A' | 'b' | 'B' | 'h' => t.to_uppercase(),
                        'p' => t.to_lowercase(),
                        _ => t,
                    };
                }
                let pad = if pad_flag == Some('0') { '0' } else { ' ' };
                for _ in t.chars().count()..width.unwrap_or(0) {
                    out.push(pad);
                }
                out.push_str(&t);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(date: Value, f: &str) -> String {
        render(&cast(&date).unwrap(), f).unwrap()
    }

    #[test]
    fn epochs_and_fixed_dates() {
        // What Salt 3008.5 printed (TZ=UTC).
        assert_eq!(
            fmt(Value::from(1_700_000_000.7), "%c|%x|%r|%k|%l|%P|%s %f"),
            "Tue Nov 14 22:13:20 2023|11/14/23|10:13:20 PM|22|10|pm|1700000000 700000"
        );
        assert_eq!(
            fmt(Value::from(-1.5), "%c %f"),
            "Wed Dec 31 23:59:58 1969 500000"
        );
        assert_eq!(
            fmt(
                Value::from("2024-01-02"),
                "%d/%m/%Y %H:%M:%S %a %A %b %B %j %U %W %u %w %G %V %y %C %e %p %I"
            ),
            "02/01/2024 00:00:00 Tue Tuesday Jan January 002 00 01 2 2 2024 01 24 20  2 AM 12"
        );
        assert_eq!(
            fmt(
                Value::from("2024-01-02"),
                "%%|%Ey|%Od|%G-%g|%#b|%^a|%10Y|%05d|%-j"
            ),
            "%|24|02|2024-24|JAN|TUE|0000002024|00002|2"
        );
        assert_eq!(fmt(Value::from("2024-02-31"), "%F"), "2024-03-02");
        assert_eq!(fmt(Value::from("2024-00-10"), "%F"), "2023-12-10");
        assert_eq!(fmt(Value::from("2024-01-00"), "%F"), "2023-12-31");
        assert_eq!(
            fmt(Value::from("2024-01-02 23:59:60"), "%c"),
            "Wed Jan  3 00:00:00 2024"
        );
        assert_eq!(
            fmt(Value::from("0001-01-01"), "%c"),
            "Mon Jan  1 00:00:00 1"
        );
        assert!(cast(&Value::from("2024-01-32")).is_err());
        assert!(cast(&Value::from("tomorrow")).is_err());
    }
}
