#!/usr/bin/env bash
# A RUSTC_WRAPPER for the differential target: compiles Cranelift (and regalloc2) without
# libFuzzer's coverage instrumentation, everything else as cargo-fuzz asks.
#
# Why: the JIT compiles every block of every generated program, and with edge counters and
# compare tracing in Cranelift's own code, compiling takes most of the time of an input (and its
# coverage is Cranelift's, not warpjit's: noise for the fuzzer). The address sanitizer stays on
# (it must be the same in every crate).
#
#   RUSTC_WRAPPER=$PWD/fuzz/uninstrumented-cranelift.sh \
#       cargo +nightly fuzz run -O --target-dir fuzz/target/jit differential ...
#
# (Its own --target-dir: a wrapper changes no fingerprint, so artifacts built without it would
# be reused, and the other targets want their instrumentation.)
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
cranelift_* | regalloc2) ;;
*) exec "$rustc" "$@" ;;
esac
args=()
skip=0
for a in "$@"; do
    if [ $skip = 1 ]; then
        skip=0
        case "$a" in
        passes=sancov-module | llvm-args=-sanitizer-coverage-*) continue ;;
        *) args+=(-C "$a") ;;
        esac
        continue
    fi
    case "$a" in
    -C) skip=1 ;;
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
    *) args+=("$a") ;;
    esac
done
exec "$rustc" "${args[@]}"
