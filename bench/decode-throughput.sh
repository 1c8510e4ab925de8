#!/usr/bin/env bash
# Decoding throughput of `liveloc decode` against gpsd's gpsdecode and `wc -l` (the floor: reading
# the bytes), on gpsd's receiver-log corpus concatenated to about a million sentences.
#
# usage: bench/decode-throughput.sh [CORPUS_DIR] [TARGET_SENTENCES]
#   CORPUS_DIR        default ../shared/gpsd-corpus (its *.log files)
#   TARGET_SENTENCES  default 1000000
# Environment: RUNS (default 5; gpsdecode, 10x slower, gets min(RUNS, 3)).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/gpsd-corpus}
target=${2:-1000000}
runs=${RUNS:-5}

command -v gpsdecode >/dev/null || { echo "gpsdecode not found (Debian package gpsd-clients)" >&2; exit 2; }
ls "$corpus"/*.log >/dev/null 2>&1 || { echo "no *.log files in $corpus" >&2; exit 2; }

echo "building release..." >&2
(cd "$root" && swift build -c release --product liveloc >/dev/null)
liveloc=$root/.build/release/liveloc

work=$(mktemp -d "${TMPDIR:-/tmp}/decode-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
input=$work/input.nmea

# Sentences: lines with a '$' that are not comments.
per_copy=$(cat "$corpus"/*.log | grep -v '^#' | grep -c '\$' || true)
copies=$(( (target + per_copy - 1) / per_copy ))
for _ in $(seq "$copies"); do cat "$corpus"/*.log; done > "$input"
sentences=$(( per_copy * copies ))
bytes=$(stat -c %s "$input")
echo "input: $copies copies of $corpus/*.log: $sentences sentences, $(( bytes / 1048576 )) MiB" >&2

# Prints the median wall time in seconds of running "$@" (stdin from the input, stdout discarded).
median_seconds() {
    local count=$1; shift
    local times=()
    for _ in $(seq "$count"); do
        local start end
        start=$(date +%s%N)
        "$@" < "$input" > /dev/null
        end=$(date +%s%N)
        times+=("$(( end - start ))")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { printf "%.4f\n", t[int((NR + 1) / 2)] / 1e9 }'
}

liveloc_s=$(median_seconds "$runs" "$liveloc" decode -)
gpsdecode_s=$(median_seconds "$(( runs < 3 ? runs : 3 ))" gpsdecode)
wc_s=$(median_seconds "$runs" wc -l)

rate() { awk -v n="$sentences" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
printf '%-16s %10s %16s\n' tool "median s" "sentences/s"
printf '%-16s %10s %16s\n' "liveloc decode" "$liveloc_s" "$(rate "$liveloc_s")"
printf '%-16s %10s %16s\n' gpsdecode "$gpsdecode_s" "$(rate "$gpsdecode_s")"
printf '%-16s %10s %16s\n' "wc -l" "$wc_s" "$(rate "$wc_s")"
awk -v a="$gpsdecode_s" -v b="$liveloc_s" 'BEGIN { printf "liveloc decode / gpsdecode: %.1fx\n", a / b }'

# The same fixes: gpsd's own expected output for the corpus (*.log.chk), scored by the shared tool.
conformance=$root/../shared/tools/nmea-conformance
if [ -x "$conformance" ]; then
    "$conformance" "$corpus" -- "$liveloc" decode 2>&1 | awk '/^fixes matched:/ { print "same fixes as gpsd (nmea-conformance): " $0 }'
else
    echo "same fixes: $conformance not found; not checked here" >&2
fi
