#!/usr/bin/env python3
"""Writes tests/traces/cubin_convert_*.toml: inputs for the kernels of convert.ptx and the
results the PTX defines, computed here independently of warpjit (exact arithmetic with
fractions; IEEE rounding written out below). Run from anywhere: python3 convert_expect.py

The decisions warpjit documents where PTX leaves a choice (docs/semantics.md §29) are modelled
as stated there: a float-to-integer conversion saturates and gives 0 for NaN (64-bit results:
0x8000000000000000); a binary32 NaN result is 0x7fffffff; a binary64 operation returns its
first NaN operand made quiet, or 0xfff8000000000000 when it creates a NaN; min/max return the
number when one operand is NaN, and -0 is below +0.
"""
import os
import struct
from fractions import Fraction as Fr

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "traces")

FMT = {16: (5, 10), 32: (8, 23), 64: (11, 52)}


def decode(bits, w):
    """(kind, sign, value): kind 'nan', 'inf' or 'num' (value a Fraction, sign separate)."""
    e, m = FMT[w]
    sign = bits >> (w - 1) & 1
    ex = bits >> m & ((1 << e) - 1)
    man = bits & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if ex == (1 << e) - 1:
        return ("nan" if man else "inf", sign, None)
    if ex == 0:
        v = Fr(man, 1 << (m + bias - 1))
    else:
        v = Fr((1 << m) | man) * Fr(2) ** (ex - bias - m)
    return ("num", sign, -v if sign else v)


def round_int(x, mode):
    """x (Fraction) rounded to an integer: 'rn' (ties to even), 'rm', 'rp', 'rz'."""
    fl = x.numerator // x.denominator
    if fl == x:
        return fl
    if mode == "rm":
        return fl
    if mode == "rp":
        return fl + 1
    if mode == "rz":
        return fl if x > 0 else fl + 1
    d = x - fl
    if d > Fr(1, 2) or (d == Fr(1, 2) and fl % 2 == 1):
        return fl + 1
    return fl


def encode(x, w, mode, neg_zero=False):
    """The Fraction x rounded to the format of width w by mode; neg_zero: sign of a zero x."""
    e, m = FMT[w]
    bias = (1 << (e - 1)) - 1
    if x == 0:
        return (1 << (w - 1)) if neg_zero else 0
    sign = 1 if x < 0 else 0
    a = -x if sign else x
    # Directed modes on the magnitude.
    mag_mode = {"rn": "rn", "rz": "rz", "rm": "rp" if sign else "rz", "rp": "rz" if sign else "rp"}[mode]
    exp = a.numerator.bit_length() - a.denominator.bit_length()
    while Fr(2) ** exp > a:
        exp -= 1
    while Fr(2) ** (exp + 1) <= a:
        exp += 1
    exp = max(exp, 1 - bias)
    q = round_int(a / Fr(2) ** (exp - m), mag_mode)
    if q == 1 << (m + 1):
        q >>= 1
        exp += 1
    maxexp = bias
    if exp > maxexp:
        inf = (mag_mode == "rn") or (mag_mode == "rp")
        mag = ((1 << e) - 1) << m if inf else (((1 << e) - 2) << m) | ((1 << m) - 1)
        return sign << (w - 1) | mag
    if q < 1 << m:
        mag = q  # subnormal (or zero)
    else:
        mag = (exp + bias) << m | (q - (1 << m))
    return sign << (w - 1) | mag


def f2i(bits, w, mode, ibits, signed, ftz=False):
    kind, sign, v = decode(bits, w)
    if kind == "nan":
        return (1 << 63) if ibits == 64 else 0
    lo, hi = (-(1 << (ibits - 1)), (1 << (ibits - 1)) - 1) if signed else (0, (1 << ibits) - 1)
    if kind == "inf":
        r = lo if sign else hi
    else:
        if ftz and w == 32 and (bits >> 23 & 0xff) == 0:
            v = Fr(0)
        r = min(max(round_int(v, mode), lo), hi)
    return r & ((1 << 64) - 1) if ibits == 64 else r & 0xFFFFFFFF


def i2f(v, w, mode):
    return encode(Fr(v), w, mode)


def f2f(bits, wi, wo, mode):
    kind, sign, v = decode(bits, wi)
    if kind == "nan":
        if wo == 32:
            return 0x7FFFFFFF
        if wo == 16:
            return 0x7FFF
        # widened, quiet: sign, payload top bits
        e, m = FMT[wi]
        pay = bits & ((1 << m) - 1)
        return sign << 63 | 0x7FF << 52 | pay << (52 - m) | 1 << 51
    if kind == "inf":
        e, m = FMT[wo]
        return sign << (wo - 1) | ((1 << e) - 1) << m
    return encode(v, wo, mode, neg_zero=bool(sign))


def round_fp(bits, w, mode):
    """cvt.rXi.fW.fW: round to an integral value in the same format."""
    kind, sign, v = decode(bits, w)
    if kind == "nan":
        return 0x7FFFFFFF if w == 32 else f2f(bits, 64, 64, "rn")
    if kind == "inf":
        return bits
    r = round_int(v, mode)
    return encode(Fr(r), w, "rn", neg_zero=bool(sign))


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


# ---- binary64 arithmetic -------------------------------------------------------------------

CANON64 = 0xFFF8000000000000


def d_nan(ops):
    for x in ops:
        if decode(x, 64)[0] == "nan":
            return x | 1 << 51
    return None


def zero_sum(both_zero, sa, sb, mode):
    """IEEE's sign of an exact zero sum: the common sign of two zeros, else +0 (-0 in rm)."""
    if both_zero and sa == sb:
        return sa << 63
    return (1 << 63) if mode == "rm" else 0


def d_op(a, b, op, mode, c=None):
    ops = [a, b] if c is None else [a, b, c]
    n = d_nan(ops)
    if n is not None:
        return n
    da, db = decode(a, 64), decode(b, 64)
    if op == "add":
        vals = [da, db]
        infs = [x for x in vals if x[0] == "inf"]
        if infs:
            if len(infs) == 2 and infs[0][1] != infs[1][1]:
                return CANON64
            return (infs[0][1] << 63) | 0x7FF0 << 48
        s = da[2] + db[2]
        if s == 0:
            return zero_sum(da[2] == 0 and db[2] == 0, a >> 63, b >> 63, mode)
        return encode(s, 64, mode)
    if op == "mul":
        sign = (a >> 63) ^ (b >> 63)
        if da[0] == "inf" or db[0] == "inf":
            if (da[0] == "num" and da[2] == 0) or (db[0] == "num" and db[2] == 0):
                return CANON64
            return sign << 63 | 0x7FF0 << 48
        p = da[2] * db[2]
        if p == 0:
            return sign << 63
        return encode(p, 64, mode)
    if op == "fma":
        dc = decode(c, 64)
        sign = (a >> 63) ^ (b >> 63)
        pinf = da[0] == "inf" or db[0] == "inf"
        if pinf and ((da[0] == "num" and da[2] == 0) or (db[0] == "num" and db[2] == 0)):
            return CANON64
        if pinf:
            if dc[0] == "inf" and dc[1] != sign:
                return CANON64
            return sign << 63 | 0x7FF0 << 48
        if dc[0] == "inf":
            return c
        p = da[2] * db[2]
        s = p + dc[2]
        if s == 0:
            return zero_sum(p == 0 and dc[2] == 0, sign, c >> 63, mode)
        return encode(s, 64, mode)
    raise ValueError(op)


def d_minmax(a, b, is_min):
    na, nb = decode(a, 64)[0] == "nan", decode(b, 64)[0] == "nan"
    if na and nb:
        return CANON64
    if na:
        return b
    if nb:
        return a

    def key(x):
        k, s, v = decode(x, 64)
        if k == "inf":
            return (Fr(-1) if s else Fr(1)) * Fr(10) ** 400, 0
        return v, (0 if s else 1)

    ka, kb = key(a), key(b)
    a_below = ka < kb
    return a if a_below == is_min else b


def d_cmp(a, b, cmp):
    da, db = decode(a, 64), decode(b, 64)
    un = da[0] == "nan" or db[0] == "nan"
    if un:
        return cmp in ("equ", "nan", "ltu", "geu")

    def val(d):
        if d[0] == "inf":
            return (Fr(-1) if d[1] else Fr(1)) * Fr(10) ** 400
        return d[2]

    x, y = val(da), val(db)
    return {"lt": x < y, "equ": x == y, "nan": False, "ltu": x < y, "geu": x >= y, "gt": x > y, "num": True}[cmp]


# ---- TOML output ---------------------------------------------------------------------------


def words(vals, per=8):
    lines = []
    for i in range(0, len(vals), per):
        lines.append(", ".join("0x%08x" % v for v in vals[i : i + per]))
    return "[" + ",\n       ".join(lines) + "]"


def u64s_to_u32(vals):
    out = []
    for v in vals:
        out += [v & 0xFFFFFFFF, v >> 32]
    return out


def f64b(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def write(name, header, inputs, params, kernel, block, out_addr, expect, consts=None):
    p = os.path.join(OUT, name)
    with open(p, "w") as f:
        f.write(header)
        f.write('\nformat = "warpjit-trace/1"\n\n')
        f.write("[[global]]                     # in\naddr = 0x10000\nu32 = %s\n\n" % words(inputs))
        f.write(
            "[[global]]                     # out, prefilled with 0xdeadbeef\naddr = 0x%x\nu32 = %s\n\n"
            % (out_addr, words([0xDEADBEEF] * len(expect)))
        )
        f.write("[[const]]                      # parameters\nbank = 0\noffset = 0x140\nu32 = %s\n\n" % words(params))
        f.write(
            '[[launch]]\ncode_file = "../cubin/convert.cubin"\nkernel = "%s"\ngrid = [1]\nblock = [%d]\n\n'
            % (kernel, block)
        )
        f.write("[[expect]]\naddr = 0x%x\nu32 = %s\n" % (out_addr, words(expect)))


HDR = """# %s from a real cubin: ptxas 12.9 -arch=sm_50 compiled tests/cubin/convert.ptx (kernel `%s`).
#
# %s
#
# Generated by tests/cubin/convert_expect.py, which computes the expected words from the PTX
# definitions with exact rational arithmetic (independently of warpjit); bytes no thread writes
# keep the 0xdeadbeef they were filled with.
"""

F32_IN = [
    0x00000000, 0x80000000, 0x3FC00000, 0x40200000, 0xC0200000, 0xBF000000, 0x3F000000, 0x3EFFFFFF,
    0x00000001, 0x80000001, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFBFFFFF, 0x4F000000, 0xCF000000,
    0x4F800000, 0x4EFFFFFF, 0x477FFF80, 0x47800000, 0xBF800000, 0x47F12065, 0x501502F9, 0xD01502F9,
    0x00800000, 0x3F7FFFFF, 0x33800000, 0x477FF000, 0x7FFFFFFF, 0x80000001 ^ 0x7F000000, 0x01000001, 0x477FEFFF,
]


def cvt32():
    exp = []
    for v in F32_IN:
        s = sext(v, 32)
        h = f2f(v, 32, 16, "rn")
        o = [
            f2i(v, 32, "rz", 32, True),
            f2i(v, 32, "rn", 32, False),
            f2i(v, 32, "rm", 32, True),
            f2i(v, 32, "rp", 32, True),
            i2f(s, 32, "rn"),
            i2f(v, 32, "rz"),
            h,
            f2f(h, 16, 32, "rn"),
            round_fp(v, 32, "rn"),
            f2i(v, 32, "rp", 32, False),
            sext(v, 8) & 0xFFFFFFFF,
            min(max(s, 0), 0xFFFF),
            f2i(v, 32, "rz", 32, True, ftz=True),
            i2f(s, 32, "rm"),
            f2i(v, 32, "rz", 16, False),
            min(v, 0x7FFFFFFF),
        ]
        exp += o
    write(
        "cubin_convert32.toml",
        HDR % ("cvt32", "cvt32", "32 threads, one binary32 edge value each (also read as s32/u32), 16 conversions each: out[16t + k]"),
        F32_IN,
        [0x10000, 0, 0x20000, 0],
        "cvt32",
        32,
        0x20000,
        exp,
    )


F64_IN = [
    0x0000000000000000, 0x8000000000000000, f64b(0.5), f64b(-0.5), f64b(1.5), f64b(2.5), f64b(-2.5),
    f64b(2.0**31), f64b(-2.0**31), f64b(2.0**31 - 0.5), f64b(2.0**32), f64b(2.0**32 - 1),
    f64b(2.0**63), f64b(-2.0**63), f64b(2.0**64), f64b(-1.0), 0x7FF0000000000000, 0xFFF0000000000000,
    0x7FF8000000000000, 0x7FF0000000000001, 0x0000000000000001, 0x8000000000000001, f64b(1.0 / 3),
    f64b(1e300), 0x7FFFFFFFFFFFFFFF, 0x8000000000000001 + 5, 0x0020000000000001, 0x0000000100000001,
    f64b(-4294967295.75), f64b(123456789.5), 0x43E0000000000001, f64b(3.4028235677973366e38),
]


def cvt64():
    exp = []
    for v in F64_IN:
        s = sext(v, 64)
        f3 = f2f(v, 64, 32, "rn")
        o = [None] * 32
        def put64(i, x):
            o[i], o[i + 1] = x & 0xFFFFFFFF, x >> 32
        put64(0, f2i(v, 64, "rn", 64, False))
        put64(2, f2i(v, 64, "rz", 64, True))
        o[4] = i2f(s, 32, "rn")
        o[5] = f2f(v, 64, 32, "rz")
        put64(6, f2f(f3, 32, 64, "rn"))
        o[8] = f2i(v, 64, "rz", 32, True)
        o[9] = f2i(v, 64, "rm", 32, False)
        put64(10, i2f(s, 64, "rn"))
        put64(12, i2f(v, 64, "rp"))
        put64(14, round_fp(v, 64, "rn"))
        put64(16, f2i(f3, 32, "rz", 64, True))
        o[18] = i2f(v, 32, "rm")
        o[19] = 0xDEADBEEF
        put64(20, f2i(v, 64, "rp", 64, False))
        put64(22, i2f(v & 0xFFFFFFFF, 64, "rn"))
        o[24] = min(max(s, -(1 << 31)), (1 << 31) - 1) & 0xFFFFFFFF
        o[25] = 0xDEADBEEF
        put64(26, f2i(v, 64, "rm", 64, True))
        for i in range(28, 32):
            o[i] = 0xDEADBEEF
        exp += o
    write(
        "cubin_convert64.toml",
        HDR % ("cvt64", "cvt64", "32 threads, one 64-bit edge value each (binary64, also read as s64/u64), 16 slots of 8 bytes each: conversions to and from 64-bit integers and binary64"),
        u64s_to_u32(F64_IN),
        [0x10000, 0, 0x20000, 0],
        "cvt64",
        32,
        0x20000,
        exp,
    )


D_PAIRS = [
    (1.0, 2.0), (0.1, 0.2), (1.0, 2.0**-53), (1.0, -(2.0**-60)), ("-0", 0.0), (0.0, "-0"),
    ("inf", "-inf"), ("inf", 1.0), (0x7FF0000000000001, 1.0), (1.0, 0xFFF8000000000123),
    (0x7FF4000000000000, 0xFFF0000000000002), (1.7976931348623157e308, 1.7976931348623157e308),
    (5e-324, 0.5), (3.0, 1.0 / 3), (-1.5, 2.5), (1e308, -1e308),
]


def dbits(x):
    if isinstance(x, int):
        return x
    if x == "-0":
        return 1 << 63
    if x == "inf":
        return 0x7FF0000000000000
    if x == "-inf":
        return 0xFFF0000000000000
    return f64b(x)


def dbl():
    ins, exp = [], []
    for pa, pb in D_PAIRS:
        a, b = dbits(pa), dbits(pb)
        ins += [a, b]
        o = [0xDEADBEEF] * 32

        def put64(i, x):
            o[i], o[i + 1] = x & 0xFFFFFFFF, x >> 32

        s = d_op(a, b, "add", "rn")
        put64(0, s)
        put64(2, d_op(a, b, "add", "rz"))
        put64(4, d_op(a, b, "mul", "rm"))
        put64(6, d_op(a, b, "mul", "rp"))
        put64(8, d_op(a, b, "fma", "rn", s))
        put64(10, d_op(a, a, "fma", "rz", f64b(1.5)))
        put64(12, d_minmax(a, b, True))
        put64(14, d_minmax(a, b, False))
        put64(16, d_op(a, b ^ 1 << 63, "add", "rn"))
        put64(18, d_op(a & ~(1 << 63), b ^ 1 << 63, "add", "rn"))
        put64(20, d_op(a, f64b(5.0), "mul", "rn"))
        o[22] = (
            d_cmp(a, b, "lt") * 1
            | d_cmp(a, b, "equ") * 2
            | d_cmp(a, b, "nan") * 4
            | d_cmp(a, 0, "geu") * 8
        )
        put64(24, d_op(a, f64b(1.0), "add", "rn"))
        exp += o
    write(
        "cubin_convert_f64.toml",
        HDR % ("dbl", "dbl", "16 threads, a binary64 pair (a, b) each: add/mul/fma in each rounding mode, min/max, sub, |a| - b, setp with NaN; 128 bytes out per thread"),
        u64s_to_u32(ins),
        [0x10000, 0, 0x20000, 0],
        "dbl",
        len(D_PAIRS),
        0x20000,
        exp,
    )


MISC_IN = [f64b(1.5), f64b(-300.75), 0x7FF8000000000000, f64b(1e10), 0x00000000DEADBEEF + (0x8123 << 16 << 32), f64b(-0.0), f64b(100.0), 0xFFF0000000000000]
MISC_K = -1000
MISC_KD = 0.25


def misc():
    exp = []
    kd = f64b(MISC_KD)
    for v in MISC_IN:
        o = [0xDEADBEEF] * 16
        r2 = sext(v, 8)
        h1 = v >> 16 & 0xFFFF
        h2 = sext(v >> 32, 16)
        o[0] = i2f(MISC_K, 32, "rn")
        o[1] = i2f(r2, 32, "rn")
        o[2] = i2f(h1, 32, "rn")
        o[3] = f2f(i2f(h2, 64, "rn"), 64, 32, "rn")
        t = f2i(v, 64, "rz", 32, True)
        o[4] = min(max(sext(t, 32), -128), 127) & 0xFFFFFFFF
        o[5] = min(max(MISC_K, -128), 127) & 0xFFFFFFFF
        o[6] = r2 & 0xFFFFFFFF
        fd3 = d_op(v, kd, "add", "rn")
        if not d_cmp(fd3, f64b(2.0), "gt"):
            o[8], o[9] = fd3 & 0xFFFFFFFF, fd3 >> 32
        exp.append(o)
    return exp


def misc_write():
    rows = misc()
    exp = []
    for t, (v, o) in enumerate(zip(MISC_IN, rows)):
        kd = f64b(MISC_KD)
        if d_cmp(v, kd, "ltu") and d_cmp(v, 0, "num"):
            o[10] = t
        o[11] = f2i(d_op(v, kd, "mul", "rn"), 64, "rz", 32, False)
        fma1 = d_op(v, kd, "fma", "rp", v)
        o[12], o[13] = fma1 & 0xFFFFFFFF, fma1 >> 32
        fma2 = d_op(v, i2f(MISC_K, 64, "rn"), "fma", "rm", kd)
        o[14], o[15] = fma2 & 0xFFFFFFFF, fma2 >> 32
        exp += o
    kd = f64b(MISC_KD)
    write(
        "cubin_convert_misc.toml",
        HDR % ("misc", "misc", "8 threads, 8 input bytes each (a binary64, and its low byte as s8, bytes 2-3 as u16, 4-5 as s16), a parameter k = -1000 (s32, read from the constant bank by I2F/I2I) and kd = 0.25 (f64, by DADD/DMUL/DFMA/DSETP): 64 bytes out per thread"),
        u64s_to_u32(MISC_IN),
        [0x10000, 0, 0x20000, 0, MISC_K & 0xFFFFFFFF, 0, kd & 0xFFFFFFFF, kd >> 32],
        "misc",
        len(MISC_IN),
        0x20000,
        exp,
    )


if __name__ == "__main__":
    cvt32()
    cvt64()
    dbl()
    misc_write()
