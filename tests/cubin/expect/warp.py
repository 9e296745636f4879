#!/usr/bin/env python3
"""Expected results of tests/cubin/warp.ptx, worked out from the PTX (shfl, vote, %lanemask_*
as the PTX ISA defines them), standard library only. Prints the [[global]] and [[expect]] tables
of tests/traces/cubin_warp_ops.toml ("warp_ops") or cubin_clocks.toml ("clocks").

Where PTX leaves a value undefined (a shuffle that reads an inactive lane) the value follows
warpjit's documented rules applied to the ptxas listing (docs/semantics.md §7, §22c): the lanes
that take a divergent branch run first, and an inactive lane's register holds what it last held.
"""
import sys

M32 = 0xFFFFFFFF
IN, OUT = 0x1_0000_0000 - 0x80, 0x2_0000_0000


def inputs():
    v = []
    for t in range(64):
        x = (t * 0x9E3779B1 + 0x1234567) & M32
        if t < 32 and t & 1:
            x |= 2  # warp 0: every odd lane votes true
        v.append(x)
    v[40] |= 1  # keep both warps divergent with a mix
    v[41] &= ~2 & M32
    return v


def shfl(mode, vals, b, c):
    """PTX shfl over one warp: per lane (value, in range); b and c per lane."""
    out = []
    for lane in range(32):
        bv, cv = b[lane] & 0x1F, c[lane] & 0x1F
        mask = (c[lane] >> 8) & 0x1F
        max_lane = (lane & mask) | (cv & ~mask & 0x1F)
        min_lane = lane & mask
        if mode == "up":
            j = lane - bv
            p = j >= max_lane
        elif mode == "down":
            j = lane + bv
            p = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bv
            p = j <= max_lane
        else:
            j = min_lane | (bv & ~mask & 0x1F)
            p = j <= max_lane
        out.append((vals[j] if p else vals[lane], int(p)))
    return out


def warp_ops():
    a_all = inputs()
    out = [0] * (64 * 16)
    for w in range(2):
        a = a_all[32 * w:32 * w + 32]
        tid = [32 * w + l for l in range(32)]
        k = lambda c: [c] * 32
        r = a
        for d in (16, 8, 4, 2, 1):  # k0: sum by shfl.down
            s = [v for v, _ in shfl("down", r, k(d), k(31))]
            r = [(x + y) & M32 for x, y in zip(r, s)]
        k0 = r
        r = a
        for d in (1, 2, 4, 8, 16):  # k1: xor by shfl.bfly
            s = [v for v, _ in shfl("bfly", r, k(d), k(31))]
            r = [x ^ y for x, y in zip(r, s)]
        k1 = r
        k2 = shfl("up", a, k(3), k(0x1800))
        k3 = shfl("idx", tid, [x & 31 for x in a], k(31))
        k4 = shfl("idx", a, k(5), [(x >> 8) & 0x1F1F for x in a])
        odd = [l for l in range(32) if a[l] & 1]
        even = [l for l in range(32) if not a[l] & 1]
        assert odd and even
        # Even lanes take the branch and run first: shfl.up of tid by 1, c = 0, from odd lanes
        # (their %r1 = tid). Their result register is the one the odd lanes' shfl.down reads.
        up = shfl("up", tid, k(1), k(0))
        r2 = list(a)
        for l in even:
            r2[l] = up[l][0]
        ballot = sum(1 << l for l in odd if a[l] & 2)
        omask = sum(1 << l for l in odd)
        allv, anyv = ballot == omask, ballot != 0
        eqv = ballot in (0, omask)
        down = shfl("down", r2, k(1), k(31))
        for l in range(32):
            t = 32 * w + l
            o = 16 * t
            out[o + 0], out[o + 1] = k0[l], k1[l]
            out[o + 2], out[o + 3] = k2[l]
            out[o + 4] = k3[l][0]
            out[o + 5], out[o + 6] = k4[l]
            if l in odd:
                out[o + 7] = ballot
                out[o + 8] = int(allv) | int(anyv) << 1 | int(eqv) << 2
                out[o + 9] = down[l][0]
            else:
                out[o + 7], out[o + 8], out[o + 9] = 0xDEAD, 0xBEEF, r2[l]
            eq, lt = 1 << l, (1 << l) - 1
            le = lt | eq
            out[o + 10] = l
            out[o + 11] = eq ^ lt ^ le
            out[o + 12] = ~le & M32
            out[o + 13] = ~lt & M32
    return a_all, out


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = [" + ",\n       ".join(rows) + "]\n"


which = sys.argv[1] if len(sys.argv) > 1 else "warp_ops"
if which == "warp_ops":
    a, out = warp_ops()
    print(table("global", IN, a, "in[64]"))
    print("[[global]]                 # out[64 * 16], zero-filled\naddr = 0x200000000\nsize = 4096\n")
    print(table("expect", OUT, out, "out"))
