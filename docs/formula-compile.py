#!/usr/bin/env python3
"""formula-compile: compile real Salt formulas end to end with lowstate and
with Salt 3008.5, and compare the lowstate lists.

Usage:
  docs/formula-compile.py [options] FORMULA_DIR...

Each FORMULA_DIR is a formula checkout (e.g. a clone of
saltstack-formulas/nginx-formula). The tree gets a top file that applies
the formula's main SLS (the one named like the directory) to the minion;
both sides run `state.show_lowstate` with the grains and mocked minion-side
functions of docs/formula-check.py, or, with --os NAME, lowstate with only
`--os NAME` (no grains, no mocks) and Salt with the grains `lowstate grains
--os NAME` prints as its config grains (its host answers the minion-side
functions). Prints one line per formula:

  SAME        both printed the same lowstate (list order and values)
  DIFF        both compiled, to different lists (first differing chunk)
  WE-FAIL     Salt compiled, lowstate did not
  SALT-FAILS  Salt failed; lowstate's exit code is shown (1 = failed too)
  SKIP        no main SLS

With --check, Salt is not run: each formula's tree goes through
`lowstate check` instead and the findings are counted by code (one line
per formula, then the totals; --list prints every finding).

Options:
  --check               count `lowstate check` findings instead of comparing
  --list                with --check: print every finding
  --lowstate BIN        lowstate binary (default: target/release/lowstate)
  --salt-python PY      python of a Salt 3008.5 venv (default: $SALT_VENV/bin/python)
  --pillar-example      give both sides the formula's `pillar.example` as pillar
  --keep                keep the work directories of formulas that differ
  --os NAME             lowstate gets only `--os NAME`; Salt gets that profile's grains

Nothing here is needed by `cargo test`.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def formula_check():
    """docs/formula-check.py as a module: its grains, mocks and SLS walk."""
    spec = importlib.util.spec_from_file_location("formula_check", os.path.join(HERE, "formula-check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def salt_worker(spec_path, out_path):
    """Salt's side (runs inside the Salt venv): show_lowstate with mocks in
    every loader the state system builds."""
    with open(spec_path) as fh:
        spec = json.load(fh)
    import salt.client
    import salt.config
    import salt.loader

    def const(value):
        return lambda *a, **k: json.loads(json.dumps(value))

    real_minion_mods = salt.loader.minion_mods

    def minion_mods(*a, **k):
        funcs = real_minion_mods(*a, **k)
        for name, value in spec["mocks"].items():
            funcs[name] = const(value)
        return funcs

    salt.loader.minion_mods = minion_mods
    opts = salt.config.minion_config(spec["config"])
    opts["__cli"] = "salt-call"
    funcs = salt.client.Caller(mopts=opts).sminion.functions
    try:
        out = {"ok": True, "value": funcs["state.show_lowstate"]()}
    except BaseException as exc:  # Salt raises CommandExecutionError and friends
        out = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    with open(out_path, "w") as fh:
        json.dump(out, fh, default=repr)


def profile_grains(binary, os_name, config_dir):
    """The grains `lowstate grains --os NAME` prints for lowstate's config
    (what a minion of that OS profile has), for Salt's config."""
    out = subprocess.run([binary, "grains", "-c", config_dir, "--os", os_name, "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    grains = json.loads(out)
    return grains.get("local", grains)


def tree(root, name, fc, pillar_example, binary, os_name=None):
    """The work directory of one formula: a top file applying its main SLS,
    the pillar, and the two minion configs (Salt's, lowstate's). With
    `os_name` (--os), lowstate's config sets no grains and no mocks and
    Salt's sets that profile's grains over its own core grains."""
    work = tempfile.mkdtemp(prefix="formula-compile-")
    for d in ("top", "pillar", "root", "salt-cfg", "ours"):
        os.makedirs(os.path.join(work, d))
    with open(os.path.join(work, "top", "top.sls"), "w") as fh:
        fh.write(f"base:\n  '*':\n    - {name}\n")
    example = os.path.join(root, "pillar.example")
    if pillar_example and os.path.isfile(example):
        shutil.copy(example, os.path.join(work, "pillar", "example.sls"))
        with open(os.path.join(work, "pillar", "top.sls"), "w") as fh:
            fh.write("base:\n  '*':\n    - example\n")
    common = {
        "id": fc.DEBIAN12_GRAINS["id"],
        "file_roots": {"base": [os.path.join(work, "top"), root]},
        "pillar_roots": {"base": [os.path.join(work, "pillar")]},
    }
    ours = common if os_name else dict(common, grains=fc.DEBIAN12_GRAINS, mocks=fc.DEFAULT_MOCKS)
    with open(os.path.join(work, "ours", "minion"), "w") as fh:
        json.dump(ours, fh)
    grains = profile_grains(binary, os_name, os.path.join(work, "ours")) if os_name else fc.DEBIAN12_GRAINS
    salt_cfg = dict(common, grains=grains, file_client="local", root_dir=os.path.join(work, "root"),
                    enable_fqdns_grains=False, log_file=os.path.join(work, "root", "log"))
    if os_name is None:
        salt_cfg["grains_blacklist"] = ["*"]
    with open(os.path.join(work, "salt-cfg", "minion"), "w") as fh:
        json.dump(salt_cfg, fh)
    return work


def main_sls(froot, fc):
    """The formula's root and main SLS name, or None when it has none."""
    root = os.path.abspath(froot)
    name = os.path.basename(root.rstrip("/"))
    return (root, name) if name in [s for s, _ in fc.sls_files(root)] else (root, None)


def check(froot, fc, binary, pillar_example, listing, totals):
    """`lowstate check` on one formula's tree: findings by code."""
    root, name = main_sls(froot, fc)
    if name is None:
        return f"SKIP        {os.path.basename(root)}: no main SLS"
    work = tree(root, name, fc, pillar_example, binary)
    r = subprocess.run([binary, "check", "-c", os.path.join(work, "ours"), "--format", "json"],
                       capture_output=True, text=True)
    shutil.rmtree(work)
    try:
        diags = json.loads(r.stdout)["diagnostics"]
    except (ValueError, KeyError):
        first = (r.stderr.strip().splitlines() or [""])[0]
        return f"NO-COMPILE  {name}: {first[:160]}"
    counts = {}
    for d in diags:
        key = f"{d['severity']} {d['code']}"
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, 0) + 1
        if listing:
            p = d.get("primary") or {}
            where = f"{os.path.relpath(p['file'], root) if p.get('file', '').startswith(root) else p.get('file')}:{p.get('line')}" if p else "-"
            print(f"    {name} {where} {d['severity']} {d['code']}: {d['message'].splitlines()[0]}")
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no findings"
    return f"CHECKED     {name}: {summary}"


def compare(froot, fc, binary, salt_python, pillar_example, keep, os_name=None):
    root, name = main_sls(froot, fc)
    if name is None:
        return f"SKIP        {os.path.basename(root)}: no main SLS"
    work = tree(root, name, fc, pillar_example, binary, os_name)
    spec = os.path.join(work, "spec.json")
    mocks = {} if os_name else fc.DEFAULT_MOCKS
    with open(spec, "w") as fh:
        json.dump({"config": os.path.join(work, "salt-cfg", "minion"), "mocks": mocks}, fh)
    salt_out = os.path.join(work, "salt.json")
    subprocess.run([salt_python, os.path.abspath(__file__), "--salt-worker", spec, salt_out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with open(salt_out) as fh:
            salt = json.load(fh)
    except (OSError, ValueError):
        salt = {"ok": False, "error": "Salt printed nothing"}
    os_args = ["--os", os_name] if os_name else []
    r = subprocess.run([binary, "compile", "-c", os.path.join(work, "ours")] + os_args,
                       capture_output=True, text=True)
    ours = json.loads(r.stdout) if r.returncode == 0 else None
    tag = f"{name}{' (pillar.example)' if pillar_example else ''}{f' --os {os_name}' if os_name else ''}"
    value = salt.get("value")
    salt_ok = salt["ok"] and isinstance(value, list) and all(isinstance(c, dict) for c in value)
    same = salt_ok and ours == value
    if same or not keep:
        shutil.rmtree(work)
    where = "" if same or not keep else f" [{work}]"
    if not salt_ok:
        why = salt.get("error") if not salt["ok"] else str(value)
        return f"SALT-FAILS  {tag}: lowstate exit {r.returncode}; Salt: {why.splitlines()[0][:160]}{where}"
    if same:
        return f"SAME        {tag}: {len(ours)} chunks"
    if ours is None:
        first = (r.stderr.strip().splitlines() or [""])[0]
        return f"WE-FAIL     {tag}: {first[:160]}{where}"
    n = min(len(ours), len(value))
    i = next((i for i in range(n) if ours[i] != value[i]), n)
    return f"DIFF        {tag}: first at chunk {i} (ours {len(ours)}, Salt {len(value)}){where}"


def main(argv):
    if len(argv) == 3 and argv[0] == "--salt-worker":
        return salt_worker(argv[1], argv[2])
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("formulas", nargs="+")
    ap.add_argument("--lowstate", default="target/release/lowstate")
    ap.add_argument("--salt-python", default=os.path.join(os.environ.get("SALT_VENV", ".salt-venv"), "bin", "python"))
    ap.add_argument("--pillar-example", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--os", dest="os_name")
    a = ap.parse_args(argv)
    fc = formula_check()
    binary = os.path.abspath(a.lowstate)
    counts = {}
    if a.check:
        totals = {}
        for froot in a.formulas:
            line = check(froot, fc, binary, a.pillar_example, a.list, totals)
            print(line, flush=True)
            verdict = line.split()[0]
            counts[verdict] = counts.get(verdict, 0) + 1
        print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        print("findings: " + (", ".join(f"{k} {v}" for k, v in sorted(totals.items())) or "none"))
        return 0
    for froot in a.formulas:
        line = compare(froot, fc, binary, a.salt_python, a.pillar_example, a.keep, a.os_name)
        print(line, flush=True)
        verdict = line.split()[0]
        counts[verdict] = counts.get(verdict, 0) + 1
    print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
