//! The library surface for host programs that are not trace files: load a cubin module, lay out
//! a kernel's parameters from its parameter table, map and unmap global memory between
//! launches, launch a kernel on any engine (with an observer if wanted), and read and write
//! memory between launches. The trace loader and warpjit's CUDA driver (`libcuda.so.1`, the
//! `warpjit-cuda` crate) are built on these calls.
//!
//! A [`Module`] is a parsed cubin. Its `__device__` and `__constant__` data form one *data
//! image* ([`Module::data_image`]) that the caller maps into global memory at an address of its
//! choosing; [`Module::kernel`] then decodes a kernel for that address (nvJitLink's code holds
//! the data's addresses, and constant bank 4 does for ptxas's code). A [`Kernel`] knows its
//! parameter table ([`ParamTable::layout`]), registers, shared and local memory, and its constant
//! banks; [`launch`] runs it.
//!
//! ```
//! use warpjit::device::{launch, LaunchConfig, Module};
//! use warpjit::exec::{Machine, RunOptions};
//! use warpjit::jit::Jit;
//! use warpjit::runtime::memory::Init;
//!
//! let cubin = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubin/vadd.cubin"))?;
//! let module = Module::from_cubin(&cubin)?;
//! let vadd = module.kernel("vadd", 0)?; // no data image: any base will do
//!
//! // Three arrays of 64 words: c = a + b.
//! let (a, b, c) = (0x10_0000u64, 0x20_0000u64, 0x30_0000u64);
//! let words = |f: fn(u32) -> u32| (0..64).flat_map(|i| f(i).to_le_bytes()).collect::<Vec<u8>>();
//! let mut machine = Machine::default();
//! machine.global.map(a, 256, Init::Bytes(&words(|i| i)))?;
//! machine.global.map(b, 256, Init::Bytes(&words(|i| 1000 * i)))?;
//! machine.global.map(c, 256, Init::Zero)?;
//!
//! // vadd(a, b, c, n): laid out from the kernel's parameter table.
//! let params = vadd.params().layout(&[&a.to_le_bytes(), &b.to_le_bytes(), &c.to_le_bytes(), &64u32.to_le_bytes()])?;
//! let config = LaunchConfig::new([2, 1, 1], [32, 1, 1]);
//! let jit = Jit::new()?;
//! match launch(&jit, &machine, &vadd, &config, &params, &RunOptions::default()) {
//!     Ok(stats) => assert_eq!(stats.warps, 2),
//!     Err(e) => panic!("{e}"), // a bad configuration, or a guest fault (a `warpjit::Fault`)
//! }
//! assert_eq!(machine.global.read_bytes(c + 4 * 5, 4)?, 5005u32.to_le_bytes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::cubin::{self, Cubin, DataPlacement, DataSection, ModuleSection};
use crate::exec::{Engine, Launch, Machine, RunOptions, Stats, DEFAULT_BUDGET};
use crate::ir::Program;
pub use crate::params::{layout_params, ParamError, ParamTable, ParamValue};
use std::sync::{Arc, Mutex};
use warpjit_runtime::{BankMode, ConstBanks, Fault, GlobalMemory, MemError};

/// Most threads in a CTA (Maxwell's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Most shared memory one CTA may use, static and dynamic together (48 KiB on sm_52).
pub const MAX_SHARED_BYTES: u32 = 48 * 1024;
/// The most local memory (stack) per thread: Maxwell's 512 KiB.
pub const MAX_LOCAL_BYTES: u32 = 512 << 10;
/// The unit a CTA's shared memory is allocated in (Maxwell's shared memory allocation unit, the
/// `sharedMemAllocationUnitSize` of CUDA's occupancy rules): a launch's static and dynamic
/// shared memory, added, is rounded up to a multiple of it ([`shared_allocation`]).
pub const SHARED_ALLOCATION_UNIT: u32 = 256;

/// The shared memory a CTA of a launch asking for `bytes` (static plus dynamic, at most
/// [`MAX_SHARED_BYTES`]) has: `bytes` rounded up to [`SHARED_ALLOCATION_UNIT`], as the GPU
/// allocates it. An access past `bytes` but inside the allocation reads and writes memory of
/// the CTA's, as on the GPU (ptxas's vector loads of a dynamic array's tail rely on it). The
/// size the kernel finds in `c[0x0][0xfc]` stays `bytes`, the size asked for (Numba sizes a
/// dynamic shared array from it; docs/semantics.md §15).
///
/// ```
/// use warpjit::device::shared_allocation;
/// assert_eq!(shared_allocation(0), 0);
/// assert_eq!(shared_allocation(0x1c), 0x100);
/// assert_eq!(shared_allocation(0x100), 0x100);
/// ```
pub fn shared_allocation(bytes: u32) -> u32 {
    bytes.div_ceil(SHARED_ALLOCATION_UNIT) * SHARED_ALLOCATION_UNIT
}
/// Largest grid dimensions (x, y, z).
pub const MAX_GRID: [u32; 3] = [0x7fff_ffff, 0xffff, 0xffff];
/// Largest block dimensions (x, y, z).
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];

/// Why a module or a kernel could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// The cubin is malformed, or not for a Maxwell GPU (sm_50, sm_52, sm_53).
    #[error("{0}")]
    Cubin(#[from] cubin::CubinError),
    /// No kernel of that name.
    #[error("{0}")]
    NoKernel(String),
    /// The kernel's code does not decode (an instruction warpjit does not run, or a malformed
    /// word): the message names the instruction's byte in the file.
    #[error("kernel `{kernel}`: byte {offset:#x} of the file: {message}")]
    Decode {
        /// The kernel.
        kernel: String,
        /// The file offset of the instruction word.
        offset: u64,
        /// What is wrong.
        message: String,
    },
}

/// A cubin module: its kernels and its data (see the module docs).
#[derive(Debug, Clone)]
pub struct Module {
    cubin: Cubin,
    /// Where `.nv.constant3` starts in the data image.
    const3_offset: u64,
}

/// A named variable of a module: where it lies in the module's data image
/// ([`Module::data_image`]) and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// Offset from the data image's base.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Whether it is `__constant__` data (constant bank 3, read at each launch from the image),
    /// rather than `__device__` data.
    pub constant: bool,
}

impl Module {
    /// Parses a cubin for sm_50, sm_52 or sm_53 (see [`Cubin::parse`]).
    pub fn from_cubin(bytes: &[u8]) -> Result<Module, ModuleError> {
        let cubin = Cubin::parse(bytes)?;
        let const3_offset = cubin.module.const3_offset();
        Ok(Module {
            cubin,
            const3_offset,
        })
    }

    /// The parsed cubin.
    pub fn cubin(&self) -> &Cubin {
        &self.cubin
    }

    /// The names of the kernels, in file order.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.cubin.kernels.iter().map(|k| k.name.as_str())
    }

    /// Bytes of the data image: `.nv.global.init`, `.nv.global` (at the next multiple of 256),
    /// then `.nv.constant3` (at the next multiple of 256); 0 if the module has none.
    pub fn data_bytes(&self) -> u64 {
        if self.cubin.const3.is_empty() {
            self.cubin.module.mapped_size()
        } else {
            self.const3_offset + self.cubin.const3.len() as u64
        }
    }

    /// The data image's initial contents ([`Module::data_bytes`] long) for the image mapped at
    /// `base`: initialised `__device__` data that holds addresses (the relocations of
    /// `.nv.global.init`) holds them for that base.
    pub fn data_image(&self, base: u64) -> Vec<u8> {
        let mut image = vec![0; self.data_bytes() as usize];
        let m = &self.cubin.module;
        let init = m.init_image(DataPlacement::at(base, m));
        image[..init.len()].copy_from_slice(&init);
        let c3 = &self.cubin.const3;
        if !c3.is_empty() {
            let at = self.const3_offset as usize;
            image[at..at + c3.len()].copy_from_slice(c3);
        }
        image
    }

    /// Maps the data image at `base` in `mem` (a segment of its own, with the initial
    /// contents); nothing if the module has no data.
    pub fn map_data(&self, mem: &mut GlobalMemory, base: u64) -> Result<(), MemError> {
        if self.data_bytes() == 0 {
            return Ok(());
        }
        let image = self.data_image(base);
        mem.map(
            base,
            image.len() as u64,
            warpjit_runtime::memory::Init::Bytes(&image),
        )
    }

    /// The variable `name` (`__device__` or `__constant__`), if the module has one.
    pub fn symbol(&self, name: &str) -> Option<Symbol> {
        let s = self.cubin.symbols.iter().find(|s| s.name == name)?;
        let m = &self.cubin.module;
        let (offset, constant) = match s.section {
            DataSection::Global(ModuleSection::Init) => (s.offset, false),
            DataSection::Global(ModuleSection::Zeroed) => (m.zeroed_offset() + s.offset, false),
            DataSection::Constant => (self.const3_offset + s.offset, true),
        };
        Some(Symbol {
            offset,
            size: s.size,
            constant,
        })
    }

    /// Kernel `name`, decoded for the module's data image mapped at `data_base` (any value if
    /// [`Module::data_bytes`] is 0).
    pub fn kernel(&self, name: &str, data_base: u64) -> Result<Kernel, ModuleError> {
        let k = self
            .cubin
            .kernel(Some(name))
            .map_err(ModuleError::NoKernel)?;
        let place = DataPlacement::at(data_base, &self.cubin.module);
        let linked = self.cubin.link(k, Some(place))?;
        let dopts = crate::maxwell::DecodeOptions { registers: 255 };
        let program = crate::maxwell::decode_linked(
            &linked,
            &self.cubin.module,
            &dopts,
            &k.indirect_branches,
        )
        .map_err(|e| ModuleError::Decode {
            kernel: name.to_string(),
            offset: linked.file_offset(e.offset),
            message: e.to_string(),
        })?;
        let local_bytes = if crate::maxwell::has_calls(&linked.code) {
            k.local_bytes.max(crate::frontend::CALL_STACK_BYTES)
        } else {
            k.local_bytes
        };
        let m = &self.cubin.module;
        let bank4 = m.bank4(place.init, place.zeroed);
        let const3 = (!self.cubin.const3.is_empty()).then(|| {
            (
                data_base + self.const3_offset,
                self.cubin.const3.len() as u32,
            )
        });
        // A cubin that gives the block's size but no records: the block is known, not the
        // parameters (only a whole block, `extra` in CUDA's terms, can be given).
        let params = k.param_table().unwrap_or(ParamTable {
            offset: k.param_offset,
            size: k.param_bytes.unwrap_or(0),
            params: Vec::new(),
        });
        Ok(Kernel {
            name: name.to_string(),
            program: Arc::new(program),
            params,
            registers: k.registers,
            shared_bytes: k.shared_bytes,
            local_bytes,
            const_bytes: (k.const2.len() + self.cubin.const3.len()) as u32,
            const3,
            bank2: k.const2.clone(),
            bank4,
            banks: Mutex::new(Vec::new()),
            bound: k.max_threads,
        })
    }
}

/// A kernel ready to launch ([`Module::kernel`]).
pub struct Kernel {
    name: String,
    /// The launch bounds' most threads per block (`.maxntid`), if the kernel has them.
    bound: Option<u64>,
    program: Arc<Program>,
    params: ParamTable,
    registers: u32,
    shared_bytes: u32,
    local_bytes: u32,
    const_bytes: u32,
    /// Bank 3's backing in global memory (the data image's `.nv.constant3`), read at each
    /// launch: (address, bytes).
    const3: Option<(u64, u32)>,
    /// The images of banks 2 and 4.
    bank2: Vec<u8>,
    bank4: Vec<u8>,
    /// Sets of banks with banks 2 and 4 written (bank 0 and 3 are rewritten at each launch),
    /// taken by a launch and put back after it, so that a launch does not allocate and zero
    /// 2 MiB of banks.
    banks: Mutex<Vec<ConstBanks>>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("registers", &self.registers)
            .field("shared_bytes", &self.shared_bytes)
            .field("local_bytes", &self.local_bytes)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its decoded program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }
    /// Its parameter table.
    pub fn params(&self) -> &ParamTable {
        &self.params
    }
    /// Registers per thread.
    pub fn registers(&self) -> u32 {
        self.registers
    }
    /// Static shared memory per CTA, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }
    /// Local memory (stack) per thread, in bytes.
    pub fn local_bytes(&self) -> u32 {
        self.local_bytes
    }
    /// Bytes of constant data (banks 2 and 3) the kernel has.
    pub fn const_bytes(&self) -> u32 {
        self.const_bytes
    }
    /// Where bank 3's backing lies in global memory (the data image's `.nv.constant3`), and its
    /// size, if the module has `__constant__` data: each launch reads bank 3 from there.
    pub fn const3(&self) -> Option<(u64, u32)> {
        self.const3
    }
    /// The most threads per block its launch bounds allow (`__launch_bounds__`, PTX
    /// `.maxntid`: x × y × z), if it has them. CUDA refuses a bigger block as an invalid value,
    /// and one its registers do not fit as out of resources.
    pub fn launch_bound(&self) -> Option<u64> {
        self.bound
    }
    /// The most threads per CTA it can run with: 1024, fewer when its registers do not fit
    /// (64 K registers per SM, allocated per warp in units of 256) or its launch bounds
    /// (`__launch_bounds__`, PTX `.maxntid`: x × y × z) say fewer.
    pub fn max_threads_per_block(&self) -> u32 {
        let per_warp = (self.registers.max(1) * 32).next_multiple_of(256);
        let warps = (65536 / per_warp).min(32);
        let bound = self
            .bound
            .map_or(u32::MAX, |b| b.min(u64::from(u32::MAX)) as u32);
        (warps * 32).min(bound)
    }
}

/// The shape of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// CTAs per grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads per CTA (x, y, z).
    pub block: [u32; 3],
    /// Dynamic shared memory per CTA, in bytes (after the kernel's static shared memory).
    pub dynamic_shared_bytes: u32,
    /// Warp instructions one warp may issue before the launch faults
    /// ([`crate::exec::DEFAULT_BUDGET`] by [`LaunchConfig::new`]); the whole launch is bounded
    /// by [`Machine::launch_budget`].
    pub budget: u64,
    /// A cooperative launch (docs/semantics.md §9: its CTAs are resident together and may wait
    /// for each other through global memory), with the address of its grid workspace:
    /// [`GRID_WORKSPACE_BYTES`] zeroed bytes the caller maps, whose address the kernel finds
    /// in `c[0x0][0x34..0x3c]` (cooperative groups' `grid.sync()`). At most
    /// [`crate::exec::device::resident_ctas`] CTAs. `None` by [`LaunchConfig::new`].
    pub cooperative: Option<u64>,
}

/// Bytes of a cooperative launch's grid workspace ([`LaunchConfig::cooperative`]).
pub const GRID_WORKSPACE_BYTES: u64 = 256;

impl LaunchConfig {
    /// A launch of `grid` CTAs of `block` threads, with no dynamic shared memory and the
    /// default per-warp budget.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            dynamic_shared_bytes: 0,
            budget: DEFAULT_BUDGET,
            cooperative: None,
        }
    }
}

/// Why a launch did not run to completion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// The configuration or the parameters are not valid for the kernel: nothing ran.
    #[error("{0}")]
    Invalid(String),
    /// A guest fault stopped the launch (the fault of the lowest-numbered faulting CTA).
    #[error("{0}")]
    Fault(Box<Fault>),
}

/// Where a launch of a module with `__constant__` data finds the 64-bit global address of bank 3's
/// backing in bank 0 (`c[0x0][0xd0]`, low word first), as ptxas's code for PTX's `cvta.const`
/// reads it ([`launch`] writes it).
pub const CONST3_ADDRESS: u32 = 0xd0;

/// The constant-bank-0 words a launch sets (docs/trace-format.md §7.1), as (offset, value): the
/// shared window (0x0), the local window (0x4, 0 without local memory), the block (0x8..0x14),
/// the grid (0x14..0x20), the local bytes per thread (0x20), the shared bytes per CTA (0xfc)
/// and, for a cooperative launch, the high and low words of its grid workspace's address (0x34,
/// 0x38).
pub fn launch_constants(
    shared_window: u64,
    local_window: u64,
    grid: [u32; 3],
    block: [u32; 3],
    local_bytes: u32,
    shared_bytes: u32,
    grid_workspace: Option<u64>,
) -> Vec<(u32, u32)> {
    let local_window = if local_bytes > 0 {
        local_window as u32
    } else {
        0
    };
    let mut words = vec![
        (0x0, shared_window as u32),
        (0x4, local_window),
        (0x8, block[0]),
        (0xc, block[1]),
        (0x10, block[2]),
        (0x14, grid[0]),
        (0x18, grid[1]),
        (0x1c, grid[2]),
        (0x20, local_bytes),
        (0xfc, shared_bytes),
    ];
    if let Some(w) = grid_workspace {
        words.push((0x34, (w >> 32) as u32));
        words.push((0x38, w as u32));
    }
    words
}

/// Checks a launch's shape against the kernel and Maxwell's limits; the message says what is
/// wrong.
pub fn check_config(kernel: &Kernel, config: &LaunchConfig) -> Result<(), String> {
    let LaunchConfig {
        grid,
        block,
        dynamic_shared_bytes,
        budget: _,
        cooperative,
    } = *config;
    for i in 0..3 {
        let axis = ["x", "y", "z"][i];
        if grid[i] == 0 || grid[i] > MAX_GRID[i] {
            return Err(format!(
                "grid {axis} = {} is outside 1..={}",
                grid[i], MAX_GRID[i]
            ));
        }
        if block[i] == 0 || block[i] > MAX_BLOCK[i] {
            return Err(format!(
                "block {axis} = {} is outside 1..={}",
                block[i], MAX_BLOCK[i]
            ));
        }
    }
    let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
    if threads > u64::from(kernel.max_threads_per_block()) {
        return Err(format!(
            "a block of {threads} threads: kernel `{}` runs at most {} ({} registers per thread{})",
            kernel.name,
            kernel.max_threads_per_block(),
            kernel.registers,
            if kernel.bound.is_some() {
                ", launch bounds"
            } else {
                ""
            }
        ));
    }
    // No limit on the grid's threads but CUDA's on its dimensions (up to 2^31-1 × 65535 ×
    // 65535 CTAs): what a launch runs is bounded by the machine's launch budget, of which each
    // CTA's start takes a share (docs/semantics.md §11).
    if kernel.local_bytes > MAX_LOCAL_BYTES {
        return Err(format!(
            "kernel `{}` needs {:#x} bytes of local memory per thread: at most {:#x} (512 KiB, \
             Maxwell's local memory per thread)",
            kernel.name, kernel.local_bytes, MAX_LOCAL_BYTES
        ));
    }
    let shared = u64::from(kernel.shared_bytes) + u64::from(dynamic_shared_bytes);
    if shared > u64::from(MAX_SHARED_BYTES) {
        return Err(format!(
            "{shared} bytes of shared memory per block ({} static + {dynamic_shared_bytes} \
             dynamic): at most {MAX_SHARED_BYTES}",
            kernel.shared_bytes
        ));
    }
    if cooperative.is_some() {
        // CUDA refuses a cooperative launch whose CTAs cannot all be resident at once.
        let shape = crate::exec::device::CtaShape {
            threads,
            registers: kernel.registers,
            shared_bytes: shared as u32,
            local_bytes: kernel.local_bytes,
        };
        let ctas: u64 = grid.iter().map(|&g| u64::from(g)).product();
        if ctas > shape.resident() {
            return Err(format!(
                "a cooperative launch's CTAs must all be resident at once: {ctas} CTAs, and the \
                 device holds {} of these",
                shape.resident()
            ));
        }
    }
    Ok(())
}

/// Runs `kernel` over `machine` with the parameter block `params` (exactly
/// [`ParamTable::size`] long; see [`ParamTable::layout`]) on `engine` (the interpreter
/// [`crate::interp::Interpreter`] or the JIT [`crate::jit::Jit`]), with `opts`' host threads and
/// observer. Memory keeps what the launch wrote. A bad configuration is
/// [`LaunchError::Invalid`] (nothing runs); a guest fault stops the launch
/// ([`LaunchError::Fault`]).
pub fn launch(
    engine: &dyn Engine,
    machine: &Machine,
    kernel: &Kernel,
    config: &LaunchConfig,
    params: &[u8],
    opts: &RunOptions,
) -> Result<Stats, LaunchError> {
    check_config(kernel, config).map_err(LaunchError::Invalid)?;
    if params.len() != kernel.params.size as usize {
        return Err(LaunchError::Invalid(format!(
            "the kernel's parameters take {} bytes, the block given is {}",
            kernel.params.size,
            params.len()
        )));
    }
    let shared_bytes = kernel.shared_bytes + config.dynamic_shared_bytes;
    let spare = kernel.banks.lock().unwrap_or_else(|p| p.into_inner()).pop();
    let mut banks = spare.unwrap_or_else(|| {
        let mut b = ConstBanks::new();
        // The images fit their banks: the cubin reader checked each is at most 64 KiB.
        let _ = b.write(2, 0, &kernel.bank2);
        let _ = b.write(4, 0, &kernel.bank4);
        b
    });
    let words = launch_constants(
        machine.shared_window,
        machine.local_window,
        config.grid,
        config.block,
        kernel.local_bytes,
        shared_bytes,
        config.cooperative,
    );
    for (at, v) in words {
        let _ = banks.write(0, at, &v.to_le_bytes());
    }
    let _ = banks.write(0, kernel.params.offset, params);
    if let Some((addr, len)) = kernel.const3 {
        // The data image's bank 3, as the host last wrote it (unmapped: zeros).
        let bytes = machine
            .global
            .read_bytes(addr, u64::from(len))
            .unwrap_or_else(|_| vec![0; len as usize]);
        let _ = banks.write(3, 0, &bytes);
        // The generic address of bank 3's first byte, which PTX's `cvta.const` reads from
        // `c[0x0][0xd0]` (low word) and `c[0x0][0xd4]` (high word): Numba keeps `print`'s format
        // strings in bank 3 and hands `vprintf` such an address.
        let _ = banks.write(0, CONST3_ADDRESS, &addr.to_le_bytes());
    }
    let consts = Arc::new(banks);
    let launch = Launch {
        index: 0,
        program: kernel.program.clone(),
        grid: config.grid,
        block: config.block,
        mode: BankMode::Compute,
        shared_bytes: shared_allocation(shared_bytes),
        local_bytes: kernel.local_bytes,
        consts,
        budget: config.budget,
        cooperative: config.cooperative.is_some(),
    };
    let result = engine.run(machine, &launch, opts);
    if let Ok(b) = Arc::try_unwrap(launch.consts) {
        let mut spares = kernel.banks.lock().unwrap_or_else(|p| p.into_inner());
        if spares.len() < 4 {
            spares.push(b);
        }
    }
    result.map_err(|f| LaunchError::Fault(Box::new(f)))
}
