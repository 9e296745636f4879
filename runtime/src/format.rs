//! DXGI formats of textures and typed buffers, and the conversions between an element's bytes
//! and the four 32-bit values a shader sees.
//!
//! Everything here is a pure function of bits: the same result on every host.
//!
//! - [`decode`] is what a load (`ld`, `ldms`, `ld_uav_typed`) returns: UNORM and SNORM codes to
//!   the f32 nearest to the exact quotient, 16-, 11- and 10-bit floats to f32 exactly, 32-bit
//!   floats' bits untouched (denormals and NaN payloads kept), integers zero- or sign-extended,
//!   and the defaults (0, 0, 0, 1) for the components a format lacks ("1" is 1.0f when the
//!   format's first component is FLOAT, UNORM or SNORM, 0x00000001 when it is UINT or SINT).
//! - [`encode`] is what a typed store writes, with Direct3D's data-conversion rules: float to
//!   UNORM/SNORM (NaN to 0, clamp, scale, round to nearest), float to a smaller float (round
//!   toward zero, too large to the largest finite value, NaN stays NaN, infinity stays infinity,
//!   negative to 0 for the sign-less 11- and 10-bit floats), integers clamped to the component's
//!   range.
//! - [`f32_to_f16`] and [`f16_to_f32`]: the `f32tof16` and `f16tof32` instructions (IEEE
//!   round to nearest even).
//!
//! docs/semantics.md (the DXBC numerics section) states each rule and why it was chosen.

/// How a component's bits are interpreted in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A float of the component's width (32, 16, or the sign-less 11 and 10).
    Float,
    /// Unsigned normalized: code c means c / (2^n - 1).
    Unorm,
    /// Signed normalized: code c means c / (2^(n-1) - 1), the most negative code -1.0.
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed (two's complement) integer.
    Sint,
}

/// One component of a format: which shader channel it feeds (0..4 = R, G, B, A), where its bits
/// lie in the little-endian element, and how they are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Component {
    /// Channel: 0 = R, 1 = G, 2 = B, 3 = A.
    pub channel: u8,
    /// First bit in the element (bit 0 is the least significant bit of byte 0).
    pub offset: u8,
    /// Width in bits.
    pub bits: u8,
    /// Interpretation.
    pub kind: Kind,
}

macro_rules! formats {
    ($($variant:ident $name:literal $bytes:literal [$(($ch:literal, $off:literal, $bits:literal, $kind:ident)),*];)*) => {
        /// A DXGI format a texture or typed buffer can have: uncompressed and not sRGB; the
        /// typeless parts of the depth-stencil views (`X8`, `X24`, `X32`) are ignored bits.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum Format {
            $(
                #[doc = concat!("`DXGI_FORMAT_", $name, "`.")]
                $variant,
            )*
        }

        impl Format {
            /// Every supported format.
            pub const ALL: &'static [Format] = &[$(Format::$variant),*];

            /// The DXGI name without the `DXGI_FORMAT_` prefix.
            pub fn name(self) -> &'static str {
                match self { $(Format::$variant => $name,)* }
            }

            /// Bytes of one element (texel or buffer element).
            pub fn element_bytes(self) -> u32 {
                match self { $(Format::$variant => $bytes,)* }
            }

            /// The components present, in the order their channels appear in the name.
            pub fn components(self) -> &'static [Component] {
                match self {
                    $(Format::$variant => &[$(Component {
                        channel: $ch,
                        offset: $off,
                        bits: $bits,
                        kind: Kind::$kind,
                    }),*],)*
                }
            }
        }
    };
}

formats! {
    R32G32B32A32_FLOAT "R32G32B32A32_FLOAT" 16 [(0, 0, 32, Float), (1, 32, 32, Float), (2, 64, 32, Float), (3, 96, 32, Float)];
    R32G32B32A32_UINT "R32G32B32A32_UINT" 16 [(0, 0, 32, Uint), (1, 32, 32, Uint), (2, 64, 32, Uint), (3, 96, 32, Uint)];
    R32G32B32A32_SINT "R32G32B32A32_SINT" 16 [(0, 0, 32, Sint), (1, 32, 32, Sint), (2, 64, 32, Sint), (3, 96, 32, Sint)];
    R32G32B32_FLOAT "R32G32B32_FLOAT" 12 [(0, 0, 32, Float), (1, 32, 32, Float), (2, 64, 32, Float)];
    R32G32B32_UINT "R32G32B32_UINT" 12 [(0, 0, 32, Uint), (1, 32, 32, Uint), (2, 64, 32, Uint)];
    R32G32B32_SINT "R32G32B32_SINT" 12 [(0, 0, 32, Sint), (1, 32, 32, Sint), (2, 64, 32, Sint)];
    R16G16B16A16_FLOAT "R16G16B16A16_FLOAT" 8 [(0, 0, 16, Float), (1, 16, 16, Float), (2, 32, 16, Float), (3, 48, 16, Float)];
    R16G16B16A16_UNORM "R16G16B16A16_UNORM" 8 [(0, 0, 16, Unorm), (1, 16, 16, Unorm), (2, 32, 16, Unorm), (3, 48, 16, Unorm)];
    R16G16B16A16_UINT "R16G16B16A16_UINT" 8 [(0, 0, 16, Uint), (1, 16, 16, Uint), (2, 32, 16, Uint), (3, 48, 16, Uint)];
    R16G16B16A16_SNORM "R16G16B16A16_SNORM" 8 [(0, 0, 16, Snorm), (1, 16, 16, Snorm), (2, 32, 16, Snorm), (3, 48, 16, Snorm)];
    R16G16B16A16_SINT "R16G16B16A16_SINT" 8 [(0, 0, 16, Sint), (1, 16, 16, Sint), (2, 32, 16, Sint), (3, 48, 16, Sint)];
    R32G32_FLOAT "R32G32_FLOAT" 8 [(0, 0, 32, Float), (1, 32, 32, Float)];
    R32G32_UINT "R32G32_UINT" 8 [(0, 0, 32, Uint), (1, 32, 32, Uint)];
    R32G32_SINT "R32G32_SINT" 8 [(0, 0, 32, Sint), (1, 32, 32, Sint)];
    R10G10B10A2_UNORM "R10G10B10A2_UNORM" 4 [(0, 0, 10, Unorm), (1, 10, 10, Unorm), (2, 20, 10, Unorm), (3, 30, 2, Unorm)];
    R10G10B10A2_UINT "R10G10B10A2_UINT" 4 [(0, 0, 10, Uint), (1, 10, 10, Uint), (2, 20, 10, Uint), (3, 30, 2, Uint)];
    R11G11B10_FLOAT "R11G11B10_FLOAT" 4 [(0, 0, 11, Float), (1, 11, 11, Float), (2, 22, 10, Float)];
    R8G8B8A8_UNORM "R8G8B8A8_UNORM" 4 [(0, 0, 8, Unorm), (1, 8, 8, Unorm), (2, 16, 8, Unorm), (3, 24, 8, Unorm)];
    R8G8B8A8_UINT "R8G8B8A8_UINT" 4 [(0, 0, 8, Uint), (1, 8, 8, Uint), (2, 16, 8, Uint), (3, 24, 8, Uint)];
    R8G8B8A8_SNORM "R8G8B8A8_SNORM" 4 [(0, 0, 8, Snorm), (1, 8, 8, Snorm), (2, 16, 8, Snorm), (3, 24, 8, Snorm)];
    R8G8B8A8_SINT "R8G8B8A8_SINT" 4 [(0, 0, 8, Sint), (1, 8, 8, Sint), (2, 16, 8, Sint), (3, 24, 8, Sint)];
    R16G16_FLOAT "R16G16_FLOAT" 4 [(0, 0, 16, Float), (1, 16, 16, Float)];
    R16G16_UNORM "R16G16_UNORM" 4 [(0, 0, 16, Unorm), (1, 16, 16, Unorm)];
    R16G16_UINT "R16G16_UINT" 4 [(0, 0, 16, Uint), (1, 16, 16, Uint)];
    R16G16_SNORM "R16G16_SNORM" 4 [(0, 0, 16, Snorm), (1, 16, 16, Snorm)];
    R16G16_SINT "R16G16_SINT" 4 [(0, 0, 16, Sint), (1, 16, 16, Sint)];
    D32_FLOAT "D32_FLOAT" 4 [(0, 0, 32, Float)];
    R32_FLOAT "R32_FLOAT" 4 [(0, 0, 32, Float)];
    R32_UINT "R32_UINT" 4 [(0, 0, 32, Uint)];
    R32_SINT "R32_SINT" 4 [(0, 0, 32, Sint)];
    B8G8R8A8_UNORM "B8G8R8A8_UNORM" 4 [(2, 0, 8, Unorm), (1, 8, 8, Unorm), (0, 16, 8, Unorm), (3, 24, 8, Unorm)];
    B8G8R8X8_UNORM "B8G8R8X8_UNORM" 4 [(2, 0, 8, Unorm), (1, 8, 8, Unorm), (0, 16, 8, Unorm)];
    R8G8_UNORM "R8G8_UNORM" 2 [(0, 0, 8, Unorm), (1, 8, 8, Unorm)];
    R8G8_UINT "R8G8_UINT" 2 [(0, 0, 8, Uint), (1, 8, 8, Uint)];
    R8G8_SNORM "R8G8_SNORM" 2 [(0, 0, 8, Snorm), (1, 8, 8, Snorm)];
    R8G8_SINT "R8G8_SINT" 2 [(0, 0, 8, Sint), (1, 8, 8, Sint)];
    R16_FLOAT "R16_FLOAT" 2 [(0, 0, 16, Float)];
    D16_UNORM "D16_UNORM" 2 [(0, 0, 16, Unorm)];
    R16_UNORM "R16_UNORM" 2 [(0, 0, 16, Unorm)];
    R16_UINT "R16_UINT" 2 [(0, 0, 16, Uint)];
    R16_SNORM "R16_SNORM" 2 [(0, 0, 16, Snorm)];
    R16_SINT "R16_SINT" 2 [(0, 0, 16, Sint)];
    R8_UNORM "R8_UNORM" 1 [(0, 0, 8, Unorm)];
    R8_UINT "R8_UINT" 1 [(0, 0, 8, Uint)];
    R8_SNORM "R8_SNORM" 1 [(0, 0, 8, Snorm)];
    R8_SINT "R8_SINT" 1 [(0, 0, 8, Sint)];
    A8_UNORM "A8_UNORM" 1 [(3, 0, 8, Unorm)];
    B5G6R5_UNORM "B5G6R5_UNORM" 2 [(2, 0, 5, Unorm), (1, 5, 6, Unorm), (0, 11, 5, Unorm)];
    B5G5R5A1_UNORM "B5G5R5A1_UNORM" 2 [(2, 0, 5, Unorm), (1, 5, 5, Unorm), (0, 10, 5, Unorm), (3, 15, 1, Unorm)];
    B4G4R4A4_UNORM "B4G4R4A4_UNORM" 2 [(2, 0, 4, Unorm), (1, 4, 4, Unorm), (0, 8, 4, Unorm), (3, 12, 4, Unorm)];
    D24_UNORM_S8_UINT "D24_UNORM_S8_UINT" 4 [(0, 0, 24, Unorm), (1, 24, 8, Uint)];
    R24_UNORM_X8_TYPELESS "R24_UNORM_X8_TYPELESS" 4 [(0, 0, 24, Unorm)];
    X24_TYPELESS_G8_UINT "X24_TYPELESS_G8_UINT" 4 [(1, 24, 8, Uint)];
    D32_FLOAT_S8X24_UINT "D32_FLOAT_S8X24_UINT" 8 [(0, 0, 32, Float), (1, 32, 8, Uint)];
    R32_FLOAT_X8X24_TYPELESS "R32_FLOAT_X8X24_TYPELESS" 8 [(0, 0, 32, Float)];
    X32_TYPELESS_G8X24_UINT "X32_TYPELESS_G8X24_UINT" 8 [(1, 32, 8, Uint)];
}

impl Format {
    /// The format named `name` (a DXGI name, with or without the `DXGI_FORMAT_` prefix; case
    /// matters, as in DXGI's headers), or `None` for a name that is not a supported format.
    pub fn from_name(name: &str) -> Option<Format> {
        let bare = name.strip_prefix("DXGI_FORMAT_").unwrap_or(name);
        Format::ALL.iter().copied().find(|f| f.name() == bare)
    }

    /// How the format's first component is interpreted (which decides how the default "1" of a
    /// missing alpha reads).
    pub fn first_kind(self) -> Kind {
        self.components()[0].kind
    }

    /// Whether the shader sees integers (UINT or SINT), not floats, from this format.
    pub fn is_integer(self) -> bool {
        matches!(self.first_kind(), Kind::Uint | Kind::Sint)
    }

    /// The four values a load returns for a format's missing components and for an
    /// out-of-range element: (0, 0, 0, 1), "1" being 1.0f or 0x00000001 per [`Format::first_kind`].
    pub fn defaults(self) -> [u32; 4] {
        [0, 0, 0, if self.is_integer() { 1 } else { ONE_F32 }]
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// 1.0f.
const ONE_F32: u32 = 0x3f80_0000;

fn element_bits(bytes: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b[..bytes.len()].copy_from_slice(bytes);
    u128::from_le_bytes(b)
}

/// The four 32-bit values a load of one element of `format` returns (R, G, B, A, after the
/// format's own channel order, e.g. B8G8R8A8 swizzled to RGBA).
///
/// # Panics
/// If `bytes` is shorter than [`Format::element_bytes`] (extra bytes are ignored).
pub fn decode(format: Format, bytes: &[u8]) -> [u32; 4] {
    use Format::*;
    let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    // The formats that need no conversion.
    match format {
        R32G32B32A32_FLOAT | R32G32B32A32_UINT | R32G32B32A32_SINT => {
            return [word(0), word(1), word(2), word(3)]
        }
        R32_UINT | R32_SINT => return [word(0), 0, 0, 1],
        R32_FLOAT | D32_FLOAT => return [word(0), 0, 0, ONE_F32],
        _ => {}
    }
    let n = format.element_bytes() as usize;
    let bits = element_bits(&bytes[..n]);
    let mut out = format.defaults();
    for c in format.components() {
        let raw = (bits >> c.offset) as u32 & mask(c.bits);
        out[c.channel as usize] = decode_component(c.kind, c.bits, raw);
    }
    out
}

/// Writes `value` (R, G, B, A) into one element of `format`, converted per component with the
/// typed-store rules; components the format lacks are ignored, and the element's unused bits
/// (`X` in a format's name) are written as 0.
///
/// # Panics
/// If `out` is shorter than [`Format::element_bytes`] (bytes past it are left alone).
pub fn encode(format: Format, value: [u32; 4], out: &mut [u8]) {
    let n = format.element_bytes() as usize;
    let mut bits: u128 = 0;
    for c in format.components() {
        let code = encode_component(c.kind, c.bits, value[c.channel as usize]);
        bits |= ((code & mask(c.bits)) as u128) << c.offset;
    }
    out[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
}

fn mask(bits: u8) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// One component's code (`bits` wide, in the low bits of `raw`) to the 32 bits a shader sees.
pub fn decode_component(kind: Kind, bits: u8, raw: u32) -> u32 {
    match kind {
        Kind::Float => match bits {
            32 => raw,
            16 => f16_to_f32(raw as u16),
            11 => small_float_to_f32(raw, 6, false),
            10 => small_float_to_f32(raw, 5, false),
            _ => unreachable!("no {bits}-bit float component"),
        },
        Kind::Unorm => unorm_to_f32(raw, bits),
        Kind::Snorm => snorm_to_f32(raw, bits),
        Kind::Uint => raw,
        Kind::Sint => sign_extend(raw, bits),
    }
}

/// The 32 bits a shader stores to the code of one component (`bits` wide, in the low bits).
pub fn encode_component(kind: Kind, bits: u8, value: u32) -> u32 {
    match kind {
        Kind::Float => match bits {
            32 => value,
            16 => f32_to_small_float_rtz(value, 10, true),
            11 => f32_to_small_float_rtz(value, 6, false),
            10 => f32_to_small_float_rtz(value, 5, false),
            _ => unreachable!("no {bits}-bit float component"),
        },
        Kind::Unorm => f32_to_unorm(value, bits),
        Kind::Snorm => f32_to_snorm(value, bits),
        Kind::Uint => value.min(mask(bits)),
        Kind::Sint => {
            if bits >= 32 {
                value
            } else {
                let max = (1i32 << (bits - 1)) - 1;
                (value as i32).clamp(-max - 1, max) as u32 & mask(bits)
            }
        }
    }
}

fn sign_extend(raw: u32, bits: u8) -> u32 {
    if bits >= 32 {
        raw
    } else {
        let s = 32 - bits as u32;
        (((raw << s) as i32) >> s) as u32
    }
}

/// An n-bit UNORM code to the f32 nearest to code / (2^n - 1). Both operands are exact f32
/// values (n <= 24), and IEEE division is correctly rounded, so one f32 division is exact.
pub fn unorm_to_f32(code: u32, bits: u8) -> u32 {
    debug_assert!(bits <= 24);
    let d = mask(bits) as f32;
    (code as f32 / d).to_bits()
}

/// An n-bit SNORM code (two's complement in the low bits) to the f32 nearest to
/// code / (2^(n-1) - 1); the most negative code reads -1.0 (as does the one above it).
pub fn snorm_to_f32(code: u32, bits: u8) -> u32 {
    debug_assert!((2..=24).contains(&bits));
    let c = sign_extend(code & mask(bits), bits) as i32;
    let d = (1i32 << (bits - 1)) - 1;
    if c < -d {
        return (-1.0f32).to_bits();
    }
    (c as f32 / d as f32).to_bits()
}

/// f32 bits to an n-bit UNORM code: NaN to 0, clamped to [0, 1], scaled by 2^n - 1 and rounded
/// to the nearest integer. The product is exact in f64 (24 + 16 significant bits), so the
/// rounding sees the exact value; its only possible tie is 0.5 * (2^n - 1), where rounding half
/// up (Direct3D's "+ 0.5 and drop the fraction") and half to even agree.
pub fn f32_to_unorm(value: u32, bits: u8) -> u32 {
    debug_assert!(bits <= 24);
    let x = f32::from_bits(value);
    if x.is_nan() {
        return 0;
    }
    let x = x.clamp(0.0, 1.0) as f64;
    (x * mask(bits) as f64).round_ties_even() as u32
}

/// f32 bits to an n-bit SNORM code: NaN to 0, clamped to [-1, 1], scaled by 2^(n-1) - 1 and
/// rounded to the nearest integer (exact product; the only ties, at +-0.5, round away from zero
/// and to even alike). -1.0 gives -(2^(n-1) - 1), never the most negative code.
pub fn f32_to_snorm(value: u32, bits: u8) -> u32 {
    debug_assert!((2..=24).contains(&bits));
    let x = f32::from_bits(value);
    if x.is_nan() {
        return 0;
    }
    let x = x.clamp(-1.0, 1.0) as f64;
    let d = ((1u32 << (bits - 1)) - 1) as f64;
    ((x * d).round_ties_even() as i32) as u32 & mask(bits)
}

/// A float with a 5-bit exponent (bias 15) and `mbits` fraction bits, with a sign bit above them
/// when `signed`, to f32 bits, exactly (every such value is a normal f32 or zero). NaN keeps its
/// sign and its payload in the top fraction bits.
pub fn small_float_to_f32(raw: u32, mbits: u32, signed: bool) -> u32 {
    let sign = if signed {
        (raw >> (mbits + 5) & 1) << 31
    } else {
        0
    };
    let e = raw >> mbits & 31;
    let f = raw & ((1 << mbits) - 1);
    let shift = 23 - mbits;
    match e {
        31 => sign | 0x7f80_0000 | f << shift,
        0 if f == 0 => sign,
        0 => {
            // f * 2^(-14 - mbits): the top set bit p of f sets the exponent.
            let p = 31 - f.leading_zeros();
            let exp = (p as i32 - 14 - mbits as i32 + 127) as u32;
            sign | exp << 23 | ((f << (23 - p)) & 0x7f_ffff)
        }
        _ => sign | (e + 112) << 23 | f << shift,
    }
}

/// f32 bits to a float with a 5-bit exponent and `mbits` fraction bits (a sign bit above when
/// `signed`), with Direct3D's rules for converting to a smaller float format: round toward
/// zero, finite values too large give the largest finite value (never infinity), infinity gives
/// infinity, NaN gives NaN (sign and top payload bits kept, the top fraction bit set), values too
/// small give zero (f32 denormals included), the sign kept; without a sign bit, every negative
/// value (-0 and -infinity included) gives 0.
pub fn f32_to_small_float_rtz(value: u32, mbits: u32, signed: bool) -> u32 {
    let neg = value >> 31 != 0;
    let abs = value & 0x7fff_ffff;
    let sign = if signed && neg { 1 << (mbits + 5) } else { 0 };
    let exp_all = 31 << mbits;
    if abs > 0x7f80_0000 {
        return sign | exp_all | 1 << (mbits - 1) | (abs & 0x7f_ffff) >> (23 - mbits);
    }
    if neg && !signed {
        return 0;
    }
    if abs == 0x7f80_0000 {
        return sign | exp_all;
    }
    let e = (abs >> 23) as i32 - 127;
    let m = abs & 0x7f_ffff;
    let bits = if e > 15 {
        (30 << mbits) | ((1 << mbits) - 1)
    } else if e >= -14 {
        ((e + 15) as u32) << mbits | m >> (23 - mbits)
    } else if abs >> 23 == 0 {
        0
    } else {
        // value = (2^23 + m) * 2^(e - 23); one code is 2^(-14 - mbits).
        let shift = (23 - mbits as i32) + (-14 - e);
        if shift >= 32 {
            0
        } else {
            (0x80_0000 | m) >> shift
        }
    };
    sign | bits
}

/// IEEE binary16 bits to f32 bits, exactly (denormals become normal f32 values; NaN keeps its
/// sign and payload). The `f16tof32` instruction, applied to the low 16 bits.
pub fn f16_to_f32(h: u16) -> u32 {
    small_float_to_f32(h as u32, 10, true)
}

/// f32 bits to IEEE binary16 bits, rounded to nearest even as IEEE 754 defines the conversion:
/// overflow gives infinity, results below the smallest denormal round to (signed) zero or to it,
/// NaN gives a quiet NaN with the sign and the top 9 payload bits kept. The `f32tof16`
/// instruction (docs/semantics.md explains why nearest even and not Direct3D's round toward
/// zero of format conversions).
pub fn f32_to_f16(value: u32) -> u16 {
    let sign = ((value >> 16) & 0x8000) as u16;
    let abs = value & 0x7fff_ffff;
    if abs > 0x7f80_0000 {
        return sign | 0x7e00 | ((abs & 0x7f_ffff) >> 13) as u16;
    }
    if abs == 0x7f80_0000 {
        return sign | 0x7c00;
    }
    let e = (abs >> 23) as i32 - 127;
    if abs >> 23 == 0 || e < -26 {
        // Below half the smallest denormal (2^-25): zero. (f32 denormals are < 2^-126.)
        return sign;
    }
    let m = 0x80_0000 | (abs & 0x7f_ffff); // value = m * 2^(e - 23)
                                           // The result's unit: 2^-24 for denormals, else 2^(e - 10).
    let unit_exp = if e < -14 { -24 } else { e - 10 };
    let shift = (unit_exp - (e - 23)) as u32; // >= 13
    let q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let q = if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    // q counts units of 2^unit_exp; rebuild the encoding (a carry into the next binade, or to
    // infinity, falls out of the addition).
    let bits = if e < -14 {
        q // denormal (q == 0x400 is the smallest normal, correctly encoded)
    } else {
        (((e + 15) as u32) << 10) + (q - 0x400)
    };
    if bits >= 0x7c00 {
        return sign | 0x7c00;
    }
    sign | bits as u16
}

#[cfg(test)]
mod tests;
