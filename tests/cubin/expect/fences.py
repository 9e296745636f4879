#!/usr/bin/env python3
"""Expected results of tests/cubin/fences.cu, worked out from the CUDA source, standard library
only. Writes tests/traces/cubin_fences.toml and cubin_fence_sum.toml (run from anywhere:
python3 tests/cubin/expect/fences.py).

fences: thread t writes t, t + 1, t + 2, t + 3 to out[4t .. 4t+3], a fence between each store.
fence_sum: the wrapping u32 sum of every input (every block's 64 inputs summed in shared memory,
the last block to take a ticket adds up the blocks' partial sums), and the partial sums.
"""
import os

M32 = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        yield x >> 32


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w & M32:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


def write(name, text):
    with open(os.path.join(TRACES, name), "w") as f:
        f.write(text)


OUT = 0x10000
n = 80
write("cubin_fences.toml", f"""# fences from a real cubin: NVRTC 12.9 (compute_50) compiled tests/cubin/fences.cu, ptxas 12.9
# -arch=sm_50 -O3 made fences.cubin
#
# __threadfence_block(), __threadfence() and __threadfence_system() (MEMBAR.CTA,
# MEMBAR.GL.IVALLD, MEMBAR.SYS.IVALLD) between four volatile stores: thread t writes t, t + 1,
# t + 2, t + 3 to out[4t .. 4t+3]. Two CTAs of 40 threads.
# Expectations: tests/cubin/expect/fences.py.

format = "warpjit-trace/1"

[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {16 * n}

[[const]]                  # parameters: out
bank = 0
offset = 0x140
u32 = [{OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/fences.cubin"
kernel = "fences"
grid = [2]
block = [40]

{table("expect", OUT, [t + i for t in range(n) for i in range(4)], "out")}""")

IN, PARTIAL, SUM = 0x10000, 0x20000, 0x30000
BLOCKS, SECOND = 16, 9
r = lcg(0x27)
xs = [next(r) for _ in range(64 * BLOCKS)]
partial = [sum(xs[64 * b:64 * b + 64]) & M32 for b in range(BLOCKS)]
write("cubin_fence_sum.toml", f"""# fence_sum from a real cubin: NVRTC 12.9 (compute_50) compiled tests/cubin/fences.cu, ptxas 12.9
# -arch=sm_50 -O3 made fences.cubin
#
# The last-block reduction of CUDA's threadFenceReduction sample: each block of 64 threads sums
# its inputs in shared memory, stores the sum to partial[b], fences (MEMBAR.GL.IVALLD) and takes
# a ticket with atomicInc on the module's counter `retired` (.nv.global); the block with the
# last ticket sums the partial sums into out[0] and sets `retired` back to 0. Launch 0 runs
# {BLOCKS} blocks over the {64 * BLOCKS} inputs; launch 1 runs the first {SECOND} only: its out[0] is
# their sum, which needs `retired` reset by launch 0 (partial[{SECOND}..] keep launch 0's values).
# The result does not depend on which block finishes last: `--threads` may run blocks at once
# (tests/cli.rs runs this trace with --threads 4 --engine both).
# Expectations: tests/cubin/expect/fences.py (wrapping u32 sums).

format = "warpjit-trace/1"

{table("global", IN, xs, f"in[{len(xs)}]")}
[[global]]                 # partial, zero-filled
addr = {PARTIAL:#x}
size = {4 * BLOCKS}

[[global]]                 # out
addr = {SUM:#x}
size = 4

[[const]]                  # parameters: in, partial, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {PARTIAL:#x}, 0x0, {SUM:#x}, 0x0]

[[launch]]
code_file = "../cubin/fences.cubin"
kernel = "fence_sum"
grid = [{BLOCKS}]
block = [64]

[[launch]]
code_file = "../cubin/fences.cubin"
kernel = "fence_sum"
grid = [{SECOND}]
block = [64]

{table("expect", PARTIAL, partial, "partial")}
{table("expect", SUM, [sum(partial[:SECOND]) & M32], "out: launch 1's sum")}""")
