#!/usr/bin/env python3
"""Expected results of tests/cubin/spin.cu, gridbar.cu and cg_grid.cu, worked out from what the
CUDA sources say they compute (the comment above each kernel), standard library only. Writes
tests/traces/cubin_tile_reduce.toml, cubin_handoff.toml, cubin_warp_lock.toml,
cubin_grid_sums.toml and cooperative/cubin_cg_grid.toml (run from anywhere:
python3 tests/cubin/expect/spin.py).

None of these results depends on how the warps or CTAs interleave (that is the point of the
kernels: they wait for each other until the data they need is there), only on the arithmetic,
all of it modulo 2^32.
"""
import os

M32 = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        yield x >> 32


def rows(words):
    return ",\n       ".join(
        ", ".join(f"{w & M32:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8))


def table(kind, addr, words, comment):
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + rows(words) + "]\n")


def zeroed(addr, size, comment):
    return f"[[global]]                 # {comment}\naddr = {addr:#x}\nsize = {size:#x}\n"


def params(words, comment):
    return (f"[[const]]                  # parameters: {comment}\nbank = 0\noffset = 0x140\n"
            f"u32 = [{', '.join(f'{w:#x}' for w in words)}]\n")


def launch(cubin, kernel, grid, block, extra=""):
    """A [[launch]] of `kernel` in `cubin` (a path from the trace's directory)."""
    return (f"[[launch]]\ncode_file = \"{cubin}\"\nkernel = \"{kernel}\"\n"
            f"grid = [{grid}]\nblock = [{block}]\n{extra}")


def write(name, text):
    with open(os.path.join(TRACES, name), "w") as f:
        f.write(text)


def header(source, kernel, about):
    return (f"# {kernel} from a real cubin: NVRTC 12.9 compiled tests/cubin/{source}.cu for "
            f"compute_50 (tests/cubin/nvrtc.py),\n# then ptxas 12.9 -arch=sm_50 -O3 "
            f"(tests/cubin/build.sh)\n#\n{about}"
            f"# Expectations: tests/cubin/expect/spin.py, from what the source says it computes."
            f"\n\nformat = \"warpjit-trace/1\"\n\n")


def lo_hi(a):
    return [a & M32, a >> 32]


def tile_reduce():
    ctas, n = 4, 2500
    g = lcg(27)
    data = [next(g) for _ in range(n)]
    out = []
    for c in range(ctas):
        s = 0
        for t in range(256):
            i = c * 256 + t
            while i < n:
                s += data[i]
                i += 256 * ctas
        out.append(s & M32)
    IN, OUT = 0x10000, 0x20000
    text = header("spin", "tile_reduce", (
        "# Four CTAs of 256 threads: out[c] = the sum of in[i] over the i < 2500 that CTA c's\n"
        "# threads visit (c * 256 + t, then in steps of 1024), through a cooperative-groups\n"
        "# reduction over tiles of 128 threads, which wait for each other by spinning on shared\n"
        "# memory (no CTA barrier between the warps of a tile): warp 0 spins until warps 1-3 of\n"
        "# its tile have arrived, so it must let them run (docs/semantics.md §9).\n"))
    text += table("global", IN, data, "in[2500]") + "\n"
    text += zeroed(OUT, 16, "out[4]") + "\n"
    text += params(lo_hi(IN) + lo_hi(OUT) + [n], "in, out, n") + "\n"
    text += launch("../cubin/spin.cubin", "tile_reduce", ctas, 256) + "\n"
    text += table("expect", OUT, out, "out")
    write("cubin_tile_reduce.toml", text)


def handoff():
    ctas, rounds = 3, 8
    out = []
    for c in range(ctas):
        for lane in range(32):
            out.append(sum(r * 1000 + lane + 7 * c for r in range(1, rounds + 1)) & M32)
    OUT = 0x20000
    text = header("spin", "handoff", (
        "# Three CTAs of 64 threads: warp 1 produces 8 boxes of 32 words in shared memory, one\n"
        "# at a time, and warp 0 consumes them, each spinning on a shared flag until the other\n"
        "# has done its part (no barrier between them). out[c * 32 + lane] = the sum over\n"
        "# r = 1..8 of r * 1000 + lane + 7 c.\n"))
    text += zeroed(OUT, 4 * len(out), "out[96]") + "\n"
    text += params(lo_hi(OUT) + [rounds], "out, rounds") + "\n"
    text += launch("../cubin/spin.cubin", "handoff", ctas, 64) + "\n"
    text += table("expect", OUT, out, "out")
    write("cubin_handoff.toml", text)


def warp_lock():
    ctas, warps, iters, delay = 2, 4, 3, 3000
    COUNTERS, MINE = 0x20000, 0x30000
    mine = [iters if w < warps else 0 for c in range(ctas) for w in range(32)]
    text = header("spin", "warp_lock", (
        "# Two CTAs of 128 threads: lane 0 of each warp takes a spin lock in shared memory 3\n"
        "# times (ATOMS.CAS until it gets it) and, holding it, reads its CTA's counter, spends\n"
        "# 3000 iterations of a loop (several quanta: its turn ends with the lock held, and the\n"
        "# other warps spin until it comes back) and writes the value + 1. counters[c] = 4 * 3;\n"
        "# mine[c * 32 + w] = 3 for the 4 warps.\n"))
    text += zeroed(COUNTERS, 8, "counters[2]") + "\n"
    text += zeroed(MINE, 4 * len(mine), "mine[64]") + "\n"
    text += params(lo_hi(COUNTERS) + lo_hi(MINE) + [iters, delay],
                   "counters, mine, iters, delay") + "\n"
    text += launch("../cubin/spin.cubin", "warp_lock", ctas, 128) + "\n"
    text += table("expect", COUNTERS, [warps * iters] * ctas, "counters")
    text += "\n" + table("expect", MINE, mine, "mine")
    write("cubin_warp_lock.toml", text)


def grid_sums():
    n = 6
    g = lcg(91)
    data = [next(g) for _ in range(n * 128)]
    part = [sum(data[c * 128:(c + 1) * 128]) & M32 for c in range(n)]
    s = sum(part) & M32
    total = [s] * n
    nxt = [part[(c + 1) % n] for c in range(n)]
    out = [(nxt[(c + n - 1) % n] + total[(c + 1) % n] + t) & M32
           for c in range(n) for t in range(128)]
    IN, PART, TOTAL, NEXT, OUT, BAR = 0x10000, 0x20000, 0x20100, 0x20200, 0x30000, 0x40000
    text = header("gridbar", "grid_sums", (
        "# A cooperative launch of six CTAs of 128 threads that meet twice at a grid-wide barrier\n"
        "# written by hand in global memory (an arrival counter and a generation word at bar):\n"
        "# each CTA sums its 128 words into part[c]; after the first barrier thread 0 of each CTA\n"
        "# adds every part into total[c] and copies part[(c + 1) % 6] into next[c]; after the\n"
        "# second, out[c * 128 + t] = next[(c + 5) % 6] + total[(c + 1) % 6] + t. The CTAs take\n"
        "# turns on one host thread (docs/semantics.md §9), so CTA 0, spinning at the barrier,\n"
        "# lets the others arrive.\n"))
    text += table("global", IN, data, "in[768]") + "\n"
    text += zeroed(PART, 0x300, "part[6], total[6] at 0x20100, next[6] at 0x20200") + "\n"
    text += zeroed(OUT, 4 * len(out), "out[768]") + "\n"
    text += zeroed(BAR, 8, "bar: arrived, generation") + "\n"
    text += params(lo_hi(IN) + lo_hi(PART) + lo_hi(TOTAL) + lo_hi(NEXT) + lo_hi(OUT)
                   + lo_hi(BAR), "in, part, total, next, out, bar") + "\n"
    text += launch("../cubin/gridbar.cubin", "grid_sums", n, 128, "cooperative = true\n") + "\n"
    text += table("expect", PART, part, "part") + "\n"
    text += table("expect", TOTAL, total, "total") + "\n"
    text += table("expect", NEXT, nxt, "next") + "\n"
    text += table("expect", OUT, out, "out") + "\n"
    text += table("expect", BAR, [0, 2], "bar: every CTA left the second barrier")
    write("cubin_grid_sums.toml", text)


def cg_grid():
    ctas, block = 4, 64
    n = ctas * block
    first = [3 * r + 1 for r in range(n)]
    out = [(first[(r + 1) % n] + first[(r + n - 1) % n]) & M32 for r in range(n)]
    data = [out[(r + 2) % n] for r in range(n)]
    DATA, OUT = 0x10000, 0x20000
    text = header("cg_grid", "cg_grid", (
        "# A cooperative launch of four CTAs of 64 threads (256 in the grid) that meet twice at\n"
        "# cooperative groups' grid.sync(), which finds its workspace in c[0x0][0x34]/[0x38] (the\n"
        "# grid workspace a cooperative launch gets): data[r] = 3 r + 1; sync; out[r] =\n"
        "# data[(r + 1) % 256] + data[(r + 255) % 256]; sync; data[r] = out[(r + 2) % 256].\n"
        "# The kernel uses MEMBAR.GL (__threadfence), so it loads only where warpjit decodes\n"
        "# MEMBAR.GL.IVALLD; tests/scheduling.rs runs it then (and otherwise checks the refusal).\n"))
    text += zeroed(DATA, 4 * n, "data[256]") + "\n"
    text += zeroed(OUT, 4 * n, "out[256]") + "\n"
    text += params(lo_hi(DATA) + lo_hi(OUT), "data, out") + "\n"
    text += launch("../../cubin/cg_grid.cubin", "cg_grid", ctas, block,
                   "cooperative = true\n") + "\n"
    text += table("expect", OUT, out, "out") + "\n"
    text += table("expect", DATA, data, "data")
    os.makedirs(os.path.join(TRACES, "cooperative"), exist_ok=True)
    write(os.path.join("cooperative", "cubin_cg_grid.toml"), text)


if __name__ == "__main__":
    tile_reduce()
    handoff()
    warp_lock()
    grid_sums()
    cg_grid()
