#!/usr/bin/env bash
# Measures how long every hostile program shape (warpjit::testgen::hostile) takes to load and run,
# and the peak memory, under both engines, at the 4 MiB a trace's programs may hold:
#
#   tests/load/measure.sh [BYTES] [SHAPE...]
#
# It builds the release binary and examples/load_shapes.rs, writes the shapes into
# target/load_shapes/, and runs `warpjit run` on each under `--engine jit` and `--engine interp`
# with /usr/bin/time (each run at most 120 s and 8 GiB of address space). Per run it prints the
# exit status, the wall time, the run's own time (what `warpjit run` reports: the launches, JIT
# compiles included), their difference (loading: reading, parsing, lowering, the analyses the
# dispatcher needs) and the peak resident memory; then the worst of each. Every trace checks
# what its program stores, so a run that does not pass (exit 0) is an error here too.
#
# Timings depend on the machine and its load; docs/architecture.md ("Load time and memory")
# gives the figures measured for the README.
set -euo pipefail
cd "$(dirname "$0")/../.."
bytes=${1:-4194304}
shift || true
cargo build --release --quiet --bin warpjit
cargo build --release --quiet --features testgen --example load_shapes
out=target/load_shapes
rm -rf "$out"
target/release/examples/load_shapes "$out" "$bytes" "$@" >"$out.list"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.out"' EXIT
printf '%-18s %8s %8s %-6s %4s %8s %8s %8s %8s\n' shape n bytes engine exit wall_s run_s load_s peak_MB
worst_wall=0 worst_load=0 worst_mb=0 failed=0
while read -r name n size trace; do
  for engine in jit interp; do
    set +e
    (ulimit -v 8388608; /usr/bin/time -f '%e %M' -o "$tmp" timeout 120 \
      target/release/warpjit run "$trace" --engine "$engine" --quiet >"$tmp.out" 2>&1)
    status=$?
    set -e
    read -r wall kb < <(tail -n 1 "$tmp")
    # `1 launch, 1 warp, N lane-instructions, S s, R lane-instructions/s`
    run=$(grep -o '[0-9.]* s,' "$tmp.out" | head -n 1 | tr -d ' s,')
    run=${run:-0}
    load=$(awk -v w="$wall" -v r="$run" 'BEGIN { printf "%.2f", w - r }')
    mb=$((kb / 1024))
    printf '%-18s %8s %8s %-6s %4s %8s %8s %8s %8s\n' "$name" "$n" "$size" "$engine" "$status" \
      "$wall" "$run" "$load" "$mb"
    [ "$status" -eq 0 ] || failed=$((failed + 1))
    worst_wall=$(awk -v a="$worst_wall" -v b="$wall" 'BEGIN { print (b > a) ? b : a }')
    worst_load=$(awk -v a="$worst_load" -v b="$load" 'BEGIN { print (b > a) ? b : a }')
    [ "$mb" -le "$worst_mb" ] || worst_mb=$mb
  done
done <"$out.list"
echo "worst: ${worst_wall} s wall, ${worst_load} s loading, ${worst_mb} MB peak; ${failed} runs did not pass"
[ "$failed" -eq 0 ]
