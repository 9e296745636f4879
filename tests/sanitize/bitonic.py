#!/usr/bin/env python3
"""Expected output of one launch of Microsoft's ComputeShaderSort11 BitonicSort compute shader
(tests/dxbc/ComputeShaderSort11_BitonicSort.asm, fxc 10.1), worked out from its HLSL source as
the sample gives it, not from warpjit:

    shared_data[GI] = Data[DTid.x];
    GroupMemoryBarrierWithGroupSync();
    for (uint j = g_iLevel >> 1 ; j > 0 ; j >>= 1) {
        uint result = ((shared_data[GI & ~j] <= shared_data[GI | j])
                       == (bool)(g_iLevelMask & DTid.x)) ? shared_data[GI ^ j] : shared_data[GI];
        GroupMemoryBarrierWithGroupSync();
        shared_data[GI] = result;
        GroupMemoryBarrierWithGroupSync();
    }
    Data[DTid.x] = shared_data[GI];

with groups of 512 threads. Prints the input and the output of dxbc_bitonic.toml (two groups,
g_iLevel = g_iLevelMask = 512: one bitonic merge of each 512-element half, descending in the
second group), as TOML arrays. Standard library only."""
import random

GROUP = 512


def launch(data, level, mask):
    out = list(data)
    for g in range(len(data) // GROUP):
        shared = data[g * GROUP:(g + 1) * GROUP]
        j = level >> 1
        while j > 0:
            new = []
            for gi in range(GROUP):
                dtid = g * GROUP + gi
                cond = (shared[gi & ~j] <= shared[gi | j]) == ((mask & dtid) != 0)
                new.append(shared[gi ^ j] if cond else shared[gi])
            shared = new
            j >>= 1
        out[g * GROUP:(g + 1) * GROUP] = shared
    return out


def u32s(v):
    return "[" + ",\n       ".join(", ".join(hex(x) for x in v[i:i + 8]) for i in range(0, len(v), 8)) + "]"


if __name__ == "__main__":
    random.seed(30)
    # Each half bitonic already (ascending then descending), so one merge sorts it.
    data = []
    for _ in range(2):
        a = sorted(random.randrange(1 << 20) for _ in range(GROUP // 2))
        b = sorted((random.randrange(1 << 20) for _ in range(GROUP // 2)), reverse=True)
        data += a + b
    out = launch(data, 512, 512)
    assert out[:GROUP] == sorted(out[:GROUP])
    assert out[GROUP:] == sorted(out[GROUP:], reverse=True)
    print("input = " + u32s(data))
    print("output = " + u32s(out))
