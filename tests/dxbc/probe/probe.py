#!/usr/bin/env python3
"""Runs real fxc listings through `warpjit run --engine both` with generic bindings, to count
how many load, run and agree between the engines, and why the others are refused.

For each shader model 4/5 listing in SRC_DIR (a shader: effects files are skipped), a trace is
written that binds every declared resource (textures of the declared dimension, 8 texels a
side with their full mip chains, R8G8B8A8_UNORM or R32_UINT by the return type; buffers of 64
elements; samplers matching their declared mode: trilinear wrapping, or a comparison filter
with less_equal), fills the declared constant buffers with small numbers, and runs the stage
(a compute shader 2 thread groups; a pixel shader over 8x8 pixels in quads; a vertex or
geometry shader 64 invocations) with every declared input varying per invocation. No
expectation: a run that does not fault and on which both engines agree passes. A launch may issue
2^24 warp instructions (a shader looping on its generic inputs faults with the budget).

Usage: probe.py WARPJIT SRC_DIR OUT_DIR   (prints one line per listing, then the counts)

The listings the counts in tests/dxbc/probe/README.md come from: spacehamster/DXDecompiler at
65015954c722d1539d5450534c7760e5ae47d2b1 (every `*.asm`, MIT) and the prebuilt headers
`Src/Shaders/Compiled/*.inc` of microsoft/DirectXTK, each at the last commit that had it
(split with tests/dxbc/extract_inc.py, MIT).
"""
import os
import re
import subprocess
import sys

VERSION = re.compile(r'^\s*(ps|vs|gs|hs|ds|cs)_([45])_([01])\s*$', re.M)


def listing_of(text):
    """The shader model 4/5 program of a listing (fxc prints a level-9 program first for
    *_4_0_level_9_x targets; warpjit skips it itself, so the whole text is kept)."""
    m = VERSION.search(text)
    return m.group(1) if m else None


def decls(text):
    out = []
    for line in text.splitlines():
        line = line.split('//')[0].strip()
        if line.startswith('dcl_'):
            out.append(line)
    return out


def samples(text):
    return bool(re.search(r'^\s*(sample|gather4|lod\b|deriv_)', text, re.M))


def trace_for(name, text, stage):
    # A launch may issue 2^24 warp instructions: a shader looping on its generic inputs faults
    # (exit 3) soon instead of running through the default budget.
    parts = ['format = "warpjit-trace/1"\n[machine]\nlaunch_budget = 16777216\n']
    ds = decls(text)
    inputs = set()
    cbs = {}
    for d in ds:
        m = re.match(r'dcl_resource_(texture\w+?)(?:\((\d+)\))?\s+\(([^)]*)\)\s+t(\d+)', d)
        if m:
            dim, ms, rtype, slot = m.group(1), m.group(2), m.group(3), int(m.group(4))
            fmt = 'R32_UINT' if ('uint' in rtype or 'sint' in rtype) else 'R8G8B8A8_UNORM'
            if fmt == 'R32_UINT' and 'sint' in rtype:
                fmt = 'R32_SINT'
            parts.append(texture(slot, dim, fmt, ms, 'srv'))
            continue
        m = re.match(r'dcl_resource_buffer\s+\(([^)]*)\)\s+t(\d+)', d)
        if m:
            fmt = 'R32_UINT' if 'int' in m.group(1) else 'R32G32B32A32_FLOAT'
            parts.append(f'[[buffer]]\nslot = {m.group(2)}\nview = "srv"\nformat = "{fmt}"\nsize = {64 * (4 if fmt == "R32_UINT" else 16)}\n')
            continue
        m = re.match(r'dcl_resource_structured\s+t(\d+),\s*(\d+)', d)
        if m:
            parts.append(f'[[buffer]]\nslot = {m.group(1)}\nview = "srv"\nstride = {m.group(2)}\nsize = {64 * int(m.group(2))}\n')
            continue
        m = re.match(r'dcl_resource_raw\s+t(\d+)', d)
        if m:
            parts.append(f'[[buffer]]\nslot = {m.group(1)}\nview = "srv"\nsize = 1024\n')
            continue
        m = re.match(r'dcl_uav_structured\w*\s+u(\d+),\s*(\d+)', d)
        if m:
            parts.append(f'[[buffer]]\nslot = {m.group(1)}\nstride = {m.group(2)}\nsize = {256 * int(m.group(2))}\n')
            continue
        m = re.match(r'dcl_uav_raw\w*\s+u(\d+)', d)
        if m:
            parts.append(f'[[buffer]]\nslot = {m.group(1)}\nsize = 4096\n')
            continue
        m = re.match(r'dcl_uav_typed_(\w+?)(?:_glc)?\s+\(([^)]*)\)\s+u(\d+)', d)
        if m:
            dim, rtype, slot = m.group(1), m.group(2), int(m.group(3))
            fmt = 'R32_UINT' if 'int' in rtype else 'R32G32B32A32_FLOAT'
            if dim == 'buffer':
                parts.append(f'[[buffer]]\nslot = {slot}\nformat = "{fmt}"\nsize = {256 * (4 if fmt == "R32_UINT" else 16)}\n')
            else:
                parts.append(texture(slot, dim, fmt, None, 'uav'))
            continue
        m = re.match(r'dcl_sampler\s+s(\d+),\s*mode_(\w+)', d)
        if m:
            if m.group(2) == 'comparison':
                parts.append(f'[[sampler]]\nslot = {m.group(1)}\nfilter = "COMPARISON_MIN_MAG_LINEAR_MIP_POINT"\ncomparison_func = "less_equal"\n')
            else:
                parts.append(f'[[sampler]]\nslot = {m.group(1)}\nfilter = "MIN_MAG_MIP_LINEAR"\naddress = "wrap"\n')
            continue
        m = re.match(r'dcl_constantbuffer\s+[cC][bB](\d+)\[(\d+)\]', d)
        if m:
            cbs[int(m.group(1))] = int(m.group(2))
            continue
        m = re.match(r'dcl_input(?:_ps)?(?:_s[gi]v)?\s+(?:[a-z ]+\s+)?v(\d+)', d)
        if m:
            inputs.add(int(m.group(1)))
    for slot, n in cbs.items():
        n = max(1, min(n, 4096))
        words = ', '.join(str((0.05 * ((i * 7) % 20)) + 0.1) for i in range(4 * n))
        parts.append(f'[[const]]\nbank = {slot}\nf32 = [{words}]\n')
    code = name
    launch = f'[[launch]]\nisa = "dxbc"\ncode_file = "{code}"\n'
    if stage == 'ps':
        launch += 'pixels = [8, 8]\n'
        count = 64
    elif stage in ('vs', 'gs'):
        launch += 'invocations = 64\n'
        count = 64
    elif stage == 'cs':
        launch += 'grid = [2, 1, 1]\n'
        count = 0
    else:
        count = 0
    parts.append(launch)
    if stage in ('ps', 'vs'):
        for r in sorted(inputs):
            vals = []
            for i in range(count):
                x, y = i % 8, i // 8
                vals += [(x + 0.5) / 8, (y + 0.5) / 8, 0.25 + 0.01 * r, 1.0]
            parts.append(f'[[launch.input]]\nreg = {r}\nf32 = [{", ".join(repr(v) for v in vals)}]\n')
    return '\n'.join(parts)


def texture(slot, dim, fmt, ms, view):
    dims = {
        'texture1d': ('1d', None), 'texture1darray': ('1darray', None), 'texture2d': ('2d', None),
        'texture2darray': ('2darray', None), 'texture2dms': ('2dms', None),
        'texture2dmsarray': ('2dmsarray', None), 'texture3d': ('3d', None),
        'texturecube': ('cube', None), 'texturecubearray': ('cubearray', None),
    }
    d = dims[dim][0]
    keys = [f'slot = {slot}', f'view = "{view}"', f'dim = "{d}"', f'format = "{fmt}"', 'width = 8']
    if d not in ('1d', '1darray', 'cube', 'cubearray'):
        keys.append('height = 8')
    if d == '3d':
        keys.append('depth = 8')
    if d in ('1darray', '2darray', '2dmsarray', 'cubearray'):
        keys.append('array_size = 2')
    if d in ('2dms', '2dmsarray'):
        n = int(ms) if ms and int(ms) > 0 else 4
        if n & (n - 1):
            # A sample count a trace cannot give (fxc accepts Texture2DMS<float4, 3>): unbound.
            return ''
        keys.append(f'samples = {n}')
    elif view == 'srv':
        keys.append('mip_levels = 0')
    # Texel bytes: a pattern, so that sampled values and what depends on them vary.
    size = {'1d': 8 + 4 + 2 + 1, '1darray': 2 * 15, '2d': 64 + 16 + 4 + 1,
            '2darray': 2 * 85, '3d': 512 + 64 + 8 + 1, 'cube': 6 * 85, 'cubearray': 12 * 85,
            '2dms': 64 * 4, '2dmsarray': 128 * 4}[d]
    if view == 'uav':
        size = {'1d': 8, '1darray': 16, '2d': 64, '2darray': 128, '3d': 512}.get(d, 64)
    if d in ('2dms', '2dmsarray'):
        size = size // 4 * int(keys[-1].split('=')[1])
    nbytes = size * (16 if fmt == 'R32G32B32A32_FLOAT' else 4)
    keys.append('u8 = [' + ', '.join(str((i * 37 + 11) % 256) for i in range(nbytes)) + ']')
    return '[[texture]]\n' + '\n'.join(keys) + '\n'


def main():
    warpjit, src, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    rows = []
    for name in sorted(os.listdir(src)):
        text = open(os.path.join(src, name), encoding='latin-1').read()
        if re.search(r'^\s*fx_', text, re.M) or '// FX Version' in text:
            continue
        stage = listing_of(text)
        if stage is None:
            continue
        listing = os.path.join(out, name)
        with open(listing, 'w', encoding='latin-1') as f:
            f.write(text)
        trace = os.path.join(out, name + '.toml')
        with open(trace, 'w') as f:
            f.write(trace_for(os.path.abspath(listing), text, stage))
        try:
            r = subprocess.run([warpjit, 'run', trace, '--engine', 'both', '--quiet'],
                               capture_output=True, text=True, timeout=120)
            code, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired:
            code, err = 'timeout', ''
        first = next((l for l in err.splitlines() if 'error' in l or 'fault' in l or 'disagree' in l), '')
        why = first.split('error: ', 1)[-1] if 'error: ' in first else first
        rows.append((name, stage, samples(text), code, why[:160]))
        print(f'{name}\t{stage}\tsamples={samples(text)}\texit={code}\t{why[:160]}', flush=True)
    total = len(rows)
    sampling = [r for r in rows if r[2]]
    def count(rs, code):
        return sum(1 for r in rs if r[3] == code)
    print(f'\n{total} shader listings: {count(rows, 0)} run and agree, {count(rows, 2)} refused at load, '
          f'{count(rows, 3)} fault, {count(rows, 4)} engines disagree, {count(rows, "timeout")} time out')
    print(f'{len(sampling)} sample or take derivatives ({sum(1 for r in sampling if r[1] == "cs")} compute): '
          f'{count(sampling, 0)} run and agree, {count(sampling, 2)} refused, {count(sampling, 3)} fault, '
          f'{count(sampling, 4)} disagree')
    reasons = {}
    for r in rows:
        if r[3] != 0:
            key = re.sub(r'\b[a-z]+\d+\b', '#', r[4])
            reasons.setdefault((r[3], key), []).append(r[0])
    for (code, why), names in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f'  exit {code} x{len(names)}: {why}  (e.g. {names[0]})')


if __name__ == '__main__':
    main()
