#!/usr/bin/env python3
"""Writes the traces of the float kernels of float.ptx (tests/traces/cubin_float_*.toml and
tests/traces/cubin_fdiv.toml) with expected values computed here, independently of
warpjit, from the PTX ISA's definitions: every arithmetic result is the exact value (Python
fractions) rounded to binary32 in the instruction's mode, with IEEE 754 rules for zeros, infinities
and NaNs, and the machine rules of docs/semantics.md §28 (a NaN result is 0x7fffffff; .ftz flushes
subnormal inputs and results to a zero of the same sign; .sat clamps to [+0, 1], NaN to +0;
min/max return the non-NaN operand, -0 < +0).

MUFU results (fmufu kernel) are the binary32 nearest to Python's math functions evaluated in
binary64 (sin, cos, 2**x, log2, 1/x, 1/sqrt(x)) on the input flushed to zero if subnormal, the
result flushed if subnormal: warpjit's documented model (not silicon's approximations).

Standard library only. Run from the repository root: python3 tests/cubin/float_traces.py
"""

import math
import os
import struct
from fractions import Fraction

NAN = 0x7FFFFFFF
MAXF = Fraction(2) ** 127 * (2 - Fraction(1, 2**23))


def is_nan(b):
    return b & 0x7FFFFFFF > 0x7F800000


def is_inf(b):
    return b & 0x7FFFFFFF == 0x7F800000


def sign(b):
    return b >> 31


def to_frac(b):
    """The exact value of a finite binary32."""
    e = (b >> 23) & 0xFF
    m = b & 0x7FFFFF
    v = Fraction(m, 2**149) if e == 0 else Fraction(m | 0x800000, 2**23) * Fraction(2) ** (e - 127)
    return -v if sign(b) else v


def round_frac(v, mode, neg_zero=False):
    """The binary32 of the exact nonzero-or-zero value v rounded by mode (rn rz rm rp); an exact
    zero gets the sign neg_zero."""
    if v == 0:
        return 0x80000000 if neg_zero else 0
    s = 1 if v < 0 else 0
    a = -v if s else v
    # Find e with 2^e <= a < 2^(e+1); the quantum is 2^(max(e, -126) - 23).
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    q = Fraction(2) ** (max(e, -126) - 23)
    n = a / q
    lo = n.numerator // n.denominator
    rem = n - lo
    if mode == "rn":
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and lo % 2 == 1)
    elif mode == "rz":
        up = False
    elif mode == "rp":
        up = rem > 0 and not s
    else:  # rm
        up = rem > 0 and s
    k = lo + (1 if up else 0)
    r = k * q
    if r > MAXF:
        to_inf = mode == "rn" or (mode == "rp" and not s) or (mode == "rm" and s)
        return (s << 31) | (0x7F800000 if to_inf else 0x7F7FFFFF)
    if r == 0:
        return s << 31
    bits = struct.unpack("<I", struct.pack("<f", float(r)))[0]  # exact: r is a binary32
    assert to_frac(bits) == r
    return (s << 31) | (bits & 0x7FFFFFFF)


def flush(b):
    return b & 0x80000000 if b & 0x7F800000 == 0 else b


def fout(b, ftz=False, sat=False):
    if is_nan(b):
        b = NAN
    if ftz:
        b = flush(b)
    if sat:
        if is_nan(b) or sign(b):
            b = 0
        elif b > 0x3F800000:
            b = 0x3F800000
    return b


def add(a, b, mode="rn", ftz=False, sat=False):
    if ftz:
        a, b = flush(a), flush(b)
    if is_nan(a) or is_nan(b):
        r = NAN
    elif is_inf(a) or is_inf(b):
        if is_inf(a) and is_inf(b) and sign(a) != sign(b):
            r = NAN
        else:
            r = a if is_inf(a) else b
    else:
        v = to_frac(a) + to_frac(b)
        if v == 0:
            # Exact zero: -0 only if both are -0, or (rm) for opposite signs.
            nz = (sign(a) and sign(b)) or (mode == "rm" and sign(a) != sign(b))
            r = round_frac(v, mode, nz)
        else:
            r = round_frac(v, mode)
    return fout(r, ftz, sat)


def mul(a, b, mode="rn", ftz=False, sat=False):
    if ftz:
        a, b = flush(a), flush(b)
    s = sign(a) ^ sign(b)
    if is_nan(a) or is_nan(b):
        r = NAN
    elif is_inf(a) or is_inf(b):
        other = b if is_inf(a) else a
        r = NAN if (other & 0x7FFFFFFF) == 0 else (s << 31) | 0x7F800000
    else:
        r = round_frac(to_frac(a) * to_frac(b), mode, bool(s))
    return fout(r, ftz, sat)


def fma(a, b, c, mode="rn", ftz=False, sat=False):
    if ftz:
        a, b, c = flush(a), flush(b), flush(c)
    ps = sign(a) ^ sign(b)
    if is_nan(a) or is_nan(b) or is_nan(c):
        r = NAN
    elif is_inf(a) or is_inf(b):
        other = b if is_inf(a) else a
        if (other & 0x7FFFFFFF) == 0 or (is_inf(c) and sign(c) != ps):
            r = NAN
        else:
            r = (ps << 31) | 0x7F800000
    elif is_inf(c):
        r = c
    else:
        p = to_frac(a) * to_frac(b)
        v = p + to_frac(c)
        if v == 0:
            if p == 0 and to_frac(c) == 0:
                nz = (ps and sign(c)) or (mode == "rm" and ps != sign(c))
            else:
                nz = mode == "rm"
            r = round_frac(v, mode, nz)
        else:
            r = round_frac(v, mode)
    return fout(r, ftz, sat)


def div(a, b):
    if is_nan(a) or is_nan(b):
        return NAN
    s = sign(a) ^ sign(b)
    if is_inf(a):
        return NAN if is_inf(b) else (s << 31) | 0x7F800000
    if is_inf(b):
        return s << 31
    if b & 0x7FFFFFFF == 0:
        return NAN if a & 0x7FFFFFFF == 0 else (s << 31) | 0x7F800000
    return round_frac(to_frac(a) / to_frac(b), "rn", bool(s))


def sqrt(a):
    if is_nan(a):
        return NAN
    if a & 0x7FFFFFFF == 0:
        return a
    if sign(a):
        return NAN
    if is_inf(a):
        return a
    # Binary64 sqrt is correctly rounded and 53 >= 2*24 + 2 bits: rounding it again to
    # binary32 gives the correctly rounded binary32 square root.
    return round_frac(Fraction(math.sqrt(float(to_frac(a)))), "rn")


def key(b):
    return -(b & 0x7FFFFFFF) - 1 if sign(b) else b


def fmin(a, b, is_min):
    if is_nan(a) and is_nan(b):
        return NAN
    if is_nan(a):
        return b
    if is_nan(b):
        return a
    lt = key(a) < key(b)
    return a if lt == is_min else b


def cmp(a, b, c):
    un = is_nan(a) or is_nan(b)
    x = None if un else to_frac(a) if not is_inf(a) else (Fraction(2) ** 200 if not sign(a) else -Fraction(2) ** 200)
    y = None if un else to_frac(b) if not is_inf(b) else (Fraction(2) ** 200 if not sign(b) else -Fraction(2) ** 200)
    return {
        "lt": not un and x < y,
        "ltu": un or x < y,
        "eq": not un and x == y,
        "equ": un or x == y,
        "ne": not un and x != y,
        "neu": un or x != y,
        "nan": un,
        "num": not un,
        "gt": not un and x > y,
        "leu": un or x <= y,
    }[c]


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def mufu(fn, x):
    x = flush(x)
    if is_nan(x):
        return NAN
    if x & 0x7FFFFFFF == 0:
        v = -0.0 if sign(x) else 0.0
    else:
        v = -math.inf if x == 0xFF800000 else math.inf if x == 0x7F800000 else float(to_frac(x))
    try:
        if fn == "sin":
            r = math.nan if math.isinf(v) else math.sin(v)
        elif fn == "cos":
            r = math.nan if math.isinf(v) else math.cos(v)
        elif fn == "ex2":
            r = 0.0 if v == -math.inf else math.inf if v == math.inf else 2.0**v
        elif fn == "lg2":
            r = -math.inf if v == 0 else math.nan if v < 0 else math.log2(v)
        elif fn == "rcp":
            r = math.copysign(math.inf, v) if v == 0 else 1.0 / v
        else:  # rsq
            r = math.copysign(math.inf, v) if v == 0 else math.nan if v < 0 else 1.0 / math.sqrt(v)
    except OverflowError:
        r = math.inf
    if math.isnan(r):
        return NAN
    if math.isinf(r):
        return 0xFF800000 if r < 0 else 0x7F800000
    return flush(round_frac(Fraction(r), "rn", math.copysign(1.0, r) < 0))


# ---- edge values ---------------------------------------------------------------------------
ONE, MINN, MAXN, INF = 0x3F800000, 0x00800000, 0x7F7FFFFF, 0x7F800000
SUB, SUBMAX = 0x00000001, 0x007FFFFF
NEG = 0x80000000


def words(vals, per_line=8):
    lines = []
    for i in range(0, len(vals), per_line):
        lines.append(", ".join(f"{v:#010x}" for v in vals[i : i + per_line]))
    return "[" + ",\n       ".join(lines) + "]"


def trace(path, header, inputs, params, kernel, block, expect):
    out = [header.rstrip(), "", 'format = "warpjit-trace/1"', ""]
    for addr, vals, note in inputs:
        out += ["[[global]]" + (f"                     # {note}" if note else ""), f"addr = {addr:#x}", f"u32 = {words(vals)}", ""]
    out += ["[[const]]                      # parameters", "bank = 0", "offset = 0x140", f"u32 = {words(params)}", ""]
    rel = "../cubin/float.cubin" if "pending" not in path else "../../cubin/float.cubin"
    out += ["[[launch]]", f'code_file = "{rel}"', f'kernel = "{kernel}"', "grid = [1]", f"block = [{block}]", ""]
    for addr, vals in expect:
        out += ["[[expect]]", f"addr = {addr:#x}", f"u32 = {words(vals)}", ""]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")


HEAD = "# {name} from a real cubin: ptxas 12.9 -arch=sm_50 compiled tests/cubin/float.ptx\n#\n"
GEN = "#\n# Generated by tests/cubin/float_traces.py (expected values computed there from the PTX\n# definitions with exact rational arithmetic, independently of warpjit).\n"

A, B, C = 0x10000, 0x20000, 0x30000


def lo_hi(a):
    return [a & 0xFFFFFFFF, a >> 32]


def main():
    # ffma_loop: 32 threads, 1000 iterations of v = fma(v, k, c).
    iters, k, c = 1000, f32(0.999), f32(0.125)
    xs = [f32(t * 0.37 - 5.0) for t in range(31)] + [0x00000003]
    ys = []
    for x in xs:
        v = x
        for _ in range(iters):
            v = fma(v, k, c)
        ys.append(v)
    trace(
        "tests/traces/cubin_float_ffma_loop.toml",
        HEAD.format(name="ffma_loop")
        + "#   x[t] = fma.rn(...fma.rn(x[t], k, c)..., k, c), iters = 1000 times (k = 0.999, c = 0.125):\n"
        + "#   FFMA with a constant addend in an unrolled loop; x[t] = 0.37 t - 5, x[31] subnormal.\n" + GEN,
        [(A, xs, "x[32]")],
        lo_hi(A) + [iters, k, c],
        "ffma_loop",
        32,
        [(A, ys)],
    )

    # frnd: add, mul, fma in four modes on 32 edge triples.
    triples = [
        (ONE, 0x33800000, 0),  # 1 + 2^-24: a tie
        (ONE | NEG, 0x33800000 | NEG, 0),
        (ONE, ONE | NEG, 0),  # exact zero: -0 only under rm
        (ONE + 1, 0x3F7FFFFE, ONE | NEG),  # fma exactness
        (MAXN, MAXN, MAXN),  # overflow: rz/rm give MAX
        (MAXN | NEG, MAXN, 0),
        (MINN, 0x3F000000, MINN),  # underflow into subnormals
        (SUB, 0x3F000000, SUB | NEG),  # a tie at the smallest subnormal
        (SUBMAX, SUB, 0x00000002),
        (INF, ONE, INF | NEG),  # inf + x; inf*1 - inf = NaN
        (INF, INF | NEG, 0),  # inf - inf = NaN
        (0x7FC00001, ONE, ONE),  # NaN payloads become canonical
        (0xFFA00000, 0x7F812345, ONE),
        (0, NEG, NEG),  # signed zeros
        (NEG, NEG, NEG),
        (0, 0x7F800000, ONE),  # 0 * inf = NaN
        (f32(1 / 3), f32(3.0), ONE | NEG),
        (f32(0.1), f32(0.2), f32(0.3)),
        (f32(-0.1), f32(0.2), f32(0.02)),
        (f32(1e20), f32(1e20), f32(-1e38)),
        (f32(1e-20), f32(1e-20), f32(1e-40)),
        (f32(-1e-30), f32(1e-15), f32(1e-45)),
        (f32(16777216.0), f32(1.0), f32(0.5)),
        (f32(-16777216.0), f32(-1.0), f32(-3.0)),
        (0x3F800001, 0x3F800001, 0xBF800002),
        (0x4B7FFFFF, f32(0.5), f32(0.75)),
        (f32(3.5), f32(-2.25), f32(7.875)),
        (f32(123456.789), f32(-0.000123), f32(1e-3)),
        (0x7F000000, 0x40000000, 0xFF7FFFFF),  # 2^127 * 2 - MAX
        (0x00800001, 0x3F7FFFFF, 0),  # min normal * (1 - ulp) rounds to a subnormal or normal
        (f32(math.pi), f32(math.e), f32(-8.5)),
        (f32(-7.0), f32(1e-8), f32(7.0)),
    ]
    flat = [v for t in triples for v in t]
    res = []
    for a, b, cc in triples:
        for m in ("rn", "rz", "rm", "rp"):
            res.append(add(a, b, m))
        for m in ("rn", "rz", "rm", "rp"):
            res.append(mul(a, b, m))
        for m in ("rn", "rz", "rm", "rp"):
            res.append(fma(a, b, cc, m))
    trace(
        "tests/traces/cubin_float_frnd.toml",
        HEAD.format(name="frnd")
        + "#   out[12t..12t+11] = add, mul (a, b) and fma (a, b, c) in .rn .rz .rm .rp for the triple\n"
        + "#   abc[3t..3t+2]: FADD/FMUL/FFMA with .RZ .RM .RP. Edge triples: ties, exact zeros, overflow,\n"
        + "#   gradual underflow, infinities, NaN payloads (the result is 0x7fffffff), signed zeros.\n" + GEN,
        [(A, flat, "abc[96]"), (B, [0xDEADBEEF] * 384, "out[384]")],
        lo_hi(A) + lo_hi(B),
        "frnd",
        32,
        [(B, res)],
    )

    # fcmp: min, max, setp, set on 32 pairs.
    pairs = [
        (ONE, 0x40000000), (0x40000000, ONE), (ONE, ONE), (0, NEG), (NEG, 0), (0x7FC00000, ONE),
        (ONE, 0x7FC00000), (0x7FC00000, 0xFFC00001), (INF, MAXN), (INF | NEG, INF), (SUB, 0),
        (SUB | NEG, SUB), (0x7F800001, 0x7F800001), (ONE | NEG, 0x7FFFFFFF), (f32(-2.5), f32(-2.5)),
        (f32(1e-40), f32(2e-40)), (MAXN, INF), (f32(3.0), f32(-3.0)), (0xFFFFFFFF, INF | NEG),
        (f32(0.1), f32(0.1000001)), (0, 0), (NEG, NEG), (INF, INF), (f32(-1e30), f32(1e-30)),
        (MINN, SUBMAX), (f32(7.0), 0x7FA00000), (0xFF800001, f32(-7.0)), (f32(100.0), f32(99.99)),
        (f32(-0.5), 0), (0, f32(-0.5)), (f32(5.0), f32(5.0)), (0x3F800001, ONE),
    ]
    flat = [v for p in pairs for v in p]
    res = []
    for a, b in pairs:
        res += [fmin(a, b, True), fmin(a, b, False)]
        res += [1 if cmp(a, b, c) else 0 for c in ("lt", "ltu", "eq", "equ", "ne", "neu", "nan", "num")]
        res += [ONE if cmp(a, b, "gt") else 0, 0xFFFFFFFF if cmp(a, b, "leu") else 0]
    trace(
        "tests/traces/cubin_float_fcmp.toml",
        HEAD.format(name="fcmp")
        + "#   out[12t..12t+11] for the pair ab[2t], ab[2t+1]: min.f32, max.f32 (FMNMX: a NaN operand\n"
        + "#   gives the other, two NaNs 0x7fffffff, -0 < +0), setp .lt .ltu .eq .equ .ne .neu .nan .num\n"
        + "#   as 1/0 (FSET + LOP32I), set.gt.f32.f32 (FSET.BF: 1.0/0.0), set.leu.u32.f32 (FSET).\n" + GEN,
        [(A, flat, "ab[64]"), (B, [0xDEADBEEF] * 384, "out[384]")],
        lo_hi(A) + lo_hi(B),
        "fcmp",
        32,
        [(B, res)],
    )

    # fmods: .ftz and .sat variants and modifiers.
    triples = [
        (SUB, ONE, 0), (SUBMAX | NEG, f32(2.0), SUB), (f32(0.25), f32(0.5), f32(0.125)),
        (f32(0.75), f32(0.5), f32(0.5)), (f32(-0.25), f32(0.125), f32(-1.0)), (ONE, ONE, ONE),
        (0x7FC00000, ONE, ONE), (f32(2.0), f32(-3.0), f32(0.5)), (MINN, f32(0.5), 0),
        (f32(1e-20), f32(1e-20), f32(1e-39)), (NEG, NEG, NEG), (INF, f32(-1.0), INF | NEG),
        (f32(0.5), f32(0.5), f32(-0.25)), (f32(0.9999999), 0x33000000, 0x33000000),
        (f32(1e-39), f32(1e39 if False else 1e30), f32(-1e-9)), (SUB | NEG, SUB, SUB),
        (f32(3.0), f32(1e-40), f32(-2e-40)), (f32(-1e-40), ONE, 0x00400000), (f32(0.3), f32(0.6), f32(-0.18)),
        (f32(-0.0), f32(5.0), f32(-0.0)), (0xFFC00000, 0x7FC00000, 0), (f32(1.5), f32(-0.5), f32(2.0)),
        (f32(1e38), f32(10.0), f32(1e38)), (f32(-1e38), f32(10.0), f32(-1e38)), (f32(0.5), f32(1.0), f32(0.5)),
        (f32(0.6), f32(0.4), f32(0.6)), (SUBMAX, SUBMAX, SUBMAX), (f32(4.0), f32(-0.25), f32(2.0)),
        (f32(-2.0), f32(-0.5), f32(-0.5)), (f32(1e-30), f32(1e-10), f32(1e-45)), (MAXN, MAXN | NEG, INF),
        (f32(7.5), f32(-7.5), f32(-56.25)),
    ]
    flat = [v for t in triples for v in t]
    res = []
    for a, b, cc in triples:
        res += [add(a, b, ftz=True), mul(a, b, ftz=True), fma(a, b, cc, ftz=True)]
        res += [add(a, b, sat=True), mul(a, b, sat=True), fma(a, b, cc, sat=True)]
        res += [add((a & 0x7FFFFFFF) | NEG, b), fma(a ^ NEG, b & 0x7FFFFFFF, cc ^ NEG)]
    trace(
        "tests/traces/cubin_float_fmods.toml",
        HEAD.format(name="fmods")
        + "#   out[8t..8t+7] for abc[3t..3t+2]: add.ftz, mul.ftz, fma.rn.ftz, add.sat, mul.sat,\n"
        + "#   fma.rn.sat, add(-|a|, b), fma(-a, |b|, -c): FADD/FMUL/FFMA .FTZ and .SAT, -|R|, -R.\n" + GEN,
        [(A, flat, "abc[96]"), (B, [0xDEADBEEF] * 256, "out[256]")],
        lo_hi(A) + lo_hi(B),
        "fmods",
        32,
        [(B, res)],
    )

    # fmufu: MUFU-dependent.
    xs = [0, NEG, ONE, f32(2.0), f32(0.5), f32(math.pi), f32(-math.pi), f32(100.0), f32(-100.0),
          SUB, f32(1e-40) | NEG, INF, INF | NEG, 0x7FC00000, ONE | NEG, f32(128.0), f32(-150.0),
          f32(1e30), f32(-1e-3), f32(3.0), f32(10.0), f32(-10.0), f32(0.1), f32(1e-30), MAXN,
          MINN, f32(7.389056), f32(-0.75), f32(64.0), f32(-126.5), f32(1.5), f32(1000.0)]
    res = []
    for x in xs:
        res += [mufu(fn, x) for fn in ("sin", "cos", "ex2", "lg2", "rcp", "rsq")]
    trace(
        "tests/traces/cubin_float_fmufu.toml",
        HEAD.format(name="fmufu")
        + "#   out[6t..6t+5] = sin, cos, ex2, lg2, rcp, rsqrt .approx.ftz.f32 of a[t] (RRO.SINCOS +\n"
        + "#   MUFU.SIN/COS, RRO.EX2 + MUFU.EX2, MUFU.LG2/RCP/RSQ). EVERY expected value here is\n"
        + "#   MUFU-dependent: warpjit's model (the binary32 nearest to the function evaluated in\n"
        + "#   binary64, subnormal inputs and results flushed), not silicon's approximation; the\n"
        + "#   binary64 values come from Python's math module (libm), warpjit's from the libm crate.\n" + GEN,
        [(A, xs, "a[32]"), (B, [0xDEADBEEF] * 192, "out[192]")],
        lo_hi(A) + lo_hi(B),
        "fmufu",
        32,
        [(B, res)],
    )

    # fsqrt: correctly rounded (ptxas: MUFU.RSQ + FFMA refinement, a CAL slow path).
    xs = [0, NEG, ONE, f32(2.0), f32(4.0), f32(0.5), SUB, SUBMAX, MINN, MAXN, INF, INF | NEG,
          0x7FC00001, ONE | NEG, f32(1e-40), f32(10.0), f32(1e30), f32(1e-30), f32(3.0), 0x3F800001,
          0x3F7FFFFF, f32(144.0), f32(1e-38), f32(2.5e-39), f32(123456.0), f32(0.01), f32(7.0),
          0x00000004, f32(1e38), f32(-1e-45), f32(1.1754942e-38), f32(65536.0)]
    trace(
        "tests/traces/cubin_float_fsqrt.toml",
        HEAD.format(name="fsqrt")
        + "#   r[t] = sqrt.rn.f32(a[t]): ptxas writes MUFU.RSQ and an FFMA refinement, and calls a\n"
        + "#   slow path (CAL/RET) for subnormal, negative, infinite and NaN inputs. The expected\n"
        + "#   values are the correctly rounded square roots; not MUFU-dependent when the refinement\n"
        + "#   is exact (that is what this trace checks).\n" + GEN,
        [(A, xs, "a[32]"), (B, [0xDEADBEEF] * 32, "r[32]")],
        lo_hi(A) + lo_hi(B),
        "fsqrt",
        32,
        [(B, [sqrt(x) for x in xs])],
    )

    # fdiv: the fast path, and the CAL slow path (with ISCADD32I) for what FCHK flags.
    pairs = [(ONE, f32(3.0)), (f32(10.0), f32(4.0)), (f32(1.0), f32(7.0)), (f32(-22.0), f32(7.0)),
             (ONE, 0), (0, 0), (INF, INF), (ONE, INF), (SUB, ONE), (ONE, SUB), (MAXN, f32(0.5)),
             (MINN, f32(3.0)), (f32(1e-38), f32(1e10)), (0x7FC00000, ONE), (f32(1e30), f32(1e-30)),
             (f32(6.0), f32(-3.0)), (NEG, ONE), (f32(0.1), f32(0.3)), (0x3F800001, 0x3F7FFFFF),
             (f32(123456.0), f32(0.001)), (f32(2.0), f32(1e-38)), (f32(1e-45), f32(2.0)),
             (f32(5.0), f32(5.0)), (f32(-1.0), f32(-0.0)), (MAXN, MAXN), (f32(1e20), f32(3e-20)),
             (f32(9.0), f32(11.0)), (f32(1e-3), f32(7e-5)), (f32(355.0), f32(113.0)), (SUBMAX, SUBMAX),
             (f32(3e38), f32(0.1)), (f32(1e-39), f32(1e-39))]
    trace(
        "tests/traces/cubin_fdiv.toml",
        HEAD.format(name="fdiv")
        + "#   q[t] = a[t] / b[t] with div.rn.f32: ptxas writes MUFU.RCP, FCHK.DIVIDE, an FFMA\n"
        + "#   refinement, and a CAL slow path for what FCHK flags. The expected values are the\n"
        + "#   correctly rounded quotients (not MUFU-dependent).\n" + GEN,
        [(A, [p[0] for p in pairs], "a[32]"), (B, [p[1] for p in pairs], "b[32]"), (C, [0xDEADBEEF] * 32, "q[32]")],
        lo_hi(A) + lo_hi(B) + lo_hi(C),
        "fdiv",
        32,
        [(C, [div(a, b) for a, b in pairs])],
    )


if __name__ == "__main__":
    main()
