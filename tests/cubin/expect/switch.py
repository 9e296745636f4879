#!/usr/bin/env python3
"""Expected results of tests/cubin/switch.cu (CUDA C++, compiled by NVRTC 12.9 and ptxas 12.9:
ptxas turns its switch statements into BRX and jump tables in .nv.constant2) and
tests/cubin/brxidx.ptx (PTX `brx.idx`), worked out from the C++ and PTX definitions, standard
library only. Writes tests/traces/cubin_switch_*.toml (run from anywhere:
python3 tests/cubin/expect/switch.py).

`int` and `unsigned` arithmetic is modulo 2^32 here (no kernel relies on signed overflow), and
`>>` of a non-negative `int` is a plain shift.
"""
import os

M32 = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")
IN, OUT = 0x10000, 0x20000


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w & M32:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


def trace(name, kernel, title, inputs, outputs, block, grid=1, extra=""):
    text = f"""# {kernel} from a real cubin: NVRTC 12.9 and ptxas 12.9 -arch=sm_50 -O3 compiled
# tests/cubin/{"brxidx.ptx" if kernel == "brx16" else "switch.cu"}; ptxas writes its switch as BRX with jump tables in .nv.constant2.
#
{title}
# Expectations: tests/cubin/expect/switch.py, from the source's definitions.

format = "warpjit-trace/1"

{table("global", IN, inputs, f"in[{len(inputs)}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {4 * len(outputs)}

[[const]]                  # parameters: in, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/{"brxidx" if kernel == "brx16" else "switch"}.cubin"
kernel = "{kernel}"
grid = [{grid}]
block = [{block}]
{extra}
{table("expect", OUT, outputs, "out")}"""
    with open(os.path.join(TRACES, name), "w") as f:
        f.write(text)


def u(x):
    return x & M32


# sw8: a dense switch of 8 cases and a default. 64 threads; in[t] runs over -2 .. 9, so every
# case and the default (below and above the cases) occur in each warp.
def sw8(t, x):
    return u({0: t * 3 + 1, 1: t ^ 0x5A, 2: t * t, 3: 1000 - t, 4: t << 4, 5: (t >> 1) + 77,
              6: t * 7 - 3, 7: ~t}.get(x, -1))


ins = [(t * 7) % 12 - 2 for t in range(64)]
trace("cubin_switch_sw8.toml", "sw8",
      "# out[t] = case in[t] of eight expressions of t, -1 by default; in[t] = (7 t) % 12 - 2,\n"
      "# so each warp's lanes take every case and the default.",
      ins, [sw8(t, x) for t, x in enumerate(ins)], 64)


# sw32: 32 cases with two fall-throughs (0 into 1, 11 into 12); the default returns x itself.
P = [None, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
     101, 103, 107, 109, 113, 127, 131, 137, 139, 149]


def sw32(t, x):
    r = 0
    if x == 0:
        r = t + 11 * t          # case 0 falls into case 1
    elif x == 1:
        r = 11 * t
    elif x == 11:
        r = t * 47 + 11
        r += t * 53 + 12        # falls into case 12
    elif x == 12:
        r = t * 53 + 12
    elif 2 <= x <= 31:
        r = t * P[x] + x
    else:
        r = x
    return u(r)


ins = [(t * 13) % 40 - 4 for t in range(96)]
trace("cubin_switch_sw32.toml", "sw32",
      "# out[t] = case in[t] of 32 cases (t * p + k, two falling through), in[t] by default;\n"
      "# in[t] = (13 t) % 40 - 4 over three warps.",
      ins, [sw32(t, x) for t, x in enumerate(ins)], 96)


# swloop: v = t; for i < t % 5 + 3: switch (in[(t + i) & 63]) updates v (unsigned).
def swloop(t, ins):
    v = t
    for i in range(t % 5 + 3):
        k = ins[(t + i) & 63]
        if k == 0:
            v = v * 3 + 1
        elif k == 1:
            v = v ^ (v >> 3)
        elif k == 2:
            v = v + 0x1234
        elif k == 3:
            v = v * 5
        elif k == 4:
            v = ((v << 2) | (v >> 30))
        elif k == 5:
            v = v - 7
        else:
            v = v + i
        v = u(v)
    return v


ins = [(t * 5 + t // 7) % 8 - 1 for t in range(64)]
trace("cubin_switch_swloop.toml", "swloop",
      "# A switch in a loop: v = t, then t % 5 + 3 times v = case in[(t + i) & 63] of six\n"
      "# updates (v + i by default); out[t] = v. Lanes leave the loop at different counts.",
      ins, [swloop(t, ins) for t in range(64)], 64)


# swdiv: odd lanes switch (cases 2 and 6 store -2 / -6 and return), even lanes r = 2 x.
def swdiv(t, x):
    if t & 1:
        if x == 2:
            return u(-2)
        if x == 6:
            return u(-6)
        r = {0: t + 100, 1: t * 9, 3: t ^ 0xFF, 4: t - 50, 5: t * t + 1}.get(x, 4242)
        return u(r + 1)
    return u(x * 2)


ins = [(t * 3) % 10 - 1 for t in range(40)]
trace("cubin_switch_swdiv.toml", "swdiv",
      "# A switch inside divergent code: odd threads take case in[t] (two cases store and\n"
      "# return), even threads out[t] = 2 in[t]. 40 threads: a full warp and a partial one.",
      ins, [swdiv(t, x) for t, x in enumerate(ins)], 40)


# swcall: out[t] = pick(in[t], t) + pick(in[t] + 1, t), pick a switch in a called function.
def pick(x, t):
    return {0: t + 1, 1: t * 2, 2: t * t, 3: t ^ 0x33, 4: 500 - t, 5: t * 11,
            6: t >> 2}.get(x, -t)


ins = [(t * 11) % 10 - 2 for t in range(64)]
trace("cubin_switch_swcall.toml", "swcall",
      "# A switch in a device function ptxas keeps as a subroutine (CAL/RET), called twice:\n"
      "# out[t] = pick(in[t], t) + pick(in[t] + 1, t).",
      ins, [u(pick(x, t) + pick(x + 1, t)) for t, x in enumerate(ins)], 64)


# brx16: r = f_k(t) for k = in[t] & 15, then (t & 3) + 1 times r = g_((ctaid + j) & 3)(r).
def brx16(t, k):
    f = [t + 1000, t * t, t ^ 0x5555, 77 - t, t << 5, t >> 1, t * 12345, ~t, t | 0x100, t & 6,
         t + t, 0xDEAD, t * 3 + 9, -t, bin(t).count("1"), int(f"{t:032b}"[::-1], 2)]
    return u(f[k])


def brx16_out(ctaid, t, k):
    r = brx16(t, k)
    for j in range((t & 3) + 1):
        i = (ctaid + j) & 3
        r = u([r + 1, r * 3, r ^ 0xF0F0, r << 1][i])
    return r


ins = [(t * 5 + (t >> 4)) & 0xFF for t in range(64)]
outs = [brx16_out(c, t, ins[t] & 15) for c in range(3) for t in range(64)]
trace("cubin_switch_brx16.toml", "brx16",
      "# brx.idx over 16 targets (a warp's lanes take all sixteen), then a uniform brx.idx in a\n"
      "# loop of (t & 3) + 1 iterations whose index is (ctaid.x + j) & 3. Three CTAs of 64.",
      ins, outs, 64, grid=3)


# The listing `warpjit disasm tests/cubin/switch.cubin --kernel sw8` prints
# (tests/traces/kernels/switch_sw8.sass), pasted into a trace: its BRX read their jump tables
# from constant bank 2, which the trace now gives ([[const]] bank 2, the words of the cubin's
# .nv.constant2.sw8, read here from the ELF file).
def section(path, name):
    import struct
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    for h in heads:
        n = data[names + h[0]:data.index(b"\0", names + h[0])].decode()
        if n == name:
            return data[h[4]:h[4] + h[5]]
    raise SystemExit(f"{path}: no section {name}")


bank2 = section(os.path.join(HERE, "..", "switch.cubin"), ".nv.constant2.sw8")
words = [int.from_bytes(bank2[i:i + 4], "little") for i in range(0, len(bank2), 4)]
ins = [(t * 7) % 12 - 2 for t in range(64)]
text = f"""# sw8's listing, as `warpjit disasm tests/cubin/switch.cubin --kernel sw8` prints it
# (kernels/switch_sw8.sass: each BRX with its targets in nvdisasm's note
# (*"BRANCH_TARGETS ..."*)), run as text: the jump tables its LDCs read come from constant bank
# 2, given here as the cubin's .nv.constant2.sw8 holds them. The same inputs and outputs as
# cubin_switch_sw8.toml. Expectations: tests/cubin/expect/switch.py.

format = "warpjit-trace/1"

{table("global", IN, ins, f"in[{len(ins)}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = 256

[[const]]                  # parameters: in, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[const]]                  # the jump tables (.nv.constant2.sw8)
bank = 2
offset = 0
u32 = [{", ".join(f"{w:#x}" for w in words)}]

[[launch]]
code_file = "kernels/switch_sw8.sass"
block = [64]

{table("expect", OUT, [sw8(t, x) for t, x in enumerate(ins)], "out")}"""
with open(os.path.join(TRACES, "switch_listing.toml"), "w") as f:
    f.write(text)
