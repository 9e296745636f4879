#!/usr/bin/env bash
# A RUSTC_WRAPPER for the differential targets: only warpjit's own crates (warpjit,
# warpjit-runtime and the fuzz targets) get libFuzzer's coverage instrumentation, and without
# compare tracing; every other crate is compiled as cargo-fuzz asks minus the instrumentation.
#
# Why: an input's time goes to compiling its blocks with Cranelift, to running and comparing
# them, and to libFuzzer's per-input bookkeeping, which scans every instrumented edge counter
# after each input. Cranelift's, regalloc2's, serde's and toml's edges are noise to this
# fuzzer (it steers a program generator, not a parser), and compare tracing in warpjit's
# interpreter and JIT records guest data, not input bytes. The address sanitizer, when on, stays
# on in every crate (it must be the same everywhere).
#
#   RUSTC_WRAPPER=$PWD/fuzz/instrument-warpjit-only.sh \
#       cargo +nightly fuzz run -O -s none --target-dir fuzz/target/diff differential ...
#
# (Its own --target-dir: a wrapper changes no fingerprint, so artifacts built without it would
# be reused, and the parser targets want their full instrumentation.)
set -euo pipefail
rustc=$1
shift
name=
prev=
for a in "$@"; do
    if [ "$prev" = --crate-name ]; then
        name=$a
    fi
    prev=$a
done
case "$name" in
warpjit | warpjit_runtime | differential | dxbc_differential) keep=1 ;;
*) keep=0 ;;
esac
# Drops the sancov pass (other crates) or only compare tracing (warpjit's crates).
drop() {
    case "$1" in
    llvm-args=-sanitizer-coverage-trace-compares) return 0 ;;
    passes=sancov-module | llvm-args=-sanitizer-coverage-*) [ $keep = 0 ] ;;
    *) return 1 ;;
    esac
}
args=()
skip=0
for a in "$@"; do
    if [ $skip = 1 ]; then
        skip=0
        drop "$a" || args+=(-C "$a")
        continue
    fi
    case "$a" in
    -C) skip=1 ;;
    -C*) drop "${a#-C}" || args+=("$a") ;;
    *) args+=("$a") ;;
    esac
done
exec "$rustc" "${args[@]}"
