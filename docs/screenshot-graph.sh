#!/bin/sh
# Render the requisite graph of a config dir as HTML with the lowstate CLI and
# take a screenshot of it with headless Chromium (installed with apt-get when
# missing).
#
#   docs/screenshot-graph.sh CONFIG_DIR OUT.png [WIDTHxHEIGHT]
#
# LOWSTATE may name the binary (default: target/release/lowstate, else
# `cargo run --release --`).
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 CONFIG_DIR OUT.png [WIDTHxHEIGHT]" >&2
    exit 2
fi
dir=$1
out=$2
size=${3:-1600x1200}
width=${size%x*}
height=${size#*x}

here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${LOWSTATE:-}" ]; then
    set -- "$LOWSTATE"
elif [ -x "$here/target/release/lowstate" ]; then
    set -- "$here/target/release/lowstate"
else
    set -- cargo run --quiet --release --manifest-path "$here/Cargo.toml" --
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
html="$work/graph.html"
"$@" graph -c "$dir" --format html -o "$html"

browser=""
for b in chromium chromium-browser; do
    if command -v "$b" >/dev/null 2>&1; then
        browser=$b
        break
    fi
done
if [ -z "$browser" ]; then
    echo "chromium not found; installing it with apt-get" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update
    $sudo apt-get install -y chromium
    browser=chromium
fi

case $out in
    /*) abs_out=$out ;;
    *) abs_out="$PWD/$out" ;;
esac

"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars \
    --window-size="$width,$height" --screenshot="$abs_out" "file://$html"
echo "wrote $abs_out"
