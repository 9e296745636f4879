//! Random valid DXBC compute shaders and a differential check of the two engines: the DXBC twin
//! of the SASS generator ([`super::Case`]).
//!
//! [`DxbcCase::generate`] turns bytes (through [`Unstructured`]) into a `cs_5_0` listing (text,
//! so a failing case prints as a program `warpjit` accepts), a thread-group shape and the
//! contents of its resources. Running out of bytes picks the simplest choice.
//!
//! Every program has the same frame: a prologue fills `r0`-`r5` from the thread id and edge
//! values; random statements follow; an epilogue stores `r0`-`r5` of every thread into `u0`
//! (96 bytes a thread), so that the whole state is observable. The random statements draw on
//! the integer and float ALU (modifiers, `_sat`, swizzles and masks, both-result instructions),
//! constant buffers (also relatively indexed), the immediate constant buffer, indexable temps,
//! loads of structured and raw buffers whose sizes are not multiples of their strides (reads
//! straddle the end; some at structure indices whose byte address passes 2^32), texture loads
//! (`ld` on a 2D texture, `ldms` with offsets on a 2D multisampled one and without on a 2D
//! multisampled array, in formats the seed picks: 8-bit UNORM (RGBA and BGRA), 32-bit words and
//! 16-bit floats, in and out of range), loads from declared but unbound slots (`t4`, `t6`), stores and atomics on a raw UAV (some on four words, so that
//! lanes collide), typed stores (`store_uav_typed`) to a typed buffer and a 2D array texture in
//! a format the seed picks (integer, normalized and float formats, in and out of range) and
//! their loads back (`ld_uav_typed`), atomics on a structured UAV, a typed buffer and TGSM,
//! append/consume counters, view queries (`bufinfo`, `resinfo`, `sampleinfo`; also of a
//! mipmapped texture, a cube and a 3D texture), texture sampling (`sample_l`, `sample_d`,
//! `sample_c_lz`, `gather4`, `gather4_c`, `gather4_po` with and without offsets, on a mipmapped
//! 2D texture, a cube, a 3D texture and a 1D array, through samplers of every kind: trilinear
//! wrap, point border, comparison, anisotropic mirror, minimum reduction; coordinates, LODs and
//! derivatives from edge values and small floats), `ld` of mip levels, TGSM with a
//! barrier, and
//! structured control flow (`if`/`else`, bounded `loop`s with `breakc`/`continuec`, `switch`),
//! divergent on the thread id. `r6` and `r7` are the loops' counters: the random code never
//! writes them, so every program ends.
//!
//! [`check_dxbc`] runs the interpreter and the JIT (every block compiled on its first run) and
//! requires the same statistics or fault, the same bytes in every UAV afterwards, and no
//! instruction delegated to the interpreter's code by the JIT.

use crate::exec::{Engine, Launch, Machine, RunOptions, Stats};
use crate::interp::Interpreter;
use crate::jit::Jit;
use arbitrary::{Result, Unstructured};
use std::fmt::Write;
use std::sync::Arc;
use warpjit_runtime::format::Format;
use warpjit_runtime::resource::{Buffer, BufferKind, Resource, Texture, TextureDim};
use warpjit_runtime::{ConstBanks, Fault};

/// Values the random code mixes in: zeros, ones, sign bits, shift counts around 32, float
/// infinities, NaNs, denormals, small integers.
const EDGES: [u32; 24] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0x0000_0001,
    0x807f_ffff,
    0x4b80_0000,
    0x4f00_0000,
    0xcf00_0000,
    0x3effffff,
    0x0000_ffff,
    0x1234_5678,
    0x4049_0fdb,
];

/// Bytes of `u0` each thread stores its registers to.
const SLOT: u32 = 96;
/// The formats of the typed buffer `u2`, one picked per case.
const TYPED_BUFFER_FORMATS: [&str; 7] = [
    "R32_UINT",
    "R16G16_SINT",
    "R8G8B8A8_UNORM",
    "R11G11B10_FLOAT",
    "R32G32B32A32_FLOAT",
    "R16G16B16A16_SNORM",
    "R8_UNORM",
];

/// The formats of the typed texture `u3`, one picked per case.
const TYPED_TEXTURE_FORMATS: [&str; 9] = [
    "R8G8B8A8_UNORM",
    "R16G16B16A16_FLOAT",
    "R10G10B10A2_UINT",
    "R32_FLOAT",
    "R16G16_SNORM",
    "R8G8_SINT",
    "R32G32B32A32_UINT",
    "R32G32_SINT",
    "B8G8R8A8_UNORM",
];

/// The formats of the multisampled textures `t3` and `t5`, one picked per texture and case:
/// the JIT converts the 32-bit-per-component and 8-bit UNORM ones inline, the routine the
/// others.
const MS_FORMATS: [&str; 6] = [
    "R16G16B16A16_FLOAT",
    "R8G8B8A8_UNORM",
    "R32G32B32A32_FLOAT",
    "B8G8R8A8_UNORM",
    "R32G32_UINT",
    "R32G32B32_SINT",
];

/// The formats of the sampled textures `t7` to `t10`, one picked per texture and case.
const SAMPLED_FORMATS: [&str; 7] = [
    "R8G8B8A8_UNORM",
    "R32_FLOAT",
    "R16G16B16A16_FLOAT",
    "R16_UNORM",
    "R32G32B32A32_FLOAT",
    "R32_UINT",
    "R8G8_SNORM",
];

/// UAV slots the programs declare (all compared after a run).
const UAVS: u32 = 5;

/// Threads per group the generator picks from (40: a partial second warp).
const GROUPS: [u32; 3] = [32, 64, 40];

/// One generated shader and its launch.
#[derive(Clone)]
pub struct DxbcCase {
    /// The listing.
    pub text: String,
    /// Threads per group (x).
    pub group: u32,
    /// Groups (x).
    pub grid: u32,
    /// Seed of the resources' contents.
    pub seed: u32,
    /// Whether [`check_dxbc`] also runs every block compiled by tier 2 (one case in 16: a
    /// tier-2 compile of every block of a generated shader takes about 40 times as long as
    /// the rest of the case).
    pub tier2: bool,
}

impl std::fmt::Debug for DxbcCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DxbcCase {{ group: {}, grid: {}, seed: {:#x}, tier2: {} }}\n{}",
            self.group, self.grid, self.seed, self.tier2, self.text
        )
    }
}

/// The generator's state while writing a program.
struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    out: String,
    depth: usize,
    loops: usize,
    budget: usize,
    /// Whether the statements include the hostile shapes ([`DxbcCase::generate_hostile`]).
    hostile: bool,
}

const COMPS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Gen<'_, '_> {
    fn pick<T: Copy>(&mut self, v: &[T]) -> Result<T> {
        Ok(v[self.u.choose_index(v.len())?])
    }

    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A write mask of `r0`-`r5`: `r3.xz`.
    fn dest(&mut self) -> Result<String> {
        let r = self.u.int_in_range(0..=5u8)?;
        let m = self.u.int_in_range(1..=15u8)?;
        let mask: String = (0..4)
            .filter(|c| m & (1 << c) != 0)
            .map(|c| COMPS[c])
            .collect();
        Ok(format!("r{r}.{mask}"))
    }

    /// One destination component: `r2.y`.
    fn dest1(&mut self) -> Result<String> {
        let r = self.u.int_in_range(0..=5u8)?;
        let c = self.pick(&COMPS)?;
        Ok(format!("r{r}.{c}"))
    }

    /// A four-component swizzle.
    fn swizzle(&mut self) -> Result<String> {
        let mut s = String::new();
        for _ in 0..4 {
            s.push(self.pick(&COMPS)?);
        }
        Ok(s)
    }

    /// A source operand: a temp with a swizzle, a literal, a constant-buffer entry (sometimes
    /// relatively indexed), an icb entry, an indexable temp; `float` allows `-` and `|x|`.
    fn src(&mut self, float: bool) -> Result<String> {
        let base = match self.u.int_in_range(0..=9u8)? {
            0..=4 => {
                let r = self.u.int_in_range(0..=7u8)?;
                format!("r{r}.{}", self.swizzle()?)
            }
            5 | 6 => {
                let v: Vec<String> = (0..4)
                    .map(|_| Ok(format!("{:#010x}", self.pick(&EDGES)?)))
                    .collect::<Result<_>>()?;
                return Ok(format!("l({})", v.join(", ")));
            }
            7 => {
                if self.u.arbitrary()? {
                    let i = self.u.int_in_range(0..=7u8)?;
                    format!("cb0[{i}].{}", self.swizzle()?)
                } else {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    let n = self.u.int_in_range(0..=9u8)?;
                    format!("cb0[r{r}.{c} + {n}].{}", self.swizzle()?)
                }
            }
            8 => {
                let r = self.u.int_in_range(0..=5u8)?;
                let c = self.pick(&COMPS)?;
                let n = self.u.int_in_range(0..=5u8)?;
                format!("icb[r{r}.{c} + {n}].{}", self.swizzle()?)
            }
            _ => {
                let n = self.u.int_in_range(0..=4u8)?;
                if self.u.arbitrary()? {
                    format!("x0[{n}].{}", self.swizzle()?)
                } else {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    format!("x0[r{r}.{c} + {n}].{}", self.swizzle()?)
                }
            }
        };
        if !float {
            return Ok(if self.u.ratio(1, 8)? {
                format!("-{base}")
            } else {
                base
            });
        }
        Ok(match self.u.int_in_range(0..=7u8)? {
            0 => format!("-{base}"),
            1 => format!("|{base}|"),
            2 => format!("-|{base}|"),
            _ => base,
        })
    }

    fn sat(&mut self) -> Result<&'static str> {
        Ok(if self.u.ratio(1, 6)? { "_sat" } else { "" })
    }

    /// One ALU instruction.
    fn alu(&mut self) -> Result<()> {
        const INT2: [&str; 20] = [
            "iadd", "and", "or", "xor", "ishl", "ushr", "ishr", "imin", "imax", "umin", "umax",
            "ieq", "ine", "ilt", "ige", "ult", "uge", "ineg", "not", "bfrev",
        ];
        const FLOAT2: [&str; 8] = ["add", "mul", "div", "min", "max", "eq", "lt", "ge"];
        const FLOAT1: [&str; 14] = [
            "mov", "frc", "round_ne", "round_ni", "round_pi", "round_z", "sqrt", "rsq", "rcp",
            "exp", "log", "ftoi", "ftou", "f32tof16",
        ];
        const INT1: [&str; 7] = [
            "countbits",
            "firstbit_hi",
            "firstbit_lo",
            "firstbit_shi",
            "itof",
            "utof",
            "f16tof32",
        ];
        let d = self.dest()?;
        let line = match self.u.int_in_range(0..=11u8)? {
            0..=2 => {
                let op = self.pick(&INT2)?;
                let a = self.src(false)?;
                if matches!(op, "ineg" | "not" | "bfrev") {
                    format!("{op} {d}, {a}")
                } else {
                    let b = self.src(false)?;
                    format!("{op} {d}, {a}, {b}")
                }
            }
            3 | 4 => {
                let op = self.pick(&FLOAT2)?;
                let s = self.sat()?;
                let (a, b) = (self.src(true)?, self.src(true)?);
                format!("{op}{s} {d}, {a}, {b}")
            }
            5 => {
                let op = self.pick(&FLOAT1)?;
                let s = if matches!(op, "ftoi" | "ftou" | "f32tof16") {
                    ""
                } else {
                    self.sat()?
                };
                let a = self.src(true)?;
                format!("{op}{s} {d}, {a}")
            }
            6 => {
                let op = self.pick(&INT1)?;
                let a = self.src(false)?;
                format!("{op} {d}, {a}")
            }
            7 => {
                let s = self.sat()?;
                let (a, b, c) = (self.src(true)?, self.src(true)?, self.src(true)?);
                format!("mad{s} {d}, {a}, {b}, {c}")
            }
            8 => {
                let op = self.pick(&["imad", "umad", "movc", "ubfe", "ibfe"])?;
                let (a, b, c) = (self.src(false)?, self.src(false)?, self.src(false)?);
                format!("{op} {d}, {a}, {b}, {c}")
            }
            9 => {
                let (a, b, c, e) = (
                    self.src(false)?,
                    self.src(false)?,
                    self.src(false)?,
                    self.src(false)?,
                );
                format!("bfi {d}, {a}, {b}, {c}, {e}")
            }
            10 => {
                let op = self.pick(&["dp2", "dp3", "dp4"])?;
                let s = self.sat()?;
                let d = self.dest1()?;
                let (a, b) = (self.src(true)?, self.src(true)?);
                format!("{op}{s} {d}, {a}, {b}")
            }
            _ => {
                // Two results: either may be `null`.
                let op = self.pick(&["udiv", "imul", "umul", "sincos", "swapc"])?;
                let d2 = if self.u.ratio(1, 4)? {
                    "null".to_string()
                } else {
                    self.dest()?
                };
                let (a, b) = (self.src(op == "sincos")?, self.src(false)?);
                match op {
                    "sincos" => format!("sincos {d}, {d2}, {a}"),
                    "swapc" => {
                        let c = self.src(false)?;
                        format!("swapc {d}, {d2}, {a}, {b}, {c}")
                    }
                    _ => format!("{op} {d}, {d2}, {a}, {b}"),
                }
            }
        };
        self.line(&line);
        Ok(())
    }

    /// One resource access.
    fn resource(&mut self) -> Result<()> {
        let r = self.u.int_in_range(0..=5u8)?;
        let c = self.pick(&COMPS)?;
        let line = match self.u.int_in_range(0..=16u8)? {
            0 | 1 => {
                let d = self.dest()?;
                let off = self.pick(&["l(0)", "l(4)", "l(8)", "l(12)", "l(16)"])?;
                let sw = self.swizzle()?;
                format!("ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) {d}, r{r}.{c}, {off}, t0.{sw}")
            }
            2 => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                format!(
                    "ld_raw_indexable(raw_buffer)(mixed,mixed,mixed,mixed) {d}, r{r}.{c}, t1.{sw}"
                )
            }
            3 => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                format!("ld_indexable(texture2d)(float,float,float,float) {d}, r{r}.xyzw, t2.{sw}")
            }
            4 => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                let (du, dv) = (
                    self.u.int_in_range(-2..=2i8)?,
                    self.u.int_in_range(-2..=2i8)?,
                );
                let s = self.src(false)?;
                let s = s.split('.').next().unwrap_or("r0").to_string();
                let sample = if s.starts_with('r') {
                    format!("{s}.x")
                } else {
                    "l(1)".to_string()
                };
                format!("ldms_aoffimmi_indexable({du},{dv},0)(texture2dms)(float,float,float,float) {d}, r{r}.xyzw, t3.{sw}, {sample}")
            }
            5 => {
                let v = self.src(false)?;
                format!("and r6.x, r{r}.{c}, l(0x3fc)\nstore_raw u1.x, r6.x, {v}")
            }
            6 => {
                let v = self.src(false)?;
                let d = self.dest1()?;
                let op = self.pick(&[
                    "imm_atomic_iadd",
                    "imm_atomic_umax",
                    "imm_atomic_xor",
                    "imm_atomic_exch",
                ])?;
                format!("and r6.x, r{r}.{c}, l(0x3fc)\n{op} {d}, u1, r6.x, {v}")
            }
            7 => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                format!("ld_structured {d}, r{r}.{c}, l(0), g0.{sw}")
            }
            8 => {
                let v = self.src(false)?;
                let n = self.u.int_in_range(0..=4u8)?;
                let m = self.pick(&["x", "xy", "yzw", "xyzw"])?;
                format!("mov x0[r{r}.{c} + {n}].{m}, {v}")
            }
            9 => {
                // A typed store to u2 (16 elements): the element masked to 0-31 (half out of
                // range, lanes colliding), or the raw register (mostly far out of range).
                let v = self.src(false)?;
                let a = if self.u.ratio(3, 4)? {
                    self.line(&format!("and r6.x, r{r}.{c}, l(31)"));
                    "r6.xxxx".to_string()
                } else {
                    format!("r{r}.{c}{c}{c}{c}")
                };
                format!("store_uav_typed u2.xyzw, {a}, {v}")
            }
            10 => {
                // A typed store to u3 (3x2, 2 slices): coordinates masked to 0-3, 0-3, 0-2,
                // or raw.
                let v = self.src(false)?;
                let sw = self.swizzle()?;
                let a = if self.u.ratio(3, 4)? {
                    self.line(&format!("and r6.xyz, r{r}.{sw}, l(3, 3, 2, 0)"));
                    "r6.xyzx".to_string()
                } else {
                    format!("r{r}.{sw}")
                };
                format!("store_uav_typed u3.xyzw, {a}, {v}")
            }
            11 => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                if self.u.arbitrary()? {
                    self.line(&format!("and r6.x, r{r}.{c}, l(31)"));
                    format!("ld_uav_typed {d}, r6.xxxx, u2.{sw}")
                } else {
                    self.line(&format!("and r6.xyz, r{r}.xyzw, l(3, 3, 2, 0)"));
                    format!("ld_uav_typed {d}, r6.xyzx, u3.{sw}")
                }
            }
            12 => {
                // Atomics whose lanes collide on few words: u1's first four words, u4's
                // first two structures, u2's first four elements, g1's two words; a quarter of
                // them at the raw register's address (mostly out of range).
                let v = self.src(false)?;
                let w = self.src(false)?;
                let raw = self.u.ratio(1, 4)?;
                let (view, addr) = match self.u.int_in_range(0..=3u8)? {
                    0 => {
                        self.line(&format!("and r6.x, r{r}.{c}, l(12)"));
                        ("u1", "r6.x")
                    }
                    1 => {
                        self.line(&format!("and r6.xy, r{r}.{c}{c}{c}{c}, l(1, 12, 0, 0)"));
                        ("u4", "r6.xyxx")
                    }
                    2 => {
                        self.line(&format!("and r6.x, r{r}.{c}, l(3)"));
                        ("u2", "r6.x")
                    }
                    _ => {
                        self.line(&format!("and r6.x, r{r}.{c}, l(4)"));
                        ("g1", "r6.x")
                    }
                };
                let addr = if raw {
                    format!("r{r}.{c}{c}{c}{c}")
                } else {
                    addr.to_string()
                };
                let op = self.pick(&[
                    "iadd", "and", "or", "xor", "imax", "imin", "umax", "umin", "exch", "cmp_exch",
                ])?;
                let tail = if op == "cmp_exch" {
                    format!("{view}, {addr}, {v}, {w}")
                } else {
                    format!("{view}, {addr}, {v}")
                };
                if op != "exch" && self.u.arbitrary()? {
                    // The form without a result: `atomic_cmp_store` for the compare-exchange.
                    let op = if op == "cmp_exch" { "cmp_store" } else { op };
                    format!("atomic_{op} {tail}")
                } else {
                    let d = self.dest1()?;
                    format!("imm_atomic_{op} {d}, {tail}")
                }
            }
            13 => {
                let d = self.dest1()?;
                let op = self.pick(&["imm_atomic_alloc", "imm_atomic_consume"])?;
                format!("{op} {d}, u4")
            }
            14 => {
                // Buffer loads around the end, past 2^32 and from an unbound slot.
                let d = self.dest()?;
                let sw = self.swizzle()?;
                let ld = "ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed)";
                match self.u.int_in_range(0..=3u8)? {
                    0 => {
                        // Structure 2^28 + k: 2^32 + 16k bytes, out of range (in range if the
                        // address wrapped to 32 bits).
                        self.line(&format!("and r6.x, r{r}.{c}, l(7)"));
                        self.line("iadd r6.x, r6.x, l(0x10000000)");
                        format!("{ld} {d}, r6.x, l(0), t0.{sw}")
                    }
                    1 => {
                        // Structures 0-7 of 5.5: in range, straddling the end, past it.
                        let off = self.pick(&["l(0)", "l(4)", "l(8)", "l(12)"])?;
                        self.line(&format!("and r6.x, r{r}.{c}, l(7)"));
                        format!("{ld} {d}, r6.x, {off}, t0.{sw}")
                    }
                    2 => {
                        // Bytes 0-63 of 60.
                        self.line(&format!("and r6.x, r{r}.{c}, l(63)"));
                        format!("ld_raw_indexable(raw_buffer)(mixed,mixed,mixed,mixed) {d}, r6.x, t1.{sw}")
                    }
                    _ => format!("{ld} {d}, r{r}.{c}, l(0), t4.{sw}"),
                }
            }
            15 => {
                // Texture loads mostly in range, and from an unbound slot.
                let d = self.dest()?;
                let sw = self.swizzle()?;
                match self.u.int_in_range(0..=2u8)? {
                    0 => {
                        // t2 is 4x3.
                        self.line(&format!("and r6.xyzw, r{r}.xyzw, l(7, 3, 0, 0)"));
                        format!("ld_indexable(texture2d)(float,float,float,float) {d}, r6.xyzw, t2.{sw}")
                    }
                    1 => {
                        // t5 is 3x2, 2 slices of 2 samples.
                        self.line(&format!("and r6.xyzw, r{r}.xyzw, l(3, 3, 3, 3)"));
                        format!("ldms_indexable(texture2dmsarray)(float,float,float,float) {d}, r6.xyzw, t5.{sw}, r6.w")
                    }
                    _ => format!(
                        "ld_indexable(texture2d)(float,float,float,float) {d}, r{r}.xyzw, t6.{sw}"
                    ),
                }
            }
            _ => {
                let d = self.dest()?;
                let sw = self.swizzle()?;
                match self.u.int_in_range(0..=3u8)? {
                    0 => {
                        let v = self.pick(&["t0", "t1", "u1", "u2", "u4"])?;
                        format!("bufinfo {d}, {v}.{sw}")
                    }
                    1 => {
                        let f = self.pick(&["", "_uint", "_rcpFloat"])?;
                        let v = self.pick(&["t2", "t3", "u3"])?;
                        let mip = self.src(false)?;
                        format!("resinfo{f} {d}, {mip}, {v}.{sw}")
                    }
                    2 => {
                        // The mip level 0 or 1.
                        self.line(&format!("and r6.x, r{r}.{c}, l(1)"));
                        let f = self.pick(&["", "_uint", "_rcpFloat"])?;
                        let v = self.pick(&["t2", "t3", "u3", "t7", "t8", "t9", "t10"])?;
                        format!("resinfo{f} {d}, r6.x, {v}.{sw}")
                    }
                    _ => {
                        let f = self.pick(&["", "_uint"])?;
                        let v = self.pick(&["t2", "t3", "u3"])?;
                        format!("sampleinfo{f} {d}, {v}.{c}")
                    }
                }
            }
        };
        self.line(&line);
        Ok(())
    }

    /// A float source for sampling: mostly a small value in [-1.5, 2.5) a temp's bits give, else
    /// a random source (edge values: NaN, infinities, denormals, huge).
    /// Written to `dst` (a component of `r8` or `r9`, which only sampling uses).
    fn coord(&mut self, dst: &str) -> Result<()> {
        if self.u.ratio(3, 4)? {
            let r = self.u.int_in_range(0..=5u8)?;
            let c = self.pick(&COMPS)?;
            // (r & 0xfff) / 1024 - 1.5.
            self.line(&format!("and {dst}, r{r}.{c}, l(4095)"));
            self.line(&format!("utof {dst}, {dst}"));
            self.line(&format!("mad {dst}, {dst}, l(0.0009765625), l(-1.5)"));
        } else {
            let s = self.src(true)?;
            self.line(&format!("mov {dst}, {s}"));
        }
        Ok(())
    }

    /// One sampling instruction: `d = op(coordinates, texture, sampler[, extra])`.
    fn sample(&mut self) -> Result<()> {
        // The coordinates in r8 (x, y, z, w), built per component; the LOD or reference in r9.x.
        for k in ["x", "y", "z", "w"] {
            self.coord(&format!("r8.{k}"))?;
        }
        let d = self.dest()?;
        let sw = self.swizzle()?;
        let (tex, dim) = self.pick(&[
            ("t7", "texture2d"),
            ("t8", "texturecube"),
            ("t9", "texture3d"),
            ("t10", "texture1darray"),
        ])?;
        let two_d = dim == "texture2d";
        let off = if !matches!(dim, "texturecube") && self.u.ratio(1, 3)? {
            let o: Vec<i8> = (0..3)
                .map(|_| self.u.int_in_range(-8..=7i8))
                .collect::<Result<_>>()?;
            format!("_aoffimmi({},{},{})", o[0], o[1], o[2])
        } else {
            String::new()
        };
        let kind = self.u.int_in_range(0..=6u8)?;
        let line = match kind {
            0 | 1 => {
                let s = self.pick(&["s0", "s1", "s3", "s4"])?;
                self.coord("r9.x")?;
                format!("sample_l{off}_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {tex}.{sw}, {s}, r9.x")
            }
            2 => {
                let s = self.pick(&["s0", "s1", "s3", "s4"])?;
                let (a, b) = (self.src(true)?, self.src(true)?);
                format!("sample_d{off}_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {tex}.{sw}, {s}, {a}, {b}")
            }
            3 => {
                self.coord("r9.x")?;
                format!("sample_c_lz{off}_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {tex}.xxxx, s2, r9.x")
            }
            4 if two_d || dim == "texturecube" => {
                let c = self.pick(&COMPS)?;
                let s = self.pick(&["s0", "s1", "s4"])?;
                format!("gather4{off}_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {tex}.{sw}, {s}.{c}")
            }
            5 if two_d || dim == "texturecube" => {
                self.coord("r9.x")?;
                format!("gather4_c{off}_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {tex}.{sw}, s2.x, r9.x")
            }
            6 if two_d => {
                let o = self.src(false)?;
                let c = self.pick(&COMPS)?;
                format!("gather4_po_indexable({dim})(float,float,float,float) {d}, r8.xyzw, {o}, {tex}.{sw}, s1.{c}")
            }
            _ => {
                // `ld` of a mip level of t7 (4x4, 3 levels): coordinates and level masked.
                let r = self.u.int_in_range(0..=5u8)?;
                self.line(&format!("and r9.xyzw, r{r}.xyzw, l(7, 7, 0, 3)"));
                format!("ld_indexable(texture2d)(float,float,float,float) {d}, r9.xyzw, t7.{sw}")
            }
        };
        self.line(&line);
        Ok(())
    }

    /// Statements until the budget runs out or the bytes do.
    fn block(&mut self) -> Result<()> {
        while self.budget > 0 && !self.u.is_empty() {
            self.budget -= 1;
            match self.u.int_in_range(0..=19u8)? {
                0..=9 => self.alu()?,
                10..=13 => self.resource()?,
                14 | 15 if self.depth < 3 => {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    let z = self.pick(&["if_nz", "if_z"])?;
                    self.line(&format!("{z} r{r}.{c}"));
                    self.depth += 1;
                    self.block_some()?;
                    if self.u.arbitrary()? {
                        self.line("else");
                        self.block_some()?;
                    }
                    self.depth -= 1;
                    self.line("endif");
                }
                16 if self.depth < 3 && self.loops < 2 => {
                    // r7.<k>: this loop's counter, r6.w its test (never written elsewhere).
                    let k = COMPS[self.loops];
                    let n = self.u.int_in_range(1..=4u8)?;
                    self.line(&format!("mov r7.{k}, l(0)"));
                    self.line("loop");
                    self.line(&format!("uge r6.w, r7.{k}, l({n})"));
                    self.line("breakc_nz r6.w");
                    self.line(&format!("iadd r7.{k}, r7.{k}, l(1)"));
                    self.depth += 1;
                    self.loops += 1;
                    self.block_some()?;
                    if self.u.arbitrary()? {
                        let r = self.u.int_in_range(0..=5u8)?;
                        let c = self.pick(&COMPS)?;
                        let op =
                            self.pick(&["breakc_nz", "continuec_z", "continuec_nz", "breakc_z"])?;
                        self.line(&format!("{op} r{r}.{c}"));
                        self.block_some()?;
                    }
                    self.loops -= 1;
                    self.depth -= 1;
                    self.line("endloop");
                }
                17 if self.depth < 3 => {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    self.line(&format!("and r6.y, r{r}.{c}, l(3)"));
                    self.line("switch r6.y");
                    self.depth += 1;
                    self.line("case l(0)");
                    self.block_some()?;
                    if self.u.arbitrary()? {
                        self.line("break");
                    }
                    self.line("case l(1)");
                    self.block_some()?;
                    self.line("break");
                    self.line("default");
                    self.block_some()?;
                    self.line("break");
                    self.depth -= 1;
                    self.line("endswitch");
                }
                18 if self.depth == 0 => {
                    // TGSM through a barrier in uniform control flow: each thread writes its
                    // slot, all wait, each reads another thread's.
                    let v = self.src(false)?;
                    self.line(&format!(
                        "store_structured g0.xyzw, vThreadIDInGroupFlattened.x, l(0), {v}"
                    ));
                    self.line("sync_g_t");
                    let d = self.dest()?;
                    let r = self.u.int_in_range(0..=5u8)?;
                    self.line(&format!("and r6.z, r{r}.x, l(63)"));
                    self.line(&format!("ld_structured {d}, r6.z, l(0), g0.xyzw"));
                    self.line("sync_g_t");
                }
                19 if self.hostile && self.depth < 3 => self.hostile()?,
                19 => self.sample()?,
                _ => self.alu()?,
            }
        }
        Ok(())
    }

    /// One of the shapes that made loading slow ([`super::hostile`]), small, with statements
    /// inside: nests of up to 24 `loop`s (each left by a lane-varying `breakc` or at its end),
    /// `if`s or `switch`es, a `switch` of up to 40 cases, loops in a row, lane-varying `retc`s.
    /// `r6.x` is set to 1 for the loops' final `breakc` (the random code never writes `r6`).
    fn hostile(&mut self) -> Result<()> {
        let levels = self.u.int_in_range(2..=24usize)?;
        let outer = self.depth;
        match self.u.int_in_range(0..=5u8)? {
            0 => {
                self.line("mov r6.x, l(1)");
                for _ in 0..levels {
                    self.line("loop");
                    self.depth += 1;
                    if self.u.arbitrary()? {
                        let r = self.u.int_in_range(0..=5u8)?;
                        let c = self.pick(&COMPS)?;
                        let op = self.pick(&["breakc_nz", "breakc_z"])?;
                        self.line(&format!("{op} r{r}.{c}"));
                    }
                    self.block_some()?;
                }
                for _ in 0..levels {
                    self.line("breakc_nz r6.x\nendloop");
                }
            }
            1 => {
                for _ in 0..levels {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    let z = self.pick(&["if_nz", "if_z"])?;
                    self.line(&format!("{z} r{r}.{c}"));
                    self.depth += 1;
                    self.block_some()?;
                }
                for _ in 0..levels {
                    if self.u.arbitrary()? {
                        self.line("else");
                        self.block_some()?;
                    }
                    self.line("endif");
                }
            }
            2 => {
                for _ in 0..levels {
                    let r = self.u.int_in_range(0..=5u8)?;
                    self.line(&format!("and r6.y, r{r}.x, l(3)\nswitch r6.y\ncase l(1)"));
                    self.depth += 1;
                    self.block_some()?;
                }
                for _ in 0..levels {
                    self.line("break\ndefault");
                    self.block_some()?;
                    self.line("break\nendswitch");
                }
            }
            3 => {
                let r = self.u.int_in_range(0..=5u8)?;
                let cases = self.u.int_in_range(4..=40u32)?;
                self.line(&format!("and r6.y, r{r}.x, l(63)\nswitch r6.y"));
                self.depth += 1;
                for k in 0..cases {
                    self.line(&format!("case l({k})"));
                    self.block_some()?;
                    if self.u.arbitrary()? {
                        self.line("break");
                    }
                }
                self.line("break\nendswitch");
            }
            4 => {
                self.depth += 1;
                for _ in 0..levels.min(10) {
                    self.line("loop");
                    self.block_some()?;
                    self.line("break\nendloop");
                }
            }
            _ => {
                for _ in 0..levels.min(6) {
                    let r = self.u.int_in_range(0..=5u8)?;
                    let c = self.pick(&COMPS)?;
                    self.line(&format!("retc_z r{r}.{c}"));
                    self.block_some()?;
                }
            }
        }
        self.depth = outer;
        Ok(())
    }

    /// A nested block of up to a few statements.
    fn block_some(&mut self) -> Result<()> {
        let n = self.u.int_in_range(0..=4usize)?.min(self.budget);
        let keep = self.budget - n;
        self.budget = n;
        self.block()?;
        self.budget = keep;
        Ok(())
    }
}

impl DxbcCase {
    /// A case from `u`.
    pub fn generate(u: &mut Unstructured<'_>) -> Result<DxbcCase> {
        Self::generate_with(u, false)
    }

    /// A case from `u` whose statements also include the shapes that made loading slow
    /// ([`super::hostile`]), small: deep nests of `loop`, `if` and `switch`, many cases, loops in
    /// a row, lane-varying `retc`s.
    pub fn generate_hostile(u: &mut Unstructured<'_>) -> Result<DxbcCase> {
        Self::generate_with(u, true)
    }

    fn generate_with(u: &mut Unstructured<'_>, hostile: bool) -> Result<DxbcCase> {
        let group = GROUPS[u.choose_index(GROUPS.len())?];
        let grid = u.int_in_range(1..=2u32)?;
        let seed: u32 = u.arbitrary()?;
        let budget = u.int_in_range(1..=40usize)?;
        let mut g = Gen {
            u,
            out: String::new(),
            depth: 0,
            loops: 0,
            budget,
            hostile,
        };
        g.line("cs_5_0");
        g.line("dcl_globalFlags refactoringAllowed");
        let icb: Vec<String> = (0..6)
            .map(|i| {
                let w = |k: u32| EDGES[((i * 4 + k) as usize * 7 + seed as usize) % EDGES.len()];
                format!(
                    "{{ {:#010x}, {:#010x}, {:#010x}, {:#010x} }}",
                    w(0),
                    w(1),
                    w(2),
                    w(3)
                )
            })
            .collect();
        g.line(&format!(
            "dcl_immediateConstantBuffer {{ {} }}",
            icb.join(",\n")
        ));
        g.line("dcl_constantbuffer CB0[8], dynamicIndexed");
        g.line("dcl_resource_structured t0, 16");
        g.line("dcl_resource_raw t1");
        g.line("dcl_resource_texture2d (float,float,float,float) t2");
        g.line("dcl_resource_texture2dms(2) (float,float,float,float) t3");
        // t4 and t6 stay unbound.
        g.line("dcl_resource_structured t4, 16");
        g.line("dcl_resource_texture2dmsarray(2) (float,float,float,float) t5");
        g.line("dcl_resource_texture2d (float,float,float,float) t6");
        g.line("dcl_resource_texture2d (float,float,float,float) t7");
        g.line("dcl_resource_texturecube (float,float,float,float) t8");
        g.line("dcl_resource_texture3d (float,float,float,float) t9");
        g.line("dcl_resource_texture1darray (float,float,float,float) t10");
        g.line("dcl_sampler s0, mode_default");
        g.line("dcl_sampler s1, mode_default");
        g.line("dcl_sampler s2, mode_comparison");
        g.line("dcl_sampler s3, mode_default");
        g.line("dcl_sampler s4, mode_default");
        g.line("dcl_uav_structured u0, 96");
        g.line("dcl_uav_raw u1");
        g.line("dcl_uav_typed_buffer (uint,uint,uint,uint) u2");
        g.line("dcl_uav_typed_texture2darray (float,float,float,float) u3");
        g.line("dcl_uav_structured u4, 16");
        g.line("dcl_input vThreadIDInGroupFlattened");
        g.line("dcl_input vThreadID.x");
        g.line("dcl_temps 10");
        g.line("dcl_indexableTemp x0[5], 4");
        g.line("dcl_tgsm_structured g0, 16, 64");
        g.line("dcl_tgsm_raw g1, 8");
        g.line(&format!("dcl_thread_group {group}, 1, 1"));
        // Prologue: r0-r5 from the thread id and edge values.
        g.line("mov r0.xyzw, vThreadID.xxxx");
        g.line("iadd r0.yzw, r0.yyzw, l(0, 1, 2, 3)");
        g.line("mov x0[0].xyzw, r0.xyzw");
        for r in 1..6 {
            let v: Vec<String> = (0..4)
                .map(|_| Ok(format!("{:#010x}", g.pick(&EDGES)?)))
                .collect::<Result<_>>()?;
            g.line(&format!("xor r{r}.xyzw, r0.xyzw, l({})", v.join(", ")));
        }
        g.line("mov r6.xyzw, l(0, 0, 0, 0)");
        g.line("mov r7.xyzw, l(0, 0, 0, 0)");
        g.block()?;
        // Epilogue: every thread's r0-r5 to its slot of u0.
        for r in 0..6 {
            g.line(&format!(
                "store_structured u0.xyzw, vThreadID.x, l({}), r{r}.xyzw",
                16 * r
            ));
        }
        g.line("ret");
        // Drawn last, so that the bytes before it make the same program as before it existed;
        // no byte left (common in a short fuzz input) means no tier 2.
        let tier2 = g.u.arbitrary::<u8>()? % 16 == 15;
        Ok(DxbcCase {
            text: g.out,
            group,
            grid,
            seed,
            tier2,
        })
    }

    /// Fresh resources for one run: random contents from the seed.
    fn machine(&self) -> Result<Machine, String> {
        let mut m = Machine::default();
        let mut x = self.seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut bytes = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|i| {
                    let w = next();
                    if i % 5 == 0 {
                        EDGES[(w % EDGES.len() as u32) as usize] as u8
                    } else {
                        w as u8
                    }
                })
                .collect()
        };
        let e = |e: warpjit_runtime::resource::ResourceError| e.to_string();
        // t0: 5 structures of 16 and 8 more bytes: reads straddle its end.
        let t0 = Buffer::new(BufferKind::Structured { stride: 16 }, 88, &bytes(88)).map_err(e)?;
        let t1 = Buffer::new(BufferKind::Raw, 60, &bytes(60)).map_err(e)?;
        let f8 = Format::from_name("R8G8B8A8_UNORM").ok_or("format")?;
        let t2 = Texture::new(TextureDim::Tex2d, f8, 4, 3, 1, 1, &bytes(48)).map_err(e)?;
        let format = |names: &[&str], k: u32| {
            Format::from_name(names[(self.seed >> k) as usize % names.len()]).ok_or("format")
        };
        let f3 = format(&MS_FORMATS, 20)?;
        let n3 = 12 * f3.element_bytes() as usize;
        let t3 = Texture::new(TextureDim::Tex2dMs, f3, 3, 2, 2, 1, &bytes(n3)).map_err(e)?;
        let f5 = format(&MS_FORMATS, 24)?;
        let n5 = 24 * f5.element_bytes() as usize;
        let t5 = Texture::new(TextureDim::Tex2dMsArray, f5, 3, 2, 2, 2, &bytes(n5)).map_err(e)?;
        let threads = (self.group * self.grid) as u64;
        let u0 = Buffer::new(
            BufferKind::Structured { stride: SLOT },
            SLOT as u64 * threads,
            &[],
        )
        .map_err(e)?;
        let u1 = Buffer::new(BufferKind::Raw, 1024, &bytes(1024)).map_err(e)?;
        // u2: 16 elements of a typed buffer, u3: a 3x2 texture of 2 slices, in formats the
        // seed picks; u4: two and a half 16-byte structures (and the append counter).
        let f2 = format(&TYPED_BUFFER_FORMATS, 8)?;
        let n2 = 16 * f2.element_bytes() as usize;
        let u2 = Buffer::new(BufferKind::Typed(f2), n2 as u64, &bytes(n2)).map_err(e)?;
        let f3 = format(&TYPED_TEXTURE_FORMATS, 16)?;
        let n3 = 12 * f3.element_bytes() as usize;
        let u3 = Texture::new(TextureDim::Tex2dArray, f3, 3, 2, 1, 2, &bytes(n3)).map_err(e)?;
        let u4 = Buffer::new(BufferKind::Structured { stride: 16 }, 40, &bytes(40)).map_err(e)?;
        // Sampled textures: t7 4x4 with 3 levels, t8 a cube of 2x2 faces with 2 levels, t9 a
        // 2x2x2 volume with 2 levels, t10 a 1D array of 4 texels, 3 slices; their formats the
        // seed picks among filterable and integer ones.
        use warpjit_runtime::resource::TextureShape;
        let mut sampled = |dim, w, h, depth, layers, mips, k| -> Result<Texture, String> {
            let f = format(&SAMPLED_FORMATS, k)?;
            let shape = TextureShape {
                depth,
                mips,
                ..TextureShape::new(dim, w, h, 1, layers)
            };
            let n = (0..mips).map(|l| shape.level_texels(l)).sum::<u64>() as usize
                * f.element_bytes() as usize;
            Texture::with_shape(shape, f, &bytes(n)).map_err(e)
        };
        let t7 = sampled(TextureDim::Tex2d, 4, 4, 1, 1, 3, 3)?;
        let t8 = sampled(TextureDim::TexCube, 2, 2, 1, 6, 2, 6)?;
        let t9 = sampled(TextureDim::Tex3d, 2, 2, 2, 1, 2, 9)?;
        let t10 = sampled(TextureDim::Tex1dArray, 4, 1, 1, 3, 1, 12)?;
        let r = &mut m.resources;
        r.bind_srv(7, Resource::Texture(t7)).map_err(e)?;
        r.bind_srv(8, Resource::Texture(t8)).map_err(e)?;
        r.bind_srv(9, Resource::Texture(t9)).map_err(e)?;
        r.bind_srv(10, Resource::Texture(t10)).map_err(e)?;
        use warpjit_runtime::sampler::{
            AddressMode, ComparisonFunc, Filter, Reduction, SamplerState,
        };
        let d = SamplerState::DEFAULT;
        let states = [
            SamplerState {
                address: [AddressMode::Wrap; 3],
                ..d
            },
            SamplerState {
                min: Filter::Point,
                mag: Filter::Point,
                mip: Filter::Point,
                address: [
                    AddressMode::Border,
                    AddressMode::Mirror,
                    AddressMode::Border,
                ],
                border_color: [0.25, -1.0, 7.5, f32::INFINITY],
                ..d
            },
            SamplerState {
                reduction: Reduction::Comparison,
                comparison: ComparisonFunc::LessEqual,
                address: [AddressMode::Border; 3],
                border_color: [0.5, 0.0, 0.0, 0.0],
                ..d
            },
            SamplerState {
                anisotropic: true,
                max_anisotropy: 4,
                address: [AddressMode::Mirror; 3],
                mip_lod_bias: 0.5,
                ..d
            },
            SamplerState {
                reduction: Reduction::Minimum,
                address: [AddressMode::MirrorOnce; 3],
                min_lod: 0.5,
                max_lod: 1.25,
                ..d
            },
        ];
        for (k, st) in states.into_iter().enumerate() {
            r.bind_sampler(k as u32, st).map_err(e)?;
        }
        r.bind_srv(0, Resource::Buffer(t0)).map_err(e)?;
        r.bind_srv(1, Resource::Buffer(t1)).map_err(e)?;
        r.bind_srv(2, Resource::Texture(t2)).map_err(e)?;
        r.bind_srv(3, Resource::Texture(t3)).map_err(e)?;
        r.bind_srv(5, Resource::Texture(t5)).map_err(e)?;
        r.bind_uav(0, Resource::Buffer(u0)).map_err(e)?;
        r.bind_uav(1, Resource::Buffer(u1)).map_err(e)?;
        r.bind_uav(2, Resource::Buffer(u2)).map_err(e)?;
        r.bind_uav(3, Resource::Texture(u3)).map_err(e)?;
        r.bind_uav(4, Resource::Buffer(u4)).map_err(e)?;
        Ok(m)
    }

    /// The launch: the program lowered, cb0 with random words.
    pub fn launch(&self) -> Result<Launch, String> {
        let (prog, locs) = crate::dxbc::text::parse_located(&self.text)
            .map_err(|e| format!("generated listing does not parse: {e:?}\n{self:?}"))?;
        let program = crate::dxbc::lower::lower(&prog, &locs)
            .map_err(|e| format!("generated listing does not lower: {e}\n{self:?}"))?;
        let mut consts = ConstBanks::new();
        let words: Vec<u8> = (0..32u32)
            .flat_map(|i| EDGES[((i * 5 + self.seed) as usize) % EDGES.len()].to_le_bytes())
            .collect();
        consts.write(0, 0, &words);
        let shared = program.interface.shared_bytes;
        Ok(Launch {
            grid: [self.grid, 1, 1],
            block: [self.group, 1, 1],
            mode: warpjit_runtime::BankMode::Graphics,
            shared_bytes: shared,
            ..Launch::new(Arc::new(program), consts)
        })
    }
}

/// What one run gave: the statistics or the fault, and both UAVs' bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct DxbcOutcome {
    /// Warps, warp and lane instructions, or the fault.
    pub result: std::result::Result<(u64, u64, u64), Fault>,
    /// Every UAV's bytes afterwards.
    pub uavs: Vec<Vec<u8>>,
}

/// One run's outcome.
fn run(case: &DxbcCase, engine: &dyn Engine, launch: &Launch) -> Result<DxbcOutcome, String> {
    let m = case.machine()?;
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let stats = engine.run(&m, launch, &opts);
    let result = stats.map(|s: Stats| (s.warps, s.warp_insts, s.lane_insts));
    let uavs = (0..UAVS)
        .map(|s| {
            m.resources
                .uav(s)
                .map(|r| r.storage().to_bytes())
                .unwrap_or_default()
        })
        .collect();
    Ok(DxbcOutcome { result, uavs })
}

/// Runs `case` under the interpreter and the JIT (every block compiled by tier 1 on its first
/// run; twice, the second run reusing the code; then, with `case.tier2`, once more with every
/// block compiled by tier 2) and requires identical outcomes.
pub fn check_dxbc(case: &DxbcCase) -> std::result::Result<DxbcOutcome, String> {
    let launch = case.launch()?;
    let want = run(case, &Interpreter, &launch)?;
    let mut jit = Jit::new().map_err(|e| e.to_string())?;
    jit.threshold = 1;
    jit.hot_threshold = u32::MAX;
    for pass in 0..2 + case.tier2 as usize {
        if pass == 2 {
            jit.compile_all_tier(&launch.program, crate::jit::Tier::Two)
                .map_err(|e| format!("the JIT cannot compile a block at tier 2: {e}\n{case:?}"))?;
        }
        jit.take_counters();
        let got = run(case, &jit, &launch)?;
        let delegated = jit.take_counters().delegated;
        if delegated != 0 {
            return Err(format!(
                "the JIT delegated {delegated} instruction executions to the interpreter's code\n{case:?}"
            ));
        }
        if got != want {
            let mut why = String::new();
            if got.result != want.result {
                let _ = write!(
                    why,
                    "outcome: interpreter {:?}, JIT {:?}",
                    want.result, got.result
                );
            }
            for (s, (a, b)) in want.uavs.iter().zip(&got.uavs).enumerate() {
                if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
                    let _ = write!(
                        why,
                        " u{s} byte {i:#x} (thread {}, word {}): interpreter {:#04x}, JIT {:#04x}",
                        i / SLOT as usize,
                        i % SLOT as usize / 4,
                        a[i],
                        b[i]
                    );
                    break;
                }
            }
            return Err(format!(
                "the engines disagree (JIT run {}): {why}\n{case:?}",
                pass + 1
            ));
        }
    }
    if !jit.errors().is_empty() {
        return Err(format!(
            "the JIT failed to compile: {:?}\n{case:?}",
            jit.errors()
        ));
    }
    Ok(want)
}
