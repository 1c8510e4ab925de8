#!/usr/bin/env bash
# Issue 19 item 7: the control protocol's JSON with the package's JSONCoding or with
# FoundationEssentials' JSONEncoder/JSONDecoder. Prints the CPU per round trip (a status reply
# encoded, a start request decoded) of both in one process, and the RSS of two probes linked as
# livelocd is (the Swift runtime static), each doing one round trip, three times each, interleaved.
# usage: bench/json-coding.sh [ROUNDS]   (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
for product in bench-json json-rss-jsoncoding json-rss-foundation; do
    swift build -c release --product "$product" >/dev/null
done
.build/release/bench-json "${1:-20000}"
for _ in 1 2 3; do
    .build/release/json-rss-jsoncoding
    .build/release/json-rss-foundation
done
