//! `warpjit`: run kernel traces (docs/trace-format.md) on the CPU.
//!
//! ```text
//! warpjit run TRACE... [--engine jit|interp|both] [--threads N] [--check[=TOOLS]] [--stats] [--json]
//!             [--quiet] [--dump DIR] [--allow-path DIR]...
//! warpjit bench [TRACE...] [--kernel NAME] [--threads N] [--iters N] [--size N] [--json] [--plot FILE.svg]
//!               [--allow-path DIR]...
//! warpjit disasm FILE [--kernel K] # a cubin (nvdisasm syntax) or a DXBC container as a listing
//! warpjit asm LISTING -o FILE     # a DXBC listing as a container
//! warpjit gen-trace KIND [--lane-instructions N] -o DIR
//! warpjit cuda [--engine jit|interp] [--threads N] [--record DIR] -- COMMAND [ARGS...]
//! ```
//!
//! Exit status: 0 every launch ran and every expectation held; 1 an expectation did not hold;
//! 2 the trace or a program in it is invalid; 3 a guest fault stopped a launch; 4 `--engine both`
//! found the engines disagree (a warpjit bug); 5 `--check` found errors; 64 the command line is
//! wrong. With several traces, the worst of these (4, 2, 3, 5, 1, 0 in that order).

mod cli;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use warpjit::exec::{Engine, Observer, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;
use warpjit::runner::{self, TraceReport};
use warpjit::sanitizer::{Sanitizer, Tools, MAX_REPORTS};

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
    /// Measure the interpreter, the JIT and plain Rust on the built-in benchmark kernels, in
    /// one run, and print their throughput and ratios, and how each engine scales from one
    /// host thread to `--threads`.
    Bench(cli::bench::BenchArgs),
    /// Print a binary program as text: a CUDA cubin (sm_50/52/53) as nvdisasm prints it, or a
    /// DXBC container (fxc /Fo, a .cso) in the syntax Microsoft's disassembler prints; either
    /// listing reads back to the same program.
    Disasm(DisasmArgs),
    /// Assemble a DXBC listing (as fxc prints it) into a DXBC container.
    Asm(AsmArgs),
    /// Write a self-checking trace of a benchmark kernel of any size: DIR/KIND.toml with its
    /// inputs and expected output in side files (mapped, not copied, when it runs).
    GenTrace(GenTraceArgs),
    /// Run a program that uses CUDA (the driver API: Numba, cuda-python, C against cuda.h)
    /// with warpjit as its CUDA driver: COMMAND finds warpjit's libcuda.so.1 first.
    Cuda(cli::cuda::CudaArgs),
}

#[derive(Args)]
struct GenTraceArgs {
    /// The kernel (stream, gather, const_table, addr128, loop).
    kind: String,
    /// Lane-instructions the trace's launch issues (at least; whole CTAs of 256 threads).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    lane_instructions: u64,
    /// The directory to write.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
}

#[derive(Args)]
struct DisasmArgs {
    /// The binary: a CUDA cubin (sm_50/52/53) or a DXBC container (.cso).
    file: PathBuf,
    /// The cubin kernel to print (default: every kernel).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
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
    if bytes.starts_with(b"\x7fELF") {
        return match warpjit::maxwell::disassemble_cubin(&bytes, &args.file, args.kernel.as_deref())
        {
            Ok((text, errors)) => {
                print!("{text}");
                for d in &errors {
                    eprintln!("{}", d.render(colour_stderr()));
                }
                if errors.is_empty() {
                    0
                } else {
                    2
                }
            }
            Err(d) => {
                eprintln!("{}", d.render(colour_stderr()));
                2
            }
        };
    }
    if !warpjit::dxbc::container::is_container(&bytes) {
        eprintln!(
            "warpjit: {}: neither a cubin nor a DXBC container (disasm reads an ELF cubin or a .cso)",
            args.file.display()
        );
        return 2;
    }
    if args.kernel.is_some() {
        eprintln!("warpjit: --kernel picks a cubin's kernel; a DXBC container is one shader");
        return 64;
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
struct RunArgs {
    /// Trace files (TOML, format "warpjit-trace/1"), or directories: every `*.toml` file in
    /// one, in name order.
    #[arg(required = true, value_name = "TRACE")]
    traces: Vec<PathBuf>,
    /// Execution engine; `both` runs each trace under the interpreter and the JIT and compares
    /// every statistic, fault, mismatch and byte of memory and resources (exit 4 if they differ).
    #[arg(long, value_enum, default_value_t = EngineKind::Jit)]
    engine: EngineKind,
    /// Host threads running CTAs (default: all cores; 0 also means all cores; at most 4 × the
    /// cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Run the sanitizer's tools and report what they find on stderr (docs/semantics.md §24):
    /// `--check` runs all of them, `--check=memcheck,racecheck,initcheck,synccheck,ub` the ones
    /// named (`ub`: the other undefined behaviour that got a defined result). Under the JIT
    /// engine the run is interpreted. Errors found make the exit status 5.
    #[arg(
        long,
        value_name = "TOOLS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all"
    )]
    check: Option<String>,
    /// When the JIT compiles: `ahead` compiles each kernel's loops and other blocks with its
    /// optimising tier before the kernel's first launch (up to a bound; the rest as `lazy`),
    /// outside the launch's time, as a graphics driver builds a pipeline before its dispatches;
    /// `lazy` compiles a block only once launches have run it, by tiers, while they run.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = CompileWhen::Ahead)]
    compile: CompileWhen,
    /// Print per-launch statistics.
    #[arg(long)]
    stats: bool,
    /// Print one JSON document on stdout instead of text: per trace its outcome, exit status,
    /// per-launch statistics, mismatches, fault, error and diagnostics.
    #[arg(long)]
    json: bool,
    /// Never show the progress bar (it shows on a terminal, on stderr, once a run has taken a
    /// second).
    #[arg(long)]
    quiet: bool,
    /// After the run, write every global segment (`global_0x<BASE>.bin`), buffer and texture
    /// (`t<SLOT>.bin`, `u<SLOT>.bin`) as raw files into DIR (with several traces, into
    /// DIR/<trace name>/). Each file is written anew and renamed into place: a file or symbolic
    /// link already there is replaced, never written through.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Let the traces read side files (`file`, `code_file`) under DIR too, not only inside each
    /// trace's own directory tree (repeatable; `--allow-path /` allows every file).
    #[arg(long, value_name = "DIR")]
    allow_path: Vec<PathBuf>,
}

/// The load options `--allow-path` gives, or a usage error naming a DIR that is not a directory.
fn load_options(allow: &[PathBuf]) -> Result<warpjit::tracefile::LoadOptions, String> {
    for dir in allow {
        if !dir.is_dir() {
            return Err(format!("--allow-path {}: not a directory", dir.display()));
        }
    }
    Ok(warpjit::tracefile::LoadOptions {
        allow_paths: allow.to_vec(),
    })
}

/// `warpjit run --compile`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CompileWhen {
    /// Before each kernel's first launch, outside its time (`Jit::compile_ahead`).
    Ahead,
    /// When blocks get hot, while launches run.
    Lazy,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineKind {
    /// The Cranelift JIT (the default).
    Jit,
    /// The reference interpreter.
    Interp,
    /// Both, compared.
    Both,
}

/// Exit status of a command-line usage error (sysexits' `EX_USAGE`), distinct from an invalid
/// trace (2).
const EXIT_USAGE: u8 = 64;
/// Exit status when `--engine both` finds the engines disagree (a warpjit bug).
const EXIT_DISAGREE: u8 = 4;
/// `--check` found errors.
const EXIT_CHECK: u8 = 5;

fn main() -> ExitCode {
    // Usage errors exit with EXIT_USAGE, --help and --version with 0.
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match cli.command {
        Command::Run(args) => ExitCode::from(run(&args)),
        Command::Bench(args) => ExitCode::from(cli::bench::run(&args)),
        Command::Disasm(args) => ExitCode::from(disasm(&args)),
        Command::Asm(args) => ExitCode::from(asm(&args)),
        Command::GenTrace(args) => ExitCode::from(gen_trace(&args)),
        Command::Cuda(args) => ExitCode::from(cli::cuda::run(&args)),
    }
}

/// `warpjit gen-trace`: returns the exit status.
fn gen_trace(args: &GenTraceArgs) -> u8 {
    if !cli::gentrace::kinds().contains(&args.kind.as_str()) {
        eprintln!(
            "warpjit: error: no kernel `{}`: gen-trace knows {}",
            args.kind,
            cli::gentrace::kinds().join(", ")
        );
        return EXIT_USAGE;
    }
    match cli::gentrace::generate(&args.kind, args.lane_instructions, &args.output) {
        Ok(g) => {
            println!(
                "{}: {} threads, {} lane-instructions",
                g.trace.display(),
                g.threads,
                g.lane_instructions
            );
            0
        }
        Err(m) => {
            eprintln!("warpjit: error: {m}");
            2
        }
    }
}

/// Whether diagnostics on standard error get colour: only on a terminal, and not when `NO_COLOR`
/// is set (<https://no-color.org>).
fn colour_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The progress bar of `warpjit run`: a thread that waits a second, then shows the CTAs
/// finished out of those to run (with `indicatif`, on stderr) until [`Ticker::finish`].
struct Ticker {
    progress: Arc<warpjit::exec::Progress>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    bar: Arc<std::sync::OnceLock<indicatif::ProgressBar>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start() -> Ticker {
        use std::sync::atomic::Ordering::Relaxed;
        use std::time::{Duration, Instant};
        let progress = Arc::new(warpjit::exec::Progress::default());
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let bar = Arc::new(std::sync::OnceLock::new());
        let (p, s, b) = (progress.clone(), stop.clone(), bar.clone());
        let thread = std::thread::spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(1) {
                if s.load(Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // The rate is the CTAs finished since the run started over the time since then
            // (indicatif's own estimate starts from the first drawn position, so the CTAs of
            // the first second would all count as done at once), as a whole number.
            let style = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} CTAs ({msg})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            let rate = |done: u64| {
                let r = done as f64 / t0.elapsed().as_secs_f64().max(1e-9);
                format!("{r:.0} CTAs/s")
            };
            let done = p.done.load(Relaxed);
            let pb = indicatif::ProgressBar::with_draw_target(
                Some(p.total.load(Relaxed)),
                indicatif::ProgressDrawTarget::stderr(),
            )
            .with_style(style)
            .with_position(done)
            .with_message(rate(done));
            let pb = b.get_or_init(|| pb).clone();
            while !s.load(Relaxed) {
                let done = p.done.load(Relaxed);
                pb.set_length(p.total.load(Relaxed));
                pb.set_position(done);
                pb.set_message(rate(done));
                std::thread::sleep(Duration::from_millis(100));
            }
            pb.finish_and_clear();
        });
        Ticker {
            progress,
            stop,
            bar,
            thread: Some(thread),
        }
    }

    /// Runs `f` (which prints) with the bar hidden.
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.bar.get() {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Clears the bar and ends its thread.
    fn finish(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
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

/// The trace files `paths` name: files as given, directories as the `*.toml` files in them (in
/// name order).
fn expand_traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "toml"))
            .collect();
        if found.is_empty() {
            return Err(format!(
                "{}: a directory with no *.toml trace in it",
                p.display()
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// What running one trace gave: its exit status, its text for stdout and stderr, and its JSON
/// record.
struct Outcome {
    exit: u8,
    out: String,
    err: String,
    json: serde_json::Value,
}

/// The JSON record of a report (`engine`, launches, totals, mismatches, fault).
fn report_json(r: &TraceReport) -> serde_json::Value {
    use serde_json::json;
    let launches: Vec<_> = r
        .launches
        .iter()
        .map(|l| {
            json!({
                "index": l.index,
                "ctas": l.ctas,
                "warps_per_cta": l.warps_per_cta,
                "warps": l.stats.warps,
                "warp_instructions": l.stats.warp_insts,
                "lane_instructions": l.stats.lane_insts,
                "misaligned": l.stats.misaligned,
                "yields": l.stats.yields,
                "seconds": l.seconds,
            })
        })
        .collect();
    let fault = r.fault.as_ref().map(|f| {
        json!({
            "kind": f.kind.to_string(),
            "launch": f.launch,
            "cta": f.cta,
            "warp": f.warp,
            "lane": f.lane,
            "pc": f.pc,
            "at": r.fault_at,
            "registers": f.reads.iter().map(|(reg, v)| json!({"reg": format!("R{reg}"), "value": v})).collect::<Vec<_>>(),
        })
    });
    json!({
        "engine": r.engine,
        "launches": launches,
        "lane_instructions": r.total.lane_insts,
        "misaligned": r.total.misaligned,
        "seconds": r.seconds,
        "lane_instructions_per_second": r.rate(),
        "mismatch_count": r.mismatch_count,
        "mismatches": r.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "fault": fault,
    })
}

/// Runs one trace as `args` say.
fn run_one(
    path: &std::path::Path,
    args: &RunArgs,
    jit: Option<&Jit>,
    opts: &RunOptions,
    check: Option<&Sanitizer>,
    load: &warpjit::tracefile::LoadOptions,
    dump_dir: Option<(&std::path::Path, Option<&std::ffi::OsStr>)>,
) -> Outcome {
    use serde_json::json;
    use std::fmt::Write as _;
    let (mut out, mut err) = (String::new(), String::new());
    let mut record = json!({ "trace": path.display().to_string() });
    let engine: &dyn Engine = match jit {
        Some(j) => j,
        None => &Interpreter,
    };
    let result = if args.engine == EngineKind::Both {
        runner::run_both_with(path, load, [&Interpreter, engine], opts)
            .map(|(a, b, d, t)| (b, Some((a, d)), t))
    } else {
        runner::load_trace_with(path, load).and_then(|mut t| {
            let r = runner::run_in(&mut t, engine, opts)?;
            Ok((r, None, t))
        })
    };
    let mut diagnostics = Vec::new();
    let mut check_errors = 0;
    if let Some(check) = check {
        let found = check.take();
        check_errors = found.errors();
        // Each finding with the instruction's source line, as a fault gives it.
        let trace = result.as_ref().ok().map(|r| &r.2);
        let source = |launch: u32, pc: u32| {
            trace
                .and_then(|t| t.launches.get(launch as usize))
                .and_then(|l| l.source.at(pc))
        };
        let kernel = |launch: u32| {
            trace
                .and_then(|t| t.launches.get(launch as usize))
                .and_then(|l| l.kernel.clone())
        };
        let mut reports = Vec::new();
        for r in &found.reports {
            let text = r.render(&source, &kernel);
            let _ = write!(err, "{text}");
            reports.push(json!({
                "tool": r.tool.name(),
                "severity": match r.severity {
                    warpjit::sanitizer::Severity::Error => "error",
                    warpjit::sanitizer::Severity::Warning => "warning",
                },
                "launch": r.launch,
                "pc": r.at.pc,
                "count": r.count,
                "text": text.trim_end(),
            }));
        }
        for d in &found.ub {
            let text = match source(d.launch, d.pc) {
                Some(at) => format!("{d}\n  at {at}"),
                None => d.to_string(),
            };
            let _ = writeln!(err, "{text}");
            diagnostics.push(text);
        }
        if found.ub_dropped > 0 {
            let _ = writeln!(
                err,
                "check: further diagnostics dropped (at most {MAX_REPORTS})"
            );
        }
        let summary = found.summary();
        if !summary.is_empty() {
            let _ = writeln!(err, "{summary}");
        }
        if found.approximate {
            let _ = writeln!(
                err,
                "check: some counts may include CTAs after the faulting one (too many reports to hold back)"
            );
        }
        record["check"] = json!({
            "errors": found.errors(),
            "warnings": found.warnings(),
            "dropped": found.dropped,
            "reports": reports,
        });
    }
    record["diagnostics"] = json!(diagnostics);
    let (report, both, trace) = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "{}", e.render(colour_stderr() && !args.json));
            record["exit"] = json!(2);
            record["outcome"] = json!("invalid");
            record["error"] = json!(e.render(false));
            return Outcome {
                exit: 2,
                out,
                err,
                json: record,
            };
        }
    };
    if args.stats {
        let mut buf = Vec::new();
        print_launches(&mut buf, &report);
        out += &String::from_utf8_lossy(&buf);
        if let Some(jit) = jit {
            let c = jit.compile_stats();
            let t = jit.take_counters();
            let ms = c.nanos as f64 / 1e6;
            let share = if report.seconds > 0.0 {
                100.0 * ms / 1e3 / report.seconds
            } else {
                0.0
            };
            let _ = writeln!(
                out,
                "jit: {} compiled in {:.3} ms before the launches (tier 2, not in their times); {} compiled in {ms:.3} ms during them ({share:.1}% of run time, longest {:.3} ms), {} recompiled by tier 2 in the background in {:.3} ms (longest {:.3} ms); {} interpreted; {} failed to compile ({} by tier 2); {} left uncompiled by the per-program limit; {} instruction executions delegated to the interpreter; {} memory slow paths; {} blocks run without returning to the dispatcher (compiled loops)",
                count(c.ahead_blocks, "block"),
                c.ahead_nanos as f64 / 1e6,
                count(c.blocks, "block"),
                c.longest_nanos as f64 / 1e6,
                count(c.tier2_blocks, "block"),
                c.tier2_nanos as f64 / 1e6,
                c.tier2_longest_nanos as f64 / 1e6,
                count(t.interp_blocks, "block"),
                count(c.failed + c.tier2_failed, "block"),
                c.tier2_failed,
                count(c.limited, "function"),
                t.delegated,
                t.slow_paths,
                t.looped
            );
            // Why a small trace shows little or nothing compiled (once per command).
            static EXPLAINED: std::sync::atomic::AtomicBool =
                std::sync::atomic::AtomicBool::new(false);
            if t.interp_blocks > 0 && !EXPLAINED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                let _ = writeln!(
                    out,
                    "jit: (a block runs in the interpreter the first time a warp reaches it and is \
                     compiled the second time, so blocks that ran once, as in small traces, stay \
                     interpreted: compiling them would cost more than it saves)"
                );
            }
            // A block Cranelift rejects is a warpjit bug: it runs interpreted (or stays at tier
            // 1), and says so here.
            for e in jit.errors() {
                let _ = writeln!(err, "jit: {e}");
            }
        }
    }
    let mut exit = report.exit_code() as u8;
    let mut outcome = match exit {
        0 => "passed",
        1 => "mismatch",
        _ => "fault",
    };
    if check_errors > 0 && exit != 3 {
        exit = EXIT_CHECK;
        outcome = "check errors";
    }
    match &both {
        Some((first, _)) => {
            if report.fault.is_none() {
                let _ = writeln!(out, "{}: {}", first.engine, summary(first));
                let _ = writeln!(out, "{}: {}", report.engine, summary(&report));
            }
            record["reports"] = json!([report_json(first), report_json(&report)]);
        }
        None => {
            if report.fault.is_none() {
                let _ = writeln!(out, "{}", summary(&report));
            }
            record["reports"] = json!([report_json(&report)]);
        }
    }
    err += &report.failure_text(SHOWN_MISMATCHES);
    if let Some((first, Some(diff))) = &both {
        let _ = writeln!(
            err,
            "warpjit: {} and {} disagree on {}: {diff}",
            first.engine,
            report.engine,
            path.display()
        );
        exit = EXIT_DISAGREE;
        outcome = "engines disagree";
        record["difference"] = json!(diff);
    }
    if let (Some((dir, sub)), Some(_)) = (dump_dir, &report.fault) {
        // Memory after a fault is not defined (docs/semantics.md §10): with several host
        // threads, CTAs after the faulting one may have run.
        let dir = sub.map_or(dir.to_path_buf(), |s| dir.join(s));
        let _ = writeln!(
            err,
            "warpjit: --dump {}: nothing written: a launch faulted, and what memory holds after \
             a fault is not defined (docs/semantics.md §10)",
            dir.display()
        );
        record["dumped"] = json!([]);
    } else if let Some((dir, sub)) = dump_dir {
        match runner::dump_into(&trace, dir, sub) {
            Ok(files) => {
                record["dumped"] = json!(files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>())
            }
            Err(e) => {
                let dir = sub.map_or(dir.to_path_buf(), |s| dir.join(s));
                let _ = writeln!(err, "warpjit: error: --dump {}: {e}", dir.display());
                exit = exit.max(2);
            }
        }
    }
    record["exit"] = json!(exit);
    record["outcome"] = json!(outcome);
    Outcome {
        exit,
        out,
        err,
        json: record,
    }
}

/// `warpjit run`: returns the exit status.
fn run(args: &RunArgs) -> u8 {
    let mut out = std::io::stdout().lock();
    // Not locked: the progress bar draws on stderr from its own thread.
    let mut err = std::io::stderr();
    if !check_threads(args.threads, &mut err) {
        return EXIT_USAGE;
    }
    let traces = match expand_traces(&args.traces) {
        Ok(t) => t,
        Err(m) => {
            let _ = writeln!(err, "warpjit: error: {m}");
            return EXIT_USAGE;
        }
    };
    let load = match load_options(&args.allow_path) {
        Ok(l) => l,
        Err(m) => {
            let _ = writeln!(err, "warpjit: error: {m}");
            return EXIT_USAGE;
        }
    };
    let jit = match args.engine {
        EngineKind::Interp => None,
        EngineKind::Jit | EngineKind::Both => match Jit::new() {
            Ok(mut j) => {
                j.ahead = args.compile == CompileWhen::Ahead;
                Some(j)
            }
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {e} (use --engine interp)");
                return 2;
            }
        },
    };
    let tools = match args.check.as_deref().map(Tools::parse).transpose() {
        Ok(t) => t,
        Err(m) => {
            let _ = writeln!(err, "warpjit: error: --check: {m}");
            return EXIT_USAGE;
        }
    };
    let ticker = {
        use std::io::IsTerminal;
        (!args.quiet && std::io::stderr().is_terminal()).then(Ticker::start)
    };
    let opts = RunOptions {
        threads: args.threads.unwrap_or(0),
        observer: None,
        progress: ticker.as_ref().map(|t| t.progress.clone()),
    };
    let several = traces.len() > 1;
    let mut records = Vec::new();
    let mut exits = Vec::new();
    let mut ticker = ticker;
    for (i, path) in traces.iter().enumerate() {
        let dump = args.dump.as_deref().map(|d| {
            let sub = several.then(|| path.file_stem().unwrap_or_default());
            (d, sub)
        });
        // A sanitizer per trace: it follows that trace's allocations.
        let check = tools.map(|t| Arc::new(Sanitizer::new(t)));
        let opts = RunOptions {
            observer: check.clone().map(|c| c as Arc<dyn Observer>),
            ..opts.clone()
        };
        let o = run_one(
            path,
            args,
            jit.as_ref(),
            &opts,
            check.as_deref(),
            &load,
            dump,
        );
        if !args.json {
            // With several traces, each line says which trace it is about.
            let prefix = |text: &str| -> String {
                if several {
                    text.lines()
                        .map(|l| format!("{}: {l}\n", path.display()))
                        .collect()
                } else {
                    text.to_string()
                }
            };
            let mut print = || {
                let _ = write!(err, "{}", prefix(&o.err));
                let _ = write!(out, "{}", prefix(&o.out));
            };
            // After the last trace, the bar goes before the output, never to be drawn below
            // the summary line again.
            if i + 1 == traces.len() {
                if let Some(t) = ticker.take() {
                    t.finish();
                }
            }
            match &ticker {
                Some(t) => t.suspend(print),
                None => print(),
            }
        }
        exits.push(o.exit);
        records.push(o.json);
    }
    if let Some(t) = ticker {
        t.finish();
    }
    // The worst outcome decides: engines disagreeing, an invalid trace, a fault, a mismatch.
    let exit = [EXIT_DISAGREE, 2, 3, EXIT_CHECK, 1]
        .into_iter()
        .find(|c| exits.contains(c))
        .unwrap_or(0);
    let tally = |c: u8| exits.iter().filter(|&&e| e == c).count();
    if args.json {
        let doc = serde_json::json!({
            "traces": records,
            "exit": exit,
            "passed": tally(0),
            "mismatched": tally(1),
            "invalid": tally(2),
            "faulted": tally(3),
            "disagreed": tally(EXIT_DISAGREE),
            "check_errors": tally(EXIT_CHECK),
        });
        let _ = writeln!(out, "{doc:#}");
    } else if several {
        let _ = writeln!(
            out,
            "{} traces: {} passed, {} with mismatches, {} invalid, {} faulted{}",
            traces.len(),
            tally(0),
            tally(1),
            tally(2),
            tally(3),
            match tally(EXIT_CHECK) {
                0 => String::new(),
                n => format!(", {n} with --check errors"),
            } + &match tally(EXIT_DISAGREE) {
                0 => String::new(),
                n => format!(", {n} where the engines disagree"),
            }
        );
    }
    exit
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
    let mut s = format!(
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
    );
    // Legal (docs/semantics.md §16) but usually a bug, so never silent.
    if r.total.misaligned > 0 {
        let n = r.total.misaligned;
        let what = if n == 1 { "access" } else { "accesses" };
        s += &format!("; {n} misaligned lane {what} aligned down (--check=memcheck reports them)");
    }
    s
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
        if l.stats.yields > 0 {
            let _ = writeln!(
                out,
                "launch {}: {} ended at the quantum (docs/semantics.md §9)",
                l.index,
                count(l.stats.yields, "warp turn")
            );
        }
    }
}
