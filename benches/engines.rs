//! Engine throughput on the benchmark kernels (src/cli/kernels.rs): interpreter, JIT and plain
//! Rust, in lane-instructions per second; and JIT compile latency per guest instruction.
//!
//! Run: `cargo bench --bench engines` (add `-- gather` to pick a kernel). `warpjit bench` prints
//! the same comparison as a table of ratios measured in one run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::sync::Arc;
use std::time::Duration;
// The kernels are the command line's, no part of the library.
#[allow(dead_code)]
#[path = "../src/cli/kernels.rs"]
mod bench;

use bench::{kernels, prepare};
use warpjit::exec::RunOptions;
use warpjit::interp::Interpreter;
use warpjit::jit::{Jit, Tier};

const THREADS: u32 = 1 << 20;

fn engines(c: &mut Criterion) {
    let opts = RunOptions::default();
    for k in kernels() {
        let p = prepare(&k, THREADS).expect("kernel sets up");
        let lane_insts = p
            .run(&Interpreter, &opts)
            .expect("interpreter runs")
            .lane_insts;
        let jit = Jit::new().expect("host supported");
        p.run(&jit, &opts).expect("jit runs");
        p.check(&k).expect("jit output matches native");
        let mut g = c.benchmark_group(k.name);
        g.throughput(Throughput::Elements(lane_insts));
        g.sample_size(10).measurement_time(Duration::from_secs(3));
        g.bench_function(BenchmarkId::new("engine", "interp"), |b| {
            b.iter(|| p.run(&Interpreter, &opts))
        });
        g.bench_function(BenchmarkId::new("engine", "jit"), |b| {
            b.iter(|| p.run(&jit, &opts))
        });
        let mut out = vec![0u32; (THREADS * k.out_bytes / 4) as usize];
        g.bench_function(BenchmarkId::new("engine", "rust"), |b| {
            b.iter(|| p.run_native(&k, &mut out))
        });
        g.finish();
    }
}

fn compile_latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    for k in kernels() {
        let p = prepare(&k, 256).expect("kernel sets up");
        let insts = p.launch.program.inst_count() as u64;
        g.throughput(Throughput::Elements(insts));
        for (tier, name) in [(Tier::One, "tier1"), (Tier::Two, "tier2")] {
            g.bench_function(
                BenchmarkId::new(format!("per_guest_inst_{name}"), k.name),
                |b| {
                    b.iter_batched(
                        || {
                            (
                                Jit::new().expect("host supported"),
                                Arc::new((*p.launch.program).clone()),
                            )
                        },
                        |(jit, prog)| jit.compile_all_tier(&prog, tier).expect("compiles"),
                        criterion::BatchSize::PerIteration,
                    )
                },
            );
        }
    }
    g.finish();
}

criterion_group!(benches, engines, compile_latency);
criterion_main!(benches);
