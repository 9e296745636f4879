//! Loading `[[launch]]`: its ISA, dimensions, shared and local memory, budgets, DXBC inputs and
//! output expectations, and each launch's program
//! through the front-end boundary (each distinct program compiled once).

use super::{sp, sp64, Loader};
use crate::diag::{Diagnostic, Location};
use crate::exec::device::CtaShape;
use crate::exec::{DEFAULT_BUDGET, MAX_LAUNCH_THREADS};
use crate::frontend::{self, Content};
use crate::ir::{Isa, Program, SrcLoc, TextureKind, ViewKind};
use crate::tracefile::code::{value_offset, StringMap};
use crate::tracefile::files::{self, MAX_PROGRAM_BYTES};
use crate::tracefile::schema::{HasData, RawLaunch, RawParam, RawRegData, RegName};
use crate::tracefile::SourceLines;
use crate::tracefile::{
    Buffer, BufferKind, LaunchSpec, RegData, Texture, TextureDim, TraceError, View, MAX_BLOCK,
    MAX_GRID, MAX_LOCAL_BYTES, MAX_SHARED_BYTES, MAX_THREADS_PER_CTA,
};
use std::collections::HashMap;
use std::io::Read;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use toml::Spanned;
use warpjit_runtime::BankMode;

/// What makes two launches' programs the same: from a `code_file`, the `code` text or
/// `code_file` value, `isa`, `registers`, `kernel`, `module_data`.
pub(super) type ProgramKey = (bool, String, Isa, u32, Option<String>, Option<u64>);

/// What the trace binds: the resources and samplers a program's declarations are checked
/// against.
#[derive(Clone, Copy)]
pub(super) struct Bound<'a> {
    /// `[[texture]]` tables.
    pub(super) textures: &'a [Texture],
    /// `[[buffer]]` tables.
    pub(super) buffers: &'a [Buffer],
    /// `[[sampler]]` tables.
    pub(super) samplers: &'a [crate::tracefile::Sampler],
}

/// The special input registers a `[[launch.input]]` may name.
const SPECIAL_INPUTS: &[&str] = &["vPrim", "vCoverage", "vInnerCoverage"];
/// The special output registers a `[[launch.expect_output]]` may name.
const SPECIAL_OUTPUTS: &[&str] = &["oDepth", "oDepthGE", "oDepthLE", "oMask", "oStencilRef"];

/// Which register table: `[[launch.input]]` (`v#`) or `[[launch.expect_output]]` (`o#`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum RegTable {
    Input,
    ExpectOutput,
}

/// A launch's keys, validated: [`LaunchSpec`] without the program.
#[derive(Debug)]
pub(super) struct LaunchKeys {
    pub(super) isa: Isa,
    pub(super) kernel: Option<String>,
    pub(super) grid: [u32; 3],
    pub(super) block: [u32; 3],
    pub(super) block_given: bool,
    pub(super) invocations: Option<u32>,
    pub(super) pixels: Option<[u32; 2]>,
    pub(super) mode: BankMode,
    pub(super) registers: u32,
    pub(super) shared_bytes: u32,
    pub(super) local_bytes: Option<u32>,
    pub(super) budget: u64,
    pub(super) cooperative: bool,
    pub(super) inputs: Vec<RegData>,
    pub(super) expect_outputs: Vec<RegData>,
}

/// An assembled program, where its text came from, and where its instructions are written.
pub(super) type Made = (Arc<Program>, PathBuf, Arc<SourceLines>);

/// The programs a trace's launches assembled so far.
#[derive(Default)]
pub(super) struct Programs {
    /// By (from a `code_file`, the `code` text or `code_file` value, `isa`, `registers`).
    pub(super) done: HashMap<ProgramKey, Made>,
    /// Bytes of the distinct texts assembled.
    pub(super) bytes: u64,
}

impl Loader {
    /// Grid or block dimensions: 1 to 3 components, each at least 1 and at most `max`.
    pub(super) fn dims(
        &self,
        v: &Option<Spanned<Vec<Spanned<u32>>>>,
        key: &str,
        default: [u32; 3],
        max: [u32; 3],
    ) -> Result<[u32; 3], TraceError> {
        let Some(v) = v else { return Ok(default) };
        let items = v.get_ref();
        if items.is_empty() || items.len() > 3 {
            return Err(self.invalid(
                &v.span(),
                format!("{key} takes 1 to 3 components [x, y, z]"),
            ));
        }
        let mut out = [1; 3];
        for (i, c) in items.iter().enumerate() {
            let (n, span) = sp(c);
            let axis = ["x", "y", "z"][i];
            if n == 0 {
                return Err(self.invalid(&span, format!("{key} {axis} must be at least 1")));
            }
            if n > max[i] {
                return Err(self.invalid(
                    &span,
                    format!(
                        "{key} {axis} = {n} is more than {} (Maxwell's limit)",
                        max[i]
                    ),
                ));
            }
            out[i] = n;
        }
        Ok(out)
    }

    /// A launch: its keys ([`Loader::launch_keys`]), then its program (an ISA that cannot run yet
    /// is refused at its `isa` key once every key is valid).
    pub(super) fn launch(
        &self,
        index: u32,
        l: &Spanned<RawLaunch>,
        programs: &mut Programs,
        bound: Bound<'_>,
    ) -> Result<LaunchSpec, TraceError> {
        let table = l.span();
        let mut k = self.launch_keys(l)?;
        let l = l.get_ref();
        if let Some(name) = &l.isa {
            if let Some(why) = frontend::unsupported_isa(k.isa) {
                return Err(self.src.unsupported(&name.span(), why));
            }
        }
        let binary = self.binary_kernel(l, &mut k)?;
        let mut consts = Vec::new();
        for c in &l.consts {
            let data = self.const_table(c, &consts, "[[launch.const]]")?;
            consts.push(data);
        }
        let params = self.params(l, binary.as_deref(), &consts)?;
        let (program, program_path, source) =
            self.program(l, &table, k.isa, k.registers, k.kernel.as_deref(), programs)?;
        self.apply_interface(l, &table, &program, &mut k, bound)?;
        self.check_cooperative(l, &program, &k)?;
        Ok(LaunchSpec {
            consts,
            params,
            index,
            isa: k.isa,
            program,
            program_path,
            kernel: k.kernel,
            grid: k.grid,
            block: k.block,
            block_given: k.block_given,
            invocations: k.invocations,
            pixels: k.pixels,
            mode: k.mode,
            registers: k.registers,
            shared_bytes: k.shared_bytes,
            local_bytes: k.local_bytes,
            budget: k.budget,
            cooperative: k.cooperative,
            inputs: k.inputs,
            expect_outputs: k.expect_outputs,
            line: self.line(&table),
            source,
            binary,
        })
    }

    /// A cooperative launch's CTAs must all fit on the device at once (CUDA refuses a larger
    /// cooperative launch): its grid may have at most [`CtaShape::resident`] CTAs.
    fn check_cooperative(
        &self,
        l: &RawLaunch,
        program: &Program,
        k: &LaunchKeys,
    ) -> Result<(), TraceError> {
        let Some(c) = l.cooperative.as_ref().filter(|c| *c.get_ref()) else {
            return Ok(());
        };
        let shape = CtaShape {
            threads: k.block.iter().map(|&b| b as u64).product(),
            registers: program.registers,
            shared_bytes: k.shared_bytes,
            local_bytes: k.local_bytes.unwrap_or(0),
        };
        let ctas: u64 = k.grid.iter().map(|&g| g as u64).product();
        let resident = shape.resident();
        if ctas > resident {
            let per_sm = shape.per_sm();
            return Err(self.invalid(
                &c.span(),
                format!(
                    "a cooperative launch's CTAs must all be resident at once: this grid has \
                     {ctas} CTAs, and the device (16 SMs of a GTX 980) holds {resident} of \
                     these ({per_sm} per SM: {} threads, {} registers per thread, {:#x} bytes \
                     of shared memory and {:#x} of local memory per thread each)",
                    shape.threads, shape.registers, shape.shared_bytes, shape.local_bytes
                ),
            ));
        }
        Ok(())
    }

    /// A cubin kernel's parameters must be in the trace: bank 0's data (the trace's `[[const]]`,
    /// the launch's `[[launch.const]]` or `params`) covers every byte of
    /// `[param_offset, param_offset + param_bytes)`.
    pub(super) fn check_params(
        &self,
        spec: &crate::tracefile::LaunchSpec,
        l: &Spanned<RawLaunch>,
        consts: &[crate::tracefile::ConstData],
    ) -> Result<(), TraceError> {
        let Some(b) = &spec.binary else { return Ok(()) };
        let Some(n) = b.param_bytes.filter(|&n| n > 0) else {
            return Ok(());
        };
        let start = b.param_offset;
        let covered = |a: u32| {
            consts
                .iter()
                .chain(&spec.consts)
                .chain(&spec.params)
                .any(|c| c.bank == 0 && c.offset <= a && a - c.offset < c.bytes.len() as u32)
        };
        if let Some(missing) = (start..start.saturating_add(n)).find(|&a| !covered(a)) {
            let span = l
                .get_ref()
                .code_file
                .as_ref()
                .map_or(l.span(), |f| f.span());
            return Err(self.invalid(
                &span,
                format!(
                    "kernel `{}` reads {n:#x} bytes of parameters at c[0x0][{start:#x}..{:#x}], \
                     but no constant data of bank 0 ([[const]], [[launch.const]] or `params`) \
                     gives c[0x0][{missing:#x}]",
                    b.name,
                    start + n
                ),
            ));
        }
        Ok(())
    }

    /// `params = [...]`: a cubin kernel's arguments laid out by its parameter table
    /// ([`crate::params::layout_params`]) as constant data of bank 0 for this launch. An error
    /// at the list for a launch whose program is not a cubin, a count that is not the kernel's,
    /// or bytes that a `[[launch.const]]` of the launch also gives; at a value that does not fit
    /// its parameter.
    fn params(
        &self,
        l: &RawLaunch,
        binary: Option<&frontend::BinaryKernel>,
        consts: &[crate::tracefile::ConstData],
    ) -> Result<Option<crate::tracefile::ConstData>, TraceError> {
        let Some(list) = &l.params else {
            return Ok(None);
        };
        let span = list.span();
        let Some(b) = binary else {
            return Err(self.invalid(
                &span,
                "`params` lays out a cubin kernel's arguments by its parameter table, and this \
                 launch's program is not a cubin: give a listing's parameters with \
                 [[launch.const]] (bank 0, offset 0x140)",
            ));
        };
        let Some(table) = &b.param_table else {
            return Err(self.invalid(
                &span,
                format!(
                    "the cubin gives kernel `{}` {} bytes of parameters but no table of them \
                     (EIATTR_KPARAM_INFO): give them with [[launch.const]] (bank 0, offset {:#x})",
                    b.name,
                    b.param_bytes.unwrap_or(0),
                    b.param_offset
                ),
            ));
        };
        let values = list
            .get_ref()
            .iter()
            .enumerate()
            .map(|(i, v)| self.param_value(v, table.params.get(i).map(|p| p.size)))
            .collect::<Result<Vec<_>, _>>()?;
        let block = crate::params::layout_params(table, &values).map_err(|e| {
            let at = e
                .index
                .and_then(|i| list.get_ref().get(i))
                .map_or(span.clone(), |v| v.span());
            self.invalid(&at, format!("kernel `{}`: {}", b.name, e.message))
        })?;
        let (start, end) = (table.offset, table.offset + block.len() as u32);
        if let Some(o) = consts
            .iter()
            .find(|o| o.bank == 0 && o.offset < end && start < o.offset + o.bytes.len() as u32)
        {
            return Err(self.invalid(
                &span,
                format!(
                    "`params` fills c[0x0][{start:#x}..{end:#x}], which the [[launch.const]] at \
                     line {} also gives (c[0x0][{:#x}..{:#x}])",
                    o.line,
                    o.offset,
                    o.offset as u64 + o.bytes.len() as u64
                ),
            ));
        }
        Ok(Some(crate::tracefile::ConstData {
            bank: 0,
            offset: start,
            bytes: block,
            line: self.line(&span),
        }))
    }

    /// One element of `params` as a [`ParamValue`](crate::params::ParamValue); `size` is its
    /// parameter's (if the kernel has that many), which decides a bare float's precision (a
    /// 4-byte parameter takes the binary32 nearest to the text as written).
    fn param_value(
        &self,
        v: &Spanned<RawParam>,
        size: Option<u32>,
    ) -> Result<crate::params::ParamValue, TraceError> {
        use crate::params::ParamValue as P;
        const TYPES: [&str; 12] = [
            "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "ptr", "bytes",
        ];
        let span = v.span();
        let string = |s: &str, at: &Range<usize>| {
            crate::tracefile::schema::parse_u64(s).ok_or_else(|| {
                self.invalid(
                    at,
                    format!(
                        "invalid 64-bit value {s:?}: expected a decimal or 0x hexadecimal \
                         integer from 0 to 0xffff_ffff_ffff_ffff (`_` allowed between digits)"
                    ),
                )
            })
        };
        match v.get_ref() {
            RawParam::Int(i) => Ok(P::Int(i128::from(*i))),
            RawParam::Float(f) => Ok(match size {
                Some(4) => P::F32(self.float_at(&span, *f)),
                Some(8) => P::F64(*f),
                _ => P::Float(*f),
            }),
            RawParam::Str(s) => Ok(P::Int(i128::from(string(s, &span)?))),
            RawParam::Typed { key, value } => {
                let at = value.span();
                let integer = |min: i128, max: i128| -> Result<i128, TraceError> {
                    let n = match value.get_ref() {
                        toml::Value::Integer(i) => i128::from(*i),
                        toml::Value::String(s) => i128::from(string(s, &at)?),
                        _ => {
                            return Err(self.invalid(
                                &at,
                                format!("a `{key}` is an integer (or a string holding one)"),
                            ))
                        }
                    };
                    if n < min || n > max {
                        return Err(self.invalid(
                            &at,
                            format!("{n} is out of range for a `{key}` ({min} to {max})"),
                        ));
                    }
                    Ok(n)
                };
                let float = || -> Result<f64, TraceError> {
                    match value.get_ref() {
                        toml::Value::Float(f) => Ok(*f),
                        toml::Value::Integer(i) => Ok(*i as f64),
                        _ => Err(self.invalid(&at, format!("a `{key}` is a number"))),
                    }
                };
                Ok(match key.as_str() {
                    "u8" => P::U8(integer(0, u8::MAX.into())? as u8),
                    "i8" => P::I8(integer(i8::MIN.into(), i8::MAX.into())? as i8),
                    "u16" => P::U16(integer(0, u16::MAX.into())? as u16),
                    "i16" => P::I16(integer(i16::MIN.into(), i16::MAX.into())? as i16),
                    "u32" => P::U32(integer(0, u32::MAX.into())? as u32),
                    "i32" => P::I32(integer(i32::MIN.into(), i32::MAX.into())? as i32),
                    "u64" => P::U64(integer(0, u64::MAX.into())? as u64),
                    "i64" => P::I64(integer(i64::MIN.into(), i64::MAX.into())? as i64),
                    "ptr" => P::Ptr(integer(0, u64::MAX.into())? as u64),
                    "f32" => P::F32(self.float_at(&at, float()?)),
                    "f64" => P::F64(float()?),
                    "bytes" => {
                        let toml::Value::Array(items) = value.get_ref() else {
                            return Err(self.invalid(&at, "`bytes` is an array of bytes: [1, 2]"));
                        };
                        let bytes = items
                            .iter()
                            .map(|b| match b {
                                toml::Value::Integer(i) => u8::try_from(*i).ok(),
                                _ => None,
                            })
                            .collect::<Option<Vec<u8>>>()
                            .ok_or_else(|| {
                                self.invalid(&at, "`bytes` holds integers from 0 to 255")
                            })?;
                        P::Bytes(bytes)
                    }
                    other => {
                        let mut d = self.src.at(
                            &span,
                            format!(
                                "unknown parameter type `{other}`: expected one of {}",
                                TYPES.join(", ")
                            ),
                        );
                        d.notes
                            .extend(crate::diag::did_you_mean(other, TYPES.iter().copied()));
                        return Err(TraceError::Invalid(d));
                    }
                })
            }
        }
    }

    /// For a cubin `code_file`: what its kernel gives the launch, with the launch's keys
    /// defaulted from it (`registers`, `shared_bytes`, `local_bytes`) and checked against it (a
    /// `shared_bytes` below the kernel's static shared memory is an error).
    fn binary_kernel(
        &self,
        l: &RawLaunch,
        k: &mut LaunchKeys,
    ) -> Result<Option<Arc<frontend::BinaryKernel>>, TraceError> {
        if self.code_file_content(l)? != Some(Content::Elf) {
            return Ok(None);
        }
        let Some(file) = &l.code_file else {
            return Ok(None);
        };
        let side = self.side_file(file)?;
        let bytes = files::read_side(&side, MAX_PROGRAM_BYTES, "a code_file")
            .map_err(|message| self.invalid(&file.span(), message))?;
        let path = side.shown;
        let b = match frontend::binary_kernel(&bytes, &path, k.kernel.as_deref()) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(d) => return Err(self.kernel_error(l, &d).unwrap_or(TraceError::Program(d))),
        };
        if l.registers.is_none() {
            k.registers = b.registers.clamp(1, 255);
        }
        match &l.shared_bytes {
            None => k.shared_bytes = b.shared_bytes,
            Some(given) if k.shared_bytes < b.shared_bytes => {
                return Err(self.invalid(
                    &given.span(),
                    format!(
                        "shared_bytes = {:#x}, but kernel `{}` declares {:#x} bytes of static \
                         shared memory (.nv.shared.{})",
                        k.shared_bytes, b.name, b.shared_bytes, b.name
                    ),
                ))
            }
            Some(_) => {}
        }
        if l.local_bytes.is_none() && b.local_bytes > 0 {
            k.local_bytes = Some(b.local_bytes.min(MAX_LOCAL_BYTES));
        }
        Ok(Some(Arc::new(b)))
    }

    /// What the program asks of the launch (see [`crate::ir::Interface`]): its thread-group
    /// shape is the block (a `block` key must agree), its shared memory the least `shared_bytes`,
    /// and every view it declares must fit what the trace binds to that slot (a view with nothing
    /// bound reads 0).
    fn apply_interface(
        &self,
        l: &RawLaunch,
        table: &Range<usize>,
        program: &Program,
        k: &mut LaunchKeys,
        bound: Bound<'_>,
    ) -> Result<(), TraceError> {
        let Bound {
            textures,
            buffers,
            samplers,
        } = bound;
        let code_span = l
            .code
            .as_ref()
            .map(|c| c.span())
            .or_else(|| l.code_file.as_ref().map(|c| c.span()))
            .unwrap_or_else(|| table.clone());
        let iface = &program.interface;
        if k.isa == Isa::Dxbc {
            // DXBC programs address cb0 to cb13 and the invocation count bank: every bank.
            k.mode = BankMode::Graphics;
        }
        match (iface.invocations, k.invocations) {
            (Some(io), Some(n)) => {
                if let (Some(_), None) = (k.pixels, io.live) {
                    let span = l.pixels.as_ref().map_or(table.clone(), |s| s.span());
                    return Err(self.invalid(
                        &span,
                        "`pixels` is a pixel shader's rectangle; a vertex or geometry shader runs \
                         `invocations`",
                    ));
                }
                // A pixel shader's quads add helper lanes.
                let lanes = match io.live {
                    Some(_) => crate::tracefile::QuadLayout {
                        pixels: k.pixels,
                        invocations: n,
                    }
                    .slots(),
                    None => n,
                };
                k.grid = [lanes.div_ceil(32).max(1), 1, 1];
                k.block = [32, 1, 1];
                let tables = k
                    .inputs
                    .iter()
                    .map(|r| (r, "[[launch.input]]", "v", io.inputs, io.vertices_in));
                let outs = k.expect_outputs.iter().map(|r| {
                    (
                        r,
                        "[[launch.expect_output]]",
                        "o",
                        io.outputs,
                        io.vertices_out,
                    )
                });
                for (r, table, reg, have, per) in tables.chain(outs) {
                    let records = r.invocations();
                    if records > n as u64 * per as u64 {
                        return Err(self.invalid(
                            &r.data_span,
                            if per == 1 {
                                format!(
                                    "the data covers {records} invocations, more than the launch's {n}"
                                )
                            } else {
                                format!(
                                    "the data covers {records} vertices, more than the launch's {n} \
                                     invocations × {per} ({reg}# is 4 words a vertex)"
                                )
                            },
                        ));
                    }
                    let output = reg == "o";
                    let named = iface.named_io.iter().filter(|x| x.output == output).count();
                    // A pixel shader's hidden input slot is no register.
                    let hidden = u32::from(!output && io.live.is_some());
                    let have = have - named as u32 - hidden;
                    match r.name {
                        Some(name) if !iface.named_io.iter().any(|x| x.name == name) => {
                            return Err(self.invalid(
                                &r.span,
                                format!("{table} names {name}, but the program does not declare it"),
                            ))
                        }
                        None if r.reg >= have => {
                            return Err(self.invalid(
                                &r.span,
                                format!(
                                    "{table} names {reg}{}, but the program declares {have} {reg}# registers",
                                    r.reg
                                ),
                            ))
                        }
                        _ => {}
                    }
                }
                // Special registers take the slots the program gives them.
                for r in k.inputs.iter_mut().chain(k.expect_outputs.iter_mut()) {
                    if let Some(name) = r.name {
                        if let Some(x) = iface.named_io.iter().find(|x| x.name == name) {
                            r.reg = x.slot;
                        }
                    }
                }
            }
            (Some(_), None) => return Err(self.invalid(
                table,
                "a vertex, geometry or pixel shader launch needs `invocations` (how many to run; \
                 a pixel shader may give `pixels = [width, height]` instead)",
            )),
            (None, Some(_)) => {
                let (span, key) = match (&l.invocations, &l.pixels) {
                    (Some(s), _) => (s.span(), "invocations"),
                    (None, Some(s)) => (s.span(), "pixels"),
                    (None, None) => (table.clone(), "invocations"),
                };
                return Err(self.invalid(
                    &span,
                    format!(
                        "`{key}` is for vertex, geometry and pixel shaders; a compute shader runs \
                         `grid` thread groups"
                    ),
                ));
            }
            (None, None) => {}
        }
        if let Some(b) = iface.block {
            if k.block_given && k.block != b {
                let span = l.block.as_ref().map_or(table.clone(), |s| s.span());
                return Err(self.invalid(
                    &span,
                    format!(
                        "block = {:?}, but the program's dcl_thread_group is {b:?}: leave `block` \
                         out or make them agree",
                        k.block
                    ),
                ));
            }
            let threads: u64 = b.iter().map(|&v| v as u64).product();
            if threads == 0
                || threads > MAX_THREADS_PER_CTA
                || b.iter().zip(MAX_BLOCK).any(|(v, m)| *v > m)
            {
                return Err(self.invalid(
                    &code_span,
                    format!("the program's dcl_thread_group {b:?} is not a valid thread group (at most {MAX_THREADS_PER_CTA} threads)"),
                ));
            }
            k.block = b;
        }
        if iface.tgsm_bytes > k.shared_bytes {
            match &l.shared_bytes {
                Some(s) => {
                    return Err(self.invalid(
                        &s.span(),
                        format!(
                            "shared_bytes = {}, but the program's g# declarations take {} bytes",
                            k.shared_bytes, iface.tgsm_bytes
                        ),
                    ))
                }
                None if iface.tgsm_bytes > MAX_SHARED_BYTES => {
                    return Err(self.invalid(
                        &code_span,
                        format!(
                        "the program's g# declarations take {} bytes, more than {MAX_SHARED_BYTES}",
                        iface.tgsm_bytes
                    ),
                    ))
                }
                None => k.shared_bytes = iface.tgsm_bytes,
            }
        }
        // The threads' x# arrays follow the g# ranges (the lowering keeps them in the window).
        k.shared_bytes = k.shared_bytes.max(iface.shared_bytes);
        for decl in &iface.views {
            let (view, slot, reg) = match decl.view {
                crate::ir::View::Srv(s) => (View::Srv, s as u32, "t"),
                crate::ir::View::Uav(s) => (View::Uav, s as u32, "u"),
                crate::ir::View::Tgsm { .. }
                | crate::ir::View::Temp { .. }
                | crate::ir::View::Cb { .. }
                | crate::ir::View::Input
                | crate::ir::View::Output => continue,
            };
            let bound_tex = textures.iter().find(|t| t.view == view && t.slot == slot);
            let bound_buf = buffers.iter().find(|b| b.view == view && b.slot == slot);
            let problem = match (decl.kind, bound_tex, bound_buf) {
                (_, None, None) => None,
                (ViewKind::Structured(s), _, Some(b)) => match b.kind {
                    BufferKind::Structured { stride } if stride == s => None,
                    BufferKind::Structured { stride } => Some(format!(
                        "is declared with stride {s}, but the [[buffer]] at line {} has stride {stride}",
                        b.line
                    )),
                    _ => Some(format!(
                        "is a structured buffer, but the [[buffer]] at line {} is not (give it `stride = {s}`)",
                        b.line
                    )),
                },
                (ViewKind::Raw, _, Some(b)) => match b.kind {
                    BufferKind::Raw => None,
                    _ => Some(format!(
                        "is a raw buffer, but the [[buffer]] at line {} has a stride or format",
                        b.line
                    )),
                },
                (ViewKind::TypedBuffer, _, Some(b)) => match b.kind {
                    BufferKind::Typed { .. } => None,
                    _ => Some(format!(
                        "is a typed buffer, but the [[buffer]] at line {} has no `format`",
                        b.line
                    )),
                },
                (ViewKind::Texture { dim, samples }, Some(t), _) => {
                    let want = match dim {
                        TextureKind::Tex1d => TextureDim::Tex1d,
                        TextureKind::Tex1dArray => TextureDim::Tex1dArray,
                        TextureKind::Tex2d => TextureDim::Tex2d,
                        TextureKind::Tex2dArray => TextureDim::Tex2dArray,
                        TextureKind::Tex2dMs => TextureDim::Ms2d,
                        TextureKind::Tex2dMsArray => TextureDim::Ms2dArray,
                        TextureKind::Tex3d => TextureDim::Tex3d,
                        TextureKind::Cube => TextureDim::Cube,
                        TextureKind::CubeArray => TextureDim::CubeArray,
                    };
                    if want != t.dim {
                        Some(format!(
                            "is declared as a \"{}\" texture, but the [[texture]] at line {} is \"{}\"",
                            want.name(),
                            t.line,
                            t.dim.name()
                        ))
                    } else if samples != 0 && samples != t.samples {
                        Some(format!(
                            "is declared with {samples} samples, but the [[texture]] at line {} has {}",
                            t.line, t.samples
                        ))
                    } else {
                        None
                    }
                }
                (ViewKind::Texture { .. }, None, Some(b)) => Some(format!(
                    "is declared as a texture, but a [[buffer]] is bound there (line {})",
                    b.line
                )),
                (_, Some(t), None) => Some(format!(
                    "is declared as a buffer, but a [[texture]] is bound there (line {})",
                    t.line
                )),
            };
            if let Some(p) = problem {
                return Err(self.invalid(&code_span, format!("the program's {reg}{slot} {p}")));
            }
        }
        for decl in &iface.samplers {
            let Some(s) = samplers.iter().find(|s| s.slot == decl.slot as u32) else {
                continue;
            };
            let comparison = s.state.reduction == warpjit_runtime::sampler::Reduction::Comparison;
            if comparison != decl.comparison {
                let (declared, bound) = if decl.comparison {
                    ("mode_comparison", "has no COMPARISON_ filter")
                } else {
                    ("mode_default", "has a COMPARISON_ filter")
                };
                return Err(self.invalid(
                    &code_span,
                    format!(
                        "the program's s{} is declared {declared}, but the [[sampler]] at line {} \
                         {bound}",
                        decl.slot, s.line
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every key of a launch but its program, validated.
    pub(super) fn launch_keys(&self, l: &Spanned<RawLaunch>) -> Result<LaunchKeys, TraceError> {
        let table = l.span();
        let l = l.get_ref();
        let isa = self.isa(l)?;
        let kernel = self.kernel(l)?;
        let grid = self.dims(&l.grid, "grid", [1, 1, 1], MAX_GRID)?;
        let block = self.dims(&l.block, "block", [32, 1, 1], MAX_BLOCK)?;
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        if threads > MAX_THREADS_PER_CTA {
            let span = l.block.as_ref().map_or(table.clone(), |b| b.span());
            return Err(self.invalid(
                &span,
                format!("block has {threads} threads: a CTA has at most {MAX_THREADS_PER_CTA}"),
            ));
        }
        // The grid is bounded by its dimensions alone (CUDA's): the launch budget bounds the
        // work (semantics §11).
        let (invocations, pixels) = self.invocations(l, isa)?;
        let inputs = self.reg_tables(&l.input, isa, invocations, RegTable::Input)?;
        let expect_outputs =
            self.reg_tables(&l.expect_output, isa, invocations, RegTable::ExpectOutput)?;
        let mode = match &l.mode {
            None => BankMode::Compute,
            Some(m) => match m.get_ref().as_str() {
                "compute" => BankMode::Compute,
                "graphics" => BankMode::Graphics,
                other => {
                    return Err(self.invalid(
                        &m.span(),
                        format!("unknown mode {other:?}: expected \"compute\" or \"graphics\""),
                    ))
                }
            },
        };
        let registers = match &l.registers {
            None => 255,
            Some(r) => {
                let (n, span) = sp(r);
                if !(1..=255).contains(&n) {
                    return Err(self.invalid(&span, format!("registers = {n}: expected 1 to 255")));
                }
                n
            }
        };
        let shared_bytes = match &l.shared_bytes {
            None => 0,
            Some(s) => {
                let (n, span) = sp(s);
                if n > MAX_SHARED_BYTES {
                    return Err(self.invalid(
                        &span,
                        format!("shared_bytes = {n:#x} is larger than the 16 MiB shared window ({MAX_SHARED_BYTES:#x})"),
                    ));
                }
                n
            }
        };
        let local_bytes = match &l.local_bytes {
            None => None,
            Some(s) => {
                let (n, span) = sp(s);
                if isa == Isa::Dxbc {
                    return Err(self.invalid(
                        &span,
                        "`local_bytes` gives SASS local memory; a DXBC program has none (its \
                         indexable temps x# are sized by dcl_indexableTemp)",
                    ));
                }
                if n > MAX_LOCAL_BYTES {
                    return Err(self.invalid(
                        &span,
                        format!("local_bytes = {n:#x} is more than {MAX_LOCAL_BYTES:#x} (512 KiB, Maxwell's local memory per thread)"),
                    ));
                }
                Some(n)
            }
        };
        let budget = match &l.budget {
            None => DEFAULT_BUDGET,
            Some(b) => {
                let (n, span) = sp64(b);
                if n == 0 {
                    return Err(self.invalid(&span, "budget must be at least 1 warp instruction"));
                }
                n
            }
        };
        let cooperative = match &l.cooperative {
            Some(c) if *c.get_ref() && isa == Isa::Dxbc => {
                return Err(self.invalid(
                    &c.span(),
                    "`cooperative` launches are CUDA's: a DXBC program cannot have one",
                ));
            }
            Some(c) => *c.get_ref(),
            None => false,
        };
        Ok(LaunchKeys {
            isa,
            kernel,
            grid,
            block,
            block_given: l.block.is_some(),
            invocations,
            pixels,
            mode,
            registers,
            shared_bytes,
            local_bytes,
            budget,
            cooperative,
            inputs,
            expect_outputs,
        })
    }

    /// What a launch's `code_file` is, by its first bytes (`None` for inline `code`, or when
    /// both keys are given: [`Loader::assemble`] reports that).
    fn code_file_content(&self, l: &RawLaunch) -> Result<Option<Content>, TraceError> {
        let (None, Some(file)) = (&l.code, &l.code_file) else {
            return Ok(None);
        };
        let side = self.side_file(file)?;
        let (f, _) = files::open_side(&side).map_err(|m| self.invalid(&file.span(), m))?;
        let mut magic = Vec::with_capacity(4);
        f.take(4).read_to_end(&mut magic).map_err(|e| {
            self.invalid(
                &file.span(),
                format!("cannot read {}: {e}", side.shown.display()),
            )
        })?;
        Ok(Some(Content::of(&magic)))
    }

    /// The launch's ISA: the `isa` key (default `"sass"`), or what a binary `code_file` is, with
    /// which the key must agree.
    fn isa(&self, l: &RawLaunch) -> Result<Isa, TraceError> {
        let named = match &l.isa {
            None => None,
            Some(name) => match frontend::isa_named(name.get_ref()) {
                Some(isa) => Some((isa, name)),
                None => {
                    let mut d = self.src.at(
                        &name.span(),
                        format!(
                            "unknown isa {:?}: expected \"sass\" or \"dxbc\"",
                            name.get_ref()
                        ),
                    );
                    d.notes.extend(crate::diag::did_you_mean(
                        name.get_ref(),
                        frontend::ISA_NAMES.iter().copied(),
                    ));
                    return Err(TraceError::Invalid(d));
                }
            },
        };
        let binary = match self.code_file_content(l)? {
            Some(Content::Elf) => Some((Isa::Sass, "a CUDA cubin (SASS)")),
            Some(Content::DxbcContainer) => Some((Isa::Dxbc, "a DXBC container")),
            Some(Content::Text) | None => None,
        };
        match (named, binary) {
            (Some((isa, name)), Some((is, what))) if isa != is => Err(self.invalid(
                &name.span(),
                format!(
                    "isa = {:?}, but the code_file {:?} is {what}",
                    name.get_ref(),
                    l.code_file.as_ref().map_or("", |f| f.get_ref().as_str())
                ),
            )),
            (Some((isa, _)), _) | (None, Some((isa, _))) => Ok(isa),
            (None, None) => Ok(Isa::Sass),
        }
    }

    /// `kernel`: only with a cubin `code_file`; not empty.
    fn kernel(&self, l: &RawLaunch) -> Result<Option<String>, TraceError> {
        let Some(k) = &l.kernel else { return Ok(None) };
        let name = k.get_ref();
        if name.is_empty() {
            return Err(self.invalid(&k.span(), "`kernel` is empty: name the cubin's entry"));
        }
        // A cubin, or a listing NVIDIA's tools printed, may hold several kernels: the front-end
        // picks this one, or says why it cannot.
        Ok(Some(name.clone()))
    }

    /// `invocations` or `pixels` (a pixel shader's rectangle, giving width × height
    /// invocations): only for DXBC, not together, and not with `grid` or `block`.
    fn invocations(
        &self,
        l: &RawLaunch,
        isa: Isa,
    ) -> Result<(Option<u32>, Option<[u32; 2]>), TraceError> {
        if let Some(p) = &l.pixels {
            if let Some(inv) = &l.invocations {
                return Err(self.invalid(
                    &inv.span(),
                    "`invocations` conflicts with `pixels` (a pixel shader's rectangle of \
                     width × height invocations): give one or the other",
                ));
            }
            if isa != Isa::Dxbc {
                return Err(self.invalid(
                    &p.span(),
                    "`pixels` is a DXBC pixel shader's rectangle; a SASS launch runs grid × block \
                     threads",
                ));
            }
            for (key, given) in [("grid", &l.grid), ("block", &l.block)] {
                if given.is_some() {
                    return Err(self.invalid(
                        &p.span(),
                        format!(
                            "`pixels` (a pixel shader launch) conflicts with `{key}` (a cs \
                             launch's thread groups): give one or the other"
                        ),
                    ));
                }
            }
            let v = p.get_ref();
            if v.len() != 2 {
                return Err(self.invalid(
                    &p.span(),
                    format!("pixels has {} values: expected [width, height]", v.len()),
                ));
            }
            let mut wh = [0; 2];
            for (k, x) in v.iter().enumerate() {
                let (n, span) = sp(x);
                if !(1..=16384).contains(&n) {
                    return Err(self.invalid(
                        &span,
                        format!(
                            "a pixel rectangle's {} is 1 to 16384, not {n}",
                            ["width", "height"][k]
                        ),
                    ));
                }
                wh[k] = n;
            }
            return Ok((Some(wh[0] * wh[1]), Some(wh)));
        }
        let Some(inv) = &l.invocations else {
            return Ok((None, None));
        };
        let (n, span) = sp(inv);
        if isa != Isa::Dxbc {
            return Err(self.invalid(
                &span,
                "`invocations` counts DXBC vs/gs/ps invocations; a SASS launch runs grid × block threads",
            ));
        }
        for (key, given) in [("grid", &l.grid), ("block", &l.block)] {
            if given.is_some() {
                return Err(self.invalid(
                    &span,
                    format!(
                        "`invocations` (a vs/gs/ps launch) conflicts with `{key}` (a cs launch's \
                         thread groups): give one or the other"
                    ),
                ));
            }
        }
        if n as u64 > MAX_LAUNCH_THREADS {
            return Err(self.invalid(
                &span,
                format!("invocations = {n}: a launch has at most {MAX_LAUNCH_THREADS} (2^30)"),
            ));
        }
        Ok((Some(n), None))
    }

    /// `[[launch.input]]` or `[[launch.expect_output]]` tables: DXBC only, with `invocations`;
    /// `reg` 0 to 31 and unique; the data whole invocations (16 bytes each), at most
    /// `invocations` of them (an expectation at least one).
    fn reg_tables(
        &self,
        tables: &[Spanned<RawRegData>],
        isa: Isa,
        invocations: Option<u32>,
        kind: RegTable,
    ) -> Result<Vec<RegData>, TraceError> {
        let (name, file) = match kind {
            RegTable::Input => ("[[launch.input]]", 'v'),
            RegTable::ExpectOutput => ("[[launch.expect_output]]", 'o'),
        };
        let mut out: Vec<RegData> = Vec::new();
        for (index, r) in tables.iter().enumerate() {
            if isa != Isa::Dxbc {
                return Err(self.invalid(
                    &r.span(),
                    format!(
                        "{name} is for the {file}# registers of DXBC vs/gs/ps invocations; a SASS \
                         launch has none"
                    ),
                ));
            }
            if invocations.is_none() {
                return Err(self.invalid(
                    &r.span(),
                    format!(
                        "{name} needs the launch's `invocations` (its data is 4 words per \
                         invocation)"
                    ),
                ));
            }
            let span = r.get_ref().reg.span();
            let (reg, special) = match r.get_ref().reg.get_ref() {
                RegName::Num(n) if *n >= 32 => {
                    return Err(self.invalid(&span, format!("reg {n} is out of range 0 to 31")))
                }
                RegName::Num(n) => (*n, None),
                RegName::Name(s) => {
                    let names = match kind {
                        RegTable::Input => SPECIAL_INPUTS,
                        RegTable::ExpectOutput => SPECIAL_OUTPUTS,
                    };
                    match names.iter().position(|n| n == s) {
                        // Named registers get numbers past the numbered ones until the program
                        // gives them their slots.
                        Some(i) => (32 + i as u32, Some(names[i])),
                        None => {
                            return Err(self.invalid(
                                &span,
                                format!(
                                    "{s:?} is not a register {name} can name: {file}0 to {file}31 \
                                     (a number) or one of {}",
                                    names.join(", ")
                                ),
                            ))
                        }
                    }
                }
            };
            let shown = special.map_or(format!("{file}{reg}"), str::to_string);
            if let Some(o) = out.iter().find(|o| o.reg == reg) {
                return Err(self.invalid(
                    &span,
                    format!("{shown} is already given by the {name} at line {}", o.line),
                ));
            }
            let Some((data, data_span)) = self.data(r.get_ref().data())? else {
                return Err(self.invalid(
                    &r.span(),
                    format!("{name} needs one of the data keys u32, i32, f32, u8, file"),
                ));
            };
            let len = data.byte_len();
            if len % 16 != 0 {
                return Err(self.invalid(
                    &data_span,
                    format!(
                        "the data is {len} bytes, not a whole number of invocations: {shown} \
                         is 4 words (x, y, z, w, 16 bytes) per invocation"
                    ),
                ));
            }
            // How many records fit is checked once the program is known (a geometry shader has
            // several an invocation).
            if len == 0 && kind == RegTable::ExpectOutput {
                return Err(self.invalid(
                    &data_span,
                    "the expected data is empty: an expectation must check at least one invocation",
                ));
            }
            out.push(RegData {
                index,
                reg,
                name: special,
                data,
                line: self.line(&r.span()),
                span,
                data_span,
            });
        }
        Ok(out)
    }

    /// Assembles a launch's program from `code` or `code_file`.
    /// The same text with the same `registers` is assembled once; the distinct texts may hold
    /// [`MAX_PROGRAM_BYTES`] in all (an assembled program takes about 100 times its text's size).
    pub(super) fn program(
        &self,
        l: &RawLaunch,
        table: &Range<usize>,
        isa: Isa,
        registers: u32,
        kernel: Option<&str>,
        programs: &mut Programs,
    ) -> Result<Made, TraceError> {
        let kernel_key = kernel.map(str::to_string);
        let data = l.module_data.as_ref().map(|m| sp64(m).0);
        let key = match (&l.code, &l.code_file) {
            (Some(code), None) => Some((
                false,
                code.get_ref().clone(),
                isa,
                registers,
                kernel_key,
                data,
            )),
            (None, Some(file)) => Some((
                true,
                file.get_ref().clone(),
                isa,
                registers,
                kernel_key,
                data,
            )),
            _ => None,
        };
        if let Some(p) = key.as_ref().and_then(|k| programs.done.get(k)) {
            return Ok(p.clone());
        }
        let mut count = |len: usize, span: &Range<usize>| {
            programs.bytes += len as u64;
            if programs.bytes > MAX_PROGRAM_BYTES {
                return Err(self.invalid(
                    span,
                    format!(
                        "the trace's programs hold more than {MAX_PROGRAM_BYTES} bytes ({} MiB) of \
                         text",
                        MAX_PROGRAM_BYTES >> 20
                    ),
                ));
            }
            Ok(())
        };
        let made = self.assemble(l, table, isa, registers, kernel, &mut count)?;
        if let Some(k) = key {
            programs.done.insert(k, made.clone());
        }
        Ok(made)
    }

    /// Reads (for `code_file`) and compiles a launch's program through the front-end boundary;
    /// `count` is told its size first.
    pub(super) fn assemble(
        &self,
        l: &RawLaunch,
        table: &Range<usize>,
        isa: Isa,
        registers: u32,
        kernel: Option<&str>,
        count: &mut impl FnMut(usize, &Range<usize>) -> Result<(), TraceError>,
    ) -> Result<Made, TraceError> {
        match (&l.code, &l.code_file) {
            (Some(a), Some(b)) => {
                let (first, second) = if a.span().start < b.span().start {
                    ("code", b.span())
                } else {
                    ("code_file", a.span())
                };
                let other = if first == "code" { "code_file" } else { "code" };
                Err(self.invalid(
                    &second,
                    format!(
                        "`{other}` conflicts with `{first}`: a launch takes exactly one of them"
                    ),
                ))
            }
            (None, None) => Err(self.invalid(
                table,
                "[[launch]] needs `code` (the program text) or `code_file`",
            )),
            (Some(code), None) => {
                if let Some(m) = &l.module_data {
                    return Err(self.invalid(
                        &m.span(),
                        "`module_data` places a cubin's `__device__` data: it needs a cubin \
                         `code_file`",
                    ));
                }
                count(code.get_ref().len(), &code.span())?;
                let opts = frontend::Options {
                    isa,
                    registers,
                    path: self.src.path.clone(),
                    kernel: kernel.map(str::to_string),
                };
                match frontend::compile(code.get_ref().as_bytes(), &opts) {
                    Ok(p) => {
                        let source = self.inline_lines(code, &p);
                        Ok((Arc::new(p), self.src.path.clone(), Arc::new(source)))
                    }
                    Err(d) => Err(self.kernel_error(l, &d).unwrap_or_else(|| {
                        TraceError::Program(self.inline_program_error(code, d))
                    })),
                }
            }
            (None, Some(file)) => {
                let side = self.side_file(file)?;
                let bytes = files::read_side(&side, MAX_PROGRAM_BYTES, "a code_file")
                    .map_err(|message| self.invalid(&file.span(), message))?;
                let path = side.shown;
                count(bytes.len(), &file.span())?;
                let opts = frontend::Options {
                    isa,
                    registers,
                    path: path.clone(),
                    kernel: kernel.map(str::to_string),
                };
                let module_data = l.module_data.as_ref().map(|m| sp64(m).0);
                if let (Some(m), false) = (&l.module_data, bytes.starts_with(b"\x7fELF")) {
                    return Err(self.invalid(
                        &m.span(),
                        "`module_data` places a cubin's `__device__` data: the code_file is not a \
                         cubin",
                    ));
                }
                match frontend::compile_placed(&bytes, &opts, module_data) {
                    Ok(c) => {
                        let (p, source) = file_lines(&path, &bytes, c);
                        Ok((Arc::new(p), path, Arc::new(source)))
                    }
                    Err(d) => Err(self.kernel_error(l, &d).unwrap_or(TraceError::Program(d))),
                }
            }
        }
    }

    /// A front-end error about the launch's `kernel` (no such kernel, or a program that has no
    /// kernels to choose from), pointed at the `kernel` key.
    fn kernel_error(&self, l: &RawLaunch, d: &Diagnostic) -> Option<TraceError> {
        let k = l.kernel.as_ref()?;
        (d.message.contains("`kernel")).then(|| self.invalid(&k.span(), d.message.clone()))
    }

    /// Where the instructions of a program from inline `code` are in the trace.
    fn inline_lines(&self, code: &Spanned<String>, p: &Program) -> SourceLines {
        let (span, value) = (code.span(), code.get_ref());
        let map = StringMap::new(&self.src.text, &span, value);
        let first = self.code_first_line(&span);
        // In source order, so that each position is found by walking on from the last one
        // (linear in the text however many instructions share a line).
        let mut order: Vec<(u32, SrcLoc)> = p.lines.clone();
        order.sort_by_key(|&(_, loc)| (loc.line, loc.col));
        let mut in_value = TextCursor::new(value, 0, (1, 1));
        let mut in_trace =
            TextCursor::new(&self.src.text, span.start, self.src.line_col(span.start));
        let mut at: Vec<(u32, u32, u32)> = order
            .iter()
            .map(|&(pc, loc)| {
                let (line, col) = match &map {
                    Some(m) => {
                        let v = in_value.offset_of(loc.line, loc.col);
                        in_trace.line_col(m.trace_offset(v))
                    }
                    None => (loc.line.saturating_add(first), loc.col),
                };
                (pc, line, col)
            })
            .collect();
        at.sort_by_key(|l| l.0);
        SourceLines::from_text_lines(self.src.path.clone(), at, |line| {
            self.src.line_text(line as usize - 1)
        })
    }

    /// Lines before the first line of an inline `code` value whose string form the decoder does
    /// not know: the literal's line, or the next one when a line break follows the opening
    /// quotes.
    fn code_first_line(&self, span: &Range<usize>) -> u32 {
        let raw = self.src.text.get(span.clone()).unwrap_or("");
        let after_quotes = raw.get(3..).unwrap_or("");
        let skip = (raw.starts_with("\"\"\"") || raw.starts_with("'''"))
            && (after_quotes.starts_with('\n') || after_quotes.starts_with("\r\n"));
        self.line(span) - 1 + u32::from(skip)
    }

    /// Points a front-end diagnostic about inline `code` at the trace: line and column of the
    /// trace file, the trace's line as the offending line, and notes' lines as trace lines.
    pub(super) fn inline_program_error(
        &self,
        code: &Spanned<String>,
        mut d: Diagnostic,
    ) -> Diagnostic {
        let span = code.span();
        let value = code.get_ref();
        d.path = self.src.path.clone();
        let Location::Text { line, col, .. } = d.location else {
            // A byte offset into inline text: point at the string.
            let (line, col) = self.src.line_col(span.start);
            d.location = Location::Text {
                line,
                col,
                line_text: self.src.line_text(line as usize - 1).to_string(),
            };
            return d;
        };
        if let Some(map) = StringMap::new(&self.src.text, &span, value) {
            let trace_line_col = |line: u32, col: u32| {
                self.src
                    .line_col(map.trace_offset(value_offset(value, line, col)))
            };
            let (tl, tc) = trace_line_col(line, col);
            d.location = Location::Text {
                line: tl,
                col: tc,
                line_text: self.src.line_text(tl as usize - 1).to_string(),
            };
            for n in &mut d.notes {
                n.line = n.line.map(|l| trace_line_col(l, 1).0);
            }
            return d;
        }
        // A literal form the decoder does not know: shift lines only.
        let first = self.code_first_line(&span);
        if let Location::Text { line, .. } = &mut d.location {
            *line = line.saturating_add(first);
        }
        for n in &mut d.notes {
            n.line = n.line.map(|l| l.saturating_add(first));
        }
        d
    }
}

/// Positions in a text visited in increasing order, each found by walking on from the last:
/// byte offsets of 1-based (line, character column) pairs, or the reverse.
struct TextCursor<'a> {
    text: &'a str,
    /// The byte offset reached, and its line and column.
    at: usize,
    line: u32,
    col: u32,
}

impl<'a> TextCursor<'a> {
    /// A cursor at byte `at` of `text`, which is at (line, column) `pos`.
    fn new(text: &'a str, at: usize, pos: (u32, u32)) -> Self {
        TextCursor {
            text,
            at: at.min(text.len()),
            line: pos.0,
            col: pos.1,
        }
    }

    /// Steps over one character (false at the end of the text).
    fn step(&mut self) -> bool {
        let Some(c) = self.text.get(self.at..).and_then(|r| r.chars().next()) else {
            return false;
        };
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        true
    }

    /// The byte offset of 1-based `line` and character `col` (clamped to the line's end; past
    /// the last line, the text's end), as `code::value_offset` gives it; at or after the last
    /// position asked.
    fn offset_of(&mut self, line: u32, col: u32) -> usize {
        if (line, col) < (self.line, self.col) {
            return value_offset(self.text, line, col);
        }
        while self.line < line {
            if !self.step() {
                return self.text.len();
            }
        }
        while self.col < col && !self.text[self.at..].starts_with('\n') && self.step() {}
        self.at
    }

    /// The 1-based line and character column of byte offset `to`, at or after the last one
    /// asked (else counted from the start of its line).
    fn line_col(&mut self, to: usize) -> (u32, u32) {
        if to < self.at {
            let start = self.text[..to].rfind('\n').map_or(0, |i| i + 1);
            let line = self.text[..to].matches('\n').count() as u32 + 1;
            return (line, self.text[start..to].chars().count() as u32 + 1);
        }
        while self.at < to && self.step() {}
        (self.line, self.col)
    }
}

/// Where the instructions of a program from a `code_file` are: its lines for a text; for a
/// binary, each instruction as `warpjit disasm` prints it (as the front-end handed it back).
fn file_lines(
    path: &std::path::Path,
    bytes: &[u8],
    c: frontend::Compiled,
) -> (Program, SourceLines) {
    let path = path.to_path_buf();
    let source = if Content::of(bytes) == Content::Text {
        let text = String::from_utf8_lossy(bytes);
        let text_lines: Vec<&str> = text.lines().collect();
        let at = c
            .program
            .lines
            .iter()
            .map(|&(pc, loc)| (pc, loc.line, loc.col));
        SourceLines::from_text_lines(path, at, |line| {
            text_lines.get(line as usize - 1).copied().unwrap_or("")
        })
    } else {
        SourceLines::from_instructions(path, c.texts)
    };
    (c.program, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracefile::error::Source;
    use crate::tracefile::schema::RawTrace;
    use crate::tracefile::Data;
    use std::path::Path;

    /// The keys of the first launch of `text` (a whole trace), its program not compiled: what a
    /// DXBC launch keeps, though DXBC programs do not compile yet.
    fn keys(text: &str) -> LaunchKeys {
        let raw: RawTrace = toml::from_str(text).expect("valid TOML");
        let loader = Loader {
            src: Source::new(Path::new("t.toml"), text.to_string()),
            side: crate::tracefile::files::Confinement::new(Path::new(""), &[]),
        };
        loader
            .launch_keys(&raw.launch[0])
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn dxbc_launches_keep_inputs_outputs_and_invocations() {
        let k = keys(
            "format = \"warpjit-trace/1\"\n[[launch]]\nisa = \"dxbc\"\ninvocations = 3\ncode = \"ps_5_0\"\n\
             [[launch.input]]\nreg = 2\nu32 = [1, 2, 3, 4, 5, 6, 7, 8]\n\
             [[launch.input]]\nreg = 0\nf32 = [1.5, 0, 0, 1]\n\
             [[launch.expect_output]]\nreg = 0\nu8 = [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]\n",
        );
        assert_eq!(k.isa, Isa::Dxbc);
        assert_eq!(k.invocations, Some(3));
        assert!(!k.block_given);
        assert_eq!(k.local_bytes, None);
        assert_eq!(k.inputs.len(), 2);
        let (a, b) = (&k.inputs[0], &k.inputs[1]);
        assert_eq!((a.index, a.reg, a.line, a.invocations()), (0, 2, 6, 2));
        assert_eq!(
            a.words().ok(),
            Some(vec![[1, 2, 3, 4], [5, 6, 7, 8]]),
            "invocation i's v#.xyzw are words 4i to 4i+3"
        );
        assert_eq!((b.index, b.reg, b.line), (1, 0, 9));
        assert_eq!(b.data, Data::F32(vec![1.5, 0.0, 0.0, 1.0]));
        assert_eq!(b.words().ok(), Some(vec![[0x3fc0_0000, 0, 0, 0x3f80_0000]]));
        let o = &k.expect_outputs[0];
        assert_eq!((o.index, o.reg, o.line, o.invocations()), (0, 0, 12, 1));
        assert_eq!(o.words().ok(), Some(vec![[1, 2, 3, 4]]));
    }

    #[test]
    fn dxbc_compute_launches_keep_grid_and_block() {
        let k = keys(
            "format = \"warpjit-trace/1\"\n[[launch]]\nisa = \"dxbc\"\ngrid = [4, 2]\nblock = [8, 8]\nshared_bytes = 64\ncode = \"cs_5_0\"\n",
        );
        assert_eq!(
            (
                k.isa,
                k.grid,
                k.block,
                k.block_given,
                k.shared_bytes,
                k.invocations
            ),
            (Isa::Dxbc, [4, 2, 1], [8, 8, 1], true, 64, None)
        );
        let k =
            keys("format = \"warpjit-trace/1\"\n[[launch]]\nisa = \"dxbc\"\ncode = \"cs_5_0\"\n");
        assert_eq!((k.block, k.block_given), ([32, 1, 1], false));
    }
}
