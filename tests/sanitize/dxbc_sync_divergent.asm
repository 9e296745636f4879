// Seeded bug for warpjit's synccheck, written for these tests: a group of 64 threads; each
// stores its index to g0, then only threads 0-47 (if_nz) wait at the barrier and read their
// neighbour's word: warp 1 reaches sync_g_t with lanes 16-31 (threads 48-63) not arriving
// (GroupMemoryBarrierWithGroupSync() in divergent code, which HLSL forbids).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_structured u0, 4
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x
ult r0.x, vThreadIDInGroupFlattened.x, l(48)
if_nz r0.x
  sync_g_t
  iadd r0.y, vThreadIDInGroupFlattened.x, l(1)
  udiv null, r0.y, r0.y, l(48)
  ld_structured r1.x, r0.y, l(0), g0.xxxx
  store_structured u0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
endif
ret
