//! Hand-worked cases of the sampling rules (the exhaustive comparison with an independent model
//! of the Direct3D 11 rules is `tests/dxbc/expect/sampling.py`, through the traces it checks).

use super::*;
use warpjit_runtime::resource::TextureShape;

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// A `w`×`h` R32_FLOAT texture of `mips` levels holding `v` (level after level).
fn tex(dim: TextureDim, w: u32, h: u32, layers: u32, mips: u32, v: &[f32]) -> Texture {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let shape = TextureShape {
        mips,
        ..TextureShape::new(dim, w, h, 1, layers)
    };
    Texture::with_shape(shape, Format::R32_FLOAT, &bytes).unwrap()
}

fn st(filter: u32) -> SamplerState {
    let (min, mag, mip, anisotropic, reduction) = SamplerState::filter_from_code(filter).unwrap();
    SamplerState {
        min,
        mag,
        mip,
        anisotropic,
        reduction,
        ..SamplerState::DEFAULT
    }
}

fn at(u: f32, v: f32, lod: f32) -> SampleArgs {
    SampleArgs {
        coord: [f(u), f(v), 0, 0],
        lod: f(lod),
        ..SampleArgs::default()
    }
}

#[test]
fn fixed_point_is_the_exact_product_rounded_to_nearest_even() {
    // 0.5 × 4 texels = 2.0 → 512; linear: 1.5 texels → 384.
    assert_eq!(fixed8(0.5, 4, false), 512);
    assert_eq!(fixed8(0.5, 4, true), 384);
    // 1/3 × 3 = 1 exactly in the product of the f32 nearest to 1/3 (0x3eaaaaab) and 3:
    // 1.0000000298..., × 256 = 256.0000076 → 256.
    assert_eq!(fixed8(1.0 / 3.0, 3, false), 256);
    // A tie: 2^-9 × 1 texel × 256 = 0.5 → 0 (even); 3 × 2^-9 → 1.5 → 2.
    assert_eq!(fixed8(2f32.powi(-9), 1, false), 0);
    assert_eq!(fixed8(3.0 * 2f32.powi(-9), 1, false), 2);
    assert_eq!(fixed8(-3.0 * 2f32.powi(-9), 1, false), -2);
    // NaN converts to 0; tiny values to 0 (point) or -0.5 texel (linear).
    assert_eq!(fixed8(f32::NAN, 8, true), 0);
    assert_eq!(fixed8(1e-30, 16384, true), -128);
    assert_eq!(fixed8(-1e-30, 16384, false), 0);
    assert_eq!(fixed8(10.0, 16384, false), 10 * 16384 * 256);
}

#[test]
fn range_reduction_and_address_modes_follow_the_pseudocode() {
    assert_eq!(reduce(2.25, AddressMode::Wrap), 0.25);
    assert_eq!(reduce(-0.25, AddressMode::Wrap), 0.75);
    // -1e-9 - floor(-1e-9) = 1 - 1e-9, which rounds to 1.0 in f32.
    assert_eq!(reduce(-1e-9, AddressMode::Wrap), 1.0);
    assert_eq!(reduce(3.25, AddressMode::Mirror), 1.25);
    assert_eq!(reduce(-3.25, AddressMode::Mirror), -1.25);
    assert_eq!(reduce(25.0, AddressMode::Clamp), 10.0);
    assert_eq!(reduce(-25.0, AddressMode::Border), -10.0);
    assert!(reduce(f32::INFINITY, AddressMode::Wrap).is_nan());
    // Texel indices of a 4-texel axis.
    let w = |t| address(t, 4, AddressMode::Wrap);
    assert_eq!(
        [w(-1), w(4), w(9), w(-5)],
        [Some(3), Some(0), Some(1), Some(3)]
    );
    let m = |t| address(t, 4, AddressMode::Mirror);
    // ... 3 2 1 0 | 0 1 2 3 | 3 2 1 0 | 0 ...
    assert_eq!(
        [m(-1), m(-4), m(-5), m(4), m(7), m(8)],
        [Some(0), Some(3), Some(3), Some(3), Some(0), Some(0)]
    );
    let o = |t| address(t, 4, AddressMode::MirrorOnce);
    assert_eq!(
        [o(-1), o(-3), o(-9), o(6)],
        [Some(0), Some(2), Some(3), Some(3)]
    );
    let c = |t| address(t, 4, AddressMode::Clamp);
    assert_eq!([c(-7), c(2), c(99)], [Some(0), Some(2), Some(3)]);
    assert_eq!(address(4, 4, AddressMode::Border), None);
    assert_eq!(address(3, 4, AddressMode::Border), Some(3));
}

#[test]
fn bilinear_weights_and_point_sampling() {
    // A 2x2 texture: 0 1 / 2 3.
    let t = tex(TextureDim::Tex2d, 2, 2, 1, 1, &[0.0, 1.0, 2.0, 3.0]);
    let lin = st(0x15);
    // Texel centres are at 0.25 and 0.75: the centre of the texture weights all four equally.
    let r = sample(Some(&t), &lin, SampleFn::Level, false, &at(0.5, 0.5, 0.0));
    assert_eq!(f32::from_bits(r[0]), 1.5);
    // u = 0.375: 0.25 of the way from column 0 to column 1, on row 0's centre.
    let r = sample(
        Some(&t),
        &lin,
        SampleFn::Level,
        false,
        &at(0.375, 0.25, 0.0),
    );
    assert_eq!(f32::from_bits(r[0]), 0.25);
    // Missing channels read the defaults, (0, 0, 1) of an R32_FLOAT texture.
    assert_eq!(r[1..], [0, 0, f(1.0)]);
    // Clamp addressing: past the right edge reads column 1.
    let r = sample(Some(&t), &lin, SampleFn::Level, false, &at(3.0, 0.25, 0.0));
    assert_eq!(f32::from_bits(r[0]), 1.0);
    // Point: the texel under the coordinate, its bits unchanged (a denormal too).
    let d = tex(TextureDim::Tex2d, 2, 1, 1, 1, &[f32::from_bits(1), 5.0]);
    let pt = st(0x00);
    let r = sample(Some(&d), &pt, SampleFn::Level, false, &at(0.49, 0.5, 0.0));
    assert_eq!(r[0], 1, "point sampling keeps a denormal");
    // Filtered, the denormal is flushed: 0 × 0.5 + 5 × 0.5.
    let r = sample(Some(&d), &lin, SampleFn::Level, false, &at(0.5, 0.5, 0.0));
    assert_eq!(f32::from_bits(r[0]), 2.5);
}

#[test]
fn border_colour_is_clamped_to_the_format() {
    assert_eq!(
        border_texel(Format::R8G8B8A8_UNORM, [2.0, -1.0, 0.5, 1.0]),
        [f(1.0), f(0.0), f(0.5), f(1.0)]
    );
    assert_eq!(
        border_texel(Format::R8_SNORM, [-3.0, 0.5, 0.5, 0.5]),
        [f(-1.0), 0, 0, f(1.0)]
    );
    assert_eq!(
        border_texel(Format::R32_UINT, [7.9, 1.0, 1.0, 1.0]),
        [7, 0, 0, 1]
    );
    assert_eq!(
        border_texel(Format::A8_UNORM, [0.25, 0.5, 0.75, 0.5]),
        [0, 0, 0, f(0.5)]
    );
    // Sampling off a border-addressed texture blends the border in.
    let t = tex(TextureDim::Tex2d, 2, 2, 1, 1, &[1.0; 4]);
    let s = SamplerState {
        address: [AddressMode::Border; 3],
        border_color: [0.0, 0.0, 0.0, 0.0],
        ..st(0x15)
    };
    // u = 1.0: halfway between column 1 and the border column 2.
    let r = sample(Some(&t), &s, SampleFn::Level, false, &at(1.0, 0.25, 0.0));
    assert_eq!(f32::from_bits(r[0]), 0.5);
}

#[test]
fn lod_selects_and_blends_mip_levels() {
    // 4x4 (all 1), 2x2 (all 2), 1x1 (4).
    let mut v = vec![1.0; 16];
    v.extend([2.0; 4]);
    v.push(4.0);
    let t = tex(TextureDim::Tex2d, 4, 4, 1, 3, &v);
    let tri = st(0x15);
    let l = |lod: f32, s: &SamplerState| {
        f32::from_bits(sample(Some(&t), s, SampleFn::Level, false, &at(0.3, 0.6, lod))[0])
    };
    assert_eq!(l(0.0, &tri), 1.0);
    assert_eq!(l(0.25, &tri), 1.25);
    assert_eq!(l(1.5, &tri), 3.0);
    assert_eq!(l(7.0, &tri), 4.0, "clamped to the last level");
    assert_eq!(l(-3.0, &tri), 1.0);
    // Point mips: floor(LOD + 0.5).
    let pm = st(0x14);
    assert_eq!(l(0.49, &pm), 1.0);
    assert_eq!(l(0.5, &pm), 2.0);
    // Bias and clamps: min_lod wins over max_lod.
    let biased = SamplerState {
        mip_lod_bias: 1.0,
        ..tri
    };
    assert_eq!(l(0.5, &biased), 3.0);
    let crossed = SamplerState {
        min_lod: 2.0,
        max_lod: 1.0,
        ..tri
    };
    assert_eq!(l(0.0, &crossed), 4.0);
    // From derivatives: a step of 2 texels of level 0 per pixel is LOD 1; `lod` returns it
    // clamped and unclamped.
    let mut a = at(0.3, 0.6, 0.0);
    a.ddx = [f(0.5), 0, 0];
    a.ddy = [0, f(0.25), 0];
    let r = sample(Some(&t), &tri, SampleFn::Grad, false, &a);
    assert_eq!(f32::from_bits(r[0]), 2.0);
    let r = sample(Some(&t), &tri, SampleFn::Lod, false, &a);
    assert_eq!([f32::from_bits(r[0]), f32::from_bits(r[1])], [1.0, 1.0]);
    a.ddx = [f(8.0), 0, 0];
    let r = sample(Some(&t), &tri, SampleFn::Lod, false, &a);
    assert_eq!([f32::from_bits(r[0]), f32::from_bits(r[1])], [2.0, 5.0]);
}

#[test]
fn comparison_filters_quantize_the_reference_and_filter_the_results() {
    let t = tex(TextureDim::Tex2d, 2, 1, 1, 1, &[0.25, 0.75]);
    let s = SamplerState {
        comparison: ComparisonFunc::LessEqual,
        ..st(0x95)
    };
    let mut a = at(0.5, 0.5, 0.0);
    a.reference = f(0.5);
    // 0.5 <= 0.25 fails, 0.5 <= 0.75 passes: half.
    let r = sample(Some(&t), &s, SampleFn::Level, true, &a);
    assert_eq!(r, [f(0.5); 4]);
    // A UNORM16 reference is its nearest code: 0.5 becomes 32768/65535 > 0.5.
    assert!(quantize_reference(Format::R16_UNORM, f(0.5)) > 0.5);
    assert_eq!(quantize_reference(Format::R16_UNORM, f(2.0)), 1.0);
    assert!(compare(ComparisonFunc::NotEqual, f32::NAN, 1.0));
    assert!(!compare(ComparisonFunc::Equal, f32::NAN, f32::NAN));
}

#[test]
fn gather_returns_the_bilinear_footprint_counter_clockwise_from_lower_left() {
    // 2x2: a b / c d (rows top to bottom).
    let t = tex(TextureDim::Tex2d, 2, 2, 1, 1, &[1.0, 2.0, 3.0, 4.0]);
    let r = sample(
        Some(&t),
        &st(0x15),
        SampleFn::Gather(0),
        false,
        &at(0.5, 0.5, 0.0),
    );
    // (u0, v1) = c, (u1, v1) = d, (u1, v0) = b, (u0, v0) = a.
    assert_eq!(r, [f(3.0), f(4.0), f(2.0), f(1.0)]);
    // Channel 3 of an R32_FLOAT texel is the default 1.0.
    let r = sample(
        Some(&t),
        &st(0x15),
        SampleFn::Gather(3),
        false,
        &at(0.5, 0.5, 0.0),
    );
    assert_eq!(r, [f(1.0); 4]);
    // Offsets move the footprint one texel right: wrap brings column 0 back.
    let wrap = SamplerState {
        address: [AddressMode::Wrap; 3],
        ..st(0x15)
    };
    let mut a = at(0.5, 0.5, 0.0);
    a.offset = [1, 0, 0];
    let r = sample(Some(&t), &wrap, SampleFn::Gather(0), false, &a);
    assert_eq!(r, [f(4.0), f(3.0), f(1.0), f(2.0)]);
}

#[test]
fn cube_faces_and_their_edges() {
    // Face selection: the largest magnitude, ties to z then y.
    assert_eq!(cube_face([1.0, 0.5, -0.5]), 0);
    assert_eq!(cube_face([-1.0, 0.5, -0.5]), 1);
    assert_eq!(cube_face([0.5, -2.0, 0.5]), 3);
    assert_eq!(cube_face([1.0, 1.0, 0.0]), 2, "x and y tie: y");
    assert_eq!(cube_face([1.0, 1.0, -1.0]), 5, "all tie: z");
    // +X's projection: s = -z, t = -y.
    let (stc, ma) = cube_project([2.0, -1.0, 1.0], 0);
    assert_eq!((stc, ma), ([0.25, 0.75], 2.0));
    // Every edge texel's neighbour across the edge is on the face the overflowing axis picks,
    // next to the edge, and the step back lands on the starting texel: the edges pair up.
    let n = 4;
    for face in 0..6 {
        for k in 0..n as i64 {
            for (x, y) in [(-1, k), (n as i64, k), (k, -1), (k, n as i64)] {
                let (g, gx, gy) = cube_texel(face, x, y, n).unwrap();
                assert_ne!(g, face);
                assert_ne!(g / 2, face / 2, "a neighbour is never the opposite face");
                let on_edge = gx == 0 || gy == 0 || gx == n - 1 || gy == n - 1;
                assert!(on_edge, "{face} {x} {y} -> {g} {gx} {gy}");
                // Stepping out of (gx, gy) across the same edge comes back.
                let back = [
                    (gx as i64 - 1, gy as i64),
                    (gx as i64 + 1, gy as i64),
                    (gx as i64, gy as i64 - 1),
                    (gx as i64, gy as i64 + 1),
                ]
                .into_iter()
                .filter_map(|(a, b)| cube_texel(g, a, b, n))
                .any(|(h, hx, hy)| {
                    h == face
                        && (hx as i64, hy as i64)
                            == (x.clamp(0, n as i64 - 1), y.clamp(0, n as i64 - 1))
                });
                assert!(back, "{face} {x} {y} -> {g} {gx} {gy}");
            }
        }
        assert_eq!(cube_texel(face, -1, -1, n), None, "a corner has no texel");
    }
    // A known pair: +X's left column (x = -1 means s beyond -1, i.e. z beyond +1) is +Z's
    // right column, same row.
    assert_eq!(cube_texel(0, -1, 2, 4), Some((4, 3, 2)));
}

#[test]
fn derivatives_take_the_quads_rows_and_columns() {
    // Quad 0: 1 2 / 4 8; quad 1: NaN pattern in lane 4.
    let mut v = [0u32; 32];
    v[..4].copy_from_slice(&[f(1.0), f(2.0), f(4.0), f(8.0)]);
    let x: Vec<f32> = (0..4)
        .map(|l| f32::from_bits(deriv(&v, l, false, false)))
        .collect();
    assert_eq!(x, [1.0; 4], "coarse x: the top row for all four");
    let x: Vec<f32> = (0..4)
        .map(|l| f32::from_bits(deriv(&v, l, false, true)))
        .collect();
    assert_eq!(x, [1.0, 1.0, 4.0, 4.0]);
    let y: Vec<f32> = (0..4)
        .map(|l| f32::from_bits(deriv(&v, l, true, false)))
        .collect();
    assert_eq!(y, [3.0; 4], "coarse y: the left column");
    let y: Vec<f32> = (0..4)
        .map(|l| f32::from_bits(deriv(&v, l, true, true)))
        .collect();
    assert_eq!(y, [3.0, 6.0, 3.0, 6.0]);
    v[4] = 0x7fc0_1234;
    assert_eq!(deriv(&v, 5, false, false), CANONICAL_NAN);
    // Denormal operands are flushed.
    v[8] = 1;
    v[9] = 0;
    assert_eq!(deriv(&v, 8, false, false), 0);
}

#[test]
fn unbound_textures_read_zero() {
    let s = SamplerState::DEFAULT;
    for f in [
        SampleFn::Grad,
        SampleFn::Level,
        SampleFn::Gather(1),
        SampleFn::Lod,
    ] {
        assert_eq!(sample(None, &s, f, false, &at(0.5, 0.5, 0.0)), [0; 4]);
    }
}
