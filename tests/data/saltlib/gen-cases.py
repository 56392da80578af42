#!/usr/bin/env python3
"""Render cases.txt through real Salt and write expected.json.

Usage (Salt 3008.5 installed with shared/oracle/install-salt):

    SALT_VENV=/tmp/salt-venv ./gen-cases.py /work/shared/oracle/salt-oracle > expected.json
    SALT_VENV=/tmp/salt-venv ./gen-cases.py /work/shared/oracle/salt-oracle cases-yaml.txt > expected-yaml.json

Every case is rendered by Salt's own Jinja stage
(`salt-oracle call TREE slsutil.renderer salt://case.jinja default_renderer=jinja`)
with the pillar of fixture/pillar.sls and the grains of fixture/grains.json.
The pillar, grains and a few opts Salt used are stored beside the answers so
the Rust tests give the same data to our implementation.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = sys.argv[1]
CASES = sys.argv[2] if len(sys.argv) > 2 else "cases.txt"
OPTS_KEYS = ["renderer", "state_top", "hash_type", "file_client", "id", "pillar_merge_lists",
             "pillar_raise_on_missing", "saltenv", "pillarenv", "test"]


def parse_cases(text):
    cases, name, lines = [], None, []
    for line in text.splitlines(keepends=True):
        if line.startswith("### "):
            if name:
                cases.append((name, "".join(lines)))
            name, lines = line[4:].strip(), []
        elif name is not None:
            lines.append(line)
    if name:
        cases.append((name, "".join(lines)))
    return cases


def run(tree, pil, *args):
    cmd = [ORACLE, *args[:1], tree, *args[1:], "--pillar-root", pil,
           "--grains", os.path.join(HERE, "fixture", "grains.json")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def render(tree, pil, fname):
    rc, out, err = run(tree, pil, "call", "slsutil.renderer", f"salt://{fname}",
                       "default_renderer=jinja")
    m = re.search(r"Jinja error: (.*)", out + err)
    if rc == 0 and out.strip():
        try:
            return {"out": json.loads(out)}
        except ValueError:
            pass
    if m:
        return {"error": m.group(1).strip()}
    return {"error": (out + err).strip().splitlines()[-1] if (out + err).strip() else f"rc={rc}"}


def main():
    cases = parse_cases(open(os.path.join(HERE, CASES)).read())
    with tempfile.TemporaryDirectory() as tmp:
        tree, pil = os.path.join(tmp, "tree"), os.path.join(tmp, "pillar")
        os.makedirs(tree)
        os.makedirs(pil)
        with open(os.path.join(pil, "top.sls"), "w") as f:
            f.write("base:\n  '*':\n    - data\n")
        with open(os.path.join(pil, "data.sls"), "w") as f:
            f.write(open(os.path.join(HERE, "fixture", "pillar.sls")).read())
        fixture = {}
        for mode in ("pillar", "grains"):
            rc, out, _ = run(tree, pil, mode)
            fixture[mode] = json.loads(out)
        rc, out, _ = run(tree, pil, "call", "config.items")
        opts = json.loads(out)
        fixture["opts"] = {k: opts[k] for k in OPTS_KEYS if k in opts}

        results = {}
        batch = [(n, t) for n, t in cases if not n.startswith("err_")]
        marker = "@@@CASE {}@@@\n"
        with open(os.path.join(tree, "batch.jinja"), "w") as f:
            for n, t in batch:
                f.write(marker.format(n) + t)
        r = render(tree, pil, "batch.jinja")
        if "out" in r:
            parts = re.split(r"@@@CASE (.+?)@@@\n", r["out"])
            for i in range(1, len(parts), 2):
                results[parts[i]] = {"out": parts[i + 1].rstrip("\n")}
        todo = [(n, t) for n, t in cases if n not in results]
        for n, t in todo:
            fname = f"c_{n}.jinja"
            with open(os.path.join(tree, fname), "w") as f:
                f.write(t)
            r = render(tree, pil, fname)
            if "out" in r:
                r["out"] = r["out"].rstrip("\n")
            results[n] = r
    json.dump({"generated_by": "tests/data/saltlib/gen-cases.py (real Salt 3008.5)",
               "fixture": fixture, "cases": {n: results[n] for n, _ in cases}},
              sys.stdout, indent=1, ensure_ascii=False)
    print()


main()
