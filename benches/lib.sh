# Shared by the benchmark scripts. The functions below write their scratch
# files under $work, a temp dir the script sets (bench_setup does).

# The binary to time ($bin): $LOWSTATE names one already built, else a
# release build of this checkout; and a temp dir ($work) removed on exit.
bench_setup() {
  if [ -n "${LOWSTATE:-}" ]; then
    bin=$LOWSTATE
  else
    cargo build --release --quiet --bin lowstate
    bin=$PWD/target/release/lowstate
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# For the Heat benchmarks: bench_setup, then Heat's venv and
# ../shared/oracle/hot-case ($HOT_CASE names another) when both are there
# ($venv, else empty; $hot_case).
heat_bench_setup() {
  bench_setup
  venv=${HEAT_VENV:-$PWD/.heat-venv}
  hot_case=${HOT_CASE:-$PWD/../shared/oracle/hot-case}
  [ -x "$venv/bin/python" ] && [ -x "$hot_case" ] || venv=""
}

# The pseudo parameters the HOT oracle's cases use (hot-case's defaults),
# for lowstate runs compared with it.
oracle_context=(--stack-name oracle_stack --stack-id 00000000-0000-4000-8000-000000000001
  --project-id oracle-project)

# Wall seconds (4 decimals) and peak RSS (KiB) of one run of a command; its
# output goes to $to (default /dev/null).
measure() {
  local t c m
  read -r t c m < <(measure_cpu "$@")
  echo "$t $m"
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

# Fail unless two JSON documents are equal, Heat's and lowstate's (a float
# never equals an int of the same value, as in the corpus tests).
same_documents() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def canon(x):
    if isinstance(x, dict): return {k: canon(v) for k, v in x.items()}
    if isinstance(x, list): return [canon(v) for v in x]
    if isinstance(x, float): return ("float", x)
    return x
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if canon(a) != canon(b):
    sys.exit("lowstate and Heat disagree on " + sys.argv[1])
PY
}

# Wall seconds, CPU seconds (user + system, children included) and peak RSS
# (KiB) of one run of a command; its output goes to $to. On a shared,
# loaded machine the CPU time is the steadier measure of the work done.
# Both clocks to the microsecond (os.wait4's rusage, not time(1)'s two
# decimals), so a run of a few milliseconds is measured, not rounded to 0.
# The command is started with posix_spawn, not fork + exec: forking this
# Python process cost 2 to 3 ms of the child's time on a small VM, more
# than the work of a small run. The peak RSS counts the process from before
# its exec too, which starts as this Python process (about 13 MiB): a
# lower bound for small runs is that, not 0 (`floor` below measures it).
measure_cpu() {
  python3 - "$work/stderr.txt" "${to:-/dev/null}" "$@" <<'PY'
import os, sys, time
err, out, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
create = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
actions = [
    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
    (os.POSIX_SPAWN_OPEN, 1, out, create, 0o644),
    (os.POSIX_SPAWN_OPEN, 2, err, create, 0o644),
]
# A fresh output file for every run, as the reference's single run gets:
# truncating the last run's file cost 2.5 to 3 ms of the child's wall time
# (the filesystem drops its cached pages, and writes back a file cut and
# rewritten), more than writing the document.
if os.path.isfile(out):
    os.unlink(out)
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - start
if status != 0:
    sys.stderr.write(open(err).read())
    sys.exit(1)
print(f"{wall:.4f} {ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss}")
PY
}

# What measure_cpu gives for a program that does nothing (`true`, best of
# 5): the wall and CPU seconds of starting any process here, which no run
# can go below.
floor() {
  best_cpu_of_5 true
}

# The best wall time, the best CPU time and the largest peak RSS of five
# runs of a command (its output goes to $to).
best_cpu_of_5() {
  local best="" cbest="" mem=0 t c m
  for _ in 1 2 3 4 5; do
    read -r t c m < <(measure_cpu "$@")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    if [ -z "$cbest" ] || awk "BEGIN{exit !($c < $cbest)}"; then cbest=$c; fi
    if [ "$m" -gt "$mem" ]; then mem=$m; fi
  done
  echo "$best $cbest $mem"
}
