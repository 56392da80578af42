#!/usr/bin/env bash
# Benchmark: `lowstate fleet --diff` of a whole generated fleet between two
# trees vs Salt's `state.show_lowstate` for one minion on each tree.
#
#   benches/fleet-diff-compare.sh [MINIONS]      default 1000
#
# Generates the formula-style tree of benches/gen-fleet and MINIONS
# minions (the old tree), copies it and changes one SLS (a state added to
# nginx/install.sls) and one template (redis/map.jinja: another package
# name for Debian) (the new tree), then times `lowstate fleet --diff OLD`
# over all minions (median of 3) and, as a reference, two plain `fleet`
# runs, one per tree. With a Salt venv ($SALT_VENV, or SALT_CALL), Salt
# compiles one minion (the first minion the change touches, a Debian one
# with nginx and redis) on each tree, one `salt-case` each (median of 3),
# and the script prints the ratio "whole fleet diff / Salt's one-minion
# pair" (target: below 1). Nothing here is needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
salt_case=${SALT_CASE:-$PWD/../shared/oracle/salt-case}
# shellcheck source=benches/lib.sh
. benches/lib.sh
# LOWSTATE=BIN times a binary already built (else a release build of it).
bench_setup

old=$work/old
new=$work/new
python3 benches/gen-fleet "$old" --minions "$n"
cp -r "$old" "$new"
cat >> "$new/salt/nginx/install.sls" <<'SLS'
nginx-logs:
  file.directory:
    - name: /var/log/nginx
    - require:
      - pkg: nginx-pkg
SLS
sed -i 's/"pkg": "redis", "service": "redis", "config": "\/etc\/redis\/redis.conf", "user": "www-data"/"pkg": "redis-server", "service": "redis", "config": "\/etc\/redis\/redis.conf", "user": "redis"/' "$new/salt/redis/map.jinja"
cmp -s "$old/salt/redis/map.jinja" "$new/salt/redis/map.jinja" && { echo "the template edit did not apply" >&2; exit 1; }

median_of_3() { # command... -> median seconds
  local ts=() t
  for _ in 1 2 3; do
    read -r t _ < <(measure "$@")
    ts+=("$t")
  done
  printf '%s\n' "${ts[@]}" | median
}

diff_t=$(median_of_3 "$bin" fleet -q -c "$new" --minions "$new/grains.json" --diff "$old")
echo "lowstate fleet --diff: $n minions in ${diff_t}s"
"$bin" fleet -c "$new" --minions "$new/grains.json" --diff "$old" 2>&1 >"$work/diff.out" | head -1
old_t=$(median_of_3 "$bin" fleet -q -c "$old" --minions "$old/grains.json")
new_t=$(median_of_3 "$bin" fleet -q -c "$new" --minions "$new/grains.json")
awk "BEGIN{printf \"two plain fleet runs (old + new): %.4fs + %.4fs = %.4fs; --diff / both: %.2f\n\", $old_t, $new_t, $old_t + $new_t, $diff_t / ($old_t + $new_t)}"

if [ -x "$salt_case" ] && { [ -n "${SALT_VENV:-}" ] || [ -n "${SALT_CALL:-}" ]; }; then
  # A Debian minion with nginx and redis (gen-fleet's roles 00, 05, 08,
  # 13 and 16 pull in nginx; 01, 04, 09, 12 and 17 redis): both changes
  # touch it.
  python3 - "$new/grains.json" "$work/minion.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
dec, pos = json.JSONDecoder(), 0
nginx = {f"role{i:02d}" for i in (0, 5, 8, 13, 16)}
redis = {f"role{i:02d}" for i in (1, 4, 9, 12, 17)}
while pos < len(text):
    while text[pos].isspace():
        pos += 1
    obj, pos = dec.raw_decode(text, pos)
    (mid, g), = obj.items()
    if g["os_family"] == "Debian" and nginx & set(g["roles"]) and redis & set(g["roles"]):
        json.dump({"id": mid, "grains": g, "file_roots": {"base": ["salt"]}}, open(sys.argv[2], "w"))
        break
else:
    sys.exit("no Debian minion with nginx and redis")
PY
  total=0
  for side in old new; do
    case_dir=$work/case-$side
    mkdir -p "$case_dir"
    ln -s "$work/$side/salt" "$case_dir/salt"
    cp "$work/minion.json" "$case_dir/minion"
    t=$(median_of_3 "$salt_case" "$case_dir" --modes lowstate --out "$case_dir/out" --jobs 1)
    echo "salt show_lowstate, one minion, $side tree: ${t}s"
    total=$(awk "BEGIN{print $total + $t}")
  done
  # The minion's lowstate on each side equals Salt's.
  id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$work/minion.json")
  for side in old new; do
    "$bin" fleet -q -c "$work/$side" --minions "$work/$side/grains.json" > "$work/plans-$side.jsonl"
    python3 - "$work/plans-$side.jsonl" "$id" "$work/case-$side/out/lowstate.json" <<'PY' || echo "DIFFERENT from Salt: $id ($side tree)" >&2
import json, sys
salt = json.load(open(sys.argv[3]))
for line in open(sys.argv[1]):
    v = json.loads(line)
    if v["id"] == sys.argv[2]:
        sys.exit(0 if v.get("lowstate") == salt else 1)
sys.exit(1)
PY
  done
  awk "BEGIN{printf \"whole fleet diff / Salt's one-minion pair: %.2f (target: below 1; %.2fs for %d minions vs %.2fs for one minion twice)\n\", $diff_t / $total, $diff_t, $n, $total}"
else
  echo "no Salt venv (set SALT_VENV): Salt side skipped"
fi
