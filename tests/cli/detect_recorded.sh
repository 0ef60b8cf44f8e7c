#!/bin/bash
# hetbench detect on trials recorded on GPUs (bench/data, docs/performance.md): 30 ResNet-50 trials
# on an H100 show no change point and the last trial within the noise; the same trials with the
# last ten 10% slower, one change point, at trial 21. 14 DeepCAM trials on an H200: none, then,
# with the last seven 3% slower, one at trial 8 (seven against seven, the exact test's reach).
set -euo pipefail
hetbench=$1
data=$2
short=$3
check() {
  python3 -c 'import json, sys
out = json.load(sys.stdin)
changes = [c["time"] for c in out["changePoints"]]
want = sys.argv[1].split(",") if sys.argv[1] else []
assert changes == want, f"change points {changes}, want {want}: {out}"
assert out["last"]["verdict"] == sys.argv[2], out["last"]' "$1" "$2"
}
"$hetbench" detect --file "$data" | check "" WithinNoise
awk -F, 'NR > 21 { $2 = $2 * 0.9 } { print }' OFS=, "$data" |
  "$hetbench" detect --file - | check 21 WithinNoise
"$hetbench" detect --file "$short" | check "" WithinNoise
awk -F, 'NR > 8 { $2 = $2 * 0.97 } { print }' OFS=, "$short" |
  "$hetbench" detect --file - | check 8 WithinNoise
echo "detect: recorded series checked"
