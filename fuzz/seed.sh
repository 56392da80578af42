#!/bin/sh
# Seed each fuzz target's corpus from the project's test corpora
# (fuzz/corpus/<target>/, not committed). Run from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tests="$here/../tests"
for t in yaml_load yaml_roundtrip yaml_fastpath salt_compile salt_files hot_compile jinja_prepass; do
  mkdir -p "$here/corpus/$t"
done
n=0
for f in $(find "$tests/corpus" "$tests/corpus-extra" "$tests/corpus-3006" -name '*.sls' | sort); do
  n=$((n + 1))
  cp "$f" "$here/corpus/salt_compile/sls-$n"
  cp "$f" "$here/corpus/yaml_load/sls-$n"
  cp "$f" "$here/corpus/yaml_roundtrip/sls-$n"
  cp "$f" "$here/corpus/yaml_fastpath/sls-$n"
  cp "$f" "$here/corpus/jinja_prepass/sls-$n"
done
# The pre-pass's seeds: the other templates (map.jinja, macros, ...).
for f in $(find "$tests" "$here/../state_tree" -name '*.jinja' -o -name '*.j2' | sort); do
  n=$((n + 1))
  cp "$f" "$here/corpus/jinja_prepass/tpl-$n"
done
for f in $(find "$tests/corpus-hot" -name '*.yaml' ! -name case.yaml | sort); do
  n=$((n + 1))
  cp "$f" "$here/corpus/hot_compile/hot-$n"
  cp "$f" "$here/corpus/yaml_load/hot-$n"
  cp "$f" "$here/corpus/yaml_roundtrip/hot-$n"
done
# The rendered files' seeds: each synthetic files case's SLS, its sources
# pointed at salt://t.j2, then the case's first template.
for c in "$tests"/files-corpus/s*/; do
  tpl=$(find "$c/salt" -name '*.j2' | sort | head -n 1)
  [ -f "$c/salt/main.sls" ] || continue
  n=$((n + 1))
  { sed 's|salt://[^ ]*|salt://t.j2|' "$c/salt/main.sls"; printf '#--template--\n'; [ -n "$tpl" ] && cat "$tpl"; } \
    > "$here/corpus/salt_files/files-$n"
done
# The fast path's seeds: every text its differential test checks (the
# rendered corpora, a rendered bench tree, PyYAML's inputs).
dump=$(mktemp -d)
if (cd "$here/.." && FASTPATH_DUMP="$dump" cargo test -q --test yaml_fastpath >/dev/null 2>&1); then
  for f in "$dump"/*/*; do
    n=$((n + 1))
    cp "$f" "$here/corpus/yaml_fastpath/text-$n"
  done
fi
rm -rf "$dump"
# Regressions found earlier are seeds too.
if [ -d "$tests/fuzz-regressions" ]; then
  for d in "$tests"/fuzz-regressions/*/; do
    t=$(basename "$d")
    [ -d "$here/corpus/$t" ] && cp "$d"/* "$here/corpus/$t/" 2>/dev/null || true
  done
fi
echo "seeded $n files into $here/corpus/"
