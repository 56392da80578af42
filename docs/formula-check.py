#!/usr/bin/env python3
"""formula-check: render every SLS file of real Salt formulas with lowstate
and with Salt 3008.5, and count how many render the same.

Usage:
  docs/formula-check.py [options] FORMULA_DIR...

Each FORMULA_DIR is a formula checkout (e.g. a clone of
saltstack-formulas/nginx-formula); it becomes the `base` file root, and
every `*.sls` below its state directories (not `test/`, `docs/`, `bin/`,
top-level `_*/`, `files/`, `templates/`) is rendered once as SLS `a.b.c`.

Options:
  --lowstate BIN        lowstate binary (default: target/release/lowstate)
  --salt-python PY      python of a Salt 3008.5 venv (e.g. /tmp/salt-venv/bin/python);
                        Salt's side is rendered in-process, one process per formula
  --salt-cache FILE     JSON cache of Salt's renders (read if present, written
                        after Salt ran); Salt's output does not change while
                        lowstate is being fixed, so later runs skip Salt
  --grains FILE.json    grains for both sides (default: a fixed Debian 12 set)
  --mocks FILE.json     answers for minion-side functions, `mod.fun: value`,
                        used by both sides (default: the set below)
  --pillar-example      give both sides the formula's `pillar.example` as pillar
                        (copied to a pillar root as `example.sls`, top: '*': [example])
  --only SUBSTR         only SLS whose name contains SUBSTR
  --diff N              print a unified diff for the first N differing files
  --list                print one line per file with its verdict
  --json FILE           write every file's verdict as JSON

A file counts as rendered like Salt when both texts are byte-identical or,
failing that, both parse as YAML to equal data (PyYAML is needed for that
check: run this script with the Salt venv's python). Files that fail in both
are counted separately and are not counted as matches: "both-fail" when the
error's first line is Salt's, "errors-differ" otherwise.

Salt renders only its Jinja stage, like
`salt-call slsutil.renderer salt://PATH default_renderer=jinja sls=NAME`;
lowstate's side is `lowstate render -c CONFIGDIR NAME`. Nothing here is
needed by `cargo test`.
"""
import argparse
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

DEBIAN12_GRAINS = {
    "id": "formula-minion",
    "os": "Debian",
    "os_family": "Debian",
    "osfinger": "Debian-12",
    "osfullname": "Debian GNU/Linux",
    "osarch": "amd64",
    "cpuarch": "x86_64",
    "oscodename": "bookworm",
    "osrelease": "12",
    "osrelease_info": [12],
    "osmajorrelease": 12,
    "lsb_distrib_id": "Debian",
    "lsb_distrib_codename": "bookworm",
    "lsb_distrib_release": "12",
    "kernel": "Linux",
    "kernelrelease": "6.1.0-18-amd64",
    "init": "systemd",
    "pythonversion": [3, 11, 2, "final", 0],
    "saltversion": "3008.5",
    "saltversioninfo": [3008, 5],
    "fqdn": "formula-minion.example.org",
    "host": "formula-minion",
    "domain": "example.org",
    "nodename": "formula-minion",
    "num_cpus": 2,
    "mem_total": 3933,
    "virtual": "physical",
    "selinux": {"enabled": False, "enforced": "Disabled"},
    "systemd": {"version": "252", "features": "+PAM +AUDIT"},
    "ipv4": ["127.0.0.1", "192.0.2.10"],
    "ipv6": ["::1"],
    "fqdn_ip4": ["192.0.2.10"],
    "path": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
}

# Minion-side functions the formulas call; each answers the same on both sides.
DEFAULT_MOCKS = {
    "cmd.run": "",
    "cmd.shell": "",
    "cmd.run_all": {"pid": 0, "retcode": 0, "stdout": "", "stderr": ""},
    "cmd.run_stdout": "",
    "cmd.which": None,
    "cmd.has_exec": False,
    "user.info": {},
    "file.directory_exists": False,
    "file.file_exists": False,
    "file.readdir": [".", ".."],
    "file.contains_regex": False,
    "file.get_user": "root",
    "mine.get": {},
    "pkg.version": "",
    "pkg.version_cmp": 0,
    "alternatives.show_current": False,
    "git.current_branch": "",
    "status.time": "26-01-01_00:00:00",
}

SKIP_DIRS = {"test", "tests", "docs", "bin", "files", "templates", "dev", "scripts", ".git", ".github"}


def sls_files(root):
    """(sls name, relative path) of every SLS file of a formula checkout."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        depth = 0 if rel_dir == "." else rel_dir.count(os.sep) + 1
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS and not d.startswith(".")
            and not (depth == 0 and d.startswith("_"))  # _modules, _pillar, ...
        )
        if depth == 0:
            continue  # top-level files (e.g. a stray top.sls) are not formula states
        for f in sorted(filenames):
            if not f.endswith(".sls"):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, f))
            parts = rel[: -len(".sls")].split(os.sep)
            if parts[-1] == "init" and len(parts) > 1:
                parts = parts[:-1]
            out.append((".".join(parts), rel))
    return out


# ---------------------------------------------------------------------------
# Salt's side: runs inside the Salt venv (this same file, --salt-worker mode)
# ---------------------------------------------------------------------------

def salt_worker(spec_path):
    with open(spec_path) as fh:
        spec = json.load(fh)
    import logging
    logging.disable(logging.CRITICAL)
    import salt.client
    import salt.config

    tmp = tempfile.mkdtemp(prefix="formula-check-salt-")
    pillar_root = spec.get("pillar_root") or os.path.join(tmp, "pillar")
    os.makedirs(pillar_root, exist_ok=True)
    cfg = {
        "id": spec["grains"].get("id", "formula-minion"),
        "file_client": "local",
        "root_dir": os.path.join(tmp, "root"),
        "log_file": os.path.join(tmp, "root", "minion.log"),
        "log_level_logfile": "critical",
        "file_roots": {"base": [spec["root"]]},
        "pillar_roots": {"base": [pillar_root]},
        "enable_fqdns_grains": False,
        "grains": spec["grains"],
        "grains_blacklist": ["*"],
    }
    cfgdir = os.path.join(tmp, "cfg")
    os.makedirs(cfgdir)
    with open(os.path.join(cfgdir, "minion"), "w") as fh:
        json.dump(cfg, fh)
    opts = salt.config.minion_config(os.path.join(cfgdir, "minion"))
    opts["__cli"] = "salt-call"
    caller = salt.client.Caller(mopts=opts)
    funcs = caller.sminion.functions

    def const(value):
        return lambda *a, **k: json.loads(json.dumps(value))

    for name, value in spec["mocks"].items():
        funcs[name] = const(value)
    if spec.get("pillar_root"):
        # The pillar was compiled before the mocks existed: compile it again
        # with them, into the same object the modules hold.
        import salt.pillar
        fresh = salt.pillar.get_pillar(
            opts, opts["grains"], opts["id"], opts["saltenv"],
            pillarenv=opts.get("pillarenv"), funcs=funcs,
        ).compile_pillar()
        target = caller.sminion.opts["pillar"]
        target.clear()
        target.update(fresh)
    render = funcs["slsutil.renderer"]

    def render_one(sls, rel):
        try:
            text = render(
                "salt://" + rel.replace(os.sep, "/"),
                default_renderer="jinja",
                sls=sls,
            )
            if not isinstance(text, str):
                text = json.dumps(text, default=repr)
            return {"ok": True, "text": text}
        except BaseException as exc:  # Salt raises SaltRenderError and friends
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}

    # Templates can change state that outlives a render (the pillar's own
    # dicts, loader caches): render each file in a forked child so every
    # file sees the minion as it was after start-up.
    results = {}
    for sls, rel in spec["files"]:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            with os.fdopen(wfd, "w") as out:
                json.dump(render_one(sls, rel), out)
            os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd) as inp:
            data = inp.read()
        os.waitpid(pid, 0)
        try:
            results[sls] = json.loads(data)
        except ValueError:
            results[sls] = {"ok": False, "error": "worker died"}
    json.dump(results, sys.stdout)


def salt_side(py, root, files, grains, mocks, pillar_root):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"root": root, "files": files, "grains": grains, "mocks": mocks,
                   "pillar_root": pillar_root}, fh)
        spec = fh.name
    try:
        p = subprocess.run(
            [py, os.path.abspath(__file__), "--salt-worker", spec],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONWARNINGS="ignore"),
        )
    finally:
        os.unlink(spec)
    if p.returncode != 0:
        sys.exit(f"formula-check: Salt worker failed for {root}:\n{p.stderr}")
    return json.loads(p.stdout)


# ---------------------------------------------------------------------------
# lowstate's side
# ---------------------------------------------------------------------------

def lowstate_side(binary, root, files, grains, mocks, pillar_root):
    results = {}
    with tempfile.TemporaryDirectory(prefix="formula-check-") as cfgdir:
        cfg = {
            "id": grains.get("id", "formula-minion"),
            "grains": grains,
            "file_roots": {"base": [root]},
            "mocks": mocks,
        }
        if pillar_root:
            cfg["pillar_roots"] = {"base": [pillar_root]}
        with open(os.path.join(cfgdir, "minion"), "w") as fh:
            json.dump(cfg, fh)  # JSON is valid YAML
        for sls, _rel in files:
            p = subprocess.run(
                [binary, "render", "-c", cfgdir, sls],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
            out = p.stdout.decode("utf-8", "replace")
            err = p.stderr.decode("utf-8", "replace")
            if p.returncode == 0:
                results[sls] = {"ok": True, "text": out}
            else:
                results[sls] = {"ok": False, "error": err.strip() or out.strip()}
    return results


# ---------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------

def yaml_equal(a, b):
    try:
        import yaml
    except ImportError:
        return False
    try:
        return yaml.safe_load(a) == yaml.safe_load(b)
    except Exception:
        return False


def error_text(result, side):
    """The first line of a render error, as Salt would print it after
    `Rendering SLS '...' failed: `."""
    lines = (result.get("error") or "").split("\n")
    if side == "salt":
        head = lines[0].split(": ", 1)[-1]  # drop the exception class
        # A Python traceback (TemplateNotFound, raise()) comes before Salt's
        # "; line N"; lowstate leaves the traceback out (COMPATIBILITY.md).
        if len(lines) > 1 and lines[1].startswith("Traceback (most recent call last)"):
            line_no = re.search(r"^; line \d+$", result["error"], re.M)
            head += line_no.group(0) if line_no else ""
        return head
    # lowstate also prints pillar diagnostics; Salt renders on regardless.
    heads = [l for l in lines if l.startswith("error[")]
    head = next((l for l in heads if not l.startswith("error[pillar")), heads[0] if heads else "")
    return head.split(" failed: ", 1)[-1]


def verdict(salt, ours):
    if salt["ok"] and ours["ok"]:
        if salt["text"] == ours["text"]:
            return "identical"
        if yaml_equal(salt["text"], ours["text"]):
            return "yaml-equal"
        return "differs"
    if not salt["ok"] and not ours["ok"]:
        return "both-fail" if error_text(salt, "salt") == error_text(ours, "ours") else "errors-differ"
    return "salt-fails" if not salt["ok"] else "we-fail"


COLUMNS = ["identical", "yaml-equal", "differs", "we-fail", "salt-fails", "both-fail", "errors-differ"]


def main(argv):
    if len(argv) == 2 and argv[0] == "--salt-worker":
        return salt_worker(argv[1])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("formulas", nargs="+")
    ap.add_argument("--lowstate", default="target/release/lowstate")
    ap.add_argument("--salt-python")
    ap.add_argument("--salt-cache")
    ap.add_argument("--grains")
    ap.add_argument("--mocks")
    ap.add_argument("--pillar-example", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--diff", type=int, default=0)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args(argv)

    grains = DEBIAN12_GRAINS
    if a.grains:
        with open(a.grains) as fh:
            grains = json.load(fh)
    mocks = DEFAULT_MOCKS
    if a.mocks:
        with open(a.mocks) as fh:
            mocks = json.load(fh)
    binary = os.path.abspath(a.lowstate)
    cache = {}
    if a.salt_cache and os.path.isfile(a.salt_cache):
        with open(a.salt_cache) as fh:
            cache = json.load(fh)
    cache_dirty = False

    rows, report, diffs_left = [], [], a.diff
    for froot in a.formulas:
        root = os.path.abspath(froot)
        name = os.path.basename(root.rstrip("/"))
        files = sls_files(root)
        if a.only:
            files = [f for f in files if a.only in f[0]]
        if not files:
            continue
        # Salt's answers depend on the tree, the pillar, the grains and the mocks.
        inputs = json.dumps([grains, mocks], sort_keys=True).encode()
        key = root + "|" + hashlib.sha1(inputs).hexdigest()[:12]
        pillar_root = None
        if a.pillar_example:
            example = os.path.join(root, "pillar.example")
            if not os.path.isfile(example):
                continue
            key += "|pillar.example"
            pillar_root = tempfile.mkdtemp(prefix="formula-check-pillar-")
            with open(example) as src, open(os.path.join(pillar_root, "example.sls"), "w") as dst:
                dst.write(src.read())
            with open(os.path.join(pillar_root, "top.sls"), "w") as fh:
                fh.write("base:\n  '*':\n    - example\n")
        salt = cache.get(key, {})
        missing = [f for f in files if f[0] not in salt]
        if missing:
            if not a.salt_python:
                sys.exit(f"formula-check: no Salt results for {name}; pass --salt-python")
            salt.update(salt_side(a.salt_python, root, missing, grains, mocks, pillar_root))
            cache[key] = salt
            cache_dirty = True
        ours = lowstate_side(binary, root, files, grains, mocks, pillar_root)
        counts = dict.fromkeys(COLUMNS, 0)
        for sls, rel in files:
            v = verdict(salt[sls], ours[sls])
            counts[v] += 1
            report.append({"formula": name, "sls": sls, "verdict": v,
                           "salt": salt[sls], "lowstate": ours[sls]})
            if a.list:
                print(f"{v:11} {name}: {sls}")
            if v in ("differs", "we-fail", "salt-fails", "errors-differ") and diffs_left > 0:
                diffs_left -= 1
                show(name, sls, salt[sls], ours[sls])
        rows.append((name, len(files), counts))

    if cache_dirty and a.salt_cache:
        with open(a.salt_cache, "w") as fh:
            json.dump(cache, fh)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(report, fh, indent=1)

    head = ["formula", "SLS"] + COLUMNS + ["like Salt"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    total_n, total = 0, dict.fromkeys(COLUMNS, 0)
    for name, n, c in rows:
        like = c["identical"] + c["yaml-equal"]
        print("| " + " | ".join([name, str(n)] + [str(c[k]) for k in COLUMNS] + [f"{like}/{n}"]) + " |")
        total_n += n
        for k in COLUMNS:
            total[k] += c[k]
    like = total["identical"] + total["yaml-equal"]
    print("| **total** | " + " | ".join([str(total_n)] + [str(total[k]) for k in COLUMNS] + [f"{like}/{total_n}"]) + " |")
    print(f"\n{like}/{total_n} rendered like Salt "
          f"({total['identical']} byte-identical, {total['yaml-equal']} equal as YAML; "
          f"{total['both-fail']} fail in both with Salt's message, "
          f"{total['errors-differ']} fail in both with another message)")
    return 0


def show(name, sls, salt, ours):
    print(f"=== {name}: {sls}")
    if not salt["ok"] or not ours["ok"]:
        print("  salt:     " + (salt.get("error") or "ok")[:2000])
        print("  lowstate: " + (ours.get("error") or "ok")[:2000])
        return
    for line in difflib.unified_diff(
        salt["text"].splitlines(True), ours["text"].splitlines(True),
        "salt", "lowstate", n=1,
    ):
        sys.stdout.write(line if line.endswith("\n") else line + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
