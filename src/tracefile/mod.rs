//! Kernel trace files (`docs/trace-format.md`): the TOML model, its validation, and
//! the machine and launches a trace describes.
//!
//! [`load`] reads a trace, checks every key (unknown keys are errors), assembles its programs,
//! maps its global memory and fills its constant banks, and returns a [`Trace`] ready to run (see
//! [`crate::runner`]). Every problem is a [`TraceError`] that points into the text at fault.
//!
//! Beyond the format as first specified, two keys are added:
//!
//! - `[[launch]] budget = N`: the per-warp instruction budget of the launch (warp instructions one
//!   warp may issue before the launch faults with "instruction budget exhausted"); default
//!   [`exec::DEFAULT_BUDGET`], at least 1.
//! - `[machine] launch_budget = N`: the launch budget, warp instructions any one launch may issue
//!   in all, shared equally among its CTAs ([`exec::Machine::launch_budget`]; a CTA that exceeds
//!   its share faults with "launch budget exhausted"); default [`exec::DEFAULT_LAUNCH_BUDGET`], at
//!   least 1.
//!
//! A launch may have at most [`exec::MAX_LAUNCH_THREADS`] threads (grid × block).
//!
//! Where the format leaves a detail open, this module decides (each is listed in the docs of the
//! item it concerns): `isa` defaults to `"sass"`, `grid` to `[1, 1, 1]`, `block` to `[32, 1, 1]`
//! (both may have 1 to 3 components, missing ones 1), `[[const]] offset` to 0, `[[buffer]] view`
//! to `"uav"`, `[[texture]] array_size` to 1.

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
pub use load::load;

use crate::exec::{self, Machine};
use crate::ir::Program;
use error::Source;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use warpjit_runtime::{BankMode, ConstBanks};

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
    /// A side file, by its path (already joined to the trace's directory) and its length when the
    /// trace was loaded.
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
    /// Line of the table in the trace.
    pub line: u32,
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
    /// `"2dms"`: a 2D multisample texture.
    Ms2d,
    /// `"2dmsarray"`: a 2D multisample texture array.
    Ms2dArray,
}

/// A `[[texture]]` (DXBC `t#`), validated structurally; not used by SASS launches.
///
/// Decisions: `slot` 0..=127 (D3D11's SRV slots) and unique among textures and `srv` buffers;
/// `format` a DXGI format name (uncompressed; the `DXGI_FORMAT_` prefix is optional); `width`
/// and `height` 1..=16384; `samples` a power of two 1..=32; `array_size` 1..=2048 (1 for
/// `"2dms"`, the default); the data at most width × height × samples × array_size elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// `t#` slot.
    pub slot: u32,
    /// Dimension.
    pub dim: TextureDim,
    /// DXGI format name, without the `DXGI_FORMAT_` prefix.
    pub format: String,
    /// Bytes per element of the format.
    pub element_bytes: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Samples per texel.
    pub samples: u32,
    /// Array slices.
    pub array_size: u32,
    /// Texel bytes, ordered slice, row, column, sample (zeros past the end); `None`: zero-filled.
    pub data: Option<Data>,
    /// Line of the table in the trace.
    pub line: u32,
}

/// Which register class a buffer binds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// `t#` (read-only).
    Srv,
    /// `u#` (read-write).
    Uav,
}

/// A `[[buffer]]` (DXBC structured buffer), validated structurally; not used by SASS launches.
///
/// Decisions: `view` defaults to `"uav"` as in `[[expect_buffer]]`; `slot` 0..=127 for `srv`,
/// 0..=63 for `uav`, unique per view; `stride` a multiple of 4 in 4..=2048 (D3D11's limit); the
/// size (`size`, or the data's length) a non-zero multiple of the stride and at least the data's
/// length.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Slot.
    pub slot: u32,
    /// `t#` or `u#`.
    pub view: View,
    /// Structure stride in bytes.
    pub stride: u32,
    /// Size in bytes.
    pub size: u64,
    /// Initial contents (zeros after); `None`: zero-filled.
    pub data: Option<Data>,
    /// Line of the table in the trace.
    pub line: u32,
}

/// One `[[launch]]`, its program assembled.
#[derive(Clone, Debug)]
pub struct LaunchSpec {
    /// 0-based index (file order), as faults report it.
    pub index: u32,
    /// The assembled program.
    pub program: Arc<Program>,
    /// Where the program text came from: the trace (inline `code`) or its `code_file`.
    pub program_path: PathBuf,
    /// CTAs per grid.
    pub grid: [u32; 3],
    /// Threads per CTA.
    pub block: [u32; 3],
    /// Constant-bank mode.
    pub mode: BankMode,
    /// Registers given to the program (1..=255).
    pub registers: u32,
    /// Shared memory bytes per CTA.
    pub shared_bytes: u32,
    /// Per-warp instruction budget.
    pub budget: u64,
    /// Line of the table in the trace.
    pub line: u32,
}

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

/// A loaded, validated trace: its model, and the machine state it starts from.
pub struct Trace {
    /// The trace file, as given.
    pub path: PathBuf,
    /// Base of the shared window.
    pub shared_window: u64,
    /// `[[global]]` segments, in file order.
    pub globals: Vec<GlobalSegment>,
    /// `[[sparse]]` regions, in file order.
    pub sparse: Vec<SparseRegion>,
    /// `[[const]]` blocks, in file order.
    pub consts: Vec<ConstData>,
    /// `[[texture]]` tables (kept for the DXBC front-end).
    pub textures: Vec<Texture>,
    /// `[[buffer]]` tables (kept for the DXBC front-end).
    pub buffers: Vec<Buffer>,
    /// `[[launch]]` tables, in file order.
    pub launches: Vec<LaunchSpec>,
    /// `[[expect]]` tables, in file order.
    pub expects: Vec<Expect>,
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
    /// c\[0\]\[0x0\] the shared window (low word), \[0x4\] 0, \[0x8\], \[0xc\], \[0x10\] ntid
    /// x/y/z, \[0x14\], \[0x18\], \[0x1c\] nctaid x/y/z, \[0x20\] 0, \[0xfc\] `shared_bytes`.
    pub fn launch_consts(&self, spec: &LaunchSpec) -> ConstBanks {
        let mut banks = self.base_consts.clone();
        let words: [(u32, u32); 10] = [
            (0x0, self.shared_window as u32),
            (0x4, 0),
            (0x8, spec.block[0]),
            (0xc, spec.block[1]),
            (0x10, spec.block[2]),
            (0x14, spec.grid[0]),
            (0x18, spec.grid[1]),
            (0x1c, spec.grid[2]),
            (0x20, 0),
            (0xfc, spec.shared_bytes),
        ];
        for (at, value) in words {
            for (i, byte) in value.to_le_bytes().into_iter().enumerate() {
                let a = at + i as u32;
                if !self.bank0_covered[a as usize] {
                    // Bank 0 is always present and a < 0x100: the write cannot fail.
                    let _ = banks.write(0, a, &[byte]);
                }
            }
        }
        banks
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
            consts: Arc::new(self.launch_consts(spec)),
            budget: spec.budget,
        }
    }

    /// A [`TraceError::Invalid`] pointing at an expectation's `addr`.
    pub(crate) fn expect_error(&self, e: &Expect, message: impl Into<String>) -> TraceError {
        self.source.invalid(&e.span, message)
    }
}
