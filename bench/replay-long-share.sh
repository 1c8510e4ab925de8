#!/usr/bin/env bash
# Replay of a long share: an 8 h share at 10 Hz (288,000 fixes, synthesized) replayed as fast as
# possible through the broadcaster to stdout, against a 1 h share of the same rate, so that memory
# growth with the number of fixes shows. gpsd's gpsdecode on the same file is the reference (it
# decodes only; liveloc decodes, runs the share rules and writes every event).
# Prints: fixes, seconds, µs per fix (wall clock), CPU µs per fix (user + system: less sensitive to
# other load on the host), peak RSS (KiB) for each; median of RUNS runs, and the host's load.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product liveloc >/dev/null
liveloc=.build/release/liveloc
python3 scripts/synthesize-fixtures.py long --hours 8 --rate 10 --output "$work/8h.nmea" >/dev/null
python3 scripts/synthesize-fixtures.py long --hours 1 --rate 10 --output "$work/1h.nmea" >/dev/null

# median of the runs' "seconds rss cpu-seconds" triples, by seconds
measure() {
    local out=$1; shift
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >"$out"
        awk '{ print $1, $2, $3 + $4 }' "$work/time"
    done | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}

echo "host load: $(cut -d' ' -f1-3 /proc/loadavg)"
per_fix() { awk -v s="$1" -v n="$2" 'BEGIN { print s * 1e6 / n }'; }
printf '%-34s %9s %9s %10s %12s %12s\n' "run" "fixes" "seconds" "us/fix" "CPU us/fix" "peak RSS KiB"
for hours in 1 8; do
    log="$work/${hours}h.nmea"
    duration=$([ "$hours" = 1 ] && echo 1h || echo 8h)
    read -r secs rss cpu < <(measure "$work/events" "$liveloc" share --duration "$duration" --replay "$log" --speed 0)
    fixes=$(grep -c '"event":"updated"' "$work/events")
    printf '%-34s %9d %9.2f %10.3f %12.3f %12d\n' "liveloc share ${duration} (${hours}h log)" "$fixes" "$secs" \
        "$(per_fix "$secs" "$fixes")" "$(per_fix "$cpu" "$fixes")" "$rss"
    if command -v gpsdecode >/dev/null; then
        read -r secs rss cpu < <(measure /dev/null sh -c "gpsdecode < '$log'")
        printf '%-34s %9d %9.2f %10.3f %12.3f %12d\n' "gpsdecode (${hours}h log, reference)" "$fixes" "$secs" \
            "$(per_fix "$secs" "$fixes")" "$(per_fix "$cpu" "$fixes")" "$rss"
    fi
done
