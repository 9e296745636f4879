//
// A structured-buffer gather loop: each thread follows 64 links of a list of nodes, summing
// their values. Written as fxc prints a listing of this HLSL:
//
//   struct Node { uint next; uint value; };
//   StructuredBuffer<Node> nodes : register(t0);
//   RWStructuredBuffer<uint> sums : register(u0);
//   [numthreads(64, 1, 1)]
//   void main(uint3 id : SV_DispatchThreadID)
//   {
//       uint i = id.x & 1023, sum = 0;
//       for (uint k = 0; k < 64; k++) { Node n = nodes[i]; sum += n.value; i = n.next; }
//       sums[id.x] = sum;
//   }
//
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_structured t0, 8
dcl_uav_structured u0, 4
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 64, 1, 1
and r0.x, vThreadID.x, l(1023)
mov r0.yz, l(0,0,0,0)
loop
  uge r0.w, r0.z, l(64)
  breakc_nz r0.w
  ld_structured_indexable(structured_buffer, stride=8)(mixed,mixed,mixed,mixed) r1.xy, r0.x, l(0), t0.xyxx
  iadd r0.y, r0.y, r1.y
  mov r0.x, r1.x
  iadd r0.z, r0.z, l(1)
endloop
store_structured u0.x, vThreadID.x, l(0), r0.y
ret
// Approximately 12 instruction slots used
