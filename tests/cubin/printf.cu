// printf_k(out): device printf, which the CUDA driver supplies as `vprintf`: every thread prints
// one line with most conversions (and a string through %s), and stores what printf returned (the
// number of arguments) in out[t]. printf_none(): no arguments. Compiled to printf.ptx by
// nvrtc.py (NVRTC, compute_50); build.sh makes printf.cubin (ptxas: the call through
// `JMX c[0x4][0x0]` after a PRET, the address relocated in .rel.nv.constant4) and
// make_jitlink.py printf_jl.cubin (nvJitLink: `JCAL` with a .rel.text relocation).
extern "C" __device__ int printf(const char *, ...);

__device__ const char word[] = "warp";

extern "C" __global__ void printf_k(int *out)
{
    int t = threadIdx.x;
    double x = t * 0.5;
    unsigned long long big = 1ull << 40;
    out[t] = printf("t=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s f=%f e=%e g=%g w=%5.2f l=%-4d| ll=%lld llu=%llu %%\n",
                    t, -t, 4000000000u, 255 + t, 0xabc, 8, 'a' + t, word, x, x * 1000.0, x / 3.0, x, t,
                    -(long long)big, big);
}

extern "C" __global__ void printf_none()
{
    printf("no arguments\n");
}
