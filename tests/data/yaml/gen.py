#!/usr/bin/env python3
"""Regenerate the YAML cross-check data from real PyYAML (with libyaml) and
Salt's own loader. Usage:

    python3 gen.py /path/to/salt-3008.5-source  # writes load.json and dump.json

The Salt source is only imported (salt/utils/yamlloader.py, with a stub for
salt.utils.stringutils); nothing of it is copied here. Inputs come from
cases_in.json (hand-written) and the corpus SLS files.
"""
import glob, json, os, random, sys, types
from collections import OrderedDict

import yaml
from yaml.constructor import ConstructorError
from yaml.parser import ParserError
from yaml.scanner import ScannerError

here = os.path.dirname(os.path.abspath(__file__))
salt_src = sys.argv[1]
stub = types.ModuleType("salt.utils.stringutils")
stub.to_unicode = lambda s: s
salt_pkg = types.ModuleType("salt")
salt_pkg.__path__ = []
utils_pkg = types.ModuleType("salt.utils")
utils_pkg.__path__ = []
salt_pkg.utils = utils_pkg
utils_pkg.stringutils = stub
sys.modules.update({"salt": salt_pkg, "salt.utils": utils_pkg, "salt.utils.stringutils": stub})
import importlib.util
spec = importlib.util.spec_from_file_location("salt.utils.yamlloader", os.path.join(salt_src, "salt/utils/yamlloader.py"))
yl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(yl)


def plain(v, seen=()):
    if id(v) in seen:
        return "RECURSIVE"
    seen = seen + (id(v),)
    if isinstance(v, dict):
        return {plain(k, seen): plain(x, seen) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x, seen) for x in v]
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return v


def salt_load(text):
    try:
        data = yl.load(text, Loader=lambda *a: yl.SaltYamlSafeLoader(*a, dictclass=OrderedDict))
        return {"input": text, "repr": repr(plain(data))}
    except ScannerError as exc:
        return {"input": text, "error": exc.problem, "line": exc.problem_mark.line + 1, "col": exc.problem_mark.column + 1}
    except (ParserError, ConstructorError) as exc:
        return {"input": text, "error": str(exc)}
    except Exception as exc:
        return {"input": text, "error": str(exc)}


inputs = json.load(open(os.path.join(here, "cases_in.json")))
corpus = os.path.join(here, "../../corpus")
for f in sorted(glob.glob(corpus + "/*/salt/**/*.sls", recursive=True)):
    inputs.append(open(f).read())
json.dump([salt_load(t) for t in inputs], open(os.path.join(here, "load.json"), "w"), indent=0, ensure_ascii=True)

# Dumps: random values through CSafeDumper as Salt's safe_dump configures it.
random.seed(20240102)
words = json.load(open(os.path.join(here, "dump_words.json")))


def rscalar():
    r = random.random()
    if r < 0.6:
        return random.choice(words)
    if r < 0.7:
        return random.randint(-1000, 10**12)
    if r < 0.8:
        return random.choice([0.5, 1.0, 1e17, 1e-05, -2.5, 3.14159, 1e300, 123456.789])
    if r < 0.9:
        return random.choice([True, False, None])
    return random.choice(words) * random.randint(1, 3)


def rvalue(depth=0):
    r = random.random()
    if depth > 3 or r < 0.4:
        return rscalar()
    if r < 0.7:
        return [rvalue(depth + 1) for _ in range(random.randint(0, 5))]
    return {str(random.choice(words)) + (str(random.randint(0, 9)) if random.random() < 0.3 else ""): rvalue(depth + 1)
            for _ in range(random.randint(0, 5))}


dumps = []
for _ in range(120):
    v = rvalue()
    for flow in (None, True, False):
        out = yaml.dump(v, Dumper=yaml.CSafeDumper, allow_unicode=True, default_flow_style=flow, sort_keys=False)
        dumps.append({"value": v, "flow": flow, "expected": out})
json.dump(dumps, open(os.path.join(here, "dump.json"), "w"), indent=0, ensure_ascii=True)
