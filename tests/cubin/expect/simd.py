#!/usr/bin/env python3
"""Expected results of tests/cubin/simd.cu (every SIMD intrinsic of CUDA's math API), worked out
from the intrinsics' definitions, standard library only. Writes the traces
tests/traces/cubin_simd2.toml, cubin_simd4.toml, cubin_dpx.toml, cubin_simdk.toml and their -O0
twins (cubin_*_O0.toml, which run simd_O0.cubin on the same data), the expected outputs in
tests/traces/data/simd2_out.bin, simd4_out.bin, dpx_out.bin, simdk_out.bin (little-endian words,
out[k * n + t] as the kernels write them). Run from anywhere: python3 tests/cubin/expect/simd.py.

The definitions (CUDA Math API, "SIMD Intrinsics"): the word is split into two halfwords (…2,
…s16x2, …u16x2) or four bytes (…4), each part read unsigned (…u…) or signed (…s…); the
operation is done on each part's value exactly and the result is its low 16 or 8 bits, or the
part's range when the name says saturation (…ss…, …us…). In detail:

- abs: |x| (the most negative part stays itself); absss: |x| clamped to the signed maximum;
  neg: -x; negss: -x clamped; absdiffs/absdiffu: |a - b| of signed/unsigned parts.
- add, sub: wrapping; addss, subss: signed saturation; addus, subus: unsigned saturation.
- avgs: the signed rounded average, PTX's vavrg: (a + b + 1) >> 1 when a + b >= 0, else
  (a + b) >> 1 (halves round away from zero); avgu: (a + b + 1) >> 1; hadd: (a + b) >> 1.
- cmpXX: all ones in a part whose comparison holds, else 0; setXX: 1 in that part, else 0
  (the header's prose, "returns 1 if both parts compare", describes the parts: these
  intrinsics were PTX's vset2/vset4, which write 1 or 0 per part). eq/ne compare bits;
  ge, gt, le, lt take the signedness of their s/u suffix.
- max, min of signed or unsigned parts; sads/sadu: the sum over the parts of |a - b|, a word.
- The DPX functions (…3 three-way, …relu: then the maximum with 0, iaddmax/iaddmin: the
  wrapping sum a + b, then the maximum/minimum with c; ibmax/ibmin: the maximum/minimum and
  the predicate a >= b / a <= b, per halfword for 16x2, high part first).
"""
import os
import re
import struct

M32 = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
CUBIN = os.path.join(HERE, "..")
TRACES = os.path.join(HERE, "..", "..", "traces")


def split(x, w):
    return [(x >> (w * i)) & ((1 << w) - 1) for i in range(32 // w)]


def join(ps, w):
    return sum((p & ((1 << w) - 1)) << (w * i) for i, p in enumerate(ps))


def sx(v, w):
    return v - (1 << w) if v >> (w - 1) else v


def clamp_s(v, w):
    return max(-(1 << (w - 1)), min((1 << (w - 1)) - 1, v))


def clamp_u(v, w):
    return max(0, min((1 << w) - 1, v))


def avgs(a, b):
    s = a + b
    return (s + 1) >> 1 if s >= 0 else s >> 1


CMP = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ge": lambda a, b: a >= b,
    "gt": lambda a, b: a > b, "le": lambda a, b: a <= b, "lt": lambda a, b: a < b,
}


def partwise(name, w):
    """The per-part function of intrinsic `name` (its part width `w`), on raw parts."""
    s = lambda v: sx(v, w)
    ones = (1 << w) - 1
    unary = {
        "abs": lambda x: abs(s(x)),
        "absss": lambda x: clamp_s(abs(s(x)), w),
        "neg": lambda x: -s(x),
        "negss": lambda x: clamp_s(-s(x), w),
    }
    binary = {
        "absdiffs": lambda a, b: abs(s(a) - s(b)),
        "absdiffu": lambda a, b: abs(a - b),
        "add": lambda a, b: a + b,
        "addss": lambda a, b: clamp_s(s(a) + s(b), w),
        "addus": lambda a, b: clamp_u(a + b, w),
        "avgs": lambda a, b: avgs(s(a), s(b)),
        "avgu": lambda a, b: (a + b + 1) >> 1,
        "haddu": lambda a, b: (a + b) >> 1,
        "maxs": lambda a, b: max(s(a), s(b)),
        "maxu": lambda a, b: max(a, b),
        "mins": lambda a, b: min(s(a), s(b)),
        "minu": lambda a, b: min(a, b),
        "sub": lambda a, b: a - b,
        "subss": lambda a, b: clamp_s(s(a) - s(b), w),
        "subus": lambda a, b: clamp_u(a - b, w),
    }
    if name in unary:
        return 1, unary[name]
    if name in binary:
        return 2, binary[name]
    m = re.fullmatch(r"(cmp|set)(eq|ne|ge|gt|le|lt)([su]?)", name)
    assert m, name
    kind, cond, sign = m.groups()
    conv = s if sign == "s" else (lambda v: v)
    hit = ones if kind == "cmp" else 1
    return 2, lambda a, b: hit if CMP[cond](conv(a), conv(b)) else 0


def simd(full, a, b):
    """The result of SIMD intrinsic `full` (e.g. __vcmpges2) on (a, b)."""
    name, width = full[3:-1], {"2": 16, "4": 8}[full[-1]]
    if name in ("sads", "sadu"):
        conv = (lambda v: sx(v, width)) if name == "sads" else (lambda v: v)
        return sum(abs(conv(x) - conv(y)) for x, y in zip(split(a, width), split(b, width)))
    arity, f = partwise(name, width)
    pa, pb = split(a, width), split(b, width)
    return join([f(x) if arity == 1 else f(x, y) for x, y in zip(pa, pb)], width)


def s32(x):
    return sx(x & M32, 32)


def halves(f, signed):
    """A 16x2 function of (a, b, c) words from a function of the parts' values."""
    conv = (lambda v: sx(v, 16)) if signed else (lambda v: v)

    def g(*ws):
        return join([f(*[conv(p) for p in ps]) for ps in zip(*[split(x, 16) for x in ws])], 16)
    return g


def dpx_results(a, b, c):
    """The 48 words the dpx kernel writes for (a, b, c), in its order."""
    relu = lambda v: max(v, 0)
    wrap16 = lambda v: sx(v & 0xFFFF, 16)
    out = [
        max(s32(a), s32(b), s32(c)), halves(max, True)(a, b, c), max(a, b, c),
        halves(max, False)(a, b, c),
        min(s32(a), s32(b), s32(c)), halves(min, True)(a, b, c), min(a, b, c),
        halves(min, False)(a, b, c),
        relu(max(s32(a), s32(b), s32(c))), halves(lambda x, y, z: relu(max(x, y, z)), True)(a, b, c),
        relu(min(s32(a), s32(b), s32(c))), halves(lambda x, y, z: relu(min(x, y, z)), True)(a, b, c),
        relu(max(s32(a), s32(b))), halves(lambda x, y: relu(max(x, y)), True)(a, b),
        relu(min(s32(a), s32(b))), halves(lambda x, y: relu(min(x, y)), True)(a, b),
        max(s32(a + b), s32(c)), halves(lambda x, y, z: max(wrap16(x + y), z), True)(a, b, c),
        max((a + b) & M32, c), halves(lambda x, y, z: max((x + y) & 0xFFFF, z), False)(a, b, c),
        min(s32(a + b), s32(c)), halves(lambda x, y, z: min(wrap16(x + y), z), True)(a, b, c),
        min((a + b) & M32, c), halves(lambda x, y, z: min((x + y) & 0xFFFF, z), False)(a, b, c),
        relu(max(s32(a + b), s32(c))),
        halves(lambda x, y, z: relu(max(wrap16(x + y), z)), True)(a, b, c),
        relu(min(s32(a + b), s32(c))),
        halves(lambda x, y, z: relu(min(wrap16(x + y), z)), True)(a, b, c),
        max(s32(a), s32(b)), int(s32(a) >= s32(b)),
        max(a, b), int(a >= b),
        min(s32(a), s32(b)), int(s32(a) <= s32(b)),
        min(a, b), int(a <= b),
    ]
    for pick, test, signed in [(max, lambda x, y: x >= y, True), (max, lambda x, y: x >= y, False),
                               (min, lambda x, y: x <= y, True), (min, lambda x, y: x <= y, False)]:
        conv = (lambda v: sx(v, 16)) if signed else (lambda v: v)
        (alo, ahi), (blo, bhi) = split(a, 16), split(b, 16)
        out += [halves(pick, signed)(a, b), int(test(conv(ahi), conv(bhi))),
                int(test(conv(alo), conv(blo)))]
    return [v & M32 for v in out]


DPX = [
    "__vimax3_s32", "__vimax3_s16x2", "__vimax3_u32", "__vimax3_u16x2",
    "__vimin3_s32", "__vimin3_s16x2", "__vimin3_u32", "__vimin3_u16x2",
    "__vimax3_s32_relu", "__vimax3_s16x2_relu", "__vimin3_s32_relu", "__vimin3_s16x2_relu",
    "__vimax_s32_relu", "__vimax_s16x2_relu", "__vimin_s32_relu", "__vimin_s16x2_relu",
    "__viaddmax_s32", "__viaddmax_s16x2", "__viaddmax_u32", "__viaddmax_u16x2",
    "__viaddmin_s32", "__viaddmin_s16x2", "__viaddmin_u32", "__viaddmin_u16x2",
    "__viaddmax_s32_relu", "__viaddmax_s16x2_relu", "__viaddmin_s32_relu", "__viaddmin_s16x2_relu",
    "__vibmax_s32", "p", "__vibmax_u32", "p", "__vibmin_s32", "p", "__vibmin_u32", "p",
    "__vibmax_s16x2", "p", "q", "__vibmax_u16x2", "p", "q",
    "__vibmin_s16x2", "p", "q", "__vibmin_u16x2", "p", "q",
]


def kernel_body(kernel):
    src = open(os.path.join(CUBIN, "simd.cu")).read()
    return src.split(f"void {kernel}(", 1)[1].split("\n}\n", 1)[0]


def calls(kernel):
    """The intrinsics (or `p`/`q`) kernel `kernel` of simd.cu writes, in order."""
    return re.findall(r"OUT\((\w+)", kernel_body(kernel))


# simdk: intrinsics with a constant operand (x is the thread's word).
SIMDK = [
    ("__vaddss2", lambda x: (x, 0x7FFF8001)), ("__vsubss2", lambda x: (0x00057FFB, x)),
    ("__vaddss4", lambda x: (x, 0x7F80017F)), ("__vsubss4", lambda x: (x, 0x01FF7F80)),
    ("__vaddus2", lambda x: (x, 0x8000FFFF)), ("__vsubus4", lambda x: (0x7F80FF01, x)),
    ("__vsadu4", lambda x: (x, 0x80FF0110)), ("__vabsdiffu4", lambda x: (0x00FF7F80, x)),
]


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        yield x >> 32


# Edge parts: bytes 0x00 0x01 0x7f 0x80 0xff and their neighbours, halves 0x0000 0x7fff 0x8000
# 0xffff and their neighbours, all against each other, then random words.
SPECIAL = [0x00000000, 0xFFFFFFFF, 0x7F7F7F7F, 0x80808080, 0x01010101, 0x7FFF8000, 0x8000FFFF,
           0x00FF7F80, 0xFE01807F, 0x12345678]
N = 128
BLOCK = 48
rng = lcg(27)
PAIRS = [(x, y) for x in SPECIAL for y in SPECIAL]
PAIRS += [(next(rng), next(rng)) for _ in range(N - len(PAIRS))]
TRIPLES = [(SPECIAL[i], SPECIAL[j], SPECIAL[(3 * i + 7 * j) % 10]) for i in range(10)
           for j in range(10)]
TRIPLES += [(next(rng), next(rng), next(rng)) for _ in range(N - len(TRIPLES))]

IN, OUT = 0x10000, 0x100000


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w & M32:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


def write_kernel(kernel, inputs, results, what):
    names = calls(kernel)
    k = len(names)
    outs = [results(*args) for args in inputs]
    assert all(len(o) == k for o in outs), kernel
    # out[j * n + t]: result j of thread t.
    words = [outs[t][j] for j in range(k) for t in range(N)]
    data = f"{kernel}_out.bin"
    with open(os.path.join(TRACES, "data", data), "wb") as f:
        f.write(struct.pack(f"<{len(words)}I", *words))
    flat = [w for args in inputs for w in args]
    arity = len(inputs[0])
    grid = (N + BLOCK - 1) // BLOCK
    for cubin, opt in [("simd", "-O3"), ("simd_O0", "-O0")]:
        suffix = "_O0" if opt == "-O0" else ""
        text = f"""# {kernel} from a real cubin: NVRTC 12.9 (compute_50) compiled tests/cubin/simd.cu, ptxas 12.9
# -arch=sm_50 {opt} made {cubin}.cubin
#
# {what}
# Thread t < n = {N} reads {"a = in[t]" if arity == 1 else "(" + ", ".join("abc"[:arity]) + f") = in[{arity}t .. {arity}t+{arity - 1}]"} and writes its k-th result to out[k * n + t]
# ({k} results). {grid} CTAs of {BLOCK} threads (the last threads of the last CTA exit at t >= n). The
# first {len(SPECIAL) if arity == 1 else 100} inputs {"are" if arity == 1 else "combine"} edge words (bytes 0x00, 0x01, 0x7f, 0x80, 0xff; halves 0x0000,
# 0x7fff, 0x8000, 0xffff), the rest are random.
# Expectations: tests/cubin/expect/simd.py, from the intrinsics' definitions (data/{data}).

format = "warpjit-trace/1"

{table("global", IN, flat, f"in[{len(flat)}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {4 * len(words)}

[[const]]                  # parameters: in, out, n
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0, {N:#x}]

[[launch]]
code_file = "../cubin/{cubin}.cubin"
kernel = "{kernel}"
grid = [{grid}]
block = [{BLOCK}]

[[expect]]                 # out
addr = {OUT:#x}
file = "data/{data}"
"""
        with open(os.path.join(TRACES, f"cubin_{kernel}{suffix}.toml"), "w") as f:
            f.write(text)


for kernel, width in [("simd2", "halfword"), ("simd4", "byte")]:
    names = calls(kernel)
    suffix = kernel[-1]
    assert len(names) == 41 and all(n.endswith(suffix) for n in names), names
    write_kernel(kernel, PAIRS, lambda a, b, names=names: [simd(n, a, b) & M32 for n in names],
                 f"The 41 per-{width} SIMD intrinsics, __vabs{suffix} to __vsubus{suffix}.")
# The calls of simdk as the source writes them, constants and all.
want = [f"{n}(" + ", ".join("a" if v == "x" else f"{v:#010x}" for v in f("x")) + ")"
        for n, f in SIMDK]
got = re.findall(r"OUT\((\w+\([^)]*\))\)", kernel_body("simdk"))
assert [g.lower() for g in got] == [w.lower() for w in want], (got, want)
write_kernel("simdk", [(x,) for x in SPECIAL] + [(next(rng),) for _ in range(N - len(SPECIAL))],
             lambda x: [simd(n, *f(x)) & M32 for n, f in SIMDK],
             "Eight intrinsics with a constant operand (IADD32I.SAT at -O3).")
assert calls("dpx") == DPX, calls("dpx")
write_kernel("dpx", TRIPLES, dpx_results,
             "The 36 three-way, relu, add-then-max/min and max/min-with-predicate intrinsics (__vimax3_s32 ... __vibmin_u16x2).")
