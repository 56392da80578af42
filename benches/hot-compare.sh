#!/usr/bin/env bash
# Benchmark: `lowstate hot` vs Heat 27.0.1's engine (heat-oracle) on
# generated stacks.
#
#   benches/hot-compare.sh [RESOURCES...]     default: 2000
#
# Generates each stack with benches/gen-hot-stack (two environment files,
# chains of get_attr/get_resource/depends_on), times `lowstate hot` (best of
# 5) and, when a Heat venv is found ($HEAT_VENV, else ./.heat-venv; install
# line in ../shared/oracle/README.md), Heat's engine through
# ../shared/oracle/hot-case (one run, which also converts Heat's answer to
# lowstate's layout), checks that both documents are equal, and prints time
# and peak-memory ratios. Always also times lowstate at twice the largest
# size, for its growth (Heat's 512 KiB template limit is lifted for that
# run only). Nothing here is needed by `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000)

# shellcheck source=benches/lib.sh
. benches/lib.sh
heat_bench_setup

lowstate_on() {
  local dir=$1
  "$bin" hot "$dir/template.yaml" -e "$dir/env/10-base.yaml" -e "$dir/env/20-site.yaml" \
    --max-template-size 100000000 $oracle_flags
}

printf '%-10s %9s %9s %10s %10s %9s %9s\n' resources ls_sec ls_MiB heat_sec heat_MiB speedup mem_frac
largest=0
for n in "${sizes[@]}"; do
  dir=$work/stack-$n
  python3 benches/gen-hot-stack "$dir" --resources "$n"
  printf 'description: bench\nexpect: ok\n' > "$dir/case.yaml"
  export -f lowstate_on; export bin oracle_flags="${oracle_context[*]}"
  read -r lt lm < <(to=$dir/ours.json best_of_5 bash -c "lowstate_on $dir")
  ht="-"; hm="-"; speed="-"; frac="-"
  if [ -n "$venv" ]; then
    read -r ht hm < <(HEAT_VENV=$venv to=$dir/heat.json measure "$hot_case" "$dir" --print)
    same_documents "$dir/heat.json" "$dir/ours.json"
    speed=$(awk "BEGIN{printf \"%.0fx\", $ht / $lt}")
    frac=$(awk "BEGIN{printf \"%.2f\", $lm / $hm}")
    hm=$(awk "BEGIN{printf \"%.0f\", $hm / 1024}")
  fi
  printf '%-10s %9s %9.0f %10s %10s %9s %9s\n' "$n" "$lt" "$(awk "BEGIN{print $lm/1024}")" "$ht" "$hm" "$speed" "$frac"
  [ "$n" -gt "$largest" ] && { largest=$n; largest_t=$lt; }
done
double=$((largest * 2))
dir=$work/stack-$double
python3 benches/gen-hot-stack "$dir" --resources "$double"
read -r dt dm < <(best_of_5 bash -c "lowstate_on $dir")
printf 'growth: %d resources %ss, %d resources %ss: %.2fx the time for 2x the resources\n' \
  "$largest" "$largest_t" "$double" "$dt" "$(awk "BEGIN{print $dt / $largest_t}")"
