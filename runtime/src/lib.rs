//! warpjit-runtime: the machine state that warpjit's interpreter and JIT both run against.
//!
//! - [`memory::GlobalMemory`]: mapped global-memory segments (memmap2) with the 64 KiB sparse-tile
//!   map.
//! - [`consts::ConstBanks`]: 32 constant banks of 64 KiB.
//! - [`warp::WarpState`]: the `#[repr(C)]`, register-major state of one warp that JIT code
//!   addresses by offset.
//! - [`fault::Fault`]: guest errors as values.
//! - [`helpers`]: the shared-window test both engines use.
//! - [`format`](mod@format): DXGI formats and the conversions of loads and typed stores.
//! - [`resource`]: textures, buffers and the `t#`/`u#` slots of a DXBC launch, with exact bounds
//!   and atomics.
//! - [`sampler`]: sampler state (the `s#` slots), as data.
#![warn(missing_docs)]

pub mod consts;
pub mod fault;
pub mod format;
pub mod helpers;
pub mod memory;
pub mod resource;
pub mod sampler;
pub mod warp;

pub use consts::{BankMode, ConstBanks};
pub use fault::{BadTarget, Fault, FaultKind, FaultReads};
pub use memory::{GlobalMemory, MemError, Segment, TILE_SIZE};
pub use warp::{WarpState, LANES};

/// Size of the generic shared-memory window (16 MiB).
pub const SHARED_WINDOW_SIZE: u64 = 0x100_0000;

/// Default base of the shared window.
pub const DEFAULT_SHARED_WINDOW: u64 = 0x0100_0000;

/// Size of the generic local-memory window (16 MiB, like the shared window).
pub const LOCAL_WINDOW_SIZE: u64 = 0x100_0000;

/// Default base of the local window.
pub const DEFAULT_LOCAL_WINDOW: u64 = 0x0200_0000;
