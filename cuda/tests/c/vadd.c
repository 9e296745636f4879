/* A C program against NVIDIA's cuda.h, as any driver-API program is written: it loads a cubin
 * (argv[1]: tests/cubin/vadd.cubin), adds two vectors with vadd(a, b, c, n), checks the result,
 * and checks a fault's sticky error in a second context. Built and run by cuda/tests/c_program.rs
 * (the system C compiler, cuda.h from the nvidia-cuda-runtime-cu12 wheel), under warpjit cuda. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: vadd CUBIN\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    char name[64];
    int major, minor, sms, version;
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    printf("%s, compute capability %d.%d, %d SMs, driver %d\n", name, major, minor, sms, version);
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoad(&mod, argv[1]));
    CHECK(cuModuleGetFunction(&f, mod, "vadd"));

    unsigned n = 1000;
    size_t bytes = n * sizeof(unsigned);
    unsigned *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
    for (unsigned i = 0; i < n; i++) {
        ha[i] = i;
        hb[i] = 100000u * i;
    }
    CUdeviceptr a, b, c;
    CHECK(cuMemAlloc(&a, bytes));
    CHECK(cuMemAlloc(&b, bytes));
    CHECK(cuMemAlloc(&c, bytes));
    CHECK(cuMemcpyHtoD(a, ha, bytes));
    CHECK(cuMemcpyHtoD(b, hb, bytes));
    CHECK(cuMemsetD32(c, 0xffffffffu, n));
    void *args[] = {&a, &b, &c, &n};
    CUstream s;
    CUevent e0, e1;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    CHECK(cuEventRecord(e0, s));
    CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
    CHECK(cuEventRecord(e1, s));
    CHECK(cuStreamSynchronize(s));
    float ms;
    CHECK(cuEventElapsedTime(&ms, e0, e1));
    CHECK(cuMemcpyDtoHAsync(hc, c, bytes, s));
    CHECK(cuStreamSynchronize(s));
    for (unsigned i = 0; i < n; i++) {
        if (hc[i] != 100001u * i) {
            fprintf(stderr, "c[%u] = %u, expected %u\n", i, hc[i], 100001u * i);
            return 1;
        }
    }
    printf("vadd of %u elements: ok (%s ms >= 0)\n", n, ms >= 0 ? "elapsed" : "negative");

    /* A pointer nothing is mapped at: the launch faults, and the context's later calls return
     * CUDA_ERROR_ILLEGAL_ADDRESS. */
    CUdeviceptr bad = 0x100;
    void *bad_args[] = {&a, &b, &bad, &n};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, bad_args, NULL));
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_ERROR_ILLEGAL_ADDRESS) {
        fprintf(stderr, "expected CUDA_ERROR_ILLEGAL_ADDRESS, got %d\n", (int)r);
        return 1;
    }
    printf("fault: CUDA_ERROR_ILLEGAL_ADDRESS, as expected\n");
    return 0;
}
