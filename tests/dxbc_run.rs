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
    let (prog, locs) = parse_located(listing).expect("listing parses");
    let lowered = lower(&prog, &locs).expect("program lowers");
    let program = Arc::new(lowered.program);
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
            block: lowered.thread_group.expect("a compute shader"),
            shared_bytes: lowered.tgsm_bytes,
            ..Launch::new(program.clone(), ConstBanks::new())
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
    Box::new(move || {
        (
            true,
            0,
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
