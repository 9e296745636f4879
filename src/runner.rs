//! Running a trace: the library entry point behind `warpjit run`.
//!
//! [`run_trace`] loads a trace ([`load_trace`]), runs its launches in file order over one machine
//! with an [`Engine`], stops at the first launch that faults, and otherwise checks the trace's
//! expectations: `[[expect]]` against global memory, `[[expect_buffer]]` and `[[expect_texture]]`
//! against the resources. The outcome is a [`TraceReport`]; an invalid trace is a [`TraceError`].
//!
//! The checks of DXBC results work on plain values, whatever stores them: [`check_buffer`] and
//! [`check_texture`] compare an expectation with a resource's bytes after the run,
//! [`check_output`] compares a `[[launch.expect_output]]` with the `o#` register of every
//! invocation. Resource expectations are checked against what the machine's resources hold after
//! the launches.

use crate::exec::{Engine, RunOptions, Stats};
use crate::tracefile::{
    files, Data, DataKind, Expect, ExpectResource, LaunchSpec, LoadOptions, RegData, Trace,
    TraceError, View,
};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use warpjit_runtime::Fault;

/// Most mismatches a report keeps (all are counted in [`TraceReport::mismatch_count`]).
pub const MAX_MISMATCHES: usize = 10_000;

/// Loads and validates a trace without running it (see [`crate::tracefile::load`]).
pub fn load_trace(path: &Path) -> Result<Trace, TraceError> {
    crate::tracefile::load(path)
}

/// [`load_trace`] with options (where side files may be: [`crate::tracefile::load_with`]).
pub fn load_trace_with(path: &Path, load: &LoadOptions) -> Result<Trace, TraceError> {
    crate::tracefile::load_with(path, load)
}

/// Loads the trace at `path` and runs it with `engine` (see [`run`]).
pub fn run_trace(
    path: &Path,
    engine: &dyn Engine,
    opts: &RunOptions,
) -> Result<TraceReport, TraceError> {
    run(load_trace(path)?, engine, opts)
}

/// Runs a loaded trace's launches in file order with `engine`, stopping at the first launch that
/// faults; when none does, checks every `[[expect]]` against global memory, then every
/// `[[expect_buffer]]` and `[[expect_texture]]` against its resource.
///
/// A launch of a vertex or pixel shader gets its `[[launch.input]]` values as its invocations'
/// `v#` registers, and its `[[launch.expect_output]]` tables are checked against the `o#`
/// registers its invocations wrote, right after it runs.
///
/// Execution events (and `--check` findings) go to `opts.observer`. An error is returned for a
/// problem of the trace found while running or checking (an expectation's file unreadable or
/// resized).
pub fn run(
    trace: Trace,
    engine: &dyn Engine,
    opts: &RunOptions,
) -> Result<TraceReport, TraceError> {
    let mut trace = trace;
    run_in(&mut trace, engine, opts)
}

/// [`run`], keeping the trace: its memory and resources hold what the launches left (after a
/// launch that faulted, what they hold is not defined: docs/semantics.md §10).
pub fn run_in(
    trace: &mut Trace,
    engine: &dyn Engine,
    opts: &RunOptions,
) -> Result<TraceReport, TraceError> {
    let trace_ref = trace;
    let mut report = TraceReport::new(engine.name());
    report.trace = trace_ref.path.clone();
    let trace = &mut *trace_ref;
    if trace.launches.is_empty() {
        return Err(trace.error_at(
            &(0..0),
            "the trace has no [[launch]]: there is nothing to run",
        ));
    }
    if let Some(o) = &opts.observer {
        // The trace's segments are the host's allocations (a size-only segment is defined
        // zeros, an `uninitialized` one undefined until written).
        for g in &trace.globals {
            o.alloc(g.addr, g.size, !g.uninitialized);
        }
    }
    if let Some(p) = &opts.progress {
        let ctas: u64 = trace
            .launches
            .iter()
            .map(|l| l.grid.iter().map(|&v| v as u64).product::<u64>())
            .sum();
        p.total
            .fetch_add(ctas, std::sync::atomic::Ordering::Relaxed);
    }
    crate::exec::start_threads(opts.threads);
    for i in 0..trace.launches.len() {
        let io = stage_io(trace, i)?;
        let spec = &trace.launches[i];
        let launch = trace.launch(spec);
        // Compiling ahead (the JIT's) is not part of the launch's time: `--stats` reports it.
        engine.prepare(&launch, opts);
        let start = Instant::now();
        let result = engine.run(&trace.machine, &launch, opts);
        let seconds = start.elapsed().as_secs_f64();
        report.seconds += seconds;
        match result {
            Ok(stats) => {
                report.total += stats;
                report.launches.push(LaunchReport {
                    index: spec.index,
                    ctas: launch.ctas(),
                    warps_per_cta: launch.warps_per_cta(),
                    stats,
                    seconds,
                });
            }
            Err(fault) => {
                report.fault_at = spec.source.at(fault.pc);
                report.show_reads = spec.isa != crate::ir::Isa::Dxbc;
                report.fault = Some(fault);
                return Ok(report);
            }
        }
        if let Some(io) = io {
            let outputs = io.outputs as u64;
            let spec = &trace.launches[i];
            let quads = spec.quads();
            let out = trace.machine.resources.output().map(|b| b.storage());
            for e in &spec.expect_outputs {
                // Only the records the expectation checks, and only its register of each (the
                // outputs of every invocation may be large).
                let records = out.map_or(0, |s| s.len() / (16 * outputs.max(1)));
                // A pixel shader's records are its lanes': invocation i's is its pixel's lane.
                let invocations = match quads {
                    Some(q) => e.invocations().min(q.invocations as u64),
                    None => records.min(e.invocations()),
                };
                let regs: Vec<[u32; 4]> = (0..invocations)
                    .map(|i| {
                        let r = quads.map_or(i, |q| q.slot(i as u32) as u64);
                        let mut b = [0u8; 16];
                        if let (Some(s), true) = (out, r < records) {
                            s.read(16 * (r * outputs + e.reg as u64), &mut b);
                        }
                        let w = |k: usize| {
                            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
                        };
                        [w(0), w(1), w(2), w(3)]
                    })
                    .collect();
                check_output(trace, spec, e, &regs, io.vertices_out, &mut report)?;
            }
        }
    }
    for e in &trace.expects {
        check(trace, e, &mut report)?;
    }
    // Resources hold what the launches wrote (and their initial contents elsewhere).
    // Compared a chunk at a time, straight from the resource (never copied whole).
    for e in &trace.expect_buffers {
        let b = &trace.buffers[e.resource];
        let storage = bound_storage(trace, b.view, b.slot);
        check_resource(trace, e, Target::Buffer, &storage, &mut report)?;
    }
    for e in &trace.expect_textures {
        let t = &trace.textures[e.resource];
        let storage = bound_storage(trace, t.view, t.slot);
        check_resource(trace, e, Target::Texture, &storage, &mut report)?;
    }
    Ok(report)
}

/// Runs the trace at `path` under two engines, each on its own fresh load, and compares
/// everything the engines must agree on bit for bit: each launch's statistics (warps, warp and
/// lane instructions), the fault, the mismatches, and every byte of global memory, buffers and
/// textures afterwards. Returns both reports and the first difference found, if any (a warpjit
/// bug). Only the first engine's run gets `opts.observer`; both run on one host thread, so their
/// memory is compared after a fault too (on one thread it is the same for any engine, though
/// docs/semantics.md §10 does not define it).
pub fn run_both(
    path: &Path,
    engines: [&dyn Engine; 2],
    opts: &RunOptions,
) -> Result<(TraceReport, TraceReport, Option<String>, Trace), TraceError> {
    run_both_with(path, &LoadOptions::default(), engines, opts)
}

/// [`run_both`], loading the trace with `load`.
pub fn run_both_with(
    path: &Path,
    load: &LoadOptions,
    engines: [&dyn Engine; 2],
    opts: &RunOptions,
) -> Result<(TraceReport, TraceReport, Option<String>, Trace), TraceError> {
    // Each engine on one host thread: CTAs then run in order, so a launch whose CTAs talk
    // through memory (atomics on shared words, a retry loop) runs alike under both, and a
    // difference is the engines' (on several threads the CTAs' interleaving, which decides
    // such a launch's instruction counts, would differ from run to run).
    let one = RunOptions {
        threads: 1,
        ..opts.clone()
    };
    let mut a = load_trace_with(path, load)?;
    let ra = run_in(&mut a, engines[0], &one)?;
    let quiet = RunOptions {
        observer: None,
        ..one
    };
    let mut b = load_trace_with(path, load)?;
    let rb = run_in(&mut b, engines[1], &quiet)?;
    let diff = difference(&a, &b, &ra, &rb);
    Ok((ra, rb, diff, b))
}

/// The buffers and textures a trace binds, in file order (buffers, then textures).
fn bound_resources(
    trace: &Trace,
) -> impl Iterator<Item = (View, u32, &warpjit_runtime::resource::Resource)> {
    let slots = trace
        .buffers
        .iter()
        .map(|r| (r.view, r.slot))
        .chain(trace.textures.iter().map(|t| (t.view, t.slot)));
    slots.filter_map(|(view, slot)| {
        let r = match view {
            View::Srv => trace.machine.resources.srv(slot),
            View::Uav => trace.machine.resources.uav(slot),
        };
        r.map(|r| (view, slot, r))
    })
}

/// Writes what a run left, as raw files in `dir` (created if missing): every global segment as
/// `global_0x<BASE>.bin` (16 hex digits; non-resident sparse tiles as zeros) and every bound
/// buffer and texture as `t<SLOT>.bin` / `u<SLOT>.bin`. Returns the files written. See
/// [`dump_into`] for how the files are created (never through a symbolic link).
/// buffer and texture as `t<SLOT>.bin` / `u<SLOT>.bin`. Returns the files written. After a run
/// whose launch faulted, memory is not defined (docs/semantics.md §10): `warpjit run --dump`
/// writes nothing then.
pub fn dump(trace: &Trace, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    dump_into(trace, dir, None)
}

/// [`dump`] into `dir`, or with `sub` into the directory `sub` inside it (what `warpjit run
/// --dump DIR` does with several traces: `DIR/<trace name>/`).
///
/// `dir` is the caller's: created if missing and followed as given. Everything below it is
/// created without following symbolic links: `sub` is made if missing and must be a directory, not
/// a link to one; and each file is written to a new temporary file (created with `O_CREAT |
/// O_EXCL | O_NOFOLLOW`, so never an existing file or link), then renamed over its name. A file
/// or symbolic link already there is replaced, never written through, and no one sees a file
/// half written.
pub fn dump_into(
    trace: &Trace,
    dir: &Path,
    sub: Option<&std::ffi::OsStr>,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    use std::io::Write;
    let out = DumpDir::open(dir, sub)?;
    let mut written = Vec::new();
    const CHUNK: u64 = 1 << 20;
    let mem = &trace.machine.global;
    for s in mem.segments() {
        let name = format!("global_{:#018x}.bin", s.base());
        let path = out.write(&name, |f| {
            let (mut at, end) = (s.base(), s.last());
            let mut buf = Vec::new();
            loop {
                let len = (end - at).min(CHUNK - 1) + 1;
                buf.clear();
                buf.resize(len as usize, 0);
                if mem.read_into(at, &mut buf).is_err() {
                    // A chunk with a non-resident tile: byte by byte, zeros where nothing reads.
                    for (i, b) in buf.iter_mut().enumerate() {
                        let mut one = [0u8];
                        *b = match mem.read_into(at + i as u64, &mut one) {
                            Ok(()) => one[0],
                            Err(_) => 0,
                        };
                    }
                }
                f.write_all(&buf)?;
                if end - at < len {
                    return Ok(());
                }
                at += len;
            }
        })?;
        written.push(path);
    }
    for (view, slot, r) in bound_resources(trace) {
        let name = format!("{}{slot}.bin", view.register());
        let storage = r.storage();
        let path = out.write(&name, |f| {
            let mut buf = vec![0u8; CHUNK.min(storage.len()) as usize];
            let mut at = 0;
            while at < storage.len() {
                let n = CHUNK.min(storage.len() - at) as usize;
                storage.read(at, &mut buf[..n]);
                f.write_all(&buf[..n])?;
                at += n as u64;
            }
            Ok(())
        })?;
        written.push(path);
    }
    Ok(written)
}

/// The directory a dump writes into, held open: its files are created relative to it, so that
/// no symbolic link inside it is ever followed ([`dump_into`]).
struct DumpDir {
    fd: std::os::fd::OwnedFd,
    path: std::path::PathBuf,
}

/// `path` as a C string, for the `*at` calls.
fn c_name(name: &std::ffi::OsStr) -> std::io::Result<std::ffi::CString> {
    std::ffi::CString::new(name.as_encoded_bytes())
        .map_err(|_| std::io::Error::other("a file name holds a NUL character"))
}

impl DumpDir {
    /// Opens `dir` (created if missing, followed as given) or, with `sub`, the directory `sub`
    /// inside it (made if missing; a symbolic link there is refused).
    fn open(dir: &Path, sub: Option<&std::ffi::OsStr>) -> std::io::Result<DumpDir> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::create_dir_all(dir)?;
        let top: OwnedFd = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(dir)?
            .into();
        let Some(sub) = sub else {
            return Ok(DumpDir {
                fd: top,
                path: dir.to_path_buf(),
            });
        };
        let path = dir.join(sub);
        let name = c_name(sub)?;
        // SAFETY: a valid directory descriptor and a NUL-terminated name.
        if unsafe { libc::mkdirat(top.as_raw_fd(), name.as_ptr(), 0o777) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(e);
            }
        }
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: as above.
        let fd = unsafe { libc::openat(top.as_raw_fd(), name.as_ptr(), flags) };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            return Err(if link {
                std::io::Error::other("a symbolic link: a dump never writes through one")
            } else {
                e
            });
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(DumpDir { fd, path })
    }

    /// Writes the file `name` with `fill`: into a new temporary file, renamed over `name` once
    /// complete (a file or symbolic link named `name` is replaced, not followed). Returns its
    /// path.
    fn write(
        &self,
        name: &str,
        fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> std::io::Result<std::path::PathBuf> {
        use std::io::Write;
        use std::os::fd::{AsRawFd, FromRawFd};
        let dirfd = self.fd.as_raw_fd();
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        let mut attempt = 0u32;
        let (tmp, file) = loop {
            let tmp = c_name(format!(".{name}.{}.{attempt}.tmp", std::process::id()).as_ref())?;
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            let fd = unsafe { libc::openat(dirfd, tmp.as_ptr(), flags, 0o666 as libc::c_uint) };
            if fd >= 0 {
                // SAFETY: `fd` was just opened and is owned by nothing else.
                break (tmp, unsafe { std::fs::File::from_raw_fd(fd) });
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::AlreadyExists || attempt >= 100 {
                return Err(e);
            }
            attempt += 1;
        };
        let mut f = std::io::BufWriter::new(file);
        let done = fill(&mut f).and_then(|()| f.flush());
        let target = c_name(name.as_ref())?;
        let done = done.and_then(|()| {
            // SAFETY: valid descriptors and NUL-terminated names.
            match unsafe { libc::renameat(dirfd, tmp.as_ptr(), dirfd, target.as_ptr()) } {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
        if let Err(e) = done {
            // SAFETY: as above.
            unsafe { libc::unlinkat(dirfd, tmp.as_ptr(), 0) };
            return Err(std::io::Error::other(format!(
                "{}: {e}",
                self.path.join(name).display()
            )));
        }
        Ok(self.path.join(name))
    }
}

/// The first thing two runs of one trace disagree on ([`run_both`]).
fn difference(a: &Trace, b: &Trace, ra: &TraceReport, rb: &TraceReport) -> Option<String> {
    let (na, nb) = (ra.engine, rb.engine);
    let work = |r: &TraceReport| -> Vec<(u32, u64, u64, u64, u64, u64)> {
        r.launches
            .iter()
            .map(|l| {
                (
                    l.index,
                    l.stats.warps,
                    l.stats.warp_insts,
                    l.stats.lane_insts,
                    l.stats.misaligned,
                    l.stats.yields,
                )
            })
            .collect()
    };
    if work(ra) != work(rb) {
        return Some(format!(
            "launch statistics (index, warps, warp instructions, lane instructions, misaligned accesses, turns ended at the quantum): {na} {:?}, {nb} {:?}",
            work(ra),
            work(rb)
        ));
    }
    if ra.fault != rb.fault {
        let show = |f: &Option<Fault>| f.as_ref().map_or("no fault".to_string(), |f| f.to_string());
        return Some(format!(
            "the fault: {na}: {}; {nb}: {}",
            show(&ra.fault),
            show(&rb.fault)
        ));
    }
    if ra.mismatch_count != rb.mismatch_count || ra.mismatches != rb.mismatches {
        return Some(format!(
            "the mismatches: {na} has {}, {nb} has {}",
            ra.mismatch_count, rb.mismatch_count
        ));
    }
    // Global memory, 1 MiB at a time.
    const CHUNK: u64 = 1 << 20;
    let (ma, mb) = (&a.machine.global, &b.machine.global);
    for s in ma.segments() {
        let mut at = s.base();
        // Bytes left from `at`: a segment may end exactly at 2^64.
        let mut left = s.size();
        let (mut x, mut y) = (Vec::new(), Vec::new());
        while left > 0 {
            let len = left.min(CHUNK);
            x.resize(len as usize, 0);
            y.resize(len as usize, 0);
            // Sparse tiles read as an error in both or neither: compare what reads.
            let (ok_a, ok_b) = (
                ma.read_into(at, &mut x).is_ok(),
                mb.read_into(at, &mut y).is_ok(),
            );
            if ok_a && ok_b {
                if let Some(i) = x.iter().zip(&y).position(|(p, q)| p != q) {
                    return Some(format!(
                        "global memory at {:#x}: {na} {:#04x}, {nb} {:#04x}",
                        at + i as u64,
                        x[i],
                        y[i]
                    ));
                }
            }
            left -= len;
            at = at.wrapping_add(len);
        }
    }
    // Resources, in place (a large one is never copied).
    for ((view, slot, ra), (_, _, rb)) in bound_resources(a).zip(bound_resources(b)) {
        let (sa, sb) = (ra.storage(), rb.storage());
        if sa.len() != sb.len() {
            return Some(format!(
                "{}{slot}'s size: {na} {}, {nb} {}",
                view.register(),
                sa.len(),
                sb.len()
            ));
        }
        // Word by word, in place (the padding past `len` in the last word is zero in both).
        let differs = sa
            .words()
            .iter()
            .zip(sb.words())
            .position(|(p, q)| p.load(Relaxed) != q.load(Relaxed));
        if let Some(w) = differs {
            let (p, q) = (sa.word(w).load(Relaxed), sb.word(w).load(Relaxed));
            let k = (p ^ q).trailing_zeros() / 8;
            return Some(format!(
                "{}{slot} byte {:#x}: {na} {:#04x}, {nb} {:#04x}",
                view.register(),
                4 * w as u64 + k as u64,
                p.to_le_bytes()[k as usize],
                q.to_le_bytes()[k as usize]
            ));
        }
    }
    None
}

/// For a launch of a program run over invocations, sets the machine's stage inputs (from the
/// launch's `[[launch.input]]` tables; 0 elsewhere) and zeroed outputs, and returns how many
/// `o#` registers an invocation writes; `None` (and no stage buffers) for other launches. A
/// pixel shader's records are its lanes' ([`LaunchSpec::quads`]): the helper invocations' inputs
/// are [`helper_input`]'s, `SV_Position` is the pixel's centre unless the trace gives it, and
/// the hidden slot says which lanes are pixels.
fn stage_io(trace: &mut Trace, i: usize) -> Result<Option<crate::ir::StageIo>, TraceError> {
    let spec = &trace.launches[i];
    let (Some(io), Some(n)) = (spec.program.interface.invocations, spec.lanes()) else {
        trace.machine.resources.set_input(None);
        trace.machine.resources.set_output(None);
        return Ok(None);
    };
    let quads = spec.quads();
    // One record of `v#` per lane and input vertex, of `o#` per lane and output vertex (a
    // geometry shader's emits), zero-filled and lazily committed (a launch of many invocations
    // may have large ones); the inputs written into it.
    let records_in = n as u64 * io.vertices_in as u64;
    let invocations = spec.invocations.unwrap_or(n);
    let stage = crate::stage::Stage::bind_lanes(&mut trace.machine, io, invocations, n)
        .map_err(|err| trace.error_at(&(0..0), format!("launch {}: {err}", spec.index)))?;
    let put = |record: u64, reg: u32, v: [u32; 4]| {
        stage.put(&trace.machine, record as u32, reg, v);
    };
    let mut given: Vec<(u32, Vec<[u32; 4]>)> = Vec::new();
    for r in &spec.inputs {
        let words = r
            .words()
            .map_err(|err| trace.error_at(&r.span, err.to_string()))?;
        for (inv, v) in words.iter().enumerate().take(records_in as usize) {
            let slot = quads.map_or(inv as u64, |q| q.slot(inv as u32) as u64);
            put(slot, r.reg, *v);
        }
        if quads.is_some() {
            given.push((r.reg, words));
        }
    }
    if let (Some(q), Some(live)) = (quads, io.live) {
        let iface = &spec.program.interface;
        // SV_Position, unless the trace gives it: the pixel's centre, depth 0, w 1.
        for p in iface.pixel_inputs.iter().filter(|p| p.position) {
            if !given.iter().any(|g| g.0 == p.reg) {
                for s in 0..n {
                    let [x, y] = q.pixel(s);
                    let c = |v: u32| (v as f32 + 0.5).to_bits();
                    put(s as u64, p.reg, [c(x), c(y), 0, 1.0f32.to_bits()]);
                }
            }
        }
        for s in 0..n {
            match q.invocation(s) {
                Some(_) => put(s as u64, live, [1, 0, 0, 0]),
                None => {
                    for (reg, words) in &given {
                        let how = helper_kind(iface, *reg);
                        if let Some(v) = helper_input(&q, s, words, how) {
                            put(s as u64, *reg, v);
                        }
                    }
                }
            }
        }
    }
    Ok(Some(io))
}

/// How a helper invocation's input register is made (docs/semantics.md §33).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelperInput {
    /// Extrapolated from the pixels next to it (an interpolated register).
    Linear,
    /// The nearest pixel's value (`constant` interpolation, integer system values, `vPrim`).
    Constant,
    /// 0 (`vCoverage`, `vInnerCoverage`: a helper covers no sample).
    Zero,
}

/// How a pixel shader's input register `reg` (a record slot) fills a helper's record.
fn helper_kind(iface: &crate::ir::Interface, reg: u32) -> HelperInput {
    if let Some(x) = iface.named_io.iter().find(|x| !x.output && x.slot == reg) {
        return if x.name == "vPrim" {
            HelperInput::Constant
        } else {
            HelperInput::Zero
        };
    }
    match iface.pixel_inputs.iter().find(|p| p.reg == reg) {
        Some(p) if p.constant => HelperInput::Constant,
        _ => HelperInput::Linear,
    }
}

/// A helper invocation's value of an input register the trace gives per pixel (`words`,
/// invocation after invocation; 0 past its end), or `None` to leave it 0. Only a rectangle
/// (`pixels`) places helpers next to pixels: a helper at `(x, y)` (right of the last column or
/// below the last row) takes the pixel `c` at the nearest column and row; a constant register
/// its value; an interpolated one its value continued by the differences to the pixel before it
/// in the row and in the column (where there is one), each component in f32 with Direct3D's
/// float rules: `v(c) + (v(c) - v(c - x̂)) + (v(c) - v(c - ŷ))`, the terms of the axes the helper
/// is past. Without a rectangle, helpers' inputs are 0.
pub fn helper_input(
    q: &crate::tracefile::QuadLayout,
    slot: u32,
    words: &[[u32; 4]],
    how: HelperInput,
) -> Option<[u32; 4]> {
    use crate::semantics::d3d::{add, fneg};
    let [w, h] = q.pixels?;
    if how == HelperInput::Zero {
        return None;
    }
    let [x, y] = q.pixel(slot);
    let (cx, cy) = (x.min(w - 1), y.min(h - 1));
    let v = |px: u32, py: u32| words.get((py * w + px) as usize).copied().unwrap_or([0; 4]);
    let c = v(cx, cy);
    if how == HelperInput::Constant {
        return Some(c);
    }
    let mut out = c;
    if x > cx && w >= 2 {
        let b = v(cx - 1, cy);
        out = std::array::from_fn(|k| add(out[k], add(c[k], fneg(b[k]))));
    }
    if y > cy && h >= 2 {
        let b = v(cx, cy - 1);
        out = std::array::from_fn(|k| add(out[k], add(c[k], fneg(b[k]))));
    }
    Some(out)
}

/// What a bound resource holds now: its storage (`None`: nothing bound there, which reads 0).
fn bound_storage(
    trace: &Trace,
    view: View,
    slot: u32,
) -> Option<&warpjit_runtime::resource::Storage> {
    let r = match view {
        View::Srv => trace.machine.resources.srv(slot),
        View::Uav => trace.machine.resources.uav(slot),
    };
    r.map(|r| r.storage())
}

/// What a resource's bytes are read from to check an expectation.
trait ResourceBytes {
    /// How many bytes there are.
    fn len(&self) -> u64;
    /// Copies `out.len()` bytes from byte `off`, all inside.
    fn read(&self, off: u64, out: &mut [u8]);
}

impl ResourceBytes for Option<&warpjit_runtime::resource::Storage> {
    fn len(&self) -> u64 {
        self.map_or(u64::MAX, |s| s.len())
    }
    fn read(&self, off: u64, out: &mut [u8]) {
        match self {
            Some(s) => s.read(off, out),
            None => out.fill(0),
        }
    }
}

impl ResourceBytes for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read(&self, off: u64, out: &mut [u8]) {
        out.copy_from_slice(&self[off as usize..off as usize + out.len()]);
    }
}

/// Which kind of resource expectation.
#[derive(Clone, Copy)]
enum Target {
    Buffer,
    Texture,
}

/// Compares `[[expect_buffer]]` or `[[expect_texture]]` `e` with the resource's bytes, a chunk
/// at a time (a `file` expectation is read a chunk at a time too), adding each element that
/// differs to the report. An error when the expectation's file cannot be read, or the resource
/// holds fewer bytes than the expectation checks.
fn check_resource(
    trace: &Trace,
    e: &ExpectResource,
    target: Target,
    bytes: &dyn ResourceBytes,
    report: &mut TraceReport,
) -> Result<(), TraceError> {
    let len = e.data.byte_len();
    let (table, what) = match target {
        Target::Buffer => (Table::ExpectBuffer, "buffer"),
        Target::Texture => (Table::ExpectTexture, "texture"),
    };
    if bytes.len() < len {
        return Err(trace.error_at(
            &e.span,
            format!(
                "the {what} {}{} holds {} bytes after the run, fewer than the {len} the \
                 expectation checks",
                e.view.register(),
                e.slot,
                bytes.len()
            ),
        ));
    }
    let (view, slot) = (e.view, e.slot);
    let texture = &trace.textures.get(e.resource);
    let place = |byte| match (target, texture) {
        (Target::Texture, Some(texture)) => {
            let (mip, slice, row, column, sample) = texture.element_at(byte);
            Place::Texture {
                view,
                slot,
                byte,
                mip: (texture.mips > 1).then_some(mip),
                slice,
                row,
                column,
                sample,
            }
        }
        _ => Place::Buffer { view, slot, byte },
    };
    let mut got = vec![0; CHUNK.min(len as usize)];
    expected_chunks(trace, &e.data, &e.span, |off, want| {
        let got = &mut got[..want.len()];
        bytes.read(off, got);
        compare_elements(
            (table, e.index, e.line),
            e.data.kind(),
            off,
            want,
            got,
            place,
            report,
        );
        Ok(())
    })
}

/// Calls `f` with each chunk (at most [`CHUNK`] bytes) of an expectation's data and its offset,
/// in order: a `file` is read a chunk at a time, never whole (an error at `span` when it can no
/// longer be read, or changed size since the trace was loaded).
fn expected_chunks(
    trace: &Trace,
    data: &Data,
    span: &std::ops::Range<usize>,
    mut f: impl FnMut(u64, &[u8]) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    match data {
        Data::File { path, len } => {
            let (file, now) =
                files::open_resolved(path).map_err(|message| trace.error_at(span, message))?;
            if now != *len {
                return Err(trace.error_at(
                    span,
                    format!(
                        "{} changed size while running ({now} bytes, was {len})",
                        path.display()
                    ),
                ));
            }
            let mut file = file.take(*len);
            let mut want = vec![0; CHUNK.min(*len as usize)];
            let mut off = 0u64;
            while off < *len {
                let n = CHUNK.min((*len - off) as usize);
                file.read_exact(&mut want[..n]).map_err(|err| {
                    trace.error_at(span, format!("cannot read {}: {err}", path.display()))
                })?;
                f(off, &want[..n])?;
                off += n as u64;
            }
            Ok(())
        }
        d => {
            let want = d
                .to_bytes()
                .map_err(|err| trace.error_at(span, err.to_string()))?;
            for (k, w) in want.chunks(CHUNK).enumerate() {
                f((k * CHUNK) as u64, w)?;
            }
            Ok(())
        }
    }
}

/// Bytes of an expectation compared at a time (a multiple of every element size).
const CHUNK: usize = 1 << 20;

/// Compares one expectation with global memory, adding its mismatches to the report. A `file`
/// is read a chunk at a time (never whole), and memory is read a chunk at a time with one segment
/// lookup per segment (non-resident tiles read 0), so memory use stays at two chunks whatever the
/// size.
fn check(trace: &Trace, e: &Expect, report: &mut TraceReport) -> Result<(), TraceError> {
    let len = e.data.byte_len();
    let mem = &trace.machine.global;
    let mut got = vec![0; CHUNK.min(len as usize)];
    expected_chunks(trace, &e.data, &e.span, |off, want| {
        let got = &mut got[..want.len()];
        mem.read_into(e.addr.wrapping_add(off), got)
            .map_err(|err| trace.expect_error(e, err.to_string()))?;
        compare_chunk(e, off, want, got, report);
        Ok(())
    })
}

/// Adds the mismatches of one chunk (`want` against `got`, `off` bytes into expectation `e`).
fn compare_chunk(e: &Expect, off: u64, want: &[u8], got: &[u8], report: &mut TraceReport) {
    let place = |byte: u64| Place::Global {
        addr: e.addr.wrapping_add(byte),
    };
    compare_elements(
        (Table::Expect, e.index, e.line),
        e.data.kind(),
        off,
        want,
        got,
        place,
        report,
    );
}

/// Adds the mismatches between `want` and `got` (the same length, `off` bytes into an
/// expectation's data), element by element of `kind`; `place` says where the element at a byte
/// offset of the data lies.
fn compare_elements(
    (table, index, line): (Table, usize, u32),
    kind: DataKind,
    off: u64,
    want: &[u8],
    got: &[u8],
    place: impl Fn(u64) -> Place,
    report: &mut TraceReport,
) {
    if want == got {
        return;
    }
    let size = kind.element_size() as usize;
    for (i, (w, g)) in want
        .chunks_exact(size)
        .zip(got.chunks_exact(size))
        .enumerate()
    {
        if w == g {
            continue;
        }
        report.mismatch_count += 1;
        if report.mismatches.len() < MAX_MISMATCHES {
            let byte = off + (i * size) as u64;
            report.mismatches.push(Mismatch {
                table,
                expect: index,
                line,
                kind,
                index: byte / size as u64,
                place: place(byte),
                expected: Value::new(kind, w),
                got: Value::new(kind, g),
            });
        }
    }
}

/// An expectation's bytes (a file is read), or an error at `span`.
fn expected_bytes(
    trace: &Trace,
    data: &Data,
    span: &std::ops::Range<usize>,
) -> Result<Vec<u8>, TraceError> {
    data.to_bytes()
        .map_err(|err| trace.error_at(span, err.to_string()))
}

/// Compares `[[expect_buffer]]` `e` of `trace` with `bytes`, the contents of the buffer it names
/// after the run (from its first byte; at least as many bytes as the expectation's data), and adds
/// each element that differs to the report: `expect_buffer N (line L): u32[I] at u3 byte 0xB:
/// expected ..., got ...`.
///
/// An error is returned when the expectation's file cannot be read, or `bytes` is shorter than
/// the expectation (the caller passed the wrong resource).
pub fn check_buffer(
    trace: &Trace,
    e: &ExpectResource,
    bytes: &[u8],
    report: &mut TraceReport,
) -> Result<(), TraceError> {
    check_resource(trace, e, Target::Buffer, &bytes, report)
}

/// Compares `[[expect_texture]]` `e` of `trace` with `bytes`, the contents of the texture it
/// names after the run, in the layout of `[[texture]]` data (slice, row, column, sample; from the
/// first byte; at least as many bytes as the expectation's data), and adds each element that
/// differs to the report, with the texture element it lies in: `expect_texture N (line L):
/// u32[I] at t0 byte 0xB (slice S, row Y, column X, sample K): expected ..., got ...`.
///
/// Errors as for [`check_buffer`].
pub fn check_texture(
    trace: &Trace,
    e: &ExpectResource,
    bytes: &[u8],
    report: &mut TraceReport,
) -> Result<(), TraceError> {
    check_resource(trace, e, Target::Texture, &bytes, report)
}

/// Compares `[[launch.expect_output]]` `e` of launch `spec` with `outputs`: the `o#` register it
/// names (`o{e.reg}`) after the launch, one `[x, y, z, w]` per output record: `vertices` per
/// invocation (1, or a geometry shader's `dcl_maxout`: one per `emit`), in order (at least as
/// many records as the expectation covers). Adds each element that differs to
/// the report: `expect_output N of launch M (line L): u32[I] at invocation K o2.y: expected ...,
/// got ...` (a `u8` or `file` element names its byte of the component, `o2.y byte 1`; a
/// geometry shader's record its vertex, `invocation 1 vertex 2 o0.x`).
///
/// An error is returned when the expectation's file cannot be read, or `outputs` covers fewer
/// invocations than the expectation.
pub fn check_output(
    trace: &Trace,
    spec: &LaunchSpec,
    e: &RegData,
    outputs: &[[u32; 4]],
    vertices: u32,
    report: &mut TraceReport,
) -> Result<(), TraceError> {
    let want = expected_bytes(trace, &e.data, &e.span)?;
    let invocations = want.len() / 16;
    if outputs.len() < invocations {
        return Err(trace.error_at(
            &e.span,
            format!(
                "launch {} gave o{} for {} invocations, fewer than the {invocations} the \
                 expectation checks",
                spec.index,
                e.reg,
                outputs.len()
            ),
        ));
    }
    let got: Vec<u8> = outputs[..invocations]
        .iter()
        .flat_map(|v| v.iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    let (launch, reg) = (spec.index, e.reg);
    let per = vertices.max(1) as u64;
    let name = e.name;
    let place = |byte: u64| Place::Output {
        launch,
        reg,
        name,
        invocation: byte / 16 / per,
        vertex: (per > 1).then_some(byte / 16 % per),
        component: (byte % 16 / 4) as u8,
        byte: (byte % 4) as u8,
    };
    compare_elements(
        (Table::ExpectOutput, e.index, e.line),
        e.data.kind(),
        0,
        &want,
        &got,
        place,
        report,
    );
    Ok(())
}

/// What one launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchReport {
    /// 0-based launch index.
    pub index: u32,
    /// CTAs in the grid.
    pub ctas: u64,
    /// Warps per CTA.
    pub warps_per_cta: u64,
    /// Work counted by the engine.
    pub stats: Stats,
    /// Wall-clock seconds of the launch.
    pub seconds: f64,
}

/// The outcome of running a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceReport {
    /// The engine's name.
    pub engine: &'static str,
    /// The launches that completed, in order.
    pub launches: Vec<LaunchReport>,
    /// Sum of the completed launches' stats.
    pub total: Stats,
    /// Wall-clock seconds spent in launches (loading and checking excluded).
    pub seconds: f64,
    /// Expectation mismatches, in trace order (at most [`MAX_MISMATCHES`]).
    pub mismatches: Vec<Mismatch>,
    /// How many mismatches there were in all.
    pub mismatch_count: u64,
    /// The fault that stopped the run, if one did (then no expectation was checked).
    pub fault: Option<Fault>,
    /// Where the faulting instruction is written (`path:line:col: text`), when known.
    pub fault_at: Option<String>,
    /// Whether the failure text shows the registers the faulting instruction read (a SASS or
    /// cubin program, whose registers are the text's; not DXBC, whose registers are the
    /// lowering's).
    pub show_reads: bool,
    /// The trace file (empty for a report not made by a run).
    pub trace: std::path::PathBuf,
}

impl TraceReport {
    /// The report of a run that has not started: no launches, no mismatches, no fault.
    pub fn new(engine: &'static str) -> TraceReport {
        TraceReport {
            engine,
            launches: Vec::new(),
            total: Stats::default(),
            seconds: 0.0,
            mismatches: Vec::new(),
            mismatch_count: 0,
            fault: None,
            fault_at: None,
            show_reads: false,
            trace: std::path::PathBuf::new(),
        }
    }

    /// True when every launch ran and every expectation held.
    pub fn passed(&self) -> bool {
        self.fault.is_none() && self.mismatch_count == 0
    }

    /// The command line's exit status for this outcome: 0 passed, 1 an expectation failed, 3 a
    /// fault (2, an invalid trace, is a [`TraceError`]).
    pub fn exit_code(&self) -> i32 {
        if self.fault.is_some() {
            3
        } else if self.mismatch_count > 0 {
            1
        } else {
            0
        }
    }

    /// Lane instructions per second over the launches.
    pub fn rate(&self) -> f64 {
        rate(self.total.lane_insts, self.seconds)
    }

    /// What `warpjit run` prints on stderr for this outcome: the fault, or the first `shown`
    /// mismatches (one `mismatch: ...` line each), `... and N more` when there were more, and a
    /// count; empty when the trace passed.
    pub fn failure_text(&self, shown: usize) -> String {
        use fmt::Write;
        let mut s = String::new();
        if let Some(fault) = &self.fault {
            let _ = writeln!(s, "{fault}");
            if let Some(at) = &self.fault_at {
                let _ = writeln!(s, "  at {at}");
            }
            if !fault.reads.is_empty() && self.show_reads {
                let _ = writeln!(s, "  read by lane {}: {}", fault.lane, fault.reads);
            }
            return s;
        }
        if self.mismatch_count == 0 {
            return s;
        }
        for m in self.mismatches.iter().take(shown) {
            let _ = writeln!(s, "mismatch: {m}");
        }
        let more = self
            .mismatch_count
            .saturating_sub(shown.min(self.mismatches.len()) as u64);
        if more > 0 {
            let _ = writeln!(s, "... and {more} more");
        }
        let plural = if self.mismatch_count == 1 { "" } else { "es" };
        let _ = write!(s, "warpjit: {} mismatch{plural}", self.mismatch_count);
        if !self.trace.as_os_str().is_empty() {
            let _ = write!(s, " in {}", self.trace.display());
        }
        let _ = writeln!(s);
        s
    }
}

/// `count / seconds`, 0 when no time was measured.
pub fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// Which kind of expectation table a mismatch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `[[expect]]`.
    Expect,
    /// `[[expect_buffer]]`.
    ExpectBuffer,
    /// `[[expect_texture]]`.
    ExpectTexture,
    /// `[[launch.expect_output]]`.
    ExpectOutput,
}

impl Table {
    /// The table's name without brackets, as mismatches print it.
    pub fn name(self) -> &'static str {
        match self {
            Table::Expect => "expect",
            Table::ExpectBuffer => "expect_buffer",
            Table::ExpectTexture => "expect_texture",
            Table::ExpectOutput => "expect_output",
        }
    }
}

/// Where a compared element lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Global memory: `at 0x10004`.
    Global {
        /// Address of the element.
        addr: u64,
    },
    /// A buffer: `at u3 byte 0x10`.
    Buffer {
        /// Its view.
        view: View,
        /// Its slot.
        slot: u32,
        /// Byte offset of the element in the buffer.
        byte: u64,
    },
    /// A texture: `at t0 byte 0x10 (slice 0, row 1, column 0, sample 2)`.
    Texture {
        /// Its view.
        view: View,
        /// Its slot.
        slot: u32,
        /// Byte offset of the element in the texture's data.
        byte: u64,
        /// Mip level of the texture element it lies in (`None` for a texture of one level).
        mip: Option<u64>,
        /// Array slice (a cube's face, a 3D texture's depth slice) of the element it lies in.
        slice: u64,
        /// Row.
        row: u64,
        /// Column.
        column: u64,
        /// Sample.
        sample: u64,
    },
    /// An output register: `at invocation 5 o2.y` (`o2.y byte 1` for a byte of it).
    Output {
        /// The launch.
        launch: u32,
        /// The `o#` register.
        reg: u32,
        /// The invocation.
        invocation: u64,
        /// The output vertex of a geometry shader's invocation (its `n`th emit).
        vertex: Option<u64>,
        /// The special register's name (`oDepth`), shown instead of `o{reg}`.
        name: Option<&'static str>,
        /// The component, 0 to 3 (x, y, z, w).
        component: u8,
        /// The byte within the component (0 for word elements).
        byte: u8,
    },
}

/// One element of an expectation that did not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The kind of expectation table.
    pub table: Table,
    /// 0-based index of the expectation among the trace's tables of that kind (for
    /// `[[launch.expect_output]]`: among its launch's).
    pub expect: usize,
    /// Line of that table in the trace.
    pub line: u32,
    /// Its data key.
    pub kind: DataKind,
    /// Index of the element in the data (a file compares bytes).
    pub index: u64,
    /// Where the element lies.
    pub place: Place,
    /// The expected value.
    pub expected: Value,
    /// The value found.
    pub got: Value,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.table.name(), self.expect)?;
        if let Place::Output { launch, .. } = self.place {
            write!(f, " of launch {launch}")?;
        }
        write!(
            f,
            " (line {}): {}[{}] at ",
            self.line, self.kind, self.index
        )?;
        match self.place {
            Place::Global { addr } => write!(f, "{addr:#x}")?,
            Place::Buffer { view, slot, byte } => {
                write!(f, "{}{slot} byte {byte:#x}", view.register())?
            }
            Place::Texture {
                view,
                slot,
                byte,
                mip,
                slice,
                row,
                column,
                sample,
            } => write!(
                f,
                "{}{slot} byte {byte:#x} ({}slice {slice}, row {row}, column {column}, sample {sample})",
                view.register(),
                mip.map_or(String::new(), |m| format!("mip {m}, "))
            )?,
            Place::Output {
                reg,
                invocation,
                vertex,
                name,
                component,
                byte,
                ..
            } => {
                let c = ['x', 'y', 'z', 'w'][component as usize & 3];
                write!(f, "invocation {invocation} ")?;
                if let Some(v) = vertex {
                    write!(f, "vertex {v} ")?;
                }
                match name {
                    Some(n) => write!(f, "{n}.{c}")?,
                    None => write!(f, "o{reg}.{c}")?,
                }
                if self.kind.element_size() == 1 {
                    write!(f, " byte {byte}")?;
                }
            }
        }
        write!(f, ": expected {}, got {}", self.expected, self.got)
    }
}

/// A compared value, printed per its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Unsigned word: `42 (0x0000002a)`.
    U32(u32),
    /// Signed word: `-1 (0xffffffff)`.
    I32(i32),
    /// Float, by its bits (compared bit-exact): `1.5 (0x3fc00000)`.
    F32(u32),
    /// Byte: `255 (0xff)`.
    U8(u8),
}

impl Value {
    fn new(kind: DataKind, bytes: &[u8]) -> Value {
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        match kind {
            DataKind::U32 => Value::U32(word(bytes)),
            DataKind::I32 => Value::I32(word(bytes) as i32),
            DataKind::F32 => Value::F32(word(bytes)),
            DataKind::U8 | DataKind::File => Value::U8(bytes[0]),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::U32(v) => write!(f, "{v} ({v:#010x})"),
            Value::I32(v) => write!(f, "{v} ({:#010x})", v as u32),
            Value::F32(v) => write!(f, "{:?} ({v:#010x})", f32::from_bits(v)),
            Value::U8(v) => write!(f, "{v} ({v:#04x})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_decimal_and_hex() {
        assert_eq!(Value::U32(42).to_string(), "42 (0x0000002a)");
        assert_eq!(Value::I32(-1).to_string(), "-1 (0xffffffff)");
        assert_eq!(Value::F32(0x3fc0_0000).to_string(), "1.5 (0x3fc00000)");
        assert_eq!(Value::F32(0x7fc0_0001).to_string(), "NaN (0x7fc00001)");
        assert_eq!(Value::U8(255).to_string(), "255 (0xff)");
    }

    use crate::tracefile::{Data, RegData};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Loads `body` (after the format line) from a fresh scratch file.
    fn trace(body: &str) -> Trace {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("warpjit-runner-tests-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("t{}.toml", N.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&path, format!("format = \"warpjit-trace/1\"\n{body}")).expect("scratch");
        crate::tracefile::load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    fn lines(r: &TraceReport) -> Vec<String> {
        r.mismatches.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn two_runs_differ_by_a_byte_of_memory_or_a_buffer() {
        // Two loads that differ in one byte of global memory (at 0x2001, in the second page),
        // or of a buffer, as two engines' runs would if one were wrong.
        let body = |g: u32, u: u32| {
            format!(
                "[[global]]\naddr = 0x1000\nsize = 0x1000\n[[global]]\naddr = 0x2000\nu32 = [{g}]\n\
                 [[buffer]]\nslot = 1\nu32 = [0, {u}, 0, 0]\n[[launch]]\ncode = \"EXIT;\"\n"
            )
        };
        let run = |t: &mut Trace| {
            run_in(t, &crate::interp::Interpreter, &RunOptions::default()).expect("runs")
        };
        let (mut a, mut b) = (trace(&body(0, 0)), trace(&body(0, 0)));
        let (ra, rb) = (run(&mut a), run(&mut b));
        assert_eq!(difference(&a, &b, &ra, &rb), None);
        let mut b = trace(&body(0x700, 0));
        let rb = run(&mut b);
        assert_eq!(
            difference(&a, &b, &ra, &rb).as_deref(),
            Some("global memory at 0x2001: interp 0x00, interp 0x07")
        );
        let mut b = trace(&body(0, 9));
        let rb = run(&mut b);
        assert_eq!(
            difference(&a, &b, &ra, &rb).as_deref(),
            Some("u1 byte 0x4: interp 0x00, interp 0x09")
        );
    }

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn buffer_checks_compare_elements_of_the_data_key() {
        let t = trace(
            "[[buffer]]\nslot = 3\nsize = 16\n\
             [[expect_buffer]]\nslot = 3\nu32 = [1, 2, 3]\n\
             [[expect_buffer]]\nslot = 3\nu8 = [1, 0, 0, 0, 2]\n",
        );
        let (a, b) = (&t.expect_buffers[0], &t.expect_buffers[1]);
        let mut r = TraceReport::new("test");
        check_buffer(&t, a, &le(&[1, 2, 3, 0xffff_ffff]), &mut r).expect("checked");
        assert!(
            r.passed(),
            "equal bytes, and bytes past the data are not compared"
        );
        check_buffer(&t, a, &le(&[1, 9, 3, 4]), &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            ["expect_buffer 0 (line 5): u32[1] at u3 byte 0x4: expected 2 (0x00000002), got 9 (0x00000009)"]
        );
        assert_eq!(
            r.mismatches[0].place,
            Place::Buffer {
                view: View::Uav,
                slot: 3,
                byte: 4
            }
        );
        let mut r = TraceReport::new("test");
        check_buffer(&t, b, &le(&[1, 0x0300]), &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            ["expect_buffer 1 (line 8): u8[4] at u3 byte 0x4: expected 2 (0x02), got 0 (0x00)"]
        );
        assert_eq!((r.mismatch_count, r.exit_code()), (1, 1));
        // Fewer bytes than the expectation checks: the caller's error, located at the slot.
        let e = check_buffer(&t, a, &le(&[1, 2]), &mut r)
            .err()
            .map(|e| e.to_string());
        assert!(
            e.as_deref().is_some_and(|e| e.contains(
                ":6:8: error: the buffer u3 holds 8 bytes after \
             the run, fewer than the 12 the expectation checks"
            )),
            "{e:?}"
        );
    }

    #[test]
    fn texture_checks_name_the_texel_and_sample() {
        // 2x2 texels, 2 samples, 4-byte elements: element ((slice*2 + row)*2 + column)*2 + sample.
        let t = trace(
            "[[texture]]\nslot = 1\ndim = \"2dms\"\nformat = \"R32_FLOAT\"\nwidth = 2\nheight = 2\nsamples = 2\n\
             [[expect_texture]]\nslot = 1\nview = \"srv\"\nf32 = [0, 1, 2, 3, 4, 5, 6, 7]\n",
        );
        let e = &t.expect_textures[0];
        let mut got: Vec<u32> = (0..8).map(|i| (i as f32).to_bits()).collect();
        let mut r = TraceReport::new("test");
        check_texture(&t, e, &le(&got), &mut r).expect("checked");
        assert!(r.passed());
        // Element 5: row 1, column 0, sample 1; -0.0 is not 0.0 (bit-exact).
        got[5] = 0x8000_0000;
        got[2] = 2.5f32.to_bits();
        check_texture(&t, e, &le(&got), &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            [
                "expect_texture 0 (line 9): f32[2] at t1 byte 0x8 (slice 0, row 0, column 1, sample 0): expected 2.0 (0x40000000), got 2.5 (0x40200000)",
                "expect_texture 0 (line 9): f32[5] at t1 byte 0x14 (slice 0, row 1, column 0, sample 1): expected 5.0 (0x40a00000), got -0.0 (0x80000000)",
            ]
        );
        let err = check_texture(&t, e, &le(&got[..7]), &mut r)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("the texture t1 holds 28 bytes")),
            "{err:?}"
        );
    }

    #[test]
    fn output_checks_name_the_invocation_and_component() {
        let t = trace("[[launch]]\ncode = \"EXIT;\"\n");
        let mut spec = t.launches[0].clone();
        let reg = |index: usize, reg: u32, data: Data| RegData {
            index,
            reg,
            name: None,
            data,
            line: 7,
            span: 0..1,
            data_span: 0..1,
        };
        spec.expect_outputs = vec![
            reg(0, 2, Data::U32(vec![1, 2, 3, 4, 5, 6, 0, 8])),
            reg(1, 1, Data::U8((0..16).collect())),
        ];
        let out = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]];
        let mut r = TraceReport::new("test");
        check_output(&t, &spec, &spec.expect_outputs[0], &out, 1, &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            ["expect_output 0 of launch 0 (line 7): u32[6] at invocation 1 o2.z: expected 0 (0x00000000), got 7 (0x00000007)"]
        );
        // Invocation i's .xyzw are words 4i..4i+3; a byte element names its byte of the word.
        let bytes: [u32; 4] = [0x0302_0100, 0x0706_0504, 0x0b0a_0909, 0x0f0e_0d0c];
        let mut r = TraceReport::new("test");
        check_output(&t, &spec, &spec.expect_outputs[1], &[bytes], 1, &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            ["expect_output 1 of launch 0 (line 7): u8[8] at invocation 0 o1.z byte 0: expected 8 (0x08), got 9 (0x09)"]
        );
        let err = check_output(&t, &spec, &spec.expect_outputs[0], &out[..1], 1, &mut r)
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("launch 0 gave o2 for 1 invocations, fewer than the 2")),
            "{err:?}"
        );
        // A geometry shader with 2 output vertices an invocation: record 1 is invocation 0's
        // second emit.
        let mut r = TraceReport::new("test");
        check_output(&t, &spec, &spec.expect_outputs[0], &out, 2, &mut r).expect("checked");
        assert_eq!(
            lines(&r),
            ["expect_output 0 of launch 0 (line 7): u32[6] at invocation 0 vertex 1 o2.z: expected 0 (0x00000000), got 7 (0x00000007)"]
        );
    }

    #[test]
    fn mismatches_past_twenty_are_counted() {
        let t = trace("[[buffer]]\nslot = 0\nsize = 100\n[[expect_buffer]]\nslot = 0\nu8 = [1]\n");
        let mut t = t;
        t.expect_buffers[0].data = Data::U8(vec![1; 25]);
        let mut r = TraceReport::new("test");
        check_buffer(&t, &t.expect_buffers[0], &[0; 100], &mut r).expect("checked");
        assert_eq!((r.mismatch_count, r.mismatches.len()), (25, 25));
        let text = r.failure_text(20);
        assert_eq!(
            text.lines().filter(|l| l.starts_with("mismatch: ")).count(),
            20
        );
        assert!(
            text.contains("... and 5 more\nwarpjit: 25 mismatches\n"),
            "{text}"
        );
    }
}
