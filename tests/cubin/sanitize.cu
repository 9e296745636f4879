// Kernels with seeded bugs for warpjit's sanitizer (`--check`), one bug each, and clean ones
// beside them: NVRTC 12.9 compiles this file for compute_50 (cu2ptx.py writes sanitize.ptx),
// ptxas 12.9 makes sanitize.cubin for sm_50 (build.sh). The traces in tests/sanitize/ run them;
// tests/sanitizer.rs says what each must report (and where), worked out from this source.
//
// memcheck
//   oob_read(in, out, n): out[i] = in[i + 1] for i < n: thread n - 1 reads in[n], the word just
//     past the end of in (n words): an illegal address, which stops the launch.
//   misaligned_store(p): thread t stores t to the word at p + 4t, but thread 3 at p + 14, two
//     bytes past a word boundary (aligned down to p + 12, and the run goes on).
// racecheck
//   race_rotate(out): block of 64. s[t] = t; barrier; v = s[(t + 32) & 63]; s[t] = v + 1
//     with NO barrier between the read and the write, so warp 1 reads what warp 0 already
//     rewrote (and warp 0's reads of s[32..63] race with warp 1's writes); barrier; out[t] = s[t].
//   rotate_ok(out): the same with the barrier: clean.
//   warp_neighbour(out): one warp: s[t] = t; v = s[t ^ 1] with no __syncwarp(): a hazard between
//     lanes of one warp (ordered on Maxwell, where a warp runs in lockstep: a warning).
// initcheck
//   uninit_shared(out): block of 64: threads 0-31 write s[t]; barrier; out[t] = s[63 - t]:
//     threads 0-31 read s[32..63], never written.
//   fill(p, n) / copy(src, dst, n): p[i] = i + 1 for i < n; dst[i] = src[i] for i < n. The
//     traces fill half of an `uninitialized` buffer, then copy all of it.
// synccheck
//   barrier_in_branch(out, n): block of 64, n = 48: s[t] = t; if (t < n) { __syncthreads();
//     out[t] = s[(t + 1) % n]; } out[64 + t] = t: warp 1 reaches the barrier with lanes 16-31
//     not arriving (they go on past the branch, so ptxas cannot make them exit first).
//   two_barriers(out): block of 64: s[t] = t; warp 0 waits at one __syncthreads(), warp 1 at
//     another (if/else), then each reads the other warp's half.
//   shfl_half(out): one warp: v = t; lanes 0-15 add __shfl_down_sync(0xffff, v, 16), which
//     reads lanes 16-31, which do not execute it.
//   reduce7(in, out, n): the final stage of the CUDA samples' reduce7 at 256 threads (written
//     here from its description, not copied): each warp sums its lanes by shuffles with the full
//     mask and lane 0 stores the warp sum to s[warp]; barrier; the threads t < 8 (ballot mask
//     0xff) load s[t] and reduce by __shfl_down_sync(0xff, v, 16, 8, 4, 2, 1): lanes 0-7 read
//     lanes 8-23, which do not execute the shuffles. out[blockIdx.x] = thread 0's sum.
//   reduce_ok(in, out): the same sum with every step of the last warp in all 32 lanes: clean.

extern "C" __global__ void oob_read(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + 1];
}

extern "C" __global__ void misaligned_store(char *p)
{
    int t = threadIdx.x;
    int off = t == 3 ? 4 * t + 2 : 4 * t;
    *(int *)(p + off) = t;
}

extern "C" __global__ void race_rotate(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int v = s[(t + 32) & 63];
    s[t] = v + 1;
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void rotate_ok(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int v = s[(t + 32) & 63];
    __syncthreads();
    s[t] = v + 1;
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void warp_neighbour(int *out)
{
    __shared__ volatile int s[32];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[t ^ 1];
}

extern "C" __global__ void uninit_shared(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = t;
    __syncthreads();
    out[t] = s[63 - t];
}

extern "C" __global__ void fill(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = i + 1;
}

extern "C" __global__ void copy(const int *src, int *dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i];
}

extern "C" __global__ void barrier_in_branch(int *out, int n)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t < n) {
        __syncthreads();
        out[t] = s[(t + 1) % n];
    }
    out[64 + t] = t;
}

extern "C" __global__ void two_barriers(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 5;
    if (t < 32) {
        __syncthreads();
        out[t] = s[t + 32] + 1;
    } else {
        __syncthreads();
        out[t] = s[t - 32] + 2;
    }
}

extern "C" __global__ void shfl_half(int *out)
{
    int t = threadIdx.x;
    int v = t;
    if (t < 16)
        v += __shfl_down_sync(0xffff, v, 16);
    out[t] = v;
}

__device__ int warp_sum(unsigned mask, int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    return v;
}

extern "C" __global__ void reduce7(const int *in, int *out, int n)
{
    __shared__ int s[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int v = i < n ? in[i] : 0;
    v = warp_sum(0xffffffff, v);
    if (t % 32 == 0)
        s[t / 32] = v;
    __syncthreads();
    unsigned mask = __ballot_sync(0xffffffff, t < 8);
    if (t < 8) {
        v = s[t];
        v = warp_sum(mask, v);
    }
    if (t == 0)
        out[blockIdx.x] = v;
}

extern "C" __global__ void reduce_ok(const int *in, int *out, int n)
{
    __shared__ int s[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int v = i < n ? in[i] : 0;
    v = warp_sum(0xffffffff, v);
    if (t % 32 == 0)
        s[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < 8 ? s[t] : 0;
        v = warp_sum(0xffffffff, v);
    }
    if (t == 0)
        out[blockIdx.x] = v;
}
