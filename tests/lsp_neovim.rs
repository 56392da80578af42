//! `lowstate lsp` in a real editor: Debian's Neovim, headless, with its
//! built-in LSP client, opens an SLS whose requisite target is misspelt,
//! receives the diagnostic, jumps to a definition, then types two edits
//! (the fix, then a misspelt state function: an edit the server compiles
//! into its last plan) and gets their diagnostics, and writes what it saw
//! to a file this test reads back. Skipped, with a message, where `nvim`
//! is not installed (CI installs it in `.ci/run`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Neovim's side: start the server, open the file, wait for diagnostics,
/// jump to the definition of the requisite target under the cursor.
/// Written for Neovim 0.7 (Debian 12's) and later.
const SCRIPT: &str = r#"
local out = {}
local root = vim.env.LS_ROOT
local id = vim.lsp.start_client({ cmd = { vim.env.LS_BIN, 'lsp' }, root_dir = root, name = 'lowstate' })
vim.cmd('edit ' .. root .. '/salt/nginx/service.sls')
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code })
end
local line = vim.fn.search('file: nginx-config')
vim.api.nvim_win_set_cursor(0, { line, 16 })
local params = vim.lsp.util.make_position_params()
local res = vim.lsp.buf_request_sync(buf, 'textDocument/definition', params, 60000)
for _, r in pairs(res or {}) do
  if r.result and r.result[1] then
    vim.lsp.util.jump_to_location(r.result[1], 'utf-16')
  end
end
out.file = vim.api.nvim_buf_get_name(0)
out.line = vim.api.nvim_get_current_line()
-- Back in service.sls, typing: the requisite fixed (the tree compiled
-- whole), then the state function misspelt (compiled into the last plan).
vim.cmd('buffer ' .. buf)
local function replace(find, by)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s, e = l:find(find, 1, true)
    if s then
      vim.api.nvim_buf_set_text(buf, i - 1, s - 1, i - 1, e, { by })
      return
    end
  end
end
replace('nginx-pakage', 'nginx-package')
vim.wait(60000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
out.fixed = #vim.diagnostic.get(buf)
replace('service.running', 'service.runing')
vim.wait(60000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == 'unknown-function' then return true end
  end
  return false
end, 50)
out.typed = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out.typed, { lnum = d.lnum, col = d.col, code = d.code })
end
vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.LS_OUT)
vim.cmd('qa!')
"#;

#[test]
fn neovim_shows_the_diagnostic_and_jumps_to_the_definition() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("SKIPPED: nvim is not installed (apt-get install neovim); the Neovim LSP test did not run");
        return;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("lowstate-nvim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = dir.join("tree");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("state_tree"),
        &root,
    );
    let root = root.canonicalize().unwrap();
    let service = root.join("salt/nginx/service.sls");
    let text = std::fs::read_to_string(&service).unwrap();
    std::fs::write(
        &service,
        text.replace("pkg: nginx-package", "pkg: nginx-pakage"),
    )
    .unwrap();
    let script = dir.join("test.lua");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = dir.join("out.json");
    let status = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("LS_ROOT", &root)
        .env("LS_BIN", env!("CARGO_BIN_EXE_lowstate"))
        .env("LS_OUT", &out)
        .env("HOME", &dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .expect("run nvim");
    let seen = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "Neovim wrote no result: {}\n{}",
            String::from_utf8_lossy(&status.stdout),
            String::from_utf8_lossy(&status.stderr)
        )
    });
    let v: serde_json::Value = serde_json::from_str(&seen).unwrap();
    let d = &v["diagnostics"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(d[0]["code"], "missing-requisite", "{v}");
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .contains("did you mean `pkg: nginx-package`?"));
    // 0-based line and byte column of the misspelt target.
    assert_eq!(d[0]["lnum"], 8, "{v}");
    assert_eq!(d[0]["col"], 13, "{v}");
    assert_eq!(
        v["file"].as_str().unwrap(),
        root.join("salt/nginx/config.sls").display().to_string(),
        "{v}"
    );
    assert_eq!(v["line"], "nginx-config:", "{v}");
    // The edits typed afterwards: the fix clears the diagnostic, the
    // misspelt function gets one where it is written.
    assert_eq!(v["fixed"], 0, "{v}");
    let typed = &v["typed"];
    assert_eq!(typed.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(typed[0]["code"], "unknown-function", "{v}");
    assert_eq!(typed[0]["lnum"], 2, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
