// Cooperative groups' grid-wide barrier, grid.sync(): it needs a cooperative launch (the CUDA
// driver gives such a launch a workspace whose address the kernel reads as %envreg1:%envreg2;
// without one that address is 0, and the barrier's atomic on it faults). Compiled by NVRTC for
// compute_50 (tests/cubin/nvrtc.py), then by ptxas for sm_50 (build.sh).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// With r = the thread's rank in the grid and N = the grid's thread count:
// data[r] = 3 r + 1, then grid.sync(), then out[r] = data[(r + 1) % N] + data[(r + N - 1) % N],
// then grid.sync() again, then data[r] = out[(r + 2) % N].
extern "C" __global__ void cg_grid(unsigned *data, unsigned *out) {
    cg::grid_group grid = cg::this_grid();
    unsigned r = grid.thread_rank();
    unsigned n = grid.size();
    data[r] = 3 * r + 1;
    grid.sync();
    out[r] = ((volatile unsigned *)data)[(r + 1) % n] + ((volatile unsigned *)data)[(r + n - 1) % n];
    grid.sync();
    data[r] = ((volatile unsigned *)out)[(r + 2) % n];
}
