#!/usr/bin/env python3
"""An independent model of Direct3D 11 texture sampling, written from the Direct3D 11.3
functional specification (microsoft/DirectX-Specs, d3d/archive/D3D11_3_FunctionalSpec.htm:
section 7.18 "Texture Sampling", 3.2.4 "Fixed Point Integers", and the instruction pages of
sample, sample_b, sample_d, sample_l, sample_c, sample_c_lz, gather4*, lod, deriv_rt*) and the
choices docs/semantics.md section 32 documents where the specification leaves freedom. It shares
no code with warpjit: the tests compare warpjit's results with what this model computes.

Arithmetic is exact (fractions) and rounded to binary32 by `f32()`, round to nearest even; f32
values are Python floats holding exactly representable binary32 values.
"""
import math
import struct
from fractions import Fraction

# ---------------------------------------------------------------- binary32 helpers

def bits(x):
    """The binary32 bit pattern of an f32 value (NaN: 0x7fc00000)."""
    if x != x:
        return 0x7FC00000
    return struct.unpack('<I', struct.pack('<f', x))[0]


def from_bits(b):
    return struct.unpack('<f', struct.pack('<I', b & 0xFFFFFFFF))[0]


def f32(v):
    """An exact number (Fraction, int or float) rounded to binary32, ties to even. inf and NaN
    pass through; magnitudes past the largest finite value become infinity."""
    if isinstance(v, float):
        if v != v or v in (math.inf, -math.inf):
            return v
        v = Fraction(v)
    v = Fraction(v)
    if v == 0:
        return 0.0
    neg = v < 0
    a = -v if neg else v
    # a = m * 2^e with 2^23 <= m < 2^24.
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)  # denormals: fixed spacing 2^-149
    scale = Fraction(2) ** (e - 23)
    q = a / scale
    n = q.numerator // q.denominator
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    out = n * scale
    if out >= Fraction(2) ** 128:
        out = math.inf
    else:
        out = float(out)
    return -out if neg else out


def flush(x):
    """Direct3D's float rules: a denormal input or output becomes zero of its sign."""
    if x != x or x in (math.inf, -math.inf):
        return x
    if x != 0 and abs(x) < 2.0 ** -126:
        return math.copysign(0.0, x)
    return x


def fadd(a, b):
    a, b = flush(a), flush(b)
    if a != a or b != b:
        return math.nan
    if math.isinf(a) or math.isinf(b):
        s = a + b
        return s
    r = f32(Fraction(a) + Fraction(b))
    if r == 0:
        # IEEE: exact zero sums are +0 unless both operands are -0.
        r = -0.0 if (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else 0.0
    return flush(r)


def fsub(a, b):
    return fadd(a, -b)


def fmul(a, b):
    a, b = flush(a), flush(b)
    if a != a or b != b:
        return math.nan
    if math.isinf(a) or math.isinf(b):
        return a * b
    r = f32(Fraction(a) * Fraction(b))
    if r == 0:
        r = math.copysign(0.0, a) * math.copysign(1.0, b)
    return flush(r)


def fdiv(a, b):
    a, b = flush(a), flush(b)
    if a != a or b != b or (b == 0 and a == 0) or (math.isinf(a) and math.isinf(b)):
        return math.nan
    if b == 0:
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    if math.isinf(a):
        return a * math.copysign(1.0, b)
    if math.isinf(b):
        return math.copysign(0.0, a) * math.copysign(1.0, b)
    return flush(f32(Fraction(a) / Fraction(b)))


def out_bits(x):
    """An arithmetic result as written: NaN canonical, denormals flushed."""
    if x != x:
        return 0x7FC00000
    return bits(flush(x))

# ---------------------------------------------------------------- formats

def unorm(code, n):
    return f32(Fraction(code, 2 ** n - 1))


def snorm(code, n):
    if code >= 2 ** (n - 1):
        code -= 2 ** n
    d = 2 ** (n - 1) - 1
    return -1.0 if code < -d else f32(Fraction(code, d))


# Each format: (bytes per texel, [(channel, bit offset, bits, kind)]).
FORMATS = {
    'R32_FLOAT': (4, [(0, 0, 32, 'float')]),
    'R32G32B32A32_FLOAT': (16, [(0, 0, 32, 'float'), (1, 32, 32, 'float'), (2, 64, 32, 'float'), (3, 96, 32, 'float')]),
    'R8G8B8A8_UNORM': (4, [(0, 0, 8, 'unorm'), (1, 8, 8, 'unorm'), (2, 16, 8, 'unorm'), (3, 24, 8, 'unorm')]),
    'R8_SNORM': (1, [(0, 0, 8, 'snorm')]),
    'R16_UNORM': (2, [(0, 0, 16, 'unorm')]),
    'R32_UINT': (4, [(0, 0, 32, 'uint')]),
    'R16G16_SINT': (4, [(0, 0, 16, 'sint'), (1, 16, 16, 'sint')]),
}


def integer_format(fmt):
    return any(k in ('uint', 'sint') for (_, _, _, k) in FORMATS[fmt][1])


def defaults(fmt):
    """(0, 0, 0, 1) for missing channels: 1.0 for a float-first format, integer 1 otherwise."""
    first = FORMATS[fmt][1][0][3]
    one = 1 if first in ('uint', 'sint') else 1.0
    return [0.0 if one == 1.0 else 0, 0.0 if one == 1.0 else 0, 0.0 if one == 1.0 else 0, one]


def decode(fmt, raw):
    """A texel's little-endian bytes to its four channel values (floats or ints)."""
    size, comps = FORMATS[fmt]
    v = int.from_bytes(raw[:size], 'little')
    out = defaults(fmt)
    for ch, off, n, kind in comps:
        c = (v >> off) & ((1 << n) - 1)
        if kind == 'float':
            out[ch] = from_bits(c)
        elif kind == 'unorm':
            out[ch] = unorm(c, n)
        elif kind == 'snorm':
            out[ch] = snorm(c, n)
        elif kind == 'uint':
            out[ch] = c
        else:
            out[ch] = c - (1 << n) if c >> (n - 1) else c
    return out


def encode(fmt, values):
    """Channel values (exact codes for UNORM/SNORM given as ints, floats, ints) to bytes, for
    writing textures: every texel the tests use is given this way."""
    size, comps = FORMATS[fmt]
    v = 0
    for ch, off, n, kind in comps:
        x = values[ch]
        if kind == 'float':
            c = bits(x)
        else:
            c = int(x) & ((1 << n) - 1)
        v |= c << off
    return v.to_bytes(size, 'little')

# ---------------------------------------------------------------- textures and samplers

class Texture:
    """dim: '1d', '1darray', '2d', '2darray', '3d', 'cube', 'cubearray'. layers: slices (faces,
    6 per cube). texels[level][layer_or_z][y][x] = bytes. The trace's byte order: level after
    level; within a level slice (layer, or depth slice), row, column."""

    def __init__(self, dim, fmt, w, h=1, d=1, layers=1, mips=1, fill=None):
        self.dim, self.fmt, self.w, self.h, self.d, self.layers, self.mips = dim, fmt, w, h, d, layers, mips
        self.data = []
        for l in range(mips):
            lw, lh, ld = self.size(l)
            slices = ld if dim == '3d' else layers
            self.data.append([[[fill(l, s, y, x) for x in range(lw)] for y in range(lh)]
                              for s in range(slices)])

    def size(self, l):
        return (max(1, self.w >> l), max(1, self.h >> l), max(1, self.d >> l))

    def texel(self, l, s, y, x):
        return decode(self.fmt, self.data[l][s][y][x])

    def raw_bytes(self):
        out = bytearray()
        for level in self.data:
            for sl in level:
                for row in sl:
                    for t in row:
                        out += t
        return bytes(out)


DEFAULT_SAMPLER = dict(min='linear', mag='linear', mip='linear', aniso=False, reduction='standard',
                       address=('clamp', 'clamp', 'clamp'), bias=0.0, min_lod=-3.4028234663852886e38,
                       max_lod=3.4028234663852886e38, max_aniso=1, func='never',
                       border=(1.0, 1.0, 1.0, 1.0))

# ---------------------------------------------------------------- 7.18.6: range reduction

def f32_floor_frac(u):
    """frac(U) = U - round_ni(U), in binary32 arithmetic."""
    return fsub(u, float(math.floor(u)))


def reduce_range(u, mode):
    if u != u:
        return u
    if mode == 'wrap':
        if math.isinf(u):
            return math.nan
        return f32_floor_frac(u)
    if mode == 'mirror':
        if math.isinf(u):
            return math.nan
        # signedFrac(U/2) * 2 = U - 2 * trunc(U/2), exact in binary32.
        half = Fraction(u) / 2
        t = math.trunc(half)
        return f32((half - t) * 2)
    # clamp, border, mirror_once
    if u <= -10:
        return -10.0
    if u >= 10:
        return 10.0
    return u

# ---------------------------------------------------------------- 3.2.4.1: FLOAT -> 16.8 fixed

def to_fixed8(u, n, linear):
    """round_to_nearest_even((U * n - (0.5 if linear)) * 256), exactly; NaN -> 0."""
    if u != u:
        return 0
    x = Fraction(u) * n * 256 - (128 if linear else 0)
    fl = math.floor(x)
    r = x - fl
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    return fl

# ---------------------------------------------------------------- 7.18.9: address modes

def address(t, n, mode):
    """A texel index brought into [0, n) by the mode; None: the border colour."""
    if 0 <= t <= n - 1:
        return t
    if mode == 'wrap':
        t = t % n
        return t
    if mode == 'mirror':
        if t < 0:
            t = -t - 1
        flip = (t // n) & 1
        t %= n
        return n - t - 1 if flip else t
    if mode == 'clamp':
        return max(0, min(t, n - 1))
    if mode == 'mirror_once':
        if t < 0:
            t = -t - 1
        return max(0, min(t, n - 1))
    return None


def clamp_unit(x, lo, hi):
    """Direct3D max(lo, min(hi, x)) (NaN never propagates)."""
    x = hi if x != x else min(hi, x)
    return max(lo, x)


def border_texel(tex, color, sampler):
    out = defaults(tex.fmt)
    for ch, off, n, kind in FORMATS[tex.fmt][1]:
        b = color[ch]
        if kind == 'unorm':
            out[ch] = clamp_unit(flush(b), 0.0, 1.0)
        elif kind == 'snorm':
            out[ch] = clamp_unit(flush(b), -1.0, 1.0)
        elif kind == 'float':
            out[ch] = flush(b)
        elif kind == 'uint':
            out[ch] = 0 if b != b or b <= 0 else min(int(b), 2 ** 32 - 1)
        else:
            out[ch] = 0 if b != b else max(-2 ** 31, min(int(b), 2 ** 31 - 1))
    return out

# ---------------------------------------------------------------- comparison

def quantize_ref(fmt, r):
    r = flush(r)
    comps = [c for c in FORMATS[fmt][1] if c[0] == 0]
    if not comps:
        return r
    _, _, n, kind = comps[0]
    if r != r:
        return 0.0 if kind in ('unorm', 'snorm') else r
    if kind == 'unorm':
        x = min(max(Fraction(r), 0), 1) * (2 ** n - 1)
        c = round(x)  # only 0.5 (2^n - 1) can tie; Python rounds it to even as D3D's +0.5 does here
        return unorm(c, n)
    if kind == 'snorm':
        d = 2 ** (n - 1) - 1
        c = round(min(max(Fraction(r), -1), 1) * d)
        return f32(Fraction(c, d))
    return r


def compare(func, r, t):
    return {
        'never': False, 'always': True,
        'less': r < t, 'equal': r == t, 'less_equal': r <= t,
        'greater': r > t, 'not_equal': r != t, 'greater_equal': r >= t,
    }[func]


def compared(tex, s, texel, ref):
    kind = FORMATS[tex.fmt][1][0][3]
    red = texel[0]
    if kind in ('uint', 'sint'):
        red = f32(red)
    else:
        red = flush(red)
    ok = compare(s['func'], ref, red)
    return [1.0 if ok else 0.0] * 4

# ---------------------------------------------------------------- cubes (5.3.8, 7.18.7, 7.18.12)

# (major axis, sign), s axis and sign, t axis and sign, faces in layer order +X -X +Y -Y +Z -Z.
FACES = [
    ((0, 1), (2, -1), (1, -1)),
    ((0, -1), (2, 1), (1, -1)),
    ((1, 1), (0, 1), (2, 1)),
    ((1, -1), (0, 1), (2, -1)),
    ((2, 1), (0, 1), (1, -1)),
    ((2, -1), (0, -1), (1, -1)),
]


def cube_face(d):
    ax, ay, az = (abs(v) for v in d)
    if az >= ay and az >= ax:
        axis = 2
    elif ay >= ax:
        axis = 1
    else:
        axis = 0
    return 2 * axis + (1 if d[axis] < 0 else 0)


def cube_project(d, f):
    (ma_axis, _), (sa, ss), (ta, ts) = FACES[f]
    ma = abs(d[ma_axis])
    sc = d[sa] * ss
    tc = d[ta] * ts
    s = fadd(fmul(fdiv(sc, ma), 0.5), 0.5)
    t = fadd(fmul(fdiv(tc, ma), 0.5), 0.5)
    return s, t


def cube_neighbour(f, x, y, n):
    """The texel at (x, y) of face f, where one coordinate may be one step past the face: the
    adjacent face's texel that touches this face's edge there. Computed geometrically: the
    3D centre of the missing texel, its overflowing component pulled onto the cube, and the
    old major component pulled one texel in; projected on the new face."""
    xin, yin = 0 <= x < n, 0 <= y < n
    if xin and yin:
        return f, x, y
    if not xin and not yin:
        return None
    (ma, ms), (sa, ss), (ta, ts) = FACES[f]
    p = [0, 0, 0]
    p[ma] = ms * n
    p[sa] = ss * (2 * x + 1 - n)
    p[ta] = ts * (2 * y + 1 - n)
    out = [a for a in range(3) if abs(p[a]) == n + 1][0]
    sign = 1 if p[out] > 0 else -1
    p[out] = sign * n
    p[ma] = ms * (n - 1)
    g = 2 * out + (1 if sign < 0 else 0)
    (_, _), (gs, gss), (gt, gts) = FACES[g]
    sc = gss * p[gs]
    tc = gts * p[gt]
    return g, (sc + n - 1) // 2, (tc + n - 1) // 2

# ---------------------------------------------------------------- LOD (7.18.10, 7.18.11)

def lod_from_derivatives(tex, s, coord, ddx, ddy):
    """(LOD, anisotropy (taps, step u, step v) or None)."""
    dx = [flush(v) for v in ddx]
    dy = [flush(v) for v in ddy]
    vx, vy = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
    if tex.dim in ('cube', 'cubearray'):
        f = cube_face(coord)
        (ma_axis, _), (sa, ss), (ta, ts) = FACES[f]
        ma = abs(coord[ma_axis])
        sgn = -1.0 if coord[ma_axis] < 0 else 1.0
        tc = [coord[sa] * ss, coord[ta] * ts]
        half = 0.5 * tex.w
        for d, v in ((dx, vx), (dy, vy)):
            dma = d[ma_axis] * sgn
            dd = [d[sa] * ss, d[ta] * ts]
            for k in range(2):
                v[k] = (ma * dd[k] - tc[k] * dma) / (ma * ma) * half
    else:
        axes = {'1d': 1, '1darray': 1, '2d': 2, '2darray': 2, '3d': 3}[tex.dim]
        size = (tex.w, tex.h, tex.d)
        for k in range(axes):
            vx[k] = dx[k] * size[k]
            vy[k] = dy[k] * size[k]

    def length(v):
        return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])

    def log2(x):
        if x != x:
            return math.nan
        if x == 0:
            return -math.inf
        return math.log2(x)

    # max() with Direct3D's rule: a NaN operand is ignored.
    iso = (log2(dmax(length(vx), length(vy))), None)
    if not (s['aniso'] and tex.dim in ('2d', '2darray')):
        return iso
    sx = vx[0] ** 2 + vx[1] ** 2
    sy = vy[0] ** 2 + vy[1] ** 2
    det = abs(vx[0] * vy[1] - vx[1] * vy[0])
    if not all(math.isfinite(v) for v in vx + vy) or max(sx, sy) == 0:
        return iso
    major_x = sx > sy
    sq = sx if major_x else sy
    lmaj = math.sqrt(sq)
    direction = vx if major_x else vy
    mx = float(max(1, s['max_aniso']))
    ratio = sq / det if det != 0 else math.inf
    if ratio > mx:
        ratio = mx
        lmin = lmaj / ratio
    else:
        lmin = det / lmaj
    if lmin < 1.0:
        ratio = max(1.0, ratio * lmin)
    taps = max(1, min(int(math.ceil(ratio)), max(1, s['max_aniso'])))
    step = (direction[0] / taps / tex.w, direction[1] / taps / tex.h)
    return log2(lmin), ((taps, step) if taps > 1 else None)


def lod_fixed(s, lod):
    lo, hi = s['min_lod'], s['max_lod']
    c = hi if lod != lod else min(lod, hi)
    c = max(c, lo)
    c = min(max(c, -128.0), 128.0)
    x = Fraction(c) * 256
    fl = math.floor(x)
    r = x - fl
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    return fl


def mip_levels(mip_linear, fl, mips):
    top = mips - 1
    if not mip_linear:
        return [(min(max((fl + 128) >> 8, 0), top), Fraction(1))]
    l0 = fl >> 8
    w = Fraction(fl & 255, 256)
    a, b = min(max(l0, 0), top), min(max(l0 + 1, 0), top)
    if a == b or w == 0:
        return [(a, Fraction(1))]
    return [(a, 1 - w), (b, w)]

# ---------------------------------------------------------------- sampling

def axis_taps(fx, linear):
    if linear:
        w = Fraction(fx & 255, 256)
        return [(fx >> 8, 1 - w), ((fx >> 8) + 1, w)]
    return [(fx >> 8, Fraction(1))]


def fetch(tex, s, l, x, y, z, ref):
    v = tex.texel(l, z, y, x)
    return compared(tex, s, v, ref) if ref is not None else v


def level_taps(tex, s, l, u, linear, offset, layer, scale, ref, out):
    dims = {'1d': 1, '1darray': 1, '2d': 2, '2darray': 2, '3d': 3}[tex.dim]
    size = tex.size(l)
    taps = [[(0, Fraction(1))], [(0, Fraction(1))], [(layer, Fraction(1))]]
    for a in range(dims):
        fx = to_fixed8(u[a], size[a], linear) + 256 * offset[a]
        taps[a] = axis_taps(fx, linear)
    for z, wz in taps[2]:
        if wz == 0:
            continue
        for y, wy in taps[1]:
            if wy == 0:
                continue
            for x, wx in taps[0]:
                if wx == 0:
                    continue
                ax = address(x, size[0], s['address'][0])
                ay = address(y, size[1], s['address'][1]) if dims > 1 else 0
                az = address(z, size[2], s['address'][2]) if dims > 2 else layer
                if ax is None or ay is None or az is None:
                    b = border_texel(tex, s['border'], s)
                    t = compared(tex, s, b, ref) if ref is not None else b
                else:
                    t = fetch(tex, s, l, ax, ay, az, ref)
                out.append((t, wx * wy * wz * scale))


def cube_taps(tex, s, l, st, f, linear, base, scale, ref, out):
    n = tex.size(l)[0]
    fx, fy = to_fixed8(st[0], n, linear), to_fixed8(st[1], n, linear)
    if not linear:
        x = min(max(fx >> 8, 0), n - 1)
        y = min(max(fy >> 8, 0), n - 1)
        out.append((fetch(tex, s, l, x, y, base + f, ref), scale))
        return
    start = len(out)
    missing = 0
    for y, wy in axis_taps(fy, True):
        for x, wx in axis_taps(fx, True):
            w = wx * wy * scale
            if w == 0:
                continue
            nb = cube_neighbour(f, x, y, n)
            if nb is None:
                missing = w
            else:
                g, gx, gy = nb
                out.append((fetch(tex, s, l, gx, gy, base + g, ref), w))
    if missing:
        # In binary64, as the sum is: each of the other three gets a third of the weight.
        for i in range(start, len(out)):
            t, w = out[i]
            out[i] = (t, float(w) + float(missing) / 3.0)


def array_index(v, n):
    v = flush(v)
    if v != v:
        return 0
    if math.isinf(v):
        return 0 if v < 0 else n - 1
    r = round(v)  # Python rounds half to even
    return max(0, min(r, n - 1))


def reduce_taps(s, taps, n):
    if len(taps) == 1 and float(taps[0][1]) == 1.0 and n == 1:
        return [bits(x) if isinstance(x, float) else x & 0xFFFFFFFF for x in taps[0][0]]
    if s['reduction'] in ('minimum', 'maximum'):
        out = None
        for t, _ in taps:
            vals = [flush(x) for x in t]
            if out is None:
                out = vals
            else:
                for c in range(4):
                    out[c] = dmin(out[c], vals[c]) if s['reduction'] == 'minimum' else dmax(out[c], vals[c])
        return [bits(x) for x in out]
    # The sum in binary64 (Python's float), in footprint order, of the flushed values times
    # their weights, divided by the anisotropic taps' count, rounded once to binary32.
    res = []
    for c in range(4):
        acc = 0.0
        for t, w in taps:
            acc += flush(t[c]) * float(w)
        res.append(out_bits(f32(acc / n)))
    return res


def dmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == 0 and b == 0:
        return -0.0 if math.copysign(1, a) < 0 or math.copysign(1, b) < 0 else 0.0
    return min(a, b)


def dmax(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == 0 and b == 0:
        return 0.0 if math.copysign(1, a) > 0 or math.copysign(1, b) > 0 else -0.0
    return max(a, b)


def sample(tex, s, f, coord, ddx=(0.0, 0.0, 0.0), ddy=(0.0, 0.0, 0.0), lod=0.0, ref=None,
           offset=(0, 0, 0), channel=0):
    """What one lane's sample returns, as four bit patterns. f: 'grad' (LOD from ddx/ddy, plus
    `lod` as bias), 'level' (LOD `lod`), 'gather', 'lod'. `ref`: a comparison's reference."""
    if tex is None:
        return [0, 0, 0, 0]
    c = [flush(v) for v in coord]
    layer = 0
    if tex.dim == '1darray':
        layer = array_index(coord[1], tex.layers)
    elif tex.dim == '2darray':
        layer = array_index(coord[2], tex.layers)
    elif tex.dim == 'cubearray':
        layer = 6 * array_index(coord[3], tex.layers // 6)
    u = [c[0], c[1] if tex.dim not in ('1d', '1darray') else 0.0,
         c[2] if tex.dim in ('3d', 'cube', 'cubearray') else 0.0]
    qref = quantize_ref(tex.fmt, ref) if ref is not None else None
    if f == 'gather':
        return gather(tex, s, u, layer, offset, channel, qref)
    integer = integer_format(tex.fmt)
    if f == 'level':
        L, aniso = float(flush(lod)), None
    else:
        L, aniso = lod_from_derivatives(tex, s, u, ddx, ddy)
    unclamped = L + s['bias']
    L = unclamped + (float(flush(lod)) if f == 'grad' else 0.0)
    fl = lod_fixed(s, L)
    if f == 'lod':
        top = 256 * (tex.mips - 1)
        clamped = min(max(fl, 0), top) / 256
        return [bits(f32(clamped)), out_bits(f32(Fraction(unclamped)) if math.isfinite(unclamped) else unclamped), 0, 0]
    if integer:
        aniso = None
    magnify = fl <= 0
    linear = not integer and (aniso is not None or s['aniso'] or (s['mag'] if magnify else s['min']) == 'linear')
    mip_linear = not integer and (s['aniso'] or s['mip'] == 'linear')
    levels = mip_levels(mip_linear, fl, tex.mips)
    n, step = aniso if aniso else (1, (0.0, 0.0))
    taps = []
    cube = tex.dim in ('cube', 'cubearray')
    face = cube_face(u) if cube else None
    for i in range(n):
        k = i - (n - 1) / 2
        ui = [f32(u[0] + k * step[0]), f32(u[1] + k * step[1]), u[2]] if n > 1 else u
        for lv, wl in levels:
            if wl == 0:
                continue
            if cube:
                st = cube_project(ui, face)
                cube_taps(tex, s, lv, st, face, linear, layer, wl, qref, taps)
            else:
                r = [reduce_range(ui[a], s['address'][a]) for a in range(3)]
                level_taps(tex, s, lv, r, linear, offset, layer, wl, qref, taps)
    return reduce_taps(s, taps, n)


def gather(tex, s, u, layer, offset, ch, ref):
    order = [(0, 1), (1, 1), (1, 0), (0, 0)]
    if tex.dim in ('cube', 'cubearray'):
        f = cube_face(u)
        st = cube_project(u, f)
        n = tex.size(0)[0]
        fx, fy = to_fixed8(st[0], n, True) >> 8, to_fixed8(st[1], n, True) >> 8
        vals = []
        for i, j in order:
            nb = cube_neighbour(f, fx + i, fy + j, n)
            vals.append(None if nb is None else fetch(tex, s, 0, nb[1], nb[2], layer + nb[0], ref)[ch])
        known = [v for v in vals if v is not None]
        out = []
        for v in vals:
            if v is None:
                out.append(out_bits(f32(sum(Fraction(flush(k)) for k in known) / 3)))
            else:
                out.append(bits(v) if isinstance(v, float) else v & 0xFFFFFFFF)
        return out
    w, h, _ = tex.size(0)
    r = [reduce_range(u[0], s['address'][0]), reduce_range(u[1], s['address'][1])]
    fx = (to_fixed8(r[0], w, True) >> 8) + offset[0]
    fy = (to_fixed8(r[1], h, True) >> 8) + offset[1]
    out = []
    for i, j in order:
        ax = address(fx + i, w, s['address'][0])
        ay = address(fy + j, h, s['address'][1])
        if ax is None or ay is None:
            t = border_texel(tex, s['border'], s)
            t = compared(tex, s, t, ref) if ref is not None else t
        else:
            t = fetch(tex, s, 0, ax, ay, layer, ref)
        v = t[ch]
        out.append(bits(v) if isinstance(v, float) else v & 0xFFFFFFFF)
    return out


def deriv(v, lane, y, fine):
    """deriv_rt{x,y}_{coarse,fine} of lane `lane` of a row of f32 values (quads of 4 lanes:
    top-left, top-right, bottom-left, bottom-right)."""
    q, i = lane & ~3, lane & 3
    if not y and not fine:
        a, b = q, q + 1
    elif not y:
        a, b = q + (i & 2), q + (i & 2) + 1
    elif not fine:
        a, b = q, q + 2
    else:
        a, b = q + (i & 1), q + (i & 1) + 2
    return fsub(v[b], v[a])
