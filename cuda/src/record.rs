//! `warpjit cuda --record DIR` (`WARPJIT_CUDA_RECORD`): every launch written as a
//! self-contained warpjit trace that `warpjit run DIR` replays.
//!
//! A launch's trace, `DIR/launch-PID-N.toml`, holds: the module's cubin (`DIR/module-PID-M.cubin`,
//! written once per module), the kernel and its shape, the parameter block (bank 0 from 0x140)
//! and the `__constant__` data (bank 3) as the launch saw them, the driver's generic windows, and
//! every mapped segment of device memory with its contents before the launch (side files in
//! `DIR/launch-PID-N/`), and, as expectations, every segment after it (a segment the launch did
//! not change is checked against its input file). The module's data image is one of the
//! segments; `module_data` tells the loader where it is (docs/trace-format.md §7.1). A launch
//! that faulted is written without expectations (the fault is what it replays).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use warpjit::exec::Machine;

/// Device memory before a launch: each segment's base and bytes.
pub struct Snapshot {
    segments: Vec<(u64, Vec<u8>)>,
}

/// Reads every mapped segment.
pub fn snapshot(machine: &Machine) -> Snapshot {
    let segments = machine
        .global
        .segments()
        .iter()
        .map(|s| {
            let bytes = machine
                .global
                .read_bytes(s.base(), s.size())
                .unwrap_or_default();
            (s.base(), bytes)
        })
        .collect();
    Snapshot { segments }
}

/// What a recorded launch is.
pub struct Launch<'a> {
    /// The record directory.
    pub dir: &'a Path,
    /// The launch's number in this process.
    pub number: u64,
    /// The module's serial and cubin.
    pub module: (u64, &'a [u8]),
    /// Where the module's data image is (0: none).
    pub data_base: u64,
    /// The kernel.
    pub kernel: &'a warpjit::device::Kernel,
    /// Its shape.
    pub config: &'a warpjit::device::LaunchConfig,
    /// The parameter block.
    pub params: &'a [u8],
    /// Bank 3 as the launch saw it (empty if the module has none).
    pub bank3: &'a [u8],
}

fn hex_list(bytes: &[u8]) -> String {
    let v: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    v.join(", ")
}

/// Writes the trace of launch `l` from the memory before it and the machine after it; `fault`
/// is the fault report if it faulted. Errors are reported on stderr, never to the program.
pub fn write(l: &Launch<'_>, before: &Snapshot, after: &Machine, fault: Option<&str>) {
    if let Err(e) = try_write(l, before, after, fault) {
        crate::entry::log_line(&format!("recording launch {}: {e}", l.number));
    }
}

fn try_write(
    l: &Launch<'_>,
    before: &Snapshot,
    after: &Machine,
    fault: Option<&str>,
) -> std::io::Result<()> {
    let pid = std::process::id();
    let name = format!("launch-{pid}-{:06}", l.number);
    let side = l.dir.join(&name);
    std::fs::create_dir_all(&side)?;
    let module = format!("module-{pid}-{}.cubin", l.module.0);
    let module_path: PathBuf = l.dir.join(&module);
    if !module_path.exists() {
        std::fs::write(&module_path, l.module.1)?;
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Recorded by warpjit's CUDA driver (warpjit cuda --record): launch {} of process {pid},",
        l.number
    );
    let _ = writeln!(t, "# kernel {}.", l.kernel.name());
    if let Some(f) = fault {
        let _ = writeln!(
            t,
            "# The launch faulted; replaying it reproduces the fault:"
        );
        for line in f.lines() {
            let _ = writeln!(t, "#   {line}");
        }
    }
    let _ = writeln!(t, "format = \"warpjit-trace/1\"\n");
    let _ = writeln!(t, "[machine]");
    let _ = writeln!(t, "shared_window = {:#x}", after.shared_window);
    let _ = writeln!(t, "local_window = {:#x}", after.local_window);
    let _ = writeln!(t, "launch_budget = \"{:#x}\"\n", after.launch_budget);
    for (i, (base, bytes)) in before.segments.iter().enumerate() {
        if bytes.is_empty() {
            continue;
        }
        let _ = writeln!(
            t,
            "[[global]]\naddr = \"{base:#x}\"\nsize = {:#x}",
            bytes.len()
        );
        if base % 16 == 0 {
            let file = format!("seg-{i}.bin");
            std::fs::write(side.join(&file), bytes)?;
            let _ = writeln!(t, "file = \"{name}/{file}\"\n");
        } else {
            // Host memory registered where the program had it: inline bytes (a file must start
            // at a multiple of 16).
            let _ = writeln!(t, "u8 = [{}]\n", hex_list(bytes));
        }
    }
    let _ = writeln!(
        t,
        "[[const]]                  # the parameters\nbank = 0\noffset = {:#x}",
        l.kernel.params().offset
    );
    if l.params.is_empty() {
        let _ = writeln!(t, "u8 = [0]\n");
    } else {
        let _ = writeln!(t, "u8 = [{}]\n", hex_list(l.params));
    }
    if !l.bank3.is_empty() {
        let _ = writeln!(t, "[[const]]                  # __constant__ data as the launch saw it\nbank = 3\noffset = 0\nu8 = [{}]\n", hex_list(l.bank3));
    }
    let c = l.config;
    let asked = l.kernel.shared_bytes() + c.dynamic_shared_bytes;
    if warpjit::device::shared_allocation(asked) != asked {
        // The launch has the allocation unit's worth of shared memory, but the size the kernel
        // reads in c[0x0][0xfc] is the one the program asked for (semantics §15).
        let _ = writeln!(
            t,
            "[[const]]                  # shared memory asked for (the allocation is rounded up)\nbank = 0\noffset = 0xfc\nu32 = [{asked:#x}]\n"
        );
    }
    let _ = writeln!(
        t,
        "[[launch]]\ncode_file = \"{module}\"\nkernel = \"{}\"",
        l.kernel.name()
    );
    let _ = writeln!(
        t,
        "grid = [{}, {}, {}]\nblock = [{}, {}, {}]",
        c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2]
    );
    let _ = writeln!(
        t,
        "shared_bytes = {:#x}",
        warpjit::device::shared_allocation(asked)
    );
    let _ = writeln!(t, "budget = \"{:#x}\"", u64::MAX);
    if l.data_base != 0 {
        let _ = writeln!(t, "module_data = \"{:#x}\"", l.data_base);
    }
    let _ = writeln!(t);
    if fault.is_none() {
        for (i, (base, bytes)) in before.segments.iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            let now = after
                .global
                .read_bytes(*base, bytes.len() as u64)
                .unwrap_or_default();
            let _ = writeln!(t, "[[expect]]\naddr = \"{base:#x}\"");
            if base % 16 != 0 {
                let _ = writeln!(t, "u8 = [{}]\n", hex_list(&now));
                continue;
            }
            let file = if now == *bytes {
                format!("seg-{i}.bin")
            } else {
                let f = format!("seg-{i}-after.bin");
                std::fs::write(side.join(&f), &now)?;
                f
            };
            let _ = writeln!(t, "file = \"{name}/{file}\"\n");
        }
    }
    std::fs::write(l.dir.join(format!("{name}.toml")), t)
}
