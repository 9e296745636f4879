//! `warpjit bench`: engine throughput on the built-in kernels ([`super::kernels`]), the built-in
//! trace-level workloads and trace files, measured in interleaved rounds ([`super::measure`]),
//! printed as a table (or one JSON document) and optionally drawn ([`super::plot`]).
//!
//! [`run`] sets the measurement up ([`Setup`]), measures each kernel ([`Bench::kernel`]) and each
//! trace ([`Bench::trace`]) into a [`Bench`], then writes the summary (geometric means, the
//! scaling section), the chart and the table or document.

use super::kernels::{kernels, prepare, Kernel, TraceSource, BLOCK, TRACE_WORKLOADS};
use super::measure::{
    compile_latency, compile_sample, geometric_mean, on_core, rounds, timed, Runs, Scaling, Side,
    SECONDS_PER_CONTESTANT,
};
use super::plot::Bars;
use crate::{check_threads, load_options, EXIT_USAGE};
use clap::Args;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;

#[derive(Args)]
pub struct BenchArgs {
    /// Trace files to measure (each under both engines) instead of the built-in workloads; with
    /// `--kernel`, after that workload.
    #[arg(value_name = "TRACE")]
    traces: Vec<PathBuf>,
    /// Only the built-in workload with this name (stream, gather, const_table, addr128, loop,
    /// dxbc_gather, dxbc_msaa_resolve, dxbc_texture_filter).
    #[arg(long)]
    kernel: Option<String>,
    /// Host threads (default: all cores; at most 4 × the cores). With more than one, every
    /// engine also runs on one host thread in each round, and a scaling section reports the
    /// throughput on both and the speedup.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Measuring rounds, at least: each round runs every engine of a workload once (and, with
    /// several host threads, once more on one thread), and the rounds go on for at least a
    /// second per engine as well. A kernel's best run is reported, a trace's median; the
    /// scaling compares the best runs on one thread and on N.
    #[arg(long, default_value_t = 5)]
    iters: u32,
    /// Threads per launch (rounded up to a multiple of 256).
    #[arg(long, default_value_t = 1 << 20)]
    size: u32,
    /// Print one JSON document instead of the table: per workload and engine the
    /// lane-instructions, run and compile seconds, throughput and scaling (seconds on one
    /// host thread and on N, and the speedup), and the ratios.
    #[arg(long)]
    json: bool,
    /// Also draw the throughput per workload and engine (log scale) as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Let the traces read side files (`file`, `code_file`) under DIR too, not only inside each
    /// trace's own directory tree (repeatable; `--allow-path /` allows every file).
    #[arg(long, value_name = "DIR")]
    allow_path: Vec<PathBuf>,
}

/// What a bench measures and how: the options of both sides of the scaling, the engines, and
/// the workloads chosen.
struct Setup {
    /// Runs on `threads` host threads.
    opts: RunOptions,
    /// Runs on one host thread.
    one: RunOptions,
    /// The host threads of the scaling's parallel side.
    threads: usize,
    /// Whether each round also runs every engine on one host thread.
    scale: bool,
    /// Other work on the host when the bench started (the scaling figures need idle cores).
    load: Option<f64>,
    /// Threads per launch of a built-in kernel.
    n: u32,
    jit: Jit,
    /// Native Rust runs on pools of its own: `threads` host threads, and one.
    native_pools: (
        Result<rayon::ThreadPool, rayon::ThreadPoolBuildError>,
        Result<rayon::ThreadPool, rayon::ThreadPoolBuildError>,
    ),
    /// The built-in trace-level workloads chosen, then the trace files.
    sources: Vec<TraceSource>,
    /// The width of the name column (the longest name; a trace's path can be long).
    w: usize,
}

/// A workload's figures for the scaling section: its name, lane-instructions, and the
/// interpreter's, the JIT's and (a built-in kernel) native Rust's scaling.
type WorkloadScaling = (String, f64, Scaling, Scaling, Option<Scaling>);

/// What the measurements gathered, workload by workload.
#[derive(Default)]
struct Bench {
    /// The table, printed at the end unless `--json` asks for the document instead.
    out: Vec<u8>,
    /// The document's workloads.
    rows: Vec<Value>,
    /// Per workload, the JIT's throughput over the interpreter's.
    ratios: Vec<f64>,
    /// The chart's bars.
    bars: Vec<Bars>,
    scalings: Vec<WorkloadScaling>,
    /// The exit status so far.
    status: u8,
}

/// `warpjit bench`: returns the exit status (1 if an engine's output differs from the Rust version).
pub fn run(args: &BenchArgs) -> u8 {
    let mut stdout = std::io::stdout();
    // Not held locked: the runs' host threads must stay free to write to it.
    let mut err = std::io::stderr();
    let all_kernels = kernels();
    let (setup, chosen) = match Setup::new(args, &all_kernels, &mut err) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let mut b = Bench::default();
    b.header(args, &setup, !chosen.is_empty());
    for &k in &chosen {
        if let Err(status) = b.kernel(args, &setup, k, &mut err) {
            return status;
        }
    }
    for src in &setup.sources {
        b.trace(args, &setup, src, &mut err);
    }
    let geo = geometric_mean(&b.ratios);
    if let (Some(geo), true) = (geo, b.ratios.len() > 1) {
        let _ = writeln!(b.out, "geometric mean jit/interp: {geo:.2}x");
    }
    b.scaling_section(&setup);
    if let Some(path) = &args.plot {
        let title = if chosen.is_empty() {
            "warpjit bench: lane-instructions per second (traces as written)".to_string()
        } else {
            format!(
                "warpjit bench: lane-instructions per second (built-in kernels: {} threads a launch)",
                setup.n
            )
        };
        if let Err(m) = super::plot::throughput_svg(path, &title, &b.bars) {
            let _ = writeln!(err, "warpjit: error: --plot: {m}");
            b.status = b.status.max(2);
        }
    }
    if args.json {
        let doc = b.document(args, &setup, geo);
        let _ = writeln!(stdout, "{doc:#}");
    } else {
        let _ = stdout.write_all(&b.out);
    }
    b.status
}

impl Setup {
    /// Checks the options and chooses the workloads (built-in kernels unless trace files are
    /// given without `--kernel`, the built-in trace-level workloads likewise, then the files);
    /// `Err` is the exit status of a usage error or an engine that cannot start.
    fn new<'k>(
        args: &BenchArgs,
        all_kernels: &'k [Kernel],
        err: &mut impl Write,
    ) -> Result<(Setup, Vec<&'k Kernel>), u8> {
        if !check_threads(args.threads, err) {
            return Err(EXIT_USAGE);
        }
        let trace_load = load_options(&args.allow_path).map_err(|m| {
            let _ = writeln!(err, "warpjit: error: {m}");
            EXIT_USAGE
        })?;
        let opts = RunOptions {
            threads: args.threads.unwrap_or(0),
            ..RunOptions::default()
        };
        // Scaling: every engine's runs on `threads` host threads alternate with runs on one.
        let threads = match opts.threads {
            0 => rayon::current_num_threads(),
            t => t,
        }
        .min(warpjit::exec::max_threads());
        let one = RunOptions {
            threads: 1,
            ..opts.clone()
        };
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
        let native_pools = (
            rayon::ThreadPoolBuilder::new().num_threads(threads).build(),
            rayon::ThreadPoolBuilder::new().num_threads(1).build(),
        );
        if let Some(k) = &args.kernel {
            let mut names: Vec<&str> = all_kernels.iter().map(|k| k.name).collect();
            names.extend(TRACE_WORKLOADS.iter().map(|(n, _)| *n));
            if !names.contains(&k.as_str()) {
                let _ = writeln!(
                    err,
                    "warpjit: error: no workload `{k}`: bench knows {}",
                    names.join(", ")
                );
                return Err(EXIT_USAGE);
            }
        }
        let n = args.size.max(1).div_ceil(BLOCK) * BLOCK;
        let jit = Jit::new().map_err(|e| {
            let _ = writeln!(err, "warpjit: error: {e}");
            2
        })?;
        let wanted = |name: &str| {
            args.kernel.as_deref().is_none_or(|k| k == name)
                && (args.traces.is_empty() || args.kernel.is_some())
        };
        let chosen: Vec<&Kernel> = all_kernels.iter().filter(|k| wanted(k.name)).collect();
        let mut sources: Vec<TraceSource> = TRACE_WORKLOADS
            .iter()
            .filter(|(name, _)| wanted(name))
            .map(|&(name, t)| TraceSource::BuiltIn(name, t))
            .collect();
        sources.extend(
            args.traces
                .iter()
                .map(|p| TraceSource::File(p.clone(), trace_load.clone())),
        );
        let w = chosen
            .iter()
            .map(|k| k.name.chars().count())
            .chain(sources.iter().map(|s| s.name().chars().count()))
            .max()
            .unwrap_or(0)
            .max(18);
        let setup = Setup {
            opts,
            one,
            threads,
            scale: threads > 1,
            load,
            n,
            jit,
            native_pools,
            sources,
            w,
        };
        Ok((setup, chosen))
    }
}

/// A scaling as the document shows it.
fn scaling_json(s: Option<&Scaling>) -> Option<Value> {
    s.map(|s| {
        json!({
            "threads": s.threads,
            "one_thread_seconds": s.one_thread_seconds,
            "n_threads_seconds": s.n_threads_seconds,
            "speedup": s.speedup(),
            "one_thread_seconds_per_core": s.one_thread_seconds_per_core
                .iter()
                .map(|t| t.is_finite().then_some(*t))
                .collect::<Vec<_>>(),
            "ideal_speedup": s.ideal_speedup(),
        })
    })
}

/// A bar group of the chart.
fn bar(name: &str, engines: &[(&str, f64)]) -> Bars {
    Bars {
        name: name.to_string(),
        engines: engines.iter().map(|(e, v)| (e.to_string(), *v)).collect(),
    }
}

impl Bench {
    /// The table's first lines: what was measured, and the column heads.
    fn header(&mut self, args: &BenchArgs, s: &Setup, kernels: bool) {
        let mut what = Vec::new();
        if kernels {
            what.push(format!(
                "built-in kernels: {} threads a launch, the best run of {}+ interleaved rounds",
                s.n, args.iters
            ));
        }
        if !s.sources.is_empty() {
            what.push(format!(
                "traces: as written, the median run of {}+ interleaved rounds",
                args.iters
            ));
        }
        let w = s.w;
        let _ = writeln!(
            self.out,
            "{}; lane-instructions per second (G = 1e9)\n{:<w$} {:>9} {:>9} {:>9} {:>10} {:>10} {:>13}",
            what.join("; "),
            "workload",
            "interp",
            "jit",
            "rust",
            "jit/interp",
            "jit/rust",
            "compile/inst"
        );
    }

    /// Measures a built-in kernel: the interpreter, the JIT and native Rust in interleaved
    /// rounds, the best run of each, the JIT's output checked against native, and the JIT's
    /// tier-1 compile latency. `Err` is the exit status of a kernel that cannot run (it ends
    /// the bench).
    fn kernel(
        &mut self,
        args: &BenchArgs,
        s: &Setup,
        k: &Kernel,
        err: &mut impl Write,
    ) -> Result<(), u8> {
        let (n, threads, jit) = (s.n, s.threads, &s.jit);
        let p = prepare(k, n).map_err(|e| {
            let _ = writeln!(err, "warpjit: error: {}: {e}", k.name);
            2
        })?;
        let lanes = match p.run(&Interpreter, &s.opts) {
            Ok(st) => st.lane_insts as f64,
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {}: {e}", k.name);
                return Err(3);
            }
        };
        // The three engines in interleaved rounds (`measure::rounds`), each run on `threads`
        // host threads and, when scaling, on one; a compile-latency sample after each round.
        let engine_run = |e: &dyn Engine, side: Side| match side {
            // Held to the core first: moving the thread there is not part of the run.
            Side::One(c) => on_core(c, || timed(|| drop(p.run(e, &s.one)))),
            Side::Many => timed(|| drop(p.run(e, &s.opts))),
        };
        let mut interp = |side| Ok(engine_run(&Interpreter, side));
        let mut jit_c = |side| Ok(engine_run(jit, side));
        // Native Rust over pools of its own (rayon over CTAs, as the engines).
        let mut buf = vec![0u32; (n as usize) * (k.out_bytes as usize / 4)];
        let mut native = |side| {
            Ok(match (&s.native_pools, side) {
                ((_, Ok(one)), Side::One(c)) => {
                    one.install(|| on_core(c, || timed(|| p.run_native(k, &mut buf))))
                }
                ((Ok(many), _), Side::Many) => timed(|| many.install(|| p.run_native(k, &mut buf))),
                _ => timed(|| p.run_native(k, &mut buf)),
            })
        };
        let mut samples = Vec::new();
        let before = jit.compile_stats();
        let measured = rounds(
            args.iters,
            3.0 * SECONDS_PER_CONTESTANT,
            s.scale,
            &mut [&mut interp, &mut jit_c, &mut native],
            // The second of two compiles in a row: the compiler's latency, not how cold the
            // runs left the caches (a compile right after a run takes about 1.5x as long).
            |_| {
                let _ = compile_sample(&p.launch.program);
                samples.extend(compile_sample(&p.launch.program));
            },
        );
        let after = jit.compile_stats();
        let runs = measured.map_err(|e| {
            let _ = writeln!(err, "warpjit: error: {}: {e}", k.name);
            3
        })?;
        let [ri, rj, rn]: [Runs; 3] = runs.try_into().unwrap_or_default();
        // The check runs the JIT last: every engine writes the same output array.
        let _ = p.run(jit, &s.opts);
        if let Err(e) = p.check(k) {
            let _ = writeln!(
                err,
                "warpjit: error: jit output differs from the Rust version: {e}"
            );
            self.status = 1;
        }
        let (si, sj, sn) = (
            ri.scaling(threads),
            rj.scaling(threads),
            rn.scaling(threads),
        );
        if let (Some(si), Some(sj)) = (&si, &sj) {
            self.scalings.push((
                k.name.to_string(),
                lanes,
                si.clone(),
                sj.clone(),
                sn.clone(),
            ));
        }
        let per_inst_us = compile_latency(&p.launch.program, samples).unwrap_or(f64::NAN);
        let secs = Duration::from_secs_f64;
        let (ti, tj, tn) = (secs(ri.best()), secs(rj.best()), secs(rn.best()));
        let g = |t: Duration| lanes / t.as_secs_f64() / 1e9;
        let (gi, gj, gn) = (g(ti), g(tj), g(tn));
        self.ratios.push(gj / gi);
        self.bars.push(bar(
            k.name,
            &[("interp", gi * 1e9), ("jit", gj * 1e9), ("rust", gn * 1e9)],
        ));
        let compile = (after.nanos - before.nanos) as f64 / 1e9;
        let engine = |name: &str, t: Duration, compile: f64, s: Option<&Scaling>| {
            json!({
                "engine": name,
                "run_seconds": t.as_secs_f64(),
                "compile_seconds": compile,
                "lane_instructions_per_second": lanes / t.as_secs_f64(),
                "scaling": scaling_json(s),
            })
        };
        self.rows.push(json!({
            "trace": k.name,
            "lane_instructions": lanes as u64,
            "engines": [
                engine("interp", ti, 0.0, si.as_ref()),
                engine("jit", tj, compile, sj.as_ref()),
                engine("rust", tn, 0.0, sn.as_ref()),
            ],
            "jit_over_interp": gj / gi,
            "jit_over_rust": gj / gn,
            "tier1_compile_us_per_instruction": per_inst_us,
        }));
        let w = s.w;
        let _ = writeln!(
            self.out,
            "{:<w$} {:>8.3}G {:>8.3}G {:>8.3}G {:>9.2}x {:>9.2}x {:>10.1} us",
            k.name,
            gi,
            gj,
            gn,
            gj / gi,
            gj / gn,
            per_inst_us
        );
        Ok(())
    }

    /// Measures a trace-level workload: both engines in interleaved rounds, each run on a fresh
    /// load (loading not timed); the median of the runs on `threads` host threads is reported.
    /// A trace that fails is reported and makes the status at least 1.
    fn trace(&mut self, args: &BenchArgs, s: &Setup, src: &TraceSource, err: &mut impl Write) {
        let jit = &s.jit;
        let lanes = std::cell::Cell::new(0);
        let trace_run = |e: &dyn Engine, side: Side| {
            let (l, t) = match side {
                Side::One(c) => on_core(c, || src.run(e, &s.one))?,
                Side::Many => src.run(e, &s.opts)?,
            };
            lanes.set(l);
            Ok(t)
        };
        let before = jit.compile_stats();
        let measured = rounds(
            args.iters,
            2.0 * SECONDS_PER_CONTESTANT,
            s.scale,
            &mut [&mut |side| trace_run(&Interpreter, side), &mut |side| {
                trace_run(jit, side)
            }],
            |_| {},
        );
        let compile = (jit.compile_stats().nanos - before.nanos) as f64 / 1e9;
        let [ri, rj]: [Runs; 2] = match measured {
            Ok(r) => r.try_into().unwrap_or_default(),
            Err(e) => {
                let _ = writeln!(err, "warpjit: error: {}: {e}", src.name());
                self.status = self.status.max(1);
                return;
            }
        };
        let lanes = lanes.get();
        let scaling = |r: &Runs| r.scaling(s.threads);
        let (ti, si, sci) = (ri.median(), ri.spread(), scaling(&ri));
        let (tj, sj, scj) = (rj.median(), rj.spread(), scaling(&rj));
        let g = |t: f64| lanes as f64 / t.max(1e-12) / 1e9;
        self.ratios.push(ti / tj.max(1e-12));
        self.bars.push(bar(
            &src.name(),
            &[("interp", g(ti) * 1e9), ("jit", g(tj) * 1e9)],
        ));
        if let (Some(a), Some(b)) = (&sci, &scj) {
            self.scalings
                .push((src.name(), lanes as f64, a.clone(), b.clone(), None));
        }
        let engine = |name: &str, t: f64, compile: f64, spread: f64, s: Option<&Scaling>| {
            json!({
                "engine": name,
                "run_seconds": t,
                "compile_seconds": compile,
                "lane_instructions_per_second": lanes as f64 / t.max(1e-12),
                "spread": spread,
                "scaling": scaling_json(s),
            })
        };
        self.rows.push(json!({
            "trace": src.name(),
            "lane_instructions": lanes,
            "engines": [
                engine("interp", ti, 0.0, si, sci.as_ref()),
                engine("jit", tj, compile, sj, scj.as_ref()),
            ],
            "jit_over_interp": ti / tj.max(1e-12),
        }));
        let w = s.w;
        let _ = writeln!(
            self.out,
            "{:<w$} {:>8.3}G {:>8.3}G {:>9} {:>9.2}x {:>10} {:>13}",
            src.name(),
            g(ti),
            g(tj),
            "-",
            ti / tj.max(1e-12),
            "-",
            "-"
        );
        if si.max(sj) > 1.5 {
            let _ = writeln!(
                self.out,
                "  (noisy: an engine's slowest run took {:.1}x its fastest; the ratio is rough)",
                si.max(sj)
            );
        }
    }

    /// The geometric mean over the workloads of one engine's (0: interp, 1: jit, 2: native)
    /// figure, over every workload or only those with a native run.
    fn per_engine(
        &self,
        engine: usize,
        native_only: bool,
        f: &dyn Fn(&Scaling) -> Option<f64>,
    ) -> Option<f64> {
        let v: Vec<f64> = self
            .scalings
            .iter()
            .filter(|w| !native_only || w.4.is_some())
            .filter_map(|(_, _, i, j, n)| [Some(i), Some(j), n.as_ref()][engine].and_then(f))
            .collect();
        geometric_mean(&v)
    }

    /// The scaling section: throughput on one host thread and on `threads`, and the speedup,
    /// per engine and workload, and their geometric means (nothing without a scaling).
    fn scaling_section(&mut self, s: &Setup) {
        if self.scalings.is_empty() {
            return;
        }
        let (threads, w) = (s.threads, s.w);
        let speedup = |s: &Scaling| Some(s.speedup());
        let (geo_i, geo_j) = (
            self.per_engine(0, false, &speedup),
            self.per_engine(1, false, &speedup),
        );
        let (geo_n, geo_jn) = (
            self.per_engine(2, true, &speedup),
            self.per_engine(1, true, &speedup),
        );
        let ideal = |s: &Scaling| s.ideal_speedup();
        let (ideal_i, ideal_j) = (
            self.per_engine(0, false, &ideal),
            self.per_engine(1, false, &ideal),
        );
        let out = &mut self.out;
        let _ = writeln!(
            out,
            "\nscaling: lane-instructions per second on 1 and on {threads} host threads (in the same rounds; the best of each)\n{:<w$} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8} {:>8} {:>8}",
            "workload",
            "interp 1",
            format!("interp {threads}"),
            "speedup",
            "jit 1",
            format!("jit {threads}"),
            "speedup",
            "(ideal)",
            "rust"
        );
        for (name, lanes, i, j, nat) in &self.scalings {
            let g = |t: f64| format!("{:.3}G", lanes / t.max(1e-12) / 1e9);
            let nat = nat
                .as_ref()
                .map_or("-".to_string(), |n| format!("{:.2}x", n.speedup()));
            let ideal = j
                .ideal_speedup()
                .map_or("-".to_string(), |x| format!("({x:.2}x)"));
            let _ = writeln!(
                out,
                "{:<w$} {:>9} {:>9} {:>7.2}x {:>9} {:>9} {:>7.2}x {:>8} {:>8}",
                name,
                g(i.one_thread_seconds),
                g(i.n_threads_seconds),
                i.speedup(),
                g(j.one_thread_seconds),
                g(j.n_threads_seconds),
                j.speedup(),
                ideal,
                nat
            );
        }
        if let (Some(gi), Some(gj)) = (geo_i, geo_j) {
            let _ = writeln!(
                out,
                "geometric mean speedup on {threads} host threads: interp {gi:.2}x, jit {gj:.2}x"
            );
        }
        // What the host's cores allow: each at the speed one thread had on it.
        if let (Some(ii), Some(ij), Some(gj)) = (ideal_i, ideal_j, geo_j) {
            let _ = writeln!(
                out,
                "  ideal, each core at its own one-thread speed: interp {ii:.2}x, jit {ij:.2}x (the jit reached {:.0}% of it)",
                100.0 * gj / ij
            );
        }
        // What the host gives parallel code: plain Rust's speedup on the same kernels.
        if let (Some(gn), Some(gjn)) = (geo_n, geo_jn) {
            let _ = writeln!(
                out,
                "  on the kernels with a Rust version: jit {gjn:.2}x, plain Rust {gn:.2}x"
            );
        }
        if let Some(l) = s.load.filter(|&l| l >= 0.5) {
            let _ = writeln!(
                out,
                "  (the host was busy: load average {l:.2} when the bench started, on {} cores; \
                 the speedups understate the scaling)",
                warpjit::exec::max_threads() / 4
            );
        }
    }

    /// The `--json` document; `geo` is the geometric mean of the JIT over the interpreter.
    fn document(&self, args: &BenchArgs, s: &Setup, geo: Option<f64>) -> Value {
        let speedup = |s: &Scaling| Some(s.speedup());
        let ideal = |s: &Scaling| s.ideal_speedup();
        json!({
            "threads_per_kernel_launch": s.n,
            "iters": args.iters,
            "workloads": self.rows,
            "geometric_mean_jit_over_interp": geo,
            "scaling_threads": s.threads,
            "load_average_at_start": s.load,
            "geometric_mean_speedup": s.scale.then(|| json!({
                "interp": self.per_engine(0, false, &speedup),
                "jit": self.per_engine(1, false, &speedup),
            })),
            "geometric_mean_ideal_speedup": s.scale.then(|| json!({
                "interp": self.per_engine(0, false, &ideal),
                "jit": self.per_engine(1, false, &ideal),
            })),
            "geometric_mean_speedup_rust_kernels": s.scale.then(|| json!({
                "jit": self.per_engine(1, true, &speedup),
                "rust": self.per_engine(2, true, &speedup),
            })),
        })
    }
}
