// An indirect call through a table of device-function pointers: ptxas 12.9 writes it for sm_50
// as PRET (push the return point) and BRX (jump to the pointer's code offset), whose entry in
// EIATTR_INDIRECT_BRANCH_TARGETS is marked as a call and lists no targets. warpjit refuses it
// (tests/traces/fail/cubin_indirect_call.toml). With -c or -G, ptxas writes JMX instead of BRX
// and relocates the pointers, which the cubin loader refuses before the code is decoded.
typedef int (*fn_t)(int);
__device__ __noinline__ int f0(int x) { return x + 1; }
__device__ __noinline__ int f1(int x) { return x * 3; }
__device__ __noinline__ int f2(int x) { return x ^ 0x55; }
__device__ fn_t table[3] = { f0, f1, f2 };

extern "C" __global__ void fnptr(const int *in, int *out) {
    int t = threadIdx.x;
    fn_t f = table[in[t] % 3];
    out[t] = f(t);
}
