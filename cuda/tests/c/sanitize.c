/* Seeded bugs for `warpjit cuda --check`, as an unmodified driver-API program meets them: it loads
 * tests/cubin/sanitize.cubin (argv[1]; NVRTC and ptxas from tests/cubin/sanitize.cu) and runs
 *   1. rotate_ok, block of 64 (clean: nothing reported);
 *   2. race_rotate, block of 64 (racecheck: the store s[t] = v + 1 races with the other warp's
 *      load of s[(t + 32) & 63], no barrier between them);
 *   3. fill with 32 threads over the first half of a fresh cuMemAlloc of 64 words, then copy of
 *      all 64 words (initcheck: threads 32-63 of copy read words never written);
 *   4. oob_read over an allocation of 100 words with n = 100 (memcheck: thread 99 reads in[100],
 *      the word just past the allocation; the driver maps whole 256-byte pages, so the load
 *      itself succeeds and the launch goes on).
 * Every launch succeeds; the program prints "done" and exits 0. Built and run by
 * cuda/tests/c_program.rs under `warpjit cuda --check`. */
#include <cuda.h>
#include <stdio.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        CUresult r_ = (call);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                    \
            const char *name_ = "?";                                                 \
            cuGetErrorName(r_, &name_);                                              \
            fprintf(stderr, "%s:%d: %s = %s\n", __FILE__, __LINE__, #call, name_);   \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static int launch(CUmodule mod, const char *name, unsigned block, void **args) {
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, mod, name));
    CHECK(cuLaunchKernel(f, 1, 1, 1, block, 1, 1, 0, 0, args, 0));
    CHECK(cuCtxSynchronize());
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: sanitize CUBIN\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoad(&mod, argv[1]));
    CUdeviceptr out, buf, in;
    CHECK(cuMemAlloc(&out, 100 * 4));
    CHECK(cuMemsetD32(out, 0, 100));
    void *a1[] = {&out};
    if (launch(mod, "rotate_ok", 64, a1) || launch(mod, "race_rotate", 64, a1))
        return 1;
    CHECK(cuMemAlloc(&buf, 64 * 4));
    int half = 32, all = 64, n = 100;
    void *a2[] = {&buf, &half};
    void *a3[] = {&buf, &out, &all};
    if (launch(mod, "fill", 32, a2) || launch(mod, "copy", 64, a3))
        return 1;
    CHECK(cuMemAlloc(&in, 100 * 4));
    CHECK(cuMemsetD32(in, 7, 100));
    void *a4[] = {&in, &out, &n};
    if (launch(mod, "oob_read", 128, a4))
        return 1;
    printf("done\n");
    return 0;
}
