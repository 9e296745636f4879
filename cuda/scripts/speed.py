"""Times a few Numba programs (compiled once, then the median of several calls) and, on a real
driver, warpjit's per-launch overhead: a launch of an empty kernel, and cuMemcpy of 1 MiB each
way. Prints one JSON object. speed.sh runs it under warpjit's driver and under Numba's own
simulator (NUMBA_ENABLE_CUDASIM=1) and prints the ratio."""
import json
import os
import statistics
import time

import numpy as np
from numba import cuda

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def timed(f, reps):
    f()  # compile and warm up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def block_sums(data, sums):
    buf = cuda.shared.array(256, dtype=np.float32)
    t = cuda.threadIdx.x
    buf[t] = data[cuda.grid(1)]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = buf[0]


@cuda.jit
def matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@cuda.jit
def empty():
    pass


n = 1 << 14
x = cuda.to_device(np.arange(n, dtype=np.float32))
y = cuda.to_device(np.ones(n, dtype=np.float32))
out = cuda.device_array(n, dtype=np.float32)
sums = cuda.device_array(n // 256, dtype=np.float32)
m = 48
a = cuda.to_device(np.random.default_rng(1).random((m, m)))
b = cuda.to_device(np.random.default_rng(2).random((m, m)))
c = cuda.device_array((m, m))
reps = 3 if SIM else 20
result = {
    "axpy 16K": timed(lambda: axpy[n // 256, 256](np.float32(2.0), x, y, out), reps),
    "block sums 16K": timed(lambda: block_sums[n // 256, 256](x, sums), reps),
    "matmul 48x48 f64": timed(lambda: matmul[(m // 16, m // 16), (16, 16)](a, b, c), reps),
}
if not SIM:
    launches = 2000
    empty[1, 32]()
    cuda.synchronize()
    t = time.perf_counter()
    for _ in range(launches):
        empty[1, 32]()
    cuda.synchronize()
    result["empty launch"] = (time.perf_counter() - t) / launches
    host = np.zeros(1 << 18, dtype=np.float32)  # 1 MiB
    dev = cuda.to_device(host)
    result["memcpy 1 MiB HtoD"] = timed(lambda: dev.copy_to_device(host), 50)
    result["memcpy 1 MiB DtoH"] = timed(lambda: dev.copy_to_host(host), 50)
print(json.dumps(result))
