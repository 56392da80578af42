#!/usr/bin/env bash
# Open the HTML plan viewer in a real headless browser (Debian's chromium):
# the example tree, the generated 200x25 tree (5,200 states), the example
# HOT stack, the example tree of stacks (--nested), and the HTML change
# report of `fleet --diff` (a group opened by `#open=N`, every group by
# `#open=all`, with their diffs). For each: the time to first paint the
# page reports
# (target: under 2 s), a search, a click (select) and a path between two
# states driven through the page's URL hash actions, and screenshots. Prints the timings; screenshots go to $OUT (default: a temp
# dir), never into the repository.
#
#   tests/browser/run.sh            # needs chromium; skips with a message otherwise
#
# Run by `cargo test` (tests/cli.rs: browser_viewer) when chromium exists.
set -euo pipefail
cd "$(dirname "$0")/../.."
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chrome" ]; then
  echo "browser test skipped: no chromium (apt-get install chromium)"
  exit 0
fi
bin=${LOWSTATE:-target/release/lowstate}
[ -x "$bin" ] || { cargo build --release --quiet; bin=target/release/lowstate; }
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 benches/gen-big-tree "$work/big/salt" --files 200 --states 25 > /dev/null
printf 'id: bench-minion\ngrains: {os: Debian, os_family: Debian, kernel: Linux}\nfile_roots: {base: [salt]}\n' > "$work/big/minion"
"$bin" graph --format html -o "$work/example.html"
"$bin" graph -c "$work/big" --format html -o "$work/big.html"
"$bin" hot docs/examples/hot/stack.yaml -e docs/examples/hot/env/site.yaml --format html -o "$work/hot.html"
"$bin" hot docs/examples/hot-tree/stack.yaml --nested --format html -o "$work/hot-tree.html"
# A change report (`fleet --diff --format html`): two trees that differ in
# a state's argument and a managed file's template, three minions; the
# group of the two Debian minions comes first.
for side in old new; do
  mkdir -p "$work/$side/salt"
  printf 'file_roots: {base: [salt]}\n' > "$work/$side/minion"
  printf "base:\n  '*':\n    - web\n" > "$work/$side/salt/top.sls"
done
printf 'web:\n  pkg.installed:\n    - name: nginx\n/etc/motd:\n  file.managed:\n    - source: salt://motd.j2\n    - template: jinja\n' > "$work/old/salt/web.sls"
printf 'web:\n  pkg.installed:\n    - name: nginx-full\n/etc/motd:\n  file.managed:\n    - source: salt://motd.j2\n    - template: jinja\n' > "$work/new/salt/web.sls"
printf 'Welcome to {{ grains["os"] }}\nline two\n' > "$work/old/salt/motd.j2"
printf 'Welcome to {{ grains["os"] }} <b>today</b>\nline two\n' > "$work/new/salt/motd.j2"
printf -- "- id: deb1\n  grains: {osfinger: Debian-12}\n- id: deb2\n  grains: {osfinger: Debian-12}\n- id: rocky1\n  grains: {osfinger: Rocky Linux-9}\n" > "$work/minions.yaml"
"$bin" fleet -q -c "$work/new" --minions "$work/minions.yaml" --diff "$work/old" --format html > "$work/report.html"

# Headless flags that work on a machine without network or GPU. Chromium's
# own stderr goes to $work/chrome.err, shown when a page fails.
run_chrome() {
  "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile-$RANDOM" --virtual-time-budget=20000 "$@" 2>"$work/chrome.err"
}

status=0
check() { # name page hash expect...
  local name=$1 page=$2 hash=$3; shift 3
  local dom paint actions try rc
  # A loaded machine (CI runs the tests in parallel) can starve headless
  # Chromium so that it dumps the DOM before the page's first frame. Such a
  # run is retried, twice at most, and said so; a page that never renders
  # still fails.
  for try in 1 2 3; do
    rc=0; dom=$(run_chrome --dump-dom "file://$page#$hash") || rc=$?
    paint=$(grep -o 'data-first-paint-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || true)
    [ -n "$paint" ] && break
    echo "$name: try $try: no first paint (chromium exit $rc)"
    [ "$try" = 3 ] && sed 's/^/  chromium: /' "$work/chrome.err" | tail -n 20
  done
  actions=$(grep -o 'data-actions="[^"]*"' <<<"$dom" | sed 's/data-actions=//' || true)
  # Headless Chromium lays the page out in a viewport shorter than the
  # window (757 px of 900 with Chromium 156) and captures the whole window,
  # so a screenshot's bottom strip is outside the page: not a layout fault.
  run_chrome --window-size=1400,900 --screenshot="$out/$name.png" "file://$page#$hash" > /dev/null || true
  echo "$name: first paint ${paint:-?} ms; actions $actions; screenshot $out/$name.png"
  [ -n "$paint" ] || { echo "  FAILED: the page did not render"; status=1; return; }
  for want in "$@"; do
    grep -q -- "$want" <<<"$actions" || { echo "  FAILED: expected $want"; status=1; }
  done
  # The first paint is reported, never judged: its target (2 s) is a speed
  # figure, and speed is read from a quiet machine, not asserted by a test
  # that a busy one can fail.
  [ "$paint" -le 2000 ] || echo "  note: first paint over the 2 s target (a busy machine?)"
}

check example "$work/example.html" "search=nginx&select=nginx-service" "search:[1-9]" "select:nginx-service"
check example-path "$work/example.html" "path=nginx-package,app-service" "path:[2-9]"
check big "$work/big.html" "" 
check big-search "$work/big.html" "search=b17-loop-3&select=b17-loop-3" "search:[1-9]" "select:b17-loop-3"
check hot "$work/hot.html" "search=OS::Neutron&select=lb" "search:2" "select:lb"
# The tree of stacks: the group and its two members' stacks start collapsed;
# a search opens the member stacks it finds.
check hot-tree "$work/hot-tree.html" "folded=1" "folded:3"
check hot-tree-open "$work/hot-tree.html" "search=OS::Nova&select=nodes.1.server" "search:2" "select:nodes.1.server"
check report "$work/report.html" "open=1" "groups:2" "open:1" "diffs:1"
check report-all "$work/report.html" "open=all" "groups:2" "open:2" "diffs:2"
exit $status
