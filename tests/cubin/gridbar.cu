// CTAs that wait for each other through global memory: a grid-wide barrier written by hand
// (an arrival counter and a generation word; the last CTA to arrive resets the counter and bumps
// the generation, the others spin until it changes), which completes only if every CTA of the
// grid runs while the others wait: a cooperative launch (docs/semantics.md §9). Compiled by NVRTC
// for compute_50 (tests/cubin/nvrtc.py), then by ptxas for sm_50 (build.sh).

// bar[0]: CTAs arrived; bar[1]: the generation. Every thread of the CTA calls it.
__device__ void grid_barrier(unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *generation = bar + 1;
        unsigned g = *generation;
        unsigned n = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(bar, 1u) == n - 1) {
            atomicExch(bar, 0u);
            atomicAdd(bar + 1, 1u);
        } else {
            while (*generation == g) {
            }
        }
    }
    __syncthreads();
}

// Block of 128, grid of n CTAs (x only). With c = blockIdx.x and S = the sum of part[k] over all
// CTAs k, where part[c] = the sum (mod 2^32) of in[c * 128 + t] over t < 128:
//   part[c], written before the first barrier;
//   total[c] = S, written after it (thread 0 adds every CTA's part);
//   next[c] = part[(c + 1) % n], also after it;
//   out[c * 128 + t] = next[(c + n - 1) % n] + total[(c + 1) % n] + t = part[c] + S + t, after
//   the second barrier.
extern "C" __global__ void grid_sums(const unsigned *in, unsigned *part, unsigned *total,
                                     unsigned *next, unsigned *out, unsigned *bar) {
    __shared__ unsigned sums[128];
    unsigned c = blockIdx.x;
    unsigned t = threadIdx.x;
    unsigned n = gridDim.x;
    sums[t] = in[c * 128 + t];
    __syncthreads();
    for (unsigned s = 64; s > 0; s >>= 1) {
        if (t < s) {
            sums[t] += sums[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        part[c] = sums[0];
    }
    grid_barrier(bar);
    if (t == 0) {
        unsigned s = 0;
        for (unsigned k = 0; k < n; ++k) {
            s += ((volatile unsigned *)part)[k];
        }
        total[c] = s;
        next[c] = ((volatile unsigned *)part)[(c + 1) % n];
    }
    grid_barrier(bar);
    out[c * 128 + t] = ((volatile unsigned *)next)[(c + n - 1) % n] +
                       ((volatile unsigned *)total)[(c + 1) % n] + t;
}
