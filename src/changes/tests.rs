use super::*;
use crate::value::Map;

fn item(id: &str) -> Item {
    Item {
        section: "web".into(),
        id: id.into(),
        kind: "file.managed".into(),
        name: format!("/etc/{id}"),
    }
}

fn changed(id: &str, old: i64, new: i64) -> ChangeSet {
    ChangeSet {
        items: vec![ItemChange {
            item: item(id),
            change: ItemChangeKind::Changed(diff_values(
                &crate::vmap! {"port" => old},
                &crate::vmap! {"port" => new},
            )),
        }],
        ..ChangeSet::default()
    }
}

pub(super) fn sample() -> Report {
    let mut targets = Vec::new();
    for i in 1..=40 {
        targets.push(Target {
            id: format!("web{i:02}"),
            changes: changed("conf", 80, 8080),
        });
    }
    targets.push(Target {
        id: "db1".into(),
        changes: ChangeSet {
            failures: vec![Failure {
                side: Side::New,
                messages: vec!["Rendering SLS 'base:db' failed: oops".into()],
            }],
            ..ChangeSet::default()
        },
    });
    targets.push(Target {
        id: "db2".into(),
        changes: ChangeSet::default(),
    });
    let files = vec![
        file_change(
            "/etc/motd",
            item("motd"),
            Content::Bytes(b"hello\nworld\n"),
            Content::Bytes(b"hello\nthere\n"),
        )
        .unwrap(),
        file_change(
            "/etc/new",
            item("new"),
            Content::Absent,
            Content::Bytes(b"fresh\n"),
        )
        .unwrap(),
        file_change(
            "/etc/logo.png",
            item("logo"),
            Content::Bytes(&[0x89, 0xff, 0]),
            Content::Bytes(&[0x89, 0xfe, 0]),
        )
        .unwrap(),
    ];
    targets.push(Target {
        id: "app1".into(),
        changes: ChangeSet {
            files,
            items: vec![
                ItemChange {
                    item: item("added"),
                    change: ItemChangeKind::Added(crate::vmap! {"mode" => "0644"}),
                },
                ItemChange {
                    item: item("gone"),
                    change: ItemChangeKind::Removed(Value::Map(Map::new())),
                },
            ],
            order: order_changes(&["a", "b", "c"], &["c", "a", "b"], |k: &&str| item(k)),
            ..ChangeSet::default()
        },
    });
    Report {
        noun: Noun::MINION,
        old: "HEAD~1".into(),
        new: "work tree".into(),
        targets,
    }
}

#[test]
fn groups_rank_failures_first_then_size() {
    let r = sample();
    let g = r.groups();
    assert_eq!(g.len(), 3);
    assert_eq!(g[0].targets, vec!["db1"]);
    assert_eq!(g[1].label(Noun::MINION), "web01 … web40 (40 minions)");
    assert_eq!(g[2].targets, vec!["app1"]);
    assert_eq!(r.unchanged(), vec!["db2"]);
    let s = r.summary(&g);
    assert_eq!((s.targets, s.changed, s.failed, s.groups), (43, 42, 1, 3));
    assert!(r.failed());
    let two = Group {
        targets: vec!["a".into(), "b".into()],
        changes: ChangeSet::default(),
    };
    assert_eq!(two.label(Noun::STACK), "a, b (2 stacks)");
}

#[test]
fn values_diff_by_path_and_long_strings_get_a_unified_diff() {
    let old = crate::vmap! {"context" => crate::vmap!{"port" => 80, "host" => "a"}, "text" => "one\ntwo\n"};
    let new = crate::vmap! {"context" => crate::vmap!{"port" => 81}, "text" => "one\nthree\n", "mode" => "0600"};
    let d = diff_values(&old, &new);
    let paths: Vec<String> = d.iter().map(|c| c.path.join(":")).collect();
    assert_eq!(paths, vec!["context:port", "context:host", "text", "mode"]);
    assert_eq!(d[0].old, Some(Value::Int(80)));
    assert_eq!(d[3].old, None);
    let text = d[2].diff.as_ref().unwrap();
    assert!(text.unified.contains("-two\n+three\n"), "{}", text.unified);
    assert!(d[0].diff.is_none());
    // A long list: element by element.
    let long = |last: &str| {
        Value::List(
            [
                "salt://files/m1/sshd_config",
                "salt://files/Debian/sshd_config",
                last,
            ]
            .into_iter()
            .map(Value::str)
            .collect(),
        )
    };
    let d = diff_values(
        &long("salt://files/default/a"),
        &long("salt://files/default/b"),
    );
    let text = &d[0].diff.as_ref().unwrap().unified;
    assert!(
        text.contains("-\"salt://files/default/a\"\n+\"salt://files/default/b\"\n"),
        "{text}"
    );
}

#[test]
fn files_new_removed_binary_and_same() {
    let r = sample();
    let files = &r.targets.last().unwrap().changes.files;
    assert_eq!(files[0].kind(), "changed");
    assert!(files[0]
        .diff
        .as_ref()
        .unwrap()
        .unified
        .contains("-world\n+there\n"));
    assert_eq!(files[1].kind(), "new file");
    assert!(files[1].diff.as_ref().unwrap().unified.contains("+fresh\n"));
    assert!(files[2].diff.is_none());
    assert!(files[2]
        .new
        .describe()
        .starts_with("binary, 3 bytes, sha256 "));
    assert!(file_change("/x", item("x"), Content::Bytes(b"a"), Content::Bytes(b"a")).is_none());
    let err = file_change("/x", item("x"), Content::Bytes(b"a"), Content::Error("bad")).unwrap();
    assert_eq!(err.kind(), "error");
    let set = ChangeSet {
        files: vec![err],
        ..ChangeSet::default()
    };
    assert!(set.failed() && set.new_fails());
}

#[test]
fn huge_diffs_are_cut_with_a_count() {
    let old: String = (0..1000).map(|i| format!("line {i}\n")).collect();
    let new: String = (0..1000).map(|i| format!("line {}\n", i * 2)).collect();
    let d = text_diff(&old, &new);
    assert_eq!(d.unified.lines().count(), MAX_DIFF_LINES);
    assert!(d.cut_lines > 0);
}

#[test]
fn order_names_what_an_item_now_precedes() {
    let o = order_changes(&["a", "b", "c", "d"], &["a", "d", "b", "c"], |k: &&str| {
        item(k)
    });
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].item.id, "d");
    assert_eq!(
        o[0].now_before,
        vec!["b (file.managed /etc/b)", "c (file.managed /etc/c)"]
    );
    // Additions and removals are not moves.
    assert!(order_changes(&["a", "b"], &["a", "x", "b"], |k: &&str| item(k)).is_empty());
}

#[test]
fn redaction_shows_a_change_but_never_the_secret() {
    let mut c = ChangeSet {
        items: vec![ItemChange {
            item: item("db"),
            change: ItemChangeKind::Changed(diff_values(
                &crate::vmap! {"password" => "hunter22"},
                &crate::vmap! {"password" => "swordfish"},
            )),
        }],
        files: vec![file_change(
            "/etc/db.conf",
            item("db"),
            Content::Bytes(b"user=a\npass=hunter22\n"),
            Content::Bytes(b"user=a\npass=swordfish\n"),
        )
        .unwrap()],
        ..ChangeSet::default()
    };
    c.redact(&Redactor::new([
        "hunter22".to_string(),
        "swordfish".to_string(),
    ]));
    let text = json::change_set(&c).to_json().to_string();
    assert!(
        !text.contains("hunter22") && !text.contains("swordfish"),
        "{text}"
    );
    let ItemChangeKind::Changed(v) = &c.items[0].change else {
        panic!()
    };
    assert!(v[0].masked);
    let d = &c.files[0].diff.as_ref().unwrap().unified;
    assert!(d.contains("-pass=<redacted>\n+pass=<redacted>\n"), "{d}");
}

#[test]
fn json_layout() {
    insta::assert_snapshot!(json::render(&sample()));
}

#[test]
fn text_layout() {
    insta::assert_snapshot!(text::render(&sample()));
}

#[test]
fn markdown_layout() {
    insta::assert_snapshot!(markdown::render(&sample(), &markdown::Options::default()));
}

/// 1,000 targets, each with its own change (a distinct group each, with a
/// file diff): the Markdown stays within the limit and says what it cut.
#[test]
fn markdown_of_a_thousand_distinct_changes_stays_under_the_limit() {
    let targets = (0..1000)
        .map(|i| {
            let mut c = changed("conf", 80, 1000 + i);
            let old: String = (0..30).map(|l| format!("line {l}\n")).collect();
            let new = format!("{old}minion {i}\n");
            c.files = vec![file_change(
                "/etc/app.conf",
                item("app"),
                Content::Bytes(old.as_bytes()),
                Content::Bytes(new.as_bytes()),
            )
            .unwrap()];
            Target {
                id: format!("m{i:04}"),
                changes: c,
            }
        })
        .collect();
    let r = Report {
        noun: Noun::MINION,
        old: "main".into(),
        new: "HEAD".into(),
        targets,
    };
    let opts = markdown::Options {
        full_report: "see the job's `report.html` artifact".into(),
        ..markdown::Options::default()
    };
    let md = markdown::render(&r, &opts);
    let n = md.chars().count();
    assert!(n <= markdown::GITHUB_COMMENT_LIMIT, "{n} characters");
    assert!(
        n > markdown::GITHUB_COMMENT_LIMIT / 2,
        "{n}: the budget is used"
    );
    assert!(
        md.contains("> **Cut to fit the comment limit:**"),
        "{}",
        &md[md.len() - 300..]
    );
    assert!(md.contains("not shown;"));
    assert!(md.ends_with("see the job's `report.html` artifact.\n"));
    assert!(md.contains("| | … 950 more groups | 950 | | | |"));
    // Every section opened is closed.
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
}

/// A replaced item (a stack's resource Heat deletes and makes again) in
/// every renderer: its reason and values, the stack's own nouns, and its
/// reason masked like any other text.
#[test]
fn a_replaced_item_in_every_format() {
    let mut changes = ChangeSet {
        items: vec![ItemChange {
            item: Item {
                section: "app".into(),
                id: "server".into(),
                kind: "OS::Nova::Server".into(),
                name: String::new(),
            },
            change: ItemChangeKind::Replaced {
                reason: "flavor cannot be updated in place (topsecret)".into(),
                changes: diff_values(
                    &crate::vmap! {"flavor" => "m1.small"},
                    &crate::vmap! {"flavor" => "m1.large"},
                ),
            },
        }],
        ..Default::default()
    };
    changes.redact(&Redactor::new(["topsecret".to_string()]));
    let r = Report {
        noun: Noun::STACK,
        old: "old.yaml".into(),
        new: "new.yaml".into(),
        targets: vec![Target {
            id: "app".into(),
            changes,
        }],
    };
    let text = text::render(&r);
    assert!(
        text.contains("! server (OS::Nova::Server)  [app]"),
        "{text}"
    );
    assert!(
        text.contains("replaced: flavor cannot be updated"),
        "{text}"
    );
    assert!(
        text.contains("flavor: \"m1.small\" → \"m1.large\""),
        "{text}"
    );
    let json = json::render(&r);
    assert!(json.contains("\"change\": \"replaced\""), "{json}");
    assert!(json.contains("\"noun\": \"stack\""), "{json}");
    let md = markdown::render(&r, &markdown::Options::default());
    assert!(md.contains("| | Resource | Stack | Change |"), "{md}");
    assert!(md.contains("| 1 | 1 replaced |"), "{md}");
    assert!(md.contains("🔁"), "{md}");
    for out in [&text, &json, &md] {
        assert!(!out.contains("topsecret"), "{out}");
    }
    let page = html::render(&r);
    assert!(page.contains("<th>Resource</th>"), "{page}");
    assert!(
        page.contains("replaced: flavor cannot be updated"),
        "{page}"
    );
    assert!(!page.contains("topsecret"), "{page}");
}

#[test]
fn html_layout() {
    insta::assert_snapshot!(html::render(&sample()));
}

/// The page fetches nothing (no external script, style, image or font),
/// escapes what the tree wrote, and has one section per group.
#[test]
fn html_is_self_contained_and_escaped() {
    let mut r = sample();
    r.targets.push(Target {
        id: "evil".into(),
        changes: changed("<script>alert(1)</script>", 1, 2),
    });
    let page = html::render(&r);
    for fetch in ["src=", "<link", "@import", "url(", "http://", "https://"] {
        assert!(!page.contains(fetch), "{fetch}");
    }
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let groups = r.groups();
    assert_eq!(page.matches("<details class=\"group").count(), groups.len());
    assert_eq!(page.matches("</details>").count(), groups.len());
    // Failures first, marked.
    assert!(page.contains("<details class=\"group fail\" id=\"g1\">"));
    assert!(page.contains("<span class=\"add\">+there</span>"), "{page}");
}
