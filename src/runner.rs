//! Running a trace: the library entry point behind `warpjit run`.
//!
//! [`run_trace`] loads a trace ([`load_trace`]), runs its launches in file order over one machine
//! with an [`Engine`], stops at the first launch that faults, and otherwise checks the trace's
//! `[[expect]]` tables against global memory. The outcome is a [`TraceReport`]; an invalid trace
//! is a [`TraceError`].

use crate::exec::{Engine, RunOptions, Stats};
use crate::tracefile::{files, Data, DataKind, Expect, Trace, TraceError};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::time::Instant;
use warpjit_runtime::Fault;

/// Most mismatches a report keeps (all are counted in [`TraceReport::mismatch_count`]).
pub const MAX_MISMATCHES: usize = 10_000;

/// Loads and validates a trace without running it (see [`crate::tracefile::load`]).
pub fn load_trace(path: &Path) -> Result<Trace, TraceError> {
    crate::tracefile::load(path)
}

/// Loads the trace at `path` and runs it with `engine` (see [`run`]).
pub fn run_trace(
    path: &Path,
    engine: &dyn Engine,
    opts: &RunOptions,
) -> Result<TraceReport, TraceError> {
    run(load_trace(path)?, engine, opts)
}

/// Runs a loaded trace's launches in file order with `engine`, stopping at the first launch that
/// faults; when none does, checks every `[[expect]]` against global memory.
///
/// Execution events (and `--check` findings) go to `opts.observer`. An error is returned only for a
/// problem of the trace found while checking (an expectation's file unreadable or resized).
pub fn run(
    trace: Trace,
    engine: &dyn Engine,
    opts: &RunOptions,
) -> Result<TraceReport, TraceError> {
    let mut report = TraceReport {
        engine: engine.name(),
        launches: Vec::new(),
        total: Stats::default(),
        seconds: 0.0,
        mismatches: Vec::new(),
        mismatch_count: 0,
        fault: None,
    };
    for spec in &trace.launches {
        let launch = trace.launch(spec);
        let start = Instant::now();
        let result = engine.run(&trace.machine, &launch, opts);
        let seconds = start.elapsed().as_secs_f64();
        report.seconds += seconds;
        match result {
            Ok(stats) => {
                report.total += stats;
                report.launches.push(LaunchReport {
                    index: spec.index,
                    ctas: launch.ctas(),
                    warps_per_cta: launch.warps_per_cta(),
                    stats,
                    seconds,
                });
            }
            Err(fault) => {
                report.fault = Some(fault);
                return Ok(report);
            }
        }
    }
    for e in &trace.expects {
        check(&trace, e, &mut report)?;
    }
    Ok(report)
}

/// Bytes of an expectation compared at a time (a multiple of every element size).
const CHUNK: usize = 1 << 20;

/// Compares one expectation with global memory, adding its mismatches to the report. A `file`
/// is read a chunk at a time (never whole), and memory is read a chunk at a time with one segment
/// lookup per segment (non-resident tiles read 0), so memory use stays at two chunks whatever the
/// size.
fn check(trace: &Trace, e: &Expect, report: &mut TraceReport) -> Result<(), TraceError> {
    let len = e.data.byte_len();
    let mem = &trace.machine.global;
    let mut got = vec![0; CHUNK.min(len as usize)];
    let mut compare = |off: u64, want: &[u8], report: &mut TraceReport| {
        let got = &mut got[..want.len()];
        mem.read_into(e.addr.wrapping_add(off), got)
            .map_err(|err| trace.expect_error(e, err.to_string()))?;
        compare_chunk(e, off, want, got, report);
        Ok::<(), TraceError>(())
    };
    match &e.data {
        Data::File { path, .. } => {
            let (file, now) =
                files::open_regular(path).map_err(|message| trace.expect_error(e, message))?;
            if now != len {
                return Err(trace.expect_error(
                    e,
                    format!(
                        "{} changed size while running ({now} bytes, was {len})",
                        path.display()
                    ),
                ));
            }
            let mut file = file.take(len);
            let mut want = vec![0; CHUNK.min(len as usize)];
            let mut off = 0u64;
            while off < len {
                let n = CHUNK.min((len - off) as usize);
                file.read_exact(&mut want[..n]).map_err(|err| {
                    trace.expect_error(e, format!("cannot read {}: {err}", path.display()))
                })?;
                compare(off, &want[..n], report)?;
                off += n as u64;
            }
        }
        d => {
            let want = d
                .to_bytes()
                .map_err(|err| trace.expect_error(e, err.to_string()))?;
            for (k, w) in want.chunks(CHUNK).enumerate() {
                compare((k * CHUNK) as u64, w, report)?;
            }
        }
    }
    Ok(())
}

/// Adds the mismatches of one chunk (`want` against `got`, `off` bytes into expectation `e`).
fn compare_chunk(e: &Expect, off: u64, want: &[u8], got: &[u8], report: &mut TraceReport) {
    if want == got {
        return;
    }
    let kind = e.data.kind();
    let size = kind.element_size() as usize;
    for (i, (w, g)) in want
        .chunks_exact(size)
        .zip(got.chunks_exact(size))
        .enumerate()
    {
        if w == g {
            continue;
        }
        report.mismatch_count += 1;
        if report.mismatches.len() < MAX_MISMATCHES {
            let byte = off + (i * size) as u64;
            report.mismatches.push(Mismatch {
                expect: e.index,
                line: e.line,
                kind,
                index: byte / size as u64,
                addr: e.addr.wrapping_add(byte),
                expected: Value::new(kind, w),
                got: Value::new(kind, g),
            });
        }
    }
}

/// What one launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchReport {
    /// 0-based launch index.
    pub index: u32,
    /// CTAs in the grid.
    pub ctas: u64,
    /// Warps per CTA.
    pub warps_per_cta: u64,
    /// Work counted by the engine.
    pub stats: Stats,
    /// Wall-clock seconds of the launch.
    pub seconds: f64,
}

/// The outcome of running a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceReport {
    /// The engine's name.
    pub engine: &'static str,
    /// The launches that completed, in order.
    pub launches: Vec<LaunchReport>,
    /// Sum of the completed launches' stats.
    pub total: Stats,
    /// Wall-clock seconds spent in launches (loading and checking excluded).
    pub seconds: f64,
    /// Expectation mismatches, in trace order (at most [`MAX_MISMATCHES`]).
    pub mismatches: Vec<Mismatch>,
    /// How many mismatches there were in all.
    pub mismatch_count: u64,
    /// The fault that stopped the run, if one did (then no expectation was checked).
    pub fault: Option<Fault>,
}

impl TraceReport {
    /// True when every launch ran and every expectation held.
    pub fn passed(&self) -> bool {
        self.fault.is_none() && self.mismatch_count == 0
    }

    /// The command line's exit status for this outcome: 0 passed, 1 an expectation failed, 3 a
    /// fault (2, an invalid trace, is a [`TraceError`]).
    pub fn exit_code(&self) -> i32 {
        if self.fault.is_some() {
            3
        } else if self.mismatch_count > 0 {
            1
        } else {
            0
        }
    }

    /// Lane instructions per second over the launches.
    pub fn rate(&self) -> f64 {
        rate(self.total.lane_insts, self.seconds)
    }

    /// What `warpjit run` prints on stderr for this outcome: the fault, or the first `shown`
    /// mismatches (one `mismatch: ...` line each), `... and N more` when there were more, and a
    /// count; empty when the trace passed.
    pub fn failure_text(&self, shown: usize) -> String {
        use fmt::Write;
        let mut s = String::new();
        if let Some(fault) = &self.fault {
            let _ = writeln!(s, "{fault}");
            return s;
        }
        if self.mismatch_count == 0 {
            return s;
        }
        for m in self.mismatches.iter().take(shown) {
            let _ = writeln!(s, "mismatch: {m}");
        }
        let more = self
            .mismatch_count
            .saturating_sub(shown.min(self.mismatches.len()) as u64);
        if more > 0 {
            let _ = writeln!(s, "... and {more} more");
        }
        let plural = if self.mismatch_count == 1 { "" } else { "es" };
        let _ = writeln!(s, "warpjit: {} mismatch{plural}", self.mismatch_count);
        s
    }
}

/// `count / seconds`, 0 when no time was measured.
pub fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// One element of an expectation that did not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 0-based index of the `[[expect]]` among the trace's.
    pub expect: usize,
    /// Line of that `[[expect]]` in the trace.
    pub line: u32,
    /// Its data key.
    pub kind: DataKind,
    /// Index of the element in the data (a file compares bytes).
    pub index: u64,
    /// Address of the element.
    pub addr: u64,
    /// The expected value.
    pub expected: Value,
    /// The value in memory.
    pub got: Value,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expect {} (line {}): {}[{}] at {:#x}: expected {}, got {}",
            self.expect, self.line, self.kind, self.index, self.addr, self.expected, self.got
        )
    }
}

/// A compared value, printed per its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Unsigned word: `42 (0x0000002a)`.
    U32(u32),
    /// Signed word: `-1 (0xffffffff)`.
    I32(i32),
    /// Float, by its bits (compared bit-exact): `1.5 (0x3fc00000)`.
    F32(u32),
    /// Byte: `255 (0xff)`.
    U8(u8),
}

impl Value {
    fn new(kind: DataKind, bytes: &[u8]) -> Value {
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        match kind {
            DataKind::U32 => Value::U32(word(bytes)),
            DataKind::I32 => Value::I32(word(bytes) as i32),
            DataKind::F32 => Value::F32(word(bytes)),
            DataKind::U8 | DataKind::File => Value::U8(bytes[0]),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::U32(v) => write!(f, "{v} ({v:#010x})"),
            Value::I32(v) => write!(f, "{v} ({:#010x})", v as u32),
            Value::F32(v) => write!(f, "{:?} ({v:#010x})", f32::from_bits(v)),
            Value::U8(v) => write!(f, "{v} ({v:#04x})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_decimal_and_hex() {
        assert_eq!(Value::U32(42).to_string(), "42 (0x0000002a)");
        assert_eq!(Value::I32(-1).to_string(), "-1 (0xffffffff)");
        assert_eq!(Value::F32(0x3fc0_0000).to_string(), "1.5 (0x3fc00000)");
        assert_eq!(Value::F32(0x7fc0_0001).to_string(), "NaN (0x7fc00001)");
        assert_eq!(Value::U8(255).to_string(), "255 (0xff)");
    }
}
