//! Sampler state (Direct3D 11's `D3D11_SAMPLER_DESC`, a DXBC program's `s#`): filters, address
//! modes, LOD bias and clamps, comparison function, anisotropy and border colour, as data. What
//! sampling does with it is defined in warpjit's `semantics::sample`.

/// A minification, magnification or mip filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Nearest texel (nearest mip level).
    Point,
    /// Linear interpolation between texels (between mip levels).
    Linear,
}

/// What a filter does with the texels it selects (bits 7 and 8 of a `D3D11_FILTER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// Their weighted sum.
    Standard,
    /// Each is compared with a reference value first (`sample_c`, `gather4_c`): their weighted
    /// sum of 1.0 (passed) and 0.0 (failed).
    Comparison,
    /// The minimum of those with a non-zero weight (`D3D11_FILTER_MINIMUM_*`, D3D 11.1).
    Minimum,
    /// The maximum of those with a non-zero weight (`D3D11_FILTER_MAXIMUM_*`).
    Maximum,
}

/// How a texel address outside the texture is brought back (`D3D11_TEXTURE_ADDRESS_MODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Repeat: the address modulo the size.
    Wrap,
    /// Repeat mirrored every other tile.
    Mirror,
    /// The nearest edge texel.
    Clamp,
    /// The border colour.
    Border,
    /// Mirrored once about 0, then clamped.
    MirrorOnce,
}

impl AddressMode {
    /// Every mode, with the name a trace gives it.
    pub const NAMES: [(&'static str, AddressMode); 5] = [
        ("wrap", AddressMode::Wrap),
        ("mirror", AddressMode::Mirror),
        ("clamp", AddressMode::Clamp),
        ("border", AddressMode::Border),
        ("mirror_once", AddressMode::MirrorOnce),
    ];
}

/// The comparison of a comparison filter: `reference OP texel` (`D3D11_COMPARISON_FUNC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonFunc {
    /// Never passes.
    Never,
    /// `reference < texel`.
    Less,
    /// `reference == texel`.
    Equal,
    /// `reference <= texel`.
    LessEqual,
    /// `reference > texel`.
    Greater,
    /// `reference != texel`.
    NotEqual,
    /// `reference >= texel`.
    GreaterEqual,
    /// Always passes.
    Always,
}

impl ComparisonFunc {
    /// Every function, with the name a trace gives it.
    pub const NAMES: [(&'static str, ComparisonFunc); 8] = [
        ("never", ComparisonFunc::Never),
        ("less", ComparisonFunc::Less),
        ("equal", ComparisonFunc::Equal),
        ("less_equal", ComparisonFunc::LessEqual),
        ("greater", ComparisonFunc::Greater),
        ("not_equal", ComparisonFunc::NotEqual),
        ("greater_equal", ComparisonFunc::GreaterEqual),
        ("always", ComparisonFunc::Always),
    ];
}

/// A sampler's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerState {
    /// The minification filter (LOD above 0).
    pub min: Filter,
    /// The magnification filter (LOD at or below 0).
    pub mag: Filter,
    /// The mip filter.
    pub mip: Filter,
    /// Anisotropic filtering (then `min`, `mag` and `mip` are all linear).
    pub anisotropic: bool,
    /// What the filter does with its texels.
    pub reduction: Reduction,
    /// Address modes of u, v and w.
    pub address: [AddressMode; 3],
    /// Added to every computed or given LOD (-16 to 15.99).
    pub mip_lod_bias: f32,
    /// The LOD is clamped to `[min_lod, max_lod]` (`min_lod` wins when they cross).
    pub min_lod: f32,
    /// See `min_lod`.
    pub max_lod: f32,
    /// The largest ratio of anisotropy (1 to 16).
    pub max_anisotropy: u32,
    /// The comparison of a [`Reduction::Comparison`] filter.
    pub comparison: ComparisonFunc,
    /// RGBA, used where an address mode is [`AddressMode::Border`].
    pub border_color: [f32; 4],
}

impl SamplerState {
    /// Direct3D 11's default sampler state, which an unbound `s#` has: trilinear filtering,
    /// clamp addressing, no bias, LOD unclamped, anisotropy 1, comparison `Never`, border
    /// colour (1, 1, 1, 1).
    pub const DEFAULT: SamplerState = SamplerState {
        min: Filter::Linear,
        mag: Filter::Linear,
        mip: Filter::Linear,
        anisotropic: false,
        reduction: Reduction::Standard,
        address: [AddressMode::Clamp; 3],
        mip_lod_bias: 0.0,
        min_lod: -f32::MAX,
        max_lod: f32::MAX,
        max_anisotropy: 1,
        comparison: ComparisonFunc::Never,
        border_color: [1.0; 4],
    };

    /// The filter part of the state from a `D3D11_FILTER` value: min, mag, mip filters,
    /// anisotropy and reduction; `None` for a value that is not a Direct3D 11 filter.
    pub fn filter_from_code(code: u32) -> Option<(Filter, Filter, Filter, bool, Reduction)> {
        let f = |bit: u32| {
            if code >> bit & 1 == 1 {
                Filter::Linear
            } else {
                Filter::Point
            }
        };
        let reduction = match code >> 7 & 3 {
            0 => Reduction::Standard,
            1 => Reduction::Comparison,
            2 => Reduction::Minimum,
            _ => Reduction::Maximum,
        };
        let base = code & 0x7f;
        let valid = matches!(
            base,
            0x00 | 0x01 | 0x04 | 0x05 | 0x10 | 0x11 | 0x14 | 0x15 | 0x55
        ) && code & !0x1ff == 0;
        valid.then(|| (f(4), f(2), f(0), base == 0x55, reduction))
    }

    /// The `D3D11_FILTER` names (without the `D3D11_FILTER_` prefix) and values.
    pub fn filter_names() -> Vec<(String, u32)> {
        const BASE: [(&str, u32); 9] = [
            ("MIN_MAG_MIP_POINT", 0x00),
            ("MIN_MAG_POINT_MIP_LINEAR", 0x01),
            ("MIN_POINT_MAG_LINEAR_MIP_POINT", 0x04),
            ("MIN_POINT_MAG_MIP_LINEAR", 0x05),
            ("MIN_LINEAR_MAG_MIP_POINT", 0x10),
            ("MIN_LINEAR_MAG_POINT_MIP_LINEAR", 0x11),
            ("MIN_MAG_LINEAR_MIP_POINT", 0x14),
            ("MIN_MAG_MIP_LINEAR", 0x15),
            ("ANISOTROPIC", 0x55),
        ];
        let mut out = Vec::new();
        for (prefix, bits) in [
            ("", 0u32),
            ("COMPARISON_", 0x80),
            ("MINIMUM_", 0x100),
            ("MAXIMUM_", 0x180),
        ] {
            for (name, v) in BASE {
                out.push((format!("{prefix}{name}"), bits | v));
            }
        }
        out
    }
}

impl Default for SamplerState {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_name_decodes_to_its_parts() {
        let names = SamplerState::filter_names();
        assert_eq!(names.len(), 36);
        for (name, code) in names {
            let (min, mag, mip, aniso, red) = SamplerState::filter_from_code(code).unwrap();
            let lin = |f: Filter| f == Filter::Linear;
            let base = name
                .trim_start_matches("COMPARISON_")
                .trim_start_matches("MINIMUM_")
                .trim_start_matches("MAXIMUM_");
            assert_eq!(aniso, base == "ANISOTROPIC", "{name}");
            if !aniso {
                assert_eq!(
                    lin(min),
                    base.contains("MIN_LINEAR")
                        || base.contains("MIN_MAG_LINEAR")
                        || base == "MIN_MAG_MIP_LINEAR",
                    "{name}"
                );
                assert_eq!(lin(mip), base.ends_with("MIP_LINEAR"), "{name}");
                assert_eq!(
                    lin(mag),
                    base.contains("MAG_LINEAR") || base.contains("MAG_MIP_LINEAR"),
                    "{name}"
                );
            }
            assert_eq!(
                red == Reduction::Comparison,
                name.starts_with("COMPARISON_")
            );
            assert_eq!(red == Reduction::Minimum, name.starts_with("MINIMUM_"));
            assert_eq!(red == Reduction::Maximum, name.starts_with("MAXIMUM_"));
        }
        assert!(SamplerState::filter_from_code(0x02).is_none());
        assert!(SamplerState::filter_from_code(0x80000000).is_none());
    }
}
