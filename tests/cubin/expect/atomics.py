#!/usr/bin/env python3
"""Expected results of tests/cubin/atomics.ptx (atom_global) and shared_atomics.ptx (atom_shared),
worked out from the PTX alone (PTX ISA definitions of atom, red, shfl-free), standard library only.

Writes the [[global]]/[[expect]] tables of tests/traces/cubin_atom_global.toml and
cubin_atom_shared.toml to stdout (the trace files add their headers by hand).

Order: the warps of a CTA run one after the other between barriers (docs/semantics.md §9: each
warp's work here is far shorter than a turn's quantum, 4096 warp instructions, so no turn ends
before the warp exits or waits) and the lanes of one atomic instruction take effect in ascending
lane order, so every slot sees the threads in order 0, 1, ..., 63; the CAS loop is simulated in
lockstep.
"""
import struct
import sys
from fractions import Fraction

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def f32_value(bits):
    sign = -1 if bits >> 31 else 1
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    assert e != 0xFF
    if e == 0:
        return sign * Fraction(m, 1 << 149)
    return sign * Fraction(m | 0x800000, 1) * Fraction(2) ** (e - 150)


def f32_round(x):
    """Nearest-even binary32 of the exact rational x, subnormal results flushed to signed 0."""
    if x == 0:
        return 0
    sign = 0x80000000 if x < 0 else 0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    if e < -126:
        return sign  # below the normal range: flushed (.FTZ)
    q = a / Fraction(2) ** (e - 23)
    n = q.numerator // q.denominator
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n & 1):
        n += 1
    if n == 1 << 24:
        n >>= 1
        e += 1
    if e > 127:
        return sign | 0x7F800000
    return sign | ((e + 127) << 23) | (n & 0x7FFFFF)


def f32_add_ftz(a, b):
    ftz = lambda v: v & 0x80000000 if (v >> 23) & 0xFF == 0 else v
    return f32_round(f32_value(ftz(a)) + f32_value(ftz(b)))


def u64_words(v):
    return [v & M32, v >> 32]


# ---- atom_global ---------------------------------------------------------------------------
CNT, OUT = 0xFFFF_FFC0, 0x2_0000_0000
cnt = [0] * 26
cnt[0:4] = [0xFFFFFFF0, 5, 0x7FFFFFFF, 0]
cnt[4], cnt[5] = 0x10, 0xFFFFFF00
cnt[6], cnt[7], cnt[8] = 0x80000000, 3, 1
cnt[9], cnt[10], cnt[11] = 0xFFFFFFFF, 0x80000000, 0x12345678
cnt[12], cnt[13] = 0xABCDEF, 0
cnt[14:16] = u64_words(0xFFFFFFFFFFFFFFF0)
cnt[16], cnt[17] = 5, 7
cnt[18], cnt[19], cnt[20], cnt[21] = 100, 0x7FFFFFFF, 0x55AA55AA, 0x5EED5EED
cnt[22:24] = u64_words(0x1122334455667788)
cnt[24:26] = [0x5EED5EED, 0x5EED5EED]
init_cnt = list(cnt)

out = [0] * (64 * 16)
u64 = lambda i: cnt[i] | cnt[i + 1] << 32


def set64(i, v):
    cnt[i], cnt[i + 1] = v & M32, v >> 32


def shl(x, n):  # PTX shl.b32: amounts above 31 give 0
    return (x << n) & M32 if n < 32 else 0


for warp in range(2):
    lanes = range(32 * warp, 32 * warp + 32)
    for t in lanes:  # k0: add.u32 on cnt[t & 3]
        i = t & 3
        out[16 * t + 0] = cnt[i]
        cnt[i] = (cnt[i] + t + 1) & M32
    for t in lanes:  # k1: min.s32 on cnt[4 + (t & 1)]
        i, v = 4 + (t & 1), (t * 7 - 100) & M32
        out[16 * t + 1] = cnt[i]
        cnt[i] = v if s32(v) < s32(cnt[i]) else cnt[i]
    for t in lanes:  # k2: max.u32
        v = (t * 0x9E3779B9) & M32
        out[16 * t + 2] = cnt[6]
        cnt[6] = max(cnt[6], v)
    for t in lanes:  # k3: inc bound 5: (old >= b) ? 0 : old + 1
        out[16 * t + 3] = cnt[7]
        cnt[7] = 0 if cnt[7] >= 5 else cnt[7] + 1
    for t in lanes:  # k4: dec bound 3: (old == 0 || old > b) ? b : old - 1
        out[16 * t + 4] = cnt[8]
        cnt[8] = 3 if cnt[8] == 0 or cnt[8] > 3 else cnt[8] - 1
    for t in lanes:  # k5: and with ~(1 << t)
        out[16 * t + 5] = cnt[9]
        cnt[9] &= ~shl(1, t) & M32
    for t in lanes:  # k6: or with 1 << t
        out[16 * t + 6] = cnt[10]
        cnt[10] |= shl(1, t)
    for t in lanes:  # k7: xor with t * 0x01010101
        out[16 * t + 7] = cnt[11]
        cnt[11] ^= (t * 0x01010101) & M32
    for t in lanes:  # k8: exch with t
        out[16 * t + 8] = cnt[12]
        cnt[12] = t
    for t in lanes:  # k9: cas compare t, swap t + 1
        out[16 * t + 9] = cnt[13]
        if cnt[13] == t:
            cnt[13] = t + 1
    for t in lanes:  # k10: add.u64
        old = u64(14)
        out[16 * t + 10], out[16 * t + 11] = u64_words(old)
        set64(14, (old + ((t << 32) | 0xFFFFFFFF)) & M64)
    for t in lanes:  # k11: add.f32 (.ftz.rn)
        out[16 * t + 12] = cnt[16]
        cnt[16] = f32_add_ftz(cnt[16], 0x3E000000 ^ (t << 20))
    # k12: the CAS loop, in lockstep: every iteration, the lanes still looping CAS in lane order.
    r24 = {t: cnt[17] for t in lanes}
    looping = list(lanes)
    while looping:
        got = {}
        for t in looping:
            new = (r24[t] * 3 + t) & M32
            got[t] = cnt[17]
            if cnt[17] == r24[t]:
                cnt[17] = new
        nxt = []
        for t in looping:
            if got[t] != r24[t]:
                nxt.append(t)
            r24[t] = got[t]
        for t in looping:
            if t not in nxt:
                out[16 * t + 13] = got[t]
        looping = nxt
    for t in lanes:  # red: add, min.s32, xor
        cnt[18] = (cnt[18] + t + 1) & M32
        v = (t * 7 - 100) & M32
        cnt[19] = v if s32(v) < s32(cnt[19]) else cnt[19]
        cnt[20] ^= (t * 0x01010101) & M32
    for t in lanes:  # exch.b64
        old = u64(22)
        out[16 * t + 14], out[16 * t + 15] = u64_words(old)
        set64(22, (t << 32) | 0xFFFFFFFF)


def table(kind, addr, words, comment):
    rows = []
    for i in range(0, len(words), 8):
        rows.append(", ".join(f"{w:#x}" for w in words[i:i + 8]))
    body = ",\n       ".join(rows)
    return f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = [{body}]\n"


which = sys.argv[1] if len(sys.argv) > 1 else "global"
if which == "global":
    print(table("global", CNT, init_cnt, "cnt[26]"))
    print("[[global]]                 # out[64 * 16], zero-filled\naddr = 0x200000000\nsize = 4096\n")
    print(table("expect", CNT, cnt, "cnt after the launch"))
    print(table("expect", OUT, out, "out: what each thread got back"))
    sys.exit(0)

# ---- atom_shared ---------------------------------------------------------------------------
s = [0] * 16
sout = [0x5EED5EED] * (64 * 12 + 16 + 4)
for t in range(64):
    sout[12 * t:12 * t + 12] = [0] * 12
for k in range(11):
    for t in range(64):
        o = 12 * t
        if k == 0:
            i = t & 3
            sout[o] = s[i]
            s[i] = (s[i] + t + 1) & M32
        elif k == 1:
            v = (50 - 3 * t) & M32
            sout[o + 1] = s[4]
            s[4] = v if s32(v) < s32(s[4]) else s[4]
        elif k == 2:
            v = (5 * t - 200) & M32
            sout[o + 2] = s[5]
            s[5] = v if s32(v) > s32(s[5]) else s[5]
        elif k == 3:
            sout[o + 3] = s[6]
            s[6] = 0 if s[6] >= 6 else s[6] + 1
        elif k == 4:
            sout[o + 4] = s[7]
            s[7] = 4 if s[7] == 0 or s[7] > 4 else s[7] - 1
        elif k == 5:
            sout[o + 5] = s[8]
            s[8] |= shl(1, t)
        elif k == 6:
            sout[o + 6] = s[9]
            s[9] &= ~shl(3, t & 15) & M32
        elif k == 7:
            sout[o + 7] = s[10]
            s[10] ^= (t * 17) & M32
        elif k == 8:
            sout[o + 8] = s[11]
            s[11] = 2 * t
        elif k == 9:
            sout[o + 9] = s[12]
            if s[12] == t:
                s[12] = t + 1
        elif k == 10:
            old = s[14] | s[15] << 32
            sout[o + 10], sout[o + 11] = u64_words(old)
            new = (old + ((t << 32) | 0xFFFFFFFF)) & M64
            s[14], s[15] = new & M32, new >> 32
sout[768:784] = s
print(table("global", OUT, [0] * (64 * 12) + [0x5EED5EED] * 20, "out[788]: 768 results, s[16], 4 guard words"))
print(table("expect", OUT, sout, "out after the launch"))
