//! DXBC compute shaders lowered to the IR and run under both engines, against bound buffers and
//! textures; every expected value is worked out by hand from the instruction definitions in the
//! comments.

use std::sync::Arc;
use warpjit::dxbc::{lower::lower, text::parse_located};
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit_runtime::format::Format;
use warpjit_runtime::resource::{Buffer, BufferKind, Resource, Texture, TextureDim};
use warpjit_runtime::ConstBanks;

/// A resource to bind before the run: `(uav, slot, resource)`.
type Bind = Box<dyn Fn() -> (bool, u32, Resource)>;

/// Runs `listing` over one thread group under the interpreter and the JIT, each on fresh
/// resources from `binds`; returns the bytes of every UAV slot listed in `read`, per engine.
fn run(listing: &str, binds: &[Bind], read: &[u32]) -> Vec<Vec<Vec<u8>>> {
    run_with(listing, binds, read, ConstBanks::new())
}

/// [`run`] with constant banks.
fn run_with(listing: &str, binds: &[Bind], read: &[u32], consts: ConstBanks) -> Vec<Vec<Vec<u8>>> {
    let (prog, locs) = parse_located(listing).expect("listing parses");
    let lowered = lower(&prog, &locs).expect("program lowers");
    let program = Arc::new(lowered);
    let mut jit = warpjit::jit::Jit::new().expect("jit");
    jit.threshold = 1;
    let engines: [&dyn Engine; 2] = [&warpjit::interp::Interpreter, &jit];
    let mut out = Vec::new();
    for engine in engines {
        let mut m = Machine::default();
        for b in binds {
            let (uav, slot, r) = b();
            if uav {
                m.resources.bind_uav(slot, r).expect("bind");
            } else {
                m.resources.bind_srv(slot, r).expect("bind");
            }
        }
        let launch = Launch {
            block: program.interface.block.expect("a compute shader"),
            shared_bytes: program.interface.shared_bytes,
            ..Launch::new(program.clone(), consts.clone())
        };
        let ro = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        engine
            .run(&m, &launch, &ro)
            .unwrap_or_else(|f| panic!("{}: fault {f}", engine.name()));
        out.push(
            read.iter()
                .map(|&s| m.resources.uav(s).expect("bound").storage().to_bytes())
                .collect(),
        );
    }
    assert_eq!(out[0], out[1], "the JIT and the interpreter disagree");
    out
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn le(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn uav(kind: BufferKind, size: u64) -> Bind {
    uav_at(0, kind, size)
}

fn uav_at(slot: u32, kind: BufferKind, size: u64) -> Bind {
    Box::new(move || {
        (
            true,
            slot,
            Resource::Buffer(Buffer::new(kind, size, &[]).expect("buffer")),
        )
    })
}

#[test]
fn ld_structured_reads_swizzled_words_linearly_and_zero_past_the_end() {
    // t0: 4 structures of 16 bytes, word k of structure i = 100 i + k. Thread i reads structure
    // i at byte offset 4 with the swizzle .yzxw: component c reads the word at 16 i + 4 + 4 s[c]:
    // x <- word 2, y <- word 3, z <- word 1, and w <- 16 i + 16, the first word of the next
    // structure (read linearly past the stride), or 0 past the end of the buffer.
    let listing = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_structured t0, 16
dcl_uav_structured u0, 16
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 32, 1, 1
ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, vThreadID.x, l(4), t0.yzxw
store_structured u0.xyzw, vThreadID.x, l(0), r0.xyzw
ret
";
    let t0: Bind = Box::new(|| {
        let w: Vec<u32> = (0..4)
            .flat_map(|i| (0..4).map(move |k| 100 * i + k))
            .collect();
        let b = Buffer::new(BufferKind::Structured { stride: 16 }, 64, &le(&w)).expect("t0");
        (false, 0, Resource::Buffer(b))
    });
    let out = run(
        listing,
        &[t0, uav(BufferKind::Structured { stride: 16 }, 512)],
        &[0],
    );
    let got = words(&out[0][0]);
    for i in 0..32u32 {
        let want = match i {
            0..=2 => [100 * i + 2, 100 * i + 3, 100 * i + 1, 100 * (i + 1)],
            3 => [302, 303, 301, 0],
            _ => [0; 4],
        };
        assert_eq!(
            &got[4 * i as usize..4 * i as usize + 4],
            &want,
            "thread {i}"
        );
    }
}

#[test]
fn loops_break_continue_and_switch_with_fallthrough_labels() {
    // For i = 1..=6 each lane adds 10 (i = 1), 100 (i = 2, 3: two labels, one body) or 1000
    // (default: 4, 5, 6), except the i equal to n = tid & 3, which it skips with continuec:
    // n = 0 skips none (3210), n = 1 skips the 10 (3200), n = 2 and 3 skip a 100 (3110).
    let listing = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 3
dcl_thread_group 32, 1, 1
mov r0.x, l(0)
mov r0.y, l(0)
and r0.z, vThreadIDInGroup.x, l(3)
loop
  uge r1.x, r0.y, l(6)
  breakc_nz r1.x
  iadd r0.y, r0.y, l(1)
  ieq r1.y, r0.y, r0.z
  continuec_nz r1.y
  switch r0.y
    case l(1)
      iadd r0.x, r0.x, l(10)
      break
    case l(2)
    case l(3)
      iadd r0.x, r0.x, l(100)
      break
    default
      iadd r0.x, r0.x, l(1000)
      break
  endswitch
endloop
ishl r2.x, vThreadIDInGroup.x, l(2)
store_raw u0.x, r2.x, r0.x
ret
";
    let out = run(listing, &[uav(BufferKind::Raw, 128)], &[0]);
    let got = words(&out[0][0]);
    for t in 0..32 {
        assert_eq!(got[t], [3210, 3200, 3110, 3110][t & 3], "thread {t}");
    }
}

#[test]
fn divergent_if_else_and_break_from_inside_an_if() {
    // r0.x counts up by 2 until it reaches tid (a break from inside an if): the smallest even
    // number at least tid. Then odd lanes take the else part: r0.y = 3 r0.x + 1 for even tids,
    // r0.y = r0.x - 1 (iadd with -1) for odd ones.
    let listing = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_thread_group 32, 1, 1
mov r0.x, l(0)
loop
  uge r1.x, r0.x, vThreadIDInGroup.x
  if_nz r1.x
    break
  else
    iadd r0.x, r0.x, l(2)
  endif
endloop
and r1.y, vThreadIDInGroup.x, l(1)
if_z r1.y
  imad r0.y, r0.x, l(3), l(1)
else
  iadd r0.y, r0.x, l(-1)
endif
ishl r1.z, vThreadIDInGroup.x, l(3)
store_raw u0.xy, r1.z, r0.xyxx
ret
";
    let out = run(listing, &[uav(BufferKind::Raw, 256)], &[0]);
    let got = words(&out[0][0]);
    for t in 0..32u32 {
        let x = t + (t & 1);
        let y = if t & 1 == 0 { 3 * x + 1 } else { x - 1 };
        assert_eq!(
            &got[2 * t as usize..2 * t as usize + 2],
            &[x, y],
            "thread {t}"
        );
    }
}

#[test]
fn swizzles_read_every_source_before_any_component_is_written() {
    // r0 = (1, 2, 3, 4); r1 = r0.wzyx + (10, 20, 30, 40) = (14, 23, 32, 41); swapping r0.xy
    // gives (2, 1, 3, 4); then r0 = r0.yzwx + r0 with the old values: (3, 4, 7, 6).
    // Floats: 1.5 * 2.0 = 3.0 (0x40400000), ftoi 3; 1/3 rounds to 0x3eaaaaab; -|x| of -2.0.
    let listing = "cs_5_0
dcl_uav_raw u0
dcl_temps 3
dcl_thread_group 1, 1, 1
mov r0.xyzw, l(1,2,3,4)
iadd r1.xyzw, r0.wzyx, l(10,20,30,40)
mov r0.xy, r0.yxyy
iadd r0.xyzw, r0.yzwx, r0.xyzw
store_raw u0.xyzw, l(0), r1.xyzw
store_raw u0.xyzw, l(16), r0.xyzw
mul r2.x, l(1.500000), l(2.000000)
ftoi r2.y, r2.x
div r2.z, l(1.000000), l(3.000000)
mov r2.w, -|l(-2.000000)|
store_raw u0.xyzw, l(32), r2.xyzw
ret
";
    let out = run(listing, &[uav(BufferKind::Raw, 48)], &[0]);
    assert_eq!(
        words(&out[0][0]),
        vec![
            14,
            23,
            32,
            41,
            3,
            4,
            7,
            6,
            0x4040_0000,
            3,
            0x3eaa_aaab,
            0xc000_0000
        ]
    );
}

#[test]
fn ldms_reads_samples_with_offsets_and_defaults_out_of_range() {
    // t0: a 2x2 R32G32_UINT texture with 4 samples; texel (x, y) sample s holds (10 x + s, y).
    // Thread t loads x = t & 3, y = (t >> 2) & 1, sample t >> 3: in range (x < 2) that is
    // (10 x + s, y) and the defaults (0, 1) for z, w; out of range (0, 0, 0, 1). With
    // _aoffimmi(-1, 0), x - 1 wraps below zero to out of range.
    let listing = "cs_4_1
dcl_resource_texture2dms(4) (uint,uint,uint,uint) t0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 3
dcl_thread_group 32, 1, 1
and r1.x, vThreadIDInGroup.x, l(3)
ushr r1.y, vThreadIDInGroup.x, l(2)
and r1.y, r1.y, l(1)
ushr r1.w, vThreadIDInGroup.x, l(3)
mov r1.z, l(0)
ldms r0.xyzw, r1.xyzw, t0.xyzw, r1.w
ld2dms_aoffimmi(-1,0) r2.xyzw, r1.xyzw, t0.xyzw, r1.w
ishl r1.x, vThreadIDInGroup.x, l(5)
store_raw u0.xyzw, r1.x, r0.xyzw
iadd r1.x, r1.x, l(16)
store_raw u0.xyzw, r1.x, r2.xyzw
ret
";
    let t0: Bind = Box::new(|| {
        let mut w = Vec::new();
        for y in 0..2u32 {
            for x in 0..2u32 {
                for s in 0..4u32 {
                    w.extend([10 * x + s, y]);
                }
            }
        }
        let f = Format::from_name("R32G32_UINT").expect("format");
        let t = Texture::new(TextureDim::Tex2dMs, f, 2, 2, 4, 1, &le(&w)).expect("texture");
        (false, 0, Resource::Texture(t))
    });
    let out = run(listing, &[t0, uav(BufferKind::Raw, 32 * 32)], &[0]);
    let got = words(&out[0][0]);
    let texel = |x: u32, y: u32, s: u32| {
        if x < 2 {
            [10 * x + s, y, 0, 1]
        } else {
            [0, 0, 0, 1]
        }
    };
    for t in 0..32u32 {
        let (x, y, s) = (t & 3, (t >> 2) & 1, t >> 3);
        let at = 8 * t as usize;
        assert_eq!(&got[at..at + 4], &texel(x, y, s), "thread {t}");
        assert_eq!(
            &got[at + 4..at + 8],
            &texel(x.wrapping_sub(1), y, s),
            "thread {t} with offset -1"
        );
    }
}

#[test]
fn atomics_take_effect_lane_by_lane_in_ascending_order() {
    // Word 0 counts: lane l's imm_atomic_iadd sees the l increments of the lanes before it.
    // Word 33 ends as the largest tid (31). The compare-exchange at word 34 succeeds for lane 0
    // only (0 -> 1): lane 0 gets 0, every later lane the 1 it wrote.
    let listing = "cs_5_0
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_thread_group 32, 1, 1
imm_atomic_iadd r0.x, u0, l(0), l(1)
ishl r1.x, vThreadIDInGroup.x, l(2)
iadd r1.y, r1.x, l(4)
store_raw u0.x, r1.y, r0.x
atomic_umax u0, l(132), vThreadIDInGroup.x
iadd r0.y, vThreadIDInGroup.x, l(1)
imm_atomic_cmp_exch r0.z, u0, l(136), l(0), r0.y
iadd r1.y, r1.x, l(140)
store_raw u0.x, r1.y, r0.z
ret
";
    let out = run(listing, &[uav(BufferKind::Raw, 268)], &[0]);
    let got = words(&out[0][0]);
    let mut want = vec![32];
    want.extend(0..32);
    want.push(31);
    want.push(1);
    want.push(0);
    want.extend([1; 31]);
    assert_eq!(got, want);
}

#[test]
fn indexable_temps_are_private_per_thread_and_read_zero_out_of_range() {
    // 64 threads (two warps), each with its own x0[4]: x0 = (1,2,3,4), (t,t,t,t), 7s, 9s; after a
    // barrier (so that arrays shared between the warps would show),
    // x0[0].xy swapped to (2,1). With i = t & 3: r1.xw = x0[i].wx; x0[i + 3].y = 0x55 (in range
    // only for i = 0, dropped otherwise); r1.y = x0[3].y; r1.z = x0[i - 1].x (i = 0 wraps to
    // 0xffffffff: out of range, reads 0).
    let listing = "cs_5_0
dcl_uav_structured u0, 16
dcl_input vThreadID.x
dcl_temps 2
dcl_indexableTemp x0[4], 4
dcl_indexableTemp x1[2], 1
dcl_thread_group 64, 1, 1
mov x0[0].xyzw, l(1,2,3,4)
mov x0[1].xyzw, vThreadID.xxxx
mov x0[2].xyzw, l(7,7,7,7)
mov x1[1].x, l(5)
mov x0[3].xyzw, l(9,9,9,9)
sync_g_t
mov x0[0].xy, x0[0].yxzw
and r0.x, vThreadID.x, l(3)
mov r1.xyzw, x0[r0.x + 0].wzyx
iadd r0.y, r0.x, l(2)
mov x0[r0.y + 1].y, l(85)
mov r1.y, x0[3].y
iadd r0.z, r0.x, l(-1)
mov r1.z, x0[r0.z + 0].x
store_structured u0.xyzw, vThreadID.x, l(0), r1.xyzw
ret
";
    let out = run(
        listing,
        &[uav(BufferKind::Structured { stride: 16 }, 64 * 16)],
        &[0],
    );
    let got = words(&out[0][0]);
    for t in 0..64u32 {
        let want = match t & 3 {
            0 => [4, 85, 0, 2],
            1 => [t, 9, 2, t],
            2 => [7, 9, t, 7],
            _ => [9, 9, 7, 9],
        };
        assert_eq!(
            &got[4 * t as usize..4 * t as usize + 4],
            &want,
            "thread {t}"
        );
    }
}

#[test]
fn append_and_consume_use_the_hidden_counter_in_lane_order() {
    // 64 threads: each odd thread appends its id to u0 (imm_atomic_alloc returns the counter,
    // then increments it); warps run in turn up to the barrier and lanes in ascending order, so
    // slot k gets thread 2k + 1. After the barrier the counter is 32, and threads 0-3 consume
    // (decrement, then return): 31, 30, 29, 28, stored to u1[id].
    let listing = "cs_5_0
dcl_uav_structured u0, 4
dcl_uav_structured u1, 4
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 64, 1, 1
and r0.x, vThreadID.x, l(1)
if_nz r0.x
  imm_atomic_alloc r0.y, u0
  store_structured u0.x, r0.y, l(0), vThreadID.x
endif
sync_g_t
ult r0.x, vThreadID.x, l(4)
if_nz r0.x
  imm_atomic_consume r0.y, u0
  store_structured u1.x, vThreadID.x, l(0), r0.y
endif
ret
";
    let out = run(
        listing,
        &[
            uav(BufferKind::Structured { stride: 4 }, 32 * 4),
            uav_at(1, BufferKind::Structured { stride: 4 }, 16),
        ],
        &[0, 1],
    );
    assert_eq!(
        words(&out[0][0]),
        (0..32).map(|k| 2 * k + 1).collect::<Vec<u32>>()
    );
    assert_eq!(words(&out[0][1]), [31, 30, 29, 28]);
}

#[test]
fn temps_past_the_register_file_live_in_memory_per_thread() {
    // dcl_temps 100: more than the registers hold (r53 and up are kept in memory). r0 = t (the
    // thread id) in every component, r_i = r_(i-1) + (1, 2, 3, 4), so r_i = t + (i, 2i, 3i, 4i);
    // after a barrier (two warps: shared storage would show), r99.xy swap and
    // r50.x = r99.x + r98.w = (t + 198) + (t + 392).
    let mut listing = String::from(
        "cs_5_0
dcl_uav_structured u0, 16
dcl_uav_structured u1, 4
dcl_input vThreadID.x
dcl_temps 100
dcl_thread_group 64, 1, 1
mov r0.xyzw, vThreadID.xxxx
",
    );
    for i in 1..100 {
        listing += &format!("iadd r{i}.xyzw, r{}.xyzw, l(1, 2, 3, 4)\n", i - 1);
    }
    listing += "sync_g_t
mov r99.xy, r99.yxzw
iadd r50.x, r99.x, r98.w
store_structured u0.xyzw, vThreadID.x, l(0), r99.xyzw
store_structured u1.x, vThreadID.x, l(0), r50.x
ret
";
    let out = run(
        &listing,
        &[
            uav(BufferKind::Structured { stride: 16 }, 64 * 16),
            uav_at(1, BufferKind::Structured { stride: 4 }, 64 * 4),
        ],
        &[0, 1],
    );
    let (u0, u1) = (words(&out[0][0]), words(&out[0][1]));
    for t in 0..64u32 {
        assert_eq!(
            &u0[4 * t as usize..4 * t as usize + 4],
            &[t + 198, t + 99, t + 297, t + 396],
            "thread {t}"
        );
        assert_eq!(u1[t as usize], 2 * t + 590, "thread {t}");
    }
}

#[test]
fn groupshared_memory_and_a_barrier_exchange_values_between_warps() {
    // 64 threads (two warps): each writes its id to g0[id], all wait at the barrier, and each
    // reads g0[63 - id]; a g# read past its 256 bytes gives 0.
    let listing = "cs_5_0
dcl_uav_structured u0, 4
dcl_tgsm_structured g0, 4, 64
dcl_input vThreadIDInGroupFlattened
dcl_temps 1
dcl_thread_group 8, 8, 1
store_structured g0.x, vThreadIDInGroupFlattened, l(0), vThreadIDInGroupFlattened
sync_g_t
iadd r0.x, -vThreadIDInGroupFlattened, l(63)
ld_structured r0.y, r0.x, l(0), g0.xxxx
ld_structured r0.z, l(64), l(0), g0.xxxx
iadd r0.y, r0.y, r0.z
store_structured u0.x, vThreadIDInGroupFlattened, l(0), r0.y
ret
";
    let out = run(
        listing,
        &[uav(BufferKind::Structured { stride: 4 }, 256)],
        &[0],
    );
    let got = words(&out[0][0]);
    assert_eq!(got, (0..64).rev().collect::<Vec<u32>>());
}

#[test]
fn typed_uav_stores_convert_and_loads_convert_back() {
    // R8G8B8A8_UNORM: 0.5 * 255 = 127.5 rounds to even, 128; 0.25 * 255 = 63.75 -> 64; -1
    // clamps to 0 and 2 to 255. Read back: 128/255 is 0x3f008081, 64/255 0x3e808081 (the
    // nearest binary32 values), 255/255 is 1.0. Texel (1, 0) is past the 1x1 texture: 0 in
    // all four components (the format has all four).
    let listing = "cs_5_0
dcl_uav_typed_texture2d (unorm,unorm,unorm,unorm) u1
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
store_uav_typed u1.xyzw, l(0,0,0,0), l(0.500000,0.250000,-1.000000,2.000000)
ld_uav_typed r0.xyzw, l(0,0,0,0), u1.xyzw
store_raw u0.xyzw, l(0), r0.xyzw
ld_uav_typed r1.xyzw, l(1,0,0,0), u1.xyzw
store_raw u0.xyzw, l(16), r1.xyzw
ret
";
    let tex: Bind = Box::new(|| {
        let f = Format::from_name("R8G8B8A8_UNORM").expect("format");
        let t = Texture::new(TextureDim::Tex2d, f, 1, 1, 1, 1, &[]).expect("texture");
        (true, 1, Resource::Texture(t))
    });
    let out = run(listing, &[uav(BufferKind::Raw, 32), tex], &[0, 1]);
    assert_eq!(out[0][1], vec![128, 64, 0, 255]);
    assert_eq!(
        words(&out[0][0]),
        vec![0x3f00_8081, 0x3e80_8081, 0, 0x3f80_0000, 0, 0, 0, 0]
    );
}

#[test]
fn immediate_and_relatively_indexed_constant_buffers_read_zero_past_their_size() {
    // icb has two entries: lane i reads icb[(i & 3)].y: 11, 21, then 0 past the end. cb1 is
    // declared with 2 entries and bank 1 holds 100 + word at every word: cb1[i & 3].z reads
    // 100 + 4 (i & 3) + 2 for i & 3 < 2, else 0 (the bank has data there, but past the declared
    // size reads 0).
    let listing = "cs_5_0
dcl_immediateConstantBuffer { { 10, 11, 12, 13},
                              { 20, 21, 22, 23} }
dcl_constantbuffer CB1[2], dynamicIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_thread_group 32, 1, 1
and r1.x, vThreadIDInGroup.x, l(3)
mov r0.x, icb[r1.x + 0].y
mov r0.y, cb1[r1.x + 0].z
mov r0.z, icb[1].w
ishl r1.y, vThreadIDInGroup.x, l(4)
store_raw u0.xyz, r1.y, r0.xyzx
ret
";
    let mut consts = ConstBanks::new();
    let bank: Vec<u32> = (0..64).map(|w| 100 + w).collect();
    consts.write(1, 0, &le(&bank)).expect("bank 1");
    let out = run_with(listing, &[uav(BufferKind::Raw, 512)], &[0], consts);
    let got = words(&out[0][0]);
    for t in 0..32usize {
        let i = (t & 3) as u32;
        let icb = [11, 21, 0, 0][i as usize];
        let cb = if i < 2 { 100 + 4 * i + 2 } else { 0 };
        assert_eq!(&got[4 * t..4 * t + 3], &[icb, cb, 23], "thread {t}");
    }
}

/// Every real fxc fixture in tests/dxbc (tests/dxbc/README.md lists their sources): the compute,
/// vertex and pixel shaders lower from their listing and from their container, and the container
/// lowers to the same IR as the listing `disasm` prints for it (source locations aside); those
/// using what warpjit does not run yet are refused alike from both, with the reason.
#[test]
fn real_fixtures_lower_the_same_from_listing_and_container() {
    use warpjit::frontend::{compile, Options};
    use warpjit::ir::{Isa, SrcLoc};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dxbc");
    let mut lowered = 0;
    let mut refused = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/dxbc") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("asm") {
            continue;
        }
        let opts = Options {
            isa: Isa::Dxbc,
            registers: 255,
            path: path.clone(),
            kernel: None,
        };
        let text = std::fs::read(&path).expect("listing");
        let bin = std::fs::read(path.with_extension("cso")).expect("container");
        match (compile(&text, &opts), compile(&bin, &opts)) {
            (Ok(_), Ok(b)) => {
                // The container's own listing (its float bits printed exactly; fxc's listing
                // prints six decimals, so its literals may differ in the last bits) lowers to
                // the same program.
                let listing =
                    warpjit::dxbc::disassemble(&bin, &path).expect("the container prints");
                let mut a = compile(listing.as_bytes(), &opts).expect("its listing lowers");
                for blk in &mut a.blocks {
                    for i in &mut blk.insts {
                        i.loc = SrcLoc::default();
                    }
                }
                a.lines.clear();
                assert_eq!(a, b, "{}", path.display());
                lowered += 1;
            }
            (Err(a), Err(b)) => {
                // The same refusal, located by line in the listing and by instruction in the
                // container.
                let head = a.headline();
                let message = head.split(" error: ").nth(1).unwrap_or("");
                assert!(
                    b.headline().ends_with(message),
                    "{}: {head} / {}",
                    path.display(),
                    b.headline()
                );
                refused.push(message.to_string());
            }
            (a, b) => panic!(
                "{}: listing {:?}, container {:?}",
                path.display(),
                a.map(|_| ()),
                b.map(|_| ())
            ),
        }
    }
    refused.sort();
    assert_eq!(refused, ["unsupported instruction eval_sample_index"]);
    assert_eq!(lowered, 20);
}

/// Every function op under both engines (`run` asserts they agree bit for bit) on edge values:
/// each lane takes `a`, `b` and `c` from a table of 32 (zero, ones, sign bits, shift amounts
/// around 32, float infinities, NaN, denormals, ...), and every instruction's result is stored.
#[test]
fn every_alu_instruction_agrees_between_the_engines_on_edge_values() {
    let edges: [u32; 32] = [
        0,
        1,
        2,
        5,
        7,
        31,
        32,
        33,
        100,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fffe,
        0x8000_0001,
        0x0080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x4b80_0000,
        0x4049_0fdb,
        0xc2c8_0000,
        0x1234_5678,
        0x9abc_def0,
        0xaaaa_aaaa,
        0x5555_5555,
        0x0000_0003,
    ];
    let ops = [
        "iadd r2.x, r0.x, r0.y",
        "ineg r2.x, r0.x",
        "imul r2.x, r2.y, r0.x, r0.y",
        "umul r2.y, r2.x, r0.x, r0.y",
        "udiv r2.x, r2.y, r0.x, r0.y",
        "udiv r2.y, r2.x, r0.x, r0.y",
        "uaddc r2.y, r2.x, r0.x, r0.y",
        "usubb r2.y, r2.x, r0.x, r0.y",
        "ishl r2.x, r0.x, r0.y",
        "ishl r2.x, r0.x, l(33)",
        "ishr r2.x, r0.x, r0.y",
        "ishr r2.x, r0.x, l(31)",
        "ushr r2.x, r0.x, r0.y",
        "ushr r2.x, r0.x, l(4)",
        "and r2.x, r0.x, r0.y",
        "or r2.x, r0.x, r0.y",
        "xor r2.x, r0.x, r0.y",
        "not r2.x, r0.x",
        "imin r2.x, r0.x, r0.y",
        "imax r2.x, r0.x, r0.y",
        "umin r2.x, r0.x, r0.y",
        "umax r2.x, r0.x, r0.y",
        "ieq r2.x, r0.x, r0.y",
        "ine r2.x, r0.x, r0.y",
        "ilt r2.x, r0.x, r0.y",
        "ige r2.x, r0.x, r0.y",
        "ult r2.x, r0.x, r0.y",
        "uge r2.x, r0.x, r0.y",
        "imad r2.x, r0.x, r0.y, r0.z",
        "umad r2.x, r0.x, l(7), r0.z",
        "movc r2.x, r0.x, r0.y, r0.z",
        "swapc r2.x, r2.y, r0.x, r0.y, r0.z",
        "swapc r2.y, r2.x, r0.x, r0.y, r0.z",
        "bfi r2.x, r0.x, r0.y, r0.z, r0.w",
        "ubfe r2.x, r0.x, r0.y, r0.z",
        "ibfe r2.x, r0.x, r0.y, r0.z",
        "bfrev r2.x, r0.x",
        "countbits r2.x, r0.x",
        "firstbit_hi r2.x, r0.x",
        "firstbit_lo r2.x, r0.x",
        "firstbit_shi r2.x, r0.x",
        "msad r2.x, r0.x, r0.y, r0.z",
        "add r2.x, r0.x, r0.y",
        "add_sat r2.x, -r0.x, |r0.y|",
        "mul r2.x, r0.x, r0.y",
        "div r2.x, r0.x, r0.y",
        "mad r2.x, r0.x, r0.y, r0.z",
        "min r2.x, r0.x, r0.y",
        "max r2.x, -|r0.x|, r0.y",
        "eq r2.x, r0.x, r0.y",
        "ne r2.x, r0.x, r0.y",
        "lt r2.x, r0.x, r0.y",
        "ge r2.x, r0.x, r0.y",
        "sqrt r2.x, r0.x",
        "rsq r2.x, r0.x",
        "rcp r2.x, r0.x",
        "exp r2.x, r0.x",
        "log r2.x, r0.x",
        "frc r2.x, r0.x",
        "round_ne r2.x, r0.x",
        "round_ni r2.x, r0.x",
        "round_pi r2.x, r0.x",
        "round_z r2.x, r0.x",
        "sincos r2.x, r2.y, r0.x",
        "sincos r2.y, r2.x, r0.x",
        "ftoi r2.x, r0.x",
        "ftou r2.x, r0.x",
        "itof r2.x, r0.x",
        "utof r2.x, r0.x",
        "f32tof16 r2.x, r0.x",
        "f16tof32 r2.x, r0.x",
        "dp4 r2.x, r0.xyzw, r0.wzyx",
        "mov r2.x, -r0.x",
        "iadd r2.x, -r0.x, r0.y",
    ];
    let mut listing = String::from(
        "cs_5_0\ndcl_resource_raw t0\ndcl_uav_raw u0\ndcl_input vThreadIDInGroup.x\n\
         dcl_temps 3\ndcl_thread_group 32, 1, 1\n\
         ishl r1.x, vThreadIDInGroup.x, l(2)\n\
         ld_raw r0.x, r1.x, t0.xxxx\n\
         imad r1.y, vThreadIDInGroup.x, l(7), l(3)\nand r1.y, r1.y, l(31)\nishl r1.y, r1.y, l(2)\n\
         ld_raw r0.y, r1.y, t0.xxxx\n\
         imad r1.z, vThreadIDInGroup.x, l(13), l(5)\nand r1.z, r1.z, l(31)\nishl r1.z, r1.z, l(2)\n\
         ld_raw r0.z, r1.z, t0.xxxx\n\
         imad r1.z, vThreadIDInGroup.x, l(11), l(17)\nand r1.z, r1.z, l(31)\nishl r1.z, r1.z, l(2)\n\
         ld_raw r0.w, r1.z, t0.xxxx\n\
         mov r1.w, r1.x\n",
    );
    for op in ops {
        listing.push_str(op);
        listing.push_str("\nstore_raw u0.x, r1.w, r2.x\niadd r1.w, r1.w, l(128)\n");
    }
    listing.push_str("ret\n");
    let table: Vec<u8> = edges.iter().flat_map(|w| w.to_le_bytes()).collect();
    let t0: Bind = Box::new(move || {
        let b = Buffer::new(BufferKind::Raw, 128, &table).expect("t0");
        (false, 0, Resource::Buffer(b))
    });
    let out = run(
        &listing,
        &[t0, uav(BufferKind::Raw, 128 * ops.len() as u64)],
        &[0],
    );
    // Spot checks of values worked out by hand (the engines agreeing is the main assertion):
    // lane 0 has a = 0, b = edges[3] = 5; lane 1 has a = 1, b = edges[10] = 0xffff.
    let got = words(&out[0][0]);
    let at = |op: usize, lane: usize| got[op * 32 + lane];
    assert_eq!((at(0, 0), at(0, 1)), (5, 0x1_0000), "iadd");
    assert_eq!(at(2, 1), 0, "imul hi of 1 * 0xffff");
    assert_eq!(at(3, 1), 0xffff, "umul lo");
    assert_eq!(at(9, 1), 2, "ishl by 33 shifts by 1");
    assert_eq!(at(22, 0), 0, "ieq 0, 5");
    assert_eq!(at(27, 1), 0, "uge 1, 0xffff");
}

/// Texture loads on every format agree between the engines (`run` compares them), in range and
/// out: each texel of a 3x2 Texture2DMSArray of 2 samples and 2 slices holds pseudo-random
/// bytes; 64 threads load x = t mod 4 (3 is past the width), y = (t / 4) mod 3 (2 is past the
/// height), sample (t / 12) mod 3 and slice (t / 3) mod 3 (2 past the count), with and without
/// an immediate offset, and with `ld` at mip level 0 and 1 on a Texture2DArray.
#[test]
fn texture_loads_agree_between_the_engines_on_every_format() {
    let listing = "cs_5_0
dcl_resource_texture2dmsarray(0) (float,float,float,float) t0
dcl_resource_texture2darray (float,float,float,float) t1
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 4
dcl_thread_group 64, 1, 1
and r1.x, vThreadIDInGroup.x, l(3)
udiv r1.y, null, vThreadIDInGroup.x, l(4)
udiv null, r1.y, r1.y, l(3)
udiv r1.w, null, vThreadIDInGroup.x, l(12)
udiv null, r1.w, r1.w, l(3)
udiv r1.z, null, vThreadIDInGroup.x, l(3)
udiv null, r1.z, r1.z, l(3)
ldms_indexable(texture2dmsarray)(float,float,float,float) r0.xyzw, r1.xyzw, t0.xyzw, r1.w
ldms_aoffimmi_indexable(-1,1,0)(texture2dmsarray)(float,float,float,float) r2.xyzw, r1.xyzw, t0.wzyx, r1.w
and r1.w, vThreadIDInGroup.x, l(1)
ld_indexable(texture2darray)(float,float,float,float) r3.xyzw, r1.xyzw, t1.yxwz
ishl r1.x, vThreadIDInGroup.x, l(6)
store_raw u0.xyzw, r1.x, r0.xyzw
iadd r1.x, r1.x, l(16)
store_raw u0.xyzw, r1.x, r2.xyzw
iadd r1.x, r1.x, l(16)
store_raw u0.xyzw, r1.x, r3.xyzw
ret
";
    for &f in Format::ALL {
        let bytes = move |n: usize, seed: u32| -> Vec<u8> {
            (0..n as u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed).rotate_left(13) as u8)
                .collect()
        };
        let eb = f.element_bytes() as usize;
        let t0: Bind = Box::new(move || {
            let data = bytes(3 * 2 * 2 * 2 * eb, 0x5a5a);
            let t = Texture::new(TextureDim::Tex2dMsArray, f, 3, 2, 2, 2, &data).expect("t0");
            (false, 0, Resource::Texture(t))
        });
        let t1: Bind = Box::new(move || {
            let data = bytes(3 * 2 * 2 * eb, 0x1234);
            let t = Texture::new(TextureDim::Tex2dArray, f, 3, 2, 1, 2, &data).expect("t1");
            (false, 1, Resource::Texture(t))
        });
        run(listing, &[t0, t1, uav(BufferKind::Raw, 64 * 64)], &[0]);
    }
}

#[test]
fn icb_typed_stores_view_atomics_and_queries_run_compiled_without_delegation() {
    // One warp, t = thread id. Each thread stores 20 words to u0 at 80 t:
    // r0.x = icb[t & 3].y: 11, 21, then 0 past the two entries; r0.y = icb[(t & 3) + 1].z: 22
    // for t & 3 = 0, else 0.
    // r0.z = imm_atomic_iadd of t at byte 4 (t & 1) of u3 (16 bytes), but at 0xfffffffc (out of
    // range: old value 0, nothing written) for t >= 28: lanes in ascending order, so the old
    // value is the sum of the lanes k < t of t's parity; u3 ends as 0+2+...+26 = 182 and
    // 1+3+...+27 = 196.
    // r0.w = imm_atomic_exch of t on g0[0] after every lane stored 100: 100 for lane 0, t - 1
    // for the others.
    // r1.x = imm_atomic_alloc on u4's counter: t; r1.y = imm_atomic_consume after: 32 - 1 - t.
    // r1.z = bufinfo u1 (R16G16_SINT, 32 bytes): 8 elements; r1.w = bufinfo u3 (raw): 16 bytes.
    // r2 = resinfo_uint of u2 (2x2) at mip t & 1: (2, 2, 0, 1) at mip 0, (0, 0, 0, 1) else
    // (a Texture2D has no depth or array size: z is 0).
    // r3 = resinfo_rcpFloat of t0 (4x2): (1/4, 1/2, 0, 1.0) at mip 0; at mip 1 the width and
    // height are 0 and their reciprocals +inf; z stays 0 and the mip count 1.0.
    // r4.x = sampleinfo_uint of t1 (4 samples): 4; r4.y = sampleinfo: 4.0; r4.zw = 0.
    // store_uav_typed to u1 (R16G16_SINT, 8 elements) element t & 15 of
    // ((t - 20) * 3000, t * 16000 - 304000): elements 8-15 are out of range (dropped), and
    // lane t + 16 overwrites lane t, so element e holds lane e + 16's values, clamped to 16
    // bits: x = (e - 4) * 3000, y = (e - 3) * 16000 clamped to [-32768, 32767].
    // store_uav_typed to u2 (R8G8B8A8_UNORM, 2x2) texel (t & 3, (t >> 2) & 3) of
    // (t / 32, 0.5, -1.0, NaN): texels with a coordinate of 2 or 3 are dropped; texel (x, y)
    // holds lane x + 4y + 16's: R = round-half-even(t / 32 * 255) = 128, 135, 159, 167 for
    // t = 16, 17, 20, 21; G = 127.5 -> 128; B = 0 (clamped); A = 0 (NaN).
    let listing = "cs_5_0
dcl_immediateConstantBuffer { { 10, 11, 12, 13},
                              { 20, 21, 22, 23} }
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2dms(4) (float,float,float,float) t1
dcl_uav_raw u0
dcl_uav_typed_buffer (sint,sint,sint,sint) u1
dcl_uav_typed_texture2d (unorm,unorm,unorm,unorm) u2
dcl_uav_raw u3
dcl_uav_structured u4, 4
dcl_tgsm_raw g0, 8
dcl_input vThreadIDInGroup.x
dcl_temps 8
dcl_thread_group 32, 1, 1
mov r7.x, vThreadIDInGroup.x
and r6.x, r7.x, l(3)
mov r0.x, icb[r6.x + 0].y
mov r0.y, icb[r6.x + 1].z
and r6.y, r7.x, l(15)
imad r5.x, r7.x, l(3000), l(-60000)
imad r5.y, r7.x, l(16000), l(-304000)
mov r5.zw, l(0, 0, 0, 0)
store_uav_typed u1.xyzw, r6.yyyy, r5.xyzw
ushr r6.z, r7.x, l(2)
and r6.z, r6.z, l(3)
utof r5.x, r7.x
mul r5.x, r5.x, l(0.031250)
mov r5.y, l(0.500000)
mov r5.z, l(-1.000000)
mov r5.w, l(0x7fc00000)
store_uav_typed u2.xyzw, r6.xzxx, r5.xyzw
and r6.w, r7.x, l(1)
ishl r6.w, r6.w, l(2)
uge r4.w, r7.x, l(28)
movc r6.w, r4.w, l(0xfffffffc), r6.w
imm_atomic_iadd r0.z, u3, r6.w, r7.x
store_raw g0.x, l(0), l(100)
imm_atomic_exch r0.w, g0, l(0), r7.x
imm_atomic_alloc r1.x, u4
imm_atomic_consume r1.y, u4
bufinfo r1.z, u1.xxxx
bufinfo r1.w, u3.xxxx
and r6.x, r7.x, l(1)
resinfo_uint r2.xyzw, r6.x, u2.xyzw
resinfo_rcpFloat r3.xyzw, r6.x, t0.xyzw
sampleinfo_uint r4.x, t1.x
sampleinfo r4.y, t1.x
mov r4.zw, l(0, 0, 0, 0)
imul null, r6.y, r7.x, l(80)
store_raw u0.xyzw, r6.y, r0.xyzw
iadd r6.y, r6.y, l(16)
store_raw u0.xyzw, r6.y, r1.xyzw
iadd r6.y, r6.y, l(16)
store_raw u0.xyzw, r6.y, r2.xyzw
iadd r6.y, r6.y, l(16)
store_raw u0.xyzw, r6.y, r3.xyzw
iadd r6.y, r6.y, l(16)
store_raw u0.xyzw, r6.y, r4.xyzw
ret
";
    let (prog, locs) = parse_located(listing).expect("listing parses");
    let program = Arc::new(lower(&prog, &locs).expect("program lowers"));
    let mut jit = warpjit::jit::Jit::new().expect("jit");
    jit.threshold = 1;
    let engines: [&dyn Engine; 2] = [&warpjit::interp::Interpreter, &jit];
    let mut outs = Vec::new();
    for engine in engines {
        let mut m = Machine::default();
        let tex = |dim, name, w, h, samples| {
            let f = Format::from_name(name).expect("format");
            Resource::Texture(Texture::new(dim, f, w, h, samples, 1, &[]).expect("texture"))
        };
        let buf = |kind, size| Resource::Buffer(Buffer::new(kind, size, &[]).expect("buffer"));
        let r = &mut m.resources;
        let sint = Format::from_name("R16G16_SINT").expect("format");
        r.bind_srv(0, tex(TextureDim::Tex2d, "R8G8B8A8_UNORM", 4, 2, 1))
            .expect("bind");
        r.bind_srv(1, tex(TextureDim::Tex2dMs, "R8G8B8A8_UNORM", 2, 2, 4))
            .expect("bind");
        r.bind_uav(0, buf(BufferKind::Raw, 32 * 80)).expect("bind");
        r.bind_uav(1, buf(BufferKind::Typed(sint), 32))
            .expect("bind");
        r.bind_uav(2, tex(TextureDim::Tex2d, "R8G8B8A8_UNORM", 2, 2, 1))
            .expect("bind");
        r.bind_uav(3, buf(BufferKind::Raw, 16)).expect("bind");
        r.bind_uav(4, buf(BufferKind::Structured { stride: 4 }, 16))
            .expect("bind");
        let launch = Launch {
            block: program.interface.block.expect("a compute shader"),
            shared_bytes: program.interface.shared_bytes,
            ..Launch::new(program.clone(), ConstBanks::new())
        };
        let ro = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        jit.take_counters();
        engine
            .run(&m, &launch, &ro)
            .unwrap_or_else(|f| panic!("{}: fault {f}", engine.name()));
        if engine.name() != "interp" {
            let c = jit.take_counters();
            assert_eq!(
                (c.interp_blocks, c.delegated),
                (0, 0),
                "every block compiled, no instruction delegated"
            );
        }
        let bytes = |s: u32| m.resources.uav(s).expect("bound").storage().to_bytes();
        outs.push((0..4).map(bytes).collect::<Vec<_>>());
    }
    assert_eq!(outs[0], outs[1], "the JIT and the interpreter disagree");
    let out = &outs[1];
    let u0 = words(&out[0]);
    for t in 0..32u32 {
        let same_parity = (0..t).filter(|k| k % 2 == t % 2).sum::<u32>();
        let mip0 = t & 1 == 0;
        let want = [
            [
                [11, 21, 0, 0][t as usize & 3],
                if t & 3 == 0 { 22 } else { 0 },
                if t < 28 { same_parity } else { 0 },
                if t == 0 { 100 } else { t - 1 },
            ],
            [t, 31 - t, 8, 16],
            // A Texture2D's z is 0 (no array size), reciprocal or not (the resinfo page).
            if mip0 { [2, 2, 0, 1] } else { [0, 0, 0, 1] },
            if mip0 {
                [0x3e80_0000, 0x3f00_0000, 0, 0x3f80_0000]
            } else {
                [0x7f80_0000, 0x7f80_0000, 0, 0x3f80_0000]
            },
            [4, 0x4080_0000, 0, 0],
        ];
        let at = 20 * t as usize;
        assert_eq!(&u0[at..at + 20], want.concat().as_slice(), "thread {t}");
    }
    // Little-endian i16 pairs (computed with Python's struct.pack('<hh', x, y)).
    assert_eq!(
        out[1],
        [
            32, 209, 0, 128, 216, 220, 0, 131, 144, 232, 128, 193, 72, 244, 0, 0, 0, 0, 128, 62,
            184, 11, 0, 125, 112, 23, 255, 127, 40, 35, 255, 127
        ]
    );
    assert_eq!(
        out[2],
        [128, 128, 0, 0, 135, 128, 0, 0, 159, 128, 0, 0, 167, 128, 0, 0]
    );
    assert_eq!(words(&out[3]), [182, 196, 0, 0]);
}

/// `warpjit::stage` for a pixel shader run without a trace: three pixels make one quad whose
/// fourth lane is a helper invocation; each pixel's output is its input plus one, on both
/// engines. Asking
/// for a register, an invocation or a compute shader the stage does not have is a typed error.
#[test]
fn a_pixel_shader_runs_through_the_stage_surface() {
    use warpjit::stage::{Stage, StageError};
    let listing = "ps_5_0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
add o0.xyzw, v0.xyzw, l(1.0, 1.0, 1.0, 1.0)
mov o1.xyzw, l(7.0, 7.0, 7.0, 7.0)
ret
";
    let (prog, locs) = parse_located(listing).expect("listing parses");
    let program = Arc::new(lower(&prog, &locs).expect("program lowers"));
    let mut jit = warpjit::jit::Jit::new().expect("jit");
    jit.threshold = 1;
    let engines: [&dyn Engine; 2] = [&warpjit::interp::Interpreter, &jit];
    for engine in engines {
        let mut m = Machine::default();
        let stage = Stage::bind(&mut m, &program, 3).expect("a pixel shader");
        assert_eq!((stage.invocations, stage.lanes), (3, 4));
        for i in 0..3u32 {
            let v = (10.0 * i as f32).to_bits();
            stage.set_input(&m, i, 0, 0, [v; 4]).expect("v0");
        }
        engine
            .run(&m, &stage.launch(program.clone()), &RunOptions::default())
            .unwrap_or_else(|f| panic!("{}: {f}", engine.name()));
        for i in 0..3u32 {
            let o0 = stage.output(&m, i, 0, 0).expect("o0");
            assert_eq!(
                f32::from_bits(o0[0]),
                10.0 * i as f32 + 1.0,
                "{}",
                engine.name()
            );
        }
        assert_eq!(
            stage.output(&m, 3, 0, 0),
            Err(StageError::OutOfRange {
                what: "invocation",
                value: 3,
                count: 3
            })
        );
        assert_eq!(
            stage.set_input(&m, 0, 0, 1, [0; 4]),
            Err(StageError::OutOfRange {
                what: "v#",
                value: 1,
                count: 1
            })
        );
    }
    let (cs, locs) = parse_located("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n").expect("parses");
    let cs = lower(&cs, &locs).expect("lowers");
    let mut m = Machine::default();
    assert_eq!(Stage::bind(&mut m, &cs, 1), Err(StageError::NotAStage));
}
