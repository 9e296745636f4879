//! The front-end boundary: program bytes (text or binary) plus options in, an [`ir::Program`] or
//! a located [`Diagnostic`] out.
//!
//! [`compile`] chooses the front-end by the launch's ISA and, for binary input, by its content:
//! an ELF file is a cubin (NVIDIA's compiled kernels), `DXBC` opens a Direct3D shader container,
//! anything else is program text: SASS ([`crate::sass`]) or a DXBC listing ([`crate::dxbc`]), as
//! the ISA says. A DXBC container or listing is read into the DXBC model and lowered
//! ([`crate::dxbc::lower`]); a cubin's kernel is decoded ([`crate::maxwell`]). Callers (the trace
//! loader) know no front-end: they hand over bytes and get a program or a diagnostic.
//!
//! Diagnostics point into the bytes given, with [`Options::path`] as their file: lines and
//! columns for text, byte offsets for binaries.

use crate::diag::Diagnostic;
use crate::dxbc;
use crate::ir::{self, Isa};
use crate::sass;
use std::path::PathBuf;

/// What a front-end needs besides the program's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The program's language (the trace's `isa`).
    pub isa: Isa,
    /// Registers the launch gives the program: `R0..R{registers-1}` are usable.
    pub registers: u32,
    /// The file the bytes come from, named in diagnostics.
    pub path: PathBuf,
    /// The kernel to take from a listing that holds several (NVIDIA tools' output) or from a
    /// cubin; `None` for a program that is one kernel.
    pub kernel: Option<String>,
}

/// The kind of input, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// An ELF file (`\x7fELF`): a cubin.
    Elf,
    /// A DXBC container (`DXBC`).
    DxbcContainer,
    /// Anything else: program text.
    Text,
}

impl Content {
    /// Tells the kind of `bytes` by their magic number.
    pub fn of(bytes: &[u8]) -> Content {
        if bytes.starts_with(b"\x7fELF") {
            Content::Elf
        } else if bytes.starts_with(b"DXBC") {
            Content::DxbcContainer
        } else {
            Content::Text
        }
    }
}

/// The ISA a trace's `isa` value names (`"sass"`, `"dxbc"`), if any.
pub fn isa_named(name: &str) -> Option<Isa> {
    match name {
        "sass" => Some(Isa::Sass),
        "dxbc" => Some(Isa::Dxbc),
        _ => None,
    }
}

/// The names [`isa_named`] knows, for messages.
pub const ISA_NAMES: &[&str] = &["sass", "dxbc"];

/// Why programs of `isa` cannot run yet, if they cannot (the loader points at the `isa` key).
pub fn unsupported_isa(isa: Isa) -> Option<&'static str> {
    match isa {
        Isa::Sass | Isa::Dxbc => None,
    }
}

/// A DXBC program (its model, and where its statements start in a listing) lowered, with
/// lowering errors located: at the statement's line in a listing, or naming the instruction in a
/// binary.
fn lower_dxbc(
    path: &std::path::Path,
    prog: &dxbc::ast::Program,
    locs: &[(u32, u32)],
    text: Option<&str>,
) -> Result<ir::Program, Diagnostic> {
    dxbc::lower::lower(prog, locs).map_err(|e| {
        let (line, col) = match e.stmt {
            Some(i) => locs.get(i).copied().unwrap_or((1, 1)),
            None => (1, 1),
        };
        match text {
            Some(src) => {
                // The version line is the first line that is not blank or a comment.
                let line = if e.stmt.is_none() {
                    src.lines()
                        .position(|l| {
                            let t = l.trim();
                            !t.is_empty() && !t.starts_with("//")
                        })
                        .map_or(1, |i| i as u32 + 1)
                } else {
                    line
                };
                let line_text = src.lines().nth(line as usize - 1).unwrap_or("");
                Diagnostic::text(path, line, col, line_text, e.message)
            }
            None => {
                let what = match e.stmt.and_then(|i| prog.statements.get(i)) {
                    Some(dxbc::ast::Statement::Inst(i)) => {
                        format!("`{}`: ", dxbc::text::print_inst(i).trim())
                    }
                    Some(dxbc::ast::Statement::Decl(d)) => {
                        format!("`{}`: ", dxbc::text::print_decl(d).trim())
                    }
                    None => String::new(),
                };
                Diagnostic::file(path, format!("{what}{}", e.message))
            }
        }
    })
}

/// What a cubin's kernel gives its launch besides its code (trace-format "Binaries").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryKernel {
    /// The kernel's name.
    pub name: String,
    /// Its register count: the launch's default `registers`.
    pub registers: u32,
    /// Its static shared memory: the launch's default, and least, `shared_bytes`.
    pub shared_bytes: u32,
    /// Its stack size: the launch's default `local_bytes`.
    pub local_bytes: u32,
    /// Constant-bank images to start from (bank, bytes at offset 0): `.nv.constant2.KERNEL`
    /// for bank 2, `.nv.constant3` for bank 3; the trace's data wins byte by byte.
    pub banks: Vec<(u32, Vec<u8>)>,
    /// Bytes of parameters the kernel reads from bank 0, if the cubin says.
    pub param_bytes: Option<u32>,
    /// Where they start in bank 0 (0x140 on sm_5x).
    pub param_offset: u32,
    /// The kernel's parameter table, for a launch's `params` (`None`: the cubin gives a size but
    /// no per-parameter records).
    pub param_table: Option<crate::params::ParamTable>,
    /// The module's `__device__` data and the bank-4 words that hold its addresses (mapped and
    /// relocated by the trace loader: `tracefile`'s `MODULE_DATA_BASE`).
    pub module: crate::cubin::ModuleData,
    /// Where bank 3's backing lies in global memory, when the trace maps the module's data
    /// image itself (`module_data`, a recording of warpjit's CUDA driver): the image's
    /// `.nv.constant3`, which each launch reads into bank 3 (the host may have written it) and
    /// whose address it finds in `c[0x0][0xd0]` (docs/semantics.md §22g). `None` otherwise.
    pub const3_at: Option<u64>,
}

/// Reads a cubin, with its errors located at their byte.
fn parse_cubin(bytes: &[u8], path: &std::path::Path) -> Result<crate::cubin::Cubin, Diagnostic> {
    crate::cubin::Cubin::parse(bytes).map_err(|e| e.diagnostic(path, bytes))
}

/// The kernel `name` picks (`None`: the only one), or an error that names the `kernel` key.
fn select_kernel<'c>(
    cubin: &'c crate::cubin::Cubin,
    name: Option<&str>,
    path: &std::path::Path,
) -> Result<&'c crate::cubin::Kernel, Diagnostic> {
    cubin.kernel(name).map_err(|m| {
        let m = if m.contains("`kernel") {
            m
        } else {
            format!("{m} (choose one with `kernel`)")
        };
        Diagnostic::file(path, m)
    })
}

/// The least local memory (stack) per thread a cubin kernel that calls functions gets by
/// default: 1 KiB, CUDA's default `cudaLimitStackSize`.
pub const CALL_STACK_BYTES: u32 = 1024;

/// For a cubin (`bytes` an ELF file), what its kernel gives the launch; `None` for any other
/// program.
pub fn binary_kernel(
    bytes: &[u8],
    path: &std::path::Path,
    kernel: Option<&str>,
) -> Result<Option<BinaryKernel>, Diagnostic> {
    if Content::of(bytes) != Content::Elf {
        return Ok(None);
    }
    let cubin = parse_cubin(bytes, path)?;
    let k = select_kernel(&cubin, kernel, path)?;
    let mut banks = Vec::new();
    if !k.const2.is_empty() {
        banks.push((2, k.const2.clone()));
    }
    if !cubin.const3.is_empty() {
        banks.push((3, cubin.const3.clone()));
    }
    Ok(Some(BinaryKernel {
        name: k.name.clone(),
        registers: k.registers,
        shared_bytes: k.shared_bytes,
        // A kernel that calls functions gets at least CUDA's default stack (a recursive one's
        // stack size is in no `.nv.info` attribute: ptxas cannot bound it).
        local_bytes: if crate::maxwell::has_calls(
            &cubin
                .link(k, None)
                .map_or_else(|_| k.code.clone(), |l| l.code),
        ) {
            k.local_bytes.max(CALL_STACK_BYTES)
        } else {
            k.local_bytes
        },
        banks,
        param_bytes: k.param_bytes,
        param_offset: k.param_offset,
        param_table: k.param_table(),
        module: cubin.module.clone(),
        const3_at: None,
    }))
}

/// Turns a program's bytes into IR: chooses the front-end by `opts.isa` and the bytes' content.
pub fn compile(bytes: &[u8], opts: &Options) -> Result<ir::Program, Diagnostic> {
    compile_placed(bytes, opts, None).map(|c| c.program)
}

/// A program as [`compile_placed`] hands it back: the IR, and what a caller shows of a binary's
/// instructions (which have no source line).
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program.
    pub program: ir::Program,
    /// For a binary (a cubin, a DXBC container): each instruction's pc and its text as `warpjit
    /// disasm` prints it, sorted by pc. Empty for program text, whose instructions are found by
    /// [`ir::Program::lines`].
    pub texts: Vec<(u32, String)>,
}

/// [`compile`], with a cubin's `__device__` data placed at `module_data` (its data image as
/// [`crate::device::Module`] lays it out): the addresses nvJitLink's code holds are relocated
/// there. Without a placement, such code is a located error. A binary's instructions come back
/// with their text ([`Compiled::texts`]), so that the caller need not read the binary again.
pub fn compile_placed(
    bytes: &[u8],
    opts: &Options,
    module_data: Option<u64>,
) -> Result<Compiled, Diagnostic> {
    let path = &opts.path;
    let content = Content::of(bytes);
    if opts.kernel.is_some() && (opts.isa == Isa::Dxbc || content == Content::DxbcContainer) {
        return Err(Diagnostic::file(
            path,
            "`kernel` picks a kernel of a SASS listing or a cubin; a DXBC program is one shader",
        ));
    }
    match content {
        Content::Elf => {
            if opts.isa != Isa::Sass {
                return Err(Diagnostic::file(
                    path,
                    "an ELF file (a CUDA cubin) holds SASS, not DXBC",
                ));
            }
            let cubin = parse_cubin(bytes, path)?;
            let k = select_kernel(&cubin, opts.kernel.as_deref(), path)?;
            let dopts = crate::maxwell::DecodeOptions {
                registers: opts.registers,
            };
            let place = module_data.map(|b| crate::cubin::DataPlacement::at(b, &cubin.module));
            let linked = cubin
                .link(k, place)
                .map_err(|e| e.diagnostic(path, bytes))?;
            let program =
                crate::maxwell::decode_linked(&linked, &cubin.module, &dopts, &k.indirect_branches)
                    .map_err(|e| {
                        Diagnostic::byte(
                            path,
                            bytes,
                            linked.file_offset(e.offset),
                            format!("kernel `{}`: {e}", k.name),
                        )
                    })?;
            let texts = crate::maxwell::instruction_texts(&program);
            return Ok(Compiled { program, texts });
        }
        Content::DxbcContainer => {
            let prog =
                dxbc::container::read_program(bytes).map_err(|e| e.to_diagnostic(path, bytes))?;
            let program = lower_dxbc(path, &prog, &[], None)?;
            // An instruction's pc is its index among the program's instructions.
            let texts = prog
                .statements
                .iter()
                .filter_map(|s| match s {
                    dxbc::ast::Statement::Inst(i) => {
                        Some(dxbc::text::print_inst(i).trim().to_string())
                    }
                    dxbc::ast::Statement::Decl(_) => None,
                })
                .enumerate()
                .map(|(pc, text)| (pc as u32, text))
                .collect();
            return Ok(Compiled { program, texts });
        }
        Content::Text => {}
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Diagnostic::byte(
            path,
            bytes,
            e.valid_up_to() as u64,
            "the program is neither UTF-8 text nor a known binary format (an ELF cubin, a DXBC container)",
        )
    })?;
    let program = match opts.isa {
        Isa::Sass => {
            let asm = sass::AsmOptions {
                registers: opts.registers,
            };
            sass::parse_listing(text, opts.kernel.as_deref(), &asm)
                .map_err(|e| e.diagnostic(path))?
        }
        Isa::Dxbc => {
            let (prog, locs) =
                dxbc::text::parse_located(text).map_err(|e| e.to_diagnostic(path, text))?;
            lower_dxbc(path, &prog, &locs, Some(text))?
        }
    };
    Ok(Compiled {
        program,
        texts: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            isa: Isa::Sass,
            registers: 255,
            path: "k.bin".into(),
            kernel: None,
        }
    }

    #[test]
    fn chooses_by_content() {
        assert!(compile(b"EXIT;", &opts()).is_ok());
        let e = compile(b"\x7fELF\x02\x01\x01", &opts()).unwrap_err();
        assert!(e.headline().starts_with("k.bin: byte 0x"), "{e}");
        let e = compile(b"DXBC\0\0", &opts()).unwrap_err();
        assert!(e.headline().starts_with("k.bin: byte 0x"), "{e}");
        let e = compile(b"EXIT;\n\xff", &opts()).unwrap_err();
        assert!(e.headline().starts_with("k.bin: byte 0x6: error: "), "{e}");
        let e = compile(b" BOGUS;", &opts()).unwrap_err();
        assert_eq!(e.headline(), "k.bin:1:2: error: unknown opcode `BOGUS`");
        let dx = Options {
            isa: Isa::Dxbc,
            ..opts()
        };
        assert!(compile(b"ret", &dx).is_err());
    }

    /// A cubin kernel that calls functions gets at least 1 KiB of stack by default (the
    /// recursive `recurse`, whose `.nv.info` gives none); one that calls none, its own frame.
    #[test]
    fn a_kernel_that_calls_gets_a_default_stack() {
        let path = std::path::Path::new("k.cubin");
        let k = |bytes: &[u8], name: &str| {
            binary_kernel(bytes, path, Some(name))
                .unwrap()
                .unwrap()
                .local_bytes
        };
        let recurse = include_bytes!("../tests/cubin/recurse.cubin");
        assert_eq!(k(recurse, "recurse"), CALL_STACK_BYTES);
        let stack = include_bytes!("../tests/cubin/stack.cubin");
        assert_eq!(k(stack, "stack"), 256);
        let vadd = include_bytes!("../tests/cubin/vadd.cubin");
        assert_eq!(k(vadd, "vadd"), 0);
    }

    #[test]
    fn dxbc_listings_lower_or_point_at_the_line() {
        let dx = Options {
            isa: Isa::Dxbc,
            ..opts()
        };
        let p = compile(b"// a header\ncs_5_0\ndcl_thread_group 4, 2, 1\nret\n", &dx).unwrap();
        assert_eq!(p.isa, Isa::Dxbc);
        assert_eq!(p.interface.block, Some([4, 2, 1]));
        let e = compile(
            b"cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n  dadd r0.xy, r0.xyxy, r0.zwzw\nret\n",
            &dx,
        )
        .unwrap_err();
        assert_eq!(
            e.headline(),
            "k.bin:4:3: error: unsupported instruction dadd"
        );
        let e = compile(b"// header\n\nhs_5_0\nret\n", &dx).unwrap_err();
        assert!(
            e.headline()
                .starts_with("k.bin:3:1: error: hull shaders (tessellation) are not supported"),
            "{e}"
        );
        let e = compile(b"gs_5_0\ndcl_maxout 3\nret\n", &dx).unwrap_err();
        assert_eq!(
            e.headline(),
            "k.bin:1:1: error: a geometry shader needs `dcl_inputprimitive` (point, line, triangle, ...)"
        );
        // A pixel shader's records carry one hidden input slot, which marks its quads' helpers.
        let p = compile(b"ps_5_0\ndcl_output o0.xyzw\nret\n", &dx).unwrap();
        assert_eq!(
            p.interface.invocations.map(|io| (io.inputs, io.outputs)),
            Some((1, 1))
        );
        let e = compile(
            b"ps_4_1\ndcl_output o0.xyzw\nsampleinfo o0.xyzw, rasterizer.x\nret\n",
            &dx,
        )
        .unwrap_err();
        assert!(
            e.headline()
                .starts_with("k.bin:3:1: error: the rasterizer (the render target's sample count"),
            "{e}"
        );
    }
}
