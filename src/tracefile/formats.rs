//! DXGI format names a `[[texture]]` or a typed `[[buffer]]` may name, with their element sizes.

/// Uncompressed DXGI formats (without the `DXGI_FORMAT_` prefix) and bytes per element.
const FORMATS: &[(&str, u32)] = &[
    ("R32G32B32A32_TYPELESS", 16),
    ("R32G32B32A32_FLOAT", 16),
    ("R32G32B32A32_UINT", 16),
    ("R32G32B32A32_SINT", 16),
    ("R32G32B32_TYPELESS", 12),
    ("R32G32B32_FLOAT", 12),
    ("R32G32B32_UINT", 12),
    ("R32G32B32_SINT", 12),
    ("R16G16B16A16_TYPELESS", 8),
    ("R16G16B16A16_FLOAT", 8),
    ("R16G16B16A16_UNORM", 8),
    ("R16G16B16A16_UINT", 8),
    ("R16G16B16A16_SNORM", 8),
    ("R16G16B16A16_SINT", 8),
    ("R32G32_TYPELESS", 8),
    ("R32G32_FLOAT", 8),
    ("R32G32_UINT", 8),
    ("R32G32_SINT", 8),
    ("R32G8X24_TYPELESS", 8),
    ("D32_FLOAT_S8X24_UINT", 8),
    ("R32_FLOAT_X8X24_TYPELESS", 8),
    ("X32_TYPELESS_G8X24_UINT", 8),
    ("R10G10B10A2_TYPELESS", 4),
    ("R10G10B10A2_UNORM", 4),
    ("R10G10B10A2_UINT", 4),
    ("R11G11B10_FLOAT", 4),
    ("R8G8B8A8_TYPELESS", 4),
    ("R8G8B8A8_UNORM", 4),
    ("R8G8B8A8_UNORM_SRGB", 4),
    ("R8G8B8A8_UINT", 4),
    ("R8G8B8A8_SNORM", 4),
    ("R8G8B8A8_SINT", 4),
    ("R16G16_TYPELESS", 4),
    ("R16G16_FLOAT", 4),
    ("R16G16_UNORM", 4),
    ("R16G16_UINT", 4),
    ("R16G16_SNORM", 4),
    ("R16G16_SINT", 4),
    ("R32_TYPELESS", 4),
    ("D32_FLOAT", 4),
    ("R32_FLOAT", 4),
    ("R32_UINT", 4),
    ("R32_SINT", 4),
    ("R24G8_TYPELESS", 4),
    ("D24_UNORM_S8_UINT", 4),
    ("R24_UNORM_X8_TYPELESS", 4),
    ("X24_TYPELESS_G8_UINT", 4),
    ("R9G9B9E5_SHAREDEXP", 4),
    ("B8G8R8A8_UNORM", 4),
    ("B8G8R8X8_UNORM", 4),
    ("R10G10B10_XR_BIAS_A2_UNORM", 4),
    ("B8G8R8A8_TYPELESS", 4),
    ("B8G8R8A8_UNORM_SRGB", 4),
    ("B8G8R8X8_TYPELESS", 4),
    ("B8G8R8X8_UNORM_SRGB", 4),
    ("R8G8_TYPELESS", 2),
    ("R8G8_UNORM", 2),
    ("R8G8_UINT", 2),
    ("R8G8_SNORM", 2),
    ("R8G8_SINT", 2),
    ("R16_TYPELESS", 2),
    ("R16_FLOAT", 2),
    ("D16_UNORM", 2),
    ("R16_UNORM", 2),
    ("R16_UINT", 2),
    ("R16_SNORM", 2),
    ("R16_SINT", 2),
    ("B5G6R5_UNORM", 2),
    ("B5G5R5A1_UNORM", 2),
    ("B4G4R4A4_UNORM", 2),
    ("R8_TYPELESS", 1),
    ("R8_UNORM", 1),
    ("R8_UINT", 1),
    ("R8_SNORM", 1),
    ("R8_SINT", 1),
    ("A8_UNORM", 1),
];

/// The canonical name (prefix `DXGI_FORMAT_` removed) and element size of a format name.
pub(crate) fn lookup(name: &str) -> Option<(&'static str, u32)> {
    let bare = name.strip_prefix("DXGI_FORMAT_").unwrap_or(name);
    FORMATS.iter().find(|(n, _)| *n == bare).copied()
}

/// Every name [`lookup`] knows (without the prefix), for suggestions.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    FORMATS.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert_eq!(
            super::lookup("R32G32B32A32_UINT"),
            Some(("R32G32B32A32_UINT", 16))
        );
        assert_eq!(super::lookup("DXGI_FORMAT_R8_UNORM"), Some(("R8_UNORM", 1)));
        assert_eq!(super::lookup("r8_unorm"), None);
        assert_eq!(super::lookup("BC1_UNORM"), None);
    }
}
