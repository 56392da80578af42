# Shared by the benchmark scripts (source it after setting $work, a temp dir).

# Wall seconds (4 decimals) and peak RSS (KiB) of one run of a command; its
# output goes to $to (default /dev/null). The clock is bash's (time's %e
# has 10 ms steps).
measure() {
  local out=$work/time.txt start end
  start=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$out" "$@" > "${to:-/dev/null}" 2> "$work/stderr.txt" || {
    cat "$work/stderr.txt" >&2; return 1; }
  end=$EPOCHREALTIME
  echo "$(awk "BEGIN{printf \"%.4f\", $end - $start}") $(cat "$out")"
}

# The median of the numbers on stdin, one per line.
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# The best wall time and the largest peak RSS of five runs of a command
# (its output goes to $to, as for measure).
best_of_5() {
  local best="" mem=0 t m
  for _ in 1 2 3 4 5; do
    read -r t m < <(measure "$@")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    if [ "$m" -gt "$mem" ]; then mem=$m; fi
  done
  echo "$best $mem"
}
