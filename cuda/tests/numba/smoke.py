"""Numba smoke test: a few @cuda.jit programs run under warpjit's CUDA driver and compared with
numpy. Run as `warpjit cuda -- python cuda/tests/numba/smoke.py` (CI does when it can install
Numba: cuda/scripts/numba_env.sh). Prints one line per check and `numba smoke: ok` at the end;
exits 1 on the first mismatch."""
import math
import sys

import numpy as np
from numba import cuda


def check(name, got, want):
    ok = np.allclose(got, want, rtol=1e-6, atol=1e-6)
    print(f"{name}: {'ok' if ok else 'MISMATCH'}")
    if not ok:
        print("  got ", got)
        print("  want", want)
        sys.exit(1)


dev = cuda.get_current_device()
print(f"device: {dev.name.decode() if isinstance(dev.name, bytes) else dev.name}, cc {dev.compute_capability}")
if dev.compute_capability != (5, 2):
    sys.exit("not warpjit's device: run under `warpjit cuda --`")


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


n = 1000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
out = np.zeros(n, dtype=np.float32)
axpy[(n + 127) // 128, 128](np.float32(2.5), x, y, out)
check("axpy", out, 2.5 * x + y)


@cuda.jit
def block_sums(data, sums):
    buf = cuda.shared.array(128, dtype=np.int32)
    t = cuda.threadIdx.x
    buf[t] = data[cuda.grid(1)]
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = buf[0]


d = np.arange(128 * 8, dtype=np.int32)
sums = np.zeros(8, dtype=np.int32)
block_sums[8, 128](d, sums)
check("shared-memory reduction", sums, d.reshape(8, 128).sum(axis=1))


@cuda.jit
def histogram(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


vals = (np.arange(5000, dtype=np.int64) * 7919) % 1000
bins = np.zeros(16, dtype=np.int32)
histogram[40, 128](vals, bins)
check("atomics", bins, np.bincount(vals % 16, minlength=16))


@cuda.jit
def math_fns(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i])


xs = np.linspace(0.0, 4.0, 300)
res = np.zeros_like(xs)
math_fns[3, 128](xs, res)
check("math functions (float64)", res, np.sin(xs) * np.exp(-xs) + np.sqrt(xs))


@cuda.reduce
def total(a, b):
    return a + b


big = np.arange(100000, dtype=np.float64)
check("cuda.reduce", total(big), big.sum())

stream = cuda.stream()
start, end = cuda.event(), cuda.event()
start.record(stream)
dx = cuda.to_device(x, stream=stream)
dout = cuda.device_array_like(x, stream=stream)
axpy[8, 128, stream](np.float32(-1.0), dx, dx, dout)
end.record(stream)
end.synchronize()
check("streams and events", dout.copy_to_host(stream=stream), np.zeros(n, dtype=np.float32))
print(f"event time: {cuda.event_elapsed_time(start, end) >= 0}")

managed = cuda.managed_array(64, dtype=np.int32)
managed[:] = np.arange(64)


@cuda.jit
def twice(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2


twice[1, 64](managed)
cuda.synchronize()
check("managed memory", np.array(managed), np.arange(64) * 2)
print("numba smoke: ok")
