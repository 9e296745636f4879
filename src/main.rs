//! `warpjit`: run kernel traces (docs/trace-format.md) on the CPU.
//!
//! ```text
//! warpjit run TRACE [--engine jit|interp] [--threads N] [--check] [--stats]
//! warpjit bench [--kernel NAME] [--threads N] [--iters N] [--size N]
//! warpjit disasm FILE             # a DXBC container (.cso) as a listing
//! warpjit asm LISTING -o FILE     # a DXBC listing as a container
//! ```
//!
//! Exit status: 0 every launch ran and every expectation held; 1 an expectation did not hold;
//! 2 the trace or a program in it is invalid (or the command line is); 3 a guest fault stopped a
//! launch.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use warpjit::exec::observe::MAX_FINDINGS;
use warpjit::exec::{CheckObserver, Engine, Observer, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;
use warpjit::runner::{self, TraceReport};

/// Mismatches printed before "... and N more".
const SHOWN_MISMATCHES: usize = 20;

#[derive(Parser)]
#[command(
    name = "warpjit",
    version,
    about = "Run GPU programs (Maxwell SASS, Direct3D DXBC) on the CPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a kernel trace: its launches in order, then its expectations.
    Run(RunArgs),
    /// Measure the interpreter, the JIT and native Rust on the built-in benchmark kernels, in
    /// one run, and print their throughput and ratios.
    Bench(BenchArgs),
    /// Print a binary program as text: a DXBC container (fxc /Fo, a .cso) as a listing in the
    /// syntax Microsoft's disassembler prints, which reads back to the same program.
    Disasm(DisasmArgs),
    /// Assemble a DXBC listing (as fxc prints it) into a DXBC container.
    Asm(AsmArgs),
}

#[derive(Args)]
struct DisasmArgs {
    /// The binary.
    file: PathBuf,
}

#[derive(Args)]
struct AsmArgs {
    /// The listing.
    listing: PathBuf,
    /// Where to write the container.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Largest program file `disasm` and `asm` read.
const MAX_PROGRAM_FILE: u64 = 64 << 20;

/// A regular file's bytes, at most [`MAX_PROGRAM_FILE`] of them.
fn read_program_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > MAX_PROGRAM_FILE {
        return Err(format!(
            "{}: {} bytes, more than the {MAX_PROGRAM_FILE} a program file may hold",
            path.display(),
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn disasm(args: &DisasmArgs) -> u8 {
    let bytes = match read_program_file(&args.file) {
        Ok(b) => b,
        Err(m) => {
            eprintln!("warpjit: {m}");
            return 2;
        }
    };
    if !warpjit::dxbc::container::is_container(&bytes) {
        eprintln!(
            "warpjit: {}: not a DXBC container (disasm reads a .cso; cubins are not supported yet)",
            args.file.display()
        );
        return 2;
    }
    match warpjit::dxbc::disassemble(&bytes, &args.file) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(d) => {
            eprintln!("{}", d.render(colour_stderr()));
            2
        }
    }
}

fn asm(args: &AsmArgs) -> u8 {
    let bytes = match read_program_file(&args.listing) {
        Ok(b) => b,
        Err(m) => {
            eprintln!("warpjit: {m}");
            return 2;
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        eprintln!("warpjit: {}: not UTF-8 text", args.listing.display());
        return 2;
    };
    match warpjit::dxbc::assemble(text, &args.listing) {
        Ok(out) => match std::fs::write(&args.output, out) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("warpjit: {}: {e}", args.output.display());
                2
            }
        },
        Err(d) => {
            eprintln!("{}", d.render(colour_stderr()));
            2
        }
    }
}

#[derive(Args)]
struct BenchArgs {
    /// Only the kernel with this name (stream, gather, const_table, addr128, loop).
    #[arg(long)]
    kernel: Option<String>,
    /// Host threads (default: all cores; at most 4 × the cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Timed runs per engine (the best is reported).
    #[arg(long, default_value_t = 5)]
    iters: u32,
    /// Threads per launch (rounded up to a multiple of 256).
    #[arg(long, default_value_t = 1 << 20)]
    size: u32,
}

#[derive(Args)]
struct RunArgs {
    /// The trace file (TOML, format "warpjit-trace/1").
    trace: PathBuf,
    /// Execution engine.
    #[arg(long, value_enum, default_value_t = EngineKind::Jit)]
    engine: EngineKind,
    /// Host threads running CTAs (default: all cores; 0 also means all cores; at most 4 × the
    /// cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Report undefined behaviour (docs/semantics.md §24) as diagnostics on stderr.
    #[arg(long)]
    check: bool,
    /// Print per-launch statistics.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineKind {
    /// The Cranelift JIT (the default).
    Jit,
    /// The reference interpreter.
    Interp,
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's own convention), --help and --version with 0.
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => ExitCode::from(run(&args)),
        Command::Bench(args) => ExitCode::from(bench(&args)),
        Command::Disasm(args) => ExitCode::from(disasm(&args)),
        Command::Asm(args) => ExitCode::from(asm(&args)),
    }
}

/// Whether diagnostics on standard error get colour: only on a terminal, and not when `NO_COLOR`
/// is set (<https://no-color.org>).
fn colour_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Checks `--threads`: at most [`warpjit::exec::max_threads`] (4 × the cores); more would only
/// add host threads, not speed.
fn check_threads(threads: Option<usize>, err: &mut impl Write) -> bool {
    let max = warpjit::exec::max_threads();
    match threads {
        Some(n) if n > max => {
            let _ = writeln!(
                err,
                "warpjit: error: --threads {n} is more than {max}, 4 × this host's {} cores",
                max / 4
            );
            false
        }
        _ => true,
    }
}

/// `warpjit run`: returns the exit status.
fn run(args: &RunArgs) -> u8 {
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    if !check_threads(args.threads, &mut err) {
        return 2;
    }
    let jit = match args.engine {
        EngineKind::Interp => None,
        EngineKind::Jit => match Jit::new() {
            Ok(j) => Some(j),
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {e} (use --engine interp)");
                return 2;
            }
        },
    };
    let engine: &dyn Engine = match &jit {
        Some(j) => j,
        None => &Interpreter,
    };
    let check = args.check.then(|| Arc::new(CheckObserver::default()));
    let opts = RunOptions {
        threads: args.threads.unwrap_or(0),
        observer: check.clone().map(|c| c as Arc<dyn Observer>),
    };
    let result = runner::run_trace(&args.trace, engine, &opts);
    if let Some(check) = &check {
        let findings = check.take();
        for d in &findings {
            let _ = writeln!(err, "{d}");
        }
        if findings.len() >= MAX_FINDINGS {
            let _ = writeln!(
                err,
                "check: further diagnostics dropped (at most {MAX_FINDINGS})"
            );
        }
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "{}", e.render(colour_stderr()));
            return 2;
        }
    };
    if args.stats {
        print_launches(&mut out, &report);
        if let Some(jit) = &jit {
            let c = jit.compile_stats();
            let t = &report.total;
            let ms = c.nanos as f64 / 1e6;
            let share = if report.seconds > 0.0 {
                100.0 * ms / 1e3 / report.seconds
            } else {
                0.0
            };
            let _ = writeln!(
                out,
                "jit: {} compiled in {ms:.3} ms ({share:.1}% of run time, longest {:.3} ms), {} recompiled by tier 2 in the background in {:.3} ms (longest {:.3} ms); {} interpreted; {} failed to compile ({} by tier 2); {} instruction executions delegated to the interpreter; {} memory slow paths",
                count(c.blocks, "block"),
                c.longest_nanos as f64 / 1e6,
                count(c.tier2_blocks, "block"),
                c.tier2_nanos as f64 / 1e6,
                c.tier2_longest_nanos as f64 / 1e6,
                count(t.interp_blocks, "block"),
                count(c.failed + c.tier2_failed, "block"),
                c.tier2_failed,
                t.delegated,
                t.slow_paths
            );
            // A block Cranelift rejects is a warpjit bug: it runs interpreted (or stays at tier
            // 1), and says so here.
            for e in jit.errors() {
                let _ = writeln!(err, "jit: {e}");
            }
        }
    }
    if report.fault.is_none() {
        let _ = writeln!(out, "{}", summary(&report));
    }
    let _ = write!(err, "{}", report.failure_text(SHOWN_MISMATCHES));
    report.exit_code() as u8
}

/// `n thing` or `n things`.
fn count(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// The one-line summary: launches, warps, lane-instructions, seconds, lane-instructions per second.
fn summary(r: &TraceReport) -> String {
    let launches = r.launches.len() as u64;
    format!(
        "{}, {}, {} lane-instructions, {:.6} s, {:.0} lane-instructions/s",
        if launches == 1 {
            "1 launch".to_string()
        } else {
            format!("{launches} launches")
        },
        count(r.total.warps, "warp"),
        r.total.lane_insts,
        r.seconds,
        r.rate()
    )
}

/// `--stats`: one line per completed launch.
fn print_launches(out: &mut impl Write, r: &TraceReport) {
    for l in &r.launches {
        let _ = writeln!(
            out,
            "launch {}: {} of {}, {}, {} warp instructions, {} lane-instructions, {:.6} s, {:.0} lane-instructions/s",
            l.index,
            count(l.ctas, "CTA"),
            count(l.warps_per_cta, "warp"),
            count(l.stats.warps, "warp"),
            l.stats.warp_insts,
            l.stats.lane_insts,
            l.seconds,
            runner::rate(l.stats.lane_insts, l.seconds)
        );
        if l.stats.interp_blocks > 0 {
            let _ = writeln!(
                out,
                "launch {}: {} ran in the interpreter",
                l.index,
                count(l.stats.interp_blocks, "block")
            );
        }
    }
}

/// `warpjit bench`: returns the exit status (1 if an engine's output differs from native).
fn bench(args: &BenchArgs) -> u8 {
    use warpjit::bench::{best_of, kernels, prepare, BLOCK};
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    if !check_threads(args.threads, &mut err) {
        return 2;
    }
    let opts = RunOptions {
        threads: args.threads.unwrap_or(0),
        ..RunOptions::default()
    };
    let n = args.size.max(1).div_ceil(BLOCK) * BLOCK;
    let jit = match Jit::new() {
        Ok(j) => j,
        Err(e) => {
            let _ = writeln!(err, "warpjit: error: {e}");
            return 2;
        }
    };
    let _ = writeln!(
        out,
        "{n} threads, best of {} runs; lane-instructions per second (G = 1e9)\n{:<12} {:>9} {:>9} {:>9} {:>10} {:>10} {:>13}",
        args.iters, "kernel", "interp", "jit", "native", "jit/interp", "jit/native", "compile/inst"
    );
    let mut status = 0;
    let mut ratios = Vec::new();
    for k in kernels()
        .iter()
        .filter(|k| args.kernel.as_deref().is_none_or(|n| n == k.name))
    {
        let p = match prepare(k, n) {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {}: {e}", k.name);
                return 2;
            }
        };
        let lanes = match p.run(&Interpreter, &opts) {
            Ok(s) => s.lane_insts as f64,
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {}: {e}", k.name);
                return 3;
            }
        };
        let before = jit.compile_stats();
        let ti = best_of(args.iters, || {
            let _ = p.run(&Interpreter, &opts);
        });
        let tj = best_of(args.iters, || {
            let _ = p.run(&jit, &opts);
        });
        let after = jit.compile_stats();
        if let Err(e) = p.check(k) {
            let _ = writeln!(err, "warpjit: error: jit output differs from native: {e}");
            status = 1;
        }
        let mut buf = vec![0u32; (n as usize) * (k.out_bytes as usize / 4)];
        let tn = best_of(args.iters, || p.run_native(k, &mut buf));
        let insts = p.launch.program.inst_count().max(1) as f64;
        let blocks = (after.blocks - before.blocks).max(1) as f64;
        let per_inst_us = (after.nanos - before.nanos) as f64
            / 1e3
            / (insts * blocks / p.launch.program.blocks.len() as f64);
        let g = |t: std::time::Duration| lanes / t.as_secs_f64() / 1e9;
        let (gi, gj, gn) = (g(ti), g(tj), g(tn));
        ratios.push(gj / gi);
        let _ = writeln!(
            out,
            "{:<12} {:>8.3}G {:>8.3}G {:>8.3}G {:>9.2}x {:>9.2}x {:>10.1} us",
            k.name,
            gi,
            gj,
            gn,
            gj / gi,
            gj / gn,
            per_inst_us
        );
    }
    if ratios.len() > 1 {
        let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
        let _ = writeln!(out, "geometric mean jit/interp: {:.2}x", geo.exp());
    }
    status
}
