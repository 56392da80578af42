//! `lowstate lsp` driven over stdio with real JSON-RPC messages: every
//! feature on a copy of the example tree and on a HOT template, the
//! workspace boundary, a caught panic, and a bounded soak of random edits.

mod common;

#[path = "lsp_client/mod.rs"]
mod client;

use client::{position, uri, utf16_position, Client};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
/// A fresh copy of the example tree (the tests edit it in the editor
/// only, but a copy keeps the repository out of reach).
pub fn example_tree(name: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("lowstate-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("state_tree"),
        &dst,
    );
    dst.canonicalize().unwrap()
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn line_of(loc: &Json) -> i64 {
    loc["range"]["start"]["line"].as_i64().unwrap()
}

/// The code actions for the first of diagnostics `d` of document `u`, and
/// what an editor receives, as it receives it: the diagnostics and the
/// actions, URIs made relative to `root`.
fn quick_fixes(c: &mut Client, u: &str, d: &[Json], root: &Path) -> (Json, String) {
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": d[0]["range"],
               "context": {"diagnostics": d}}),
    );
    let shown =
        serde_json::to_string_pretty(&json!({"diagnostics": d, "actions": actions["result"]}))
            .unwrap()
            .replace(&uri(root), "file://<tree>");
    (actions, shown)
}

/// A fresh Salt tree in a temp dir (canonical path): a minion config with
/// the file root `salt`, a top file applying SLS `app` to every minion,
/// and `files` (relative path, text).
fn small_tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lowstate-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let minion = ("minion", "id: m1\nfile_roots:\n  base: [salt]\n");
    let top = ("salt/top.sls", "base:\n  '*':\n    - app\n");
    for (rel, text) in [minion, top].iter().chain(files) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    root.canonicalize().unwrap()
}

#[test]
fn salt_diagnostics_fix_navigation_hover_completion() {
    let root = example_tree("salt");
    let before = snapshot(&root);
    let mut c = Client::start(&root, Json::Null, &[]);
    let service = root.join("salt/nginx/service.sls");
    let good = std::fs::read_to_string(&service).unwrap();
    let bad = good.replace("pkg: nginx-package", "pkg: nginx-pakage");
    let u = c.open(&service, &bad);

    // The misspelt requisite target: located at the target, with a fix.
    let d = c.diagnostics(&u);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "missing-requisite");
    assert_eq!(d[0]["severity"], 1);
    let (line, col) = position(&bad, "nginx-pakage", 0);
    assert_eq!(
        d[0]["range"],
        json!({"start": {"line": line, "character": col},
               "end": {"line": line, "character": col + "nginx-pakage".len()}})
    );
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .contains("did you mean `pkg: nginx-package`?"));
    let (actions, shown) = quick_fixes(&mut c, &u, &d, &root);
    insta::assert_snapshot!("salt_missing_requisite", shown);
    let edit = &actions["result"][0]["edit"]["changes"][&u][0];
    assert_eq!(edit["newText"], "nginx-package", "{actions}");
    assert_eq!(edit["range"], d[0]["range"]);

    // A duplicate ID: shown here, with the first declaration related.
    c.change(&u, 2, &format!("{good}nginx-config:\n  test.nop: []\n"));
    let d = c.diagnostics(&u);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "duplicate-id", "{d:?}");
    let related = &d[0]["relatedInformation"][0]["location"];
    assert_eq!(
        related["uri"],
        uri(&root.join("salt/nginx/config.sls")),
        "{d:?}"
    );
    assert_eq!(related["range"]["start"]["line"], 1, "{d:?}");

    // Applying the fix clears the diagnostic.
    c.change(&u, 3, &good);
    assert_eq!(c.diagnostics(&u), Vec::<Json>::new());

    // Definition: a requisite target, an include entry, a Jinja import.
    let def = c.at(
        "textDocument/definition",
        &u,
        &good,
        "file: nginx-config",
        8,
    );
    let loc = &def["result"][0];
    assert_eq!(
        loc["uri"],
        uri(&root.join("salt/nginx/config.sls")),
        "{def}"
    );
    let config_text = std::fs::read_to_string(root.join("salt/nginx/config.sls")).unwrap();
    assert_eq!(
        line_of(loc),
        position(&config_text, "nginx-config:", 0).0 as i64
    );
    let init = root.join("salt/nginx/init.sls");
    let init_text = std::fs::read_to_string(&init).unwrap();
    let def = c.at(
        "textDocument/definition",
        &uri(&init),
        &init_text,
        ".install",
        2,
    );
    assert_eq!(
        def["result"][0]["uri"],
        uri(&root.join("salt/nginx/install.sls")),
        "{def}"
    );
    let def = c.at("textDocument/definition", &u, &good, "map.jinja", 2);
    assert_eq!(
        def["result"][0]["uri"],
        uri(&root.join("salt/nginx/map.jinja")),
        "{def}"
    );

    // References: who requires nginx-package.
    let install = root.join("salt/nginx/install.sls");
    let install_text = std::fs::read_to_string(&install).unwrap();
    let refs = c.at(
        "textDocument/references",
        &uri(&install),
        &install_text,
        "nginx-package",
        2,
    );
    let list = refs["result"].as_array().unwrap();
    assert!(
        list.iter().any(|l| l["uri"] == u.as_str()
            && line_of(l) == position(&good, "pkg: nginx-package", 0).0 as i64),
        "{refs}"
    );

    // Hover: a state ID (chunk and run order), a state function, a pillar key.
    let h = c.at("textDocument/hover", &u, &good, "nginx-service:", 2);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("`service.running`") && text.contains("runs "),
        "{text}"
    );
    assert!(text.contains("__id__: nginx-service"), "{text}");
    let h = c.at("textDocument/hover", &u, &good, "service.running", 3);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("`enable`") && text.contains("`name` (required)"),
        "{text}"
    );
    let app = root.join("salt/app/init.sls");
    let app_text = std::fs::read_to_string(&app).unwrap();
    let h = c.at(
        "textDocument/hover",
        &uri(&app),
        &app_text,
        "pillar.get']('app'",
        14,
    );
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("pillar `app`") && text.contains("web.sls"),
        "{text}"
    );
    // Masked as `pillar.items` masks values, with the way to see them.
    assert!(
        text.contains("= '**********'") && text.contains("`pillar_mask_output: False`"),
        "{text}"
    );

    // Completion: arguments of the enclosing state function, requisites.
    let comp = c.at("textDocument/completion", &u, &good, "    - enable", 6);
    let labels: Vec<&str> = comp["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"sig") && labels.contains(&"watch_in"),
        "{labels:?}"
    );
    let comp = c.at(
        "textDocument/completion",
        &u,
        &good,
        "- file: nginx-config",
        2,
    );
    assert!(
        comp["result"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["label"] == "pkg: nginx-package"),
        "{comp}"
    );

    // Symbols.
    let s = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(s["result"][0]["name"], "nginx-service", "{s}");
    assert_eq!(s["result"][0]["children"][0]["name"], "service.running");
    let s = c.request("workspace/symbol", json!({"query": "nginx-"}));
    let names: Vec<&str> = s["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"nginx-config") && names.contains(&"nginx-service"),
        "{names:?}"
    );

    // Outside the workspace: an empty answer.
    let outside = std::env::temp_dir().join("lowstate-lsp-outside.sls");
    let r = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri(&outside)}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r["result"], json!([]), "{r}");
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&outside)}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r["result"], Json::Null, "{r}");

    assert_eq!(c.stop(), 0);
    assert_eq!(snapshot(&root), before, "the server wrote into the tree");
    let _ = std::fs::remove_dir_all(&root);
}

/// A requisite on a state that another SLS declares, but that the
/// requiring file does not include: the diagnostic names that SLS and the
/// include to add, and offers no "fix" replacing the target by itself.
#[test]
fn salt_requisite_on_a_state_of_a_file_not_included() {
    let app = "run update:\n  cmd.run:\n    - name: apt-get update\n    - onchanges:\n      - file: /etc/apt/sources.list\n";
    let repo = "/etc/apt/sources.list:\n  file.managed:\n    - contents: deb x\n";
    let root = small_tree("notincl", &[("salt/app.sls", app), ("salt/repo.sls", repo)]);
    let mut c = Client::start(&root, Json::Null, &[]);
    let u = c.open(&root.join("salt/app.sls"), app);
    c.open(&root.join("salt/repo.sls"), repo);
    let d = loop {
        // The first publish may come before the second file is open.
        let d = c.diagnostics(&u);
        if d.iter()
            .any(|x| x["message"].as_str().unwrap().contains("declared in"))
        {
            break d;
        }
    };
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "missing-requisite");
    let (actions, shown) = quick_fixes(&mut c, &u, &d, &root);
    insta::assert_snapshot!("salt_requisite_not_included", shown);
    assert!(!shown.contains("did you mean"), "{shown}");
    assert_eq!(actions["result"], json!([]), "{actions}");
    assert_eq!(c.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// A workspace folder without `minion` that holds a state tree (here a
/// formula checkout: `web/init.sls`, no top file) is a Salt workspace with
/// the folder as its file root: an open SLS is compiled alone, as
/// `state.sls` would, with diagnostics and hover.
#[test]
fn salt_formula_checkout_without_a_minion() {
    let root = std::env::temp_dir().join(format!("lowstate-lsp-formula-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let init = "web-pkg:\n  pkg.installed:\n    - name: nginx\nweb-svc:\n  service.running:\n    - name: nginx\n    - require:\n      - pkg: web-pkh\n";
    std::fs::create_dir_all(root.join("web")).unwrap();
    std::fs::write(root.join("web/init.sls"), init).unwrap();
    std::fs::write(root.join("README.md"), "a formula\n").unwrap();
    let root = root.canonicalize().unwrap();
    let mut c = Client::start(&root, Json::Null, &[]);
    let u = c.open(&root.join("web/init.sls"), init);
    let d = c.diagnostics(&u);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["code"], "missing-requisite");
    let fixed = init.replace("web-pkh", "web-pkg");
    c.change(&u, 2, &fixed);
    assert_eq!(c.diagnostics(&u), Vec::<Json>::new());
    let h = c.at("textDocument/hover", &u, &fixed, "web-svc", 0);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("service.running"), "{h}");
    assert_eq!(c.stop(), 0);
    assert!(!root.join("minion").exists(), "the server wrote a minion");
    let _ = std::fs::remove_dir_all(&root);
}

/// A requisite on a state the compile does not hold, because the template
/// declares it in a branch not taken with this minion's data: definition
/// still goes to the ID the file declares.
#[test]
fn salt_definition_of_a_state_in_a_branch_not_taken() {
    let app = "{% if grains.get('from_source') %}\nget-src:\n  file.managed:\n    - name: /tmp/src.tgz\n\nbuild:\n  cmd.run:\n    - name: make\n    - onchanges:\n      - file: get-src\n{% endif %}\nok:\n  test.nop: []\n";
    let root = small_tree("branch", &[("salt/app.sls", app)]);
    let mut c = Client::start(&root, Json::Null, &[]);
    let path = root.join("salt/app.sls");
    let u = c.open(&path, app);
    assert_eq!(c.diagnostics(&u), Vec::<Json>::new());
    let def = c.at("textDocument/definition", &u, app, "file: get-src", 8);
    let loc = &def["result"][0];
    assert_eq!(loc["uri"], u, "{def}");
    assert_eq!(line_of(loc), 1, "{def}");
    assert_eq!(loc["range"]["start"]["character"], 0, "{def}");
    // A word that is no requisite target finds nothing that way.
    let none = c.at("textDocument/definition", &u, app, "name: make", 7);
    assert_eq!(none["result"], json!([]), "{none}");
    assert_eq!(c.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Files reached through symlinks, as formulas are often installed: a
/// formula directory checked out beside the roots and linked into one, and
/// an SLS that is a link to another (an alias). Each file gets the
/// diagnostics of the SLS it is opened as, whether the editor opens it
/// through the link or at the formula's own path.
#[cfg(unix)]
#[test]
fn salt_files_reached_through_symlinks() {
    use std::os::unix::fs::symlink;
    let app = "run:\n  cmd.run:\n    - name: x\n    - require:\n      - pkg: nothere\n";
    let status = "status:\n  cmd.run:\n    - name: y\n    - require_in:\n      - service: gone\n";
    let root = small_tree(
        "links",
        &[
            ("formulas/app/init.sls", app),
            ("formulas/app/mod_status.sls", status),
        ],
    );
    symlink("../formulas/app", root.join("salt/app")).unwrap();
    symlink(
        "mod_status.sls",
        root.join("formulas/app/server_status.sls"),
    )
    .unwrap();
    let first = |c: &mut Client, path: &Path, text: &str| {
        let u = c.open(path, text);
        let d = c.diagnostics(&u);
        assert_eq!(d.len(), 1, "{}: {d:?}", path.display());
        d[0]["message"].as_str().unwrap().to_string()
    };

    // Through the linked directory, then at the formula's own path.
    for path in [
        root.join("salt/app/init.sls"),
        root.join("formulas/app/init.sls"),
    ] {
        let mut c = Client::start(&root, Json::Null, &[]);
        let m = first(&mut c, &path, app);
        assert!(
            m.contains("(pkg: nothere)") && m.contains("in SLS [app]"),
            "{m}"
        );
        assert_eq!(c.stop(), 0);
    }
    // The alias is its own SLS, not the file it links to.
    let mut c = Client::start(&root, Json::Null, &[]);
    let m = first(&mut c, &root.join("salt/app/server_status.sls"), status);
    assert!(m.contains("'base:app.server_status'"), "{m}");
    let m = first(&mut c, &root.join("salt/app/mod_status.sls"), status);
    assert!(m.contains("'base:app.mod_status'"), "{m}");
    assert_eq!(c.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_panic_in_a_request_is_logged_and_the_server_goes_on() {
    let root = example_tree("panic");
    let mut c = Client::start(&root, Json::Null, &[("LOWSTATE_LSP_TEST_PANIC", "1")]);
    let r = c.request("lowstate/testPanic", json!({}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let logged: Vec<&Json> = c
        .notes
        .iter()
        .filter(|n| n["method"] == "window/logMessage" && n["params"]["type"] == 1)
        .collect();
    assert_eq!(logged.len(), 1, "{:?}", c.notes);
    let msg = logged[0]["params"]["message"].as_str().unwrap();
    assert!(
        msg.contains("lowstate/testPanic") && !msg.contains("hunter2"),
        "{msg}"
    );
    let s = c.request("workspace/symbol", json!({"query": ""}));
    assert!(s.get("result").is_some(), "{s}");
    assert_eq!(c.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

const HOT: &str = "heat_template_version: 2016-10-14
parameters:
  size:
    type: number
    default: 2
  secret:
    type: string
    hidden: true
    default: hunter2-secret
resources:
  vol:
    type: OS::Cinder::Volume
    properties:
      size: {get_param: size}
  srv:
    type: OS::Nova::Server
    depends_on: [vol]
    properties:
      image: cirros
      flavor: m1.small
      name: {get_attr: [vol, size]}
      admin_pass: {get_param: secret}
";

#[test]
fn hot_diagnostics_navigation_hover_completion() {
    let root = std::env::temp_dir().join(format!("lowstate-lsp-hot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    let path = root.join("stack.yaml");
    std::fs::write(&path, HOT).unwrap();
    let mut c = Client::start(&root, Json::Null, &[]);
    let bad = HOT.replace("get_attr: [vol, size]", "get_resource: vlo");
    let u = c.open(&path, &bad);
    let d = c.diagnostics(&u);
    assert!(!d.is_empty(), "{d:?}");
    assert_eq!(d[0]["severity"], 1, "{d:?}");
    assert_eq!(
        d[0]["range"]["start"]["line"],
        position(&bad, "vlo", 0).0,
        "{d:?}"
    );
    c.change(&u, 2, HOT);
    let d = c.diagnostics(&u);
    assert!(d.iter().all(|x| x["severity"] != 1), "{d:?}");

    let def = c.at("textDocument/definition", &u, HOT, "get_param: size", 12);
    assert_eq!(
        line_of(&def["result"][0]),
        position(HOT, "  size:", 0).0 as i64,
        "{def}"
    );
    let def = c.at("textDocument/definition", &u, HOT, "[vol, size]", 2);
    assert_eq!(
        line_of(&def["result"][0]),
        position(HOT, "  vol:", 0).0 as i64,
        "{def}"
    );
    let refs = c.at("textDocument/references", &u, HOT, "  vol:", 3);
    assert_eq!(refs["result"].as_array().unwrap().len(), 3, "{refs}");

    let h = c.at("textDocument/hover", &u, HOT, "get_param: size", 12);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("value: `2`"), "{text}");
    let h = c.at("textDocument/hover", &u, HOT, "get_param: secret", 12);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !text.contains("hunter2") && text.contains("******"),
        "{text}"
    );
    let h = c.at("textDocument/hover", &u, HOT, "  srv:", 3);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("wave 1") && text.contains("`flavor` (required)"),
        "{text}"
    );

    let comp = c.at("textDocument/completion", &u, HOT, "      image", 6);
    let labels: Vec<String> = comp["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect();
    assert!(labels.iter().any(|l| l == "key_name"), "{labels:?}");
    let s = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(s["result"][1]["children"][1]["name"], "srv", "{s}");
    assert_eq!(c.stop(), 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HOT);
    let _ = std::fs::remove_dir_all(&root);
}

/// A deterministic random sequence (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The newest diagnostics published for each of `uris` (after a request,
/// so that every edit sent before it is processed).
fn newest(c: &mut Client, uris: &[String]) -> Vec<Vec<Json>> {
    let r = c.request("workspace/symbol", json!({"query": ""}));
    assert!(r.get("result").is_some());
    let mut out = Vec::new();
    for u in uris {
        let mut newest = None;
        c.notes.retain(|n| {
            if n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == u.as_str()
            {
                newest = Some(n["params"]["diagnostics"].as_array().unwrap().clone());
                false
            } else {
                true
            }
        });
        out.push(newest.unwrap_or_else(|| c.diagnostics(u)));
    }
    out
}

/// Edits that reach across files, one at a time: after each, the
/// diagnostics of the open files equal those a fresh server publishes
/// for the same texts (the incremental compile forgets what each edit
/// changes, and nothing more: requisites on IDs added and removed in
/// another file, an include dropped, a duplicate ID, `require_in` into
/// another file, a cycle, the pillar edited in the editor).
#[test]
fn edits_across_files_equal_a_fresh_server() {
    let root = example_tree("steps");
    let files = [
        root.join("salt/nginx/service.sls"),
        root.join("salt/app/init.sls"),
        root.join("pillar/web.sls"),
    ];
    let mut texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let mut c = Client::start(&root, Json::Null, &[]);
    let uris: Vec<String> = files
        .iter()
        .zip(&texts)
        .map(|(f, t)| c.open(f, t))
        .collect();
    let service = texts[0].clone();
    let app = texts[1].clone();
    let pillar = texts[2].clone();
    let steps: Vec<(usize, String)> = vec![
        // A requisite on an ID another file does not declare yet, then does.
        (
            0,
            format!("{service}    - require:\n      - cmd: app-migrate-2\n"),
        ),
        (1, app.replace("app-migrate:", "app-migrate-2:")),
        // The include dropped; an ID declared twice across files.
        (
            1,
            app.replace("  - nginx\n", "")
                .replace("app-migrate:", "app-migrate-2:"),
        ),
        (0, format!("{service}app-code:\n  test.nop: []\n")),
        // require_in into the other file; then a cycle across the files.
        (
            0,
            format!("{service}    - require_in:\n      - service: app-service\n"),
        ),
        (
            1,
            app.replace(
                "    - order: last",
                "    - require_in:\n      - service: nginx-service\n    - order: last",
            )
            .replace("app-migrate:", "app-migrate-2:"),
        ),
        (0, service.clone()),
        // The pillar in the editor: a value templates read, then broken.
        (
            2,
            pillar
                .replace("app:\n", "\n\napp:\n")
                .replace("name: shop", "name: outlet"),
        ),
        (2, pillar.replace("name: shop", "name: [outlet")),
        (2, pillar.clone()),
        // A misspelt argument, then the first texts again.
        (1, app.replace("- user: deploy", "- usr: deploy")),
        (1, app.clone()),
    ];
    let mut shown = 0;
    for (n, (f, text)) in steps.into_iter().enumerate() {
        texts[f] = text;
        c.change(&uris[f], n as i64 + 2, &texts[f]);
        let got = newest(&mut c, &uris);
        shown += got.iter().filter(|d| !d.is_empty()).count();
        let mut fresh = Client::start(&root, Json::Null, &[]);
        for (p, t) in files.iter().zip(&texts) {
            fresh.open(p, t);
        }
        let want = newest(&mut fresh, &uris);
        assert_eq!(fresh.stop(), 0);
        assert_eq!(got, want, "step {n}: editing {}", files[f].display());
        if texts[2].contains("name: outlet") {
            // The pillar buffer, in the hover of the key too (the value is
            // masked: where it was written shows the buffer was read).
            let h = c.at("textDocument/hover", &uris[1], &texts[1], "pillar.get", 2);
            let value = h["result"]["contents"]["value"]
                .as_str()
                .unwrap_or_default();
            assert!(value.contains("web.sls:11:9"), "{h}");
        }
    }
    // The steps make diagnostics to compare (not only empty lists).
    assert!(shown >= 6, "{shown} files with diagnostics over the steps");
    assert_eq!(c.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

fn peak_rss_kb(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Thousands of random edits (inserts, deletes, pastes of other files'
/// text) to open SLS and HOT files through the protocol, with requests in
/// between: every request is answered, the server survives, and the
/// diagnostics after the last edit equal those of a fresh server opening
/// the same texts. `LOWSTATE_LSP_SOAK=N` sets the number of edits (the long
/// run; 2000 by default).
#[test]
fn soak_random_edits() {
    let edits: usize = std::env::var("LOWSTATE_LSP_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let root = example_tree("soak");
    std::fs::write(root.join("stack.yaml"), HOT).unwrap();
    let files = [
        root.join("salt/nginx/service.sls"),
        root.join("salt/nginx/config.sls"),
        root.join("salt/app/init.sls"),
        root.join("pillar/web.sls"),
        root.join("stack.yaml"),
    ];
    let mut texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let pastes = texts.clone();
    let mut c = Client::start(&root, Json::Null, &[]);
    let pid = c.child.id();
    eprintln!("soak: peak RSS at the start {}", peak_rss_kb(pid));
    let uris: Vec<String> = files
        .iter()
        .zip(&texts)
        .map(|(f, t)| c.open(f, t))
        .collect();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut answered = 0;
    for i in 0..edits {
        let f = rng.below(files.len());
        let t = &mut texts[f];
        let at = lowstate::text::floor_char_boundary(t, rng.below(t.len() + 1));
        let (end, insert) = match rng.below(3) {
            0 => {
                let ins = [
                    "x",
                    ":",
                    "\n",
                    "  - ",
                    "{{",
                    "}}",
                    "{%",
                    "%}",
                    "- require:",
                    "'",
                    "é",
                ];
                (at, ins[rng.below(ins.len())].to_string())
            }
            1 => {
                let end = lowstate::text::floor_char_boundary(t, (at + rng.below(12)).min(t.len()));
                (end, String::new())
            }
            _ => {
                let src = &pastes[rng.below(pastes.len())];
                let s = lowstate::text::floor_char_boundary(src, rng.below(src.len()));
                let e =
                    lowstate::text::floor_char_boundary(src, (s + rng.below(80)).min(src.len()));
                (at, src[s..e].to_string())
            }
        };
        // Incremental sync: the range in the old text, in UTF-16 columns.
        let range = json!({"start": utf16_position(t, at), "end": utf16_position(t, end)});
        t.replace_range(at..end, &insert);
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uris[f], "version": i as i64 + 2},
                   "contentChanges": [{"range": range, "text": insert}]}),
        );
        if i % 50 == 0 {
            let method = [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
            ][rng.below(3)];
            let r = c.request(
                method,
                json!({"textDocument": {"uri": uris[f]},
                       "position": {"line": rng.below(20), "character": rng.below(30)}}),
            );
            assert!(r.get("result").is_some(), "{method} not answered: {r}");
            answered += 1;
        }
    }
    // The newest diagnostics of each file, after the last edit.
    let last = newest(&mut c, &uris);
    eprintln!(
        "soak: {edits} edits, {answered} requests answered; peak RSS at the end {}",
        peak_rss_kb(pid)
    );
    assert_eq!(c.stop(), 0);
    // A fresh server opening the final texts publishes the same.
    let mut fresh = Client::start(&root, Json::Null, &[]);
    for (f, t) in files.iter().zip(&texts) {
        fresh.open(f, t);
    }
    let want = newest(&mut fresh, &uris);
    for ((u, got), want) in uris.iter().zip(&last).zip(&want) {
        assert_eq!(
            got, want,
            "diagnostics of {u} differ from a fresh compile's"
        );
    }
    assert_eq!(fresh.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}
