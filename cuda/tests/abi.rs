//! The driver through its C ABI: the built `libcuda.so` loaded with libloading and called as a
//! C program would (types as cuda.h declares them). Each test that launches works in a context
//! of its own, since a fault's sticky error is per context.

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_void, CStr};
use std::path::PathBuf;
use std::sync::OnceLock;

type Handle = *mut c_void;
type R = i32;

const SUCCESS: R = 0;
const INVALID_VALUE: R = 1;
const NOT_FOUND: R = 500;
const INVALID_HANDLE: R = 400;
const ILLEGAL_ADDRESS: R = 700;

/// The library cargo built for this test: `target/<profile>/deps/libcuda.so`, beside this test
/// (`cargo build` also copies it to `target/<profile>/`).
fn lib_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let here = deps.join("libcuda.so");
    if here.is_file() {
        here
    } else {
        deps.parent().unwrap().join("libcuda.so")
    }
}

fn lib() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: the library's initialisers are Rust's; loading it runs nothing else.
        let l = unsafe { Library::new(lib_path()) }.expect("target/*/libcuda.so is built");
        let init: Symbol<unsafe extern "C" fn(u32) -> R> = unsafe { l.get(b"cuInit\0") }.unwrap();
        assert_eq!(unsafe { init(0) }, SUCCESS);
        l
    })
}

macro_rules! f {
    ($name:literal, fn($($t:ty),* $(,)?)) => {{
        // SAFETY: the symbol has this C signature in cuda.h.
        let s: Symbol<unsafe extern "C" fn($($t),*) -> R> =
            unsafe { lib().get(concat!($name, "\0").as_bytes()) }.expect($name);
        *s
    }};
}

fn cubin(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../tests/cubin/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A new context of the test's own, current on this thread.
fn context() -> Handle {
    let create = f!("cuCtxCreate_v2", fn(*mut Handle, u32, i32));
    let mut ctx: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { create(&mut ctx, 0, 0) }, SUCCESS);
    ctx
}

fn destroy(ctx: Handle) {
    let d = f!("cuCtxDestroy_v2", fn(Handle));
    assert_eq!(unsafe { d(ctx) }, SUCCESS);
}

#[test]
fn version_device_and_attributes() {
    let version = f!("cuDriverGetVersion", fn(*mut i32));
    let mut v = 0;
    assert_eq!(unsafe { version(&mut v) }, SUCCESS);
    assert_eq!(v, 12090);
    let count = f!("cuDeviceGetCount", fn(*mut i32));
    let mut n = 0;
    assert_eq!(unsafe { count(&mut n) }, SUCCESS);
    assert_eq!(n, 1);
    let get = f!("cuDeviceGet", fn(*mut i32, i32));
    let mut dev = -1;
    assert_eq!(unsafe { get(&mut dev, 0) }, SUCCESS);
    assert_eq!(dev, 0);
    assert_eq!(unsafe { get(&mut dev, 1) }, 101, "one device only");
    let name = f!("cuDeviceGetName", fn(*mut c_char, i32, i32));
    let mut buf = [0 as c_char; 64];
    assert_eq!(unsafe { name(buf.as_mut_ptr(), 64, 0) }, SUCCESS);
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
    assert_eq!(s, "warpjit Maxwell (sm_52)");
    let attr = f!("cuDeviceGetAttribute", fn(*mut i32, i32, i32));
    // (attribute number from cuda.h, a GTX 980's value)
    for (a, want) in [
        (16, 16),
        (75, 5),
        (76, 2),
        (10, 32),
        (1, 1024),
        (39, 2048),
        (8, 49152),
        (81, 98304),
        (12, 65536),
        (13, 1_216_000),
        (41, 1),
        (95, 0),
    ] {
        let mut v = -7;
        assert_eq!(unsafe { attr(&mut v, a, 0) }, SUCCESS, "attribute {a}");
        assert_eq!(v, want, "attribute {a}");
    }
    let mut v = 0;
    assert_eq!(unsafe { attr(&mut v, 100_000, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { attr(std::ptr::null_mut(), 16, 0) }, INVALID_VALUE);
    let total = f!("cuDeviceTotalMem_v2", fn(*mut usize, i32));
    let mut t = 0usize;
    assert_eq!(unsafe { total(&mut t, 0) }, SUCCESS);
    assert_eq!(t, 4 << 30);
}

#[test]
fn proc_address_and_error_strings() {
    let gpa = f!(
        "cuGetProcAddress_v2",
        fn(*const c_char, *mut *mut c_void, i32, u64, *mut i32)
    );
    let mut p: *mut c_void = std::ptr::null_mut();
    let mut status = -1;
    assert_eq!(
        unsafe { gpa(c"cuMemAlloc".as_ptr(), &mut p, 12000, 0, &mut status) },
        SUCCESS
    );
    assert_eq!(status, 0);
    let direct: Symbol<unsafe extern "C" fn(*mut u64, usize) -> R> =
        unsafe { lib().get(b"cuMemAlloc_v2\0") }.unwrap();
    assert_eq!(p as usize, *direct as usize, "the _v2 form");
    // Not implemented: NOT_FOUND and a null pointer, never a crash.
    p = std::ptr::dangling_mut::<c_void>();
    assert_eq!(
        unsafe { gpa(c"cuGraphCreate".as_ptr(), &mut p, 12000, 0, &mut status) },
        NOT_FOUND
    );
    assert!(p.is_null());
    assert_eq!(status, 1);
    // cuCtxCreate at 12050 is cuCtxCreate_v4, which warpjit does not implement; at 3020, _v2.
    assert_eq!(
        unsafe { gpa(c"cuCtxCreate".as_ptr(), &mut p, 12050, 0, &mut status) },
        NOT_FOUND
    );
    assert_eq!(
        unsafe { gpa(c"cuCtxCreate".as_ptr(), &mut p, 3020, 0, &mut status) },
        SUCCESS
    );
    // Older than the function: version not sufficient.
    assert_eq!(
        unsafe { gpa(c"cuLibraryLoadData".as_ptr(), &mut p, 11000, 0, &mut status) },
        NOT_FOUND
    );
    assert_eq!(status, 2);
    let name = f!("cuGetErrorName", fn(R, *mut *const c_char));
    let text = f!("cuGetErrorString", fn(R, *mut *const c_char));
    let mut s: *const c_char = std::ptr::null();
    assert_eq!(unsafe { name(ILLEGAL_ADDRESS, &mut s) }, SUCCESS);
    assert_eq!(
        unsafe { CStr::from_ptr(s) }.to_str().unwrap(),
        "CUDA_ERROR_ILLEGAL_ADDRESS"
    );
    assert_eq!(unsafe { text(ILLEGAL_ADDRESS, &mut s) }, SUCCESS);
    assert!(unsafe { CStr::from_ptr(s) }
        .to_str()
        .unwrap()
        .contains("illegal memory access"));
    assert_eq!(unsafe { name(12345, &mut s) }, INVALID_VALUE);
}

#[test]
fn contexts_are_per_thread_stacks() {
    let retain = f!("cuDevicePrimaryCtxRetain", fn(*mut Handle, i32));
    let set = f!("cuCtxSetCurrent", fn(Handle));
    let get = f!("cuCtxGetCurrent", fn(*mut Handle));
    let push = f!("cuCtxPushCurrent_v2", fn(Handle));
    let pop = f!("cuCtxPopCurrent_v2", fn(*mut Handle));
    let mut primary: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { retain(&mut primary, 0) }, SUCCESS);
    assert!(!primary.is_null());
    assert_eq!(unsafe { set(primary) }, SUCCESS);
    let created = context(); // pushed on top
    let mut cur: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { get(&mut cur) }, SUCCESS);
    assert_eq!(cur, created);
    let mut popped: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { pop(&mut popped) }, SUCCESS);
    assert_eq!(popped, created);
    assert_eq!(unsafe { get(&mut cur) }, SUCCESS);
    assert_eq!(cur, primary);
    // Another thread starts with no current context.
    let other = std::thread::spawn(move || {
        let get = f!("cuCtxGetCurrent", fn(*mut Handle));
        let mut c: Handle = 1 as Handle;
        assert_eq!(unsafe { get(&mut c) }, SUCCESS);
        c.is_null()
    });
    assert!(other.join().unwrap());
    assert_eq!(unsafe { push(created) }, SUCCESS);
    destroy(created);
    // A destroyed context's handle is refused; a made-up one too.
    assert_ne!(unsafe { push(created) }, SUCCESS);
    assert_ne!(unsafe { push(0x1234 as Handle) }, SUCCESS);
}

#[test]
fn memory_copies_sets_and_pointers() {
    let ctx = context();
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let free = f!("cuMemFree_v2", fn(u64));
    let htod = f!("cuMemcpyHtoD_v2", fn(u64, *const c_void, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let set32 = f!("cuMemsetD32_v2", fn(u64, u32, usize));
    let range = f!("cuMemGetAddressRange_v2", fn(*mut u64, *mut usize, u64));
    let attr = f!("cuPointerGetAttribute", fn(*mut c_void, i32, u64));
    let mut a = 0u64;
    assert_eq!(unsafe { alloc(&mut a, 1000) }, SUCCESS);
    assert!(a != 0 && a.is_multiple_of(256));
    let data: Vec<u32> = (0..250).collect();
    assert_eq!(unsafe { htod(a, data.as_ptr().cast(), 1000) }, SUCCESS);
    assert_eq!(unsafe { set32(a + 8, 0xdead_beef, 2) }, SUCCESS);
    let mut back = vec![0u32; 250];
    assert_eq!(unsafe { dtoh(back.as_mut_ptr().cast(), a, 1000) }, SUCCESS);
    assert_eq!(&back[..5], &[0, 1, 0xdead_beef, 0xdead_beef, 4]);
    assert_eq!(back[249], 249);
    let (mut base, mut size) = (0u64, 0usize);
    assert_eq!(unsafe { range(&mut base, &mut size, a + 500) }, SUCCESS);
    assert_eq!((base, size), (a, 1000));
    let mut mt = 0u32;
    assert_eq!(unsafe { attr((&mut mt as *mut u32).cast(), 2, a) }, SUCCESS); // MEMORY_TYPE
    assert_eq!(mt, 2, "CU_MEMORYTYPE_DEVICE");
    // Past the end, and after the free: invalid, never a crash.
    assert_eq!(
        unsafe { htod(a + 996, data.as_ptr().cast(), 8) },
        INVALID_VALUE
    );
    assert_eq!(unsafe { free(a) }, SUCCESS);
    assert_eq!(
        unsafe { dtoh(back.as_mut_ptr().cast(), a, 4) },
        INVALID_VALUE
    );
    assert_eq!(unsafe { free(a) }, INVALID_VALUE);
    // Page-locked host memory: its device pointer is itself.
    let host_alloc = f!("cuMemHostAlloc", fn(*mut *mut c_void, usize, u32));
    let dev_ptr = f!(
        "cuMemHostGetDevicePointer_v2",
        fn(*mut u64, *mut c_void, u32)
    );
    let free_host = f!("cuMemFreeHost", fn(*mut c_void));
    let mut h: *mut c_void = std::ptr::null_mut();
    assert_eq!(unsafe { host_alloc(&mut h, 64, 2) }, SUCCESS);
    let mut d = 0u64;
    assert_eq!(unsafe { dev_ptr(&mut d, h, 0) }, SUCCESS);
    assert_eq!(d, h as u64);
    unsafe { *(h as *mut u32) = 77 };
    let mut x = 0u32;
    assert_eq!(unsafe { dtoh((&mut x as *mut u32).cast(), d, 4) }, SUCCESS);
    assert_eq!(x, 77);
    assert_eq!(unsafe { free_host(h) }, SUCCESS);
    destroy(ctx);
}

/// Launches vadd(a, b, c, n) with `kernelParams`, then with `extra`; then with a bad pointer:
/// the launch returns success (as CUDA's asynchronous launch), the context's next calls
/// CUDA_ERROR_ILLEGAL_ADDRESS.
#[test]
fn launches_and_a_sticky_fault() {
    let ctx = context();
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let launch = f!(
        "cuLaunchKernel",
        fn(Handle, u32, u32, u32, u32, u32, u32, u32, Handle, *mut *mut c_void, *mut *mut c_void)
    );
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let htod = f!("cuMemcpyHtoD_v2", fn(u64, *const c_void, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let sync = f!("cuCtxSynchronize", fn());
    let fattr = f!("cuFuncGetAttribute", fn(*mut i32, i32, Handle));
    let image = cubin("vadd.cubin");
    let mut m: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { load(&mut m, image.as_ptr().cast()) }, SUCCESS);
    let mut func: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { get_fn(&mut func, m, c"nope".as_ptr()) }, NOT_FOUND);
    assert_eq!(unsafe { get_fn(&mut func, m, c"vadd".as_ptr()) }, SUCCESS);
    let mut regs = 0;
    assert_eq!(unsafe { fattr(&mut regs, 4, func) }, SUCCESS); // NUM_REGS
    assert!(regs > 0);
    let n = 300u32;
    let (mut a, mut b, mut c) = (0u64, 0u64, 0u64);
    for p in [&mut a, &mut b, &mut c] {
        assert_eq!(unsafe { alloc(p, 4 * n as usize) }, SUCCESS);
    }
    let av: Vec<u32> = (0..n).map(|i| i * 3).collect();
    let bv: Vec<u32> = (0..n).map(|i| 7 + i).collect();
    assert_eq!(
        unsafe { htod(a, av.as_ptr().cast(), 4 * n as usize) },
        SUCCESS
    );
    assert_eq!(
        unsafe { htod(b, bv.as_ptr().cast(), 4 * n as usize) },
        SUCCESS
    );
    let mut args: [*mut c_void; 4] = [
        (&mut a as *mut u64).cast(),
        (&mut b as *mut u64).cast(),
        (&mut c as *mut u64).cast(),
        (&n as *const u32).cast_mut().cast(),
    ];
    let r = unsafe {
        launch(
            func,
            3,
            1,
            1,
            128,
            1,
            1,
            0,
            std::ptr::null_mut(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, SUCCESS);
    assert_eq!(unsafe { sync() }, SUCCESS);
    let mut out = vec![0u32; n as usize];
    assert_eq!(
        unsafe { dtoh(out.as_mut_ptr().cast(), c, 4 * n as usize) },
        SUCCESS
    );
    assert!(out.iter().enumerate().all(|(i, &v)| v == 4 * i as u32 + 7));
    // The same through `extra`: one buffer laid out as the parameter table says (28 bytes).
    let mut buf = [0u8; 28];
    buf[..8].copy_from_slice(&b.to_le_bytes());
    buf[8..16].copy_from_slice(&a.to_le_bytes());
    buf[16..24].copy_from_slice(&c.to_le_bytes());
    buf[24..].copy_from_slice(&10u32.to_le_bytes());
    let mut size = 28usize;
    let mut extra: [*mut c_void; 5] = [
        std::ptr::without_provenance_mut(1), // CU_LAUNCH_PARAM_BUFFER_POINTER
        buf.as_mut_ptr().cast(),
        std::ptr::without_provenance_mut(2), // CU_LAUNCH_PARAM_BUFFER_SIZE
        (&mut size as *mut usize).cast(),
        std::ptr::null_mut(),
    ];
    let r = unsafe {
        launch(
            func,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    };
    assert_eq!(r, SUCCESS);
    // A block too large for the device is refused; a bad handle too.
    let r = unsafe {
        launch(
            func,
            1,
            1,
            1,
            2048,
            1,
            1,
            0,
            std::ptr::null_mut(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, INVALID_VALUE);
    let r = unsafe {
        launch(
            0x99 as Handle,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            std::ptr::null_mut(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, INVALID_HANDLE);
    // A pointer nothing is mapped at: the kernel faults.
    let mut bad = 0x10u64;
    args[2] = (&mut bad as *mut u64).cast();
    let r = unsafe {
        launch(
            func,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            std::ptr::null_mut(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(
        r, SUCCESS,
        "launches are asynchronous: the error comes later"
    );
    assert_eq!(unsafe { sync() }, ILLEGAL_ADDRESS);
    let mut d = 0u64;
    assert_eq!(unsafe { alloc(&mut d, 16) }, ILLEGAL_ADDRESS, "sticky");
    destroy(ctx);
}

/// `__device__` data: cuModuleGetGlobal finds devdata's `counter`, which every thread adds 1
/// to (tests/cubin/devdata.ptx).
#[test]
fn module_globals() {
    let ctx = context();
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let global = f!(
        "cuModuleGetGlobal_v2",
        fn(*mut u64, *mut usize, Handle, *const c_char)
    );
    let launch = f!(
        "cuLaunchKernel",
        fn(Handle, u32, u32, u32, u32, u32, u32, u32, Handle, *mut *mut c_void, *mut *mut c_void)
    );
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    for file in ["devdata.cubin", "devdata_jl.cubin"] {
        let image = cubin(file);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(
            unsafe { load(&mut m, image.as_ptr().cast()) },
            SUCCESS,
            "{file}"
        );
        let (mut addr, mut size) = (0u64, 0usize);
        assert_eq!(
            unsafe { global(&mut addr, &mut size, m, c"counter".as_ptr()) },
            SUCCESS
        );
        assert_eq!(size, 4);
        assert_eq!(
            unsafe { global(&mut addr, &mut size, m, c"missing".as_ptr()) },
            NOT_FOUND
        );
        assert_eq!(
            unsafe { global(&mut addr, &mut size, m, c"counter".as_ptr()) },
            SUCCESS
        );
        let mut f: Handle = std::ptr::null_mut();
        assert_eq!(unsafe { get_fn(&mut f, m, c"devdata".as_ptr()) }, SUCCESS);
        let (mut i, mut o) = (0u64, 0u64);
        assert_eq!(unsafe { alloc(&mut i, 256) }, SUCCESS);
        assert_eq!(unsafe { alloc(&mut o, 256) }, SUCCESS);
        let mut args: [*mut c_void; 2] = [(&mut i as *mut u64).cast(), (&mut o as *mut u64).cast()];
        for _ in 0..2 {
            let r = unsafe {
                launch(
                    f,
                    1,
                    1,
                    1,
                    50,
                    1,
                    1,
                    0,
                    std::ptr::null_mut(),
                    args.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(r, SUCCESS);
        }
        let mut count = 0u32;
        assert_eq!(
            unsafe { dtoh((&mut count as *mut u32).cast(), addr, 4) },
            SUCCESS
        );
        assert_eq!(count, 100, "{file}");
    }
    destroy(ctx);
}

extern "C" fn callback(_stream: Handle, status: R, data: *mut c_void) {
    // SAFETY: `data` is the test's u32.
    unsafe { *(data as *mut u32) = 1000 + status as u32 };
}

#[test]
fn streams_events_and_callbacks() {
    let ctx = context();
    let create = f!("cuStreamCreate", fn(*mut Handle, u32));
    let query = f!("cuStreamQuery", fn(Handle));
    let add_cb = f!(
        "cuStreamAddCallback",
        fn(Handle, Option<extern "C" fn(Handle, R, *mut c_void)>, *mut c_void, u32)
    );
    let ev_create = f!("cuEventCreate", fn(*mut Handle, u32));
    let record = f!("cuEventRecord", fn(Handle, Handle));
    let elapsed = f!("cuEventElapsedTime", fn(*mut f32, Handle, Handle));
    let mut s: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { create(&mut s, 0) }, SUCCESS);
    assert_eq!(unsafe { query(s) }, SUCCESS);
    let mut hit = 0u32;
    assert_eq!(
        unsafe { add_cb(s, Some(callback), (&mut hit as *mut u32).cast(), 0) },
        SUCCESS
    );
    assert_eq!(hit, 1000, "called with CUDA_SUCCESS");
    let (mut e1, mut e2): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    assert_eq!(unsafe { ev_create(&mut e1, 0) }, SUCCESS);
    assert_eq!(unsafe { ev_create(&mut e2, 0) }, SUCCESS);
    let mut ms = -1.0f32;
    assert_eq!(
        unsafe { elapsed(&mut ms, e1, e2) },
        INVALID_HANDLE,
        "not recorded yet"
    );
    assert_eq!(unsafe { record(e1, s) }, SUCCESS);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(unsafe { record(e2, s) }, SUCCESS);
    assert_eq!(unsafe { elapsed(&mut ms, e1, e2) }, SUCCESS);
    assert!(ms >= 19.0, "{ms} ms");
    destroy(ctx);
}

/// A launch of `func` with `grid` CTAs of `block` threads and `params`, by `cuLaunchKernel` or
/// `cuLaunchCooperativeKernel`.
fn launch_1d(func: Handle, grid: u32, block: u32, params: &mut [*mut c_void], coop: bool) -> R {
    let p = params.as_mut_ptr();
    let null = std::ptr::null_mut();
    if coop {
        let launch = f!(
            "cuLaunchCooperativeKernel",
            fn(Handle, u32, u32, u32, u32, u32, u32, u32, Handle, *mut *mut c_void)
        );
        unsafe { launch(func, grid, 1, 1, block, 1, 1, 0, null, p) }
    } else {
        let launch = f!(
            "cuLaunchKernel",
            fn(
                Handle,
                u32,
                u32,
                u32,
                u32,
                u32,
                u32,
                u32,
                Handle,
                *mut *mut c_void,
                *mut *mut c_void,
            )
        );
        unsafe {
            launch(
                func,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                null,
                p,
                std::ptr::null_mut(),
            )
        }
    }
}

/// `cuLaunchCooperativeKernel` gives the launch its grid workspace, so cooperative groups'
/// `grid.sync()` works (tests/cubin/cg_grid.cu, 4 CTAs of 64 threads: each thread's final value
/// is worked out from the source); a grid larger than the device holds at once is
/// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`; the same kernel launched without a workspace
/// faults at its barrier's atomic on address 0.
#[test]
fn cooperative_launch_and_grid_sync() {
    let ctx = context();
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let sync = f!("cuCtxSynchronize", fn());
    let image = cubin("cg_grid.cubin");
    let mut m: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { load(&mut m, image.as_ptr().cast()) }, SUCCESS);
    let mut func: Handle = std::ptr::null_mut();
    assert_eq!(
        unsafe { get_fn(&mut func, m, c"cg_grid".as_ptr()) },
        SUCCESS
    );
    let n = 256usize;
    let (mut data, mut out) = (0u64, 0u64);
    assert_eq!(unsafe { alloc(&mut data, 4 * n) }, SUCCESS);
    assert_eq!(unsafe { alloc(&mut out, 4 * n) }, SUCCESS);
    let mut args: [*mut c_void; 2] = [
        (&mut data as *mut u64).cast(),
        (&mut out as *mut u64).cast(),
    ];
    assert_eq!(launch_1d(func, 4, 64, &mut args, true), SUCCESS);
    assert_eq!(unsafe { sync() }, SUCCESS);
    let mut got = vec![0u32; n];
    assert_eq!(
        unsafe { dtoh(got.as_mut_ptr().cast(), data, 4 * n) },
        SUCCESS
    );
    let first = |r: usize| 3 * r as u32 + 1;
    let second = |r: usize| first((r + 1) % n) + first((r + n - 1) % n);
    for (r, &v) in got.iter().enumerate() {
        assert_eq!(v, second((r + 2) % n), "thread {r}");
    }
    assert_eq!(launch_1d(func, 100_000, 64, &mut args, true), 720);
    // Without a workspace the barrier faults; the error is the context's from then on.
    assert_eq!(launch_1d(func, 4, 64, &mut args, false), SUCCESS);
    assert_eq!(unsafe { sync() }, ILLEGAL_ADDRESS);
    destroy(ctx);
}

/// Device printf and assert through the driver (tests/cubin/printf.cu): printf_some completes;
/// assert_k with negative inputs fails its assertion, which is the sticky `CUDA_ERROR_ASSERT`
/// (710) as on a GPU. (What they print is checked by tests/device.rs; this process's stdout
/// and stderr are the test harness's.)
#[test]
fn device_printf_and_a_failed_assert() {
    let ctx = context();
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let htod = f!("cuMemcpyHtoD_v2", fn(u64, *const c_void, usize));
    let sync = f!("cuCtxSynchronize", fn());
    for file in ["printf.cubin", "printf_jl.cubin"] {
        let image = cubin(file);
        let mut m: Handle = std::ptr::null_mut();
        assert_eq!(unsafe { load(&mut m, image.as_ptr().cast()) }, SUCCESS);
        let mut func: Handle = std::ptr::null_mut();
        assert_eq!(
            unsafe { get_fn(&mut func, m, c"printf_some".as_ptr()) },
            SUCCESS
        );
        assert_eq!(launch_1d(func, 1, 32, &mut [], false), SUCCESS, "{file}");
        assert_eq!(unsafe { sync() }, SUCCESS, "{file}");
    }
    let image = cubin("printf.cubin");
    let mut m: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { load(&mut m, image.as_ptr().cast()) }, SUCCESS);
    let mut func: Handle = std::ptr::null_mut();
    assert_eq!(
        unsafe { get_fn(&mut func, m, c"assert_k".as_ptr()) },
        SUCCESS
    );
    let (mut inp, mut out) = (0u64, 0u64);
    assert_eq!(unsafe { alloc(&mut inp, 128) }, SUCCESS);
    assert_eq!(unsafe { alloc(&mut out, 128) }, SUCCESS);
    let mut args: [*mut c_void; 2] = [(&mut inp as *mut u64).cast(), (&mut out as *mut u64).cast()];
    // Every input non-negative: no assertion fails.
    let good: Vec<i32> = (0..32).collect();
    assert_eq!(unsafe { htod(inp, good.as_ptr().cast(), 128) }, SUCCESS);
    assert_eq!(launch_1d(func, 1, 32, &mut args, false), SUCCESS);
    assert_eq!(unsafe { sync() }, SUCCESS);
    let bad: Vec<i32> = (0..32).map(|t| if t == 7 { -1 } else { t }).collect();
    assert_eq!(unsafe { htod(inp, bad.as_ptr().cast(), 128) }, SUCCESS);
    assert_eq!(launch_1d(func, 1, 32, &mut args, false), SUCCESS);
    assert_eq!(unsafe { sync() }, 710);
    let mut d = 0u64;
    assert_eq!(unsafe { alloc(&mut d, 16) }, 710, "sticky");
    destroy(ctx);
}

const INVALID_CONTEXT: R = 201;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> [u8; 64] {
    let mut b = [0u8; 64];
    for (i, x) in b.iter_mut().enumerate() {
        *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    b
}

/// `CUipcMemHandle` and `CUipcEventHandle`: 64 bytes passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct IpcHandle([u8; 64]);

/// CUDA IPC between two processes: this test exports a device allocation
/// (`cuIpcGetMemHandle`), and a second process (this test binary again, running only
/// `ipc_child`) opens the handle, finds the bytes written here, and doubles them with a kernel
/// (vadd of the memory with itself, in place); back here the allocation holds the doubled
/// values: the memory is shared, not copied. The exporting process cannot open its own handle
/// (`CUDA_ERROR_INVALID_CONTEXT`, as from CUDA), a handle that is not one is
/// `CUDA_ERROR_INVALID_HANDLE`, and memory freed and allocated again reads zeros with a new
/// handle. An interprocess event's handle opens in the other process too.
#[test]
fn ipc_memory_is_shared_with_another_process() {
    let ctx = context();
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let free = f!("cuMemFree_v2", fn(u64));
    let htod = f!("cuMemcpyHtoD_v2", fn(u64, *const c_void, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let get = f!("cuIpcGetMemHandle", fn(*mut IpcHandle, u64));
    let open = f!("cuIpcOpenMemHandle_v2", fn(*mut u64, IpcHandle, u32));
    let close = f!("cuIpcCloseMemHandle", fn(u64));
    let event_create = f!("cuEventCreate", fn(*mut Handle, u32));
    let get_event = f!("cuIpcGetEventHandle", fn(*mut IpcHandle, Handle));
    let n = 250usize;
    let mut a = 0u64;
    assert_eq!(unsafe { alloc(&mut a, 4 * n) }, SUCCESS);
    let data: Vec<u32> = (0..n as u32).map(|i| 3 * i).collect();
    assert_eq!(unsafe { htod(a, data.as_ptr().cast(), 4 * n) }, SUCCESS);
    let mut h = IpcHandle([0; 64]);
    assert_eq!(unsafe { get(&mut h, a + 4) }, INVALID_VALUE, "not a base");
    assert_eq!(unsafe { get(std::ptr::null_mut(), a) }, INVALID_VALUE);
    assert_eq!(unsafe { get(&mut h, a) }, SUCCESS);
    let mut again = IpcHandle([0; 64]);
    assert_eq!(unsafe { get(&mut again, a) }, SUCCESS);
    assert_eq!(h.0, again.0, "the same handle for the same allocation");
    // Exporting kept the contents.
    let mut back = vec![0u32; n];
    assert_eq!(unsafe { dtoh(back.as_mut_ptr().cast(), a, 4 * n) }, SUCCESS);
    assert_eq!(back, data);
    // This process cannot open it; bad handles are errors.
    let mut p = 0u64;
    assert_eq!(unsafe { open(&mut p, h, 1) }, INVALID_CONTEXT);
    assert_eq!(
        unsafe { open(&mut p, IpcHandle([0; 64]), 1) },
        INVALID_HANDLE
    );
    let mut damaged = h;
    damaged.0[16] ^= 1;
    assert_eq!(unsafe { open(&mut p, damaged, 1) }, INVALID_HANDLE);
    assert_eq!(unsafe { open(&mut p, h, 6) }, INVALID_VALUE, "flags");
    assert_eq!(unsafe { close(a) }, INVALID_VALUE, "not opened");
    // An interprocess event (CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING).
    let mut ev: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { event_create(&mut ev, 0) }, SUCCESS);
    let mut eh = IpcHandle([0; 64]);
    assert_eq!(
        unsafe { get_event(&mut eh, ev) },
        INVALID_VALUE,
        "not interprocess"
    );
    assert_eq!(unsafe { event_create(&mut ev, 6) }, SUCCESS);
    assert_eq!(unsafe { get_event(&mut eh, ev) }, SUCCESS);

    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["ipc_child", "--exact", "--nocapture", "--test-threads=1"])
        .env("WARPJIT_TEST_IPC_HANDLE", hex(&h.0))
        .env("WARPJIT_TEST_IPC_EVENT", hex(&eh.0))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the other process: {text}");
    assert!(text.contains("1 passed"), "the child test ran: {text}");

    assert_eq!(unsafe { dtoh(back.as_mut_ptr().cast(), a, 4 * n) }, SUCCESS);
    let doubled: Vec<u32> = data.iter().map(|x| 2 * x).collect();
    assert_eq!(
        back, doubled,
        "the other process's kernel wrote this memory"
    );
    // Freed and allocated again: zeros, and another handle.
    assert_eq!(unsafe { free(a) }, SUCCESS);
    let mut b = 0u64;
    assert_eq!(unsafe { alloc(&mut b, 4 * n) }, SUCCESS);
    assert_eq!(unsafe { dtoh(back.as_mut_ptr().cast(), b, 4 * n) }, SUCCESS);
    assert!(back.iter().all(|&x| x == 0));
    let mut hb = IpcHandle([0; 64]);
    assert_eq!(unsafe { get(&mut hb, b) }, SUCCESS);
    assert_ne!(hb.0, h.0);
    assert_eq!(unsafe { free(b) }, SUCCESS);
    destroy(ctx);
}

/// The other process of `ipc_memory_is_shared_with_another_process` (nothing unless
/// `WARPJIT_TEST_IPC_HANDLE` is set): opens the handle (twice: the same address, counted), reads
/// the exporter's values, doubles them with vadd in place, closes it (the second close unmaps),
/// and opens the exporter's event.
#[test]
fn ipc_child() {
    let Ok(handle) = std::env::var("WARPJIT_TEST_IPC_HANDLE") else {
        return;
    };
    let ctx = context();
    let open = f!("cuIpcOpenMemHandle_v2", fn(*mut u64, IpcHandle, u32));
    let close = f!("cuIpcCloseMemHandle", fn(u64));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let free = f!("cuMemFree_v2", fn(u64));
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let sync = f!("cuCtxSynchronize", fn());
    let open_event = f!("cuIpcOpenEventHandle", fn(*mut Handle, IpcHandle));
    let query = f!("cuEventQuery", fn(Handle));
    let n = 250u32;
    let h = IpcHandle(unhex(&handle));
    let mut p = 0u64;
    assert_eq!(unsafe { open(&mut p, h, 1) }, SUCCESS);
    let mut q = 0u64;
    assert_eq!(unsafe { open(&mut q, h, 0) }, SUCCESS);
    assert_eq!(p, q, "opened again: the same address");
    let mut back = vec![0u32; n as usize];
    assert_eq!(
        unsafe { dtoh(back.as_mut_ptr().cast(), p, 4 * n as usize) },
        SUCCESS
    );
    assert_eq!(back, (0..n).map(|i| 3 * i).collect::<Vec<_>>());
    assert_eq!(unsafe { free(p) }, INVALID_VALUE, "closed, not freed");
    let image = cubin("vadd.cubin");
    let mut m: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { load(&mut m, image.as_ptr().cast()) }, SUCCESS);
    let mut func: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { get_fn(&mut func, m, c"vadd".as_ptr()) }, SUCCESS);
    let (mut a, mut b, mut c) = (p, p, p);
    let mut args: [*mut c_void; 4] = [
        (&mut a as *mut u64).cast(),
        (&mut b as *mut u64).cast(),
        (&mut c as *mut u64).cast(),
        (&n as *const u32).cast_mut().cast(),
    ];
    assert_eq!(launch_1d(func, 2, 128, &mut args, false), SUCCESS);
    assert_eq!(unsafe { sync() }, SUCCESS);
    assert_eq!(unsafe { close(p) }, SUCCESS);
    assert_eq!(
        unsafe { dtoh(back.as_mut_ptr().cast(), p, 4) },
        SUCCESS,
        "still open once"
    );
    assert_eq!(unsafe { close(p) }, SUCCESS);
    assert_eq!(unsafe { close(p) }, INVALID_VALUE, "closed");
    assert_eq!(
        unsafe { dtoh(back.as_mut_ptr().cast(), p, 4) },
        INVALID_VALUE,
        "unmapped"
    );
    let event = IpcHandle(unhex(&std::env::var("WARPJIT_TEST_IPC_EVENT").unwrap()));
    let mut ev: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { open_event(&mut ev, event) }, SUCCESS);
    assert_eq!(unsafe { query(ev) }, SUCCESS);
    destroy(ctx);
}

/// Two PTX modules, a kernel and the device function it calls from the other, linked by
/// `cuLink*` (NVIDIA's nvJitLink, which the driver loads: `WARPJIT_NVJITLINK` names it here)
/// into one cubin that loads and runs. Without nvJitLink `cuLinkComplete` must say
/// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND`, and the test says it skipped the rest, unless
/// `WARPJIT_REQUIRE_NVJITLINK` is set (CI sets it when the wheel installed).
#[test]
fn several_inputs_link_with_nvjitlink() {
    const JIT_COMPILER_NOT_FOUND: R = 221;
    let ctx = context();
    let create = f!(
        "cuLinkCreate_v2",
        fn(u32, *mut i32, *mut *mut c_void, *mut Handle)
    );
    let add = f!(
        "cuLinkAddData_v2",
        fn(Handle, i32, *mut c_void, usize, *const c_char, u32, *mut i32, *mut *mut c_void)
    );
    let complete = f!("cuLinkComplete", fn(Handle, *mut *mut c_void, *mut usize));
    let destroy_link = f!("cuLinkDestroy", fn(Handle));
    let mut link: Handle = std::ptr::null_mut();
    let none: *mut c_void = std::ptr::null_mut();
    assert_eq!(
        unsafe { create(0, none.cast(), none.cast(), &mut link) },
        SUCCESS
    );
    let dir = format!("{}/tests/link", env!("CARGO_MANIFEST_DIR"));
    for (file, name) in [("kernel.ptx", c"kernel.ptx"), ("add3.ptx", c"add3.ptx")] {
        let mut text = std::fs::read(format!("{dir}/{file}")).unwrap();
        text.push(0);
        let r = unsafe {
            add(
                link,
                1,
                text.as_mut_ptr().cast(),
                text.len(),
                name.as_ptr(),
                0,
                none.cast(),
                none.cast(),
            )
        };
        assert_eq!(r, SUCCESS);
    }
    let (mut image, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
    let r = unsafe { complete(link, &mut image, &mut size) };
    if r == JIT_COMPILER_NOT_FOUND && std::env::var_os("WARPJIT_REQUIRE_NVJITLINK").is_none() {
        eprintln!("skipped: no nvJitLink (set WARPJIT_NVJITLINK to libnvJitLink.so.12)");
        assert_eq!(unsafe { destroy_link(link) }, SUCCESS);
        destroy(ctx);
        return;
    }
    assert_eq!(r, SUCCESS, "cuLinkComplete");
    assert!(size > 0 && unsafe { *image.cast::<[u8; 4]>() } == *b"\x7fELF");
    let _module = run_add3(image);
    // The module holds its own copy of the linked cubin: the link state may go.
    assert_eq!(unsafe { destroy_link(link) }, SUCCESS);
    destroy(ctx);
}

/// Loads `image` (kernel `k` of cuda/tests/link), runs it on one warp and checks that lane `i`
/// wrote `i + 3`; returns the module.
fn run_add3(image: *const c_void) -> Handle {
    let none: *mut c_void = std::ptr::null_mut();
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let get_fn = f!(
        "cuModuleGetFunction",
        fn(*mut Handle, Handle, *const c_char)
    );
    let alloc = f!("cuMemAlloc_v2", fn(*mut u64, usize));
    let dtoh = f!("cuMemcpyDtoH_v2", fn(*mut c_void, u64, usize));
    let launch = f!(
        "cuLaunchKernel",
        fn(Handle, u32, u32, u32, u32, u32, u32, u32, Handle, *mut *mut c_void, *mut *mut c_void)
    );
    let mut m: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { load(&mut m, image) }, SUCCESS);
    let mut func: Handle = std::ptr::null_mut();
    assert_eq!(unsafe { get_fn(&mut func, m, c"k".as_ptr()) }, SUCCESS);
    let mut out = 0u64;
    assert_eq!(unsafe { alloc(&mut out, 4 * 32) }, SUCCESS);
    let mut args: [*mut c_void; 1] = [(&mut out as *mut u64).cast()];
    let r = unsafe {
        launch(
            func,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            none,
            args.as_mut_ptr(),
            none.cast(),
        )
    };
    assert_eq!(r, SUCCESS);
    let mut got = [0u32; 32];
    assert_eq!(
        unsafe { dtoh(got.as_mut_ptr().cast(), out, 4 * 32) },
        SUCCESS
    );
    assert_eq!(got, std::array::from_fn(|i| i as u32 + 3));
    m
}

/// One PTX module (both halves of the link test in one) loads through `cuModuleLoadData`,
/// compiled by ptxas or, without ptxas, by nvJitLink; with neither, the load must say
/// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND`, and the test says it skipped the rest unless
/// `WARPJIT_REQUIRE_NVJITLINK` is set (CI has nvJitLink and no ptxas: the fallback runs).
#[test]
fn one_ptx_module_compiles() {
    const JIT_COMPILER_NOT_FOUND: R = 221;
    let ctx = context();
    let mut text = std::fs::read(format!(
        "{}/tests/link/whole.ptx",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    text.push(0);
    let load = f!("cuModuleLoadData", fn(*mut Handle, *const c_void));
    let mut m: Handle = std::ptr::null_mut();
    let r = unsafe { load(&mut m, text.as_ptr().cast()) };
    if r == JIT_COMPILER_NOT_FOUND && std::env::var_os("WARPJIT_REQUIRE_NVJITLINK").is_none() {
        eprintln!("skipped: neither ptxas nor nvJitLink (set WARPJIT_NVJITLINK)");
        destroy(ctx);
        return;
    }
    assert_eq!(r, SUCCESS, "cuModuleLoadData of PTX");
    let _ = run_add3(text.as_ptr().cast());
    destroy(ctx);
}

/// A child forked after `cuInit` cannot use the driver, as with NVIDIA's (which is not
/// fork-safe): its calls, `cuInit` included, return `CUDA_ERROR_NOT_INITIALIZED` (3), which is
/// what Numba's fork detection looks for. The parent goes on unharmed.
#[test]
fn a_forked_child_is_not_initialized() {
    const NOT_INITIALIZED: R = 3;
    let ctx = context();
    let init = f!("cuInit", fn(u32));
    let count = f!("cuDeviceGetCount", fn(*mut i32));
    let create = f!("cuCtxCreate_v2", fn(*mut Handle, u32, i32));
    // SAFETY: the child calls only the driver's entry points (no allocation by this test's
    // code) and leaves with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let mut n = 0;
        let mut c: Handle = std::ptr::null_mut();
        let ok = unsafe { init(0) } == NOT_INITIALIZED
            && unsafe { count(&mut n) } == NOT_INITIALIZED
            && unsafe { create(&mut c, 0, 0) } == NOT_INITIALIZED;
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the forked child's calls did not all return CUDA_ERROR_NOT_INITIALIZED"
    );
    let mut n = 0;
    assert_eq!(unsafe { count(&mut n) }, SUCCESS);
    assert_eq!(n, 1);
    destroy(ctx);
}
