//! The benchmark kernels: the workloads behind `warpjit bench` and `warpjit gen-trace`, also
//! compiled into tests/bench_kernels.rs and benches/engines.rs (through `#[path]`: they are no
//! part of the library).
//!
//! Each kernel is a SASS program over 1M threads (4096 CTAs of 256) with its memory set up, and a
//! native Rust function computing the same result, so an engine can be measured against the
//! other engine and against native code in the same run, and checked against native output.

use rayon::prelude::*;
use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions, Stats, DEFAULT_BUDGET};
use warpjit::sass::{parse_program, AsmOptions};

use warpjit::runtime::memory::Init;
use warpjit::{BankMode, ConstBanks};

/// Threads per CTA in every kernel.
pub const BLOCK: u32 = 256;
/// Where every kernel's `src` array is mapped.
pub const SRC: u64 = 0x1_0000_0000;
/// Where its `idx` array is mapped.
pub const IDX: u64 = 0x2_0000_0000;
/// Where its output is.
pub const OUT: u64 = 0x3_0000_0000;
/// The kernel parameters at `c[0x0][0x140]`: the 64-bit addresses of `src`, `idx` and `out`.
pub const PARAMS: [u32; 6] = [
    SRC as u32,
    (SRC >> 32) as u32,
    IDX as u32,
    (IDX >> 32) as u32,
    OUT as u32,
    (OUT >> 32) as u32,
];

/// A benchmark kernel.
pub struct Kernel {
    /// Short name.
    pub name: &'static str,
    /// What it exercises.
    pub about: &'static str,
    /// SASS text.
    pub sass: &'static str,
    /// Bytes of output per thread.
    pub out_bytes: u32,
    /// Computes output element `i` (`out_bytes` little-endian bytes) natively.
    pub native: fn(&Inputs, u32) -> [u32; 4],
}

/// The input arrays every kernel may read (also mapped into guest memory).
pub struct Inputs {
    /// `src[i]`.
    pub src: Vec<u32>,
    /// `idx[i]`, a scrambled permutation-like index into `src`.
    pub idx: Vec<u32>,
    /// Constant bank 2 (table A, and a scalar at 0x400).
    pub bank2: Vec<u32>,
    /// Constant bank 3 (table B).
    pub bank3: Vec<u32>,
    /// The 64-bit bases in `c[0][0x160..0x170]`.
    pub base128: [u32; 4],
}

impl Inputs {
    /// Inputs for `n` threads.
    pub fn new(n: u32) -> Inputs {
        Inputs {
            src: (0..n)
                .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5555)
                .collect(),
            idx: (0..n)
                .map(|i| (i as u64 * 2_654_435_761 % n as u64) as u32)
                .collect(),
            bank2: (0..0x101).map(|i| i * 7 + 1).collect(),
            bank3: (0..0x100).map(|i| 0x1000 - i * 3).collect(),
            base128: [0xffff_fff0, 0x1234_5678, 0xffff_ffff, 0x0000_0001],
        }
    }
}

/// The benchmark kernels.
pub fn kernels() -> Vec<Kernel> {
    vec![
        Kernel {
            name: "stream",
            about: "out[i] = a[i] * table[i & 3] + b[i]: straight-line LEA/LDG/LDC/STG, sequential",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LEA R2.CC, R0, c[0x0][0x140], 0x2;
                LEA.HI.X R3, R0, c[0x0][0x144], RZ, 0x2;
                LDG.E R4, [R2];
                LEA R6.CC, R0, c[0x0][0x148], 0x2;
                LEA.HI.X R7, R0, c[0x0][0x14c], RZ, 0x2;
                LDG.E R5, [R6];
                LOP.AND R10, R0, 0x3;
                SHL R10, R10, 0x2;
                LDC R11, c[0x2][R10];
                XMAD R12, R4, R11, R5;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R12;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| {
                let a = inp.src[i as usize] & 0xffff;
                let t = inp.bank2[(i & 3) as usize] & 0xffff;
                [a.wrapping_mul(t).wrapping_add(inp.idx[i as usize]), 0, 0, 0]
            },
        },
        Kernel {
            name: "gather",
            about: "out[i] = src[idx[i]]: LEA.LO/LEA.HI.X 64-bit addressing, two LDG.E, STG.E",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LEA R2.CC, R0, c[0x0][0x148], 0x2;
                LEA.HI.X R3, R0, c[0x0][0x14c], RZ, 0x2;
                LDG.E R4, [R2];
                LEA R6.CC, R4, c[0x0][0x140], 0x2;
                LEA.HI.X R7, R4, c[0x0][0x144], RZ, 0x2;
                LDG.E R5, [R6];
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R5;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| [inp.src[inp.idx[i as usize] as usize], 0, 0, 0],
        },
        Kernel {
            name: "const_table",
            about: "out[i] = A[i & 255] + B[i & 255] + s: LDC.IL, LDC.IS, LDC immediate, IADD3",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LOP.AND R2, R0, 0xff;
                SHL R2, R2, 0x2;
                LDC.IL R3, c[0x2][R2];
                LOP32I.OR R4, R2, 0x30000;
                LDC.IS R5, c[0x0][R4];
                LDC R6, c[0x2][0x400];
                IADD3 R7, R3, R5, R6;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R7;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| {
                let k = (i & 0xff) as usize;
                [
                    inp.bank2[k]
                        .wrapping_add(inp.bank3[k])
                        .wrapping_add(inp.bank2[0x100]),
                    0,
                    0,
                    0,
                ]
            },
        },
        Kernel {
            name: "addr128",
            about: "U128 = base + (off << 17) with a LEA.LO/LEA.HI.X .CC chain, STG.E.128",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                MOV R8, R0;
                IADD R9, R0, 0x7;
                XMAD R10, R0, 0x3, RZ;
                MOV32I R11, 0x1;
                MOV R12, c[0x0][0x160];
                MOV R13, c[0x0][0x164];
                MOV R14, c[0x0][0x168];
                MOV R15, c[0x0][0x16c];
                LEA R16.CC, R8, R12, 0x11;
                LEA.HI.X R17.CC, R8, R13, R9, 0x11;
                LEA.HI.X R18.CC, R9, R14, R10, 0x11;
                LEA.HI.X R19, R10, R15, R11, 0x11;
                LEA R2.CC, R0, c[0x0][0x150], 0x4;
                LEA.HI.X R3, R0, c[0x0][0x154], RZ, 0x4;
                STG.E.128 [R2], R16;
                EXIT;
            ",
            out_bytes: 16,
            native: |inp, i| {
                let off = (i as u128)
                    | ((i.wrapping_add(7) as u128) << 32)
                    | (((i & 0xffff) * 3) as u128) << 64
                    | 1u128 << 96;
                let b = inp.base128;
                let base = b[0] as u128
                    | (b[1] as u128) << 32
                    | (b[2] as u128) << 64
                    | (b[3] as u128) << 96;
                let r = base.wrapping_add(off << 17);
                [
                    r as u32,
                    (r >> 32) as u32,
                    (r >> 64) as u32,
                    (r >> 96) as u32,
                ]
            },
        },
        Kernel {
            name: "loop",
            about: "64 iterations of XMAD, LOP3, SHR, IADD with a uniform ISETP/BRA back edge",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                MOV R2, R0;
                MOV R3, RZ;
            loop:
                XMAD R2, R2, 0x3, R3;
                LOP3.LUT R2, R2, R0, RZ, 0x3c;
                SHR.U32 R4, R2, 0x3;
                IADD R2, R2, R4;
                IADD R3, R3, 0x1;
                ISETP.LT.AND P0, PT, R3, 0x40, PT;
                @P0 BRA loop;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R2;
                EXIT;
            ",
            out_bytes: 4,
            native: |_, i| {
                let mut acc = i;
                for j in 0..64u32 {
                    acc = (acc & 0xffff).wrapping_mul(3).wrapping_add(j);
                    acc ^= i;
                    acc = acc.wrapping_add(acc >> 3);
                }
                [acc, 0, 0, 0]
            },
        },
    ]
}

/// A kernel ready to run: machine, launch and inputs.
pub struct Prepared {
    /// Machine with the input and output segments.
    pub machine: Machine,
    /// The launch.
    pub launch: Launch,
    /// Inputs (for the native version).
    pub inputs: Inputs,
    /// Threads.
    pub n: u32,
}

/// Sets a kernel up for `n` threads (a multiple of [`BLOCK`]).
pub fn prepare(k: &Kernel, n: u32) -> Result<Prepared, String> {
    let prog = parse_program(k.sass, &AsmOptions::default()).map_err(|e| e.to_string())?;
    let inputs = Inputs::new(n);
    let mut machine = Machine::default();
    let bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let map = |m: &mut Machine, base, data: &[u8], size| {
        m.global
            .map(base, size, Init::Bytes(data))
            .map_err(|e| e.to_string())
    };
    map(&mut machine, SRC, &bytes(&inputs.src), 4 * n as u64)?;
    map(&mut machine, IDX, &bytes(&inputs.idx), 4 * n as u64)?;
    map(&mut machine, OUT, &[], k.out_bytes as u64 * n as u64)?;
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &bytes(&PARAMS));
    consts.write(0, 0x160, &bytes(&inputs.base128));
    consts.write(2, 0, &bytes(&inputs.bank2));
    consts.write(3, 0, &bytes(&inputs.bank3));
    let launch = Launch {
        index: 0,
        program: Arc::new(prog),
        grid: [n / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
        mode: BankMode::Compute,
        shared_bytes: 0,
        local_bytes: 0,
        consts: Arc::new(consts),
        budget: DEFAULT_BUDGET,
        cooperative: false,
    };
    Ok(Prepared {
        machine,
        launch,
        inputs,
        n,
    })
}

impl Prepared {
    /// Runs the launch once on `engine`.
    pub fn run(&self, engine: &dyn Engine, opts: &RunOptions) -> Result<Stats, String> {
        engine
            .run(&self.machine, &self.launch, opts)
            .map_err(|f| f.to_string())
    }

    /// Runs the native version once (rayon over CTAs, as the engines), writing into `out`.
    pub fn run_native(&self, k: &Kernel, out: &mut [u32]) {
        let words = (k.out_bytes / 4) as usize;
        out.par_chunks_mut(BLOCK as usize * words)
            .enumerate()
            .for_each(|(c, chunk)| {
                for t in 0..BLOCK as usize {
                    let i = (c * BLOCK as usize + t) as u32;
                    let v = (k.native)(&self.inputs, i);
                    chunk[t * words..(t + 1) * words].copy_from_slice(&v[..words]);
                }
            });
    }

    /// Checks the guest output against the native output; `Err` names the first difference.
    pub fn check(&self, k: &Kernel) -> Result<(), String> {
        let got = self
            .machine
            .global
            .read_bytes(OUT, k.out_bytes as u64 * self.n as u64)
            .map_err(|e| e.to_string())?;
        let words = (k.out_bytes / 4) as usize;
        let mut want = vec![0u32; self.n as usize * words];
        self.run_native(k, &mut want);
        for (i, w) in want.iter().enumerate() {
            let g =
                u32::from_le_bytes([got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]]);
            if g != *w {
                return Err(format!(
                    "{}: word {i} is {g:#x}, native computes {w:#x}",
                    k.name
                ));
            }
        }
        Ok(())
    }
}

/// The trace-level workloads `warpjit bench` runs after the kernels, by name: DXBC programs
/// with their resources (the traces in `benches/traces/`, built in).
pub const TRACE_WORKLOADS: &[(&str, &str)] = &[
    (
        "dxbc_gather",
        include_str!("../../benches/traces/dxbc_gather.toml"),
    ),
    (
        "dxbc_msaa_resolve",
        include_str!("../../benches/traces/dxbc_msaa_resolve.toml"),
    ),
    (
        "dxbc_texture_filter",
        include_str!("../../benches/traces/dxbc_texture_filter.toml"),
    ),
];

/// A trace to measure: a built-in workload (its text) or a file.
pub enum TraceSource {
    /// A [`TRACE_WORKLOADS`] entry: its name and text.
    BuiltIn(&'static str, &'static str),
    /// A trace file, and where its side files may be.
    File(std::path::PathBuf, warpjit::tracefile::LoadOptions),
}

impl TraceSource {
    /// The name a bench table shows.
    pub fn name(&self) -> String {
        match self {
            TraceSource::BuiltIn(name, _) => name.to_string(),
            TraceSource::File(p, _) => p.display().to_string(),
        }
    }

    /// Loads it afresh (every run starts from the trace's own memory).
    pub fn load(&self) -> Result<warpjit::tracefile::Trace, String> {
        match self {
            // Built into warpjit, so trusted: its side files are where the repository has them.
            TraceSource::BuiltIn(name, text) => warpjit::tracefile::load_text_with(
                std::path::Path::new(&format!("benches/traces/{name}.toml")),
                text.to_string(),
                &warpjit::tracefile::LoadOptions {
                    allow_paths: vec!["/".into()],
                },
            ),
            TraceSource::File(p, load) => warpjit::tracefile::load_with(p, load),
        }
        .map_err(|e| e.render(false))
    }

    /// Runs it once with `engine` (a fresh load, not timed): the lane-instructions and the
    /// seconds its launches took. A fault or a failed expectation is an error.
    pub fn run(&self, engine: &dyn Engine, opts: &RunOptions) -> Result<(u64, f64), String> {
        let mut trace = self.load()?;
        let r = warpjit::runner::run_in(&mut trace, engine, opts).map_err(|e| e.render(false))?;
        if !r.passed() {
            return Err(r.failure_text(3));
        }
        Ok((r.total.lane_insts, r.seconds))
    }
}
