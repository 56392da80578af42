#!/usr/bin/env bash
# Benchmark: `lowstate fleet` for a whole generated fleet vs Salt's
# `state.show_lowstate` for single minions of it.
#
#   benches/fleet-compare.sh [MINIONS]      default 1000
#
# Generates a formula-style tree (benches/gen-fleet: 40 SLS, map.jinja with
# grains.filter_by, grain matches in the top file) and MINIONS minions,
# times `lowstate fleet` over all of them (median of 3) and, when a Salt
# venv is found ($SALT_VENV, or SALT_CALL), Salt on 10 of them one by one
# (through ../shared/oracle/salt-case), checks that each of those 10 got
# the same lowstate from both, and prints the ratio "whole fleet / one Salt
# minion". Then lowstate's scaling over 100, 1000 and 10000 minions (time
# and peak memory). The same fleet is also written with `-o OUTDIR` (one
# plan file per minion) and that time compared with the stdout run's.
# Nothing here is needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
salt_case=${SALT_CASE:-$PWD/../shared/oracle/salt-case}
# shellcheck source=benches/lib.sh
. benches/lib.sh
# LOWSTATE=BIN times a binary already built (else a release build of it).
bench_setup


fleet_run() { # DIR -> "seconds peak_kib" (median time of 3, highest memory)
  local d=$1 ts=() mem=0 t m
  for _ in 1 2 3; do
    read -r t m < <(to=$d/out.jsonl measure "$bin" fleet -q -c "$d" --minions "$d/grains.json")
    ts+=("$t"); [ "$m" -gt "$mem" ] && mem=$m
  done
  echo "$(printf '%s\n' "${ts[@]}" | median) $mem"
}

tree=$work/fleet-$n
python3 benches/gen-fleet "$tree" --minions "$n"
read -r ls_t ls_m < <(fleet_run "$tree")
echo "lowstate fleet: $n minions in ${ls_t}s, peak $((ls_m / 1024)) MiB"
# `-o OUTDIR`: one atomic file per minion, synced once at the end; the
# target is the stdout run's time within 10%.
outdir_ts=()
for _ in 1 2 3; do
  rm -rf "$work/plans"
  read -r t _ < <(measure "$bin" fleet -q -c "$tree" --minions "$tree/grains.json" -o "$work/plans")
  outdir_ts+=("$t")
done
od_t=$(printf '%s\n' "${outdir_ts[@]}" | median)
echo "lowstate fleet -o OUTDIR: $n minions in ${od_t}s ($(ls "$work/plans" | wc -l) files)"
awk "BEGIN{printf \"-o OUTDIR / stdout: %.2f (target: 1.10 or less)\n\", $od_t / $ls_t}"
rm -rf "$work/plans"
# The summary line says how many renders the minions shared.
"$bin" fleet -c "$tree" --minions "$tree/grains.json" 2>&1 >/dev/null | grep -o 'renders shared: [^;]*' || true

if [ -x "$salt_case" ] && { [ -n "${SALT_VENV:-}" ] || [ -n "${SALT_CALL:-}" ]; }; then
  salt_times=()
  same=0
  for k in $(seq 0 9); do
    i=$(( k * n / 10 ))
    case_dir=$work/case-$i
    mkdir -p "$case_dir"
    ln -s "$tree/salt" "$case_dir/salt"
    python3 - "$tree/grains.json" "$i" "$case_dir/minion" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
dec, pos, objs = json.JSONDecoder(), 0, []
while True:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        break
    obj, pos = dec.raw_decode(text, pos)
    objs.append(obj)
(mid, grains), = objs[int(sys.argv[2])].items()
json.dump({"id": mid, "grains": grains, "file_roots": {"base": ["salt"]}}, open(sys.argv[3], "w"))
PY
    read -r t _ < <(measure "$salt_case" "$case_dir" --modes lowstate --out "$case_dir/out" --jobs 1)
    salt_times+=("$t")
    id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$case_dir/minion")
    if python3 - "$tree/out.jsonl" "$id" "$case_dir/out/lowstate.json" <<'PY'
import json, sys
salt = json.load(open(sys.argv[3]))
for line in open(sys.argv[1]):
    v = json.loads(line)
    if v["id"] == sys.argv[2]:
        sys.exit(0 if v.get("lowstate") == salt else 1)
sys.exit(1)
PY
    then same=$((same + 1)); else echo "DIFFERENT: $id" >&2; fi
  done
  salt_t=$(printf '%s\n' "${salt_times[@]}" | median)
  echo "salt show_lowstate: one minion in ${salt_t}s (median of 10); same lowstate for $same of 10"
  awk "BEGIN{printf \"whole fleet / one Salt minion: %.2f  (lowstate per minion: %.2f ms; speedup per minion: %.0fx)\n\", $ls_t / $salt_t, 1000 * $ls_t / $n, $salt_t * $n / $ls_t}"
else
  echo "no Salt venv (set SALT_VENV): Salt side skipped"
fi

echo
printf '%-8s %9s %9s %12s\n' minions seconds peak_MiB ms_per_minion
for m in 100 1000 10000; do
  d=$work/scale-$m
  python3 benches/gen-fleet "$d" --minions "$m"
  read -r t k < <(fleet_run "$d")
  awk "BEGIN{printf \"%-8d %9.3f %9d %12.3f\n\", $m, $t, $k / 1024, 1000 * $t / $m}"
done
