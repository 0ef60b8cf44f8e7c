#!/bin/bash
# hetbench detect on the 30 ResNet-50 trials recorded on an H100 (bench/data, docs/performance.md):
# no change point and the last trial within the noise; then the same trials with the last ten 10%
# slower: one change point, at trial 21.
set -euo pipefail
hetbench=$1
data=$2
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
echo "detect: recorded series checked"
