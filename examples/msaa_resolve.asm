//
// A 4x MSAA resolve, written as fxc prints a listing (ps_4_1: ldms needs shader model 4.1).
//
//   Texture2DMS<float4, 4> tex : register(t0);
//   float4 main(float4 pos : SV_Position) : SV_Target
//   {
//       uint2 p = (uint2)pos.xy;
//       return (tex.Load(p, 0) + tex.Load(p, 1) + tex.Load(p, 2) + tex.Load(p, 3)) * 0.25;
//   }
//
ps_4_1
dcl_globalFlags refactoringAllowed
dcl_resource_texture2dms(4) (float,float,float,float) t0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_temps 3
ftou r0.xy, v0.xyxx
mov r0.zw, l(0,0,0,0)
ldms_indexable(texture2dms)(float,float,float,float) r1.xyzw, r0.xyzw, t0.xyzw, l(0)
ldms_indexable(texture2dms)(float,float,float,float) r2.xyzw, r0.xyzw, t0.xyzw, l(1)
add r1.xyzw, r1.xyzw, r2.xyzw
ldms_indexable(texture2dms)(float,float,float,float) r2.xyzw, r0.xyzw, t0.xyzw, l(2)
add r1.xyzw, r1.xyzw, r2.xyzw
ldms_indexable(texture2dms)(float,float,float,float) r2.xyzw, r0.xyzw, t0.xyzw, l(3)
add r1.xyzw, r1.xyzw, r2.xyzw
mul o0.xyzw, r1.xyzw, l(0.250000, 0.250000, 0.250000, 0.250000)
ret
// Approximately 11 instruction slots used
