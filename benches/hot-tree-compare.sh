#!/usr/bin/env bash
# Benchmark: `lowstate hot --nested` vs Heat 27.0.1's engine
# (heat-nested-oracle) on a generated tree of stacks.
#
#   benches/hot-tree-compare.sh [MEMBERS...]     default: 200
#
# Generates each tree with benches/gen-hot-tree (a ResourceGroup of MEMBERS
# members, each a provider template with 10 resources and an inner group of
# 3), times `lowstate hot --nested` (best of 5) and, when a Heat venv is
# found ($HEAT_VENV, else ./.heat-venv), Heat's engine through
# ../shared/oracle/hot-case (one run), checks that both documents are
# equal, and prints the time ratio. Always also times lowstate at twice the
# largest size, for its growth. Nothing here is needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(200)

# shellcheck source=benches/lib.sh
. benches/lib.sh
heat_bench_setup

printf '%-8s %10s %9s %9s %10s %9s\n' members resources ls_sec ls_MiB heat_sec speedup
largest=0
for n in "${sizes[@]}"; do
  dir=$work/tree-$n
  python3 benches/gen-hot-tree "$dir" --members "$n"
  read -r lt lm < <(to=$dir/ours.json best_of_5 "$bin" hot "$dir/template.yaml" --nested)
  ht="-"; speed="-"
  if [ -n "$venv" ]; then
    read -r ht _ < <(HEAT_VENV=$venv to=$dir/heat.json measure "$hot_case" "$dir" --print)
    same_documents "$dir/heat.json" "$dir/ours.json"
    speed=$(awk "BEGIN{printf \"%.0fx\", $ht / $lt}")
  fi
  printf '%-8s %10d %9s %9.0f %10s %9s\n' "$n" $((2 + n * 14)) "$lt" "$(awk "BEGIN{print $lm/1024}")" "$ht" "$speed"
  [ "$n" -gt "$largest" ] && { largest=$n; largest_t=$lt; }
done
double=$((largest * 2))
dir=$work/tree-$double
python3 benches/gen-hot-tree "$dir" --members "$double"
read -r dt _ < <(best_of_5 "$bin" hot "$dir/template.yaml" --nested)
printf 'growth: %d members %ss, %d members %ss: %.2fx the time for 2x the members\n' \
  "$largest" "$largest_t" "$double" "$dt" "$(awk "BEGIN{print $dt / $largest_t}")"
