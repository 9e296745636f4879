use super::*;
use crate::format::Format;

fn words(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(|w| w.to_le_bytes()).collect()
}

const ONE: u32 = 0x3f80_0000;

#[test]
fn texel_layout_is_slice_row_column_sample() {
    let (w, h, s, a) = (3u32, 2u32, 2u32, 2u32);
    let n = w * h * s * a;
    let t = Texture::new(
        TextureDim::Tex2dMsArray,
        Format::R32_UINT,
        w,
        h,
        s,
        a,
        &words(0..n),
    )
    .unwrap();
    let mut expect = 0;
    for slice in 0..a {
        for y in 0..h {
            for x in 0..w {
                for sample in 0..s {
                    assert_eq!(t.texel_offset(x, y, slice, sample), Some(expect as u64 * 4));
                    assert_eq!(t.load(x, y, slice, sample), [expect, 0, 0, 1]);
                    expect += 1;
                }
            }
        }
    }
    // Out of range on each axis, the sample index included.
    assert_eq!(t.texel_offset(w, 0, 0, 0), None);
    assert_eq!(t.texel_offset(0, h, 0, 0), None);
    assert_eq!(t.texel_offset(0, 0, a, 0), None);
    assert_eq!(t.texel_offset(0, 0, 0, s), None);
    assert_eq!(t.texel_offset(u32::MAX, 0, 0, 0), None);
    assert_eq!(t.texel(0, 0, 0, s), None);
    assert_eq!(t.load(0, 0, 0, s), [0, 0, 0, 1], "integer default alpha");
    assert_eq!(t.load(u32::MAX, 0, 0, 0), [0, 0, 0, 1]);
}

#[test]
fn out_of_range_loads_give_zero_and_the_format_defaults() {
    let shape = |f: Format| {
        let init = vec![0xff; 4 * f.element_bytes() as usize];
        Texture::new(TextureDim::Tex2d, f, 2, 2, 1, 1, &init).unwrap()
    };
    assert_eq!(shape(Format::R32G32B32A32_FLOAT).load(2, 0, 0, 0), [0; 4]);
    assert_eq!(shape(Format::R32_FLOAT).load(0, 2, 0, 0), [0, 0, 0, ONE]);
    assert_eq!(shape(Format::R16G16_UINT).load(0, 0, 1, 0), [0, 0, 0, 1]);
    assert_eq!(shape(Format::R8G8B8A8_UNORM).load(0, 0, 0, 1), [0; 4]);
    // In range: the decoded texel.
    assert_eq!(shape(Format::R8G8B8A8_UNORM).load(1, 1, 0, 0), [ONE; 4]);
    assert_eq!(
        shape(Format::R16G16_UINT).load(1, 1, 0, 0),
        [0xffff, 0xffff, 0, 1]
    );
}

#[test]
fn texture_shapes_are_checked() {
    let t = |dim, s, a| Texture::new(dim, Format::R8_UNORM, 4, 4, s, a, &[]);
    assert!(t(TextureDim::Tex2d, 1, 1).is_ok());
    assert!(matches!(
        t(TextureDim::Tex2d, 2, 1),
        Err(ResourceError::Shape(_))
    ));
    assert!(matches!(
        t(TextureDim::Tex2dMs, 4, 2),
        Err(ResourceError::Shape(_))
    ));
    assert!(t(TextureDim::Tex2dMsArray, 4, 2).is_ok());
    assert!(t(TextureDim::Tex2dArray, 1, 3).is_ok());
    assert!(matches!(
        t(TextureDim::Tex2dArray, 1, 0),
        Err(ResourceError::Shape(_))
    ));
    assert_eq!(
        Texture::new(TextureDim::Tex2d, Format::R8_UNORM, 2, 2, 1, 1, &[0; 5]).unwrap_err(),
        ResourceError::DataTooLong { len: 5, size: 4 }
    );
    let t = t(TextureDim::Tex2dMsArray, 4, 2).unwrap();
    assert_eq!(t.storage().len(), 4 * 4 * 4 * 2);
    assert_eq!(
        (t.width(), t.height(), t.samples(), t.array_size()),
        (4, 4, 4, 2)
    );
}

#[test]
fn typed_texture_stores_convert_and_keep_neighbours() {
    let t = Texture::new(TextureDim::Tex2d, Format::R8_UNORM, 5, 1, 1, 1, &[7; 5]).unwrap();
    assert!(t.store(1, 0, 0, 0, [ONE, 0, 0, 0]));
    assert!(t.store(2, 0, 0, 0, [0x3f00_0000, 0, 0, 0])); // 0.5 -> 128
    assert!(
        !t.store(5, 0, 0, 0, [ONE, 0, 0, 0]),
        "out of range: dropped"
    );
    assert_eq!(t.storage().to_bytes(), vec![7, 255, 128, 7, 7]);
    let t = Texture::new(TextureDim::Tex2d, Format::R32_UINT, 2, 1, 1, 1, &[]).unwrap();
    let w = t.atomic_word(1, 0, 0).unwrap();
    assert_eq!(AtomicOp::Add(5).apply(w), 0);
    assert_eq!(t.load(1, 0, 0, 0), [5, 0, 0, 1]);
    assert!(t.atomic_word(2, 0, 0).is_none());
    let t = Texture::new(TextureDim::Tex2d, Format::R16G16_UINT, 2, 1, 1, 1, &[]).unwrap();
    assert!(
        t.atomic_word(0, 0, 0).is_none(),
        "two components: no atomics"
    );
}

#[test]
fn raw_buffer_bounds_per_word() {
    let b = Buffer::new(BufferKind::Raw, 10, &words([1, 2, 3])[..10]).unwrap();
    assert_eq!(b.read_u32(0), 1);
    assert_eq!(b.read_u32(4), 2);
    assert_eq!(b.read_u32(8), 0, "bytes 10 and 11 pass the end");
    assert_eq!(b.read_u32(5), 2, "low bits ignored");
    assert_eq!(b.read_u32(u64::MAX), 0);
    assert_eq!(b.read_component(0, 1), 2);
    assert_eq!(b.read_component(4, 1), 0);
    assert_eq!(b.read_component(u64::MAX - 3, 1), 0, "no wrap to 0");
    assert!(b.write_u32(4, 0xaabb_ccdd));
    assert!(!b.write_u32(8, 9), "partly outside: dropped");
    assert!(!b.write_component(u64::MAX - 3, 2, 9));
    assert_eq!(
        b.storage().to_bytes(),
        vec![1, 0, 0, 0, 0xdd, 0xcc, 0xbb, 0xaa, 3, 0]
    );
}

#[test]
fn structured_addresses_are_64_bit() {
    assert_eq!(Buffer::structured_address(16, 3, 8), 56);
    assert_eq!(
        Buffer::structured_address(0x1_0000, 0x1_0000, 4),
        0x1_0000_0004,
        "passes 2^32 instead of wrapping to 4"
    );
    let b = Buffer::new(BufferKind::Structured { stride: 16 }, 32, &words(0..8)).unwrap();
    assert_eq!(b.read_u32(Buffer::structured_address(16, 1, 4)), 5);
    let far = Buffer::structured_address(0x1_0000, 0x1_0000, 4);
    assert_eq!(
        b.read_u32(far),
        0,
        "would read word 1 if the address wrapped"
    );
    assert!(!b.write_u32(far, 9));
    assert_eq!(b.read_u32(4), 1);
    // A component whose bytes pass the end reads 0, the others normally (offset past the
    // stride included: the address is linear).
    let a = Buffer::structured_address(16, 1, 8);
    let got: Vec<u32> = (0..4).map(|k| b.read_component(a, k)).collect();
    assert_eq!(got, vec![6, 7, 0, 0]);
    assert_eq!(
        Buffer::new(BufferKind::Structured { stride: 6 }, 12, &[]).unwrap_err(),
        ResourceError::Stride(6)
    );
    assert!(Buffer::new(BufferKind::Structured { stride: 0 }, 12, &[]).is_err());
}

#[test]
fn typed_buffers_decode_encode_and_bound_by_whole_elements() {
    // 3 elements of R16G16_UNORM and 2 stray bytes.
    let mut init = words([0xffff_0000, 0x0000_8000, 0x0001_0002]);
    init.extend([0xff, 0xff]);
    let b = Buffer::new(BufferKind::Typed(Format::R16G16_UNORM), 14, &init).unwrap();
    assert_eq!(b.load_typed(0), [0, ONE, 0, ONE]);
    assert_eq!(b.element_offset(2), Some(8));
    assert_eq!(
        b.element_offset(3),
        None,
        "2 stray bytes are not an element"
    );
    assert_eq!(b.load_typed(3), [0, 0, 0, ONE]);
    assert_eq!(b.load_typed(u32::MAX), [0, 0, 0, ONE]);
    assert!(b.store_typed(1, [ONE, 0x7fc0_0000, 0, 0]));
    assert_eq!(b.load_typed(1), [ONE, 0, 0, ONE], "NaN stores 0");
    assert!(!b.store_typed(3, [ONE; 4]));
    assert_eq!(&b.storage().to_bytes()[12..], &[0xff, 0xff]);
    let raw = Buffer::new(BufferKind::Raw, 16, &[]).unwrap();
    assert_eq!(raw.load_typed(0), [0; 4]);
    assert!(!raw.store_typed(0, [1; 4]));
    assert_eq!(raw.element_offset(0), None);
}

#[test]
fn atomic_ops_return_the_old_value() {
    let b = Buffer::new(BufferKind::Raw, 8, &words([10, 0])).unwrap();
    let w = b.atomic_word(0).unwrap();
    let m1 = (-1i32) as u32;
    let cases = [
        (AtomicOp::Add(5), 10, 15),
        (AtomicOp::Add(m1), 15, 14),
        (AtomicOp::And(0b0110), 14, 0b0110),
        (AtomicOp::Or(0b1001), 0b0110, 0b1111),
        (AtomicOp::Xor(0b0101), 0b1111, 0b1010),
        (AtomicOp::IMax(m1), 10, 10),
        (AtomicOp::UMax(m1), 10, m1),
        (AtomicOp::IMin(5), m1, m1),
        (AtomicOp::UMin(5), m1, 5),
        (AtomicOp::IMax(7), 5, 7),
        (AtomicOp::IMin((-3i32) as u32), 7, (-3i32) as u32),
        (AtomicOp::Exchange(42), (-3i32) as u32, 42),
        (
            AtomicOp::CompareExchange {
                compare: 41,
                value: 1,
            },
            42,
            42,
        ),
        (
            AtomicOp::CompareExchange {
                compare: 42,
                value: 1,
            },
            42,
            1,
        ),
    ];
    for (op, old, new) in cases {
        assert_eq!(op.combine(old), new, "{op:?}");
        assert_eq!(op.apply(w), old, "{op:?}");
        assert_eq!(b.read_u32(0), new, "{op:?}");
    }
    assert!(b.atomic_word(8).is_none());
    assert!(b.atomic_word(u64::MAX).is_none());
    assert!(b.atomic_word(4).is_some());
}

#[test]
fn concurrent_writes_from_several_threads_are_all_kept() {
    let t = Texture::new(TextureDim::Tex2d, Format::R8_UINT, 64, 1, 1, 1, &[]).unwrap();
    let b = Buffer::new(BufferKind::Raw, 4, &[]).unwrap();
    std::thread::scope(|s| {
        for th in 0..4u32 {
            let (t, b) = (&t, &b);
            s.spawn(move || {
                for i in 0..1000u32 {
                    AtomicOp::Add(1).apply(b.atomic_word(0).unwrap());
                    // Each thread owns the texels x % 4 == th: byte neighbours in one word.
                    let x = (i % 16) * 4 + th;
                    t.store(x, 0, 0, 0, [th + 1, 0, 0, 0]);
                }
            });
        }
    });
    assert_eq!(b.read_u32(0), 4000);
    let bytes = t.storage().to_bytes();
    for (x, &v) in bytes.iter().enumerate() {
        assert_eq!(v as usize, x % 4 + 1, "texel {x}");
    }
}

#[test]
fn slots() {
    fn shared<T: Send + Sync>() {}
    shared::<Resources>();
    let mut r = Resources::new();
    let buf = || Resource::Buffer(Buffer::new(BufferKind::Raw, 4, &[]).unwrap());
    assert!(r.bind_srv(127, buf()).is_ok());
    assert!(r.bind_uav(63, buf()).is_ok());
    assert_eq!(
        r.bind_srv(128, buf()).unwrap_err(),
        ResourceError::Slot {
            slot: 128,
            max: 128
        }
    );
    assert_eq!(
        r.bind_uav(64, buf()).unwrap_err(),
        ResourceError::Slot { slot: 64, max: 64 }
    );
    assert!(r.srv(127).unwrap().buffer().is_some());
    assert!(r.srv(127).unwrap().texture().is_none());
    assert!(r.srv(0).is_none());
    assert!(r.srv(1000).is_none());
    assert!(r.uav(63).is_some());
    assert!(r.uav(0).is_none(), "t# and u# are numbered apart");
}

#[test]
fn storage_reads_and_writes_across_words() {
    let s = Storage::new(9, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    let mut out = [0u8; 5];
    s.read(3, &mut out);
    assert_eq!(out, [4, 5, 6, 7, 8]);
    s.write(2, &[0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x10]);
    assert_eq!(s.to_bytes(), vec![1, 2, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x10]);
    assert!(s.holds(5, 4));
    assert!(!s.holds(6, 4));
    assert!(!s.holds(u64::MAX, 2));
    assert!(Storage::new(0, &[]).unwrap().is_empty());
}

#[test]
fn mip_levels_follow_level_zero_of_every_layer() {
    // A 2D array of 2 slices, 4x2 texels, 3 levels (4x2, 2x1, 1x1), R8_UNORM.
    let shape = TextureShape {
        mips: 3,
        ..TextureShape::new(TextureDim::Tex2dArray, 4, 2, 1, 2)
    };
    let t = Texture::with_shape(shape, Format::R8_UNORM, &[]).unwrap();
    assert_eq!(t.storage().len(), 2 * (8 + 2 + 1));
    assert_eq!(
        (0..=3)
            .map(|l| t.level_offset(l).unwrap())
            .collect::<Vec<_>>(),
        [0, 16, 20, 22]
    );
    // Level 0 is laid out as a one-level texture.
    assert_eq!(t.texel_offset(3, 1, 1, 0), Some(8 + 4 + 3));
    assert_eq!(t.texel_offset_at(1, 1, 0, 1, 0), Some(16 + 2 + 1));
    assert_eq!(t.texel_offset_at(2, 0, 0, 1, 0), Some(20 + 1));
    assert_eq!(t.texel_offset_at(1, 2, 0, 0, 0), None, "level 1 is 2 wide");
    assert_eq!(t.texel_offset_at(3, 0, 0, 0, 0), None, "no level 3");
}

#[test]
fn three_d_levels_shrink_in_depth_and_cubes_have_six_square_faces() {
    let shape = TextureShape {
        depth: 4,
        mips: 3,
        ..TextureShape::new(TextureDim::Tex3d, 4, 4, 1, 1)
    };
    let t = Texture::with_shape(shape, Format::R32_UINT, &[]).unwrap();
    assert_eq!(shape.level_size(1), [2, 2, 2]);
    assert_eq!(t.storage().len(), 4 * (64 + 8 + 1));
    assert_eq!(t.texel_offset_at(1, 1, 1, 1, 0), Some(4 * (64 + 7)));
    assert_eq!(shape.full_chain(), 3);
    let too_many = TextureShape { mips: 4, ..shape };
    assert!(Texture::with_shape(too_many, Format::R32_UINT, &[]).is_err());
    let cube = |w, h, layers| {
        Texture::with_shape(
            TextureShape::new(TextureDim::TexCube, w, h, 1, layers),
            Format::R8_UNORM,
            &[],
        )
    };
    assert!(cube(4, 4, 6).is_ok());
    assert!(cube(4, 2, 6).is_err(), "faces are square");
    assert!(cube(4, 4, 12).is_err(), "a cube has six faces");
    let cubes = TextureShape::new(TextureDim::TexCubeArray, 2, 2, 1, 12);
    assert!(Texture::with_shape(cubes, Format::R8_UNORM, &[]).is_ok());
    let one_d = TextureShape::new(TextureDim::Tex1d, 8, 2, 1, 1);
    assert!(
        Texture::with_shape(one_d, Format::R8_UNORM, &[]).is_err(),
        "1D has height 1"
    );
    let ms_mips = TextureShape {
        mips: 2,
        ..TextureShape::new(TextureDim::Tex2dMs, 4, 4, 4, 1)
    };
    assert!(Texture::with_shape(ms_mips, Format::R8_UNORM, &[]).is_err());
}

#[test]
fn storage_of_four_gib_is_committed_lazily() {
    // A resource as large as a trace may have: a mapping, not an allocation of 4 GiB.
    let s = Storage::zeroed(1 << 32).unwrap();
    assert_eq!((s.len(), s.words().len()), (1 << 32, 1 << 30));
    s.store_u32((1 << 32) - 4, 0xdead_beef);
    assert_eq!(s.load_u32((1 << 32) - 4), 0xdead_beef);
    assert_eq!(s.load_u32(1 << 31), 0);
    // Odd lengths round up to whole words, and an empty storage has none.
    let s = Storage::new(6, &[1, 2, 3]).unwrap();
    assert_eq!((s.words().len(), s.to_bytes()), (2, vec![1, 2, 3, 0, 0, 0]));
    assert_eq!(Storage::zeroed(0).unwrap().words().len(), 0);
    assert!(matches!(
        Storage::new(2, &[1, 2, 3]),
        Err(ResourceError::DataTooLong { len: 3, size: 2 })
    ));
}
