#!/usr/bin/env python3
"""Traces of tests/cubin/params.cu with per-launch arguments (`params = [...]`), and their
expected results worked out from the CUDA source, standard library only. Writes
tests/traces/cubin_scan_pipeline.toml and tests/traces/cubin_params_every_kind.toml (run from
anywhere: python3 tests/cubin/expect/params.py).

- The scan pipeline: scan_block(in, out, sums, n) scans each block of 256 words (inclusive, u32,
  wrapping) and writes each block's total to sums; scan_block(sums, prefix, NULL, blocks) scans
  those totals in one block; add_prefix(out, prefix, n) adds prefix[b - 1] to block b > 0. The
  result is the inclusive scan of `in`: three launches, two kernels, each with its own arguments.
- every_kind(a, b, c, d, e, f, g, h, x, y, p, s, out) writes each parameter back as a 64-bit
  word (integers extended by their C type's signedness, floats as their bits, the pointer's value,
  the struct's fields, then *p); two launches give it different arguments, untyped then typed.
  A float given bare to a 4-byte parameter, or as { f32 = ... }, is the binary32 nearest to the
  decimal text (round to nearest, ties to even), computed here with exact rationals.
"""
import os
import struct
from fractions import Fraction

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        yield x >> 32


def words_table(kind, addr, words, comment):
    rows = [", ".join(f"{w & M32:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


def write(name, text):
    with open(os.path.join(TRACES, name), "w") as f:
        f.write(text)


def nearest_f32_bits(text):
    """The binary32 nearest to the decimal `text` (finite, normal range), ties to even."""
    q = Fraction(text)
    sign = 0
    if q < 0:
        sign, q = 1, -q
    if q == 0:
        return sign << 31
    e = 0
    while q >= 2:
        q /= 2
        e += 1
    while q < 1:
        q *= 2
        e -= 1
    # q in [1, 2): 23 fraction bits.
    scaled = q * (1 << 23)
    m = int(scaled)
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m & 1):
        m += 1
    if m == 1 << 24:
        m >>= 1
        e += 1
    assert -126 <= e <= 127, text
    return sign << 31 | (e + 127) << 23 | (m - (1 << 23))


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def scan_pipeline():
    n, block = 1300, 256
    blocks = (n + block - 1) // block
    gen = lcg(27)
    data = [next(gen) for _ in range(n)]
    IN, OUT, SUMS, PREFIX = 0x100000, 0x200000, 0x300000, 0x300100
    out = []
    total = 0
    for v in data:
        total = (total + v) & M32
        out.append(total)
    sums = []
    for b in range(blocks):
        s = 0
        for v in data[b * block:(b + 1) * block]:
            s = (s + v) & M32
        sums.append(s)
    prefix = []
    t = 0
    for s in sums:
        t = (t + s) & M32
        prefix.append(t)
    text = f"""# A two-pass scan from a real cubin, as a CUDA program launches it: three launches of two
# kernels of tests/cubin/params.cu (NVRTC, then ptxas 12.9 -arch=sm_50 -O3), each launch with its
# own arguments in `params` (laid out at c[0x0][0x140] by the kernel's .nv.info parameter table).
#
#   scan_block<<<{blocks}, 256>>>(in, out, sums, {n});   // each block's inclusive scan, and its total
#   scan_block<<<1, 256>>>(sums, prefix, NULL, {blocks});  // the scan of the totals
#   add_prefix<<<{blocks}, 256>>>(out, prefix, {n});       // out[i] += prefix[block - 1]
#
# out is then the inclusive scan of in (u32, wrapping). No [[const]] table: every launch's
# parameters are its own. Expectations: tests/cubin/expect/params.py, from the CUDA source.

format = "warpjit-trace/1"

"""
    text += words_table("global", IN, data, f"in[{n}]") + "\n"
    text += f"[[global]]                 # out[{n}]\naddr = {OUT:#x}\nsize = {4 * n:#x}\n\n"
    text += f"[[global]]                 # sums[{blocks}], then prefix[{blocks}] at {PREFIX:#x}\naddr = {SUMS:#x}\nsize = 0x200\n\n"
    text += f"""[[launch]]
code_file = "../cubin/params.cubin"
kernel = "scan_block"
grid = [{blocks}]
block = [256]
params = [{{ ptr = {IN:#x} }}, {{ ptr = {OUT:#x} }}, {{ ptr = {SUMS:#x} }}, {n}]

[[launch]]
code_file = "../cubin/params.cubin"
kernel = "scan_block"
grid = [1]
block = [256]
params = [{{ ptr = {SUMS:#x} }}, {{ ptr = {PREFIX:#x} }}, {{ ptr = 0 }}, {blocks}]

[[launch]]
code_file = "../cubin/params.cubin"
kernel = "add_prefix"
grid = [{blocks}]
block = [256]
params = ["{OUT:#x}", "{PREFIX:#x}", {n}]

"""
    text += words_table("expect", OUT, out, "the inclusive scan of in") + "\n"
    text += words_table("expect", SUMS, sums, "each block's total") + "\n"
    text += words_table("expect", PREFIX, prefix, "their scan")
    write("cubin_scan_pipeline.toml", text)


def every_kind():
    P, OUT = 0x10000, 0x20000
    star_p = -123456

    def pair_bytes(x, y, w):
        return list(struct.pack("<ibxxxd", x, y, float(w)))

    # Launch 0: untyped values (widths from the table), launch 1: typed values.
    l0 = dict(a=-2, b=255, c=-3, d=0xFFFE, e=-4, f=0xDEADBEEF, g=-(1 << 63), h=M64 - 15,
              x="0.1", y="-1e-300", p=P, s=(-7, -128, "2.5"), out=OUT)
    l1 = dict(a=127, b=0, c=-32768, d=65535, e=-(1 << 31), f=M32, g=-1, h=1 << 63,
              x="3.4028235e38", y="0.3", p=P, s=(2147483647, 127, "-0.75"), out=OUT + 15 * 8)

    def expected(v):
        def sx(value, bits):
            value &= (1 << bits) - 1
            return value - (1 << bits) if value >> (bits - 1) else value
        x, y, w = v["s"]
        words = [
            sx(v["a"], 8) & M64,
            v["b"] & 0xFF,
            sx(v["c"], 16) & M64,
            v["d"] & 0xFFFF,
            sx(v["e"], 32) & M64,
            v["f"] & M32,
            v["g"] & M64,
            v["h"] & M64,
            nearest_f32_bits(v["x"]),
            f64_bits(float(v["y"])),
            v["p"],
            x & M64,
            y & M64,
            f64_bits(float(w)),
            star_p & M64,
        ]
        return [part for word in words for part in (word & M32, word >> 32)]

    def bytes_list(s):
        return "[" + ", ".join(str(b) for b in pair_bytes(*s)) + "]"

    untyped = (f'[{l0["a"]}, {l0["b"]}, {l0["c"]}, {l0["d"]:#x}, {l0["e"]}, {l0["f"]:#x}, '
               f'{l0["g"]}, "{l0["h"]:#x}",\n          {l0["x"]}, {l0["y"]}, '
               f'{{ ptr = {l0["p"]:#x} }}, {{ bytes = {bytes_list(l0["s"])} }},\n          '
               f'{{ ptr = {l0["out"]:#x} }}]')
    typed = (f'[{{ i8 = {l1["a"]} }}, {{ u8 = {l1["b"]} }}, {{ i16 = {l1["c"]} }}, '
             f'{{ u16 = {l1["d"]} }}, {{ i32 = {l1["e"]} }}, {{ u32 = {l1["f"]} }},\n          '
             f'{{ i64 = {l1["g"]} }}, {{ u64 = "{l1["h"]:#x}" }}, {{ f32 = {l1["x"]} }}, '
             f'{{ f64 = {l1["y"]} }}, "{l1["p"]:#x}",\n          '
             f'{{ bytes = {bytes_list(l1["s"])} }}, {l1["out"]:#x}]')
    text = f"""# A parameter of every kind, laid out by a real cubin's parameter table: every_kind of
# tests/cubin/params.cu (NVRTC, then ptxas 12.9 -arch=sm_50 -O3) takes (signed char, unsigned
# char, short, unsigned short, int, unsigned, long long, unsigned long long, float, double,
# const int *, struct Pair {{ int x; signed char y; double w; }}, unsigned long long *out) at
# c[0x0][0x140 + 0, 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 72] (padding between), and thread 0
# writes each back as a 64-bit word, then *p. Two launches of it with different arguments: the
# first untyped (integers and floats take the parameter's width; a string is a 64-bit integer),
# the second typed ({{ i8 = ... }}, {{ f32 = ... }}, ...). The struct is given by its bytes.
# Expectations: tests/cubin/expect/params.py, from the CUDA source.

format = "warpjit-trace/1"

[[global]]                 # *p
addr = {P:#x}
i32 = [{star_p}]

[[global]]                 # out: 15 words per launch
addr = {OUT:#x}
size = {2 * 15 * 8:#x}

[[launch]]
code_file = "../cubin/params.cubin"
kernel = "every_kind"
block = [32]
params = {untyped}

[[launch]]
code_file = "../cubin/params.cubin"
kernel = "every_kind"
block = [32]
params = {typed}

"""
    text += words_table("expect", OUT, expected(l0), "launch 0's parameters") + "\n"
    text += words_table("expect", OUT + 15 * 8, expected(l1), "launch 1's parameters")
    write("cubin_params_every_kind.toml", text)


if __name__ == "__main__":
    scan_pipeline()
    every_kind()
