cs_5_0
dcl_globalFlags refactoringAllowed
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 32, 1, 1
mov r0.x, vThreadID.x
loop
  iadd r0.x, r0.x, l(1)
endloop
ret
