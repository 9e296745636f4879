//! `warpjit gen-trace`: self-checking traces of any size, made from the benchmark kernels
//! (`super::kernels`).
//!
//! A generated trace is `KIND.toml` in a directory with its side files `KIND.src.bin` and
//! `KIND.idx.bin` (the kernel's inputs, mapped by the trace, not copied) and `KIND.expected.bin`
//! (the output the kernel's native Rust version computes, which the trace's `[[expect]]` compares
//! in full): every name carries the kind, so traces of several kinds share a directory. Its size is
//! chosen by lane-instructions: a small launch is run first to count the kernel's
//! lane-instructions per thread, and the trace gets as many CTAs of [`BLOCK`] threads as reach
//! the number asked for.

use super::kernels::{kernels, prepare, Inputs, Kernel, BLOCK, IDX, OUT, PARAMS, SRC};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;

/// Most threads a generated trace has (each has an output slot of its own).
const MAX_THREADS: u64 = warpjit::exec::MAX_LAUNCH_THREADS;

/// What [`generate`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The trace file.
    pub trace: PathBuf,
    /// Threads in its launch.
    pub threads: u64,
    /// Lane-instructions its launch issues.
    pub lane_instructions: u64,
}

/// The kernel names [`generate`] knows.
pub fn kinds() -> Vec<&'static str> {
    kernels().iter().map(|k| k.name).collect()
}

/// Writes a trace of kernel `kind` issuing at least `lane_instructions` (at least one CTA) into
/// `dir` (created if missing). An error says what is wrong: an unknown kind (naming the known
/// ones), a size past a launch's limit, or a file that cannot be written.
pub fn generate(kind: &str, lane_instructions: u64, dir: &Path) -> Result<Generated, String> {
    let all = kernels();
    let Some(k) = all.iter().find(|k| k.name == kind) else {
        return Err(format!(
            "no kernel `{kind}`: gen-trace knows {}",
            kinds().join(", ")
        ));
    };
    // Lane-instructions per thread, from one CTA.
    let probe = prepare(k, BLOCK)?;
    let stats = Interpreter
        .run(&probe.machine, &probe.launch, &RunOptions::default())
        .map_err(|f| f.to_string())?;
    let per_thread = (stats.lane_insts / BLOCK as u64).max(1);
    let ctas = lane_instructions.div_ceil(per_thread * BLOCK as u64).max(1);
    let threads = ctas * BLOCK as u64;
    if threads > MAX_THREADS {
        return Err(format!(
            "{lane_instructions} lane-instructions of `{kind}` need {threads} threads, more than a \
             generated launch's {MAX_THREADS}"
        ));
    }
    let n = threads as u32;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let inputs = Inputs::new(n);
    let write = |name: &str, f: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut out = std::io::BufWriter::new(file);
        f(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let words = |v: &[u32], out: &mut dyn Write| -> std::io::Result<()> {
        for w in v {
            out.write_all(&w.to_le_bytes())?;
        }
        Ok(())
    };
    write(&format!("{kind}.src.bin"), &|o| words(&inputs.src, o))?;
    write(&format!("{kind}.idx.bin"), &|o| words(&inputs.idx, o))?;
    write(&format!("{kind}.expected.bin"), &|o| {
        expected(k, &inputs, n, o)
    })?;
    let issued = per_thread * threads;
    let trace = dir.join(format!("{kind}.toml"));
    std::fs::write(&trace, trace_text(k, &inputs, n, lane_instructions, issued))
        .map_err(|e| format!("{}: {e}", trace.display()))?;
    Ok(Generated {
        trace,
        threads,
        lane_instructions: issued,
    })
}

/// The kernel's output for threads `0..n`, as the native version computes it.
fn expected(k: &Kernel, inputs: &Inputs, n: u32, out: &mut dyn Write) -> std::io::Result<()> {
    let words = (k.out_bytes / 4) as usize;
    let mut buf = Vec::with_capacity(1 << 16);
    for i in 0..n {
        let v = (k.native)(inputs, i);
        for w in &v[..words] {
            buf.extend_from_slice(&w.to_le_bytes());
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// `[a, b, ...]` in hex.
fn list(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|w| format!("{w:#x}")).collect();
    format!("[{}]", items.join(", "))
}

/// The trace file's text.
fn trace_text(k: &Kernel, inputs: &Inputs, n: u32, asked: u64, issued: u64) -> String {
    let warps = issued.div_ceil(32);
    // Room for the launch's warp instructions (at most one per lane-instruction).
    let budget = (2 * issued).max(warpjit::exec::DEFAULT_LAUNCH_BUDGET);
    format!(
        "# Generated by `warpjit gen-trace {name} --lane-instructions {asked}`: the `{name}` \
         benchmark kernel\n# ({about})\n# over {n} threads, about {issued} lane-instructions \
         (at least {warps} warp instructions). {name}.src.bin and\n# {name}.idx.bin are its \
         inputs, {name}.expected.bin the output its native Rust version computes.\n\n\
         format = \"warpjit-trace/1\"\n\n\
         [machine]\nlaunch_budget = {budget}\n\n\
         [[global]]                       # src\naddr = {SRC:#x}\nfile = \"{name}.src.bin\"\n\n\
         [[global]]                       # idx\naddr = {IDX:#x}\nfile = \"{name}.idx.bin\"\n\n\
         [[global]]                       # out\naddr = {OUT:#x}\nsize = {out}\n\n\
         [[const]]                        # the three arrays' addresses\nbank = 0\noffset = 0x140\nu32 = {params}\n\n\
         [[const]]\nbank = 0\noffset = 0x160\nu32 = {base128}\n\n\
         [[const]]\nbank = 2\noffset = 0\nu32 = {bank2}\n\n\
         [[const]]\nbank = 3\noffset = 0\nu32 = {bank3}\n\n\
         [[launch]]\ngrid = [{ctas}]\nblock = [{BLOCK}]\ncode = \"\"\"{sass}\"\"\"\n\n\
         [[expect]]\naddr = {OUT:#x}\nfile = \"{name}.expected.bin\"\n",
        name = k.name,
        about = k.about,
        out = k.out_bytes as u64 * n as u64,
        params = list(&PARAMS),
        base128 = list(&inputs.base128),
        bank2 = list(&inputs.bank2),
        bank3 = list(&inputs.bank3),
        ctas = n / BLOCK,
        sass = k.sass,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_trace_passes_and_has_the_size_asked_for() {
        let dir = std::env::temp_dir().join(format!("warpjit-gentrace-{}", std::process::id()));
        let g = generate("gather", 100_000, &dir).expect("generates");
        assert!(g.lane_instructions >= 100_000, "{g:?}");
        assert_eq!(g.threads % BLOCK as u64, 0);
        let report = warpjit::runner::run_trace(&g.trace, &Interpreter, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.passed(), "{}", report.failure_text(5));
        assert_eq!(report.total.lane_insts, g.lane_instructions);
        assert!(generate("nope", 1, &dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
