#!/usr/bin/env python3
"""Expected results of tests/cubin/barred.ptx, worked out from the PTX (bar.red.popc.u32,
bar.red.and.pred, bar.red.or.pred over the threads of the CTA; bar.arrive / bar.sync with a
thread count), standard library only. Writes tests/traces/cubin_barred.toml and
tests/traces/cubin_named_bars.toml (run from this directory: python3 expect/barred.py).

Threads that exited before a barrier take no part in its reduction (docs/semantics.md §30).
"""
import os

M32 = 0xFFFFFFFF
IN, OUT = 0x10000, 0x20000
DEAD = 0xDEAD
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def barred_inputs(ctas, nt):
    """in[] for `ctas` CTAs of `nt` threads: divergent bits, some threads exit."""
    v = []
    for c in range(ctas):
        for t in range(nt):
            x = ((c * nt + t) * 0x9E3779B1 + 0x2545F491) & M32
            x &= ~0xF & M32
            x |= (t * 5 + c) % 8          # bits 0..2 vary by thread
            if c == 1:
                x |= 2                    # CTA 1: p2 in every thread (AND = 1) ...
                x |= 4                    # ... and p3 everywhere (OR of !p3 = 0)
                if 32 <= t < 64:
                    x = DEAD              # ... and its warp 1 exits whole
            if c == 0 and t % 7 == 3:
                x = DEAD                  # CTA 0: scattered exits
            if c == 2:
                x |= 2                    # CTA 2: p2 in every thread left (AND = 1)
            if c == 2 and t >= 40:
                x = DEAD                  # CTA 2: the tail exits (warp 1 partly, warp 2 whole)
            v.append(x)
    return v


def barred(ctas, nt):
    a = barred_inputs(ctas, nt)
    out = [0] * (ctas * nt)
    for c in range(ctas):
        vs = [x for x in a[c * nt:(c + 1) * nt] if x != DEAD]
        p1 = [x & 1 != 0 for x in vs]
        p2 = [x & 2 != 0 for x in vs]
        p3 = [x & 4 != 0 for x in vs]
        cnt = sum(p1)
        andv = int(all(p2))
        orv = int(any(not p for p in p3))
        cnt2 = sum(not p for p in p1)
        for t in range(nt):
            i = c * nt + t
            if a[i] != DEAD:
                out[i] = cnt | andv << 8 | orv << 9 | cnt2 << 16
    return a, out


def named():
    out = [0] * 128
    buf = [3 * t + 1 for t in range(64)]
    count = sum(x & 1 for x in buf)
    for t in range(128):
        out[t] = t if t < 64 else (buf[t - 64] + 1000 + (count << 16)) & M32
    return out


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


CTAS, NT = 3, 96
a, out = barred(CTAS, NT)
with open(os.path.join(TRACES, "cubin_barred.toml"), "w") as f:
    f.write(f"""# barred from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/barred.ptx
#
# {CTAS} CTAs of {NT} threads (three warps each). Thread i reads v = in[i]; v = 0xdead exits before
# the barriers (CTA 0: every thread t with t % 7 == 3; CTA 1: all of warp 1; CTA 2: threads 40
# and up, warp 2 whole). The others reduce over their CTA: c = BAR.RED.POPC of v & 1,
# a = BAR.RED.AND of v & 2, o = BAR.RED.OR of !(v & 4), c2 = BAR.RED.POPC of !(v & 1), each read
# back with B2R.RESULT, and write out[i] = c | a << 8 | o << 9 | c2 << 16 (exited threads leave
# 0). CTA 1 has v & 2 and v & 4 in every thread (a = 1, o = 0), CTA 2 v & 2 (a = 1 over its
# partly exited warp 1).
# Expectations: tests/cubin/expect/barred.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, a, f"in[{CTAS * NT}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {4 * CTAS * NT}

[[const]]                  # parameters: in, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/barred.cubin"
kernel = "barred"
grid = [{CTAS}]
block = [{NT}]

{table("expect", OUT, out, "out")}""")

with open(os.path.join(TRACES, "cubin_named_bars.toml"), "w") as f:
    f.write(f"""# named from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/barred.ptx
#
# One CTA of 128 threads: warps 0-1 store buf[t] = 3 t + 1 in shared memory, BAR.ARV 0x1, 0x80
# (arrive, do not wait) and write out[t] = t; warps 2-3 wait at BAR.SYNC 0x1, 0x80 (complete
# once all four warps arrived), read x = buf[t - 64], count the odd x with
# BAR.RED.POPC 0x2, 0x40 (the 64 consumer threads), meet at BAR.SYNC 0x3, 0x40 and write
# out[t] = x + 1000 + (count << 16).
# Expectations: tests/cubin/expect/barred.py, from the PTX definitions.

format = "warpjit-trace/1"

[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = 512

[[const]]                  # parameter: out
bank = 0
offset = 0x140
u32 = [{OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/barred.cubin"
kernel = "named"
block = [128]

{table("expect", OUT, named(), "out")}""")
