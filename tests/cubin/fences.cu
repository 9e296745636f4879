// Memory fences, for warpjit's cubin fixtures: NVRTC 12.9 compiles this file for compute_50
// (nvrtc.py writes fences.ptx), ptxas 12.9 makes fences.cubin for sm_50 (build.sh), where
// __threadfence_block(), __threadfence() and __threadfence_system() are MEMBAR.CTA,
// MEMBAR.GL.IVALLD and MEMBAR.SYS.IVALLD. Expected values: expect/fences.py.
//
// fences(out): thread t = ctaid.x * ntid.x + tid.x writes out[4t] = t, then, after each fence in
//   turn, out[4t+i] = out[4t+i-1] + 1 through a volatile pointer (i = 1, 2, 3).
// fence_sum(in, partial, out): blocks of 64 threads; block b sums in[64b .. 64b+63] (u32,
//   wrapping) in shared memory, its thread 0 stores the sum to partial[b], fences
//   (__threadfence) and takes a ticket from the module's counter `retired` with atomicInc; the
//   block that takes the last ticket reads every block's partial sum (volatile loads), stores
//   their sum to out[0] and sets `retired` back to 0 for the next launch. The pattern of CUDA's
//   threadFenceReduction sample: the fence makes a block's partial sum visible before its
//   ticket.

extern "C" __global__ void fences(unsigned *out)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    volatile unsigned *v = out + 4 * t;
    v[0] = t;
    __threadfence_block();
    v[1] = v[0] + 1;
    __threadfence();
    v[2] = v[1] + 1;
    __threadfence_system();
    v[3] = v[2] + 1;
}

__device__ unsigned retired;

extern "C" __global__ void fence_sum(const unsigned *in, unsigned *partial, unsigned *out)
{
    __shared__ unsigned sum[64];
    __shared__ bool last;
    unsigned t = threadIdx.x;
    sum[t] = in[64 * blockIdx.x + t];
    __syncthreads();
    for (unsigned s = 32; s > 0; s >>= 1) {
        if (t < s)
            sum[t] += sum[t + s];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sum[0];
        __threadfence();
        unsigned ticket = atomicInc(&retired, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    unsigned s = 0;
    for (unsigned i = t; i < gridDim.x; i += 64)
        s += ((volatile unsigned *)partial)[i];
    sum[t] = s;
    __syncthreads();
    for (unsigned h = 32; h > 0; h >>= 1) {
        if (t < h)
            sum[t] += sum[t + h];
        __syncthreads();
    }
    if (t == 0) {
        out[0] = sum[0];
        retired = 0;
    }
}
