// Every SIMD intrinsic of CUDA's math API (CUDA 12.9, "SIMD Intrinsics"), for warpjit's cubin
// fixtures: NVRTC 12.9 compiles this file for compute_50 (nvrtc.py writes simd.ptx and its
// copy simd_O0.ptx), ptxas 12.9 makes simd.cubin (-O3) and simd_O0.cubin (-O0) for sm_50
// (build.sh). NVVM writes most intrinsics as integer code; what reaches ptxas as video
// instructions is vabsdiff4 (VABSDIFF4) and add.sat/sub.sat.s32 (IADD.SAT).
//
// Each kernel: thread t < n reads its inputs from in[] and writes its k-th result to
// out[k * n + t], in the order the OUT lines below call the intrinsics. Expected values:
// expect/simd.py, from the intrinsics' documented definitions.
//
// simd2(in, out, n): (a, b) = (in[2t], in[2t+1]); the 41 per-halfword intrinsics.
// simd4(in, out, n): (a, b) = (in[2t], in[2t+1]); the 41 per-byte intrinsics.
// dpx(in, out, n):   (a, b, c) = (in[3t], in[3t+1], in[3t+2]); the 36 max/min/add-max/relu
//                    intrinsics (the __vib* ones write their predicates as 0 or 1 after
//                    their result: hi then lo for the 16x2 forms).
// simdk(in, out, n): a = in[t]; eight intrinsics with a constant operand, which NVVM folds into
//                    immediates (ptxas: IADD32I.SAT, VABSDIFF4 of a register holding it).

#define OUT(e) out[k++ * n + t] = (unsigned)(e)

extern "C" __global__ void simd2(const unsigned *in, unsigned *out, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    unsigned a = in[2 * t], b = in[2 * t + 1];
    unsigned k = 0;
    OUT(__vabs2(a));
    OUT(__vabsdiffs2(a, b));
    OUT(__vabsdiffu2(a, b));
    OUT(__vabsss2(a));
    OUT(__vadd2(a, b));
    OUT(__vaddss2(a, b));
    OUT(__vaddus2(a, b));
    OUT(__vavgs2(a, b));
    OUT(__vavgu2(a, b));
    OUT(__vhaddu2(a, b));
    OUT(__vcmpeq2(a, b));
    OUT(__vcmpges2(a, b));
    OUT(__vcmpgeu2(a, b));
    OUT(__vcmpgts2(a, b));
    OUT(__vcmpgtu2(a, b));
    OUT(__vcmples2(a, b));
    OUT(__vcmpleu2(a, b));
    OUT(__vcmplts2(a, b));
    OUT(__vcmpltu2(a, b));
    OUT(__vcmpne2(a, b));
    OUT(__vmaxs2(a, b));
    OUT(__vmaxu2(a, b));
    OUT(__vmins2(a, b));
    OUT(__vminu2(a, b));
    OUT(__vneg2(a));
    OUT(__vnegss2(a));
    OUT(__vsads2(a, b));
    OUT(__vsadu2(a, b));
    OUT(__vseteq2(a, b));
    OUT(__vsetges2(a, b));
    OUT(__vsetgeu2(a, b));
    OUT(__vsetgts2(a, b));
    OUT(__vsetgtu2(a, b));
    OUT(__vsetles2(a, b));
    OUT(__vsetleu2(a, b));
    OUT(__vsetlts2(a, b));
    OUT(__vsetltu2(a, b));
    OUT(__vsetne2(a, b));
    OUT(__vsub2(a, b));
    OUT(__vsubss2(a, b));
    OUT(__vsubus2(a, b));
}

extern "C" __global__ void simd4(const unsigned *in, unsigned *out, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    unsigned a = in[2 * t], b = in[2 * t + 1];
    unsigned k = 0;
    OUT(__vabs4(a));
    OUT(__vabsdiffs4(a, b));
    OUT(__vabsdiffu4(a, b));
    OUT(__vabsss4(a));
    OUT(__vadd4(a, b));
    OUT(__vaddss4(a, b));
    OUT(__vaddus4(a, b));
    OUT(__vavgs4(a, b));
    OUT(__vavgu4(a, b));
    OUT(__vhaddu4(a, b));
    OUT(__vcmpeq4(a, b));
    OUT(__vcmpges4(a, b));
    OUT(__vcmpgeu4(a, b));
    OUT(__vcmpgts4(a, b));
    OUT(__vcmpgtu4(a, b));
    OUT(__vcmples4(a, b));
    OUT(__vcmpleu4(a, b));
    OUT(__vcmplts4(a, b));
    OUT(__vcmpltu4(a, b));
    OUT(__vcmpne4(a, b));
    OUT(__vmaxs4(a, b));
    OUT(__vmaxu4(a, b));
    OUT(__vmins4(a, b));
    OUT(__vminu4(a, b));
    OUT(__vneg4(a));
    OUT(__vnegss4(a));
    OUT(__vsads4(a, b));
    OUT(__vsadu4(a, b));
    OUT(__vseteq4(a, b));
    OUT(__vsetges4(a, b));
    OUT(__vsetgeu4(a, b));
    OUT(__vsetgts4(a, b));
    OUT(__vsetgtu4(a, b));
    OUT(__vsetles4(a, b));
    OUT(__vsetleu4(a, b));
    OUT(__vsetlts4(a, b));
    OUT(__vsetltu4(a, b));
    OUT(__vsetne4(a, b));
    OUT(__vsub4(a, b));
    OUT(__vsubss4(a, b));
    OUT(__vsubus4(a, b));
}

extern "C" __global__ void dpx(const unsigned *in, unsigned *out, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
    int sa = (int)a, sb = (int)b, sc = (int)c;
    unsigned k = 0;
    bool p, q;
    OUT(__vimax3_s32(sa, sb, sc));
    OUT(__vimax3_s16x2(a, b, c));
    OUT(__vimax3_u32(a, b, c));
    OUT(__vimax3_u16x2(a, b, c));
    OUT(__vimin3_s32(sa, sb, sc));
    OUT(__vimin3_s16x2(a, b, c));
    OUT(__vimin3_u32(a, b, c));
    OUT(__vimin3_u16x2(a, b, c));
    OUT(__vimax3_s32_relu(sa, sb, sc));
    OUT(__vimax3_s16x2_relu(a, b, c));
    OUT(__vimin3_s32_relu(sa, sb, sc));
    OUT(__vimin3_s16x2_relu(a, b, c));
    OUT(__vimax_s32_relu(sa, sb));
    OUT(__vimax_s16x2_relu(a, b));
    OUT(__vimin_s32_relu(sa, sb));
    OUT(__vimin_s16x2_relu(a, b));
    OUT(__viaddmax_s32(sa, sb, sc));
    OUT(__viaddmax_s16x2(a, b, c));
    OUT(__viaddmax_u32(a, b, c));
    OUT(__viaddmax_u16x2(a, b, c));
    OUT(__viaddmin_s32(sa, sb, sc));
    OUT(__viaddmin_s16x2(a, b, c));
    OUT(__viaddmin_u32(a, b, c));
    OUT(__viaddmin_u16x2(a, b, c));
    OUT(__viaddmax_s32_relu(sa, sb, sc));
    OUT(__viaddmax_s16x2_relu(a, b, c));
    OUT(__viaddmin_s32_relu(sa, sb, sc));
    OUT(__viaddmin_s16x2_relu(a, b, c));
    OUT(__vibmax_s32(sa, sb, &p));
    OUT(p);
    OUT(__vibmax_u32(a, b, &p));
    OUT(p);
    OUT(__vibmin_s32(sa, sb, &p));
    OUT(p);
    OUT(__vibmin_u32(a, b, &p));
    OUT(p);
    OUT(__vibmax_s16x2(a, b, &p, &q));
    OUT(p);
    OUT(q);
    OUT(__vibmax_u16x2(a, b, &p, &q));
    OUT(p);
    OUT(q);
    OUT(__vibmin_s16x2(a, b, &p, &q));
    OUT(p);
    OUT(q);
    OUT(__vibmin_u16x2(a, b, &p, &q));
    OUT(p);
    OUT(q);
}

extern "C" __global__ void simdk(const unsigned *in, unsigned *out, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    unsigned a = in[t];
    unsigned k = 0;
    OUT(__vaddss2(a, 0x7fff8001));
    OUT(__vsubss2(0x00057ffb, a));
    OUT(__vaddss4(a, 0x7f80017f));
    OUT(__vsubss4(a, 0x01ff7f80));
    OUT(__vaddus2(a, 0x8000ffff));
    OUT(__vsubus4(0x7f80ff01, a));
    OUT(__vsadu4(a, 0x80ff0110));
    OUT(__vabsdiffu4(0x00ff7f80, a));
}
