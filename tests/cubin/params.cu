// Kernel parameters for warpjit's per-launch `params` (docs/trace-format.md §7.2): a two-pass
// scan, whose launches pass different arguments to the same kernels, and a kernel that takes a
// parameter of every kind and writes each back, so that a trace checks where the parameters lie.
// Compiled by NVRTC to PTX for compute_50 (nvrtc.py), then by ptxas for sm_50 (build.sh).

extern "C" {

// Pass 1 (and 2): each block of 256 threads scans its 256 words (inclusive, u32, wrapping)
// through shared memory, writes them to out[i] for i < n, and the block's total to
// sums[blockIdx.x] unless sums is null.
__global__ void scan_block(const unsigned *in, unsigned *out, unsigned *sums, unsigned n)
{
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 256 + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned d = 1; d < 256; d <<= 1) {
        unsigned v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = s[t];
    if (sums != 0 && t == 255)
        sums[blockIdx.x] = s[255];
}

// Pass 3: adds the scanned totals of the blocks before each block: out[i] += prefix[b - 1] for
// i = b * 256 + t < n, b > 0.
__global__ void add_prefix(unsigned *out, const unsigned *prefix, unsigned n)
{
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += prefix[blockIdx.x - 1];
}

// No parameters: ptxas writes no parameter table for it.
__global__ void no_params()
{
}

struct Pair {
    int x;
    signed char y;
    double w;
};

// Thread 0 writes each parameter to out[k] as a 64-bit word: integers extended to 64 bits (signed
// ones by sign), floats as their bits (a float's in the low word), the pointer's value, then the
// struct's fields, and finally *p.
__global__ void every_kind(signed char a, unsigned char b, short c, unsigned short d, int e,
                           unsigned f, long long g, unsigned long long h, float x, double y,
                           const int *p, Pair s, unsigned long long *out)
{
    if (threadIdx.x != 0)
        return;
    out[0] = (long long)a;
    out[1] = b;
    out[2] = (long long)c;
    out[3] = d;
    out[4] = (long long)e;
    out[5] = f;
    out[6] = (unsigned long long)g;
    out[7] = h;
    out[8] = __float_as_uint(x);
    out[9] = (unsigned long long)__double_as_longlong(y);
    out[10] = (unsigned long long)p;
    out[11] = (long long)s.x;
    out[12] = (long long)s.y;
    out[13] = (unsigned long long)__double_as_longlong(s.w);
    out[14] = (long long)*p;
}

}
