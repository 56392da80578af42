#!/usr/bin/env bash
# Benchmark: lowstate compile vs Salt's show_lowstate on generated trees.
#
#   benches/compare.sh [SIZES...]      sizes as FILESxSTATES, default: 200x25 1000x25
#
# Generates each tree with benches/gen-big-tree (a copy of the shared
# generator), times `lowstate compile` (median of 5) and, when a Salt venv is
# found ($SALT_CALL, $SALT_VENV/bin/salt-call or ./.salt-venv/bin/salt-call),
# `salt-call --local state.show_lowstate` on the same tree (median of 3), checks
# that both printed the same lowstate, and prints time and peak memory
# ratios. Also prints lowstate's scaling from the first size to the last.
# With Salt, the runs alternate (ls salt ls ls salt ls salt ls): a shared
# machine's speed drifts from minute to minute, and Salt's three runs take
# a minute or more, so lowstate's five are spread over the same minute
# instead of all falling in the one second before it.
# Nothing here is needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200x25 1000x25)

cargo build --release --quiet
bin=$PWD/target/release/lowstate
salt_call=${SALT_CALL:-}
[ -n "$salt_call" ] || { [ -n "${SALT_VENV:-}" ] && salt_call=$SALT_VENV/bin/salt-call; } || true
[ -n "$salt_call" ] || salt_call=$PWD/.salt-venv/bin/salt-call
[ -x "$salt_call" ] || salt_call=""

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/lib.sh
. benches/lib.sh

# The median time of a list of runs ("SECONDS KIB" lines on stdin) and the
# highest peak memory.
summary() {
  local ts=() mem=0 t m
  while read -r t m; do
    ts+=("$t"); [ "$m" -gt "$mem" ] && mem=$m
  done
  echo "$(printf '%s\n' "${ts[@]}" | median) $mem"
}

printf '%-10s %8s %10s %10s %10s %10s %9s %9s\n' tree chunks "ls_sec" "ls_MiB" "salt_sec" "salt_MiB" "speedup" "mem_frac"
first_t=""; first_n=""
for size in "${sizes[@]}"; do
  files=${size%x*}; states=${size#*x}
  tree=$work/tree-$size
  python3 benches/gen-big-tree "$tree/salt" --files "$files" --states "$states"
  cat > "$tree/minion" <<MINION
id: bench-minion
grains: {os: Debian, os_family: Debian, kernel: Linux}
file_roots: {base: [salt]}
MINION
  "$bin" compile -c "$tree" > "$work/ours.json"
  chunks=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/ours.json")
  ls_run() { measure "$bin" compile -c "$tree" >> "$work/ls-runs"; }
  : > "$work/ls-runs"
  st="-"; sm="-"; ratio="-"; memfrac="-"
  if [ -z "$salt_call" ]; then
    for _ in 1 2 3 4 5; do ls_run; done
  else
    cfg=$work/salt-$size; mkdir -p "$cfg/root"
    cat > "$cfg/minion" <<MINION
id: bench-minion
file_client: local
root_dir: $cfg/root
file_roots: {base: [$tree/salt]}
pillar_roots: {base: [$cfg/pillar]}
grains: {id: bench-minion, os: Debian, os_family: Debian, kernel: Linux}
grains_blacklist: ['*']
enable_fqdns_grains: False
log_file: $cfg/log
MINION
    # grains_blacklist drops every computed grain, `id` too: the config
    # gives it back, as ../shared/oracle/salt-case does (the tree uses it).
    salt_run() {
      to=$work/salt.json measure "$salt_call" --local -c "$cfg" --out=json state.show_lowstate \
        >> "$work/salt-runs"
    }
    : > "$work/salt-runs"
    ls_run; salt_run; ls_run; ls_run; salt_run; ls_run; salt_run; ls_run
    read -r st sm < <(summary < "$work/salt-runs")
    python3 - "$work/salt.json" "$work/ours.json" <<'PY' || { echo "$size: Salt and lowstate printed different lowstates" >&2; exit 1; }
import json, sys
salt = json.load(open(sys.argv[1]))["local"]
ours = json.load(open(sys.argv[2]))
sys.exit(0 if salt == ours else 1)
PY
  fi
  read -r lt lm < <(summary < "$work/ls-runs")
  if [ -n "$salt_call" ]; then
    ratio=$(awk "BEGIN{printf \"%.0fx\", $st / ($lt > 0 ? $lt : 0.001)}")
    memfrac=$(awk "BEGIN{printf \"%.2f\", $lm / $sm}")
    sm=$(awk "BEGIN{printf \"%.0f\", $sm/1024}")
  fi
  printf '%-10s %8s %10s %10s %10s %10s %9s %9s\n' "$size" "$chunks" "$lt" "$(awk "BEGIN{printf \"%.0f\", $lm/1024}")" "$st" "$sm" "$ratio" "$memfrac"
  echo "  runs (s): lowstate $(cut -d' ' -f1 "$work/ls-runs" | tr '\n' ' ')${salt_call:+; Salt $(cut -d' ' -f1 "$work/salt-runs" | tr '\n' ' ')}"
  if [ -z "$first_t" ]; then first_t=$lt; first_n=$chunks; fi
  last_t=$lt; last_n=$chunks
done
if [ ${#sizes[@]} -gt 1 ]; then
  awk "BEGIN{printf \"scaling: %.1fx the chunks took %.1fx the time\n\", $last_n/$first_n, $last_t/($first_t>0?$first_t:0.001)}"
fi
[ -n "$salt_call" ] || echo "(no Salt found: set SALT_VENV; install with ../shared/oracle/install-salt)"
