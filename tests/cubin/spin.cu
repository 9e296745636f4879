// Kernels whose warps wait for each other by spinning on memory (no __syncthreads between them),
// for warpjit's forward-progress rule (docs/semantics.md §9). Compiled by NVRTC for compute_50
// (tests/cubin/nvrtc.py), then by ptxas for sm_50 (build.sh).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// out[blockIdx.x] = the sum (mod 2^32) of in[i] over the i < n that this CTA's threads visit
// (i = blockIdx.x * 256 + threadIdx.x, then in steps of 256 * gridDim.x), computed as a
// cooperative-groups reduction over tiles of 128 threads (four warps each), which synchronise
// through shared memory (an atomic OR of each warp's bit, then a spin until the last warp of the
// tile clears it), then the tiles' sums added by thread 0 after a CTA barrier. The same shape as
// the CUDA samples' multi_warp_cg_reduce with a block of 256 and tiles of 128. Block of 256.
extern "C" __global__ void tile_reduce(const unsigned *in, unsigned *out, unsigned n) {
    __shared__ cg::block_tile_memory<256> scratch;
    __shared__ unsigned tile_sums[2];
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<128> tile = cg::tiled_partition<128>(cta);
    unsigned sum = 0;
    for (unsigned i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x) {
        sum += in[i];
    }
    sum = cg::reduce(tile, sum, cg::plus<unsigned>());
    if (tile.thread_rank() == 0) {
        tile_sums[tile.meta_group_rank()] = sum;
    }
    cg::sync(cta);
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (unsigned k = 0; k < tile.meta_group_size(); ++k) {
            total += tile_sums[k];
        }
        out[blockIdx.x] = total;
    }
}

// Producer and consumer warps handing `rounds` boxes of 32 words over through shared memory, with
// no barrier: in round r (1 to rounds), warp 1 waits until warp 0 has acknowledged round r - 1,
// fills box[lane] = r * 1000 + lane + 7 * blockIdx.x and raises the flag to r; warp 0 waits for
// the flag to reach r, adds box[lane] to its lane's total and acknowledges r. Then warp 0 writes
// out[blockIdx.x * 32 + lane] = its total. Block of 64.
extern "C" __global__ void handoff(unsigned *out, unsigned rounds) {
    __shared__ volatile unsigned flag;
    __shared__ volatile unsigned ack;
    __shared__ volatile unsigned box[32];
    unsigned lane = threadIdx.x & 31;
    unsigned warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        flag = 0;
        ack = 0;
    }
    __syncthreads();
    unsigned total = 0;
    for (unsigned r = 1; r <= rounds; ++r) {
        if (warp == 1) {
            while (ack != r - 1) {
            }
            box[lane] = r * 1000 + lane + 7 * blockIdx.x;
            __syncwarp();
            if (lane == 0) {
                flag = r;
            }
        } else if (warp == 0) {
            while (flag != r) {
            }
            total += box[lane];
            __syncwarp();
            if (lane == 0) {
                ack = r;
            }
        }
    }
    if (warp == 0) {
        out[blockIdx.x * 32 + lane] = total;
    }
}

// A spin lock in shared memory that lane 0 of every warp takes `iters` times (atomicCAS until it
// gets it, atomicExch to give it back). While holding it, the warp reads the CTA's counter in
// global memory, spends `delay` iterations of a loop storing to its own shared word (long enough
// for its turn to end there), and writes the value read plus 1 back: a warp that ran while
// another held the lock would lose that warp's increment. Each warp also records how many times
// it took the lock. counters[blockIdx.x] ends at (warps per CTA) * iters (the counters start at
// 0) and mine[blockIdx.x * 32 + warp] at iters.
extern "C" __global__ void warp_lock(volatile unsigned *counters, unsigned *mine, unsigned iters,
                                     unsigned delay) {
    __shared__ unsigned lock;
    __shared__ volatile unsigned sink[32];
    unsigned lane = threadIdx.x & 31;
    unsigned warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        lock = 0;
    }
    __syncthreads();
    if (lane == 0) {
        unsigned taken = 0;
        for (unsigned k = 0; k < iters; ++k) {
            while (atomicCAS(&lock, 0u, 1u) != 0u) {
            }
            unsigned v = counters[blockIdx.x];
            for (unsigned s = 0; s < delay; ++s) {
                sink[warp] = s;
            }
            counters[blockIdx.x] = v + 1;
            __threadfence_block();
            atomicExch(&lock, 0u);
            ++taken;
        }
        mine[blockIdx.x * 32 + warp] = taken;
    }
}
