#!/usr/bin/env bash
# Benchmark: `lowstate hot --nested` vs Heat 27.0.1's engine
# (heat-nested-oracle) on a generated tree of stacks.
#
#   benches/hot-tree-compare.sh [MEMBERS...]     default: 50 100 200 400
#   NO_HEAT=1 benches/hot-tree-compare.sh ...    lowstate only
#
# Generates each tree with benches/gen-hot-tree (a ResourceGroup of MEMBERS
# members, each a provider template with 10 resources and an inner group of
# 3), times `lowstate hot --nested` (best of 5) and, when a Heat venv is
# found ($HEAT_VENV, else ./.heat-venv), Heat's engine through
# ../shared/oracle/hot-case (one run), checks that both documents are
# equal, and prints the time ratios: of CPU time (user + system, the
# steady measure on a shared machine) and of wall time. Then lowstate's
# growth: the CPU time per member at each size and the factor per doubling
# of the member count (1.00 is linear). Last, the floor: what the same
# clocks give for a program that does nothing (`true`), and so the highest
# wall ratio against Heat any program could show here. Nothing here is
# needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(50 100 200 400)

# shellcheck source=benches/lib.sh
. benches/lib.sh
heat_bench_setup
[ -z "${NO_HEAT:-}" ] || venv=""

printf '%-8s %9s %8s %8s %7s %9s %9s %9s %9s\n' \
  members resources ls_wall ls_cpu ls_MiB heat_wall heat_cpu cpu_ratio wall_ratio
prev_n="" prev_c=""
growth=() heat_walls=()
for n in "${sizes[@]}"; do
  dir=$work/tree-$n
  python3 benches/gen-hot-tree "$dir" --members "$n"
  read -r lt lc lm < <(to=$dir/ours.json best_cpu_of_5 "$bin" hot "$dir/template.yaml" --nested "${oracle_context[@]}")
  ht="-" hc="-" cr="-" wr="-"
  if [ -n "$venv" ]; then
    read -r ht hc _ < <(HEAT_VENV=$venv to=$dir/heat.json measure_cpu "$hot_case" "$dir" --print)
    same_documents "$dir/heat.json" "$dir/ours.json"
    cr=$(awk "BEGIN{printf \"%.0fx\", $hc / $lc}")
    wr=$(awk "BEGIN{printf \"%.0fx\", $ht / $lt}")
    heat_walls+=("$n:$ht")
  fi
  printf '%-8s %9d %8s %8s %7.1f %9s %9s %9s %9s\n' "$n" $((2 + n * 14)) "$lt" "$lc" \
    "$(awk "BEGIN{print $lm/1024}")" "$ht" "$hc" "$cr" "$wr"
  if [ -n "$prev_n" ]; then
    growth+=("$(awk "BEGIN{printf \"%d->%d members: %.2fx the CPU time for %.1fx the members\", $prev_n, $n, $lc / $prev_c, $n / $prev_n}")")
  fi
  prev_n=$n prev_c=$lc
done
[ -n "$venv" ] && echo "documents: lowstate's equal Heat's at every size"
for g in "${growth[@]}"; do echo "growth: $g"; done
read -r ft fc _ < <(floor)
echo "floor: an empty program (true) takes ${ft} s wall, ${fc} s CPU to start and end here"
for hw in "${heat_walls[@]}"; do
  awk -v n="${hw%%:*}" -v h="${hw#*:}" -v f="$ft" \
    'BEGIN{printf "floor: at %d members no program could show more than %.0fx Heat'"'"'s wall time here\n", n, h / f}'
done
