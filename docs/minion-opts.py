#!/usr/bin/env python3
"""minion-opts: write src/salt/minion_opts.json, the options Salt 3008.5
shows a template as `opts` (and `config.get` reads) when nothing in the
minion config sets them.

Usage:
  SALT_VENV=/tmp/salt-venv docs/minion-opts.py [OUT]   (default OUT: src/salt/minion_opts.json)

How: a one-state tree whose template prints `opts|json` is compiled by
../shared/oracle/salt-oracle (`salt-call --local state.show_lowstate`).
From what it printed:
  - the keys every minion sets for itself are dropped (id, grains, pillar,
    file_roots, pillar_roots, `conf_file`/`config_dir`), as lowstate sets
    them from its own config;
  - the options the oracle sets for its run (log levels, the grains
    blacklist, fqdns grains, the log file) get the value of Salt's
    `salt.config.DEFAULT_MINION_OPTS`, what a minion without them has;
  - paths under the oracle's temporary root_dir are written under `/`,
    where a packaged minion keeps them (`/var/cache/salt/minion`, ...).
The JSON is sorted by key.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "..", "shared", "oracle", "salt-oracle")
PER_MINION = {"id", "grains", "pillar", "file_roots", "pillar_roots"}
ORACLE_SET = [
    "log_level", "log_level_logfile", "grains_blacklist",
    "enable_fqdns_grains", "log_file",
]


def main(argv):
    out = argv[0] if argv else os.path.join(HERE, "..", "src", "salt", "minion_opts.json")
    venv = os.environ.get("SALT_VENV")
    if not venv:
        sys.exit("minion-opts: set SALT_VENV to a Salt 3008.5 venv")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "top.sls"), "w") as fh:
            fh.write("base:\n  '*':\n    - a\n")
        with open(os.path.join(tmp, "a.sls"), "w") as fh:
            fh.write("a:\n  test.nop:\n    - opts: {{ opts|json }}\n")
        run = subprocess.run([sys.executable, ORACLE, "lowstate", tmp, "--id", "m1"],
                             capture_output=True, text=True, check=True)
        opts = json.loads(run.stdout)[0]["opts"]
    defaults = json.loads(subprocess.run(
        [os.path.join(venv, "bin", "python"), "-c",
         "import json, salt.config as c; d = c.DEFAULT_MINION_OPTS; "
         f"print(json.dumps({{k: d[k] for k in {ORACLE_SET!r}}}, default=list))"],
        capture_output=True, text=True, check=True).stdout)
    root = opts["root_dir"]
    result = {}
    for key, value in opts.items():
        if key in PER_MINION or key in ("conf_file", "config_dir"):
            continue
        if key in defaults:
            value = defaults[key]
        elif key == "root_dir":
            value = "/"
        elif isinstance(value, str) and value.startswith(root + "/"):
            value = value[len(root):]
        result[key] = value
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    if "salt-oracle" in text:
        sys.exit("minion-opts: a temporary path is left: " +
                 ", ".join(k for k, v in result.items() if "salt-oracle" in json.dumps(v)))
    with open(out, "w") as fh:
        fh.write(text)
    print(f"minion-opts: {len(result)} options -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
