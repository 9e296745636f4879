#!/usr/bin/env python3
"""Writes tests/traces/dxtk_*.toml: real pixel shaders fxc compiled for Microsoft's DirectXTK
(tests/dxbc/README.md says where each came from), run over rectangles of pixels with textures
and samplers, and the outputs an independent model expects: the Direct3D 11 sampling rules of
d3d11_sampling.py, each shader's few arithmetic instructions written out by hand from its
listing with Direct3D's float rules (mul and mad rounded at each step, dp3 a mul and two mads,
denormals flushed), and the quads' coarse derivatives and helper extrapolation of
docs/semantics.md section 33. Nothing here runs warpjit.

Usage: directxtk_sampling.py [OUT_DIR]   (default: tests/traces)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import d3d11_sampling as m  # noqa: E402
import sampling_traces as st  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'tests', 'traces')
F, f32 = m.bits, m.f32


def fmad(a, b, c):
    return m.fadd(m.fmul(a, b), c)


def vec(op, a, b):
    return [op(a[k], b[k]) for k in range(4)]


def floats(bits_list):
    return [m.from_bits(b) for b in bits_list]


class Pixels:
    """A w x h rectangle of pixels, each input register a function of (x, y); per lane (quads,
    helpers extrapolated) the inputs, and derivatives of values computed per lane."""

    def __init__(self, w, h, inputs):
        self.w, self.h = w, h
        self.slots = st.quad_slots(w, h)
        self.pixel_values = {r: [list(f(x, y)) + [0.0] * (4 - len(f(x, y))) for y in range(h) for x in range(w)]
                             for r, f in inputs.items()}
        self.lanes = {}
        for r, vals in self.pixel_values.items():
            self.lanes[r] = [vals[y * w + x] if not hlp else st.helper_value(vals, w, h, x, y)
                             for (x, y, hlp) in self.slots]

    def sample(self, tex, s, coords):
        """`sample` at per-lane coordinates (lists of [u, v]): the result per lane."""
        n = len(self.slots)
        out = []
        for lane in range(n):
            comps = [[coords[l][c] for l in range(n)] for c in range(2)]
            ddx = (m.deriv(comps[0], lane, False, False), m.deriv(comps[1], lane, False, False), 0.0)
            ddy = (m.deriv(comps[0], lane, True, False), m.deriv(comps[1], lane, True, False), 0.0)
            c = coords[lane]
            out.append(floats(m.sample(tex, s, 'grad', [c[0], c[1], 0.0, 0.0], ddx=ddx, ddy=ddy)))
        return out

    def outputs(self, per_lane):
        """Per-lane results in pixel order (invocation y * w + x), as words."""
        res = [None] * (self.w * self.h)
        for lane, (x, y, hlp) in enumerate(self.slots):
            if not hlp:
                res[y * self.w + x] = [F(v) for v in per_lane[lane]]
        return [w for r in res for w in r]


def texture(seed, w, h, mips):
    return st.random_float_texture('2d', w, h, mips=mips, seed=seed, fmt='R8G8B8A8_UNORM')


def write(name, header, parts):
    path = os.path.join(OUT, f'dxtk_{name}.toml')
    with open(path, 'w') as f:
        f.write(header.rstrip() + '\n\nformat = "warpjit-trace/1"\n\n' + ''.join(parts))
    print(path)


def inputs_toml(px):
    out = ''
    for r, vals in px.pixel_values.items():
        out += f'[[launch.input]]\nreg = {r}\nu32 = ' + st.toml_u32([F(v) for p in vals for v in p]) + '\n'
    return out


def launch(code_file, px, outputs, consts=None):
    s = f'[[launch]]\nisa = "dxbc"\ncode_file = "{code_file}"\npixels = [{px.w}, {px.h}]\n'
    s += inputs_toml(px)
    s += '[[launch.expect_output]]\nreg = 0\nu32 = ' + st.toml_u32(outputs) + '\n'
    return s


def consts_toml(bank, words):
    return f'[[const]]\nbank = {bank}\nu32 = ' + st.toml_u32(words) + '\n'


def main():
    rng = st.Rng(31)
    tex = texture(41, 32, 32, 6)
    tex_table = st.texture_table(tex, 0, '32x32 R8G8B8A8_UNORM, 6 mip levels')

    def uv(scale_x, scale_y, skew, ox, oy):
        return lambda x, y: (f32(ox + scale_x * (x + 0.5) + skew * (y + 0.5)),
                             f32(oy + scale_y * (y + 0.5) - skew * (x + 0.5)))

    # --- PSCopy and PSMonochrome: one sample each.
    samplers = [st.sampler(address='wrap'), st.sampler(address='clamp', mip='point'),
                st.sampler(address='mirror', aniso=True, max_aniso=16)]
    mono = [0.2125, 0.7154, 0.0721]
    mono = [f32(x) for x in mono]  # the listing's l(0.212500, 0.715400, 0.072100): container bits
    # The shaders sample through s0: a trace per sampler state.
    for k, s in enumerate(samplers):
        parts = [tex_table, st.sampler_table(0, s)]
        for (w, h, mapping) in [(8, 8, uv(1 / 16, 1 / 16, 0.0, 0.01, 0.02)),
                                (7, 5, uv(0.11, 0.07, 0.03, -0.2, 0.4)),
                                (6, 6, uv(1 / 64, 1 / 40, 0.005, 0.3, 0.3))]:
            px = Pixels(w, h, {1: mapping})
            res = px.sample(tex, s, px.lanes[1])
            parts.append(f'\n# PSCopy over {w}x{h} pixels: o0 = Texture.Sample(Sampler, texCoord).\n')
            parts.append(launch('../dxbc/PostProcess_PSCopy.cso', px, px.outputs(res)))
            # PSMonochrome: the sample swizzled .xwyz, dp3 of (r, g, b) with the weights, then
            # .xxxy: (gray, gray, gray, a).
            mon = []
            for r in res:
                gray = fmad(r[2], mono[2], fmad(r[1], mono[1], m.fmul(r[0], mono[0])))
                mon.append([gray, gray, gray, r[3]])
            parts.append(f'\n# PSMonochrome over {w}x{h} pixels: dot(rgb, (0.2125, 0.7154, 0.0721)), then alpha.\n')
            parts.append(launch('../dxbc/PostProcess_PSMonochrome.asm', px, px.outputs(mon)))
        write(f'postprocess_{k}', f'''# DirectXTK's PostProcess PSCopy (its container) and PSMonochrome (its listing), real fxc
# output (ps_4_0), over rectangles of 2x2 quads (one odd: helpers extrapolate the texture
# coordinates), sampler s0 {['trilinear wrap', 'bilinear clamp with point mips', 'anisotropic 16, mirror'][k]}.
# The LOD comes from the coordinates' coarse derivatives. Expected values:
# tests/dxbc/expect/directxtk_sampling.py (the independent model of d3d11_sampling.py).''', parts)

    # --- PSDownScale2x2 and PSGaussianBlur5x5: loops of samples at offsets from cb0.
    s = st.sampler(address='clamp')
    parts = [tex_table, st.sampler_table(0, s)]
    offsets = [(f32(rng.unit() / 16 - 1 / 32), f32(rng.unit() / 16 - 1 / 32)) for _ in range(16)]
    weights = [[f32(rng.unit() / 4) for _ in range(4)] for _ in range(16)]
    cb = []
    for (ox, oy) in offsets:
        cb += [F(ox), F(oy), 0, 0]
    for wv in weights:
        cb += [F(v) for v in wv]
    parts.append(consts_toml(0, cb))
    for (w, h, mapping) in [(8, 6, uv(1 / 8, 1 / 8, 0.0, 0.0, 0.0)), (5, 5, uv(0.2, 0.13, 0.04, 0.1, 0.6))]:
        px = Pixels(w, h, {1: mapping})
        n = len(px.slots)
        acc = [[0.0] * 4 for _ in range(n)]
        blur = [[0.0] * 4 for _ in range(n)]
        for i in range(13):
            coords = [[m.fadd(px.lanes[1][l][0], offsets[i][0]), m.fadd(px.lanes[1][l][1], offsets[i][1])]
                      for l in range(n)]
            smp = px.sample(tex, s, coords)
            for l in range(n):
                if i < 4:
                    acc[l] = vec(m.fadd, acc[l], smp[l])
                blur[l] = [fmad(weights[i][c], smp[l][c], blur[l][c]) for c in range(4)]
        down = [[m.fmul(v, 0.25) for v in a] for a in acc]
        parts.append(f'\n# PSDownScale2x2 over {w}x{h}: the mean of 4 samples at texCoord + sampleOffsets[i].\n')
        parts.append(launch('../dxbc/PostProcess_PSDownScale2x2.cso', px, px.outputs(down)))
        parts.append(f'\n# PSGaussianBlur5x5 over {w}x{h}: sum of sampleWeights[i] * the sample at texCoord + sampleOffsets[i], 13 taps.\n')
        parts.append(launch('../dxbc/PostProcess_PSGaussianBlur5x5.asm', px, px.outputs(blur)))
    write('postprocess_loops', '''# DirectXTK's PostProcess PSDownScale2x2 and PSGaussianBlur5x5, real fxc output (ps_4_0): loops
# of `sample` at texCoord + cb0[i] (a dynamically indexed constant buffer), summed (add, mad):
# each sample's LOD from the derivatives of its own coordinates. Expected values:
# tests/dxbc/expect/directxtk_sampling.py.''', parts)

    # --- SpriteEffect and DualTextureEffect: level-9 listings (ps_2_0 first), vertex colours.
    tex1 = texture(42, 16, 8, 4)
    s0 = st.sampler(address='wrap')
    s1 = st.sampler(address='mirror', min='point', mag='linear', mip='point')
    parts = [tex_table, st.texture_table(tex1, 1, '16x8 R8G8B8A8_UNORM, 4 mip levels'),
             st.sampler_table(0, s0), st.sampler_table(1, s1)]
    fog = [f32(0.1), f32(0.2), f32(0.3), 0.0]
    parts.append(consts_toml(0, [0] * 4 + [F(v) for v in fog]))
    color = lambda x, y: (f32(0.25 + 0.0625 * x), f32(1.0 - 0.03125 * y), f32(0.5), f32(0.75 + 0.015625 * (x - y)))
    for (w, h, mapping) in [(6, 4, uv(0.09, 0.1, 0.0, 0.0, 0.0)), (3, 3, uv(0.3, 0.27, 0.05, 0.2, 0.1))]:
        px = Pixels(w, h, {0: color, 1: mapping})
        smp = px.sample(tex, s0, [p[:2] for p in px.lanes[1]])
        sprite = [vec(m.fmul, smp[l], px.lanes[0][l]) for l in range(len(px.slots))]
        parts.append(f'\n# SpritePixelShader over {w}x{h}: Texture.Sample(texCoord) * color.\n')
        parts.append(launch('../dxbc/SpriteEffect_SpritePixelShader.asm', px, px.outputs(sprite)))
        # DualTexture: v0 colour, v1.w fog factor, v2.xy and v2.zw the two texture coordinates.
        second = lambda x, y, mp=mapping: (mp(x, y)[0], mp(x, y)[1], f32(mp(x, y)[1] * 2 - 0.3), f32(0.7 - mp(x, y)[0]))
        fogf = lambda x, y: (0.0, 0.0, 0.0, f32(0.125 * ((x + 2 * y) % 9)))
        px = Pixels(w, h, {0: color, 1: fogf, 2: second})
        n = len(px.slots)
        over = px.sample(tex1, s1, [px.lanes[2][l][2:4] for l in range(n)])
        base = px.sample(tex, s0, [px.lanes[2][l][0:2] for l in range(n)])
        out = []
        for l in range(n):
            r0 = vec(m.fmul, over[l], px.lanes[0][l])
            r1 = vec(m.fmul, base[l], [2.0, 2.0, 2.0, 1.0])
            r0 = vec(m.fmul, r0, r1)
            r1 = [fmad(fog[c], r0[3], -r0[c]) for c in range(3)]
            o = [fmad(px.lanes[1][l][3], r1[c], r0[c]) for c in range(3)] + [r0[3]]
            out.append(o)
        parts.append(f'\n# PSDualTexture over {w}x{h}: (texture * 2) * (overlay * colour), fogged towards cb0[1].\n')
        parts.append(launch('../dxbc/DualTextureEffect_PSDualTexture.cso', px, px.outputs(out)))
    write('effects', '''# DirectXTK's SpriteEffect SpritePixelShader (its listing, which fxc prints with the level-9
# ps_2_0 program first) and DualTextureEffect PSDualTexture (its container): real fxc output
# (ps_4_0_level_9_1), two textures through two samplers (trilinear wrap; point min and mips,
# linear mag, mirror), vertex colours and fog, over rectangles of 2x2 quads. Expected values:
# tests/dxbc/expect/directxtk_sampling.py.''', parts)


if __name__ == '__main__':
    main()
