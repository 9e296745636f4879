#!/usr/bin/env python3
"""What `warpjit run --check` costs, per tool, on the benchmark kernels (standard library only).

Usage: benches/check_cost.py [--warpjit target/release/warpjit] [--lane-instructions N]
                             [--reps R] [--threads T] [--dir DIR]

Writes the workloads into DIR (default: a temporary directory):
  - the five built-in kernels of `warpjit bench` as `warpjit gen-trace` traces of about N
    lane-instructions each (default 2e7): stream, gather, const_table, addr128, loop (global
    memory only); their output segment is marked `uninitialized = true`, so that initcheck
    follows every byte they write (the results are the same);
  - reduce: tests/cubin/reduce.cubin (a shared-memory tree reduction with a barrier per step)
    over 4096 blocks of 256 threads;
  - bitonic: fxc's ComputeShaderSort11 BitonicSort (tests/dxbc, g# with sync_g_t) over 256
    groups of 512 threads;
  - the DXBC workloads of `warpjit bench`: benches/traces/dxbc_gather.toml, dxbc_msaa_resolve.toml.
Then runs each with the JIT and the interpreter without --check and with each tool alone
(`--check=memcheck`, ...), `--check=ub` (the events alone: the interpreter with an observer
and no tool but the cheap `ub` findings) and `--check` (all), R times each (default 3) on T host
threads (default 1), and prints a table of the median launch seconds (warpjit's summary line)
and the slowdowns against the interpreter and the JIT. Timings are wall time: on a shared
machine they are noisy, so the medians of several runs are taken.
"""
import argparse
import os
import pathlib
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
KINDS = ["stream", "gather", "const_table", "addr128", "loop"]
CONFIGS = [
    ("jit", ["--engine", "jit"]),
    ("interp", ["--engine", "interp"]),
    ("memcheck", ["--engine", "interp", "--check=memcheck"]),
    ("racecheck", ["--engine", "interp", "--check=racecheck"]),
    ("initcheck", ["--engine", "interp", "--check=initcheck"]),
    ("synccheck", ["--engine", "interp", "--check=synccheck"]),
    ("events", ["--engine", "interp", "--check=ub"]),
    ("all", ["--engine", "interp", "--check"]),
]


def gen_kernels(warpjit, d, n):
    paths = []
    for k in KINDS:
        subprocess.run([warpjit, "gen-trace", k, "--lane-instructions", str(n), "-o", str(d)],
                       check=True, capture_output=True)
        p = d / f"{k}.toml"
        text = p.read_text()
        # The output segment: defined by the kernel's writes only.
        text, hits = re.subn(r"(\[\[global\]\]\s+# out\n(?:[^\n]*\n)*?size = \d+\n)",
                             r"\1uninitialized = true\n", text, count=1)
        assert hits == 1, k
        p.write_text(text)
        paths.append((k, p))
    return paths


def gen_reduce(d, ctas=4096):
    rnd = random.Random(30)
    words = [rnd.randrange(1 << 32) for _ in range(256 * ctas)]
    (d / "reduce.in.bin").write_bytes(struct.pack(f"<{len(words)}I", *words))
    sums = [sum(words[256 * b:256 * b + 256]) & 0xffffffff for b in range(ctas)]
    (d / "reduce.out.bin").write_bytes(struct.pack(f"<{ctas}I", *sums))
    cubin = ROOT / "tests/cubin/reduce.cubin"
    p = d / "reduce.toml"
    p.write_text(f"""format = "warpjit-trace/1"

[[global]]
addr = 0x100000000
file = "reduce.in.bin"

[[global]]
addr = 0x200000000
size = {4 * ctas}

[[const]]
bank = 0
offset = 0x140
u32 = [0x0, 0x1, 0x0, 0x2]

[[launch]]
code_file = "{cubin}"
grid = [{ctas}]
block = [256]

[[expect]]
addr = 0x200000000
file = "reduce.out.bin"
""")
    return p


def gen_bitonic(d, groups=256):
    rnd = random.Random(30)
    words = [rnd.randrange(1 << 20) for _ in range(512 * groups)]
    (d / "bitonic.in.bin").write_bytes(struct.pack(f"<{len(words)}I", *words))
    cso = ROOT / "tests/dxbc/ComputeShaderSort11_BitonicSort.cso"
    p = d / "bitonic.toml"
    p.write_text(f"""format = "warpjit-trace/1"

[[const]]
bank = 0
u32 = [512, 512, 0, 0]

[[buffer]]
slot = 0
view = "uav"
stride = 4
file = "bitonic.in.bin"

[[launch]]
isa = "dxbc"
code_file = "{cso}"
grid = [{groups}]
""")
    return p


def seconds(warpjit, trace, args, threads):
    # The workloads name kernels elsewhere in the repository (tests/cubin, tests/dxbc, examples).
    r = subprocess.run([warpjit, "run", str(trace), "--quiet", "--threads", str(threads),
                        "--allow-path", str(ROOT)] + args,
                       capture_output=True, text=True)
    if r.returncode not in (0,):
        sys.exit(f"{trace} {args}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    m = re.search(r"lane-instructions, ([0-9.]+) s,", r.stdout)
    if not m:
        sys.exit(f"{trace} {args}: no summary line\n{r.stdout}")
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpjit", default=str(ROOT / "target/release/warpjit"))
    ap.add_argument("--lane-instructions", type=int, default=20_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dir")
    a = ap.parse_args()
    d = pathlib.Path(a.dir or tempfile.mkdtemp(prefix="check_cost."))
    d.mkdir(parents=True, exist_ok=True)
    work = gen_kernels(a.warpjit, d, a.lane_instructions)
    work.append(("reduce", gen_reduce(d)))
    work.append(("bitonic", gen_bitonic(d)))
    for k in ["dxbc_gather", "dxbc_msaa_resolve"]:
        work.append((k, ROOT / "benches/traces" / f"{k}.toml"))
    print(f"median launch seconds of {a.reps} runs on {a.threads} host thread(s), "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the start")
    head = ["workload"] + [c for c, _ in CONFIGS]
    rows = []
    for name, trace in work:
        t = {}
        for c, args in CONFIGS:
            t[c] = statistics.median(seconds(a.warpjit, trace, args, a.threads)
                                     for _ in range(a.reps))
        rows.append((name, t))
        print(name, " ".join(f"{c}={t[c]:.4f}" for c, _ in CONFIGS), flush=True)
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, t in rows:
        cells = [f"{t['jit']:.3f} s", f"{t['interp']:.3f} s"]
        for c, _ in CONFIGS[2:]:
            cells.append(f"{t[c] / t['interp']:.2f}x ({t[c] / t['jit']:.0f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print("cells: slowdown against the interpreter without --check (in parentheses: against "
          "the JIT without --check)")


if __name__ == "__main__":
    main()
