#!/usr/bin/env bash
# Measures the Numba programs of speed.py under warpjit's CUDA driver and under Numba's own
# simulator (NUMBA_ENABLE_CUDASIM=1), with warpjit's per-launch overhead, and prints a table:
#
#   cuda/scripts/speed.sh [VENV]      # default target/numba-venv (numba_env.sh makes it)
#
# Times are wall-clock medians: on a busy machine they are noisy; the ratios hold better.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${1:-${NUMBA_VENV:-target/numba-venv}}"
warpjit="${WARPJIT:-target/release/warpjit}"
if [ ! -x "$warpjit" ] || [ ! -f "$(dirname "$warpjit")/libcuda.so" ]; then
    cargo build --release --locked -p warpjit -p warpjit-cuda
fi
w=$("$warpjit" cuda -- "$venv/bin/python" cuda/scripts/speed.py 2>/dev/null | tail -1)
s=$(NUMBA_ENABLE_CUDASIM=1 "$venv/bin/python" cuda/scripts/speed.py 2>/dev/null | tail -1)
"$venv/bin/python" - "$w" "$s" <<'PY'
import json, sys
w, s = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"{'program':<22}{'warpjit':>14}{'simulator':>14}{'ratio':>9}")
for k in s:
    print(f"{k:<22}{w[k] * 1e3:>11.3f} ms{s[k] * 1e3:>11.3f} ms{s[k] / w[k]:>8.1f}x")
for k in w:
    if k not in s:
        print(f"{k:<22}{w[k] * 1e6:>11.1f} us")
PY
