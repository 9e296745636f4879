//! The shader model 4/5 token stream (the contents of a SHDR or SHEX chunk): [`decode`] into the
//! [`Program`] model and [`encode`] back.
//!
//! Layout, as Microsoft's tokenized program format defines it: a version token (minor in bits 0..4,
//! major in 4..8, program type in 16..32), the length of the stream in 32-bit tokens, then one
//! instruction after another. An instruction is an opcode token (opcode in bits 0..11, length in
//! tokens in 24..31, bit 31: an extended opcode token follows), its extended tokens (sample offsets,
//! resource dimension, return types), then its operands: an operand token (component count and
//! selection in bits 0..12, operand type in 12..20, index dimension in 20..22, one index
//! representation per index in 22..31, bit 31: an extended operand token with the modifier follows),
//! immediate values or indices. Custom-data blocks (opcode 53) carry their own length in the next
//! token; class 3 is the immediate constant buffer.

use std::fmt;

use super::ast::*;

/// A malformed or unsupported token stream or container: what, and at which byte offset of the
/// input (the whole container, when read through [`super::container`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryError {
    /// Byte offset of the token (or field) at fault.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for BinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {:#x}: {}", self.offset, self.message)
    }
}

impl std::error::Error for BinaryError {}

impl BinaryError {
    /// The error as a [`Diagnostic`](crate::diag::Diagnostic) about `path`, whose bytes are
    /// `bytes` (the whole input the offset counts in).
    pub fn to_diagnostic(&self, path: &std::path::Path, bytes: &[u8]) -> crate::diag::Diagnostic {
        crate::diag::Diagnostic::byte(path, bytes, self.offset as u64, self.message.clone())
    }
}

/// A model that has no token encoding (an offset outside -8..7, an immediate of 2 values, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

// Declaration opcodes (instruction opcodes are in `Opcode`).
const CUSTOM_DATA: u32 = 53;
const ICB_CLASS: u32 = 3;
const DCL_RESOURCE: u32 = 88;
const DCL_CONSTANT_BUFFER: u32 = 89;
const DCL_SAMPLER: u32 = 90;
const DCL_OUTPUT_TOPOLOGY: u32 = 92;
const DCL_INPUT_PRIMITIVE: u32 = 93;
const DCL_MAX_OUTPUT_VERTEX_COUNT: u32 = 94;
const DCL_INPUT: u32 = 95;
const DCL_INPUT_SGV: u32 = 96;
const DCL_INPUT_SIV: u32 = 97;
const DCL_INPUT_PS: u32 = 98;
const DCL_INPUT_PS_SGV: u32 = 99;
const DCL_INPUT_PS_SIV: u32 = 100;
const DCL_OUTPUT: u32 = 101;
const DCL_OUTPUT_SGV: u32 = 102;
const DCL_OUTPUT_SIV: u32 = 103;
const DCL_TEMPS: u32 = 104;
const DCL_INDEXABLE_TEMP: u32 = 105;
const DCL_GLOBAL_FLAGS: u32 = 106;
const DCL_STREAM: u32 = 143;
const DCL_THREAD_GROUP: u32 = 155;
const DCL_UAV_TYPED: u32 = 156;
const DCL_UAV_RAW: u32 = 157;
const DCL_UAV_STRUCTURED: u32 = 158;
const DCL_TGSM_RAW: u32 = 159;
const DCL_TGSM_STRUCTURED: u32 = 160;
const DCL_RESOURCE_RAW: u32 = 161;
const DCL_RESOURCE_STRUCTURED: u32 = 162;
const DCL_GS_INSTANCE_COUNT: u32 = 206;

const OPERAND_IMM32: u32 = 4;
const OPERAND_IMM64: u32 = 5;

const EXT_SAMPLE_CONTROLS: u32 = 1;
const EXT_RESOURCE_DIM: u32 = 2;
const EXT_RETURN_TYPE: u32 = 3;

const UAV_GLC: u32 = 1 << 16;
const UAV_ROV: u32 = 1 << 17;
const UAV_OPC: u32 = 1 << 23;

struct Reader<'a> {
    words: &'a [u32],
    /// Byte offset of `words[0]` in the input.
    base: usize,
}

impl Reader<'_> {
    fn err(&self, word: usize, message: impl Into<String>) -> BinaryError {
        BinaryError {
            offset: self.base + 4 * word,
            message: message.into(),
        }
    }

    /// The token at `*j` (which must be before `end`), advancing `*j`.
    fn take(&self, j: &mut usize, end: usize, what: &str) -> Result<u32, BinaryError> {
        if *j >= end {
            return Err(self.err(*j, format!("instruction ends before its {what}")));
        }
        let w = self.words[*j];
        *j += 1;
        Ok(w)
    }
}

/// Decodes a token stream (a SHDR or SHEX chunk's data). `base` is the byte offset of `bytes` in
/// the whole input, so errors name offsets in it.
pub fn decode(bytes: &[u8], base: usize) -> Result<Program, BinaryError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(BinaryError {
            offset: base + bytes.len() / 4 * 4,
            message: "the token stream is not a whole number of 32-bit tokens".into(),
        });
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let r = Reader {
        words: &words,
        base,
    };
    if words.len() < 2 {
        return Err(r.err(
            0,
            "the token stream is shorter than its version and length tokens",
        ));
    }
    let vt = words[0];
    let stage = Stage::ALL
        .get((vt >> 16) as usize)
        .copied()
        .ok_or_else(|| r.err(0, format!("unknown program type {}", vt >> 16)))?;
    let (major, minor) = (((vt >> 4) & 0xf) as u8, (vt & 0xf) as u8);
    if (major, minor) == (5, 1) {
        return Err(r.err(0, SM51));
    }
    if !(4..=5).contains(&major) || minor > 1 || vt & 0xff00 != 0 {
        return Err(r.err(0, format!("unsupported shader model {major}.{minor}")));
    }
    let len = words[1] as usize;
    if len < 2 || len > words.len() {
        return Err(r.err(
            1,
            format!(
                "the stream claims {len} tokens but has {} (at least 2)",
                words.len()
            ),
        ));
    }
    let mut statements = Vec::new();
    let mut i = 2;
    while i < len {
        let tok = words[i];
        let op = tok & 0x7ff;
        if op == CUSTOM_DATA {
            if i + 1 >= len {
                return Err(r.err(i, "custom data ends before its length token"));
            }
            let size = words[i + 1] as usize;
            if size < 2 || size > len - i {
                return Err(r.err(
                    i + 1,
                    format!("custom data length {size} is outside the stream"),
                ));
            }
            if tok >> 11 == ICB_CLASS {
                let data = &words[i + 2..i + size];
                if !data.len().is_multiple_of(4) {
                    return Err(r.err(
                        i + 1,
                        "immediate constant buffer is not a whole number of 4-value rows",
                    ));
                }
                let rows = data
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect();
                statements.push(Statement::Decl(Decl::ImmediateConstantBuffer(rows)));
            }
            // Other custom data (comments, debug information) does not change the program.
            i += size;
            continue;
        }
        let ilen = ((tok >> 24) & 0x7f) as usize;
        if ilen == 0 {
            return Err(r.err(i, "instruction length 0"));
        }
        if ilen > len - i {
            return Err(r.err(
                i,
                format!("instruction of {ilen} tokens runs past the end of the stream"),
            ));
        }
        let end = i + ilen;
        let st = match Opcode::from_token(op) {
            Some(opcode) => Statement::Inst(decode_inst(&r, i, end, opcode)?),
            None => Statement::Decl(decode_decl(&r, i, end)?),
        };
        statements.push(st);
        i = end;
    }
    Ok(Program {
        version: Version {
            stage,
            major,
            minor,
        },
        statements,
    })
}

fn sign4(v: u32) -> i8 {
    (((v & 0xf) as i8) << 4) >> 4
}

fn decode_inst(r: &Reader, i: usize, end: usize, opcode: Opcode) -> Result<Inst, BinaryError> {
    let tok = r.words[i];
    let mut inst = Inst::new(opcode, Vec::new());
    inst.saturate = tok & (1 << 13) != 0;
    if opcode.takes_test() {
        inst.test = Some(if tok & (1 << 18) != 0 {
            Test::NonZero
        } else {
            Test::Zero
        });
    }
    match opcode {
        Opcode::ResInfo => {
            inst.info_return = match (tok >> 11) & 3 {
                0 => InfoReturn::Float,
                1 => InfoReturn::RcpFloat,
                2 => InfoReturn::Uint,
                _ => return Err(r.err(i, "unknown resinfo return type 3")),
            }
        }
        Opcode::SampleInfo if tok & (1 << 11) != 0 => inst.info_return = InfoReturn::Uint,
        Opcode::Sync => {
            inst.sync = SyncFlags {
                threads: tok & (1 << 11) != 0,
                tgsm: tok & (1 << 12) != 0,
                uav_group: tok & (1 << 13) != 0,
                uav_global: tok & (1 << 14) != 0,
            };
            inst.saturate = false;
        }
        _ => {}
    }
    if (tok >> 19) & 0xf != 0 && opcode != Opcode::Sync {
        return Err(r.err(i, "`precise` instructions are not supported"));
    }
    let mut j = i + 1;
    let mut extended = tok & (1 << 31) != 0;
    while extended {
        let e = r.take(&mut j, end, "extended opcode token")?;
        extended = e & (1 << 31) != 0;
        match e & 0x3f {
            EXT_SAMPLE_CONTROLS => {
                inst.offsets = Some([sign4(e >> 9), sign4(e >> 13), sign4(e >> 17)]);
            }
            EXT_RESOURCE_DIM => {
                let dim = ResourceDim::from_token((e >> 6) & 0x1f).ok_or_else(|| {
                    r.err(
                        j - 1,
                        format!("unknown resource dimension {}", (e >> 6) & 0x1f),
                    )
                })?;
                inst.resource = Some(ResourceInfo {
                    dim,
                    stride: (e >> 11) & 0xfff,
                });
            }
            EXT_RETURN_TYPE => {
                inst.return_type = Some(return_types(r, j - 1, e >> 6)?);
            }
            t => return Err(r.err(j - 1, format!("unknown extended opcode token type {t}"))),
        }
    }
    if inst.return_type.is_some() && inst.resource.is_none() {
        return Err(r.err(i, "a return-type token without a resource-dimension token"));
    }
    while j < end {
        let mut op = decode_operand(r, &mut j, end)?;
        canonicalize(&mut op, inst.operands.len() < opcode.dst_count());
        inst.operands.push(op);
    }
    Ok(inst)
}

/// Brings an operand's component selection to the one form the listing syntax shows, so that a
/// decoded program prints and parses back unchanged: a destination's selection becomes a mask of
/// the components it names; a source's one- or four-component mask becomes a select or the
/// identity swizzle; an empty selection is the register file's default (one component for `oDepth`
/// and the other scalar outputs, none otherwise). fxc's own output is already in this form.
fn canonicalize(op: &mut Operand, dst: bool) {
    let OperandValue::Reg { file, indices } = &mut op.value else {
        return;
    };
    for idx in indices.iter_mut() {
        if let Index::Reg(r) | Index::RegPlus(r, _) = idx {
            canonicalize(r, false);
        }
    }
    op.components = match op.components {
        Components::Zero | Components::One | Components::Mask(0) => {
            if file.is_scalar() {
                Components::One
            } else {
                Components::Zero
            }
        }
        Components::Select(c) if dst => Components::Mask(1 << c),
        Components::Swizzle(s) if dst => Components::Mask(s.iter().fold(0, |m, &c| m | 1 << c)),
        Components::Mask(m) if !dst && m.count_ones() == 1 => {
            Components::Select(m.trailing_zeros() as u8)
        }
        Components::Mask(0xf) if !dst => Components::Swizzle([0, 1, 2, 3]),
        other => other,
    };
}

/// Four 4-bit return types from `bits`.
fn return_types(r: &Reader, word: usize, bits: u32) -> Result<[ReturnType; 4], BinaryError> {
    let mut out = [ReturnType::Float; 4];
    for (k, slot) in out.iter_mut().enumerate() {
        let v = (bits >> (4 * k)) & 0xf;
        *slot = ReturnType::from_token(v)
            .ok_or_else(|| r.err(word, format!("unknown return type {v}")))?;
    }
    Ok(out)
}

fn decode_operand(r: &Reader, j: &mut usize, end: usize) -> Result<Operand, BinaryError> {
    let at = *j;
    let tok = r.take(j, end, "operand")?;
    let components = match tok & 3 {
        0 => Components::Zero,
        1 => Components::One,
        2 => match (tok >> 2) & 3 {
            0 => Components::Mask(((tok >> 4) & 0xf) as u8),
            1 => {
                let s = tok >> 4;
                Components::Swizzle([
                    (s & 3) as u8,
                    ((s >> 2) & 3) as u8,
                    ((s >> 4) & 3) as u8,
                    ((s >> 6) & 3) as u8,
                ])
            }
            2 => Components::Select(((tok >> 4) & 3) as u8),
            _ => return Err(r.err(at, "unknown component selection mode 3")),
        },
        _ => return Err(r.err(at, "N-component operands are not supported")),
    };
    let ty = (tok >> 12) & 0xff;
    let dims = ((tok >> 20) & 3) as usize;
    let mut modifier = Modifier::None;
    if tok & (1 << 31) != 0 {
        let e = r.take(j, end, "extended operand token")?;
        match e & 0x3f {
            0 => {}
            1 => {
                modifier = match (e >> 6) & 0xff {
                    0 => Modifier::None,
                    1 => Modifier::Neg,
                    2 => Modifier::Abs,
                    3 => Modifier::AbsNeg,
                    m => return Err(r.err(*j - 1, format!("unknown operand modifier {m}"))),
                };
                // Bits 14..16, the operand's minimum precision: a hint Direct3D lets an
                // implementation ignore; warpjit computes at 32 bits (docs/semantics.md §27).
                if e & (1 << 17) != 0 {
                    return Err(r.err(*j - 1, "non-uniform operands are not supported"));
                }
            }
            t => return Err(r.err(*j - 1, format!("unknown extended operand type {t}"))),
        }
        if e & (1 << 31) != 0 {
            return Err(r.err(*j - 1, "more than one extended operand token"));
        }
    }
    if ty == OPERAND_IMM32 {
        let n = match tok & 3 {
            1 => 1,
            2 => 4,
            _ => return Err(r.err(at, "an immediate has 1 or 4 components")),
        };
        if dims != 0 {
            return Err(r.err(at, "an immediate has no index"));
        }
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            values.push(r.take(j, end, "immediate value")?);
        }
        let mut op = Operand::imm(&values);
        op.modifier = modifier;
        return Ok(op);
    }
    if ty == OPERAND_IMM64 {
        return Err(r.err(at, "64-bit immediates are not supported"));
    }
    let file =
        RegFile::from_token(ty).ok_or_else(|| r.err(at, format!("unknown operand type {ty}")))?;
    if dims > 3 {
        return Err(r.err(at, "more than 3 indices"));
    }
    let mut indices = Vec::with_capacity(dims);
    for k in 0..dims {
        let repr = (tok >> (22 + 3 * k)) & 7;
        let index = match repr {
            0 => Index::Imm(r.take(j, end, "index")?),
            2 => Index::Reg(Box::new(decode_operand(r, j, end)?)),
            3 => {
                let imm = r.take(j, end, "index")?;
                let reg = Box::new(decode_operand(r, j, end)?);
                // The listing cannot tell `r + 0` from `r`: the model keeps one form.
                match imm {
                    0 => Index::Reg(reg),
                    _ => Index::RegPlus(reg, imm),
                }
            }
            1 | 4 => return Err(r.err(at, "64-bit indices are not supported")),
            _ => return Err(r.err(at, format!("unknown index representation {repr}"))),
        };
        indices.push(index);
    }
    Ok(Operand {
        value: OperandValue::Reg { file, indices },
        components,
        modifier,
    })
}

/// The numeric slot of a declared `file` register (`t3`: 3).
fn slot(r: &Reader, j: &mut usize, end: usize, file: RegFile) -> Result<u32, BinaryError> {
    let at = *j;
    let op = decode_operand(r, j, end)?;
    match &op.value {
        OperandValue::Reg { file: f, indices } if *f == file => {
            if let [Index::Imm(n)] = indices[..] {
                return Ok(n);
            }
        }
        _ => {}
    }
    Err(r.err(at, format!("expected a `{}#` register", file.text())))
}

fn decode_decl(r: &Reader, i: usize, end: usize) -> Result<Decl, BinaryError> {
    let tok = r.words[i];
    let op = tok & 0x7ff;
    let mut j = i + 1;
    let j = &mut j;
    let uav_flags = UavFlags {
        glc: tok & UAV_GLC != 0,
        opc: tok & UAV_OPC != 0,
        rov: tok & UAV_ROV != 0,
    };
    let dim = || {
        let d = (tok >> 11) & 0x1f;
        ResourceDim::from_token(d)
            .ok_or_else(|| r.err(i, format!("unknown resource dimension {d}")))
    };
    let decl = match op {
        DCL_GLOBAL_FLAGS => Decl::GlobalFlags((tok >> 11) & 0x1fff),
        DCL_TEMPS => Decl::Temps(r.take(j, end, "register count")?),
        DCL_INDEXABLE_TEMP => Decl::IndexableTemp {
            reg: r.take(j, end, "register")?,
            size: r.take(j, end, "size")?,
            components: r.take(j, end, "component count")?,
        },
        DCL_OUTPUT_TOPOLOGY => Decl::OutputTopology(Topology((tok >> 11) & 0x7f)),
        DCL_INPUT_PRIMITIVE => Decl::InputPrimitive(Primitive((tok >> 11) & 0x3f)),
        DCL_MAX_OUTPUT_VERTEX_COUNT => Decl::MaxOutputVertexCount(r.take(j, end, "count")?),
        DCL_GS_INSTANCE_COUNT => Decl::GsInstanceCount(r.take(j, end, "count")?),
        DCL_STREAM => Decl::Stream(slot(r, j, end, RegFile::Stream)?),
        DCL_THREAD_GROUP => Decl::ThreadGroup([
            r.take(j, end, "x size")?,
            r.take(j, end, "y size")?,
            r.take(j, end, "z size")?,
        ]),
        DCL_CONSTANT_BUFFER => {
            let at = *j;
            let opnd = decode_operand(r, j, end)?;
            match &opnd.value {
                OperandValue::Reg {
                    file: RegFile::ConstantBuffer,
                    indices,
                } => match indices[..] {
                    [Index::Imm(slot), Index::Imm(size)] => Decl::ConstantBuffer {
                        slot,
                        size,
                        dynamic: tok & (1 << 11) != 0,
                    },
                    _ => return Err(r.err(at, "expected `cb#[size]`")),
                },
                _ => return Err(r.err(at, "expected a `cb#` register")),
            }
        }
        DCL_SAMPLER => {
            let mode = *SamplerMode::ALL
                .get(((tok >> 11) & 0xf) as usize)
                .ok_or_else(|| r.err(i, "unknown sampler mode"))?;
            Decl::Sampler {
                slot: slot(r, j, end, RegFile::Sampler)?,
                mode,
            }
        }
        DCL_RESOURCE => {
            let dim = dim()?;
            if matches!(dim, ResourceDim::RawBuffer | ResourceDim::StructuredBuffer) {
                return Err(r.err(i, "dcl_resource of a raw or structured buffer"));
            }
            let samples = (tok >> 16) & 0x7f;
            if samples != 0 && !dim.is_multisample() {
                return Err(r.err(i, "a sample count on a texture that is not multisample"));
            }
            let slot = slot(r, j, end, RegFile::Resource)?;
            let rt = r.take(j, end, "return type")?;
            Decl::Resource {
                slot,
                dim,
                samples,
                return_type: return_types(r, *j - 1, rt)?,
            }
        }
        DCL_RESOURCE_RAW => Decl::ResourceRaw {
            slot: slot(r, j, end, RegFile::Resource)?,
        },
        DCL_RESOURCE_STRUCTURED => Decl::ResourceStructured {
            slot: slot(r, j, end, RegFile::Resource)?,
            stride: r.take(j, end, "stride")?,
        },
        DCL_UAV_TYPED => {
            let dim = dim()?;
            let slot = slot(r, j, end, RegFile::Uav)?;
            let rt = r.take(j, end, "return type")?;
            Decl::UavTyped {
                slot,
                dim,
                return_type: return_types(r, *j - 1, rt)?,
                flags: uav_flags,
            }
        }
        DCL_UAV_RAW => Decl::UavRaw {
            slot: slot(r, j, end, RegFile::Uav)?,
            flags: uav_flags,
        },
        DCL_UAV_STRUCTURED => Decl::UavStructured {
            slot: slot(r, j, end, RegFile::Uav)?,
            stride: r.take(j, end, "stride")?,
            flags: uav_flags,
        },
        DCL_TGSM_RAW => Decl::TgsmRaw {
            slot: slot(r, j, end, RegFile::Tgsm)?,
            bytes: r.take(j, end, "size")?,
        },
        DCL_TGSM_STRUCTURED => Decl::TgsmStructured {
            slot: slot(r, j, end, RegFile::Tgsm)?,
            stride: r.take(j, end, "stride")?,
            count: r.take(j, end, "count")?,
        },
        DCL_INPUT..=DCL_OUTPUT_SIV => {
            let ps = (DCL_INPUT_PS..=DCL_INPUT_PS_SIV).contains(&op);
            let interpolation = if ps {
                *Interpolation::ALL
                    .get(((tok >> 11) & 0xf) as usize)
                    .ok_or_else(|| r.err(i, "unknown interpolation mode"))?
            } else {
                Interpolation::Undefined
            };
            let mut reg = decode_operand(r, j, end)?;
            canonicalize(&mut reg, true);
            let sv_kind = match op {
                DCL_INPUT_SGV | DCL_INPUT_PS_SGV | DCL_OUTPUT_SGV => Some(SvKind::Sgv),
                DCL_INPUT_SIV | DCL_INPUT_PS_SIV | DCL_OUTPUT_SIV => Some(SvKind::Siv),
                _ => None,
            };
            let sv = match sv_kind {
                Some(k) => Some((k, SystemValue(r.take(j, end, "system value")?))),
                None => None,
            };
            if op >= DCL_OUTPUT {
                Decl::Output { reg, sv }
            } else {
                Decl::Input {
                    ps,
                    interpolation,
                    reg,
                    sv,
                }
            }
        }
        _ => {
            let what = match unsupported_opcode(op) {
                Some((name, why)) => format!("opcode {op} (`{name}`): {why}"),
                None => format!("unknown or unsupported opcode {op}"),
            };
            return Err(r.err(i, what));
        }
    };
    if *j != end {
        return Err(r.err(*j, "declaration has more tokens than it uses"));
    }
    Ok(decl)
}

/// Encodes a program as a token stream (the data of a SHDR/SHEX chunk), little-endian bytes.
pub fn encode(p: &Program) -> Result<Vec<u8>, EncodeError> {
    let v = p.version;
    let mut w = vec![
        u32::from(v.minor & 0xf) | u32::from(v.major & 0xf) << 4 | v.stage.token() << 16,
        0,
    ];
    for s in &p.statements {
        let start = w.len();
        match s {
            Statement::Inst(i) => encode_inst(&mut w, i)?,
            Statement::Decl(Decl::ImmediateConstantBuffer(rows)) => {
                w.push(CUSTOM_DATA | ICB_CLASS << 11);
                w.push(
                    u32::try_from(rows.len() * 4 + 2)
                        .map_err(|_| EncodeError("immediate constant buffer too large".into()))?,
                );
                w.extend(rows.iter().flatten());
                continue;
            }
            Statement::Decl(d) => encode_decl(&mut w, d)?,
        }
        let len = w.len() - start;
        if len > 0x7f {
            return Err(EncodeError(format!(
                "a statement of {len} tokens does not fit the 7-bit length"
            )));
        }
        w[start] |= (len as u32) << 24;
    }
    w[1] = u32::try_from(w.len()).map_err(|_| EncodeError("program too large".into()))?;
    Ok(w.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn encode_inst(w: &mut Vec<u32>, i: &Inst) -> Result<(), EncodeError> {
    let mut tok = i.opcode.token();
    if i.saturate {
        tok |= 1 << 13;
    }
    if i.test.is_some() != i.opcode.takes_test() {
        return Err(EncodeError(format!(
            "`{}`: a test is required exactly on conditional opcodes",
            i.opcode.text()
        )));
    }
    if i.test == Some(Test::NonZero) {
        tok |= 1 << 18;
    }
    match (i.opcode, i.info_return) {
        (_, InfoReturn::Float) => {}
        (Opcode::ResInfo, InfoReturn::RcpFloat) => tok |= 1 << 11,
        (Opcode::ResInfo, InfoReturn::Uint) => tok |= 2 << 11,
        (Opcode::SampleInfo, InfoReturn::Uint) => tok |= 1 << 11,
        _ => {
            return Err(EncodeError(format!(
                "`{}` has no return-type suffix",
                i.opcode.text()
            )))
        }
    }
    let s = i.sync;
    if s != SyncFlags::default() {
        if i.opcode != Opcode::Sync {
            return Err(EncodeError("sync flags on another opcode".into()));
        }
        tok |= u32::from(s.threads) << 11
            | u32::from(s.tgsm) << 12
            | u32::from(s.uav_group) << 13
            | u32::from(s.uav_global) << 14;
    }
    let mut ext = Vec::new();
    if let Some(offs) = i.offsets {
        let mut e = EXT_SAMPLE_CONTROLS;
        for (k, &o) in offs.iter().enumerate() {
            if !(-8..=7).contains(&o) {
                return Err(EncodeError(format!("offset {o} is outside -8..7")));
            }
            e |= (o as u32 & 0xf) << (9 + 4 * k);
        }
        ext.push(e);
    }
    if let Some(res) = i.resource {
        if res.stride > 0xfff {
            return Err(EncodeError(format!("stride {} is too large", res.stride)));
        }
        ext.push(EXT_RESOURCE_DIM | res.dim.token() << 6 | res.stride << 11);
    }
    if let Some(rt) = i.return_type {
        ext.push(EXT_RETURN_TYPE | return_type_bits(&rt) << 6);
    }
    if !ext.is_empty() {
        tok |= 1 << 31;
    }
    let n = ext.len();
    for (k, e) in ext.iter_mut().enumerate() {
        if k + 1 < n {
            *e |= 1 << 31;
        }
    }
    w.push(tok);
    w.extend(ext);
    for op in &i.operands {
        encode_operand(w, op)?;
    }
    Ok(())
}

fn return_type_bits(rt: &[ReturnType; 4]) -> u32 {
    rt.iter()
        .enumerate()
        .fold(0, |acc, (k, t)| acc | t.token() << (4 * k))
}

fn encode_operand(w: &mut Vec<u32>, op: &Operand) -> Result<(), EncodeError> {
    let mut tok = match op.components {
        Components::Zero => 0,
        Components::One => 1,
        Components::Mask(m) => 2 | u32::from(m & 0xf) << 4,
        Components::Swizzle(s) => {
            2 | 1 << 2
                | (u32::from(s[0] & 3)
                    | u32::from(s[1] & 3) << 2
                    | u32::from(s[2] & 3) << 4
                    | u32::from(s[3] & 3) << 6)
                    << 4
        }
        Components::Select(c) => 2 | 2 << 2 | u32::from(c & 3) << 4,
    };
    let ext = match op.modifier {
        Modifier::None => None,
        Modifier::Neg => Some(1u32),
        Modifier::Abs => Some(2),
        Modifier::AbsNeg => Some(3),
    };
    if ext.is_some() {
        tok |= 1 << 31;
    }
    let push_head = |w: &mut Vec<u32>, tok: u32| {
        w.push(tok);
        if let Some(m) = ext {
            w.push(1 | m << 6);
        }
    };
    match &op.value {
        OperandValue::Imm32(values) => {
            let comps = match values.len() {
                1 => 1,
                4 => 2 | 1 << 2 | 0xe4 << 4,
                n => return Err(EncodeError(format!("an immediate of {n} values"))),
            };
            push_head(w, (tok & (1 << 31)) | comps | OPERAND_IMM32 << 12);
            w.extend(values);
        }
        OperandValue::Reg { file, indices } => {
            if indices.len() > 3 {
                return Err(EncodeError("more than 3 indices".into()));
            }
            tok |= file.token() << 12 | (indices.len() as u32) << 20;
            for (k, idx) in indices.iter().enumerate() {
                let repr = match idx {
                    Index::Imm(_) => 0,
                    Index::Reg(_) => 2,
                    Index::RegPlus(..) => 3,
                };
                tok |= repr << (22 + 3 * k);
            }
            push_head(w, tok);
            for idx in indices {
                match idx {
                    Index::Imm(v) => w.push(*v),
                    Index::Reg(r) => encode_operand(w, r)?,
                    Index::RegPlus(r, v) => {
                        w.push(*v);
                        encode_operand(w, r)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// A declared register operand: `file` with one index and no components.
fn slot_operand(file: RegFile, slot: u32) -> Operand {
    Operand::reg(file, &[slot], Components::Zero)
}

fn uav_bits(f: UavFlags) -> u32 {
    (if f.glc { UAV_GLC } else { 0 })
        | (if f.rov { UAV_ROV } else { 0 })
        | (if f.opc { UAV_OPC } else { 0 })
}

fn encode_decl(w: &mut Vec<u32>, d: &Decl) -> Result<(), EncodeError> {
    match d {
        Decl::GlobalFlags(f) => w.push(DCL_GLOBAL_FLAGS | (f & 0x1fff) << 11),
        Decl::ConstantBuffer {
            slot,
            size,
            dynamic,
        } => {
            w.push(DCL_CONSTANT_BUFFER | u32::from(*dynamic) << 11);
            let swz = Components::Swizzle([0, 1, 2, 3]);
            encode_operand(
                w,
                &Operand::reg(RegFile::ConstantBuffer, &[*slot, *size], swz),
            )?;
        }
        Decl::ImmediateConstantBuffer(_) => unreachable!("encoded by the caller"),
        Decl::Resource {
            slot,
            dim,
            samples,
            return_type,
        } => {
            if *samples > 0x7f {
                return Err(EncodeError(format!("sample count {samples} is too large")));
            }
            w.push(DCL_RESOURCE | dim.token() << 11 | samples << 16);
            encode_operand(w, &slot_operand(RegFile::Resource, *slot))?;
            w.push(return_type_bits(return_type));
        }
        Decl::ResourceRaw { slot } => {
            w.push(DCL_RESOURCE_RAW);
            encode_operand(w, &slot_operand(RegFile::Resource, *slot))?;
        }
        Decl::ResourceStructured { slot, stride } => {
            w.push(DCL_RESOURCE_STRUCTURED);
            encode_operand(w, &slot_operand(RegFile::Resource, *slot))?;
            w.push(*stride);
        }
        Decl::UavTyped {
            slot,
            dim,
            return_type,
            flags,
        } => {
            w.push(DCL_UAV_TYPED | dim.token() << 11 | uav_bits(*flags));
            encode_operand(w, &slot_operand(RegFile::Uav, *slot))?;
            w.push(return_type_bits(return_type));
        }
        Decl::UavRaw { slot, flags } => {
            w.push(DCL_UAV_RAW | uav_bits(*flags));
            encode_operand(w, &slot_operand(RegFile::Uav, *slot))?;
        }
        Decl::UavStructured {
            slot,
            stride,
            flags,
        } => {
            w.push(DCL_UAV_STRUCTURED | uav_bits(*flags));
            encode_operand(w, &slot_operand(RegFile::Uav, *slot))?;
            w.push(*stride);
        }
        Decl::TgsmRaw { slot, bytes } => {
            w.push(DCL_TGSM_RAW);
            encode_operand(w, &slot_operand(RegFile::Tgsm, *slot))?;
            w.push(*bytes);
        }
        Decl::TgsmStructured {
            slot,
            stride,
            count,
        } => {
            w.push(DCL_TGSM_STRUCTURED);
            encode_operand(w, &slot_operand(RegFile::Tgsm, *slot))?;
            w.push(*stride);
            w.push(*count);
        }
        Decl::Sampler { slot, mode } => {
            let m = SamplerMode::ALL.iter().position(|x| x == mode).unwrap_or(0) as u32;
            w.push(DCL_SAMPLER | m << 11);
            encode_operand(w, &slot_operand(RegFile::Sampler, *slot))?;
        }
        Decl::Input {
            ps,
            interpolation,
            reg,
            sv,
        } => {
            let base = if *ps { DCL_INPUT_PS } else { DCL_INPUT };
            let op = base
                + match sv {
                    None => 0,
                    Some((SvKind::Sgv, _)) => 1,
                    Some((SvKind::Siv, _)) => 2,
                };
            if !ps && *interpolation != Interpolation::Undefined {
                return Err(EncodeError(
                    "an interpolation mode on a non-pixel input".into(),
                ));
            }
            w.push(op | interpolation.token() << 11);
            encode_operand(w, reg)?;
            if let Some((_, v)) = sv {
                w.push(v.0);
            }
        }
        Decl::Output { reg, sv } => {
            w.push(
                DCL_OUTPUT
                    + match sv {
                        None => 0,
                        Some((SvKind::Sgv, _)) => 1,
                        Some((SvKind::Siv, _)) => 2,
                    },
            );
            encode_operand(w, reg)?;
            if let Some((_, v)) = sv {
                w.push(v.0);
            }
        }
        Decl::Temps(n) => {
            w.push(DCL_TEMPS);
            w.push(*n);
        }
        Decl::IndexableTemp {
            reg,
            size,
            components,
        } => {
            w.push(DCL_INDEXABLE_TEMP);
            w.extend([*reg, *size, *components]);
        }
        Decl::OutputTopology(t) => {
            if t.0 > 0x7f {
                return Err(EncodeError(format!("output topology {} is too large", t.0)));
            }
            w.push(DCL_OUTPUT_TOPOLOGY | t.0 << 11);
        }
        Decl::InputPrimitive(p) => {
            if p.0 > 0x3f {
                return Err(EncodeError(format!("input primitive {} is too large", p.0)));
            }
            w.push(DCL_INPUT_PRIMITIVE | p.0 << 11);
        }
        Decl::MaxOutputVertexCount(n) => w.extend([DCL_MAX_OUTPUT_VERTEX_COUNT, *n]),
        Decl::GsInstanceCount(n) => w.extend([DCL_GS_INSTANCE_COUNT, *n]),
        Decl::Stream(m) => {
            w.push(DCL_STREAM);
            encode_operand(w, &slot_operand(RegFile::Stream, *m))?;
        }
        Decl::ThreadGroup(xyz) => {
            w.push(DCL_THREAD_GROUP);
            w.extend(xyz);
        }
    }
    Ok(())
}

/// Why shader model 5.1 programs are refused (both front-ends say it).
pub(crate) const SM51: &str = "shader model 5.1 (register spaces, resource arrays) is not \
     supported: warpjit runs shader models 4.0 to 5.0 (fxc /T cs_5_0)";

/// The name of an opcode warpjit knows but does not run, and why: hull and domain shaders,
/// interfaces, and the tiled-resource loads that return a status.
fn unsupported_opcode(op: u32) -> Option<(&'static str, &'static str)> {
    const TESS: &str = "hull and domain shaders (tessellation) are not supported";
    const IFACE: &str = "interfaces (dynamic linkage) are not supported";
    const TILED: &str = "loads that return a tiled-resource status are not supported";
    Some(match op {
        113 => ("hs_decls", TESS),
        114 => ("hs_control_point_phase", TESS),
        115 => ("hs_fork_phase", TESS),
        116 => ("hs_join_phase", TESS),
        144 => ("dcl_function_body", IFACE),
        145 => ("dcl_function_table", IFACE),
        146 => ("dcl_interface", IFACE),
        147 => ("dcl_input_control_point_count", TESS),
        148 => ("dcl_output_control_point_count", TESS),
        149 => ("dcl_tessellator_domain", TESS),
        150 => ("dcl_tessellator_partitioning", TESS),
        151 => ("dcl_tessellator_output_primitive", TESS),
        152 => ("dcl_hs_max_tessfactor", TESS),
        153 => ("dcl_hs_fork_phase_instance_count", TESS),
        154 => ("dcl_hs_join_phase_instance_count", TESS),
        223 => ("ld_s", TILED),
        225 => ("ld_uav_typed_s", TILED),
        226 => ("ld_raw_s", TILED),
        227 => ("ld_structured_s", TILED),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// `cs_5_0`, then `words`, with the stream length filled in.
    fn stream(words: &[u32]) -> Vec<u8> {
        let mut all = vec![0x0005_0050, 2 + words.len() as u32];
        all.extend_from_slice(words);
        bytes(&all)
    }

    /// Opcodes warpjit knows but does not run are named with the reason; shader model 5.1 is
    /// refused at its version token.
    #[test]
    fn unsupported_programs_say_what_they_use() {
        // dcl_input_control_point_count 3 (a hull shader declaration): one token.
        let e = decode(&stream(&[0x0100_3093]), 0).unwrap_err();
        assert!(
            e.to_string()
                .contains("opcode 147 (`dcl_input_control_point_count`): hull and domain"),
            "{e}"
        );
        let e = decode(&stream(&[0x0100_00e2]), 0).unwrap_err();
        assert!(e.to_string().contains("`ld_raw_s`"), "{e}");
        let e = decode(&stream(&[0x0100_00fe]), 0).unwrap_err();
        assert!(
            e.to_string().contains("unknown or unsupported opcode 254"),
            "{e}"
        );
        let e = decode(&bytes(&[0x0005_0051, 2]), 0).unwrap_err();
        assert!(e.to_string().contains("shader model 5.1"), "{e}");
    }

    /// An operand's minimum precision (extended operand token bits 14..16) is a hint that
    /// changes nothing: `mov r0.x, -r1.x` decodes the same with `min16f` on the source.
    #[test]
    fn minimum_precision_is_ignored() {
        let mov = |ext: u32| {
            decode(
                &stream(&[0x0600_0036, 0x0010_0012, 0, 0x8010_000a, ext, 1]),
                0,
            )
            .unwrap()
            .insts()
            .next()
            .unwrap()
            .operands
            .clone()
        };
        assert_eq!(mov(0x4041), mov(0x0041));
        assert_eq!(mov(0x0041)[1].modifier, Modifier::Neg);
    }

    #[test]
    fn hand_assembled_tokens_decode_as_the_format_says() {
        // mov r0.x, l(1.0): opcode 54, 5 tokens; r0 with mask .x (4 components, mask mode,
        // 1-D immediate index); a one-component immediate.
        let p = decode(
            &stream(&[0x0500_0036, 0x0010_0012, 0, 0x0000_4001, 0x3f80_0000]),
            0,
        )
        .unwrap();
        let i = p.insts().next().unwrap();
        assert_eq!(i.opcode, Opcode::Mov);
        assert_eq!(
            i.operands,
            vec![
                Operand::reg(RegFile::Temp, &[0], Components::Mask(1)),
                Operand::imm(&[0x3f80_0000]),
            ]
        );
        // ldms_aoffimmi(-2,3,0) r0.xyzw, r1.xyzw, t0.xyzw, l(0): the sample-controls extended
        // token carries 4-bit offsets at bits 9, 13 and 17.
        let offsets = 1 | (0xe << 9) | (3 << 13) | (1 << 31);
        let dim = 2 | (4 << 6);
        let p = decode(
            &stream(&[
                0x0b00_002e | (1 << 31),
                offsets,
                dim,
                0x0010_00f2,
                0,
                0x0010_0e46,
                1,
                0x0010_7e46,
                0,
                0x0000_4001,
                0,
            ]),
            0,
        )
        .unwrap();
        let i = p.insts().next().unwrap();
        assert_eq!(i.opcode, Opcode::LdMs);
        assert_eq!(i.offsets, Some([-2, 3, 0]));
        assert_eq!(
            i.resource,
            Some(ResourceInfo {
                dim: ResourceDim::Texture2DMs,
                stride: 0
            })
        );
        assert_eq!(
            i.operands[2],
            Operand::reg(RegFile::Resource, &[0], Components::Swizzle([0, 1, 2, 3]))
        );
        // What the encoder writes decodes back.
        let again = decode(&encode(&p).unwrap(), 0).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn sign_extension_of_offsets() {
        assert_eq!(sign4(0x7), 7);
        assert_eq!(sign4(0x8), -8);
        assert_eq!(sign4(0xf), -1);
        assert_eq!(sign4(0x10), 0);
    }

    #[test]
    fn truncated_operands_name_their_token() {
        // mov whose length says 5 tokens but the stream ends after 3.
        let e = decode(&stream(&[0x0500_0036, 0x0010_0012, 0]), 0x40).unwrap_err();
        assert_eq!(e.offset, 0x40 + 8, "{e}");
        // An operand of type 200.
        let e = decode(&stream(&[0x0200_0036, 200 << 12]), 0).unwrap_err();
        assert!(e.message.contains("operand type"), "{e}");
    }
}
