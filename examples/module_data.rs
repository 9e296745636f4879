//! A host program on `warpjit::device`, without a trace file: loads a cubin module with
//! `__device__` data (tests/cubin/devdata.cubin, from ptxas: the kernel reads the data's
//! addresses from constant bank 4), maps its data image at an address of the program's choosing,
//! lays the kernel's parameters out from its parameter table, maps an input array and an output
//! array the host owns (`map_host`), launches on both engines with an observer counting global
//! stores, writes a `__device__` variable between launches, and unmaps.
//!
//! `devdata(in, out)`: `out[t] = tbl[in[t] & 3] + t` with `__device__ int tbl[4] = {10, 20, 30,
//! 40}`, and every thread adds 1 to `__device__ unsigned counter`.
//!
//! Run it: `cargo run --example module_data` (it checks every result and says what it found).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use warpjit::device::{launch, LaunchConfig, LaunchError, Module};
use warpjit::exec::{Engine, Machine, MemAccess, MemSpace, Observer, RunOptions, WarpAt};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;
use warpjit::runtime::memory::Init;

/// Counts the lanes' stores to global memory.
#[derive(Default)]
struct GlobalStores(AtomicU64);

impl Observer for GlobalStores {
    fn wants_mem(&self, _launch: u32) -> bool {
        true
    }
    fn mem(&self, _at: WarpAt, access: MemAccess) {
        if access.store && access.space == MemSpace::Global {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

const THREADS: u32 = 40;
const DATA: u64 = 0x5_0000_0000; // where the module's __device__ data goes
const IN: u64 = 0x1000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubin/devdata.cubin");
    let module = Module::from_cubin(&std::fs::read(path)?)?;
    let (tbl, counter) = (
        module.symbol("tbl").ok_or("no tbl")?,
        module.symbol("counter").ok_or("no counter")?,
    );
    println!(
        "kernels: {:?}; data image {} bytes: tbl at +{:#x}, counter at +{:#x}",
        module.kernel_names().collect::<Vec<_>>(),
        module.data_bytes(),
        tbl.offset,
        counter.offset
    );

    let mut machine = Machine::default();
    // The data image (tbl's initial values, counter zeroed), then the kernel decoded for it:
    // bank 4 (and, in nvJitLink's code, the relocations) hold the addresses under DATA.
    module.map_data(&mut machine.global, DATA)?;
    let kernel = module.kernel("devdata", DATA)?;
    println!(
        "devdata: {} registers, parameters {:?}",
        kernel.registers(),
        kernel.params()
    );

    // The input as a segment warpjit owns; the output in memory this program owns.
    let input: Vec<u8> = (0..THREADS)
        .flat_map(|t| (7 * t + 3).to_le_bytes())
        .collect();
    machine
        .global
        .map(IN, input.len() as u64, Init::Bytes(&input))?;
    let mut out = vec![0u32; THREADS as usize + 4]; // + 4: room to align the guest address
    let host = out.as_mut_ptr() as *mut u8;
    // Host and guest addresses must agree modulo 16: the guest address is the host's.
    let out_addr = (host as u64).next_multiple_of(16);
    let skip = (out_addr - host as u64) as usize;
    // SAFETY: `out` outlives the segment (unmapped below) and is not touched while a launch
    // runs.
    unsafe {
        machine
            .global
            .map_host(out_addr, host.add(skip), 4 * THREADS as u64)?
    };

    let params = kernel
        .params()
        .layout(&[&IN.to_le_bytes(), &out_addr.to_le_bytes()])?;
    let config = LaunchConfig::new([1, 1, 1], [THREADS, 1, 1]);
    let stores = Arc::new(GlobalStores::default());
    let opts = RunOptions {
        observer: Some(stores.clone()),
        ..RunOptions::default()
    };
    let jit = Jit::new()?;
    let engines: [&dyn Engine; 2] = [&Interpreter, &jit];
    for (round, engine) in engines.into_iter().enumerate() {
        if round == 1 {
            // Between launches: a host write to a __device__ variable.
            let bigger: Vec<u8> = [100u32, 200, 300, 400]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            machine.global.write_bytes(DATA + tbl.offset, &bigger)?;
        }
        let stats = match launch(engine, &machine, &kernel, &config, &params, &opts) {
            Ok(stats) => stats,
            Err(LaunchError::Fault(f)) => return Err(format!("the kernel faulted: {f}").into()),
            Err(LaunchError::Invalid(why)) => return Err(format!("not launched: {why}").into()),
        };
        let table = [[10, 20, 30, 40], [100, 200, 300, 400]][round];
        // SAFETY: no launch runs: the host may read its memory (through the pointer it mapped,
        // `out` itself is not touched until the segment is unmapped).
        let got: Vec<u32> = (0..THREADS as usize)
            .map(|t| unsafe { host.add(skip + 4 * t).cast::<u32>().read() })
            .collect();
        for (t, &v) in got.iter().enumerate() {
            let want = table[((7 * t as u32 + 3) & 3) as usize] + t as u32;
            if v != want {
                return Err(format!("{}: out[{t}] = {v}, want {want}", engine.name()).into());
            }
        }
        let c = machine.global.read_bytes(DATA + counter.offset, 4)?;
        let c = u32::from_le_bytes(c.try_into().map_err(|_| "4 bytes")?);
        if c != THREADS * (round as u32 + 1) {
            return Err(format!("counter = {c} after {} launches", round + 1).into());
        }
        println!(
            "{}: {} lane-instructions; out[0..4] = {:?}; counter = {c}",
            engine.name(),
            stats.lane_insts,
            &got[..4]
        );
    }
    // Per launch, 40 outputs and one atomic add per warp: ptxas aggregates a warp's adds (VOTE,
    // POPC, then one lane's RED of the count).
    let seen = stores.0.load(Ordering::Relaxed);
    if seen != 2 * (THREADS as u64 + THREADS.div_ceil(32) as u64) {
        return Err(format!("the observer saw {seen} global stores").into());
    }
    println!("the observer saw {seen} global stores (outputs, and one counter add per warp, in both launches)");
    machine.global.unmap(out_addr)?;
    if machine.global.read_bytes(out_addr, 4).is_ok() {
        return Err("the output is still mapped".into());
    }
    println!(
        "unmapped the host's output: reads there fail now; out[1] = {} is the program's again",
        out[skip / 4 + 1]
    );
    Ok(())
}
