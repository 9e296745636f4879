//! Kernel trace files (`docs/trace-format.md`): the TOML model, its validation, and
//! the machine and launches a trace describes.
//!
//! [`load`] reads a trace, checks every key (unknown keys are errors), assembles its programs,
//! maps its global memory and fills its constant banks, and returns a [`Trace`] ready to run (see
//! [`crate::runner`]). Every problem is a [`TraceError`] that points into the text at fault.
//!
//! Beyond the format as first specified, these keys are added:
//!
//! - `[[launch]] budget = N`: the per-warp instruction budget of the launch (warp instructions one
//!   warp may issue before the launch faults with "instruction budget exhausted"); default
//!   [`exec::DEFAULT_BUDGET`], at least 1.
//! - `[machine] launch_budget = N`: the launch budget, warp instructions any one launch may issue
//!   in all, shared equally among its CTAs ([`exec::Machine::launch_budget`]; a CTA that exceeds
//!   its share faults with "launch budget exhausted"); default [`exec::DEFAULT_LAUNCH_BUDGET`], at
//!   least 1.
//!
//! - `[[launch.const]]` tables and `[[launch]] params = [...]`: constant data for one launch only,
//!   and a cubin kernel's arguments laid out by its parameter table ([`crate::params`]); see
//!   [`LaunchSpec::consts`] and [`LaunchSpec::params`].
//!
//! A grid may have as many CTAs as CUDA allows ([`crate::device::MAX_GRID`]): the launch budget
//! ([`exec::Machine::launch_budget`]) bounds what a launch runs. A DXBC vertex, geometry or pixel
//! shader launch has at most [`exec::MAX_LAUNCH_THREADS`] invocations.
//!
//! Where the format leaves a detail open, this module decides (each is listed in the docs of the
//! item it concerns): `isa` defaults to `"sass"` (or what a binary `code_file` is), `grid` to
//! `[1, 1, 1]`, `block` to `[32, 1, 1]` (both may have 1 to 3 components, missing ones 1),
//! `[[const]] offset` to 0, `[[buffer]] view` to `"uav"` (as the expectations' `view`),
//! `[[texture]] samples` and `array_size` to 1 (each above 1 only for the dims it applies to).
//!
//! DXBC keys (textures, buffers, `invocations`, `[[launch.input]]`, `[[launch.expect_output]]`,
//! `[[expect_buffer]]`, `[[expect_texture]]`) are validated and kept in [`Trace`] and
//! [`LaunchSpec`]; DXBC programs (listings and containers) compile through the same
//! `frontend::compile` as SASS and cubins and run under both engines.

mod code;
mod error;
pub(crate) mod files;
mod formats;
mod load;
mod schema;
#[cfg(test)]
mod tests;

pub use error::TraceError;
pub use files::{MAX_PROGRAM_BYTES, MAX_TRACE_BYTES, MAX_TRACE_VALUES};
pub use load::{load, load_text, load_text_with, load_with};

use crate::exec::{self, Machine};
use crate::ir::{Isa, Program};
use error::Source;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use warpjit_runtime::{BankMode, ConstBanks};

/// How [`load_with`] reads a trace.
///
/// A trace is untrusted input: by default its side files (`file`, `code_file`) must lie inside
/// the trace's own directory tree, after resolving symbolic links (an absolute path, a `..` that
/// leaves the tree, or a symbolic link inside it that points outside is an error at the key's
/// value). `warpjit run --allow-path DIR` fills [`LoadOptions::allow_paths`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Directories whose files (at any depth) a trace's side files may also be: `/` allows every
    /// file. A directory that does not exist allows nothing.
    pub allow_paths: Vec<PathBuf>,
}

/// The `format` value this version reads.
pub const FORMAT: &str = "warpjit-trace/1";

/// Threads per CTA at most (Maxwell, CUDA's `maxThreadsPerBlock`).
pub const MAX_THREADS_PER_CTA: u64 = 1024;
/// Largest `block` components (x, y, z), as on Maxwell.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// Largest `grid` components (x, y, z), as on Maxwell.
pub const MAX_GRID: [u32; 3] = [0x7fff_ffff, 0xffff, 0xffff];
/// Largest `shared_bytes`: the size of the shared window, the most a generic address can reach.
pub const MAX_SHARED_BYTES: u32 = warpjit_runtime::SHARED_WINDOW_SIZE as u32;

/// Which data key a table used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataKind {
    /// `u32 = [...]`: little-endian 32-bit words.
    U32,
    /// `i32 = [...]`: little-endian signed 32-bit words.
    I32,
    /// `f32 = [...]`: IEEE single floats (compared bit-exact).
    F32,
    /// `u8 = [...]`: bytes.
    U8,
    /// `file = "..."`: a side file's raw bytes.
    File,
}

impl DataKind {
    /// The key as written in a trace.
    pub fn key(self) -> &'static str {
        match self {
            DataKind::U32 => "u32",
            DataKind::I32 => "i32",
            DataKind::F32 => "f32",
            DataKind::U8 => "u8",
            DataKind::File => "file",
        }
    }
    /// Bytes per element (a file compares byte by byte).
    pub fn element_size(self) -> u64 {
        match self {
            DataKind::U32 | DataKind::I32 | DataKind::F32 => 4,
            DataKind::U8 | DataKind::File => 1,
        }
    }
}

impl fmt::Display for DataKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The contents a data key gives.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// 32-bit words.
    U32(Vec<u32>),
    /// Signed 32-bit words.
    I32(Vec<i32>),
    /// Floats. Each is the `f32` nearest to the decimal text written in the trace (not rounded via
    /// `f64`); `nan` is 0x7fc00000 and `-nan` 0xffc00000. Bit patterns TOML cannot spell (NaN
    /// payloads) are written with `u32`.
    F32(Vec<f32>),
    /// Bytes.
    U8(Vec<u8>),
    /// A side file, by its real path (absolute, symbolic links resolved, inside the trace's
    /// directory tree or an allowed one: [`LoadOptions`]) and its length when the trace was
    /// loaded. It is opened again only by that path, never through a symbolic link.
    File {
        /// The resolved path.
        path: PathBuf,
        /// Its length in bytes.
        len: u64,
    },
}

impl Data {
    /// Which key it came from.
    pub fn kind(&self) -> DataKind {
        match self {
            Data::U32(_) => DataKind::U32,
            Data::I32(_) => DataKind::I32,
            Data::F32(_) => DataKind::F32,
            Data::U8(_) => DataKind::U8,
            Data::File { .. } => DataKind::File,
        }
    }

    /// Length in bytes.
    pub fn byte_len(&self) -> u64 {
        match self {
            Data::U32(v) => 4 * v.len() as u64,
            Data::I32(v) => 4 * v.len() as u64,
            Data::F32(v) => 4 * v.len() as u64,
            Data::U8(v) => v.len() as u64,
            Data::File { len, .. } => *len,
        }
    }

    /// The bytes, little-endian (a file is read: exactly its length when the trace was loaded, an
    /// error if it is no longer a regular file of that length).
    pub fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        Ok(match self {
            Data::U32(v) => v.iter().flat_map(|w| w.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|w| w.to_le_bytes()).collect(),
            Data::F32(v) => v.iter().flat_map(|w| w.to_bits().to_le_bytes()).collect(),
            Data::U8(v) => v.clone(),
            Data::File { path, len } => {
                files::read_exact_len(path, *len).map_err(std::io::Error::other)?
            }
        })
    }
}

/// A `[[global]]` segment.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalSegment {
    /// Base address.
    pub addr: u64,
    /// Size in bytes (the data's length when `size` was omitted).
    pub size: u64,
    /// Initial contents at the start of the segment (zeros after); `None`: zero-filled.
    pub data: Option<Data>,
    /// `uninitialized = true` (a size-only segment): it reads as zeros, but its contents are
    /// undefined until written, like a fresh `cudaMalloc` (the sanitizer's initcheck reports
    /// reads of bytes never written).
    pub uninitialized: bool,
    /// Line of the table in the trace.
    pub line: u32,
}

/// Where each guest instruction of a launch's program is written, by pc: the line a fault
/// report shows under the fault.
///
/// Each distinct text is held once, however many instructions share it (a line may hold any
/// number of instructions): the size is linear in the program's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLines {
    /// The file the text is in: the trace (inline `code`) or the `code_file`.
    pub path: PathBuf,
    /// Sorted by pc: the pc, then the line and column (1-based; line 0 for an instruction of a
    /// binary, which has no line) and the index in [`texts`](Self::texts) of the text shown.
    pub lines: Vec<(u32, u32, u32, u32)>,
    /// The texts shown: source lines, or a binary's instructions as its disassembler prints
    /// them.
    pub texts: Vec<String>,
}

impl SourceLines {
    /// Source lines of the instructions `(pc, line, col)` of `lines`, the text of line `l`
    /// (1-based) being `text_of(l)`: each line's text is taken once.
    pub fn from_text_lines<'a>(
        path: PathBuf,
        lines: impl IntoIterator<Item = (u32, u32, u32)>,
        mut text_of: impl FnMut(u32) -> &'a str,
    ) -> SourceLines {
        let mut index: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        let mut texts = Vec::new();
        let lines = lines
            .into_iter()
            .map(|(pc, line, col)| {
                let k = *index.entry(line).or_insert_with(|| {
                    texts.push(text_of(line).to_string());
                    texts.len() as u32 - 1
                });
                (pc, line, col, k)
            })
            .collect();
        SourceLines { path, lines, texts }
    }

    /// Source lines of a binary's instructions `(pc, text)` (no line or column).
    pub fn from_instructions(
        path: PathBuf,
        insts: impl IntoIterator<Item = (u32, String)>,
    ) -> Self {
        let mut texts = Vec::new();
        let lines = insts
            .into_iter()
            .map(|(pc, text)| {
                texts.push(text);
                (pc, 0, 0, texts.len() as u32 - 1)
            })
            .collect();
        SourceLines { path, lines, texts }
    }

    /// `path:line:col: text` (or `path: instruction pc: text` in a binary) for the guest
    /// instruction at `pc`, if known. A line longer than 2 × [`EXCERPT_CONTEXT`] characters is
    /// cut to that many on each side of the column, as in a diagnostic.
    ///
    /// [`EXCERPT_CONTEXT`]: crate::diag::EXCERPT_CONTEXT
    pub fn at(&self, pc: u32) -> Option<String> {
        let i = self.lines.binary_search_by_key(&pc, |l| l.0).ok()?;
        let (pc, line, col, k) = self.lines[i];
        let text = self.texts.get(k as usize).map_or("", String::as_str);
        let path = self.path.display();
        Some(if line == 0 {
            format!("{path}: instruction {pc}: {text}")
        } else {
            format!(
                "{path}:{line}:{col}: {}",
                crate::diag::line_excerpt(text, col).trim()
            )
        })
    }
}

/// A `[[sparse]]` region of non-resident 64 KiB tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparseRegion {
    /// Base address (64 KiB aligned).
    pub addr: u64,
    /// Size (a multiple of 64 KiB).
    pub size: u64,
}

/// A `[[const]]` block of constant-bank data.
///
/// Decision: blocks may not overlap one another (a typo must not silently pass), and a block
/// needs a data key; `offset` defaults to 0.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstData {
    /// Bank (0..32).
    pub bank: u32,
    /// Byte offset inside the bank.
    pub offset: u32,
    /// The bytes (a file's are read when the trace is loaded).
    pub bytes: Vec<u8>,
    /// Line of the table in the trace.
    pub line: u32,
}

/// `[[texture]] dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `"1d"`: a 1D texture (`Texture1D`, `RWTexture1D`).
    Tex1d,
    /// `"1darray"`: a 1D texture array (`Texture1DArray`, `RWTexture1DArray`).
    Tex1dArray,
    /// `"2d"`: a 2D texture (`Texture2D`, or `RWTexture2D` as a `uav`).
    Tex2d,
    /// `"2darray"`: a 2D texture array (`Texture2DArray`, `RWTexture2DArray`).
    Tex2dArray,
    /// `"2dms"`: a 2D multisample texture (`Texture2DMS`).
    Ms2d,
    /// `"2dmsarray"`: a 2D multisample texture array (`Texture2DMSArray`).
    Ms2dArray,
    /// `"3d"`: a volume texture (`Texture3D`, `RWTexture3D`).
    Tex3d,
    /// `"cube"`: a cube of six square faces (`TextureCube`).
    Cube,
    /// `"cubearray"`: an array of cubes (`TextureCubeArray`).
    CubeArray,
}

impl TextureDim {
    /// Every dimension, in the order the trace format lists them.
    pub const ALL: [TextureDim; 9] = [
        TextureDim::Tex1d,
        TextureDim::Tex1dArray,
        TextureDim::Tex2d,
        TextureDim::Tex2dArray,
        TextureDim::Ms2d,
        TextureDim::Ms2dArray,
        TextureDim::Tex3d,
        TextureDim::Cube,
        TextureDim::CubeArray,
    ];

    /// The `dim` value naming it.
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::Tex1d => "1d",
            TextureDim::Tex1dArray => "1darray",
            TextureDim::Tex2d => "2d",
            TextureDim::Tex2dArray => "2darray",
            TextureDim::Ms2d => "2dms",
            TextureDim::Ms2dArray => "2dmsarray",
            TextureDim::Tex3d => "3d",
            TextureDim::Cube => "cube",
            TextureDim::CubeArray => "cubearray",
        }
    }

    /// The dimension a `dim` value names.
    pub fn named(name: &str) -> Option<TextureDim> {
        TextureDim::ALL.into_iter().find(|d| d.name() == name)
    }

    /// A multisample dimension (`samples` applies).
    pub fn is_ms(self) -> bool {
        matches!(self, TextureDim::Ms2d | TextureDim::Ms2dArray)
    }

    /// An array dimension (`array_size` applies: slices, or cubes of a cube array).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureDim::Tex1dArray
                | TextureDim::Tex2dArray
                | TextureDim::Ms2dArray
                | TextureDim::CubeArray
        )
    }

    /// The runtime's dimension.
    pub fn runtime(self) -> warpjit_runtime::resource::TextureDim {
        use warpjit_runtime::resource::TextureDim as R;
        match self {
            TextureDim::Tex1d => R::Tex1d,
            TextureDim::Tex1dArray => R::Tex1dArray,
            TextureDim::Tex2d => R::Tex2d,
            TextureDim::Tex2dArray => R::Tex2dArray,
            TextureDim::Ms2d => R::Tex2dMs,
            TextureDim::Ms2dArray => R::Tex2dMsArray,
            TextureDim::Tex3d => R::Tex3d,
            TextureDim::Cube => R::TexCube,
            TextureDim::CubeArray => R::TexCubeArray,
        }
    }
}

/// Which register class a texture or buffer binds to. `t#` and `u#` are numbered apart: `t0` and
/// `u0` are different slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// `t#`: a shader resource view (read-only).
    Srv,
    /// `u#`: an unordered access view (read-write).
    Uav,
}

impl View {
    /// The `view` value naming it.
    pub fn name(self) -> &'static str {
        match self {
            View::Srv => "srv",
            View::Uav => "uav",
        }
    }

    /// The register prefix: `t` or `u`.
    pub fn register(self) -> char {
        match self {
            View::Srv => 't',
            View::Uav => 'u',
        }
    }

    /// Slots of the view: 128 `t#` (D3D11's SRV slots), 64 `u#` (D3D11.1's UAV slots).
    pub fn slots(self) -> u32 {
        match self {
            View::Srv => 128,
            View::Uav => 64,
        }
    }
}

/// Largest resource (`[[texture]]` or `[[buffer]]`): 4 GiB, the reach of DXBC's 32-bit byte
/// offsets.
pub const MAX_RESOURCE_BYTES: u64 = 1 << 32;

/// A `[[texture]]` (DXBC `t#`, or `u#` with `view = "uav"`), validated; not used by SASS
/// launches.
///
/// Decisions: `view` defaults to `"srv"` (as the format says); a `"uav"` texture is `"1d"`,
/// `"1darray"`, `"2d"`, `"2darray"` or `"3d"` (Direct3D has no multisample or cube UAVs), with
/// one mip level; `slot` 0..=127 for `srv`, 0..=63 for `uav`, unique per view among textures
/// and buffers; `format` a DXGI format name (uncompressed; the `DXGI_FORMAT_` prefix is
/// optional); `width` 1..=16384, `height` 1..=16384 (not for 1D; a cube's equals its width),
/// `depth` 1..=2048 (only 3D); `samples` a power of two 1..=32 (default 1), above 1 only for
/// `"2dms"`/`"2dmsarray"`; `array_size` 1..=2048 slices (1..=341 cubes of a `"cubearray"`;
/// default 1), above 1 only for arrays (Direct3D's description always carries both, 1 for a
/// single-sample, single-slice texture); `mip_levels` 1 to the full chain, 0 meaning the full
/// chain (default 1; multisample textures have 1); at most [`MAX_RESOURCE_BYTES`] in all; the
/// data at most the texture's bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Slot (`t#` or `u#` by `view`).
    pub slot: u32,
    /// `t#` or `u#`.
    pub view: View,
    /// Dimension.
    pub dim: TextureDim,
    /// DXGI format name, without the `DXGI_FORMAT_` prefix.
    pub format: String,
    /// Bytes per element (one sample of one texel) of the format.
    pub element_bytes: u32,
    /// Width of mip level 0 in texels.
    pub width: u32,
    /// Height of mip level 0 in texels (1 for 1D textures).
    pub height: u32,
    /// Depth of mip level 0 (1 unless 3D).
    pub depth: u32,
    /// Samples per texel (1 unless multisample).
    pub samples: u32,
    /// Array slices, or cubes of a cube array (1 unless an array).
    pub array_size: u32,
    /// Mip levels (at least 1).
    pub mips: u32,
    /// Texel bytes, in the order of [`Texture::offset`] (zeros past the end); `None`:
    /// zero-filled.
    pub data: Option<Data>,
    /// Line of the table in the trace.
    pub line: u32,
}

impl Texture {
    /// The runtime's shape of the texture.
    pub fn shape(&self) -> warpjit_runtime::resource::TextureShape {
        let layers = match self.dim {
            TextureDim::Cube => 6,
            TextureDim::CubeArray => 6 * self.array_size,
            _ => self.array_size,
        };
        warpjit_runtime::resource::TextureShape {
            dim: self.dim.runtime(),
            width: self.width,
            height: self.height,
            depth: self.depth,
            layers,
            samples: self.samples,
            mips: self.mips,
        }
    }

    /// Size in bytes: the elements of every mip level × element_bytes.
    pub fn byte_len(&self) -> u64 {
        let shape = self.shape();
        (0..self.mips)
            .map(|l| shape.level_texels(l))
            .sum::<u64>()
            .saturating_mul(self.element_bytes as u64)
    }

    /// Byte offset of an element: mip level 0 of every slice, then level 1, ...; within a
    /// level, `((slice × height + row) × width + column) × samples + sample` elements in (the
    /// data's order), where `slice` is the array slice (a cube's face, `6 × cube + face`) or a
    /// 3D texture's depth slice and the sizes are the level's.
    pub fn offset(&self, mip: u32, slice: u32, row: u32, column: u32, sample: u32) -> u64 {
        let shape = self.shape();
        let before: u64 = (0..mip).map(|l| shape.level_texels(l)).sum();
        let [w, h, _] = shape.level_size(mip);
        let e = ((slice as u64 * h as u64 + row as u64) * w as u64 + column as u64)
            * self.samples as u64
            + sample as u64;
        (before + e) * self.element_bytes as u64
    }

    /// The element a byte offset falls in, as (mip, slice, row, column, sample); the inverse
    /// of [`Texture::offset`].
    pub fn element_at(&self, byte: u64) -> (u64, u64, u64, u64, u64) {
        let shape = self.shape();
        let mut e = byte / self.element_bytes as u64;
        let mut mip = 0;
        while mip + 1 < self.mips && e >= shape.level_texels(mip) {
            e -= shape.level_texels(mip);
            mip += 1;
        }
        let [w, h, _] = shape.level_size(mip);
        let sample = e % self.samples as u64;
        let texel = e / self.samples as u64;
        let column = texel % w as u64;
        let row = texel / w as u64 % h as u64;
        let slice = texel / w as u64 / h as u64;
        (mip as u64, slice, row, column, sample)
    }

    /// The first `len` bytes of its initial contents: the data, then zeros (a copy of `len` bytes:
    /// the loader writes the data into the texture's lazily committed storage instead).
    pub fn initial_bytes(&self, len: u64) -> std::io::Result<Vec<u8>> {
        initial_bytes(&self.data, len)
    }
}

/// A `[[sampler]]` (DXBC `s#`), validated: its slot (0..=15, unique) and state.
///
/// Decisions: the defaults are Direct3D 11's default sampler state
/// ([`SamplerState::DEFAULT`](warpjit_runtime::sampler::SamplerState::DEFAULT)); `filter` is a
/// `D3D11_FILTER` name (the `D3D11_FILTER_` prefix optional) or `"point"`, `"linear"`,
/// `"anisotropic"`; `address` sets all three address modes and excludes `address_u`/`_v`/`_w`;
/// `border_color` only with a `"border"` address mode; `max_anisotropy` (1..=16) only with an
/// anisotropic filter; `comparison_func` exactly with a `COMPARISON_` filter; `mip_lod_bias` in
/// [-16, 15.99]; `min_lod` and `max_lod` not NaN.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// Slot (`s#`).
    pub slot: u32,
    /// The state.
    pub state: warpjit_runtime::sampler::SamplerState,
    /// Line of the table in the trace.
    pub line: u32,
}

/// What kind of `[[buffer]]`: by its `stride` and `format` keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// `stride = N`: a structured buffer of `N`-byte structures.
    Structured {
        /// Structure stride in bytes.
        stride: u32,
    },
    /// `format = "..."`: a typed buffer.
    Typed {
        /// DXGI format name, without the `DXGI_FORMAT_` prefix.
        format: String,
        /// Bytes per element of the format.
        element_bytes: u32,
    },
    /// Neither: a raw (byte-address) buffer.
    Raw,
}

/// A `[[buffer]]` (DXBC `t#` or `u#` buffer), validated; not used by SASS launches.
///
/// Decisions: `view` defaults to `"uav"` (as in `[[expect_buffer]]`; the format names no
/// default); `slot` 0..=127 for `srv`, 0..=63 for `uav`, unique per view among buffers and
/// textures; a structured buffer's `stride` a multiple of 4 in 4..=2048 (D3D11's limit); `stride`
/// and `format` exclusive; the size (`size`, or the data's length) at least the data's length,
/// at most [`MAX_RESOURCE_BYTES`], and a non-zero multiple of the element: the stride, the
/// format's element size, or 4 for a raw buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Slot (`t#` or `u#` by `view`).
    pub slot: u32,
    /// `t#` or `u#`.
    pub view: View,
    /// Structured, typed or raw.
    pub kind: BufferKind,
    /// Size in bytes.
    pub size: u64,
    /// Initial contents (zeros after); `None`: zero-filled.
    pub data: Option<Data>,
    /// The initial value of a structured UAV's hidden counter (`imm_atomic_alloc` /
    /// `imm_atomic_consume`); 0 when not given.
    pub counter: u32,
    /// Line of the table in the trace.
    pub line: u32,
}

impl Buffer {
    /// The structure stride of a structured buffer.
    pub fn stride(&self) -> Option<u32> {
        match self.kind {
            BufferKind::Structured { stride } => Some(stride),
            _ => None,
        }
    }

    /// Bytes per element: the stride, the typed format's element size, or 4 (raw).
    pub fn element_bytes(&self) -> u32 {
        match &self.kind {
            BufferKind::Structured { stride } => *stride,
            BufferKind::Typed { element_bytes, .. } => *element_bytes,
            BufferKind::Raw => 4,
        }
    }

    /// The first `len` bytes of its initial contents: the data, then zeros (a copy of `len` bytes:
    /// the loader writes the data into the buffer's lazily committed storage instead).
    pub fn initial_bytes(&self, len: u64) -> std::io::Result<Vec<u8>> {
        initial_bytes(&self.data, len)
    }
}

/// `len` bytes: `data`'s first bytes, then zeros.
fn initial_bytes(data: &Option<Data>, len: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = match data {
        Some(d) => d.to_bytes()?,
        None => Vec::new(),
    };
    bytes.resize(len as usize, 0);
    Ok(bytes)
}

/// One `[[launch.input]]` or `[[launch.expect_output]]`: a DXBC `v#` or `o#` register of every
/// invocation of a vs/gs/ps launch, 4 words (x, y, z, w) per invocation: invocation `i`'s
/// `.xyzw` are words `4i` to `4i + 3` of the data.
///
/// Decisions: `reg` 0..=31 and unique among the launch's tables of the same kind; the data a
/// whole number of invocations (a multiple of 16 bytes), at most `invocations` of them; an input
/// shorter than that leaves the other invocations' register 0, an output expectation checks the
/// invocations it gives (at least one).
#[derive(Clone, Debug, PartialEq)]
pub struct RegData {
    /// 0-based index among the launch's `[[launch.input]]` (or `[[launch.expect_output]]`)
    /// tables.
    pub index: usize,
    /// The register number (`v#` or `o#`); for a special register, its record slot once the
    /// program is known.
    pub reg: u32,
    /// The special register it names (`vCoverage`, `oDepth`, ...), if it names one.
    pub name: Option<&'static str>,
    /// The contents.
    pub data: Data,
    /// Line of the table in the trace.
    pub line: u32,
    /// Span of the `reg` value, for errors found while running.
    pub(crate) span: Range<usize>,
    /// Span of the data key's value.
    pub(crate) data_span: Range<usize>,
}

impl RegData {
    /// Records the data covers: invocations (a geometry shader's: vertices).
    pub fn invocations(&self) -> u64 {
        self.data.byte_len() / 16
    }

    /// The data as one `[x, y, z, w]` per invocation (a file is read).
    pub fn words(&self) -> std::io::Result<Vec<[u32; 4]>> {
        let bytes = self.data.to_bytes()?;
        Ok(bytes
            .chunks_exact(16)
            .map(|c| {
                let w = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                [w(0), w(4), w(8), w(12)]
            })
            .collect())
    }
}

/// One `[[launch]]`, its program assembled.
#[derive(Clone, Debug)]
pub struct LaunchSpec {
    /// 0-based index (file order), as faults report it.
    pub index: u32,
    /// The program's ISA: the `isa` key, or what a binary `code_file` is (a DXBC container is
    /// `dxbc`, a cubin `sass`); default `sass`.
    pub isa: Isa,
    /// The assembled program.
    pub program: Arc<Program>,
    /// Where the program text came from: the trace (inline `code`) or its `code_file`.
    pub program_path: PathBuf,
    /// `kernel`: the entry of a cubin `code_file` to launch (only with a cubin).
    pub kernel: Option<String>,
    /// CTAs per grid (thread groups, for DXBC cs).
    pub grid: [u32; 3],
    /// Threads per CTA (`[32, 1, 1]` when the trace gives none: see `block_given`).
    pub block: [u32; 3],
    /// Whether the trace gave `block` (a DXBC cs takes it from `dcl_thread_group` otherwise).
    pub block_given: bool,
    /// `invocations`: DXBC vs/gs/ps invocations to run (only with `isa = "dxbc"`, not with
    /// `grid` or `block`); with `pixels`, width × height.
    pub invocations: Option<u32>,
    /// `pixels = [width, height]`: a pixel shader's rectangle of pixels (invocation `i` is
    /// pixel `(i % width, i / width)`).
    pub pixels: Option<[u32; 2]>,
    /// Constant-bank mode.
    pub mode: BankMode,
    /// Registers given to the program (1..=255).
    pub registers: u32,
    /// Shared memory bytes per CTA (TGSM for DXBC).
    pub shared_bytes: u32,
    /// `local_bytes`: SASS local memory per thread, when given (only with SASS; at most
    /// [`MAX_LOCAL_BYTES`]).
    pub local_bytes: Option<u32>,
    /// Per-warp instruction budget.
    pub budget: u64,
    /// `cooperative`: a cooperative launch ([`exec::Launch::cooperative`]), given the grid
    /// workspace ([`GRID_WORKSPACE`]).
    pub cooperative: bool,
    /// `[[launch.input]]`: `v#` contents (DXBC vs/gs/ps only).
    pub inputs: Vec<RegData>,
    /// `[[launch.expect_output]]`: `o#` contents expected after this launch (DXBC vs/gs/ps only).
    pub expect_outputs: Vec<RegData>,
    /// Line of the table in the trace.
    pub line: u32,
    /// Where the program's instructions are written, for fault reports.
    pub source: Arc<SourceLines>,
    /// For a cubin `code_file`: what its kernel gives the launch (constant-bank images,
    /// parameter size).
    pub binary: Option<Arc<crate::frontend::BinaryKernel>>,
    /// `[[launch.const]]`: constant data for this launch only, over the trace's (see
    /// [`Trace::launch_consts`]).
    pub consts: Vec<ConstData>,
    /// `params = [...]`: a cubin kernel's arguments, laid out by its parameter table as the
    /// bytes of its parameter block in bank 0 (padding zero), for this launch only.
    pub params: Option<ConstData>,
}

impl LaunchSpec {
    /// How a pixel shader launch's invocations sit in 2x2 quads (`None` for other launches).
    pub fn quads(&self) -> Option<QuadLayout> {
        let io = self.program.interface.invocations?;
        io.live?;
        Some(QuadLayout {
            pixels: self.pixels,
            invocations: self.invocations?,
        })
    }

    /// The lanes a launch run over invocations runs: its invocations, and a pixel shader's
    /// helper invocations filling its quads (docs/semantics.md §33).
    pub fn lanes(&self) -> Option<u32> {
        match self.quads() {
            Some(q) => Some(q.slots()),
            None => self.invocations,
        }
    }
}

/// How a pixel shader launch's invocations sit in 2x2 quads of lanes (docs/semantics.md §33):
/// lanes `4q` to `4q + 3` are quad `q`'s top-left, top-right, bottom-left and bottom-right
/// pixels. With `pixels = [w, h]` the quads tile the rectangle from (0, 0), row by row of
/// quads, pixel `(x, y)` being invocation `y × w + x`; without, invocation `i` is lane `i` (quad
/// `i / 4`, at pixel `(2 (i / 4) + i % 2, i % 4 / 2)`). The lanes of a quad outside the pixels
/// are helper invocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuadLayout {
    /// The rectangle, if the launch gives one.
    pub pixels: Option<[u32; 2]>,
    /// The invocations (pixels).
    pub invocations: u32,
}

impl QuadLayout {
    /// Quads per row of the rectangle (1-quad-high rows without one).
    fn quads_wide(&self) -> u32 {
        match self.pixels {
            Some([w, _]) => w.div_ceil(2),
            None => self.invocations.div_ceil(4).max(1),
        }
    }

    /// Lanes in all: 4 per quad.
    pub fn slots(&self) -> u32 {
        match self.pixels {
            Some([w, h]) => 4 * w.div_ceil(2) * h.div_ceil(2),
            None => 4 * self.invocations.div_ceil(4),
        }
    }

    /// The pixel lane `s` stands at.
    pub fn pixel(&self, s: u32) -> [u32; 2] {
        let (q, k) = (s / 4, s % 4);
        let qw = self.quads_wide();
        [2 * (q % qw) + (k & 1), 2 * (q / qw) + (k >> 1)]
    }

    /// The invocation lane `s` runs, or `None` for a helper.
    pub fn invocation(&self, s: u32) -> Option<u32> {
        match self.pixels {
            Some([w, h]) => {
                let [x, y] = self.pixel(s);
                (x < w && y < h).then_some(y * w + x)
            }
            None => (s < self.invocations).then_some(s),
        }
    }

    /// The lane invocation `i` runs on.
    pub fn slot(&self, i: u32) -> u32 {
        match self.pixels {
            Some([w, _]) => {
                let (x, y) = (i % w, i / w);
                4 * ((y / 2) * self.quads_wide() + x / 2) + 2 * (y % 2) + x % 2
            }
            None => i,
        }
    }
}

/// Where the loader maps the first cubin's `__device__` data (`.nv.global.init`, then
/// `.nv.global` at the next multiple of 256 bytes); the next cubin's is 4 GiB further.
pub const MODULE_DATA_BASE: u64 = 0x0000_7f00_0000_0000;

/// Where the loader maps the grid workspace of cooperative launches, when a trace has one: the
/// memory CUDA's driver gives a cooperative launch for cooperative groups' `grid.sync()`, its
/// address in c\[0x0\]\[0x34\] (high word) and \[0x38\] (low word), which PTX reads as
/// `%envreg1` and `%envreg2`.
pub const GRID_WORKSPACE: u64 = 0x0000_7e00_0000_0000;

/// Bytes of the grid workspace (zeroed when the trace is loaded; `grid.sync()` uses the word at
/// +4 as its barrier, which it leaves ready for the next launch).
pub const GRID_WORKSPACE_BYTES: u64 = crate::device::GRID_WORKSPACE_BYTES;

/// The most local memory per thread a launch may have (512 KiB, Maxwell's).
pub use crate::device::MAX_LOCAL_BYTES;

/// One `[[expect]]`: global memory contents after all launches.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// 0-based index among the trace's `[[expect]]` tables.
    pub index: usize,
    /// First address compared.
    pub addr: u64,
    /// The expected contents (a file is compared in full).
    pub data: Data,
    /// Line of the table in the trace.
    pub line: u32,
    /// Span of the `addr` value, for errors found while checking.
    pub(crate) span: Range<usize>,
}

/// One `[[expect_buffer]]` or `[[expect_texture]]`: a resource's contents after all launches,
/// from its first byte (a texture's in the order of its data: slice, row, column, sample).
///
/// Decisions: `view` defaults to `"uav"` (as the format says); the slot must name a
/// `[[buffer]]` (or `[[texture]]`) of that view; the data is not empty and at most the
/// resource's size.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectResource {
    /// 0-based index among the trace's tables of its kind.
    pub index: usize,
    /// `t#` or `u#`.
    pub view: View,
    /// Slot.
    pub slot: u32,
    /// Index of the resource in [`Trace::buffers`] (or [`Trace::textures`]).
    pub resource: usize,
    /// The expected contents.
    pub data: Data,
    /// Line of the table in the trace.
    pub line: u32,
    /// Span of the `slot` value, for errors found while checking.
    pub(crate) span: Range<usize>,
}

/// A loaded, validated trace: its model, and the machine state it starts from.
pub struct Trace {
    /// The trace file, as given.
    pub path: PathBuf,
    /// Base of the shared window.
    pub shared_window: u64,
    /// Base of the local window.
    pub local_window: u64,
    /// `[[global]]` segments, in file order.
    pub globals: Vec<GlobalSegment>,
    /// `[[sparse]]` regions, in file order.
    pub sparse: Vec<SparseRegion>,
    /// `[[const]]` blocks, in file order.
    pub consts: Vec<ConstData>,
    /// `[[texture]]` tables, in file order.
    pub textures: Vec<Texture>,
    /// `[[buffer]]` tables, in file order.
    pub buffers: Vec<Buffer>,
    /// `[[sampler]]` tables, in file order.
    pub samplers: Vec<Sampler>,
    /// `[[launch]]` tables, in file order.
    pub launches: Vec<LaunchSpec>,
    /// `[[expect]]` tables, in file order.
    pub expects: Vec<Expect>,
    /// `[[expect_buffer]]` tables, in file order.
    pub expect_buffers: Vec<ExpectResource>,
    /// `[[expect_texture]]` tables, in file order.
    pub expect_textures: Vec<ExpectResource>,
    /// Global memory as mapped from the trace (launches change it as they run).
    pub machine: Machine,
    /// The constant banks with the trace's `[[const]]` data, before launch constants.
    base_consts: ConstBanks,
    /// Which bytes of bank 0's first 0x100 the trace's data covers.
    bank0_covered: [bool; 0x100],
    /// The trace text, to point errors found while running at it.
    source: Source,
}

impl Trace {
    /// The constant banks with the trace's `[[const]]` data only.
    pub fn base_consts(&self) -> &ConstBanks {
        &self.base_consts
    }

    /// The constant banks as launch `spec` sees them: the trace's data, and the launch constants
    /// of docs/semantics.md §14 in every byte the trace's data does not cover:
    /// c\[0\]\[0x0\] the shared window (low word), \[0x4\] the local window (0 without local
    /// memory), \[0x8\], \[0xc\], \[0x10\] ntid x/y/z, \[0x14\], \[0x18\], \[0x1c\] nctaid
    /// x/y/z, \[0x20\] `local_bytes` (the stack top), \[0xfc\] `shared_bytes`, and for a
    /// cooperative launch \[0x34\] and \[0x38\] the high and low words of the grid workspace's
    /// address ([`GRID_WORKSPACE`]). Last, the launch's own data (its `[[launch.const]]` tables
    /// and `params`) over all of these, in the bytes it gives; the other bytes keep what the rest
    /// gives them, and the next launch sees the trace's data again.
    pub fn launch_consts(&self, spec: &LaunchSpec) -> ConstBanks {
        let mut banks = self.base_consts.clone();
        let own = |banks: &mut ConstBanks| {
            for c in spec.consts.iter().chain(&spec.params) {
                // Checked to fit when the trace was loaded.
                let _ = banks.write(c.bank, c.offset, &c.bytes);
            }
        };
        if spec.isa == crate::ir::Isa::Dxbc {
            // A DXBC program's banks are its constant buffers: no SASS launch constants; a
            // vertex or pixel shader finds its invocation count in its own bank.
            own(&mut banks);
            if let Some(n) = spec.lanes() {
                let bank = crate::ir::INVOCATIONS_BANK as u32;
                let _ = banks.write(bank, 0, &n.to_le_bytes());
            }
            return banks;
        }
        // A cubin's constant-bank images, under the trace's data (which wins byte by byte).
        if let Some(b) = &spec.binary {
            for (bank, image) in &b.banks {
                self.write_uncovered(&mut banks, *bank, image);
            }
        }
        // A recording's bank 3: its backing in the mapped data image, as the host left it, and
        // its address in c[0x0][0xd0..0xd8] (where ptxas's code for `cvta.const` reads it).
        let const3 = spec.binary.as_ref().and_then(|b| {
            let at = b.const3_at?;
            let len = b.banks.iter().find(|(bank, _)| *bank == 3)?.1.len();
            Some((at, len))
        });
        if let Some((at, len)) = const3 {
            if let Ok(bytes) = self.machine.global.read_bytes(at, len as u64) {
                self.write_uncovered(&mut banks, 3, &bytes);
            }
        }
        let mut words = crate::device::launch_constants(
            self.shared_window,
            self.local_window,
            spec.grid,
            spec.block,
            spec.local_bytes.unwrap_or(0),
            spec.shared_bytes,
            spec.cooperative.then_some(GRID_WORKSPACE),
        );
        if let Some((at, _)) = const3 {
            let c3 = crate::device::CONST3_ADDRESS;
            words.extend([(c3, at as u32), (c3 + 4, (at >> 32) as u32)]);
        }
        for (at, value) in words {
            for (i, byte) in value.to_le_bytes().into_iter().enumerate() {
                let a = at + i as u32;
                if !self.bank0_covered[a as usize] {
                    // Bank 0 is always present and a < 0x100: the write cannot fail.
                    let _ = banks.write(0, a, &[byte]);
                }
            }
        }
        own(&mut banks);
        banks
    }

    /// Writes `image` at offset 0 of `bank` in the bytes the trace's `[[const]]` data does not
    /// cover (the trace's data wins byte by byte).
    fn write_uncovered(&self, banks: &mut ConstBanks, bank: u32, image: &[u8]) {
        for (i, &byte) in image.iter().enumerate() {
            let at = i as u32;
            let covered = self
                .consts
                .iter()
                .any(|c| c.bank == bank && c.offset <= at && at - c.offset < c.bytes.len() as u32);
            if !covered {
                let _ = banks.write(bank, at, &[byte]);
            }
        }
    }

    /// The [`exec::Launch`] for launch `spec`, with its own constant banks.
    pub fn launch(&self, spec: &LaunchSpec) -> exec::Launch {
        exec::Launch {
            index: spec.index,
            program: spec.program.clone(),
            grid: spec.grid,
            block: spec.block,
            mode: spec.mode,
            shared_bytes: spec.shared_bytes,
            local_bytes: spec.local_bytes.unwrap_or(0),
            consts: Arc::new(self.launch_consts(spec)),
            budget: spec.budget,
            cooperative: spec.cooperative,
        }
    }

    /// A [`TraceError::Invalid`] pointing at an expectation's `addr`.
    pub(crate) fn expect_error(&self, e: &Expect, message: impl Into<String>) -> TraceError {
        self.source.invalid(&e.span, message)
    }

    /// A [`TraceError::Invalid`] at a span of the trace.
    pub(crate) fn error_at(&self, span: &Range<usize>, message: impl Into<String>) -> TraceError {
        self.source.invalid(span, message)
    }
}
