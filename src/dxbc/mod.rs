//! The Direct3D shader model 4/5 (DXBC) front-end layer: a typed program model and its two readers.
//!
//! What exists:
//! - [`ast`]: the model of a program: version; declarations, one typed variant per `dcl_*`
//!   (constant and immediate constant buffers, textures, buffers, UAVs, TGSM, samplers, inputs and
//!   outputs with their system values and interpolation, temps, indexable temps, thread group,
//!   global flags, and the geometry-shader ones); instructions with `_sat`, `_z`/`_nz`,
//!   `_aoffimmi(u,v,w)`, `_indexable(dim, stride=N)` and return types, resinfo and sync flags; operands
//!   with register file, up to three indices with relative addressing, mask / swizzle / select, and
//!   `-` / `|x|` modifiers, or `l(...)` immediates. The opcodes come from one table
//!   ([`ast::Opcode`]: listing spelling, token number, destination count), which holds the whole
//!   shader model 4/5 instruction set, so any real listing reads; which instructions run is for the
//!   lowering to decide.
//! - [`text`]: the reader of listings as Microsoft's compilers print them (pasted whole, comments
//!   included), with located errors, and the printer back to that syntax: `parse(print(p)) == p`,
//!   float literals bit for bit.
//! - [`container`] and [`tokens`]: the reader of `DXBC` containers (the SHDR or SHEX chunk; other
//!   chunks ignored; the checksum is not checked) and of their token stream into the same model,
//!   with errors naming the byte offset; and the inverse, a token encoder and a container writer
//!   (`decode(encode(p)) == p`; the container's checksum is computed as the compiler's is). A container and the listing fxc
//!   prints for it read to the same program, except for float literals the listing prints with too
//!   few digits (the container's bits are authoritative).
//!
//! - [`lower`]: the lowering to the IR of compute, vertex, geometry and pixel shaders: the
//!   integer and float ALU, structured control flow, buffer, texture and `g#` loads, stores and
//!   atomics, constant buffers (also relatively indexed), the immediate constant buffer, indexable
//!   temps, `v#`/`o#`, the special registers (`vCoverage`, `oDepth`, ...) and a geometry
//!   shader's `emit`, with the stage and shader-model rules.
//!
//! What does not exist yet: sampling with filters, derivatives, doubles, subroutines, hull and
//! domain shaders, 64-bit immediates and shader model 5.1 resource spaces (each a located load
//! error, naming the opcode and why). Minimum precision is a hint, computed at 32 bits.

pub mod ast;
pub mod container;
pub mod lower;
pub mod text;
pub mod tokens;

pub use ast::Program;

use crate::diag::Diagnostic;
use std::path::Path;

/// A `DXBC` container's program as a listing in the syntax Microsoft's disassembler prints, which
/// [`text::parse`] reads back to the same program (float literals bit for bit). Errors name the
/// byte offset in `bytes` (read from `path`).
///
/// ```
/// let listing = "cs_5_0\ndcl_thread_group 1, 1, 1\nret\n";
/// let bytes = warpjit::dxbc::assemble(listing, "k.asm".as_ref()).unwrap();
/// let back = warpjit::dxbc::disassemble(&bytes, "k.cso".as_ref()).unwrap();
/// assert_eq!(warpjit::dxbc::text::parse(&back), warpjit::dxbc::text::parse(listing));
/// ```
pub fn disassemble(bytes: &[u8], path: &Path) -> Result<String, Diagnostic> {
    let p = container::read_program(bytes).map_err(|e| e.to_diagnostic(path, bytes))?;
    Ok(text::print(&p))
}

/// A listing (as fxc prints it, comments allowed) assembled into a `DXBC` container with an
/// SHDR (shader model 4) or SHEX (5) chunk and the checksum the compiler computes. Errors point
/// at the listing's line and column.
pub fn assemble(listing: &str, path: &Path) -> Result<Vec<u8>, Diagnostic> {
    let p = text::parse(listing).map_err(|e| e.to_diagnostic(path, listing))?;
    container::write_program(&p).map_err(|e| Diagnostic::file(path, e.0))
}
