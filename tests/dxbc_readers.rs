//! The DXBC readers: real fxc listings and the containers fxc wrote for them (tests/dxbc/, sources
//! in tests/dxbc/README.md), round trips text → model → text and model → container → model, every
//! spelling of the two seed instructions, and malformed input as located errors, never a panic.

use std::path::Path;

use warpjit::dxbc::ast::*;
use warpjit::dxbc::{container, text, tokens};

const FIXTURES: [&str; 13] = [
    "BasicCompute11_Structured",
    "ComputeShaderSort11_BitonicSort",
    "FilterCS_Horizontal",
    "compute",
    "BC7Decode",
    "resource_types_4",
    "resource_types_5",
    "signatures_ps_0",
    "switch",
    "ParticleDraw_VS",
    "ParticleDraw_GS",
    "signatures_vs",
    "TransparencyAA10_1_VS",
];

fn fixture(name: &str, ext: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dxbc")
        .join(format!("{name}.{ext}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse_fixture(name: &str) -> Program {
    let src = String::from_utf8(fixture(name, "asm")).unwrap();
    text::parse(&src).unwrap_or_else(|e| panic!("{name}.asm: {e}"))
}

fn assert_print_parse_identity(p: &Program, what: &str) {
    let printed = text::print(p);
    let back = text::parse(&printed).unwrap_or_else(|e| panic!("{what}: reparse: {e}\n{printed}"));
    assert_eq!(&back, p, "{what}: print → parse changed the program");
}

#[test]
fn real_listings_parse_and_print_back() {
    for name in FIXTURES {
        let p = parse_fixture(name);
        assert!(p.insts().count() > 0, "{name}");
        assert_print_parse_identity(&p, name);
    }
}

/// Replaces every immediate by the bits its six-decimal print gives (what fxc's listing keeps).
fn as_listed(p: &Program) -> Program {
    fn fix(bits: &mut u32) {
        let f = f32::from_bits(*bits);
        let i = *bits as i32;
        if !(-65536..65536).contains(&i) && f.is_finite() {
            let six: f32 = format!("{f:.6}").parse().unwrap();
            if (six - f).abs() <= 1e-6 * f.abs().max(1.0) {
                *bits = six.to_bits();
            }
        }
    }
    fn fix_op(op: &mut Operand) {
        match &mut op.value {
            OperandValue::Imm32(v) => v.iter_mut().for_each(fix),
            OperandValue::Reg { indices, .. } => {
                for idx in indices {
                    if let Index::Reg(r) | Index::RegPlus(r, _) = idx {
                        fix_op(r);
                    }
                }
            }
        }
    }
    let mut p = p.clone();
    for s in &mut p.statements {
        match s {
            Statement::Inst(i) => i.operands.iter_mut().for_each(fix_op),
            Statement::Decl(Decl::ImmediateConstantBuffer(rows)) => {
                rows.iter_mut().flatten().for_each(fix)
            }
            Statement::Decl(_) => {}
        }
    }
    p
}

#[test]
fn real_containers_decode_to_their_listing() {
    for name in FIXTURES {
        let bytes = fixture(name, "cso");
        let decoded = container::read_program(&bytes).unwrap_or_else(|e| panic!("{name}.cso: {e}"));
        let listed = parse_fixture(name);
        // The listing prints floats with six decimals; the container's bits are authoritative.
        if as_listed(&decoded) != as_listed(&listed) {
            let a = text::print(&as_listed(&decoded));
            let b = text::print(&as_listed(&listed));
            for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
                assert_eq!(x, y, "{name}: first difference at statement line {n}");
            }
            let (x, y) = (as_listed(&decoded), as_listed(&listed));
            let n = x
                .statements
                .iter()
                .zip(&y.statements)
                .position(|(a, b)| a != b);
            panic!(
                "{name}: the container and its listing differ at statement {n:?}: {:?} vs {:?}",
                n.map(|n| &x.statements[n]),
                n.map(|n| &y.statements[n])
            );
        }
        // disasm: the container printed parses back to the same bits.
        assert_print_parse_identity(&decoded, name);
        // The encoder: model → container → model.
        let again = container::write_program(&decoded).unwrap();
        assert_eq!(container::read_program(&again).unwrap(), decoded, "{name}");
    }
}

#[test]
fn listings_encode_and_decode_back() {
    for name in FIXTURES {
        let p = parse_fixture(name);
        let bytes = container::write_program(&p).unwrap();
        assert_eq!(container::read_program(&bytes).unwrap(), p, "{name}");
    }
}

fn one_inst(line: &str) -> Inst {
    let p = text::parse(&format!("ps_5_0\n{line}\n")).unwrap_or_else(|e| panic!("`{line}`: {e}"));
    let mut insts: Vec<Inst> = p.insts().cloned().collect();
    assert_eq!(insts.len(), 1);
    let i = insts.remove(0);
    let p2 = text::parse(&format!("ps_5_0\n{}\n", text::print_inst(&i))).unwrap();
    assert_eq!(p2.insts().next(), Some(&i), "`{line}` print → parse");
    let bytes = container::write_program(&p).unwrap();
    assert_eq!(
        container::read_program(&bytes).unwrap(),
        p,
        "`{line}` encode → decode"
    );
    i
}

#[test]
fn every_seed_spelling_parses() {
    let ms = [
        ("ld2dms r0.xyzw, r1.xyzw, t0.xyzw, r2.x", None, None),
        ("ldms r0.xyzw, r1.xyzw, t0.xyzw, l(0)", None, None),
        ("ld2dms_aoffimmi(-2,3) r0.xyzw, r1.xyzw, t0.xyzw, r2.x", Some([-2, 3, 0]), None),
        ("ldms_aoffimmi(1,-8,7) r0.xy, r1.xyzw, t0.yxzw, l(3)", Some([1, -8, 7]), None),
        ("ldms(-2,3,0) r2.xyzw, r1.xyzw, t0.xyzw, l(1)", Some([-2, 3, 0]), None),
        (
            "ldms_indexable(texture2dms)(float,float,float,float) r0.xyzw, r0.xyzw, t0.xyzw, l(0)",
            None,
            Some(ResourceDim::Texture2DMs),
        ),
        (
            "ldms_indexable(-2,3,0)(texture2dmsarray)(float,float,float,float) r0.xyzw, r0.xyzw, t1.xyzw, v1.x",
            Some([-2, 3, 0]),
            Some(ResourceDim::Texture2DMsArray),
        ),
        (
            "ldms_aoffimmi_indexable(1,2,0)(texture2dms)(float,float,float,float) r1.xyzw, l(0, 0, 0, 0), t45.xyzw, l(0)",
            Some([1, 2, 0]),
            Some(ResourceDim::Texture2DMs),
        ),
    ];
    for (line, offsets, dim) in ms {
        let i = one_inst(line);
        assert_eq!(i.opcode, Opcode::LdMs, "{line}");
        assert_eq!(i.offsets, offsets, "{line}");
        assert_eq!(i.resource.map(|r| r.dim), dim, "{line}");
        assert_eq!(i.operands.len(), 4, "{line}");
    }
    let structured = [
        ("ld_structured r0.x, r0.x, l(4), g0.xxxx", None),
        ("ld_structured r0.xyzw, v0.x, l(0), t0.xyzw", None),
        (
            "ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, r1.x, l(0), t0.xyzw",
            Some(ResourceInfo {
                dim: ResourceDim::StructuredBuffer,
                stride: 16,
            }),
        ),
        (
            "ld_structured_indexable(structured_buffer, stride=8)(mixed,mixed,mixed,mixed) r0.zw, vThreadID.x, l(0), u1.xxxy",
            Some(ResourceInfo {
                dim: ResourceDim::StructuredBuffer,
                stride: 8,
            }),
        ),
    ];
    for (line, res) in structured {
        let i = one_inst(line);
        assert_eq!(i.opcode, Opcode::LdStructured, "{line}");
        assert_eq!(i.resource, res, "{line}");
        if res.is_some() {
            assert_eq!(i.return_type, Some([ReturnType::Mixed; 4]));
        }
    }
}

#[test]
fn operands_read_as_the_model_says() {
    let i = one_inst("mad_sat r0.xy, -|cb0[r1.x + 2].xyzw|, icb[r9.w + 0].x, -l(0.500000, 1, 0x00008000, -0.000000)");
    assert!(i.saturate);
    assert_eq!(i.operands[0].components, Components::Mask(0b11));
    let cb = &i.operands[1];
    assert_eq!(cb.modifier, Modifier::AbsNeg);
    assert_eq!(cb.components, Components::Swizzle([0, 1, 2, 3]));
    let OperandValue::Reg { file, indices } = &cb.value else {
        panic!()
    };
    assert_eq!(*file, RegFile::ConstantBuffer);
    assert_eq!(indices[0], Index::Imm(0));
    assert_eq!(
        indices[1],
        Index::RegPlus(
            Box::new(Operand::reg(RegFile::Temp, &[1], Components::Select(0))),
            2
        )
    );
    assert_eq!(i.operands[2].components, Components::Select(0));
    assert_eq!(
        i.operands[3].value,
        OperandValue::Imm32(vec![0x3f00_0000, 1, 0x8000, 0x8000_0000])
    );
    assert_eq!(i.operands[3].modifier, Modifier::Neg);

    let i = one_inst("mov x0[r1.x + 3].xy, |vThreadIDInGroupFlattened.x|");
    assert_eq!(i.operands[1].components, Components::Select(0));
    assert_eq!(i.operands[1].modifier, Modifier::Abs);
    let i = one_inst("mov oDepth, r0.x");
    assert_eq!(i.operands[0].components, Components::One);
    let i = one_inst("imul null, r0.x, r1.x, l(-1)");
    assert_eq!(i.operands[0].file(), Some(RegFile::Null));
    assert_eq!(i.operands[3].value, OperandValue::Imm32(vec![u32::MAX]));
    let i = one_inst("if_nz r0.x");
    assert_eq!(i.test, Some(Test::NonZero));
    let i = one_inst("breakc_z r1.y");
    assert_eq!(i.test, Some(Test::Zero));
    let i = one_inst("round_z r0.x, r1.x");
    assert_eq!((i.opcode, i.test), (Opcode::RoundZ, None));
    let i = one_inst("sync_uglobal_g_t");
    assert!(i.sync.threads && i.sync.tgsm && i.sync.uav_global && !i.sync.uav_group);
    let i =
        one_inst("resinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw");
    assert_eq!(i.info_return, InfoReturn::Uint);
    let i = one_inst("imm_atomic_iadd r0.x, u0, r1.x, l(1)");
    assert_eq!(i.opcode, Opcode::ImmAtomicIadd);
    one_inst("store_structured g0.xyzw, vThreadIDInGroupFlattened.x, l(0), r4.xyzw");
    one_inst("swapc r0.x, r1.x, r2.x, r3.x, r4.x");
    one_inst("ret ");
}

#[test]
fn declarations_read_as_the_model_says() {
    let src = "// header\n//\nps_4_1\n\
        dcl_globalFlags refactoringAllowed | enableRawAndStructuredBuffers\n\
        dcl_constantbuffer cb0[1], immediateIndexed\n\
        dcl_constantbuffer CB1[8], dynamicIndexed\n\
        dcl_immediateConstantBuffer { { 0, 4, 0.500000, 0x7fc00000},\n    { -1, 1.000000, 2, 3} }\n\
        dcl_resource_texture2dms(0) (float,float,float,float) t0\n\
        dcl_resource_texture2dmsarray(4) (uint,uint,uint,uint) t1\n\
        dcl_resource_buffer (sint,sint,sint,sint) t2\n\
        dcl_resource_structured t3, 20\n\
        dcl_resource_raw t4\n\
        dcl_uav_structured_glc u0, 16\n\
        dcl_uav_raw u1\n\
        dcl_uav_typed_texture2d (unorm,unorm,unorm,unorm) u2\n\
        dcl_sampler s0, mode_default\n\
        dcl_input_ps_siv linear noperspective v0.xy, position\n\
        dcl_input_ps_sgv v1.x, sampleIndex\n\
        dcl_input_ps constant v2.xyzw\n\
        dcl_output o0.xyzw\n\
        dcl_output oDepth\n\
        dcl_temps 3\n\
        dcl_indexableTemp x0[4], 4\n\
        ret \n\
        // Approximately 1 instruction slots used\n";
    let p = text::parse(src).unwrap();
    assert_eq!(
        p.version,
        Version {
            stage: Stage::Pixel,
            major: 4,
            minor: 1
        }
    );
    let d: Vec<&Decl> = p.decls().collect();
    assert_eq!(d[0], &Decl::GlobalFlags(9));
    assert_eq!(
        d[2],
        &Decl::ConstantBuffer {
            slot: 1,
            size: 8,
            dynamic: true
        }
    );
    assert_eq!(
        d[3],
        &Decl::ImmediateConstantBuffer(vec![
            [0, 4, 0x3f00_0000, 0x7fc0_0000],
            [u32::MAX, 0x3f80_0000, 2, 3]
        ])
    );
    assert_eq!(
        d[4],
        &Decl::Resource {
            slot: 0,
            dim: ResourceDim::Texture2DMs,
            samples: 0,
            return_type: [ReturnType::Float; 4]
        }
    );
    assert!(matches!(
        d[13],
        Decl::Input {
            ps: true,
            interpolation: Interpolation::LinearNoPerspective,
            sv: Some((SvKind::Siv, SystemValue(1))),
            ..
        }
    ));
    assert!(matches!(
        d[14],
        Decl::Input {
            interpolation: Interpolation::Undefined,
            sv: Some((SvKind::Sgv, SystemValue(10))),
            ..
        }
    ));
    assert_print_parse_identity(&p, "declarations");
    let bytes = container::write_program(&p).unwrap();
    assert_eq!(container::read_program(&bytes).unwrap(), p);
}

#[test]
fn literals_print_back_bit_for_bit() {
    let edge = [
        0u32,
        1,
        0xffff_ffff,
        0x8000_0000,
        0x3f80_0000,
        0x3f35_04f3,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x0000_0001,
        0x0080_0000,
        0x8000_0001,
        0x7f7f_ffff,
        0x4b80_0000,
        0x0001_0000,
        0xffff_0000,
        0x1234_5678,
    ];
    let mut x = 0x9e37_79b9u32;
    let mut all: Vec<u32> = edge.to_vec();
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        all.push(x);
    }
    for bits in all {
        let s = text::format_literal(bits);
        assert_eq!(
            text::parse_literal(&s),
            Some(bits),
            "{bits:#x} printed as {s}"
        );
    }
    assert_eq!(text::format_literal(0x3f00_0000), "0.500000");
    assert_eq!(text::parse_literal("1.#INF00"), Some(0x7f80_0000));
    assert_eq!(text::parse_literal("-0.000000"), Some(0x8000_0000));
}

#[test]
fn malformed_listings_are_located_errors() {
    let cases: &[(&str, u32, u32)] = &[
        ("", 1, 1),
        ("xs_5_0\n", 1, 1),
        ("cs_5_0\nfoo r0.x, r1.x\n", 2, 1),
        ("cs_5_0\nmov r0.x, q1.x\n", 2, 11),
        ("cs_5_0\nmov r0.x, r1.q\n", 2, 14),
        ("cs_5_0\nmov r0.yx, r1.x\n", 2, 8),
        ("cs_5_0\nmov r0.x, l(1, 2)\n", 2, 11),
        ("cs_5_0\nmov r0.x, l(1.0.0)\n", 2, 13),
        ("cs_5_0\nmov r0.x, |r1.x\n", 2, 16),
        ("cs_5_0\nif r0.x\n", 2, 1),
        ("cs_5_0\nmov_z r0.x, r1.x\n", 2, 1),
        ("cs_5_0\nmov_sat_sat r0.x, r1.x\n", 2, 1),
        ("cs_5_0\nldms_aoffimmi(9,0,0) r0, r0, t0, l(0)\n", 2, 1),
        ("cs_5_0\nldms_aoffimmi r0, r0, t0, l(0)\n", 2, 1),
        ("cs_5_0\nld_indexable(texture9d) r0, r0, t0\n", 2, 1),
        ("cs_5_0\nld_indexable(texture2d r0, r0, t0\n", 2, 1),
        ("cs_5_0\ndcl_foo 1\n", 2, 1),
        ("cs_5_0\ndcl_thread_group 1, 1\n", 2, 22),
        ("cs_5_0\ndcl_resource_structured u0, 4\n", 2, 25),
        (
            "cs_5_0\ndcl_immediateConstantBuffer { { 1, 2, 3 } }\n",
            2,
            41,
        ),
        ("cs_5_0\nmov r0.x, r1.x extra\n", 2, 16),
        ("cs_5_0\nmov r0.x, r99999999999.x\n", 2, 12),
        ("cs_5_0\nmov r0.x, cb0[r1.x + ].x\n", 2, 22),
        ("cs_5_0\nmov r0.x, r0[1][2][3][4].x\n", 2, 11),
    ];
    for &(src, line, col) in cases {
        let e = text::parse(src).expect_err(src);
        assert_eq!((e.line, e.col), (line, col), "{src:?}: {e}");
        assert!(!e.message.is_empty());
    }
}

#[test]
fn malformed_containers_are_errors_naming_the_offset() {
    let good = fixture("BasicCompute11_Structured", "cso");
    // Every truncation.
    for len in 0..good.len() {
        if let Err(e) = container::read_program(&good[..len]) {
            assert!(e.offset <= good.len(), "{len}: {e}");
        }
    }
    // Every single-byte corruption of the first 512 bytes and of the shader chunk: no panic.
    for at in 0..good.len() {
        for v in [0x00u8, 0xff, 0x80, 0x7f, 0x01] {
            let mut bad = good.clone();
            bad[at] = v;
            let _ = container::read_program(&bad);
        }
    }
    // Specific errors.
    let e = container::read_program(b"DXBX").unwrap_err();
    assert_eq!(e.offset, 0);
    let mut bad = good.clone();
    bad[24..28].copy_from_slice(&99999u32.to_le_bytes());
    assert_eq!(container::read_program(&bad).unwrap_err().offset, 24);
    // A chunk table that names no shader chunk.
    let c = container::Container::parse(&good).unwrap();
    let shex = c.shader_chunk().unwrap().offset - 8;
    let mut bad = good.clone();
    bad[shex..shex + 4].copy_from_slice(b"XXXX");
    let e = container::read_program(&bad).unwrap_err();
    assert!(e.message.contains("SHDR or SHEX"), "{e}");
    // An unknown opcode, named at its token.
    let data = c.shader_chunk().unwrap().offset;
    let mut bad = good.clone();
    let first = data + 8;
    bad[first..first + 2].copy_from_slice(&0x7ffu16.to_le_bytes());
    let e = container::read_program(&bad).unwrap_err();
    assert_eq!(e.offset, first, "{e}");
}

#[test]
fn token_streams_reject_bad_lengths() {
    // Version cs_5_0, length 3, then an opcode token of length 0.
    let words = [0x0005_0050u32, 3, 0x0000_0036];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let e = tokens::decode(&bytes, 100).unwrap_err();
    assert_eq!(e.offset, 108, "{e}");
    // An instruction longer than the stream.
    let words = [0x0005_0050u32, 3, 0x0500_0036];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(tokens::decode(&bytes, 0).unwrap_err().offset, 8);
    // Not a whole number of tokens.
    assert!(tokens::decode(&[0x50, 0, 5], 0).is_err());
    // ret alone is fine.
    let words = [0x0005_0050u32, 3, 0x0100_003e];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = tokens::decode(&bytes, 0).unwrap();
    assert_eq!(p.insts().next().unwrap().opcode, Opcode::Ret);
}

mod generated {
    //! Random programs: print → parse and encode → decode give them back.
    use proptest::prelude::*;
    use warpjit::dxbc::ast::*;
    use warpjit::dxbc::{container, text};

    fn dst() -> impl Strategy<Value = Operand> {
        (
            prop::sample::select(vec![
                RegFile::Temp,
                RegFile::Output,
                RegFile::Uav,
                RegFile::Tgsm,
            ]),
            0u32..64,
            1u8..16,
        )
            .prop_map(|(f, n, m)| Operand::reg(f, &[n], Components::Mask(m)))
    }

    fn select() -> impl Strategy<Value = Components> {
        prop_oneof![
            (0u8..4).prop_map(Components::Select),
            prop::array::uniform4(0u8..4).prop_map(Components::Swizzle),
        ]
    }

    fn index() -> impl Strategy<Value = Index> {
        prop_oneof![
            (0u32..4096).prop_map(Index::Imm),
            (0u32..8, 0u8..4).prop_map(|(r, c)| Index::Reg(Box::new(Operand::reg(
                RegFile::Temp,
                &[r],
                Components::Select(c)
            )))),
            (0u32..8, 0u8..4, 1u32..100).prop_map(|(r, c, k)| Index::RegPlus(
                Box::new(Operand::reg(RegFile::Temp, &[r], Components::Select(c))),
                k
            )),
        ]
    }

    fn src() -> impl Strategy<Value = Operand> {
        let reg = (
            prop::sample::select(vec![
                RegFile::Temp,
                RegFile::Input,
                RegFile::ConstantBuffer,
                RegFile::IndexableTemp,
                RegFile::ImmediateConstantBuffer,
                RegFile::Resource,
                RegFile::ThreadId,
            ]),
            0u32..16,
            index(),
            select(),
        )
            .prop_map(|(file, n, idx, components)| {
                let indices = match file {
                    RegFile::ConstantBuffer | RegFile::IndexableTemp => vec![Index::Imm(n), idx],
                    RegFile::ImmediateConstantBuffer => vec![idx],
                    RegFile::ThreadId => vec![],
                    _ => vec![Index::Imm(n)],
                };
                Operand {
                    value: OperandValue::Reg { file, indices },
                    components,
                    modifier: Modifier::None,
                }
            });
        let imm = prop_oneof![
            any::<u32>().prop_map(|v| Operand::imm(&[v])),
            prop::array::uniform4(any::<u32>()).prop_map(|v| Operand::imm(&v)),
        ];
        (
            prop_oneof![3 => reg, 1 => imm],
            prop::sample::select(vec![
                Modifier::None,
                Modifier::Neg,
                Modifier::Abs,
                Modifier::AbsNeg,
            ]),
        )
            .prop_map(|(mut op, m)| {
                op.modifier = m;
                op
            })
    }

    fn return_type() -> impl Strategy<Value = ReturnType> {
        prop::sample::select(ReturnType::ALL.to_vec())
    }

    fn inst() -> impl Strategy<Value = Inst> {
        let opcode = prop::sample::select(
            Opcode::ALL
                .iter()
                .copied()
                .filter(|o| !matches!(o, Opcode::Sync | Opcode::ResInfo | Opcode::SampleInfo))
                .collect::<Vec<_>>(),
        );
        (
            opcode,
            any::<bool>(),
            any::<bool>(),
            prop::option::of(prop::array::uniform3(-8i8..8)),
            prop::option::of((
                prop::sample::select(ResourceDim::ALL.to_vec()),
                0u32..4096,
                prop::option::of(prop::array::uniform4(return_type())),
            )),
            prop::collection::vec(dst(), 2),
            prop::collection::vec(src(), 0..4),
        )
            .prop_map(|(opcode, sat, nz, offsets, res, dsts, srcs)| {
                let mut operands: Vec<Operand> =
                    dsts.into_iter().take(opcode.dst_count()).collect();
                operands.extend(srcs);
                let mut i = Inst::new(opcode, operands);
                i.saturate = sat;
                i.test = opcode
                    .takes_test()
                    .then_some(if nz { Test::NonZero } else { Test::Zero });
                i.offsets = offsets;
                if let Some((dim, stride, rt)) = res {
                    i.resource = Some(ResourceInfo { dim, stride });
                    i.return_type = rt;
                }
                i
            })
    }

    fn special_inst() -> impl Strategy<Value = Inst> {
        prop_oneof![
            prop::array::uniform4(any::<bool>()).prop_map(|f| {
                let mut i = Inst::new(Opcode::Sync, vec![]);
                i.sync = SyncFlags {
                    threads: f[0],
                    tgsm: f[1],
                    uav_group: f[2],
                    uav_global: f[3],
                };
                i
            }),
            (prop::sample::select(vec![
                InfoReturn::Float,
                InfoReturn::RcpFloat,
                InfoReturn::Uint
            ]))
            .prop_map(|r| {
                let mut i = Inst::new(
                    Opcode::ResInfo,
                    vec![
                        Operand::reg(RegFile::Temp, &[0], Components::Mask(3)),
                        Operand::imm(&[0]),
                        Operand::reg(RegFile::Resource, &[1], Components::Swizzle([0, 1, 2, 3])),
                    ],
                );
                i.info_return = r;
                i
            }),
        ]
    }

    fn decl() -> impl Strategy<Value = Decl> {
        let flags = prop::array::uniform3(any::<bool>()).prop_map(|f| UavFlags {
            glc: f[0],
            opc: f[1],
            rov: f[2],
        });
        let sv = prop::option::of((
            prop::sample::select(vec![SvKind::Sgv, SvKind::Siv]),
            (0u32..30).prop_map(SystemValue),
        ));
        prop_oneof![
            (0u32..0x2000).prop_map(Decl::GlobalFlags),
            (0u32..14, 1u32..4096, any::<bool>()).prop_map(|(slot, size, dynamic)| {
                Decl::ConstantBuffer {
                    slot,
                    size,
                    dynamic,
                }
            }),
            prop::collection::vec(prop::array::uniform4(any::<u32>()), 0..6)
                .prop_map(Decl::ImmediateConstantBuffer),
            (
                0u32..128,
                prop::sample::select(ResourceDim::ALL[1..11].to_vec()),
                0u32..33,
                prop::array::uniform4(return_type())
            )
                .prop_map(|(slot, dim, s, return_type)| Decl::Resource {
                    slot,
                    dim,
                    samples: if dim.is_multisample() { s } else { 0 },
                    return_type,
                }),
            (0u32..128).prop_map(|slot| Decl::ResourceRaw { slot }),
            (0u32..128, 1u32..2048)
                .prop_map(|(slot, stride)| Decl::ResourceStructured { slot, stride }),
            (
                0u32..64,
                prop::sample::select(ResourceDim::ALL[1..11].to_vec()),
                prop::array::uniform4(return_type()),
                flags.clone()
            )
                .prop_map(|(slot, dim, return_type, flags)| Decl::UavTyped {
                    slot,
                    dim,
                    return_type,
                    flags
                }),
            (0u32..64, flags.clone()).prop_map(|(slot, flags)| Decl::UavRaw { slot, flags }),
            (0u32..64, 1u32..2048, flags).prop_map(|(slot, stride, flags)| {
                Decl::UavStructured {
                    slot,
                    stride,
                    flags,
                }
            }),
            (0u32..8, 4u32..32768).prop_map(|(slot, bytes)| Decl::TgsmRaw { slot, bytes }),
            (0u32..8, 4u32..256, 1u32..1024).prop_map(|(slot, stride, count)| {
                Decl::TgsmStructured {
                    slot,
                    stride,
                    count,
                }
            }),
            (0u32..16, prop::sample::select(SamplerMode::ALL.to_vec()))
                .prop_map(|(slot, mode)| Decl::Sampler { slot, mode }),
            (
                any::<bool>(),
                prop::sample::select(Interpolation::ALL.to_vec()),
                0u32..32,
                1u8..16,
                sv.clone()
            )
                .prop_map(|(ps, interp, n, m, sv)| Decl::Input {
                    ps,
                    interpolation: if ps { interp } else { Interpolation::Undefined },
                    reg: Operand::reg(RegFile::Input, &[n], Components::Mask(m)),
                    sv,
                }),
            (0u32..8, 1u8..16, sv).prop_map(|(n, m, sv)| Decl::Output {
                reg: Operand::reg(RegFile::Output, &[n], Components::Mask(m)),
                sv,
            }),
            Just(Decl::Output {
                reg: Operand::reg(RegFile::OutputDepth, &[], Components::One),
                sv: None,
            }),
            (0u32..4096).prop_map(Decl::Temps),
            (0u32..8, 1u32..4096, 1u32..5).prop_map(|(reg, size, components)| {
                Decl::IndexableTemp {
                    reg,
                    size,
                    components,
                }
            }),
            prop::array::uniform3(1u32..1025).prop_map(Decl::ThreadGroup),
            (0u32..40).prop_map(|p| Decl::InputPrimitive(Primitive(p))),
            (0u32..14).prop_map(|t| Decl::OutputTopology(Topology(t))),
            (0u32..1024).prop_map(Decl::MaxOutputVertexCount),
            (1u32..33).prop_map(Decl::GsInstanceCount),
            (0u32..4).prop_map(Decl::Stream),
        ]
    }

    fn program() -> impl Strategy<Value = Program> {
        (
            prop::sample::select(Stage::ALL.to_vec()),
            // 4.0, 4.1, 5.0 (5.1 is refused: register spaces)
            prop::sample::select(vec![(4u8, 0u8), (4, 1), (5, 0)]),
            prop::collection::vec(decl(), 0..6),
            prop::collection::vec(prop_oneof![4 => inst(), 1 => special_inst()], 0..12),
        )
            .prop_map(|(stage, (major, minor), decls, insts)| Program {
                version: Version {
                    stage,
                    major,
                    minor,
                },
                statements: decls
                    .into_iter()
                    .map(Statement::Decl)
                    .chain(insts.into_iter().map(Statement::Inst))
                    .collect(),
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn print_parse_and_encode_decode_are_identities(p in program()) {
            let printed = text::print(&p);
            let back = text::parse(&printed);
            prop_assert_eq!(back.as_ref(), Ok(&p), "{}", printed);
            let bytes = container::write_program(&p).unwrap();
            prop_assert_eq!(container::read_program(&bytes), Ok(p));
        }
    }
}

/// A small deterministic generator for the mutation tests.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn mutated_listings_never_panic() {
    let src = String::from_utf8(fixture("resource_types_5", "asm")).unwrap();
    let chars: Vec<char> = src.chars().collect();
    let pieces = [
        "(",
        ")",
        "[",
        "]",
        ",",
        ".",
        "|",
        "-",
        "+",
        "{",
        "}",
        "0x",
        "9",
        " ",
        "\n",
        "_",
        "l(",
        "é",
        "∞",
        "r",
        "_indexable",
        "(-9,1)",
        "1.#QNAN0",
        "99999999999",
    ];
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for _ in 0..1500 {
        let mut text: Vec<char> = chars.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(text.len());
            match rng.below(3) {
                0 => {
                    text.remove(at);
                }
                _ => {
                    let p = pieces[rng.below(pieces.len())];
                    for (k, c) in p.chars().enumerate() {
                        text.insert(at + k, c);
                    }
                }
            }
        }
        let text: String = text.into_iter().collect();
        if let Err(e) = text::parse(&text) {
            assert!(e.line >= 1 && e.col >= 1);
        }
    }
}

#[test]
fn mutated_token_streams_never_panic() {
    let mut rng = XorShift(0x0fed_cba9_8765_4321);
    for (name, rounds) in [
        ("compute", 1500),
        ("resource_types_5", 1000),
        ("BC7Decode", 300),
    ] {
        let good = fixture(name, "cso");
        let c = container::Container::parse(&good).unwrap();
        let chunk = *c.shader_chunk().unwrap();
        let words = chunk.data.len() / 4;
        for _ in 0..rounds {
            let mut bytes = chunk.data.to_vec();
            for _ in 0..1 + rng.below(4) {
                let w = 4 * rng.below(words);
                let old = u32::from_le_bytes(bytes[w..w + 4].try_into().unwrap());
                let v = match rng.below(4) {
                    0 => rng.next() as u32,
                    1 => old ^ (1 << rng.below(32)),
                    2 => 0,
                    _ => u32::MAX,
                };
                bytes[w..w + 4].copy_from_slice(&v.to_le_bytes());
            }
            match tokens::decode(&bytes, chunk.offset) {
                Err(e) => {
                    let inside = chunk.offset..=chunk.offset + bytes.len();
                    assert!(inside.contains(&e.offset), "{name}: {e}");
                }
                // Whatever decodes prints as a listing that reads back to the same program.
                Ok(p) => assert_print_parse_identity(&p, name),
            }
        }
    }
}

#[test]
fn geometry_shader_declarations_and_inputs() {
    let src = "gs_4_0\ndcl_input v[3][0].xyzw\ndcl_inputprimitive triangle\n\
        dcl_outputtopology trianglestrip\ndcl_output_siv o0.xyzw, position\ndcl_maxout 3\n\
        mov o0.xyzw, v[1][0].xyzw\nemit \ncut \nret \n";
    let p = text::parse(src).unwrap();
    let d: Vec<&Decl> = p.decls().collect();
    assert_eq!(d[1], &Decl::InputPrimitive(Primitive(3)));
    assert_eq!(d[2], &Decl::OutputTopology(Topology(5)));
    assert_eq!(d[4], &Decl::MaxOutputVertexCount(3));
    let printed = text::print(&p);
    assert!(printed.contains("mov o0.xyzw, v[1][0].xyzw"), "{printed}");
    assert_print_parse_identity(&p, "gs");
    let bytes = container::write_program(&p).unwrap();
    assert_eq!(container::read_program(&bytes).unwrap(), p);
}

#[test]
fn crlf_and_tabs_read_like_the_plain_listing() {
    let src = String::from_utf8(fixture("FilterCS_Horizontal", "asm")).unwrap();
    let windows = src.replace('\n', "\r\n").replace("  ", "\t");
    assert_eq!(text::parse(&windows).unwrap(), text::parse(&src).unwrap());
}

#[test]
fn line_directives_of_debug_listings_are_skipped() {
    let with = "cs_5_0\ndcl_thread_group 1, 1, 1\n#line 12 \"C:\\src\\a.hlsl\"\nmov r0.x, l(1)  // x = 1\nret \n";
    let without = "cs_5_0\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\nret \n";
    assert_eq!(text::parse(with).unwrap(), text::parse(without).unwrap());
}

#[test]
fn errors_become_located_diagnostics() {
    use warpjit::diag::Location;
    let src = "cs_5_0\n  foo r0.x\n";
    let e = text::parse(src).unwrap_err();
    let d = e.to_diagnostic(Path::new("k.asm"), src);
    assert_eq!(
        (d.line(), d.col(), d.line_text()),
        (Some(2), Some(3), Some("  foo r0.x"))
    );
    assert!(d.render(false).contains("k.asm:2:3"), "{}", d.render(false));
    let bytes = b"DXBC0123456789abcdef";
    let e = container::read_program(bytes).unwrap_err();
    let d = e.to_diagnostic(Path::new("k.cso"), bytes);
    assert!(
        matches!(d.location, Location::Byte { offset: 20, .. }),
        "{:?}",
        d.location
    );
}

#[test]
fn checksums_match_the_compiler() {
    for name in FIXTURES {
        let bytes = fixture(name, "cso");
        assert_eq!(container::checksum(&bytes)[..], bytes[4..20], "{name}");
    }
    // A written container carries its checksum.
    let p = parse_fixture("compute");
    let bytes = container::write_program(&p).unwrap();
    assert_eq!(container::checksum(&bytes)[..], bytes[4..20]);
}
