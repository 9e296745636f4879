//! Expected values come from the definitions (IEEE 754 encodings, code / (2^n - 1), Direct3D's
//! conversion rules), checked with exact integer arithmetic, never from the functions under test.

use super::*;

/// A positive finite f32 as (integer significand, exponent): value = m * 2^e.
fn parts(bits: u32) -> (i128, i32) {
    assert!(bits < 0x7f80_0000, "positive finite only: {bits:#x}");
    let e = (bits >> 23) as i32;
    let f = (bits & 0x7f_ffff) as i128;
    if e == 0 {
        (f, -149)
    } else {
        (f | 0x80_0000, e - 150)
    }
}

/// |value(bits) - num/den| * den * 2^k, exactly, for a common k (so results compare).
fn dist(bits: u32, num: i128, den: i128, k: i32) -> i128 {
    let (m, e) = parts(bits);
    assert!(e + k >= 0 && k <= 100, "scale too small");
    (m * den * (1i128 << (e + k)) - num * (1i128 << k)).abs()
}

/// Asserts that `bits` (positive) is the f32 nearest to num/den (num > 0): no neighbour is closer.
fn assert_nearest(bits: u32, num: i128, den: i128) {
    let k = 100;
    let d = dist(bits, num, den, k);
    for nb in [bits - 1, bits + 1] {
        assert!(
            d <= dist(nb, num, den, k),
            "{bits:#x} is not the f32 nearest to {num}/{den}: {nb:#x} is closer"
        );
    }
}

#[test]
fn names_sizes_and_layouts() {
    assert_eq!(Format::from_name("R8_UNORM"), Some(Format::R8_UNORM));
    assert_eq!(
        Format::from_name("DXGI_FORMAT_R11G11B10_FLOAT"),
        Some(Format::R11G11B10_FLOAT)
    );
    assert_eq!(Format::from_name("r8_unorm"), None);
    assert_eq!(Format::from_name("BC1_UNORM"), None);
    assert_eq!(Format::from_name("R8G8B8A8_TYPELESS"), None);
    for &f in Format::ALL {
        assert_eq!(Format::from_name(f.name()), Some(f));
        assert_eq!(f.to_string(), f.name());
        // Components lie inside the element and do not overlap; each channel at most once.
        let mut used: u128 = 0;
        let mut channels = 0u8;
        for c in f.components() {
            assert!(
                c.offset as u32 + c.bits as u32 <= f.element_bytes() * 8,
                "{f}"
            );
            let m = ((1u128 << c.bits) - 1) << c.offset;
            assert_eq!(used & m, 0, "{f}");
            used |= m;
            assert_eq!(channels & 1 << c.channel, 0, "{f}");
            channels |= 1 << c.channel;
        }
    }
    let bytes = |f: Format| f.element_bytes();
    assert_eq!(bytes(Format::R32G32B32A32_FLOAT), 16);
    assert_eq!(bytes(Format::R32G32B32_UINT), 12);
    assert_eq!(bytes(Format::R16G16B16A16_SNORM), 8);
    assert_eq!(bytes(Format::R11G11B10_FLOAT), 4);
    assert_eq!(bytes(Format::R8G8_UNORM), 2);
    assert_eq!(bytes(Format::R8_UNORM), 1);
}

#[test]
fn unorm8_code_1_is_the_f32_nearest_1_255() {
    let got = decode(Format::R8_UNORM, &[1]);
    assert_eq!(got[0], 0x3b80_8081);
    assert_nearest(0x3b80_8081, 1, 255);
}

#[test]
fn unorm_decode_is_correctly_rounded_for_every_code() {
    for bits in [2u8, 8, 10, 16] {
        let d = (1i128 << bits) - 1;
        for c in 1..d {
            let got = unorm_to_f32(c as u32, bits);
            assert_nearest(got, c, d);
        }
        assert_eq!(unorm_to_f32(0, bits), 0);
        assert_eq!(unorm_to_f32(d as u32, bits), 0x3f80_0000);
    }
}

#[test]
fn snorm_decode_is_correctly_rounded_and_the_two_lowest_codes_are_minus_one() {
    for bits in [8u8, 16] {
        let d = (1i128 << (bits - 1)) - 1;
        let code = |c: i128| (c as i32 as u32) & ((1u32 << bits) - 1);
        assert_eq!(snorm_to_f32(code(-d - 1), bits), 0xbf80_0000);
        assert_eq!(snorm_to_f32(code(-d), bits), 0xbf80_0000);
        assert_eq!(snorm_to_f32(code(d), bits), 0x3f80_0000);
        assert_eq!(snorm_to_f32(0, bits), 0);
        for c in 1..d {
            let pos = snorm_to_f32(code(c), bits);
            assert_nearest(pos, c, d);
            // Negative codes: the same magnitude with the sign bit.
            assert_eq!(snorm_to_f32(code(-c), bits), pos | 0x8000_0000);
        }
    }
    assert_eq!(decode(Format::R8_SNORM, &[0x80])[0], 0xbf80_0000);
    assert_eq!(decode(Format::R8_SNORM, &[0x81])[0], 0xbf80_0000);
}

#[test]
fn float16_decode_cases() {
    let cases: &[(u16, u32)] = &[
        (0x0000, 0x0000_0000),
        (0x8000, 0x8000_0000),
        (0x0001, 0x3380_0000), // 2^-24
        (0x8001, 0xb380_0000), // -2^-24
        (0x0200, 0x3800_0000), // 2^-15
        (0x03ff, 0x387f_c000), // 1023 * 2^-24
        (0x0400, 0x3880_0000), // 2^-14
        (0x3c00, 0x3f80_0000), // 1
        (0x3c01, 0x3f80_2000), // 1 + 2^-10
        (0xc000, 0xc000_0000), // -2
        (0x7bff, 0x477f_e000), // 65504
        (0x7c00, 0x7f80_0000), // +inf
        (0xfc00, 0xff80_0000), // -inf
        (0x7e00, 0x7fc0_0000), // quiet NaN
        (0x7c01, 0x7f80_2000), // NaN payload kept
        (0xfe01, 0xffc0_2000), // negative NaN
    ];
    for &(h, f) in cases {
        assert_eq!(f16_to_f32(h), f, "{h:#06x}");
        assert_eq!(decode(Format::R16_FLOAT, &h.to_le_bytes())[0], f);
    }
}

#[test]
fn float11_and_float10_decode_cases() {
    // 11-bit: 5-bit exponent (bias 15), 6-bit fraction; 10-bit: 5-bit fraction.
    let r11: &[(u32, u32)] = &[
        (0x000, 0),
        (0x001, 0x3580_0000), // 2^-14 * 1/64 = 2^-20
        (0x03f, 0x387c_0000), // 63 * 2^-20
        (0x040, 0x3880_0000), // 2^-14
        (0x3c0, 0x3f80_0000), // 1.0
        (0x3c1, 0x3f82_0000), // 1 + 1/64
        (0x7bf, 0x477e_0000), // 2^15 * (1 + 63/64) = 65024
        (0x7c0, 0x7f80_0000), // +inf
        (0x7e0, 0x7fc0_0000), // NaN
    ];
    for &(c, f) in r11 {
        assert_eq!(small_float_to_f32(c, 6, false), f, "r11 {c:#x}");
    }
    let r10: &[(u32, u32)] = &[
        (0x001, 0x3600_0000), // 2^-14 * 1/32 = 2^-19
        (0x1e0, 0x3f80_0000), // 1.0
        (0x1e1, 0x3f84_0000), // 1 + 1/32
        (0x3df, 0x477c_0000), // 2^15 * (1 + 31/32) = 64512
        (0x3e0, 0x7f80_0000),
    ];
    for &(c, f) in r10 {
        assert_eq!(small_float_to_f32(c, 5, false), f, "r10 {c:#x}");
    }
    // Packed: R in bits 0..11, G in 11..22, B in 22..32.
    let word: u32 = 0x3c0 | 0x7c0 << 11 | 0x1e0 << 22;
    assert_eq!(
        decode(Format::R11G11B10_FLOAT, &word.to_le_bytes()),
        [0x3f80_0000, 0x7f80_0000, 0x3f80_0000, 0x3f80_0000]
    );
}

#[test]
fn decode_defaults_extension_and_swizzle() {
    // Integer formats: missing A is 0x00000001; float/unorm/snorm: 1.0f.
    let r16g16_uint = decode(Format::R16G16_UINT, &[0x34, 0x12, 0xff, 0xff]);
    assert_eq!(r16g16_uint, [0x1234, 0xffff, 0, 1]);
    let r8g8_sint = decode(Format::R8G8_SINT, &[0x80, 0x7f]);
    assert_eq!(r8g8_sint, [0xffff_ff80, 0x7f, 0, 1]);
    let r16_sint = decode(Format::R16_SINT, &[0xfe, 0xff]);
    assert_eq!(r16_sint, [0xffff_fffe, 0, 0, 1]);
    let r32_float = decode(Format::R32_FLOAT, &0x0000_0001u32.to_le_bytes());
    assert_eq!(r32_float, [1, 0, 0, 0x3f80_0000], "denormal kept");
    let nan = decode(Format::R32G32_FLOAT, &[1, 0, 0x80, 0x7f, 0, 0, 0, 0x80]);
    assert_eq!(
        nan,
        [0x7f80_0001, 0x8000_0000, 0, 0x3f80_0000],
        "NaN payload, -0 kept"
    );
    let bgra = decode(Format::B8G8R8A8_UNORM, &[0, 255, 1, 255]);
    assert_eq!(bgra, [0x3b80_8081, 0x3f80_0000, 0, 0x3f80_0000]);
    let bgrx = decode(Format::B8G8R8X8_UNORM, &[255, 0, 0, 0]);
    assert_eq!(
        bgrx,
        [0, 0, 0x3f80_0000, 0x3f80_0000],
        "X ignored, A defaults to 1.0"
    );
    let a8 = decode(Format::A8_UNORM, &[255]);
    assert_eq!(a8, [0, 0, 0, 0x3f80_0000]);
    let a8 = decode(Format::A8_UNORM, &[0]);
    assert_eq!(a8, [0, 0, 0, 0]);
    // R10G10B10A2: R in bits 0..10, G 10..20, B 20..30, A 30..32.
    let word: u32 = 1023 | 5 << 10 | 2 << 30; // B = 0
    assert_eq!(
        decode(Format::R10G10B10A2_UINT, &word.to_le_bytes()),
        [1023, 5, 0, 2]
    );
    let unorm = decode(Format::R10G10B10A2_UNORM, &word.to_le_bytes());
    assert_eq!(unorm[0], 0x3f80_0000);
    assert_nearest(unorm[1], 5, 1023);
    assert_nearest(unorm[3], 2, 3);
    let r32g32b32a32 = decode(
        Format::R32G32B32A32_SINT,
        &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
    );
    assert_eq!(r32g32b32a32, [1, 2, 3, 0xffff_ffff]);
    let rgb32 = decode(
        Format::R32G32B32_UINT,
        &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
    );
    assert_eq!(rgb32, [1, 2, 3, 1]);
    // All-zero bytes (the out-of-range value): 0 in the format's components, defaults elsewhere.
    for &f in Format::ALL {
        let mut expect = f.defaults();
        for c in f.components() {
            expect[c.channel as usize] = 0;
        }
        assert_eq!(decode(f, &[0; 16]), expect, "{f}");
    }
}

/// Round trips: every code of the 8- and 16-bit formats, and of the 10-, 11- and 2-bit
/// components, comes back from encode(decode(code)) (but SNORM's most negative code, which
/// reads -1.0 and is written back as the code above it, and NaNs, which stay NaNs).
#[test]
fn encode_decode_round_trips_every_code() {
    let one_component = [
        Format::R8_UNORM,
        Format::R8_SNORM,
        Format::R8_UINT,
        Format::R8_SINT,
        Format::A8_UNORM,
        Format::R16_UNORM,
        Format::D16_UNORM,
        Format::R16_SNORM,
        Format::R16_UINT,
        Format::R16_SINT,
        Format::R16_FLOAT,
    ];
    for f in one_component {
        let n = f.element_bytes() as usize * 8;
        let kind = f.first_kind();
        for code in 0u32..1 << n {
            let bytes = &code.to_le_bytes()[..n / 8];
            let v = decode(f, bytes);
            let mut back = [0u8; 2];
            encode(f, v, &mut back[..n / 8]);
            let back = u16::from_le_bytes(back) as u32;
            let most_negative = 1u32 << (n - 1);
            let nan16 = code & 0x7c00 == 0x7c00 && code & 0x3ff != 0;
            match kind {
                Kind::Snorm if code == most_negative => assert_eq!(back, code + 1, "{f}"),
                Kind::Float if nan16 => {
                    assert_eq!(back & 0x7c00, 0x7c00, "{f} {code:#x}");
                    assert_ne!(back & 0x3ff, 0, "{f} {code:#x}");
                    assert_eq!(back & 0x8000, code & 0x8000, "{f} {code:#x}: sign");
                }
                _ => assert_eq!(back, code, "{f} {code:#x}"),
            }
        }
    }
    // Four-component formats: every code in every channel.
    for f in [
        Format::R8G8B8A8_UNORM,
        Format::R8G8B8A8_SNORM,
        Format::R8G8B8A8_UINT,
        Format::R8G8B8A8_SINT,
        Format::B8G8R8A8_UNORM,
    ] {
        for c in 0u8..=255 {
            let bytes = [c, c.wrapping_add(1), c.wrapping_add(2), c.wrapping_add(3)];
            let mut back = [0u8; 4];
            encode(f, decode(f, &bytes), &mut back);
            let fix = |b: u8| {
                if f == Format::R8G8B8A8_SNORM && b == 0x80 {
                    0x81
                } else {
                    b
                }
            };
            assert_eq!(back, bytes.map(fix), "{f}");
        }
    }
    // 10-bit, 2-bit and the small floats, channel by channel.
    for f in [
        Format::R10G10B10A2_UNORM,
        Format::R10G10B10A2_UINT,
        Format::R11G11B10_FLOAT,
        Format::B5G6R5_UNORM,
        Format::B5G5R5A1_UNORM,
        Format::B4G4R4A4_UNORM,
        Format::X24_TYPELESS_G8_UINT,
    ] {
        for c in f.components() {
            for code in 0u32..1 << c.bits {
                if c.kind == Kind::Float
                    && code >> (c.bits - 5) == 31
                    && code & ((1 << (c.bits - 5)) - 1) != 0
                {
                    continue; // NaN, checked below
                }
                let word = code << c.offset;
                let mut back = [0u8; 4];
                encode(f, decode(f, &word.to_le_bytes()), &mut back);
                assert_eq!(
                    u32::from_le_bytes(back),
                    word,
                    "{f} channel {} code {code:#x}",
                    c.channel
                );
            }
        }
    }
}

#[test]
fn float_to_unorm_rules() {
    let enc = |x: f32| f32_to_unorm(x.to_bits(), 8);
    assert_eq!(f32_to_unorm(0x7fc0_0000, 8), 0, "NaN");
    assert_eq!(f32_to_unorm(0xffff_ffff, 8), 0, "negative NaN");
    assert_eq!(enc(f32::NEG_INFINITY), 0);
    assert_eq!(enc(-0.5), 0);
    assert_eq!(enc(-0.0), 0);
    assert_eq!(enc(2.0), 255);
    assert_eq!(enc(f32::INFINITY), 255);
    assert_eq!(enc(1.0), 255);
    assert_eq!(enc(0.5), 128, "0.5 * 255 = 127.5: the tie rounds up");
    assert_eq!(f32_to_unorm(0.5f32.to_bits(), 16), 32768);
    assert_eq!(f32_to_unorm(0.5f32.to_bits(), 2), 2);
    assert_eq!(f32_to_unorm(1.0f32.to_bits(), 10), 1023);
    // Around every midpoint (2k + 1) / 510: the f32 just below gives k, just above k + 1.
    for k in 0..255i128 {
        let (num, den) = (2 * k + 1, 510);
        let guess = (num as f64 / den as f64) as f32;
        let mut below = guess.to_bits() + 2;
        while dist_sign(below, num, den) >= 0 {
            below -= 1;
        }
        assert_eq!(f32_to_unorm(below, 8), k as u32, "below midpoint {k}");
        assert_eq!(
            f32_to_unorm(below + 1, 8),
            k as u32 + 1,
            "above midpoint {k}"
        );
    }
}

/// The sign of value(bits) - num/den, exactly.
fn dist_sign(bits: u32, num: i128, den: i128) -> i32 {
    let (m, e) = parts(bits);
    let k = 100;
    (m * den * (1i128 << (e + k)) - num * (1i128 << k)).signum() as i32
}

#[test]
fn float_to_snorm_rules() {
    let enc = |x: f32| f32_to_snorm(x.to_bits(), 8);
    assert_eq!(f32_to_snorm(0x7fc0_0000, 8), 0, "NaN");
    assert_eq!(enc(-1.0), 0x81, "-1.0 is -127, never -128");
    assert_eq!(enc(-2.0), 0x81);
    assert_eq!(enc(f32::NEG_INFINITY), 0x81);
    assert_eq!(enc(1.0), 0x7f);
    assert_eq!(enc(f32::INFINITY), 0x7f);
    assert_eq!(enc(0.5), 64, "63.5 rounds away from zero");
    assert_eq!(enc(-0.5), 0xc0, "-63.5 gives -64");
    assert_eq!(enc(-0.0), 0);
    assert_eq!(f32_to_snorm((-1.0f32).to_bits(), 16), 0x8001);
    assert_eq!(f32_to_snorm(0.5f32.to_bits(), 16), 16384);
    // 1/127 exactly scales to 1 (nearest f32 to 1/127, times 127, is within 1/2 of 1).
    assert_eq!(enc(1.0 / 127.0), 1);
}

#[test]
fn integer_stores_clamp_to_the_component_range() {
    let mut b = [0u8; 4];
    encode(Format::R8_UINT, [300, 0, 0, 0], &mut b);
    assert_eq!(b[0], 255);
    encode(Format::R8_SINT, [200, 0, 0, 0], &mut b);
    assert_eq!(b[0], 127);
    encode(Format::R8_SINT, [(-200i32) as u32, 0, 0, 0], &mut b);
    assert_eq!(b[0], 0x80);
    encode(Format::R8_SINT, [u32::MAX, 0, 0, 0], &mut b);
    assert_eq!(b[0], 0xff, "-1 fits");
    encode(Format::R16_UINT, [0x1_2345, 0, 0, 0], &mut b);
    assert_eq!(&b[..2], &[0xff, 0xff]);
    encode(Format::R10G10B10A2_UINT, [1024, 7, 1, 5], &mut b);
    assert_eq!(u32::from_le_bytes(b), 1023 | 7 << 10 | 1 << 20 | 3 << 30);
    encode(Format::R32_SINT, [0x8000_0000, 0, 0, 0], &mut b);
    assert_eq!(u32::from_le_bytes(b), 0x8000_0000);
    let mut b16 = [0u8; 16];
    encode(Format::R32G32B32A32_UINT, [1, 2, 3, 4], &mut b16);
    assert_eq!(b16, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    // BGRA writes R to byte 2.
    encode(
        Format::B8G8R8A8_UNORM,
        [0x3f80_0000, 0, 0x3f00_0000, 0x3f80_0000],
        &mut b,
    );
    assert_eq!(b, [128, 0, 255, 255]);
    // Bytes past the element are left alone.
    let mut b3 = [9u8; 3];
    encode(Format::R16_UINT, [1, 0, 0, 0], &mut b3);
    assert_eq!(b3, [1, 0, 9]);
}

#[test]
fn small_float_stores_round_toward_zero_with_the_d3d_rules() {
    let r11 = |x: u32| f32_to_small_float_rtz(x, 6, false);
    let f = |x: f32| x.to_bits();
    assert_eq!(r11(f(1.0)), 0x3c0);
    assert_eq!(r11(f(1.0 + 1.0 / 128.0)), 0x3c0, "half a step truncates");
    assert_eq!(r11(f(1.0 + 3.0 / 128.0)), 0x3c1, "1.5 steps truncate to 1");
    assert_eq!(r11(f(-1.0)), 0, "negative to 0");
    assert_eq!(r11(f(-0.0)), 0);
    assert_eq!(r11(f(f32::NEG_INFINITY)), 0);
    assert_eq!(r11(f(f32::INFINITY)), 0x7c0);
    assert_eq!(
        r11(f(1e10)),
        0x7bf,
        "too large: the largest finite value, not infinity"
    );
    assert_eq!(r11(f(65024.0)), 0x7bf);
    let nan = r11(0x7fc0_0000);
    assert!(nan >> 6 == 31 && nan & 63 != 0, "NaN stays NaN: {nan:#x}");
    let nan = r11(0xffc0_0000);
    assert!(
        nan >> 6 == 31 && nan & 63 != 0,
        "negative NaN stays NaN: {nan:#x}"
    );
    assert_eq!(r11(f(2f32.powi(-20))), 1, "smallest denormal");
    assert_eq!(r11(f(2f32.powi(-20) * 1.99)), 1);
    assert_eq!(r11(f(2f32.powi(-21))), 0);
    assert_eq!(r11(1), 0, "f32 denormal");
    let r10 = |x: u32| f32_to_small_float_rtz(x, 5, false);
    assert_eq!(r10(f(1.0)), 0x1e0);
    assert_eq!(r10(f(1e10)), 0x3df);
    assert_eq!(r10(f(2f32.powi(-19))), 1);
    // R16_FLOAT stores: round toward zero too, keeping the sign.
    let h = |x: f32| encode_component(Kind::Float, 16, x.to_bits());
    assert_eq!(h(1.0 + 2f32.powi(-11)), 0x3c00);
    assert_eq!(h(1.0 + 3.0 * 2f32.powi(-11)), 0x3c01);
    assert_eq!(h(-(1.0 + 3.0 * 2f32.powi(-11))), 0xbc01);
    assert_eq!(h(65520.0), 0x7bff);
    assert_eq!(h(-1e10), 0xfbff);
    assert_eq!(h(f32::NEG_INFINITY), 0xfc00);
    assert_eq!(h(-0.0), 0x8000);
    assert_eq!(h(2f32.powi(-24) * 1.5), 0x0001);
    assert_eq!(h(2f32.powi(-25)), 0x0000);
    // Exhaustively on a sample: the result is the largest code not above x (x >= 0, finite,
    // below the largest value + 1 step).
    let mut s: u32 = 0x1234_5678;
    for _ in 0..200_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        let x = 0x3300_0000 + s % (0x4780_0000 - 0x3300_0000); // [2^-25, 2^16)
        for (mbits, signed) in [(10u32, true), (6, false), (5, false)] {
            let code = f32_to_small_float_rtz(x, mbits, signed);
            let max = (30 << mbits) | ((1 << mbits) - 1);
            let v = |c: u32| small_value(c, mbits);
            let xv = f32_value(x);
            if xv >= v(max) {
                assert_eq!(code, max);
            } else {
                assert!(v(code) <= xv && xv < v(code + 1), "{x:#x} -> {code:#x}");
            }
        }
    }
}

/// Exact value of a positive small float code, in units of 2^-72.
fn small_value(code: u32, mbits: u32) -> u128 {
    let e = code >> mbits;
    let f = (code & ((1 << mbits) - 1)) as u128;
    // denormal: f * 2^(-14 - mbits); normal: (2^mbits + f) * 2^(e - 15 - mbits)
    let (m, exp) = if e == 0 {
        (f, -14 - mbits as i32)
    } else {
        ((1u128 << mbits) + f, e as i32 - 15 - mbits as i32)
    };
    m << (exp + 72)
}

/// Exact value of a positive finite f32 at least 2^-72, in units of 2^-72.
fn f32_value(bits: u32) -> u128 {
    let (m, e) = parts(bits);
    (m as u128) << (e + 72)
}

#[test]
fn f32_to_f16_rounds_to_nearest_even() {
    let f = |x: f32| f32_to_f16(x.to_bits());
    assert_eq!(f(1.0), 0x3c00);
    assert_eq!(f(1.0 + 2f32.powi(-11)), 0x3c00, "tie to even (down)");
    assert_eq!(f(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02, "tie to even (up)");
    assert_eq!(
        f(1.0 + 2f32.powi(-11) + 2f32.powi(-20)),
        0x3c01,
        "above the tie"
    );
    assert_eq!(f(-(1.0 + 3.0 * 2f32.powi(-11))), 0xbc02);
    assert_eq!(f(65504.0), 0x7bff);
    assert_eq!(f(65519.99), 0x7bff);
    assert_eq!(f(65520.0), 0x7c00, "tie with 2^16 rounds to infinity");
    assert_eq!(f(1e10), 0x7c00);
    assert_eq!(f(-1e10), 0xfc00);
    assert_eq!(f(f32::INFINITY), 0x7c00);
    assert_eq!(f(2f32.powi(-24)), 0x0001);
    assert_eq!(f(2f32.powi(-25)), 0x0000, "tie with 0 rounds to 0 (even)");
    assert_eq!(f(2f32.powi(-25) * 1.5), 0x0001);
    assert_eq!(f(-2f32.powi(-26)), 0x8000);
    assert_eq!(
        f(3.0 * 2f32.powi(-25)),
        0x0002,
        "denormal tie 1.5 -> 2 (even)"
    );
    assert_eq!(
        f(2f32.powi(-14) * (1.0 - 2f32.powi(-11))),
        0x0400,
        "rounds up to the smallest normal"
    );
    assert_eq!(f32_to_f16(1), 0x0000, "f32 denormal");
    assert_eq!(f32_to_f16(0x8000_0001), 0x8000);
    assert_eq!(f32_to_f16(0x7fc0_0000), 0x7e00);
    assert_eq!(
        f32_to_f16(0xff80_2000),
        0xfe01,
        "NaN: sign and top payload kept, quiet"
    );
    assert_eq!(
        f32_to_f16(0x7f80_0001),
        0x7e00,
        "signalling NaN with a low payload is quieted"
    );
    // A sample checked against the definition: nearest code, ties to the even code.
    let mut s: u32 = 0x9e37_79b9;
    for _ in 0..200_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        let x = 0x3300_0000 + s % (0x4780_0000 - 0x3300_0000); // [2^-25, 2^16)
        let h = f32_to_f16(x) as u32;
        let xv = f32_value(x) as i128;
        if h == 0x7c00 {
            // Infinity: x at least the midpoint between 65504 and 2^16.
            assert!(
                xv >= small_value(0x7bff, 10) as i128 + (1i128 << (72 + 4)),
                "{x:#x}"
            );
            continue;
        }
        let d = |c: u32| (small_value(c, 10) as i128 - xv).abs();
        let lo = if h == 0 { 0 } else { d(h - 1) };
        assert!(h == 0 || d(h) <= lo, "{x:#x} -> {h:#x}");
        if h < 0x7bff {
            assert!(d(h) <= d(h + 1), "{x:#x} -> {h:#x}");
            if d(h) == d(h + 1) {
                assert_eq!(h & 1, 0, "tie to even: {x:#x}");
            }
        }
        if h > 0 && d(h) == lo {
            assert_eq!(h & 1, 0, "tie to even: {x:#x}");
        }
    }
}

/// Every UNORM/SNORM store is the nearest code: |clamp(x) * d - code| <= 1/2, exactly.
#[test]
fn normalized_stores_are_the_nearest_code() {
    let mut s: u32 = 0x2545_f491;
    for _ in 0..100_000 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        // |x| in [2^-40, 1]: exponent field 87 to 126, or exactly 1.
        let mag = (87 << 23) + s % ((127 - 87) << 23);
        let x = mag | (s & 0x8000_0000);
        let (m, e) = parts(mag); // |x| = m * 2^e, e in [-63, -24]
        let neg = x >> 31 != 0;
        for bits in [8u8, 10, 16] {
            // UNORM: negative values clamp to 0.
            let d = (1i128 << bits) - 1;
            let code = f32_to_unorm(x, bits) as i128;
            let target = if neg { 0 } else { m * d }; // in units of 2^e
            assert!(
                2 * (target - (code << -e)).abs() <= 1i128 << -e,
                "unorm{bits} {x:#x} -> {code}"
            );
            let d = (1i128 << (bits - 1)) - 1;
            let raw = f32_to_snorm(x, bits);
            let code = ((raw << (32 - bits as u32)) as i32 >> (32 - bits as u32)) as i128;
            let target = if neg { -m * d } else { m * d };
            assert!(
                2 * (target - (code << -e)).abs() <= 1i128 << -e,
                "snorm{bits} {x:#x} -> {code}"
            );
        }
    }
}

#[test]
fn packed_16_bit_and_depth_stencil_formats() {
    // B5G6R5: B in bits 0..5, G in 5..11, R in 11..16.
    let word: u16 = 31 | 1 << 11; // G = 0
    let v = decode(Format::B5G6R5_UNORM, &word.to_le_bytes());
    assert_eq!(v[2], 0x3f80_0000);
    assert_eq!(v[1], 0);
    assert_nearest(v[0], 1, 31);
    assert_eq!(v[3], 0x3f80_0000, "no alpha: 1.0");
    // B5G5R5A1: A is bit 15, 1 bit: 0 or 1.0.
    let v = decode(Format::B5G5R5A1_UNORM, &0x8000u16.to_le_bytes());
    assert_eq!(v, [0, 0, 0, 0x3f80_0000]);
    let v = decode(Format::B4G4R4A4_UNORM, &0x0f00u16.to_le_bytes());
    assert_eq!(v, [0x3f80_0000, 0, 0, 0]);
    // D24_UNORM_S8_UINT: depth in bits 0..24 (UNORM), stencil in 24..32 (UINT); alpha follows
    // the first component: 1.0.
    let word: u32 = 0x00ff_ffff | 0x7f << 24;
    assert_eq!(
        decode(Format::D24_UNORM_S8_UINT, &word.to_le_bytes()),
        [0x3f80_0000, 0x7f, 0, 0x3f80_0000]
    );
    let v = decode(
        Format::R24_UNORM_X8_TYPELESS,
        &(1u32 | 0xff << 24).to_le_bytes(),
    );
    assert_nearest(v[0], 1, (1 << 24) - 1);
    assert_eq!(&v[1..], &[0, 0, 0x3f80_0000]);
    // Only a UINT component present: the default alpha is 0x00000001.
    assert_eq!(
        decode(
            Format::X24_TYPELESS_G8_UINT,
            &(0x12u32 << 24 | 0xabcdef).to_le_bytes()
        ),
        [0, 0x12, 0, 1]
    );
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&0x4049_0fdbu32.to_le_bytes());
    b[4] = 9;
    b[5] = 0xee; // X24: ignored
    assert_eq!(
        decode(Format::D32_FLOAT_S8X24_UINT, &b),
        [0x4049_0fdb, 9, 0, 0x3f80_0000]
    );
    assert_eq!(
        decode(Format::R32_FLOAT_X8X24_TYPELESS, &b),
        [0x4049_0fdb, 0, 0, 0x3f80_0000]
    );
    assert_eq!(decode(Format::X32_TYPELESS_G8X24_UINT, &b), [0, 9, 0, 1]);
    // 24-bit UNORM stores: the exact product rounds (0.5 -> 2^23).
    assert_eq!(f32_to_unorm(0.5f32.to_bits(), 24), 1 << 23);
    assert_eq!(f32_to_unorm(1.0f32.to_bits(), 24), (1 << 24) - 1);
    // A sample of 24-bit codes round-trips.
    for code in (0..1u32 << 24).step_by(4099).chain([(1 << 24) - 1]) {
        let v = unorm_to_f32(code, 24);
        assert_nearest_or_ends(v, code, 24);
        assert_eq!(f32_to_unorm(v, 24), code);
    }
}

fn assert_nearest_or_ends(v: u32, code: u32, bits: u8) {
    let d = (1i128 << bits) - 1;
    match code as i128 {
        0 => assert_eq!(v, 0),
        c if c == d => assert_eq!(v, 0x3f80_0000),
        c => assert_nearest(v, c, d),
    }
}
