#!/usr/bin/env python3
"""Turn real-Salt pillar merge results into dictupdate test cases.

Reads ../../../../shared/data/salt-3008.5-pillar-merge.json (produced by
running Salt 3008.5's `pillar.items` over small pillar trees, see
shared/data/README.md section 5) and keeps the cases that are a plain merge
of the SLS files named by one top target. Each SLS is loaded with PyYAML
(run this with the Salt venv's python so the loader is the one Salt uses)
and written, with Salt's answer, to pillar-merge.json.

    /tmp/salt-venv/bin/python gen-pillar-merge.py /work/shared/data/salt-3008.5-pillar-merge.json > pillar-merge.json
"""
import json
import sys

import yaml

KEEP = ["smart", "recurse", "aggregate", "overwrite", "none", "list",
        "merge_lists", "overwrite_merge_lists", "order_swapped",
        "null_value", "merge_lists_mixed", "merge_lists_dups"]

src = json.load(open(sys.argv[1]))
out = {"generated_from": "shared/data/salt-3008.5-pillar-merge.json by gen-pillar-merge.py",
       "salt_version": src["salt_version"], "cases": []}
for name in KEEP:
    case = src["cases"][name]
    files = case["inputs"]["files"]
    opts = case["inputs"].get("opts") or {}
    top = yaml.safe_load(files["p/top.sls"])
    sls = top["base"]["*"]
    out["cases"].append({
        "name": name,
        "desc": case["desc"],
        "strategy": opts.get("pillar_source_merging_strategy", "smart"),
        "renderer": opts.get("renderer", "jinja|yaml"),
        "merge_lists": bool(opts.get("pillar_merge_lists", False)),
        "sources": [yaml.safe_load(files[f"p/{s}.sls"]) for s in sls],
        "expected": case["out"],
    })
json.dump(out, sys.stdout, indent=1)
print()
