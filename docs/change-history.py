#!/usr/bin/env python3
"""change-history: the change report of each of the last commits of real
Salt formulas, against its parent, on a small fleet.

Usage:
  docs/change-history.py [options] REPO...

Each REPO is a formula repository (a path or URL git can clone, e.g.
https://github.com/saltstack-formulas/nginx-formula); its main SLS is the
repository's name without `-formula`. For each of its last N commits
(first parent) the commit's tree and its parent's are extracted, each
with a top file applying the main SLS to every minion and the commit's
own `pillar.example` as pillar, and `lowstate fleet --diff` compares them
on five minions (two Debian 12, two Ubuntu 24.04, one Rocky Linux 9: the
OS profiles come from their `osfinger` grain). Prints one line per
commit:

  FORMULA SHA  what the report says  | the commit's subject

where the report is summarised as the minions with changes, the states
added / removed / changed and the files whose content changes (when the
report has them), or the minions that fail on one side.

Options:
  --lowstate BIN   lowstate binary (default: target/release/lowstate)
  --commits N      commits per formula (default 20)
  --work DIR       where to clone and extract (default: a temp dir, removed)
  --format FMT     also keep each report in FMT (text, markdown, html...)
                   under WORK/reports (needs --work)

Nothing here is needed by `cargo test`.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

MINIONS = [
    ("debian-a", "Debian-12"),
    ("debian-b", "Debian-12"),
    ("ubuntu-a", "Ubuntu-24.04"),
    ("ubuntu-b", "Ubuntu-24.04"),
    ("rocky-a", "Rocky Linux-9"),
]


def formula_check():
    """docs/formula-check.py as a module (its mocks)."""
    spec = importlib.util.spec_from_file_location("formula_check", os.path.join(HERE, "formula-check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def side(repo, rev, dest, name, mocks):
    """A config directory compiling `name` from `rev` of `repo`."""
    src = os.path.join(dest, "src")
    os.makedirs(src)
    archive = subprocess.run(["git", "-C", repo, "archive", "--format=tar", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    os.makedirs(os.path.join(dest, "top"))
    with open(os.path.join(dest, "top", "top.sls"), "w") as fh:
        fh.write(f"base:\n  '*':\n    - {name}\n")
    os.makedirs(os.path.join(dest, "pillar"))
    example = os.path.join(src, "pillar.example")
    if os.path.isfile(example):
        shutil.copy(example, os.path.join(dest, "pillar", "example.sls"))
        with open(os.path.join(dest, "pillar", "top.sls"), "w") as fh:
            fh.write("base:\n  '*':\n    - example\n")
    with open(os.path.join(dest, "minion"), "w") as fh:
        json.dump({
            "file_roots": {"base": ["top", "src"]},
            "pillar_roots": {"base": ["pillar"]},
            "mocks": mocks,
        }, fh)


def summary(stdout, stderr, code):
    """One line for a `fleet --diff` run: the report's JSON document when
    it prints one, else the per-minion lines."""
    text = stdout.strip()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        return summary_report(doc, code)
    minions = added = removed = changed = failed = 0
    sls = set()
    fails = set()
    for line in text.splitlines():
        v = json.loads(line)
        if not v.get("ok"):
            failed += 1
            o, n = v.get("old_errors"), v.get("new_errors")
            if o and n:
                fails.add("both fail" + (" alike" if o == n else " differently") + f": {n[0][:90]}")
            elif n:
                fails.add(f"new fails: {n[0][:90]}")
            else:
                fails.add(f"old failed, new compiles: {o[0][:90]}")
            continue
        a, r, c = v.get("added", []), v.get("removed", []), v.get("changed", [])
        if a or r or c:
            minions += 1
        added, removed, changed = added + len(a), removed + len(r), changed + len(c)
        sls |= {x["sls"] for x in a + r + c}
    if failed:
        return f"FAIL {failed}/5 minions ({'; '.join(sorted(fails))})"
    if not minions:
        return "no change on any minion"
    return (f"{minions}/5 minions: +{added} -{removed} ~{changed} states "
            f"in {', '.join(sorted(sls))}")


def summary_report(doc, code):
    """One line for a change report (the JSON of `--format json`): per
    group, its minions, failures, states by change and section, files."""
    parts = []
    for g in doc.get("groups", []):
        n = len(g.get("targets", []))
        desc = []
        for f in g.get("failures", []):
            msg = (f.get("messages") or [""])[0].splitlines()[0][:80]
            desc.append(f"{f.get('side')} tree FAILS: {msg}")
        kinds = {}
        for it in g.get("items", []):
            kinds[it["change"]] = kinds.get(it["change"], 0) + 1
        if kinds:
            sections = sorted({it["section"] for it in g["items"]})
            desc.append(" ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
                        + " states in " + ", ".join(sections))
        changed_args = sorted({":".join(v["path"]) for it in g.get("items", [])
                               for v in it.get("values", [])})
        if changed_args:
            desc.append("args " + ", ".join(changed_args[:6]) + (" …" if len(changed_args) > 6 else ""))
        files = g.get("files", [])
        if files:
            desc.append("files " + ", ".join(f"{f['path']} ({f['change']})" for f in files[:4])
                        + (" …" if len(files) > 4 else ""))
        if g.get("order"):
            desc.append(f"{len(g['order'])} order change(s)")
        parts.append(f"[{n}] " + "; ".join(desc))
    if not parts:
        return "no change on any minion" + (f" (exit {code})" if code else "")
    return " || ".join(parts)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--lowstate", default=os.path.join(HERE, "..", "target", "release", "lowstate"))
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--work")
    ap.add_argument("--format")
    a = ap.parse_args(argv)
    mocks = formula_check().DEFAULT_MOCKS
    work = a.work or tempfile.mkdtemp(prefix="change-history-")
    os.makedirs(work, exist_ok=True)
    fleet = os.path.join(work, "minions.yaml")
    with open(fleet, "w") as fh:
        for mid, finger in MINIONS:
            fh.write(f"- id: {mid}\n  grains: {{osfinger: '{finger}'}}\n")
    # A lowstate with the change report takes `fleet --diff --format json`;
    # an older one prints a JSON line per minion.
    helptext = subprocess.run([a.lowstate, "fleet", "--help"], capture_output=True, text=True).stdout
    report_json = "--format" in helptext
    try:
        for url in a.repos:
            repo_name = os.path.basename(url.rstrip("/")).removesuffix(".git")
            name = repo_name.split("+")[-1].removesuffix("-formula")
            repo = os.path.join(work, "repos", name)
            if not os.path.isdir(repo):
                subprocess.run(["git", "clone", "-q", "--bare", url, repo], check=True)
            shas = git(repo, "log", "--first-parent", f"-n{a.commits}", "--format=%H").split()
            for sha in shas:
                subject = git(repo, "log", "-1", "--format=%s", sha).strip()
                parents = git(repo, "log", "-1", "--format=%P", sha).split()
                if not parents:
                    print(f"{name:8} {sha[:8]}  root commit | {subject}", flush=True)
                    continue
                pair = os.path.join(work, "trees", name, sha[:12])
                shutil.rmtree(pair, ignore_errors=True)
                side(repo, parents[0], os.path.join(pair, "old"), name, mocks)
                side(repo, sha, os.path.join(pair, "new"), name, mocks)
                cmd = [a.lowstate, "fleet", "-c", os.path.join(pair, "new"), "--minions", fleet,
                       "--diff", os.path.join(pair, "old")]
                has_format = a.format is not None
                r = subprocess.run(cmd + (["--format", "json"] if report_json else []),
                                   capture_output=True, text=True)
                if r.returncode == 2:
                    line = "USAGE " + r.stderr.strip().splitlines()[-1]
                else:
                    line = summary(r.stdout, r.stderr, r.returncode)
                print(f"{name:8} {sha[:8]}  {line} | {subject[:70]}", flush=True)
                if has_format:
                    out = os.path.join(work, "reports", name)
                    os.makedirs(out, exist_ok=True)
                    rf = subprocess.run(cmd + ["--format", a.format], capture_output=True, text=True)
                    with open(os.path.join(out, f"{sha[:8]}.{a.format}"), "w") as fh:
                        fh.write(rf.stdout)
                shutil.rmtree(pair, ignore_errors=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
