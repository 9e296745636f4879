//! `warpjit`: run kernel traces (trace-format.md) on the CPU.
//!
//! ```text
//! warpjit run TRACE [--engine jit|interp] [--threads N] [--check] [--stats]
//! ```
//!
//! Exit status: 0 every launch ran and every expectation held; 1 an expectation did not hold;
//! 2 the trace or a program in it is invalid (or the command line is); 3 a guest fault stopped a
//! launch.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::runner::{self, TraceReport};

/// Mismatches printed before "... and N more".
const SHOWN_MISMATCHES: usize = 20;

#[derive(Parser)]
#[command(
    name = "warpjit",
    version,
    about = "Run GPU shader programs (Maxwell SASS, DXBC) on the CPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a kernel trace: its launches in order, then its expectations.
    Run(RunArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The trace file (TOML, format "warpjit-trace/1").
    trace: PathBuf,
    /// Execution engine.
    #[arg(long, value_enum, default_value_t = EngineKind::Interp)]
    engine: EngineKind,
    /// Host threads running CTAs (default: all cores; 0 also means all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Report undefined behaviour (semantics.md) as diagnostics on stderr.
    #[arg(long)]
    check: bool,
    /// Print per-launch statistics.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineKind {
    /// The Cranelift JIT (not implemented yet).
    Jit,
    /// The reference interpreter.
    Interp,
}

fn main() -> ExitCode {
    // Usage errors exit with status 2 (clap's own convention), --help and --version with 0.
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => ExitCode::from(run(&args)),
    }
}

/// `warpjit run`: returns the exit status.
fn run(args: &RunArgs) -> u8 {
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    // TODO(jit issue): `jit` is the spec's default engine; switch the default once the JIT exists.
    let engine: &dyn Engine = match args.engine {
        EngineKind::Interp => &Interpreter,
        EngineKind::Jit => {
            let _ = writeln!(
                err,
                "warpjit: error: the JIT engine (--engine jit) is not implemented yet; use --engine interp"
            );
            return 2;
        }
    };
    let opts = RunOptions {
        threads: args.threads.unwrap_or(0),
        check: args.check,
        ..RunOptions::default()
    };
    let result = runner::run_trace(&args.trace, engine, &opts);
    if args.check {
        let diags = opts.diagnostics.take();
        for d in &diags {
            let _ = writeln!(err, "{d}");
        }
        if diags.len() >= warpjit::exec::MAX_DIAGNOSTICS {
            let _ = writeln!(
                err,
                "check: further diagnostics dropped (at most {})",
                warpjit::exec::MAX_DIAGNOSTICS
            );
        }
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 2;
        }
    };
    if args.stats {
        print_launches(&mut out, &report);
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
