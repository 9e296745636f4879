#!/usr/bin/env python3
"""Expected results of tests/cubin/video.ptx, stack_O0.ptx, recurse.ptx and casloop.ptx, worked
out from the PTX definitions, standard library only. Writes tests/traces/cubin_video_clamp.toml,
cubin_video_sad.toml, cubin_stack_O0.toml, cubin_recurse.toml and cubin_casloop.toml (run from
anywhere: python3 tests/cubin/expect/video.py).

The video instructions (PTX ISA, "scalar video instructions"): each operand's byte, half or word
is zero- or sign-extended by its type, the operation is done on those values exactly, `.sat`
clamps to the destination type, and the secondary operation (`.add`, `.min`, `.max`) or the
merge (`d.h1`: into the high half of c) follows. The kernels use one signedness per instruction.
"""
import os
import struct

M32 = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


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


IN, OUT = 0x10000, 0x20000

# clamp: io[i] = min(max(io[i] - 1, 0), h - 1), s32; 2 CTAs of 40 threads (a partial warp each).
H = 10
xs = [(i * 37 - 1500) & M32 for i in range(80)] + [0x80000000, 0x7FFFFFFF]
xs = xs[:78] + xs[-2:]          # INT_MIN - 1 wraps to INT_MAX (clamped to h - 1); INT_MAX
clamp = [min(max(s32(x - 1), 0), H - 1) & M32 for x in xs]
write("cubin_video_clamp.toml", f"""# clamp from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/video.ptx
#
# io[i] = min(max(io[i] - 1, 0), h - 1) in s32 for i = ctaid.x * 40 + tid.x, h = {H}: ptxas writes
# the clamp as one VMNMX.SD.S32.S32.MX.MIN (max with RZ, then the minimum with h - 1). Two CTAs
# of 40 threads (each a full and a partial warp); the inputs step by 37 from -1500, and the last
# two are INT_MIN (minus 1 wraps to INT_MAX) and INT_MAX.
# Expectations: tests/cubin/expect/video.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, xs, "io[80]")}
[[const]]                  # parameters: io, h
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {H:#x}]

[[launch]]
code_file = "../cubin/video.cubin"
kernel = "clamp"
grid = [2]
block = [40]

{table("expect", IN, clamp, "io")}""")


def ext(v, bits, shift, signed):
    x = (v >> shift) & ((1 << bits) - 1)
    return x - (1 << bits) if signed and x >> (bits - 1) else x


def sad_out(i, a, b):
    return [
        (abs(a - b) + i) & M32,                                   # sad.u32
        (abs(s32(a) - s32(b)) + i) & M32,                         # sad.s32
        max(a, b),                                                # vmax.u32
        max(min(s32(a), s32(b)), i - 16) & M32,                   # vmin.s32 .max
        (abs(ext(a, 8, 24, False) - ext(b, 8, 8, False)) + i) & M32,   # vabsdiff.u8 b3, b1 .add
        (max(ext(a, 16, 16, True), ext(b, 16, 0, True)) + i) & M32,    # vmax.s16 h1, h0 .add
        max(min(abs(s32(a) - s32(b)), 0x7FFFFFFF), -0x80000000) & M32,  # vabsdiff.s32 .sat
        (i & 0xFFFF) | (min(a, b) & 0xFFFF) << 16,                # vmin.u32 merged into i.h1
    ]


r = lcg(11)
n = 96
edge = [(0, 0), (0xFFFFFFFF, 0), (0x80000000, 0x7FFFFFFF), (0x7FFFFFFF, 0x80000000),
        (0x12345688, 0x8A24C993), (0xFF00FF00, 0x00FF00FF), (5, 0xFFFFFFFB), (0x8000, 0x7FFF)]
ab = edge + [(next(r), next(r)) for _ in range(n - len(edge))]
flat = [w for p in ab for w in p]
outs = [w for i, (a, b) in enumerate(ab) for w in sad_out(i, a, b)]
write("cubin_video_sad.toml", f"""# sad from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/video.ptx
#
# For i = ctaid.x * 48 + tid.x and (a, b) = (ab[2i], ab[2i+1]), eight words out[8i..8i+8]:
# sad.u32(a, b, i), sad.s32(a, b, i) (VABSDIFF.UD.U32.U32.ACC, .SD.S32.S32.ACC),
# vmax.u32.u32.u32 (VMNMX.UD.U32.U32.MX, no secondary step), vmin.s32.s32.s32.max with i - 16
# (VMNMX ... .MN.MAX), vabsdiff.u32.u32.u32.add of a.b3 and b.b1 (VABSDIFF.UD.U8.U8.ACC with
# byte selects), vmax.s32.s32.s32.add of a.h1 and b.h0 (VMNMX.SD.S16.S16.MX.ACC), vabsdiff.s32
# .sat (VABSDIFF.SD.S32.S32.SAT: |INT_MIN - INT_MAX| saturates) and vmin.u32 merged into the high
# half of i (VMNMX ... .MRG_16H). Two CTAs of 48 threads; the first eight pairs are edge cases.
# Expectations: tests/cubin/expect/video.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, flat, f"ab[{2 * n}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {32 * n}

[[const]]                  # parameters: ab, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/video.cubin"
kernel = "sad"
grid = [2]
block = [48]

{table("expect", OUT, outs, "out")}""")

# stack_O0: arr[j] = t * j + io[t]; io[t] = arr[(5t) & 15] + arr[15].
io = [(t * 0x01010101 + 7) & M32 for t in range(40)]
st = [((t * ((5 * t) & 15) + io[t]) + (t * 15 + io[t])) & M32 for t in range(40)]
write("cubin_stack_O0.toml", f"""# stack_O0 from a real cubin: ptxas 12.9 -arch=sm_50 -O0 compiled tests/cubin/stack_O0.ptx
#
# A 16-word local array per thread: arr[j] = t * j + io[t], then io[t] = arr[(5 t) & 15] + arr[15].
# At -O0 ptxas checks the stack at entry: S2R SR_LMEMHIOFF (0 here: the stack may grow down to
# offset 0), ISETP.GE.U32 with the stack pointer, @P0 BRA over BPT.TRAP 0x1. One CTA of 40
# threads; local_bytes comes from the cubin (its 64-byte frame).
# Expectations: tests/cubin/expect/video.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, io, "io[40]")}
[[const]]                  # parameter: io
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0]

[[launch]]
code_file = "../cubin/stack_O0.cubin"
kernel = "stack_O0"
block = [40]

{table("expect", IN, st, "io")}""")


def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)


r = lcg(23)
N = 90
ins = [next(r) % 5000 for _ in range(N)]
ins[:4] = [0, 1, 15, 0xFFFFFFFF]
rec = []
for i in range(N):
    rec += [fib(ins[i] & 15), gcd(ins[i], ins[(i + 1) % N])]
rec += [0xDEAD] * 12            # threads 90..95 exit before writing
write("cubin_recurse.toml", f"""# recurse from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/recurse.ptx
#
# For i = ctaid.x * 32 + tid.x < n = {N}: out[2i] = fib(in[i] % 16) by recursive calls, out[2i+1] =
# gcd(in[i], in[(i + 1) % n]) by a recursive Euclid. The functions recurse, so ptxas cannot bound
# the stack and .nv.info gives none: the launch gets the 1 KiB a kernel that calls functions gets
# by default (no local_bytes key). Three CTAs of 32 threads; threads 90..95 exit at once.
# Expectations: tests/cubin/expect/video.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, ins, f"in[{N}]")}
{table("global", OUT, [0xDEAD] * (2 * N + 12), "out, filled with 0xdead")}
[[const]]                  # parameters: in, out, n
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0, {N:#x}]

[[launch]]
code_file = "../cubin/recurse.cubin"
kernel = "recurse"
grid = [3]
block = [32]

{table("expect", OUT, rec, "out")}""")

# casloop: 3 CTAs of 100; x = in[gid] (f32, quarters of integers, so every sum is exact).
G, BL = 3, 100
n = G * BL
r = lcg(45)
xs = [float(s32(next(r)) % 100000) / 4 for _ in range(n)]
fbits = [struct.unpack("<I", struct.pack("<f", x))[0] for x in xs]
neg = struct.unpack("<I", struct.pack("<f", -1e30))[0]
fmax = [-1e30] * 4
for i, x in enumerate(xs):
    fmax[i % 4] = max(fmax[i % 4], x)
ds = [0.0] * 3
for i, x in enumerate(xs):
    ds[i % 3] += x
fmax_bits = [struct.unpack("<I", struct.pack("<f", x))[0] for x in fmax]
ds_words = [w for d in ds for w in struct.unpack("<II", struct.pack("<d", d))]
D0 = 0x40000
write("cubin_casloop.toml", f"""# casloop from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/casloop.ptx
#
# Three CTAs of 100 threads; x = in[gid] (binary32, quarters of integers below 25000, so every
# sum below is exact in binary64 whatever the order): an atomicMax on floats by an
# atom.global.cas.b32 retry loop into fmax[gid % 4], an atomicAdd on doubles by an
# atom.global.cas.b64 retry loop into dsum[gid % 3], and per CTA a shared counter incremented by
# an atom.shared.cas.b32 loop, whose final count (100) thread 0 writes to out[n + ctaid]. The CTAs
# meet on the same global words: on several host threads the retries, and so the instruction
# counts, depend on how the CTAs interleave (`--engine both` runs each engine on one thread).
# Expectations: tests/cubin/expect/video.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", IN, fbits, f"in[{n}] (binary32)")}
{table("global", OUT, [neg] * 4, "fmax[4], -1e30")}
[[global]]                 # dsum[3] (binary64), zero-filled
addr = 0x30000
size = 24

[[global]]                 # out[n + 3], zero-filled
addr = {D0:#x}
size = {4 * (n + G)}

[[const]]                  # parameters: in, fmax, dsum, out, n
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0, 0x30000, 0x0, {D0:#x}, 0x0, {n:#x}]

[[launch]]
code_file = "../cubin/casloop.cubin"
kernel = "casloop"
grid = [{G}]
block = [{BL}]

{table("expect", OUT, fmax_bits, "fmax")}
{table("expect", 0x30000, ds_words, "dsum")}
{table("expect", D0 + 4 * n, [BL] * G, "the shared counts")}""")
