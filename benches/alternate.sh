#!/usr/bin/env bash
# Compares builds of the `profile` example on one network, for this machine's noisy timings:
# each build runs RUNS times, a fresh process each, the builds taking turns; prints, per build,
# the median, least and greatest of its `loop` phase (s). Only builds alternated in one window
# are comparable (benches/README.md: single runs spread by 10–20 % when the host is busy).
#
#   benches/alternate.sh RUNS SPEC|WORKLOAD BIN...   (each BIN a distinct path)
#
# SPEC is a resolved spec (JSON file); a bench workload name (scale-10000, isp-2000, …) is
# resolved first with `ndncc.bench.spec_json`. Each BIN is a build of
# `cargo build --release -p ndncc-sim --example profile` (target/release/examples/profile),
# copied aside before the next change.
set -euo pipefail
if [ $# -lt 3 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 RUNS SPEC|WORKLOAD BIN..." >&2
    exit 2
fi
runs=$1 spec=$2
shift 2
for b in "$@"; do
    [ -x "$b" ] || { echo "alternate.sh: $b is not an executable build" >&2; exit 2; }
done
if [ ! -f "$spec" ]; then
    root=$(cd "$(dirname "$0")/.." && pwd)
    file=$(mktemp --suffix=.json)
    trap 'rm -f "$file"' EXIT
    "$root/.venv/bin/python" -c 'import sys; from ndncc import bench
if not bench.known(sys.argv[1]): sys.exit(f"alternate.sh: {sys.argv[1]!r} is neither a file nor a workload")
sys.stdout.write(bench.spec_json(sys.argv[1]))' "$spec" > "$file"
    spec=$file
fi
declare -A loops
for _ in $(seq "$runs"); do
    for b in "$@"; do
        loop=$("$b" "$spec" 1 | sed -n 's/.*loop \([0-9.]*\).*/\1/p')
        loops[$b]="${loops[$b]:-} $loop"
    done
done
for b in "$@"; do
    echo "$b: $(tr ' ' '\n' <<<"${loops[$b]}" | sed '/^$/d' | sort -n |
        awk '{a[NR]=$1} END {printf "median %.4f min %.4f max %.4f (n=%d)", a[int((NR+1)/2)], a[1], a[NR], NR}')"
done
