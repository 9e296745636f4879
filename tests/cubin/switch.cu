// switch statements that ptxas 12.9 compiles for sm_50 into BRX and jump tables in
// .nv.constant2 (tests/cubin/README.md). Every kernel reads in[t] and writes out[t].

// A dense switch of 8 cases and a default, divergent across the lanes.
extern "C" __global__ void sw8(const int *in, int *out) {
    int t = threadIdx.x;
    int x = in[t];
    int r;
    switch (x) {
        case 0: r = t * 3 + 1; break;
        case 1: r = t ^ 0x5a; break;
        case 2: r = t * t; break;
        case 3: r = 1000 - t; break;
        case 4: r = t << 4; break;
        case 5: r = (t >> 1) + 77; break;
        case 6: r = t * 7 - 3; break;
        case 7: r = ~t; break;
        default: r = -1; break;
    }
    out[t] = r;
}

// A switch of 32 cases (a larger table), fall-through between some cases.
extern "C" __global__ void sw32(const int *in, int *out) {
    int t = threadIdx.x;
    int x = in[t];
    int r = 0;
    switch (x) {
        case 0: r += t; // fall through
        case 1: r += 11 * t; break;
        case 2: r = t * 13 + 2; break;
        case 3: r = t * 17 + 3; break;
        case 4: r = t * 19 + 4; break;
        case 5: r = t * 23 + 5; break;
        case 6: r = t * 29 + 6; break;
        case 7: r = t * 31 + 7; break;
        case 8: r = t * 37 + 8; break;
        case 9: r = t * 41 + 9; break;
        case 10: r = t * 43 + 10; break;
        case 11: r = t * 47 + 11; // fall through
        case 12: r += t * 53 + 12; break;
        case 13: r = t * 59 + 13; break;
        case 14: r = t * 61 + 14; break;
        case 15: r = t * 67 + 15; break;
        case 16: r = t * 71 + 16; break;
        case 17: r = t * 73 + 17; break;
        case 18: r = t * 79 + 18; break;
        case 19: r = t * 83 + 19; break;
        case 20: r = t * 89 + 20; break;
        case 21: r = t * 97 + 21; break;
        case 22: r = t * 101 + 22; break;
        case 23: r = t * 103 + 23; break;
        case 24: r = t * 107 + 24; break;
        case 25: r = t * 109 + 25; break;
        case 26: r = t * 113 + 26; break;
        case 27: r = t * 127 + 27; break;
        case 28: r = t * 131 + 28; break;
        case 29: r = t * 137 + 29; break;
        case 30: r = t * 139 + 30; break;
        case 31: r = t * 149 + 31; break;
        default: r = x; break;
    }
    out[t] = r;
}

// A switch in a loop: each iteration's case is the next word of in[].
extern "C" __global__ void swloop(const int *in, int *out) {
    int t = threadIdx.x;
    unsigned v = t;
    int n = t % 5 + 3;
    for (int i = 0; i < n; i++) {
        switch (in[(t + i) & 63]) {
            case 0: v = v * 3 + 1; break;
            case 1: v = v ^ (v >> 3); break;
            case 2: v = v + 0x1234; break;
            case 3: v = v * 5; break;
            case 4: v = (v << 2) | (v >> 30); break;
            case 5: v = v - 7; break;
            default: v = v + i; break;
        }
    }
    out[t] = v;
}

// A switch inside divergent code (SSY/SYNC), with a return from one case.
extern "C" __global__ void swdiv(const int *in, int *out) {
    int t = threadIdx.x;
    int x = in[t];
    int r = 5;
    if (t & 1) {
        switch (x) {
            case 0: r = t + 100; break;
            case 1: r = t * 9; break;
            case 2: out[t] = -2; return;
            case 3: r = t ^ 0xff; break;
            case 4: r = t - 50; break;
            case 5: r = t * t + 1; break;
            case 6: out[t] = -6; return;
            default: r = 4242; break;
        }
        r += 1;
    } else {
        r = x * 2;
    }
    out[t] = r;
}

// A switch in a device function that is called, not inlined.
__device__ __noinline__ int pick(int x, int t) {
    switch (x) {
        case 0: return t + 1;
        case 1: return t * 2;
        case 2: return t * t;
        case 3: return t ^ 0x33;
        case 4: return 500 - t;
        case 5: return t * 11;
        case 6: return t >> 2;
        default: return -t;
    }
}

extern "C" __global__ void swcall(const int *in, int *out) {
    int t = threadIdx.x;
    out[t] = pick(in[t], t) + pick(in[t] + 1, t);
}
