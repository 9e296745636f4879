//! The driver's state: the machine all contexts share, the handles it gave out (contexts,
//! modules, functions, streams, events, link states, libraries), the allocations, and each host
//! thread's stack of current contexts.
//!
//! Locks: [`Driver::inner`] (handles and allocations) is held only briefly and never while a
//! kernel runs or a host callback is called; [`Driver::machine`] is read-locked by launches and
//! copies and write-locked to map or unmap memory. `inner` is taken before `machine`, never the
//! other way round.

use crate::abi::{CUresult, Handle};
use crate::error::{self, Res};
use crate::memory::{Alloc, Kind, Va};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use warpjit::device::{Kernel, Module};
use warpjit::exec::{Engine, Machine, Observer};

/// The kinds of handle, in the handle's bits 40..48 (a handle is `TAG | kind << 40 | serial << 4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum HandleKind {
    /// `CUcontext`.
    Context = 1,
    /// `CUmodule`.
    Module = 2,
    /// `CUfunction` and `CUkernel` (one kind: a kernel handle launches as a function).
    Function = 3,
    /// `CUstream`.
    Stream = 4,
    /// `CUevent`.
    Event = 5,
    /// `CUlinkState`.
    Link = 6,
    /// `CUlibrary`.
    Library = 7,
}

const TAG: u64 = 0x5700_0000_0000_0000;

/// A handle value: never 0, 1 or 2 (`CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD`).
pub fn handle(kind: HandleKind, serial: u64) -> Handle {
    (TAG | (kind as u64) << 40 | serial << 4) as Handle
}

/// The serial of handle `h` if it is of kind `kind`.
pub fn serial(h: Handle, kind: HandleKind) -> Option<u64> {
    let v = h as u64;
    (v & 0xff00_0000_0000_0000 == TAG && (v >> 40) & 0xff == kind as u64 && v & 0xf == 0)
        .then_some((v & 0xff_ffff_ffff) >> 4)
}

/// A context.
pub struct Ctx {
    /// Its flags (`CU_CTX_*`).
    pub flags: u32,
    /// Whether it is the device's primary context.
    pub primary: bool,
    /// The sticky error a guest fault left (every later call in the context returns it).
    pub error: Option<CUresult>,
    /// `cuCtxSetLimit` values, by `CUlimit`.
    pub limits: HashMap<i64, usize>,
    /// `cuCtxSetCacheConfig`.
    pub cache_config: i32,
}

/// A loaded module.
pub struct LoadedModule {
    /// Its context.
    pub ctx: u64,
    /// The parsed cubin.
    pub module: Arc<Module>,
    /// The cubin's bytes (for recording).
    pub cubin: Arc<Vec<u8>>,
    /// Where its data image is (0 if none).
    pub data_base: u64,
    /// Functions made so far, by name.
    pub functions: HashMap<String, u64>,
}

/// A function (a kernel of a module).
pub struct Function {
    /// Its module.
    pub module: u64,
    /// The decoded kernel.
    pub kernel: Arc<Kernel>,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` as set.
    pub max_dynamic_shared: i32,
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT` as set.
    pub carveout: i32,
    /// `cuFuncSetCacheConfig`.
    pub cache_config: i32,
}

/// A stream.
pub struct Stream {
    /// Its context.
    pub ctx: u64,
    /// Its flags.
    pub flags: u32,
    /// Its priority.
    pub priority: i32,
}

/// An event.
pub struct Event {
    /// Its context.
    pub ctx: u64,
    /// Its flags.
    pub flags: u32,
    /// When it was last recorded (every launch before it has completed by then).
    pub recorded: Option<std::time::Instant>,
}

/// A JIT link in progress (`cuLinkCreate`).
#[derive(Default)]
pub struct Link {
    /// The inputs added: (kind as `CUjitInputType`, bytes, name).
    pub inputs: Vec<(i64, Vec<u8>, String)>,
    /// The cubin made by `cuLinkComplete` (kept until `cuLinkDestroy`).
    pub output: Option<Vec<u8>>,
    /// Its log buffers: (info, info size, error, error size) as given by the options.
    pub logs: [(usize, usize); 2],
}

/// A library (`cuLibraryLoadData`): a module loaded in the context current at load.
pub struct Library {
    /// The module.
    pub module: u64,
}

/// Handles and allocations.
#[derive(Default)]
pub struct Inner {
    /// The next serial.
    pub next: u64,
    /// Contexts by serial.
    pub ctxs: HashMap<u64, Ctx>,
    /// The primary context, its retain count, and its flags (also kept while it is inactive).
    pub primary: Option<u64>,
    /// Retains of the primary context.
    pub primary_retains: u32,
    /// The flags of the primary context.
    pub primary_flags: u32,
    /// Allocations by base address.
    pub allocs: BTreeMap<u64, Alloc>,
    /// Bytes allocated from the device's memory.
    pub used: u64,
    /// Modules.
    pub modules: HashMap<u64, LoadedModule>,
    /// Functions.
    pub functions: HashMap<u64, Function>,
    /// Streams.
    pub streams: HashMap<u64, Stream>,
    /// Events.
    pub events: HashMap<u64, Event>,
    /// Link states.
    pub links: HashMap<u64, Link>,
    /// Libraries.
    pub libraries: HashMap<u64, Library>,
    /// The reserved address range.
    pub va: Option<Va>,
    /// Launches so far (for recording and the fault report).
    pub launches: u64,
    /// Allocations exported to other processes (`cuIpcGetMemHandle`), by base address.
    pub exported: HashMap<u64, crate::ipc::Export>,
    /// Memory of other processes opened here (`cuIpcOpenMemHandle`), by base address.
    pub imported: HashMap<u64, crate::ipc::Import>,
}

impl Inner {
    /// A fresh serial.
    pub fn serial(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The allocation holding `addr`: its base and itself.
    pub fn alloc_at(&self, addr: u64) -> Option<(u64, Alloc)> {
        let (&base, a) = self.allocs.range(..=addr).next_back()?;
        (addr - base < a.size.max(1)).then_some((base, *a))
    }
}

/// The engine kernels run on.
pub enum EngineChoice {
    /// The Cranelift JIT.
    Jit(Box<warpjit::jit::Jit>),
    /// The reference interpreter.
    Interp(warpjit::interp::Interpreter),
}

impl EngineChoice {
    /// The engine.
    pub fn engine(&self) -> &dyn Engine {
        match self {
            EngineChoice::Jit(j) => j.as_ref(),
            EngineChoice::Interp(i) => i,
        }
    }
}

/// The driver, made by `cuInit`.
pub struct Driver {
    /// Handles and allocations.
    pub inner: Mutex<Inner>,
    /// Global memory and the windows, shared by every context.
    pub machine: RwLock<Machine>,
    /// The engine.
    pub engine: EngineChoice,
    /// Host threads per launch (`WARPJIT_CUDA_THREADS`; 0: all cores).
    pub threads: usize,
    /// The device memory reported (`WARPJIT_CUDA_MEMORY`).
    pub memory: u64,
    /// Where to record launches (`WARPJIT_CUDA_RECORD`).
    pub record: Option<std::path::PathBuf>,
    /// Warp instructions one launch may issue (`WARPJIT_CUDA_LAUNCH_BUDGET`, default
    /// [`DEFAULT_LAUNCH_BUDGET`]); a launch that needs more faults with
    /// `CUDA_ERROR_LAUNCH_TIMEOUT`, as a GPU's watchdog would stop it.
    pub launch_budget: u64,
    /// The sanitizer every launch runs under (`WARPJIT_CUDA_CHECK`, the tools as
    /// `warpjit run --check=TOOLS` takes them), told of the driver's allocations, frees and
    /// host writes.
    pub check: Option<Arc<warpjit::sanitizer::Sanitizer>>,
    /// Where each launch's count of sanitizer errors and warnings is appended
    /// (`WARPJIT_CUDA_CHECK_OUT`: `warpjit cuda --check` sums them when the program ends).
    pub check_out: Option<std::path::PathBuf>,
    /// The process that called `cuInit`. A child it forks has a copy of this state but not the
    /// device: there, as with NVIDIA's driver (which is not fork-safe), every call returns
    /// `CUDA_ERROR_NOT_INITIALIZED` (Numba's fork detection relies on it).
    pub pid: u32,
}

/// The default launch budget of the driver: 2^36 warp instructions (about 2 * 10^12
/// lane-instructions, minutes of the JIT's time): a kernel that never ends is stopped.
pub const DEFAULT_LAUNCH_BUDGET: u64 = 1 << 36;

static DRIVER: OnceLock<Result<Driver, CUresult>> = OnceLock::new();

/// Parses a byte count: digits with an optional K, M, G or T suffix (binary).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, shift) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 10),
        'm' | 'M' => (&s[..s.len() - 1], 20),
        'g' | 'G' => (&s[..s.len() - 1], 30),
        't' | 'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

fn make_driver() -> Result<Driver, CUresult> {
    let engine = match std::env::var("WARPJIT_CUDA_ENGINE").as_deref() {
        Ok("interp") => EngineChoice::Interp(warpjit::interp::Interpreter),
        Ok("jit") | Err(_) => {
            EngineChoice::Jit(Box::new(warpjit::jit::Jit::new().map_err(|e| {
                crate::entry::log_line(&format!("cannot start the JIT: {e}"));
                error::UNKNOWN
            })?))
        }
        Ok(other) => {
            crate::entry::log_line(&format!(
                "WARPJIT_CUDA_ENGINE={other}: expected `jit` or `interp`"
            ));
            return Err(error::INVALID_VALUE);
        }
    };
    let threads = std::env::var("WARPJIT_CUDA_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let memory = std::env::var("WARPJIT_CUDA_MEMORY")
        .ok()
        .and_then(|m| parse_bytes(&m))
        .unwrap_or(crate::device::DEFAULT_MEMORY);
    let record = std::env::var_os("WARPJIT_CUDA_RECORD")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from);
    let check = match std::env::var("WARPJIT_CUDA_CHECK") {
        Ok(t) if !t.is_empty() => match warpjit::sanitizer::Tools::parse(&t) {
            Ok(tools) => Some(Arc::new(warpjit::sanitizer::Sanitizer::new(tools))),
            Err(m) => {
                crate::entry::log_line(&format!("WARPJIT_CUDA_CHECK={t}: {m}"));
                return Err(error::INVALID_VALUE);
            }
        },
        _ => None,
    };
    let check_out = std::env::var_os("WARPJIT_CUDA_CHECK_OUT")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from);
    let base = crate::memory::reserve(crate::memory::VA_BASE, crate::memory::VA_SIZE)
        .ok_or(error::OUT_OF_MEMORY)?;
    let windows = crate::memory::reserve_low_window(2 * warpjit::runtime::SHARED_WINDOW_SIZE)
        .ok_or(error::OUT_OF_MEMORY)?;
    let launch_budget = std::env::var("WARPJIT_CUDA_LAUNCH_BUDGET")
        .ok()
        .and_then(|b| b.parse().ok())
        .filter(|&b| b > 0)
        .unwrap_or(DEFAULT_LAUNCH_BUDGET);
    let machine = Machine {
        shared_window: windows,
        local_window: windows + warpjit::runtime::SHARED_WINDOW_SIZE,
        launch_budget,
        ..Machine::default()
    };
    let inner = Inner {
        va: Some(Va::new(base, crate::memory::VA_SIZE)),
        ..Inner::default()
    };
    Ok(Driver {
        inner: Mutex::new(inner),
        machine: RwLock::new(machine),
        engine,
        threads,
        memory,
        record,
        launch_budget,
        check,
        check_out,
        pid: std::process::id(),
    })
}

/// Initialises the driver (`cuInit`); later calls return the first outcome.
pub fn init() -> Res {
    match DRIVER.get_or_init(make_driver) {
        Ok(d) if d.pid == std::process::id() => Ok(()),
        Ok(_) => Err(error::NOT_INITIALIZED),
        Err(e) => Err(*e),
    }
}

/// The driver, or `CUDA_ERROR_NOT_INITIALIZED` before `cuInit` and in a child forked after it
/// ([`Driver::pid`]).
pub fn driver() -> Res<&'static Driver> {
    match DRIVER.get() {
        Some(Ok(d)) if d.pid == std::process::id() => Ok(d),
        Some(Ok(_)) | Some(Err(_)) | None => Err(error::NOT_INITIALIZED),
    }
}

/// The driver's handles and allocations, locked.
pub fn inner() -> Res<MutexGuard<'static, Inner>> {
    Ok(driver()?.inner.lock().unwrap_or_else(|p| p.into_inner()))
}

thread_local! {
    /// This host thread's stack of current contexts (serials), the current one last.
    static STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The current context's serial, if any.
pub fn current() -> Option<u64> {
    STACK.with(|s| s.borrow().last().copied())
}

/// Runs `f` on this thread's context stack.
pub fn with_stack<R>(f: impl FnOnce(&mut Vec<u64>) -> R) -> R {
    STACK.with(|s| f(&mut s.borrow_mut()))
}

/// The current context, checked to exist and to have no sticky error: its serial.
pub fn current_ctx(inner: &Inner) -> Res<u64> {
    let c = current().ok_or(error::INVALID_CONTEXT)?;
    let ctx = inner.ctxs.get(&c).ok_or(error::CONTEXT_IS_DESTROYED)?;
    match ctx.error {
        Some(e) => Err(e),
        None => Ok(c),
    }
}

/// The context of a stream handle (0, `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD` are the
/// current context's default streams), checked as [`current_ctx`] checks.
pub fn stream_ctx(inner: &Inner, stream: Handle) -> Res<u64> {
    let v = stream as usize;
    if v == 0 || v == crate::abi::CU_STREAM_LEGACY || v == crate::abi::CU_STREAM_PER_THREAD {
        return current_ctx(inner);
    }
    let s = serial(stream, HandleKind::Stream)
        .and_then(|s| inner.streams.get(&s))
        .ok_or(error::INVALID_HANDLE)?;
    let ctx = inner.ctxs.get(&s.ctx).ok_or(error::CONTEXT_IS_DESTROYED)?;
    match ctx.error {
        Some(e) => Err(e),
        None => Ok(s.ctx),
    }
}

/// Frees an allocation made by the driver (not registered host memory): unmapped from the
/// guest, its pages given back.
pub fn free_alloc(d: &Driver, inner: &mut Inner, base: u64) -> Res {
    let a = inner.allocs.remove(&base).ok_or(error::INVALID_VALUE)?;
    let mut m = d.machine.write().unwrap_or_else(|p| p.into_inner());
    let _ = m.global.unmap(base);
    let shared = inner.exported.remove(&base).map(|e| e.handle.len);
    let shared = shared.or_else(|| inner.imported.remove(&base).map(|i| i.handle.len));
    if let Some(len) = shared {
        // Pages of a memory file (exported, or another process's): the reservation goes back
        // over them, so that the range reads zeros when allocated again; other processes keep
        // the file's pages.
        // SAFETY: the range is this allocation's, no longer mapped into the guest.
        unsafe { crate::memory::unshare(base, len) };
    }
    drop(m);
    if let Some(s) = &d.check {
        s.free(base, a.size);
    }
    if !matches!(a.kind, Kind::Registered(_)) {
        if let Some(va) = inner.va.as_mut() {
            va.free(base, a.size);
        }
        if a.kind == Kind::Device {
            inner.used = inner.used.saturating_sub(a.mapped);
        }
    }
    Ok(())
}

/// Allocates `bytes` of driver memory of `kind` in context `ctx`, mapped into the guest.
pub fn alloc(d: &Driver, inner: &mut Inner, ctx: u64, bytes: u64, kind: Kind) -> Res<u64> {
    if bytes == 0 {
        return Err(error::INVALID_VALUE);
    }
    let mapped = bytes
        .checked_next_multiple_of(256)
        .ok_or(error::OUT_OF_MEMORY)?;
    if kind == Kind::Device && inner.used.saturating_add(mapped) > d.memory {
        return Err(error::OUT_OF_MEMORY);
    }
    let va = inner.va.as_mut().ok_or(error::NOT_INITIALIZED)?;
    let base = va.alloc(mapped).ok_or(error::OUT_OF_MEMORY)?;
    let mut m = d.machine.write().unwrap_or_else(|p| p.into_inner());
    // SAFETY: the pages are this allocation's, readable and writable, and stay so until
    // `free_alloc` unmaps the segment before giving them back.
    let r = unsafe { m.global.map_host(base, base as *mut u8, mapped) };
    drop(m);
    if r.is_err() {
        if let Some(va) = inner.va.as_mut() {
            va.free(base, mapped);
        }
        return Err(error::OUT_OF_MEMORY);
    }
    let id = inner.serial();
    inner.allocs.insert(
        base,
        Alloc {
            size: bytes,
            mapped,
            kind,
            ctx,
            id,
        },
    );
    if kind == Kind::Device {
        inner.used += mapped;
    }
    if let Some(s) = &d.check {
        // Device memory holds nothing defined until written (as cudaMalloc's, for initcheck);
        // host memory is the program's, written where the driver cannot see.
        s.alloc(base, bytes, kind != Kind::Device);
    }
    Ok(base)
}

/// Destroys context `c`: frees its allocations and unloads its modules, streams and events.
pub fn destroy_ctx(d: &Driver, inner: &mut Inner, c: u64) {
    inner.ctxs.remove(&c);
    let bases: Vec<u64> = inner
        .allocs
        .iter()
        .filter(|(_, a)| a.ctx == c)
        .map(|(b, _)| *b)
        .collect();
    for b in bases {
        let _ = free_alloc(d, inner, b);
    }
    let mods: Vec<u64> = inner
        .modules
        .iter()
        .filter(|(_, m)| m.ctx == c)
        .map(|(k, _)| *k)
        .collect();
    for m in mods {
        inner.modules.remove(&m);
        inner.functions.retain(|_, f| f.module != m);
        inner.libraries.retain(|_, l| l.module != m);
    }
    inner.streams.retain(|_, s| s.ctx != c);
    inner.events.retain(|_, e| e.ctx != c);
    with_stack(|s| s.retain(|&x| x != c));
}
