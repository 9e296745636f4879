//! `warpjit cuda [--engine jit|interp] [--threads N] [--record DIR] [--check[=TOOLS]] -- COMMAND
//! [ARGS...]`: runs COMMAND with warpjit's CUDA driver found first as `libcuda.so.1` (a directory
//! holding `libcuda.so.1` and `libcuda.so` links to the library goes first on `LD_LIBRARY_PATH`,
//! for the command and its children), and the driver's options in its environment.
//!
//! `--check` runs every launch under the sanitizer (`WARPJIT_CUDA_CHECK=TOOLS` in the driver's
//! environment): the driver writes each launch's reports to stderr and appends its count of
//! errors and warnings to a file (`WARPJIT_CUDA_CHECK_OUT`); when COMMAND ends, a summary line
//! sums them, and errors make the exit status 5 if COMMAND's own was 0.
//!
//! Where the library is found (the first that exists):
//! 1. `WARPJIT_CUDA_LIB` (a path to the library);
//! 2. beside this executable (`target/release/libcuda.so` next to `target/release/warpjit`
//!    in a build tree);
//! 3. in the source tree this executable was built from (`target/release`, then
//!    `target/debug`; after `cargo install --path .`, which builds in that tree);
//! 4. else it is built there (`cargo build --release -p warpjit-cuda`, once), with a message.

use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The engine kernels run on.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CudaEngine {
    /// The Cranelift JIT.
    Jit,
    /// The reference interpreter.
    Interp,
}

/// `warpjit cuda`'s arguments.
#[derive(Args)]
pub struct CudaArgs {
    /// The engine kernels run on.
    #[arg(long, value_enum, default_value = "jit")]
    engine: CudaEngine,
    /// Host threads per launch (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Write every launch as a warpjit trace into DIR (`warpjit run DIR` replays them).
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Run every launch under the sanitizer (docs/semantics.md §24), as `warpjit run --check`:
    /// all tools, or those named (`--check=memcheck,racecheck,initcheck,synccheck,ub`).
    #[arg(
        long,
        value_name = "TOOLS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "all"
    )]
    check: Option<String>,
    /// The command to run, after `--`.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<OsString>,
}

/// The library's file name as cargo builds it.
const LIB: &str = "libcuda.so";

/// Where to look for the library, in order (see the module docs).
fn candidates() -> Vec<PathBuf> {
    let mut c = Vec::new();
    if let Some(p) = std::env::var_os("WARPJIT_CUDA_LIB") {
        c.push(PathBuf::from(p));
        return c;
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        c.push(dir.join(LIB));
    }
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let order = if cfg!(debug_assertions) {
        ["debug", "release"]
    } else {
        ["release", "debug"]
    };
    for p in order {
        c.push(tree.join(p).join(LIB));
    }
    c
}

/// Finds the library, building it in the source tree if it is nowhere.
fn find_library() -> Result<PathBuf, String> {
    let found = candidates().into_iter().find(|p| p.is_file());
    if let Some(p) = found {
        return Ok(p);
    }
    if let Some(p) = std::env::var_os("WARPJIT_CUDA_LIB") {
        return Err(format!(
            "WARPJIT_CUDA_LIB={}: no such file",
            PathBuf::from(p).display()
        ));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join("cuda/Cargo.toml").is_file() {
        return Err(format!(
            "the CUDA driver library ({LIB}) is not beside this executable and the source tree \
             it was built from ({}) is gone: build it with `cargo build --release -p \
             warpjit-cuda` and set WARPJIT_CUDA_LIB to target/release/{LIB}",
            root.display()
        ));
    }
    eprintln!(
        "warpjit: building the CUDA driver library in {} (once; `cargo build --release -p warpjit-cuda`) ...",
        root.display()
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--locked", "-p", "warpjit-cuda"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo to build the CUDA driver library: {e}"))?;
    let lib = root.join("target/release").join(LIB);
    if status.success() && lib.is_file() {
        Ok(lib)
    } else {
        Err(format!(
            "building the CUDA driver library failed ({status})"
        ))
    }
}

/// Runs `warpjit cuda`; returns the command's exit status (2 when the library cannot be found
/// or the command cannot start).
pub fn run(args: &CudaArgs) -> u8 {
    if let Some(Err(m)) = args.check.as_deref().map(warpjit::sanitizer::Tools::parse) {
        eprintln!("warpjit: error: --check: {m}");
        return 64;
    }
    let lib = match find_library() {
        Ok(l) => l,
        Err(m) => {
            eprintln!("warpjit: error: {m}");
            return 2;
        }
    };
    let lib = lib.canonicalize().unwrap_or(lib);
    // A directory of its own holding the library under both names the loaders ask for.
    let dir = std::env::temp_dir().join(format!("warpjit-cuda-{}", std::process::id()));
    let setup = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        for name in ["libcuda.so.1", "libcuda.so"] {
            let link = dir.join(name);
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&lib, &link)?;
        }
        Ok(())
    })();
    if let Err(e) = setup {
        eprintln!("warpjit: error: cannot set up {}: {e}", dir.display());
        return 2;
    }
    let mut path = OsString::from(&dir);
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut cmd = Command::new(&args.command[0]);
    cmd.args(&args.command[1..]).env("LD_LIBRARY_PATH", path);
    cmd.env(
        "WARPJIT_CUDA_ENGINE",
        match args.engine {
            CudaEngine::Jit => "jit",
            CudaEngine::Interp => "interp",
        },
    );
    if let Some(t) = args.threads {
        cmd.env("WARPJIT_CUDA_THREADS", t.to_string());
    }
    if let Some(r) = &args.record {
        if let Err(e) = std::fs::create_dir_all(r) {
            eprintln!("warpjit: error: --record {}: {e}", r.display());
            let _ = std::fs::remove_dir_all(&dir);
            return 2;
        }
        cmd.env(
            "WARPJIT_CUDA_RECORD",
            r.canonicalize().unwrap_or_else(|_| r.clone()),
        );
    }
    let counts = dir.join("check");
    if let Some(t) = &args.check {
        cmd.env("WARPJIT_CUDA_CHECK", t)
            .env("WARPJIT_CUDA_CHECK_OUT", &counts);
    }
    let status = cmd.status();
    // Each checked launch's errors and warnings, one line each.
    let (errors, warnings) = std::fs::read_to_string(&counts)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut n = l.split(' ').map(|n| n.parse::<u64>().unwrap_or(0));
            Some((n.next()?, n.next()?))
        })
        .fold((0, 0), |(e, w), (a, b)| (e + a, w + b));
    let _ = std::fs::remove_dir_all(&dir);
    if args.check.is_some() {
        eprintln!(
            "warpjit cuda --check: {errors} error{}, {warnings} warning{} in all launches",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        );
    }
    match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(0), _) if errors > 0 => 5,
                (Some(c), _) => c as u8,
                (None, Some(sig)) => 128u8.wrapping_add(sig as u8),
                _ => 1,
            }
        }
        Err(e) => {
            eprintln!(
                "warpjit: error: cannot run {}: {e}",
                PathBuf::from(&args.command[0]).display()
            );
            2
        }
    }
}
