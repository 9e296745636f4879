// Seeded bug for warpjit's initcheck, written for these tests: a group of 64 threads; threads
// 0-31 store their index to g0[t], then after the barrier every thread t reads g0[63 - t]:
// threads 0-31 read words g0[63..32] that no thread wrote (group shared memory is undefined
// until written; warpjit gives zeros).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_structured u0, 4
dcl_input vThreadIDInGroupFlattened
dcl_temps 2
dcl_tgsm_structured g0, 4, 64
dcl_thread_group 64, 1, 1
ult r0.x, vThreadIDInGroupFlattened.x, l(32)
if_nz r0.x
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroupFlattened.x
endif
sync_g_t
iadd r0.y, l(63), -vThreadIDInGroupFlattened.x
ld_structured r1.x, r0.y, l(0), g0.xxxx
store_structured u0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
ret
