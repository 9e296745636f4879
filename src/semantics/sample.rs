//! Texture sampling (DXBC `sample*`, `gather4*`, `lod`) and screen-space derivatives
//! (`deriv_rt*`), defined once as pure functions of the texture, the sampler state and one
//! lane's operands: the same bits on every host, for both engines (docs/semantics.md §32 and
//! §33 state every rule and where it comes from).
//!
//! The definition follows the Direct3D 11.3 functional specification, §7.18 (texture sampling),
//! and the instruction pages of `sample` to `lod`; where the specification leaves freedom, one
//! choice is made and documented:
//!
//! - **Coordinates** are reduced in f32 arithmetic as §7.18.6 writes it (wrap: `u - floor(u)`;
//!   mirror: `u - 2 trunc(u / 2)`; the others clamped to [-10, 10]), then converted to fixed point
//!   with 8 fraction bits (the specification's minimum) from the *exact* product `u × size`
//!   (minus 0.5 for a linear filter), rounded to nearest even ([`fixed8`]). The texel is the
//!   integer part, the weight of the next one the fraction / 256, both exact.
//! - **Address modes** apply to the integer texel index (§7.18.9); a border texel is the
//!   sampler's border colour clamped to the format's range ([`border_texel`]).
//! - **LOD** is computed in f64 from the derivatives scaled by the level-0 size (isotropic:
//!   `log2(max(|dX|, |dY|))`; anisotropic as §7.18.11's pseudocode, without the optional
//!   Jacobian orthogonalisation), biased, clamped to `[min_lod, max_lod]` with Direct3D's NaN
//!   rules, then converted to 8.8 fixed point (round to nearest even, within [-128, 128]).
//!   Magnification is `LOD <= 0`; a point mip filter takes level `floor(LOD + 0.5)`, a linear
//!   one levels `floor(LOD)` and `floor(LOD) + 1` weighted by the fraction, all clamped to the
//!   texture's levels.
//! - **Filtering**: each texel of the footprint has a weight (the product of its axes' weights,
//!   its level's weight and, anisotropic, 1 / taps); texels of weight 0 are left out. A footprint
//!   of one texel of weight 1 returns that texel's bits unchanged (point sampling is exact);
//!   otherwise each channel is the f64 sum, in footprint order, of the flushed values × weights,
//!   rounded to f32 with denormals flushed and NaN canonical. Formats with an integer channel
//!   are always point-sampled. Minimum and maximum reductions take Direct3D's `min`/`max` of the
//!   footprint.
//! - **Anisotropy** (2D textures, `Grad` samples, an anisotropic sampler): `ceil(ratio)` taps
//!   (at most `max_anisotropy`) evenly spaced along the major axis of the footprint, each a
//!   trilinear sample at the minor axis's LOD, averaged.
//! - **Cubes** pick the face of the largest coordinate (ties: z, then y, then x), project as
//!   §7.18.7 writes it in f32, and filter across edges onto the adjacent faces; at a corner the
//!   missing texel's weight is split evenly among the three others (the reference behaviour
//!   of §7.18.12). Address modes and offsets do not apply to cubes.

use crate::ir::SampleFn;
use crate::semantics::d3d::{self, flush, CANONICAL_NAN};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpjit_runtime::format::{decode_component, Format, Kind};
use warpjit_runtime::resource::{Texture, TextureDim};
use warpjit_runtime::sampler::{AddressMode, ComparisonFunc, Filter, Reduction, SamplerState};

/// One lane's operands of a sample (f32 values as bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleArgs {
    /// Coordinates (u, v, w or a cube direction, and the array index where there is one).
    pub coord: [u32; 4],
    /// Derivatives of u, v, w along x.
    pub ddx: [u32; 3],
    /// Derivatives of u, v, w along y.
    pub ddy: [u32; 3],
    /// The LOD of a [`SampleFn::Level`] sample, the bias of a [`SampleFn::Grad`] one.
    pub lod: u32,
    /// The comparison reference.
    pub reference: u32,
    /// Texel offsets along u, v, w (immediate, or `gather4_po`'s sign-extended 6 bits).
    pub offset: [i32; 3],
}

/// The largest magnitude a coordinate keeps before fixed-point conversion (2^20: far outside
/// any texture; only a cube's degenerate projections reach it).
pub const COORD_LIMIT: f32 = 1_048_576.0;

/// A texel's four values as a load of its format returns them, or the border colour.
type Texel = [u32; 4];

/// One texel of a footprint and its weight.
#[derive(Clone, Copy, Debug)]
struct Tap {
    texel: Texel,
    weight: f64,
}

/// The f32 a sample reads from an operand: denormals flushed (Direct3D's float rules apply to
/// texture address arithmetic).
fn fin(x: u32) -> f32 {
    f32::from_bits(flush(x))
}

/// A computed float written as a result: NaN canonical, denormals flushed.
fn fout(x: f64) -> u32 {
    let f = x as f32;
    if f.is_nan() {
        CANONICAL_NAN
    } else {
        flush(f.to_bits())
    }
}

/// The exact value of `u × n × 256` (minus 128 when `half`: a linear filter's − 0.5 texel),
/// rounded to the nearest integer, ties to even: `u` in texel space as fixed point with 8
/// fraction bits. NaN gives 0 (the specification's conversion of NaN), and a magnitude past
/// [`COORD_LIMIT`] counts as the limit.
pub fn fixed8(u: f32, n: u32, half: bool) -> i64 {
    if u.is_nan() {
        return 0;
    }
    // The common case in binary64, exactly: a normal f32 (24 significant bits) times a size
    // below 2^24 and 256 is exact, and subtracting 128 is exact whenever the product is at
    // least 2^-7 (and otherwise cannot move the result off -128, nor make a tie).
    if (u.is_normal() || u == 0.0) && u.abs() <= COORD_LIMIT && n < 1 << 24 {
        let x = u as f64 * n as f64 * 256.0;
        let x = if half { x - 128.0 } else { x };
        return x.round_ties_even() as i64;
    }
    let u = u.clamp(-COORD_LIMIT, COORD_LIMIT);
    let bits = u.to_bits();
    let ex = (bits >> 23 & 0xff) as i32;
    let mut m = (bits & 0x7f_ffff) as i128;
    let e = if ex == 0 {
        -149
    } else {
        m |= 1 << 23;
        ex - 150
    };
    if bits >> 31 != 0 {
        m = -m;
    }
    // u × n × 256 = m × n × 2^(e + 8).
    let p = m * n as i128;
    let sh = e + 8;
    let bias: i128 = if half { 128 } else { 0 };
    if sh >= 0 {
        return ((p << sh) - bias) as i64;
    }
    let k = -sh;
    if k > 90 {
        // |p / 2^k| < 2^-52: nowhere near a tie.
        return -bias as i64;
    }
    let num = p - (bias << k);
    let q = num >> k;
    let r = num - (q << k);
    let halfway = 1i128 << (k - 1);
    let q = if r > halfway || (r == halfway && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    q as i64
}

/// §7.18.6's range reduction of a normalized coordinate for an address mode, in f32 arithmetic.
pub fn reduce(u: f32, mode: AddressMode) -> f32 {
    match mode {
        AddressMode::Wrap => u - u.floor(),
        // `signedFrac(u / 2) * 2`: exact (the result is a multiple of u's ulp below |u|).
        AddressMode::Mirror => {
            let x = u as f64;
            (x - 2.0 * (x / 2.0).trunc()) as f32
        }
        AddressMode::Clamp | AddressMode::Border | AddressMode::MirrorOnce => {
            // NaN stays NaN.
            u.clamp(-10.0, 10.0)
        }
    }
}

/// §7.18.9: a texel index `t` outside `[0, n)` brought back by the address mode; `None`:
/// the border colour.
pub fn address(t: i64, n: u32, mode: AddressMode) -> Option<u32> {
    let n = n as i64;
    if (0..n).contains(&t) {
        return Some(t as u32);
    }
    let i = match mode {
        AddressMode::Wrap => t.rem_euclid(n),
        AddressMode::Mirror => {
            let t = if t < 0 { -t - 1 } else { t };
            let flip = (t / n) & 1 == 1;
            let t = t % n;
            if flip {
                n - t - 1
            } else {
                t
            }
        }
        AddressMode::Clamp => t.clamp(0, n - 1),
        AddressMode::MirrorOnce => {
            let t = if t < 0 { -t - 1 } else { t };
            t.clamp(0, n - 1)
        }
        AddressMode::Border => return None,
    };
    Some(i as u32)
}

/// The taps of one axis: the texel index and its weight, one tap (point) or two (linear;
/// the second's weight is the fraction, which may be 0).
fn axis_taps(fx: i64, linear: bool) -> [(i64, f64); 2] {
    if linear {
        let w = (fx & 255) as f64 / 256.0;
        [(fx >> 8, 1.0 - w), ((fx >> 8) + 1, w)]
    } else {
        [(fx >> 8, 1.0), (0, 0.0)]
    }
}

/// Whether every channel of the format is read as a float (UNORM, SNORM, FLOAT): only such
/// formats are filtered; the others are point-sampled.
fn filterable(f: Format) -> bool {
    f.components()
        .iter()
        .all(|c| !matches!(c.kind, Kind::Uint | Kind::Sint))
}

/// The border colour as a texel of the format: each channel the format has is the colour's,
/// clamped to the format's range (UNORM [0, 1], SNORM [-1, 1]; a float as it is, denormals
/// flushed; a UINT or SINT channel the colour converted as `ftou`/`ftoi` convert), the others
/// the format's defaults.
pub fn border_texel(f: Format, color: [f32; 4]) -> Texel {
    let mut out = f.defaults();
    for c in f.components() {
        let b = color[c.channel as usize];
        out[c.channel as usize] = match c.kind {
            Kind::Unorm => d3d::sat(b.to_bits()),
            Kind::Snorm => d3d::max((-1.0f32).to_bits(), d3d::min(1.0f32.to_bits(), b.to_bits())),
            Kind::Float => flush(b.to_bits()),
            Kind::Uint => d3d::ftou(b.to_bits()),
            Kind::Sint => d3d::ftoi(b.to_bits()),
        };
    }
    out
}

/// The reference of a comparison quantized to the precision of the format's red channel, as
/// a depth value is before a depth test: UNORM and SNORM through their code (clamped), 16-,
/// 11- and 10-bit floats through Direct3D's conversion to them, 32-bit floats and integer
/// channels flushed only.
fn quantize_reference(f: Format, r: u32) -> f32 {
    use warpjit_runtime::format as fm;
    let r = flush(r);
    let Some(c) = f.components().iter().find(|c| c.channel == 0) else {
        return f32::from_bits(r);
    };
    let q = match c.kind {
        Kind::Unorm => fm::unorm_to_f32(fm::f32_to_unorm(r, c.bits), c.bits),
        Kind::Snorm => fm::snorm_to_f32(fm::f32_to_snorm(r, c.bits), c.bits),
        Kind::Float if c.bits < 32 => {
            let (m, signed) = match c.bits {
                16 => (10, true),
                11 => (6, false),
                _ => (5, false),
            };
            fm::small_float_to_f32(fm::f32_to_small_float_rtz(r, m, signed), m, signed)
        }
        _ => r,
    };
    f32::from_bits(q)
}

/// The red channel of a texel as a comparison reads it: a float channel flushed, an integer
/// one converted to the nearest f32.
fn compared_red(f: Format, t: &Texel) -> f32 {
    match f
        .components()
        .iter()
        .find(|c| c.channel == 0)
        .map(|c| c.kind)
    {
        Some(Kind::Uint) => f32::from_bits(d3d::utof(t[0])),
        Some(Kind::Sint) => f32::from_bits(d3d::itof(t[0])),
        _ => fin(t[0]),
    }
}

/// `reference OP texel` with Direct3D's float comparison rules (NaN compares unequal and
/// unordered).
pub fn compare(op: ComparisonFunc, r: f32, t: f32) -> bool {
    match op {
        ComparisonFunc::Never => false,
        ComparisonFunc::Less => r < t,
        ComparisonFunc::Equal => r == t,
        ComparisonFunc::LessEqual => r <= t,
        ComparisonFunc::Greater => r > t,
        ComparisonFunc::NotEqual => r != t,
        ComparisonFunc::GreaterEqual => r >= t,
        ComparisonFunc::Always => true,
    }
}

/// One component of a format as the fetch decodes it.
#[derive(Clone, Copy)]
struct Comp {
    channel: usize,
    offset: u32,
    bits: u8,
    kind: Kind,
    /// The 256 decoded values of an 8-bit UNORM or SNORM code.
    table: Option<&'static [u32; 256]>,
}

/// The values each 8-bit code of `kind` decodes to ([`decode_component`]), computed once.
fn table8(kind: Kind) -> Option<&'static [u32; 256]> {
    use std::sync::OnceLock;
    static TABLES: [OnceLock<[u32; 256]>; 2] = [const { OnceLock::new() }; 2];
    let i = match kind {
        Kind::Unorm => 0,
        Kind::Snorm => 1,
        _ => return None,
    };
    Some(TABLES[i].get_or_init(|| std::array::from_fn(|c| decode_component(kind, 8, c as u32))))
}

/// Sampling one texture through one sampler, prepared once for the lanes of an instruction:
/// the texture's levels and its format's decoding (what [`warpjit_runtime::format::decode`]
/// returns, by the format's own components), the border texel, the filters that apply.
pub struct TextureSampler<'a> {
    t: &'a Texture,
    s: &'a SamplerState,
    words: &'a [AtomicU32],
    /// Bytes per texel.
    elem: u64,
    /// Byte offset and (width, height, depth) of each level.
    levels: [(u64, [u32; 3]); 16],
    comps: [Option<Comp>; 4],
    defaults: [u32; 4],
    /// The decoded border colour.
    border: Texel,
    /// Whether the format is filtered (no integer channel).
    filterable: bool,
}

impl<'a> TextureSampler<'a> {
    /// Prepares sampling `t` through `s`.
    pub fn new(t: &'a Texture, s: &'a SamplerState) -> TextureSampler<'a> {
        let f = t.format();
        let shape = t.shape();
        let mut levels = [(0u64, [1u32; 3]); 16];
        for (l, slot) in levels.iter_mut().enumerate().take(t.mips() as usize) {
            *slot = (
                t.level_offset(l as u32).unwrap_or(0),
                shape.level_size(l as u32),
            );
        }
        let mut comps = [None; 4];
        for (k, c) in f.components().iter().enumerate().take(4) {
            comps[k] = Some(Comp {
                channel: c.channel as usize,
                offset: c.offset as u32,
                bits: c.bits,
                kind: c.kind,
                table: if c.bits == 8 { table8(c.kind) } else { None },
            });
        }
        TextureSampler {
            t,
            s,
            words: t.storage().words(),
            elem: f.element_bytes() as u64,
            levels,
            comps,
            defaults: f.defaults(),
            border: border_texel(f, s.border_color),
            filterable: filterable(f),
        }
    }

    /// The decoded texel of level `level` at `(x, y)` of `slice` (all in range): the same
    /// values as [`Texture::load_at`].
    #[inline]
    fn fetch(&self, level: u32, x: u32, y: u32, slice: u32) -> Texel {
        let (base, [w, h, _]) = self.levels[level as usize];
        let off = base + ((slice as u64 * h as u64 + y as u64) * w as u64 + x as u64) * self.elem;
        let first = (off / 4) as usize;
        let bits: u128 = if self.elem <= 4 {
            // A texel of 1, 2 or 4 bytes never straddles a word.
            let word = self.words[first].load(Relaxed);
            (word >> (8 * (off % 4))) as u128
        } else {
            let mut v = 0u128;
            for k in 0..(self.elem / 4) as usize {
                v |= (self.words[first + k].load(Relaxed) as u128) << (32 * k);
            }
            v
        };
        let mut out = self.defaults;
        for c in self.comps.iter().flatten() {
            let mask = if c.bits >= 32 {
                u32::MAX
            } else {
                (1u32 << c.bits) - 1
            };
            let raw = (bits >> c.offset) as u32 & mask;
            out[c.channel] = match c.table {
                Some(t) => t[raw as usize],
                None => decode_component(c.kind, c.bits, raw),
            };
        }
        out
    }
}

/// One sample's view of its [`TextureSampler`]: the quantized reference of a comparison.
struct Ctx<'a> {
    ts: &'a TextureSampler<'a>,
    t: &'a Texture,
    s: &'a SamplerState,
    /// The quantized reference, for a comparison.
    reference: Option<f32>,
}

impl Ctx<'_> {
    /// A texel of level `level` at `(x, y)` of `slice` (layer, or a 3D texture's depth), as
    /// the footprint uses it: decoded, or compared (1.0 / 0.0 in every channel).
    fn texel(&self, level: u32, x: u32, y: u32, slice: u32) -> Texel {
        let v = self.ts.fetch(level, x, y, slice);
        self.finish(v)
    }

    /// The border colour, as [`Ctx::texel`] gives a texel.
    fn border(&self) -> Texel {
        self.finish(self.ts.border)
    }

    fn finish(&self, v: Texel) -> Texel {
        match self.reference {
            Some(r) => {
                let pass = compare(self.s.comparison, r, compared_red(self.t.format(), &v));
                [if pass { 1.0f32 } else { 0.0 }.to_bits(); 4]
            }
            None => v,
        }
    }
}

/// The reduction of a footprint, accumulated tap by tap in footprint order.
struct Acc {
    reduction: Reduction,
    count: u32,
    first: Tap,
    sum: [f64; 4],
    extreme: [u32; 4],
}

impl Acc {
    fn new(reduction: Reduction) -> Acc {
        Acc {
            reduction,
            count: 0,
            first: Tap {
                texel: [0; 4],
                weight: 0.0,
            },
            sum: [0.0; 4],
            extreme: [0; 4],
        }
    }

    #[inline]
    fn push(&mut self, texel: Texel, weight: f64) {
        if self.count == 0 {
            self.first = Tap { texel, weight };
            self.extreme = texel.map(flush);
        } else {
            match self.reduction {
                Reduction::Minimum => {
                    for (e, &t) in self.extreme.iter_mut().zip(&texel) {
                        *e = d3d::min(*e, t);
                    }
                }
                Reduction::Maximum => {
                    for (e, &t) in self.extreme.iter_mut().zip(&texel) {
                        *e = d3d::max(*e, t);
                    }
                }
                Reduction::Standard | Reduction::Comparison => {}
            }
        }
        self.count += 1;
        for (s, &t) in self.sum.iter_mut().zip(&texel) {
            *s += fin(t) as f64 * weight;
        }
    }

    /// The result of a footprint: one texel of weight 1 exactly; a minimum or maximum
    /// reduction channel by channel (Direct3D's `min`/`max`); otherwise the weighted sum in
    /// f64, divided by the anisotropic taps' count `n`.
    fn result(&self, n: u32) -> [u32; 4] {
        if self.count == 1 && self.first.weight == 1.0 && n == 1 {
            return self.first.texel;
        }
        match self.reduction {
            Reduction::Minimum | Reduction::Maximum => self.extreme,
            Reduction::Standard | Reduction::Comparison => {
                std::array::from_fn(|c| fout(self.sum[c] / n as f64))
            }
        }
    }
}

/// The taps of a non-cube texture's level: `u` (reduced coordinates per axis), the texel
/// filter, offsets; each tap's weight multiplied by `scale`.
#[allow(clippy::too_many_arguments)]
fn level_taps(
    cx: &Ctx<'_>,
    level: u32,
    u: [f32; 3],
    linear: bool,
    offset: [i32; 3],
    layer: u32,
    scale: f64,
    out: &mut Acc,
) {
    let dim = cx.t.dim();
    let axes = dim.axes();
    let size = cx.ts.levels[level as usize].1;
    let mut taps: [[(i64, f64); 2]; 3] = [[(0, 1.0), (0, 0.0)]; 3];
    for a in 0..axes {
        let f = fixed8(u[a], size[a], linear) + 256 * offset[a] as i64;
        taps[a] = axis_taps(f, linear);
    }
    for &(z, wz) in &taps[2] {
        if wz == 0.0 {
            continue;
        }
        for &(y, wy) in &taps[1] {
            if wy == 0.0 {
                continue;
            }
            for &(x, wx) in &taps[0] {
                if wx == 0.0 {
                    continue;
                }
                let ax = address(x, size[0], cx.s.address[0]);
                let ay = if axes > 1 {
                    address(y, size[1], cx.s.address[1])
                } else {
                    Some(0)
                };
                let az = if axes > 2 {
                    address(z, size[2], cx.s.address[2])
                } else {
                    Some(layer)
                };
                let texel = match (ax, ay, az) {
                    (Some(x), Some(y), Some(z)) => cx.texel(level, x, y, z),
                    _ => cx.border(),
                };
                out.push(texel, wx * wy * wz * scale);
            }
        }
    }
}

/// A cube face: its major axis (0 = x, 1 = y, 2 = z) and sign, and the signed axes of its s
/// and t coordinates (§7.18.7, `TextureCube` coordinate space): `(axis, sign)` pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Face {
    major: (usize, i64),
    s: (usize, i64),
    t: (usize, i64),
}

/// The six faces, in layer order +X, -X, +Y, -Y, +Z, -Z.
const FACES: [Face; 6] = [
    Face {
        major: (0, 1),
        s: (2, -1),
        t: (1, -1),
    },
    Face {
        major: (0, -1),
        s: (2, 1),
        t: (1, -1),
    },
    Face {
        major: (1, 1),
        s: (0, 1),
        t: (2, 1),
    },
    Face {
        major: (1, -1),
        s: (0, 1),
        t: (2, -1),
    },
    Face {
        major: (2, 1),
        s: (0, 1),
        t: (1, -1),
    },
    Face {
        major: (2, -1),
        s: (0, -1),
        t: (1, -1),
    },
];

/// The face a direction selects: the component of largest magnitude (ties: z, then y, then x),
/// its sign giving the face (-0 counts as positive).
pub fn cube_face(d: [f32; 3]) -> usize {
    let [x, y, z] = d.map(f32::abs);
    let axis = if z >= y && z >= x {
        2
    } else if y >= x {
        1
    } else {
        0
    };
    2 * axis + usize::from(d[axis] < 0.0)
}

/// A direction projected on face `f`: (s, t) in [0, 1] as §7.18.7 computes them in f32
/// (`coordinate / |major| * 0.5 + 0.5`), and |major|.
fn cube_project(d: [f32; 3], f: usize) -> ([f32; 2], f32) {
    let face = FACES[f];
    let ma = d[face.major.0].abs();
    let sc = d[face.s.0] * face.s.1 as f32;
    let tc = d[face.t.0] * face.t.1 as f32;
    ([sc / ma * 0.5 + 0.5, tc / ma * 0.5 + 0.5], ma)
}

/// Texel `(x, y)` of face `f` of an `n × n` level, where `x` and `y` may be one step outside
/// the face: the face and texel that lie there (across an edge, on the adjacent face), or
/// `None` past a corner (both outside).
pub fn cube_texel(f: usize, x: i64, y: i64, n: u32) -> Option<(usize, u32, u32)> {
    let n = n as i64;
    let (xin, yin) = ((0..n).contains(&x), (0..n).contains(&y));
    if xin && yin {
        return Some((f, x as u32, y as u32));
    }
    if !xin && !yin {
        return None;
    }
    // Texel centres in units of half a texel, the cube spanning [-n, n]: the point on face f,
    // one of its face coordinates at ±(n + 1).
    let face = FACES[f];
    let mut p = [0i64; 3];
    p[face.major.0] = face.major.1 * n;
    p[face.s.0] = face.s.1 * (2 * x + 1 - n);
    p[face.t.0] = face.t.1 * (2 * y + 1 - n);
    let out = (0..3).find(|&a| p[a].abs() == n + 1)?;
    let sign = p[out].signum();
    // The adjacent face's texel next to the shared edge: the overflowing axis becomes its
    // major one (at ±n), the old major axis one texel in from the edge (±(n - 1)).
    p[out] = sign * n;
    p[face.major.0] = face.major.1 * (n - 1);
    let g = 2 * out + usize::from(sign < 0);
    let gf = FACES[g];
    let sc = gf.s.1 * p[gf.s.0];
    let tc = gf.t.1 * p[gf.t.0];
    Some((g, ((sc + n - 1) / 2) as u32, ((tc + n - 1) / 2) as u32))
}

/// The taps of a cube's level: the projected (s, t) on face `f`, filtered across edges; a
/// corner's missing texel's weight split evenly among the other three.
#[allow(clippy::too_many_arguments)]
fn cube_taps(
    cx: &Ctx<'_>,
    level: u32,
    st: [f32; 2],
    f: usize,
    linear: bool,
    base: u32,
    scale: f64,
    out: &mut Acc,
) {
    let n = cx.ts.levels[level as usize].1[0];
    let fx = fixed8(st[0], n, linear);
    let fy = fixed8(st[1], n, linear);
    if !linear {
        // A point sample on the face (a coordinate of exactly 1.0 reads the last texel).
        let x = (fx >> 8).clamp(0, n as i64 - 1) as u32;
        let y = (fy >> 8).clamp(0, n as i64 - 1) as u32;
        out.push(cx.texel(level, x, y, base + f as u32), scale);
        return;
    }
    let (tx, ty) = (axis_taps(fx, true), axis_taps(fy, true));
    // The level's taps, held until a corner's missing weight is known.
    let mut taps = [Tap {
        texel: [0; 4],
        weight: 0.0,
    }; 4];
    let mut k = 0;
    let mut missing = 0.0;
    for &(y, wy) in &ty {
        for &(x, wx) in &tx {
            let w = wx * wy * scale;
            if w == 0.0 {
                continue;
            }
            match cube_texel(f, x, y, n) {
                Some((g, x, y)) => {
                    taps[k] = Tap {
                        texel: cx.texel(level, x, y, base + g as u32),
                        weight: w,
                    };
                    k += 1;
                }
                None => missing = w,
            }
        }
    }
    for tap in &taps[..k] {
        out.push(tap.texel, tap.weight + missing / 3.0);
    }
}

/// What the derivatives give: the LOD, and for an anisotropic footprint the taps' count and
/// their step along u and v (normalized coordinates) between neighbouring taps.
struct Lod {
    lod: f64,
    aniso: Option<(u32, [f64; 2])>,
}

/// The LOD of a sample from its derivatives (§7.18.11), scaled to texels of level 0.
fn lod_from_derivatives(t: &Texture, s: &SamplerState, a: &SampleArgs, coord: [f32; 3]) -> Lod {
    let dim = t.dim();
    let dx = a.ddx.map(|v| fin(v) as f64);
    let dy = a.ddy.map(|v| fin(v) as f64);
    let shape = t.shape();
    let (mut vx, mut vy) = ([0.0f64; 3], [0.0f64; 3]);
    if dim.is_cube() {
        // Derivatives into the major face's space: d(sc / |ma|) = (|ma| dsc - sc d|ma|) / ma^2,
        // scaled by half the face size.
        let f = cube_face(coord);
        let face = FACES[f];
        let c = coord.map(|v| v as f64);
        let ma = c[face.major.0].abs();
        let sgn = if c[face.major.0] < 0.0 { -1.0 } else { 1.0 };
        let tc = [c[face.s.0] * face.s.1 as f64, c[face.t.0] * face.t.1 as f64];
        let half = 0.5 * shape.width as f64;
        for (d, v) in [(&dx, &mut vx), (&dy, &mut vy)] {
            let dma = d[face.major.0] * sgn;
            let dd = [d[face.s.0] * face.s.1 as f64, d[face.t.0] * face.t.1 as f64];
            for k in 0..2 {
                v[k] = (ma * dd[k] - tc[k] * dma) / (ma * ma) * half;
            }
        }
    } else {
        let size = [shape.width, shape.height, shape.depth];
        for k in 0..dim.axes() {
            vx[k] = dx[k] * size[k] as f64;
            vy[k] = dy[k] * size[k] as f64;
        }
    }
    let len = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let iso = Lod {
        lod: libm::log2(len(&vx).max(len(&vy))),
        aniso: None,
    };
    let two_d = matches!(dim, TextureDim::Tex2d | TextureDim::Tex2dArray);
    if !(s.anisotropic && two_d) {
        return iso;
    }
    let sx = vx[0] * vx[0] + vx[1] * vx[1];
    let sy = vy[0] * vy[0] + vy[1] * vy[1];
    let det = (vx[0] * vy[1] - vx[1] * vy[0]).abs();
    let finite = vx.iter().chain(&vy).all(|v| v.is_finite());
    if !finite || sx.max(sy) == 0.0 {
        return iso;
    }
    let major_x = sx > sy;
    let sq_major = if major_x { sx } else { sy };
    let len_major = sq_major.sqrt();
    let dir = if major_x { vx } else { vy };
    let max = s.max_anisotropy.max(1) as f64;
    let mut ratio = sq_major / det;
    let len_minor = if ratio > max {
        ratio = max;
        len_major / ratio
    } else {
        det / len_major
    };
    if len_minor < 1.0 {
        ratio = (ratio * len_minor).max(1.0);
    }
    let taps = (ratio.ceil() as u32).clamp(1, s.max_anisotropy.max(1));
    // Taps spread over the major axis's length, one step apart, in normalized coordinates.
    let step = [
        dir[0] / taps as f64 / shape.width as f64,
        dir[1] / taps as f64 / shape.height as f64,
    ];
    Lod {
        lod: libm::log2(len_minor),
        aniso: (taps > 1).then_some((taps, step)),
    }
}

/// The LOD after the sampler's bias and clamps (Direct3D's `min`/`max`: a NaN LOD gives
/// `max_lod`), in 8.8 fixed point within [-128, 128].
fn clamp_lod(s: &SamplerState, lod: f64) -> i32 {
    let (lo, hi) = (s.min_lod as f64, s.max_lod as f64);
    let c = if lod.is_nan() { hi } else { lod.min(hi) };
    let c = c.max(lo).clamp(-128.0, 128.0);
    (c * 256.0).round_ties_even() as i32
}

/// The mip levels a fixed-point LOD selects and their weights.
fn levels(mip_linear: bool, fl: i32, mips: u32) -> [(u32, f64); 2] {
    let top = mips as i32 - 1;
    if !mip_linear {
        let l = ((fl + 128) >> 8).clamp(0, top) as u32;
        return [(l, 1.0), (0, 0.0)];
    }
    let l0 = fl >> 8;
    let w = (fl & 255) as f64 / 256.0;
    let (a, b) = (l0.clamp(0, top) as u32, (l0 + 1).clamp(0, top) as u32);
    if a == b || w == 0.0 {
        [(a, 1.0), (0, 0.0)]
    } else {
        [(a, 1.0 - w), (b, w)]
    }
}

/// The array index a coordinate selects among `n`: rounded to nearest even, clamped (NaN: 0).
fn array_index(v: u32, n: u32) -> u32 {
    let f = fin(v);
    if f.is_nan() {
        return 0;
    }
    (f.round_ties_even() as i64).clamp(0, n as i64 - 1) as u32
}

/// One lane's sample: what `sample*` (`SampleFn::Grad`, `SampleFn::Level`), `gather4*`
/// (`SampleFn::Gather`) and `lod` (`SampleFn::Lod`) return for texture `t` (`None`: unbound,
/// giving 0 in all four words) through sampler `s`. `compare`: texels are compared with
/// `a.reference` first.
pub fn sample(
    t: Option<&Texture>,
    s: &SamplerState,
    f: SampleFn,
    compare: bool,
    a: &SampleArgs,
) -> [u32; 4] {
    match t {
        Some(t) => TextureSampler::new(t, s).sample(f, compare, a),
        None => [0; 4],
    }
}

impl TextureSampler<'_> {
    /// One lane's sample (see [`sample`]).
    pub fn sample(&self, f: SampleFn, compare: bool, a: &SampleArgs) -> [u32; 4] {
        let (t, s) = (self.t, self.s);
        let dim = t.dim();
        if dim.is_multisample() {
            // The front-end refuses sampling a multisample texture.
            return [0; 4];
        }
        let format = t.format();
        let cx = Ctx {
            ts: self,
            t,
            s,
            reference: compare.then(|| quantize_reference(format, a.reference)),
        };
        let c = a.coord.map(fin);
        // The texel-space coordinates per axis, and the layer (array slice; a cube array's first
        // face), by dimension.
        let (u, layer): ([f32; 3], u32) = match dim {
            TextureDim::Tex1d => ([c[0], 0.0, 0.0], 0),
            TextureDim::Tex1dArray => ([c[0], 0.0, 0.0], array_index(a.coord[1], t.array_size())),
            TextureDim::Tex2d | TextureDim::Tex2dMs => ([c[0], c[1], 0.0], 0),
            TextureDim::Tex2dArray | TextureDim::Tex2dMsArray => {
                ([c[0], c[1], 0.0], array_index(a.coord[2], t.array_size()))
            }
            TextureDim::Tex3d => ([c[0], c[1], c[2]], 0),
            TextureDim::TexCube => ([c[0], c[1], c[2]], 0),
            TextureDim::TexCubeArray => (
                [c[0], c[1], c[2]],
                6 * array_index(a.coord[3], t.array_size() / 6),
            ),
        };
        if let SampleFn::Gather(ch) = f {
            return gather(&cx, u, layer, a.offset, ch);
        }
        let int_format = !self.filterable;
        let (mut lod, aniso) = match f {
            SampleFn::Level => (fin(a.lod) as f64, None),
            _ => {
                let l = lod_from_derivatives(t, s, a, u);
                (l.lod, l.aniso)
            }
        };
        let unclamped = lod + s.mip_lod_bias as f64;
        lod = unclamped;
        if f == SampleFn::Grad {
            lod += fin(a.lod) as f64;
        }
        let fl = clamp_lod(s, lod);
        if f == SampleFn::Lod {
            let top = 256 * (t.mips() as i32 - 1);
            let clamped = (fl.clamp(0, top) as f64 / 256.0) as f32;
            return [clamped.to_bits(), fout(unclamped), 0, 0];
        }
        let aniso = aniso.filter(|_| !int_format);
        let magnify = fl <= 0;
        let linear = !int_format
            && (aniso.is_some()
                || s.anisotropic
                || (if magnify { s.mag } else { s.min }) == Filter::Linear);
        let mip_linear = !int_format && (s.anisotropic || s.mip == Filter::Linear);
        let lv = levels(mip_linear, fl, t.mips());
        let (n, step) = aniso.unwrap_or((1, [0.0; 2]));
        let mut taps = Acc::new(s.reduction);
        let cube = dim.is_cube().then(|| cube_face(u));
        for i in 0..n {
            // Anisotropic taps along the major axis, centred on the coordinate.
            let k = i as f64 - (n as f64 - 1.0) / 2.0;
            let ui = if n > 1 {
                [
                    (u[0] as f64 + k * step[0]) as f32,
                    (u[1] as f64 + k * step[1]) as f32,
                    u[2],
                ]
            } else {
                u
            };
            for &(level, wl) in &lv {
                if wl == 0.0 {
                    continue;
                }
                match cube {
                    Some(face) => {
                        let (st, _) = cube_project(ui, face);
                        cube_taps(&cx, level, st, face, linear, layer, wl, &mut taps);
                    }
                    None => {
                        let r = [
                            reduce(ui[0], s.address[0]),
                            reduce(ui[1], s.address[1]),
                            reduce(ui[2], s.address[2]),
                        ];
                        level_taps(&cx, level, r, linear, a.offset, layer, wl, &mut taps);
                    }
                }
            }
        }
        taps.result(n)
    }
}

/// `gather4`: the four texels of the bilinear footprint of mip level 0, channel `ch` of each
/// (compared first for `gather4_c`), in the order (u0, v1), (u1, v1), (u1, v0), (u0, v0); a
/// cube corner's missing texel is the mean of the other three.
fn gather(cx: &Ctx<'_>, u: [f32; 3], layer: u32, offset: [i32; 3], ch: u8) -> [u32; 4] {
    let t = cx.t;
    let ch = ch as usize & 3;
    let order = [(0, 1), (1, 1), (1, 0), (0, 0)];
    let mut out = [0u32; 4];
    if t.dim().is_cube() {
        let f = cube_face(u);
        let (st, _) = cube_project(u, f);
        let n = t.shape().level_size(0)[0];
        let fx = fixed8(st[0], n, true) >> 8;
        let fy = fixed8(st[1], n, true) >> 8;
        let vals: [Option<Texel>; 4] = order.map(|(i, j)| {
            cube_texel(f, fx + i, fy + j, n).map(|(g, x, y)| cx.texel(0, x, y, layer + g as u32))
        });
        let known: Vec<u32> = vals.iter().flatten().map(|v| v[ch]).collect();
        let integer = matches!(
            t.format()
                .components()
                .iter()
                .find(|c| c.channel as usize == ch)
                .map(|c| c.kind),
            Some(Kind::Uint | Kind::Sint)
        ) && cx.reference.is_none();
        for (k, v) in vals.iter().enumerate() {
            out[k] = match v {
                Some(v) => v[ch],
                None if integer => {
                    let signed = t.format().components().iter().any(|c| c.kind == Kind::Sint);
                    let sum: i64 = known
                        .iter()
                        .map(|&w| if signed { w as i32 as i64 } else { w as i64 })
                        .sum();
                    (sum / 3) as u32
                }
                None => fout(known.iter().map(|&w| fin(w) as f64).sum::<f64>() / 3.0),
            };
        }
        return out;
    }
    let s = cx.s;
    let size = t.shape().level_size(0);
    let r = [reduce(u[0], s.address[0]), reduce(u[1], s.address[1])];
    let fx = (fixed8(r[0], size[0], true) >> 8) + offset[0] as i64;
    let fy = (fixed8(r[1], size[1], true) >> 8) + offset[1] as i64;
    for (k, (i, j)) in order.into_iter().enumerate() {
        let ax = address(fx + i, size[0], s.address[0]);
        let ay = address(fy + j, size[1], s.address[1]);
        let texel = match (ax, ay) {
            (Some(x), Some(y)) => cx.texel(0, x, y, layer),
            _ => cx.border(),
        };
        out[k] = texel[ch];
    }
    out
}

/// `deriv_rt{x,y}_{coarse,fine}` for lane `l` of a warp whose operand row is `v` (Direct3D's
/// float subtraction: flushed operands, canonical NaN, flushed result). Lanes `4q` to `4q + 3`
/// are quad `q`'s top-left, top-right, bottom-left and bottom-right pixels: along x, the right
/// pixel minus the left one of the quad's top row (coarse) or of the lane's row (fine); along
/// y, the bottom pixel minus the top one of the left column (coarse) or of the lane's column.
pub fn deriv(v: &[u32; 32], l: usize, y: bool, fine: bool) -> u32 {
    let q = l & !3;
    let i = l & 3;
    let (a, b) = match (y, fine) {
        (false, false) => (q, q + 1),
        (false, true) => (q + (i & 2), q + (i & 2) + 1),
        (true, false) => (q, q + 2),
        (true, true) => (q + (i & 1), q + (i & 1) + 2),
    };
    d3d::add(v[b], d3d::fneg(v[a]))
}

#[cfg(test)]
mod tests;
