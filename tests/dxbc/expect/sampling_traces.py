#!/usr/bin/env python3
"""Writes the sampling traces tests/traces/sampling_*.toml: hand-written DXBC listings (no
compiler made them) that sample textures of every dimension through samplers of every kind,
with the results expected by the independent model of the Direct3D 11 rules in
d3d11_sampling.py (never by warpjit). tests/trace_runner.rs runs them under both engines.

Each compute-shader launch reads one 64-byte record per thread from a structured buffer
(coordinates, x and y derivatives, LOD or bias, reference, programmable offsets), runs one
sampling instruction and stores its four result words to its own u# buffer; pixel-shader
launches sample at interpolated coordinates over a rectangle of 2x2 quads.

Usage: sampling_traces.py [OUT_DIR]   (default: tests/traces next to this script's repository)
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import d3d11_sampling as m  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'tests', 'traces')

F = m.bits


class Rng:
    """A fixed linear congruential generator (the traces must not change from run to run)."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        return self.s >> 33

    def unit(self):
        return (self.next() % 1_000_000) / 1_000_000.0


def f32list(words):
    return ', '.join(f'0x{w:08x}' for w in words)


def toml_u32(words, per_line=8):
    lines = []
    for i in range(0, len(words), per_line):
        lines.append('    ' + ', '.join(f'0x{w:08x}' for w in words[i:i + per_line]) + ',')
    return '[\n' + '\n'.join(lines) + '\n]'


def toml_u8(data, per_line=24):
    lines = []
    for i in range(0, len(data), per_line):
        lines.append('    ' + ', '.join(str(b) for b in data[i:i + per_line]) + ',')
    return '[\n' + '\n'.join(lines) + '\n]'


DIM_DECL = {
    '1d': 'texture1d', '1darray': 'texture1darray', '2d': 'texture2d', '2darray': 'texture2darray',
    '3d': 'texture3d', 'cube': 'texturecube', 'cubearray': 'texturecubearray',
}


def texture_table(tex, slot, comment):
    keys = [f'slot = {slot}', f'dim = "{tex.dim}"', f'format = "{tex.fmt}"', f'width = {tex.w}']
    if tex.dim not in ('1d', '1darray', 'cube', 'cubearray'):
        keys.append(f'height = {tex.h}')
    if tex.dim == '3d':
        keys.append(f'depth = {tex.d}')
    if tex.dim in ('1darray', '2darray'):
        keys.append(f'array_size = {tex.layers}')
    if tex.dim == 'cubearray':
        keys.append(f'array_size = {tex.layers // 6}')
    if tex.mips > 1:
        keys.append(f'mip_levels = {tex.mips}')
    raw = tex.raw_bytes()
    if len(raw) % 4 == 0:
        words = [int.from_bytes(raw[i:i + 4], 'little') for i in range(0, len(raw), 4)]
        keys.append('u32 = ' + toml_u32(words))
    else:
        keys.append('u8 = ' + toml_u8(raw))
    return f'[[texture]]                      # {comment}\n' + '\n'.join(keys) + '\n'


def sampler_table(slot, s):
    f = s['reduction']
    prefix = {'standard': '', 'comparison': 'COMPARISON_', 'minimum': 'MINIMUM_', 'maximum': 'MAXIMUM_'}[f]
    if s['aniso']:
        name = 'ANISOTROPIC'
    else:
        name = {
            ('point', 'point', 'point'): 'MIN_MAG_MIP_POINT',
            ('point', 'point', 'linear'): 'MIN_MAG_POINT_MIP_LINEAR',
            ('point', 'linear', 'point'): 'MIN_POINT_MAG_LINEAR_MIP_POINT',
            ('point', 'linear', 'linear'): 'MIN_POINT_MAG_MIP_LINEAR',
            ('linear', 'point', 'point'): 'MIN_LINEAR_MAG_MIP_POINT',
            ('linear', 'point', 'linear'): 'MIN_LINEAR_MAG_POINT_MIP_LINEAR',
            ('linear', 'linear', 'point'): 'MIN_MAG_LINEAR_MIP_POINT',
            ('linear', 'linear', 'linear'): 'MIN_MAG_MIP_LINEAR',
        }[(s['min'], s['mag'], s['mip'])]
    keys = [f'slot = {slot}', f'filter = "{prefix}{name}"']
    a = s['address']
    if a[0] == a[1] == a[2]:
        keys.append(f'address = "{a[0]}"')
    else:
        keys += [f'address_u = "{a[0]}"', f'address_v = "{a[1]}"', f'address_w = "{a[2]}"']
    if 'border' in a:
        keys.append('border_color = [' + ', '.join(repr(x) for x in s['border']) + ']')
    if s['bias'] != 0:
        keys.append(f'mip_lod_bias = {s["bias"]!r}')
    if s['min_lod'] != m.DEFAULT_SAMPLER['min_lod']:
        keys.append(f'min_lod = {s["min_lod"]!r}')
    if s['max_lod'] != m.DEFAULT_SAMPLER['max_lod']:
        keys.append(f'max_lod = {s["max_lod"]!r}')
    if s['aniso']:
        keys.append(f'max_anisotropy = {s["max_aniso"]}')
    if f == 'comparison':
        keys.append(f'comparison_func = "{s["func"]}"')
    return '[[sampler]]\n' + '\n'.join(keys) + '\n'


def sampler(**kw):
    s = dict(m.DEFAULT_SAMPLER)
    s.update(kw)
    if isinstance(s['address'], str):
        s['address'] = (s['address'],) * 3
    return s


class Case:
    """One launch: an instruction over records. Each record: dict with coord (4 floats),
    ddx, ddy (3), lod, ref (floats), po (2 ints)."""

    def __init__(self, name, op, s, records, offset=(0, 0, 0), channel=0, comment=''):
        self.name, self.op, self.s, self.records = name, op, s, records
        self.offset, self.channel, self.comment = offset, channel, comment


def record_words(r):
    c = list(r.get('coord', (0.0, 0.0, 0.0, 0.0)))
    c += [0.0] * (4 - len(c))
    dx = list(r.get('ddx', (0.0, 0.0, 0.0))) + [0.0]
    dy = list(r.get('ddy', (0.0, 0.0, 0.0))) + [0.0]
    po = r.get('po', (0, 0))
    return ([F(x) for x in c] + [F(x) for x in dx[:4]] + [F(x) for x in dy[:4]]
            + [F(r.get('lod', 0.0)), F(r.get('ref', 0.0)), po[0] & 0xFFFFFFFF, po[1] & 0xFFFFFFFF])


def expected(tex, case, r):
    op = case.op
    compare = op in ('sample_c_lz', 'gather4_c', 'gather4_po_c')
    ref = r.get('ref', 0.0) if compare else None
    c = list(r.get('coord', (0.0, 0.0, 0.0, 0.0))) + [0.0] * 4
    if op in ('sample_l', 'sample_c_lz'):
        lod = 0.0 if op == 'sample_c_lz' else r.get('lod', 0.0)
        return m.sample(tex, case.s, 'level', c[:4], lod=lod, ref=ref, offset=case.offset)
    if op == 'sample_d':
        return m.sample(tex, case.s, 'grad', c[:4], ddx=r['ddx'], ddy=r['ddy'], ref=ref,
                        offset=case.offset)
    if op.startswith('gather4'):
        if '_po' in op:
            po = r.get('po', (0, 0))
            sx = lambda v: ((v & 63) ^ 32) - 32  # the low 6 bits, signed
            off = (sx(po[0]), sx(po[1]), 0)
        else:
            off = case.offset
        return m.sample(tex, case.s, 'gather', c[:4], ref=ref, offset=off, channel=case.channel)
    raise ValueError(op)


def instruction(case, t, s):
    aoff = ''
    if any(case.offset):
        aoff = '_aoffimmi({},{},{})'.format(*case.offset)
    op = case.op
    if op == 'sample_l':
        return f'sample_l{aoff} r4.xyzw, r0.xyzw, t{t}.xyzw, s{s}, r3.x'
    if op == 'sample_d':
        return f'sample_d{aoff} r4.xyzw, r0.xyzw, t{t}.xyzw, s{s}, r1.xyzw, r2.xyzw'
    if op == 'sample_c_lz':
        return f'sample_c_lz{aoff} r4.xyzw, r0.xyzw, t{t}.xxxx, s{s}, r3.y'
    comp = 'xyzw'[case.channel]
    if op == 'gather4':
        return f'gather4{aoff} r4.xyzw, r0.xyzw, t{t}.xyzw, s{s}.{comp}'
    if op == 'gather4_c':
        return f'gather4_c{aoff} r4.xyzw, r0.xyzw, t{t}.xyzw, s{s}.x, r3.y'
    if op == 'gather4_po':
        return f'gather4_po r4.xyzw, r0.xyzw, r3.zwzz, t{t}.xyzw, s{s}.{comp}'
    if op == 'gather4_po_c':
        return f'gather4_po_c r4.xyzw, r0.xyzw, r3.zwzz, t{t}.xyzw, s{s}.x, r3.y'
    raise ValueError(op)


def compute_trace(name, header, tex, cases):
    """A trace of one texture (t0) and one launch per case (sampler s{k}, records t{k+1},
    results u{k})."""
    parts = [header.rstrip() + '\n\nformat = "warpjit-trace/1"\n\n', texture_table(tex, 0, f'{tex.dim} {tex.fmt}')]
    for k, case in enumerate(cases):
        n = len(case.records)
        recs = case.records + [{}] * ((-n) % 32)
        words = [w for r in recs for w in record_words(r)]
        want = []
        for r in case.records:
            want += expected(tex, case, r)
        comparison = case.s['reduction'] == 'comparison'
        parts.append(f'\n# launch {k}: {case.name}. {case.comment}'.rstrip() + '\n')
        parts.append(sampler_table(k, case.s))
        parts.append(f'[[buffer]]                       # the records\nslot = {k + 1}\nview = "srv"\nstride = 64\nu32 = {toml_u32(words)}\n')
        parts.append(f'[[buffer]]                       # the results\nslot = {k}\nstride = 16\nsize = {16 * len(recs)}\n')
        listing = f'''cs_5_0
dcl_globalFlags refactoringAllowed
dcl_sampler s{k}, mode_{'comparison' if comparison else 'default'}
dcl_resource_{DIM_DECL[tex.dim]} (float,float,float,float) t0
dcl_resource_structured t{k + 1}, 64
dcl_uav_structured u{k}, 16
dcl_input vThreadID.x
dcl_temps 5
dcl_thread_group 32, 1, 1
ld_structured r0.xyzw, vThreadID.x, l(0), t{k + 1}.xyzw
ld_structured r1.xyzw, vThreadID.x, l(16), t{k + 1}.xyzw
ld_structured r2.xyzw, vThreadID.x, l(32), t{k + 1}.xyzw
ld_structured r3.xyzw, vThreadID.x, l(48), t{k + 1}.xyzw
{instruction(case, 0, k)}
store_structured u{k}.xyzw, vThreadID.x, l(0), r4.xyzw
ret
'''
        parts.append(f'[[launch]]\nisa = "dxbc"\ngrid = [{len(recs) // 32}, 1, 1]\ncode = """\n{listing}"""\n')
        parts.append(f'[[expect_buffer]]\nslot = {k}\nu32 = {toml_u32(want)}\n')
    path = os.path.join(OUT, f'sampling_{name}.toml')
    with open(path, 'w') as f:
        f.write(''.join(parts))
    print(f'{path}: {len(cases)} launches')

# ---------------------------------------------------------------- pixel shaders


def quad_slots(w, h):
    """The lanes of a w x h rectangle in 2x2 quads (docs/semantics.md section 33): per lane,
    its pixel (x, y) and whether it is a helper."""
    qw, qh = (w + 1) // 2, (h + 1) // 2
    out = []
    for q in range(qw * qh):
        for k in range(4):
            x, y = 2 * (q % qw) + (k & 1), 2 * (q // qw) + (k >> 1)
            out.append((x, y, x >= w or y >= h))
    return out


def helper_value(vals, w, h, x, y):
    """A helper's interpolated input: the nearest pixel's value continued by the differences to
    the pixels before it in its row and column (binary32, Direct3D's float rules)."""
    cx, cy = min(x, w - 1), min(y, h - 1)
    c = vals[cy * w + cx]
    out = list(c)
    if x > cx and w >= 2:
        b = vals[cy * w + cx - 1]
        out = [m.fadd(out[k], m.fsub(c[k], b[k])) for k in range(4)]
    if y > cy and h >= 2:
        b = vals[(cy - 1) * w + cx]
        out = [m.fadd(out[k], m.fsub(c[k], b[k])) for k in range(4)]
    return out


def pixel_trace(name, header, tex, launches):
    """Pixel-shader launches over rectangles: v1 = coordinates, v2.x = LOD bias (sample_b),
    v2.y = reference (sample_c); o0 = the sample, o1 = `lod`'s (clamped, unclamped, 0, 0)."""
    parts = [header.rstrip() + '\n\nformat = "warpjit-trace/1"\n\n', texture_table(tex, 0, f'{tex.dim} {tex.fmt}')]
    for k, (label, op, s, w, h, coord_of, bias, ref) in enumerate(launches):
        pix = [list(coord_of(x, y)) + [0.0] * (4 - len(coord_of(x, y))) for y in range(h) for x in range(w)]
        extra = [[bias(x, y), ref(x, y), 0.0, 0.0] for y in range(h) for x in range(w)]
        slots = quad_slots(w, h)
        lane_v1 = [pix[y * w + x] if not hlp else helper_value(pix, w, h, x, y) for (x, y, hlp) in slots]
        lane_v2 = [extra[y * w + x] if not hlp else helper_value(extra, w, h, x, y) for (x, y, hlp) in slots]
        o0, o1 = [None] * (w * h), [None] * (w * h)
        for lane, (x, y, hlp) in enumerate(slots):
            if hlp:
                continue
            comps = [[lane_v1[l][c] for l in range(len(slots))] for c in range(3)]
            ddx = tuple(m.deriv(comps[c], lane, False, False) for c in range(3))
            ddy = tuple(m.deriv(comps[c], lane, True, False) for c in range(3))
            coord = lane_v1[lane]
            r = lane_v2[lane][1] if op == 'sample_c' else None
            b = lane_v2[lane][0] if op == 'sample_b' else 0.0
            o0[y * w + x] = m.sample(tex, s, 'grad', coord, ddx=ddx, ddy=ddy, lod=b, ref=r)
            o1[y * w + x] = m.sample(tex, s, 'lod', coord, ddx=ddx, ddy=ddy)
        comparison = s['reduction'] == 'comparison'
        ncoord = 3 if tex.dim in ('cube', '3d', '2darray') else 2
        swz = 'xyzx' if ncoord == 3 else 'xyxx'
        if op == 'sample':
            inst = f'sample o0.xyzw, v1.{swz}, t0.xyzw, s{k}'
        elif op == 'sample_b':
            inst = f'sample_b o0.xyzw, v1.{swz}, t0.xyzw, s{k}, v2.x'
        else:
            inst = f'sample_c o0.xyzw, v1.{swz}, t0.xxxx, s{k}, v2.y'
        lod_line = '' if comparison else f'lod o1.xyzw, v1.{swz}, t0.xyzw, s{k}\n'
        listing = f"""ps_5_0
dcl_globalFlags refactoringAllowed
dcl_sampler s{k}, mode_{'comparison' if comparison else 'default'}
dcl_resource_{DIM_DECL[tex.dim]} (float,float,float,float) t0
dcl_input_ps linear v1.xyz
dcl_input_ps linear v2.xy
dcl_output o0.xyzw
dcl_output o1.xyzw
{inst}
{lod_line}ret
"""
        parts.append(f'\n# launch {k}: {label}, a {w}x{h} rectangle.\n')
        parts.append(sampler_table(k, s))
        parts.append(f'[[launch]]\nisa = "dxbc"\npixels = [{w}, {h}]\ncode = """\n{listing}"""\n')
        parts.append('[[launch.input]]\nreg = 1\nu32 = ' + toml_u32([F(v) for p in pix for v in p]) + '\n')
        parts.append('[[launch.input]]\nreg = 2\nu32 = ' + toml_u32([F(v) for p in extra for v in p]) + '\n')
        parts.append('[[launch.expect_output]]\nreg = 0\nu32 = ' + toml_u32([v for o in o0 for v in o]) + '\n')
        if not comparison:
            parts.append('[[launch.expect_output]]\nreg = 1\nu32 = ' + toml_u32([v for o in o1 for v in o]) + '\n')
    path = os.path.join(OUT, f'sampling_{name}.toml')
    with open(path, 'w') as f:
        f.write(''.join(parts))
    print(f'{path}: {len(launches)} launches')

# ---------------------------------------------------------------- the textures


def random_float_texture(dim, w, h=1, d=1, layers=1, mips=1, seed=1, fmt='R32_FLOAT'):
    rng = Rng(seed)

    def fill(l, s, y, x):
        if fmt == 'R32_FLOAT':
            # Values with few significant bits keep sums exact and easy to read.
            return m.encode(fmt, [float(rng.next() % 4096) / 16.0, 0, 0, 0])
        if fmt == 'R8G8B8A8_UNORM':
            return bytes(rng.next() % 256 for _ in range(4))
        if fmt == 'R16_UNORM':
            return (rng.next() % 65536).to_bytes(2, 'little')
        if fmt == 'R8_SNORM':
            return bytes([rng.next() % 256])
        if fmt == 'R32_UINT':
            return (rng.next()).to_bytes(4, 'little')
        if fmt == 'R32G32B32A32_FLOAT':
            return b''.join(struct.pack('<f', float(rng.next() % 256) / 4.0) for _ in range(4))
        raise ValueError(fmt)
    return m.Texture(dim, fmt, w, h, d, layers, mips, fill)


def coords_2d(rng, n, lo=-0.25, hi=1.25):
    out = []
    for _ in range(n):
        out.append((lo + (hi - lo) * rng.unit(), lo + (hi - lo) * rng.unit()))
    return out


EDGES_U = [0.0, -0.0, 0.125, 0.25, 0.375, 0.5, 1.0, -1.0, 1.5, 2.75, -2.75, 9.9, -10.5, 1e5,
           -1e5, 2.0 ** -130, float('nan'), float('inf'), float('-inf'), 0.499999, 0.500001]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = Rng(7)

    # 1. Address modes, borders and offsets on a 4x4 R8G8B8A8_UNORM texture, bilinear at LOD 0.
    tex = random_float_texture('2d', 4, 4, fmt='R8G8B8A8_UNORM', seed=11)
    pts = [(u, v) for u in EDGES_U for v in (0.375, 1.125, -0.6)] + coords_2d(rng, 40, -3.0, 4.0)
    recs = [{'coord': (u, v, 0.0, 0.0), 'lod': 0.0} for (u, v) in pts]
    cases = []
    for mode in ('wrap', 'mirror', 'clamp', 'border', 'mirror_once'):
        cases.append(Case(f'bilinear, address "{mode}"', 'sample_l',
                          sampler(address=mode, border=(0.25, 2.0, -1.0, 0.5), mip='point'), recs))
    cases.append(Case('point, mixed address modes u wrap, v border', 'sample_l',
                      sampler(min='point', mag='point', mip='point', address=('wrap', 'border', 'clamp'),
                              border=(1.0, 0.0, 0.5, 0.25)), recs))
    cases.append(Case('bilinear with _aoffimmi(-3, 2), mirror', 'sample_l', sampler(address='mirror'),
                      recs, offset=(-3, 2, 0)))
    cases.append(Case('bilinear with _aoffimmi(7, -8), border', 'sample_l',
                      sampler(address='border', border=(0.0, 0.0, 0.0, 1.0)), recs, offset=(7, -8, 0)))
    compute_trace('address', '''# Address modes (wrap, mirror, clamp, border, mirror_once), border colours clamped to the
# format (R8G8B8A8_UNORM: green 2.0 -> 1.0, blue -1.0 -> 0.0), immediate offsets, and edge
# coordinates (texel centres and edges, -0, far outside, +-inf, NaN, a denormal) of a bilinear
# and a point sample_l at LOD 0. Expected values: the independent model of the Direct3D 11 rules
# in tests/dxbc/expect/d3d11_sampling.py, written by tests/dxbc/expect/sampling_traces.py.''',
                  tex, cases)

    # 2. Mip selection and blending on an 8x8 R32_FLOAT texture with 4 levels.
    tex = random_float_texture('2d', 8, 8, mips=4, seed=12)
    lods = [-1.0, 0.0, 0.25, 0.4999, 0.5, 0.5001, 1.0, 1.5, 1.99609375, 2.00390625, 2.5, 3.0,
            3.5, 9.0, -9.0, float('nan'), float('inf'), float('-inf'), 1.0 / 512, 3.0 / 512]
    pts = coords_2d(rng, 6, 0.0, 1.0)
    recs = [{'coord': (u, v, 0.0, 0.0), 'lod': l} for (u, v) in pts for l in lods]
    cases = [
        Case('trilinear', 'sample_l', sampler(address='wrap'), recs),
        Case('bilinear, point mips', 'sample_l', sampler(address='wrap', mip='point'), recs),
        Case('min point, mag linear, mip linear', 'sample_l', sampler(min='point', mag='linear', address='wrap'), recs),
        Case('min linear, mag point, mip point', 'sample_l', sampler(min='linear', mag='point', mip='point', address='wrap'), recs),
        Case('LOD bias 1.25, clamp to [0.5, 2.25]', 'sample_l',
             sampler(address='wrap', bias=1.25, min_lod=0.5, max_lod=2.25), recs),
        Case('crossed clamps: min_lod 2 wins over max_lod 1', 'sample_l',
             sampler(address='wrap', min_lod=2.0, max_lod=1.0), recs),
        Case('bias -2.5, max_lod 0', 'sample_l', sampler(address='clamp', bias=-2.5, max_lod=0.0), recs),
    ]
    # Derivatives: LOD from sample_d, isotropic.
    drecs = []
    for (u, v) in pts:
        for (dx, dy) in [((0.125, 0.0), (0.0, 0.125)), ((0.25, 0.1), (0.05, 0.3)),
                         ((1.0 / 16, 0.0), (0.0, 1.0 / 16)), ((0.0, 0.0), (0.0, 0.0)),
                         ((0.5, 0.5), (-0.5, 0.5)), ((3.0, 0.0), (0.0, 0.01)),
                         ((float('nan'), 0.0), (0.0, 0.0)), ((1e-3, 2e-3), (3e-3, -1e-3))]:
            drecs.append({'coord': (u, v, 0.0, 0.0), 'ddx': (dx[0], dx[1], 0.0), 'ddy': (dy[0], dy[1], 0.0)})
    cases.append(Case('sample_d, trilinear', 'sample_d', sampler(address='wrap'), drecs))
    cases.append(Case('sample_d, anisotropic 4', 'sample_d', sampler(address='wrap', aniso=True, max_aniso=4), drecs))
    cases.append(Case('sample_d, anisotropic 16', 'sample_d', sampler(address='clamp', aniso=True, max_aniso=16), drecs))
    cases.append(Case('sample_d, minimum reduction', 'sample_d', sampler(address='wrap', reduction='minimum'), drecs))
    cases.append(Case('sample_d, maximum reduction, point mips', 'sample_d', sampler(address='wrap', reduction='maximum', mip='point'), drecs))
    compute_trace('mips', '''# Mip selection and blending: sample_l at LODs around the level boundaries (x.5 for point mips,
# 1/512 steps of the 8.8 fixed-point LOD), NaN and infinite LODs, LOD bias and min/max clamps
# (crossed: min_lod wins); sample_d with the LOD from derivatives, isotropic and anisotropic
# (4 and 16 taps at most), and the minimum/maximum reductions. An 8x8 R32_FLOAT texture with
# 4 levels. Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 3. Comparison filters, R16_UNORM (the reference quantized to 16 bits) with mips.
    tex = random_float_texture('2d', 4, 4, mips=2, seed=13, fmt='R16_UNORM')
    pts = coords_2d(rng, 10, -0.5, 1.5)
    refs = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, -0.5, 0.5000076, float('nan')]
    recs = [{'coord': (u, v, 0.0, 0.0), 'ref': r} for (u, v) in pts for r in refs]
    cases = []
    for func in ('less', 'less_equal', 'greater', 'equal', 'not_equal', 'never', 'always', 'greater_equal'):
        cases.append(Case(f'sample_c_lz, comparison {func}', 'sample_c_lz',
                          sampler(reduction='comparison', func=func, address='border', border=(0.5, 0, 0, 0)), recs))
    cases.append(Case('gather4_c, less', 'gather4_c', sampler(reduction='comparison', func='less', address='wrap'), recs))
    cases.append(Case('gather4_po_c, greater_equal', 'gather4_po_c',
                      sampler(reduction='comparison', func='greater_equal', address='mirror'),
                      [dict(r, po=(k % 70 - 35, (k * 7) % 90 - 45)) for k, r in enumerate(recs)]))
    compute_trace('compare', '''# Comparison filtering on an R16_UNORM texture: sample_c_lz with every comparison function
# (the reference quantized to the format's 16 bits, clamped to [0, 1], compared with each
# texel of the bilinear footprint, border texels included, then filtered), gather4_c and
# gather4_po_c (programmable offsets: the low 6 bits of each, signed). Expected values:
# tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 4. Gather: channels, offsets and programmable offsets on R8G8B8A8_UNORM.
    tex = random_float_texture('2d', 8, 4, seed=14, fmt='R8G8B8A8_UNORM')
    pts = coords_2d(rng, 30, -1.0, 2.0) + [(u, 0.5) for u in EDGES_U]
    recs = [{'coord': (u, v, 0.0, 0.0), 'po': (k * 13 % 64 - 32, k * 5 % 64 - 32)} for k, (u, v) in enumerate(pts)]
    cases = []
    for ch in range(4):
        cases.append(Case(f'gather4 channel {"rgba"[ch]}, wrap', 'gather4', sampler(address='wrap'), recs, channel=ch))
    cases.append(Case('gather4 red, border, _aoffimmi(2, -1)', 'gather4',
                      sampler(address='border', border=(0.75, 0.0, 0.0, 0.0)), recs, offset=(2, -1, 0)))
    cases.append(Case('gather4_po green, mirror_once', 'gather4_po', sampler(address='mirror_once'), recs, channel=1))
    compute_trace('gather', '''# gather4: the four texels of the bilinear footprint at mip 0 in the order (u0, v1), (u1, v1),
# (u1, v0), (u0, v0), each channel, with address modes, border, an immediate offset, and
# gather4_po's programmable offsets (6-bit signed). Expected values:
# tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 5. 1D, 1D arrays and 2D arrays (the array index rounded to nearest even and clamped).
    tex = random_float_texture('1darray', 8, layers=3, mips=2, seed=15)
    recs = [{'coord': (u, a, 0.0, 0.0), 'lod': l} for u in (0.1, 0.5, 0.93, -0.2, 1.7)
            for a in (0.0, 0.5, 1.5, 2.5, -1.0, 7.0, float('nan'), 1.49)
            for l in (0.0, 0.5, 1.0)]
    cases = [Case('1D array, trilinear, wrap', 'sample_l', sampler(address='wrap'), recs),
             Case('1D array, point, mirror, _aoffimmi(3)', 'sample_l',
                  sampler(min='point', mag='point', mip='point', address='mirror'), recs, offset=(3, 0, 0))]
    compute_trace('array1d', '''# A 1D array of 3 slices and 2 mip levels: sample_l trilinear and point (with a u offset),
# array indices rounded to nearest even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2) and clamped (NaN -> 0).
# Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    tex = random_float_texture('2darray', 4, 4, layers=4, mips=3, seed=16)
    recs = [{'coord': (u, v, a, 0.0), 'ddx': (dx, 0.0, 0.0), 'ddy': (0.0, dy, 0.0)}
            for (u, v) in coords_2d(rng, 5) for a in (0.0, 1.5, 3.49, 9.0)
            for (dx, dy) in ((0.25, 0.25), (0.5, 0.0625), (0.02, 0.7))]
    cases = [Case('2D array, sample_d trilinear', 'sample_d', sampler(address='mirror'), recs),
             Case('2D array, sample_d anisotropic 8', 'sample_d', sampler(address='wrap', aniso=True, max_aniso=8), recs)]
    compute_trace('array2d', '''# A 2D array of 4 slices and 3 mip levels: sample_d trilinear and anisotropic, the slice rounded
# and clamped. Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 6. 3D: trilinear within a level and across levels.
    tex = random_float_texture('3d', 4, 4, 4, mips=3, seed=17)
    recs = [{'coord': (rng.unit() * 1.4 - 0.2, rng.unit() * 1.4 - 0.2, rng.unit() * 1.4 - 0.2, 0.0),
             'lod': l} for _ in range(12) for l in (0.0, 0.7, 1.5, 2.0)]
    cases = [Case('3D, trilinear, wrap', 'sample_l', sampler(address='wrap'), recs),
             Case('3D, point, border w, _aoffimmi(1, -1, 2)', 'sample_l',
                  sampler(min='point', mag='point', mip='point', address=('clamp', 'mirror', 'border'),
                          border=(0.5, 0, 0, 1)), recs, offset=(1, -1, 2))]
    drecs = [{'coord': (rng.unit(), rng.unit(), rng.unit(), 0.0), 'ddx': (0.1, 0.0, 0.3), 'ddy': (0.0, 0.2, 0.05)}
             for _ in range(16)]
    cases.append(Case('3D, sample_d', 'sample_d', sampler(address='clamp'), drecs))
    compute_trace('volume', '''# A 4x4x4 3D texture with 3 mip levels (the depth shrinks too): sample_l trilinear (8 texels a
# level, 16 across two), point with a w offset and border on w, sample_d with a w derivative.
# Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 7. Cubes: face selection, seams, corners, cube arrays.
    tex = random_float_texture('cube', 4, 4, layers=6, mips=2, seed=18)
    dirs = []
    for f in range(6):
        for (s, t) in [(0.5, 0.5), (0.02, 0.5), (0.98, 0.5), (0.5, 0.01), (0.5, 0.99), (0.01, 0.01),
                       (0.99, 0.02), (0.03, 0.97), (0.985, 0.985), (0.3, 0.7), (1.0, 0.5), (0.0, 0.0)]:
            (ma, ms), (sa, ss), (ta, ts) = m.FACES[f]
            d = [0.0, 0.0, 0.0]
            d[ma] = float(ms)
            d[sa] = (2 * s - 1) * ss
            d[ta] = (2 * t - 1) * ts
            dirs.append(d)
    dirs += [[1.0, 1.0, 0.3], [1.0, 1.0, 1.0], [-2.0, 2.0, -2.0], [0.0, 0.0, 0.0], [0.3, -1.0, 1.0]]
    recs = [{'coord': (d[0], d[1], d[2], 0.0), 'lod': l} for d in dirs for l in (0.0, 0.5)]
    cases = [Case('cube, bilinear and trilinear across seams', 'sample_l', sampler(address='wrap'), recs),
             Case('cube, point', 'sample_l', sampler(min='point', mag='point', mip='point'), recs),
             Case('cube, gather4 red (corners synthesise the mean of three)', 'gather4', sampler(), recs)]
    drecs = [{'coord': (d[0], d[1], d[2], 0.0), 'ddx': (0.05, -0.02, 0.1), 'ddy': (0.0, 0.3, -0.1)} for d in dirs[:40]]
    cases.append(Case('cube, sample_d (derivatives in the face\'s space)', 'sample_d', sampler(), drecs))
    compute_trace('cube', '''# A cube of 4x4 faces and 2 mip levels: directions on every face, near its edges and corners
# (bilinear taps spill onto the adjacent faces; at a corner the missing texel's weight is split
# among the other three), ties between axes (z, then y, then x), the zero vector; point and
# trilinear sample_l, gather4 (a corner's missing texel is the mean of the three), and
# sample_d. Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    tex = random_float_texture('cubearray', 2, 2, layers=12, seed=19)
    recs = [{'coord': (d[0], d[1], d[2], a), 'lod': 0.0} for d in dirs[::3] for a in (0.0, 1.0, 1.5, 5.0)]
    cases = [Case('cube array, bilinear', 'sample_l', sampler(), recs)]
    compute_trace('cubearray', '''# A cube array of 2 cubes of 2x2 faces: the cube index (4th coordinate) rounded and clamped.
# Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 8. Integer and SNORM formats.
    tex = random_float_texture('2d', 4, 4, mips=2, seed=20, fmt='R32_UINT')
    recs = [{'coord': (u, v, 0.0, 0.0), 'lod': l} for (u, v) in coords_2d(rng, 10) for l in (0.0, 0.6, 1.0)]
    cases = [Case('R32_UINT: filters act as point', 'sample_l', sampler(address='wrap'), recs),
             Case('R32_UINT: border colour 7.9 reads 7', 'sample_l', sampler(address='border', border=(7.9, 1.0, 2.0, 3.0)), recs),
             Case('R32_UINT: gather4', 'gather4', sampler(address='wrap'), recs)]
    compute_trace('uint', '''# An R32_UINT texture: sampling an integer format is point sampling (the nearest texel of the
# nearest level, never filtered), its border colour converted as ftou does; gather4 returns
# the integers. Expected values: tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)
    tex = random_float_texture('2d', 4, 4, seed=21, fmt='R8_SNORM')
    recs = [{'coord': (u, v, 0.0, 0.0)} for (u, v) in coords_2d(rng, 32, -0.5, 1.5)]
    cases = [Case('R8_SNORM: border -3 clamps to -1', 'sample_l', sampler(address='border', border=(-3.0, 0, 0, 0)), recs)]
    compute_trace('snorm', '''# An R8_SNORM texture, bilinear, its border colour clamped to [-1, 1]. Expected values:
# tests/dxbc/expect/d3d11_sampling.py.''', tex, cases)

    # 9. Pixel shaders: implicit LOD from the quads' coarse derivatives.
    tex = random_float_texture('2d', 16, 16, mips=5, seed=22)
    f = m.f32

    def affine(ax, bx, cx, ay, by, cy):
        return lambda x, y: (f(ax + bx * (x + 0.5) + cx * (y + 0.5)), f(ay + by * (x + 0.5) + cy * (y + 0.5)))

    zero = lambda x, y: 0.0
    launches = [
        ('sample, magnified (LOD < 0)', 'sample', sampler(address='wrap'), 4, 4, affine(0.1, 1 / 64, 0, 0.2, 0, 1 / 64), zero, zero),
        ('sample, one texel a pixel (LOD 0)', 'sample', sampler(address='wrap'), 4, 4, affine(0.0, 1 / 16, 0, 0.0, 0, 1 / 16), zero, zero),
        ('sample, LOD 1.5 on u', 'sample', sampler(address='mirror'), 6, 4, affine(0.3, 2 ** 1.5 / 16, 0, 0.1, 0, 1 / 32), zero, zero),
        ('sample, rotated footprint, anisotropic 8', 'sample', sampler(address='wrap', aniso=True, max_aniso=8), 6, 6,
         affine(0.05, 0.2, 0.03, 0.4, -0.025, 0.01), zero, zero),
        ('sample, odd rectangle (helpers extrapolate v1)', 'sample', sampler(address='clamp'), 5, 3,
         affine(0.02, 0.09, 0.01, 0.7, 0.005, -0.12), zero, zero),
        ('sample_b, per-pixel bias -2 to 3', 'sample_b', sampler(address='wrap', mip='point'), 4, 4,
         affine(0.0, 0.125, 0, 0.0, 0, 0.125), lambda x, y: f(-2.0 + 0.37 * (x + 4 * y)), zero),
        ('sample_b, bias with min/max LOD clamps', 'sample_b', sampler(address='wrap', min_lod=1.0, max_lod=2.5), 4, 4,
         affine(0.0, 0.125, 0, 0.0, 0, 0.125), lambda x, y: f(-1.0 + 0.25 * (x + 4 * y)), zero),
    ]
    pixel_trace('pixel', '''# Pixel shaders over rectangles of 2x2 quads: `sample` and `sample_b` take the LOD from the
# coarse derivatives of their coordinates (the quad's top row and left column, helpers'
# coordinates extrapolated from the pixels before them), and `lod` returns (clamped, unclamped)
# LOD; magnification, LOD 0, a fractional LOD, an anisotropic footprint, an odd rectangle,
# per-pixel biases with and without clamps. Expected values: tests/dxbc/expect/d3d11_sampling.py,
# the quads' derivatives and helpers by the rules of docs/semantics.md section 33.''', tex, launches)

    tex = random_float_texture('2d', 8, 8, mips=3, seed=23, fmt='R16_UNORM')
    launches = [
        ('sample_c, less_equal, bilinear', 'sample_c', sampler(reduction='comparison', func='less_equal', address='border', border=(0.0, 0, 0, 0)),
         4, 4, affine(-0.1, 0.31, 0.0, -0.05, 0.0, 0.29), zero, lambda x, y: f(0.1 * ((x * 7 + y * 3) % 11))),
        ('sample_c, greater, trilinear', 'sample_c', sampler(reduction='comparison', func='greater', address='wrap'),
         4, 4, affine(0.0, 0.4, 0.0, 0.0, 0.0, 0.4), zero, lambda x, y: f(0.5)),
    ]
    pixel_trace('pixel_compare', '''# sample_c in a pixel shader: percentage-closer filtering with the LOD from the quads'
# derivatives, the reference per pixel quantized to 16 bits. Expected values:
# tests/dxbc/expect/d3d11_sampling.py.''', tex, launches)

    tex = random_float_texture('cube', 8, 8, layers=6, mips=4, seed=24)

    def cube_dir(x, y):
        return (f(1.0), f(-0.9 + 0.3 * (x + 0.5)), f(0.8 - 0.27 * (y + 0.5)))
    launches = [('sample on a cube, crossing from +X onto +Y and -Z', 'sample', sampler(), 6, 6, cube_dir, zero, zero)]
    pixel_trace('pixel_cube', '''# `sample` of a cube in a pixel shader: the LOD from derivatives transformed into the major
# face's space (D3D11.3 section 7.18.11), directions crossing face edges. Expected values:
# tests/dxbc/expect/d3d11_sampling.py.''', tex, launches)


if __name__ == '__main__':
    main()
