//! The change report on arbitrary contents: the input is an old and a new
//! file content (split at the first NUL byte; either may be binary), made
//! into a file change, a changed string value and a report of a few
//! targets. Every renderer finishes, the Markdown stays within a small
//! limit with its `<details>` balanced, the HTML page's sections close and
//! it has no script but its own, and a secret in either content
//! never reaches an output.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lowstate::changes::{
    diff_values, file_change, html, json, markdown, text, ChangeSet, Content, Item, ItemChange,
    ItemChangeKind, Noun, Report, Target,
};
use lowstate::redact::Redactor;
use lowstate::value::Value;

const SECRET: &str = "s3cr3t-value";

fuzz_target!(|data: &[u8]| {
    let (old, new) = match data.iter().position(|b| *b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let item = Item {
        section: "s".into(),
        id: "f".into(),
        kind: "file.managed".into(),
        name: "/etc/f".into(),
    };
    let mut changes = ChangeSet::default();
    if let Some(f) = file_change(
        "/etc/f",
        item.clone(),
        Content::Bytes(old),
        Content::Bytes(new),
    ) {
        changes.files.push(f);
    }
    let (o, n) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    changes.items.push(ItemChange {
        item,
        change: ItemChangeKind::Changed(diff_values(
            &Value::str(format!("{o}{SECRET}")),
            &Value::str(n.as_ref()),
        )),
    });
    changes.redact(&Redactor::new([SECRET.to_string()]));
    let targets = (0..3)
        .map(|i| Target {
            id: format!("m{i}"),
            changes: changes.clone(),
        })
        .collect();
    let report = Report {
        noun: Noun::MINION,
        old: "a".into(),
        new: "b".into(),
        targets,
    };
    let opts = markdown::Options {
        limit: 2_000,
        ..markdown::Options::default()
    };
    let md = markdown::render(&report, &opts);
    assert!(
        md.chars().count() <= opts.limit,
        "{} > limit",
        md.chars().count()
    );
    let opened = md
        .lines()
        .filter(|l| l.starts_with("<details><summary>"))
        .count();
    let closed = md.lines().filter(|l| *l == "</details>").count();
    assert_eq!(opened, closed);
    // The page: every group's section closed, nothing the contents wrote
    // unescaped (the only tags are the page's own).
    let page = html::render(&report);
    assert_eq!(
        page.matches("<details class=\"group").count(),
        page.matches("</details>").count()
    );
    assert_eq!(page.matches("<script").count(), 1);
    for out in [md, text::render(&report), json::render(&report), page] {
        assert!(!out.contains(SECRET));
    }
});
