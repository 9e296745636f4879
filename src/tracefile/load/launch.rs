//! Loading `[[launch]]`: dimensions, shared memory, budgets, inputs, and each launch's program
//! through the front-end boundary (each distinct program compiled once).

use super::{sp, sp64, Loader};
use crate::diag::{Diagnostic, Location};
use crate::exec::{DEFAULT_BUDGET, MAX_LAUNCH_THREADS};
use crate::frontend;
use crate::ir::{Isa, Program};
use crate::tracefile::code::{value_offset, StringMap};
use crate::tracefile::files::{self, MAX_PROGRAM_BYTES};
use crate::tracefile::schema::{HasData, RawLaunch, RawRegData};
use crate::tracefile::{
    LaunchSpec, TraceError, MAX_BLOCK, MAX_GRID, MAX_SHARED_BYTES, MAX_THREADS_PER_CTA,
};
use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use toml::Spanned;
use warpjit_runtime::BankMode;

/// What makes two launches' programs the same: from a `code_file`, the `code` text or
/// `code_file` value, `isa`, `registers`.
pub(super) type ProgramKey = (bool, String, Isa, u32);

/// The programs a trace's launches assembled so far.
#[derive(Default)]
pub(super) struct Programs {
    /// By (from a `code_file`, the `code` text or `code_file` value, `isa`, `registers`).
    pub(super) done: HashMap<ProgramKey, (Arc<Program>, PathBuf)>,
    /// Bytes of the distinct texts assembled.
    pub(super) bytes: u64,
}

impl Loader {
    /// Grid or block dimensions: 1 to 3 components, each at least 1 and at most `max`.
    pub(super) fn dims(
        &self,
        v: &Option<Spanned<Vec<Spanned<u32>>>>,
        key: &str,
        default: [u32; 3],
        max: [u32; 3],
    ) -> Result<[u32; 3], TraceError> {
        let Some(v) = v else { return Ok(default) };
        let items = v.get_ref();
        if items.is_empty() || items.len() > 3 {
            return Err(self.invalid(
                &v.span(),
                format!("{key} takes 1 to 3 components [x, y, z]"),
            ));
        }
        let mut out = [1; 3];
        for (i, c) in items.iter().enumerate() {
            let (n, span) = sp(c);
            let axis = ["x", "y", "z"][i];
            if n == 0 {
                return Err(self.invalid(&span, format!("{key} {axis} must be at least 1")));
            }
            if n > max[i] {
                return Err(self.invalid(
                    &span,
                    format!(
                        "{key} {axis} = {n} is more than {} (Maxwell's limit)",
                        max[i]
                    ),
                ));
            }
            out[i] = n;
        }
        Ok(out)
    }

    pub(super) fn launch(
        &self,
        index: u32,
        l: &Spanned<RawLaunch>,
        programs: &mut Programs,
    ) -> Result<LaunchSpec, TraceError> {
        let table = l.span();
        let l = l.get_ref();
        let isa = match &l.isa {
            None => Isa::Sass,
            Some(name) => match frontend::isa_named(name.get_ref()) {
                Some(isa) => {
                    if let Some(why) = frontend::unsupported_isa(isa) {
                        return Err(self.src.unsupported(&name.span(), why));
                    }
                    isa
                }
                None => {
                    let mut d = self.src.at(
                        &name.span(),
                        format!(
                            "unknown isa {:?}: expected \"sass\" or \"dxbc\"",
                            name.get_ref()
                        ),
                    );
                    d.notes.extend(crate::diag::did_you_mean(
                        name.get_ref(),
                        frontend::ISA_NAMES.iter().copied(),
                    ));
                    return Err(TraceError::Invalid(d));
                }
            },
        };
        if let Some(inv) = &l.invocations {
            return Err(self.invalid(
                &inv.span(),
                "`invocations` counts DXBC vs/gs/ps invocations; a SASS launch runs grid × block threads",
            ));
        }
        if let Some(i) = l.input.first() {
            self.reg_data(i)?;
            return Err(self.src.unsupported(
                &i.span(),
                "DXBC inputs are not supported yet: [[launch.input]] sets v# registers of DXBC vs/gs/ps launches",
            ));
        }
        if let Some(o) = l.expect_output.first() {
            self.reg_data(o)?;
            return Err(self.src.unsupported(
                &o.span(),
                "DXBC outputs are not supported yet: [[launch.expect_output]] checks o# registers of DXBC \
                 vs/gs/ps launches",
            ));
        }
        let grid = self.dims(&l.grid, "grid", [1, 1, 1], MAX_GRID)?;
        let block = self.dims(&l.block, "block", [32, 1, 1], MAX_BLOCK)?;
        let threads: u64 = block.iter().map(|&b| b as u64).product();
        if threads > MAX_THREADS_PER_CTA {
            let span = l.block.as_ref().map_or(table.clone(), |b| b.span());
            return Err(self.invalid(
                &span,
                format!("block has {threads} threads: a CTA has at most {MAX_THREADS_PER_CTA}"),
            ));
        }
        let total = grid.iter().map(|&g| g as u128).product::<u128>() * threads as u128;
        if total > MAX_LAUNCH_THREADS as u128 {
            let span = l.grid.as_ref().map_or(table.clone(), |g| g.span());
            return Err(self.invalid(
                &span,
                format!("grid × block is {total} threads: a launch has at most {MAX_LAUNCH_THREADS} (2^30)"),
            ));
        }
        let mode = match &l.mode {
            None => BankMode::Compute,
            Some(m) => match m.get_ref().as_str() {
                "compute" => BankMode::Compute,
                "graphics" => BankMode::Graphics,
                other => {
                    return Err(self.invalid(
                        &m.span(),
                        format!("unknown mode {other:?}: expected \"compute\" or \"graphics\""),
                    ))
                }
            },
        };
        let registers = match &l.registers {
            None => 255,
            Some(r) => {
                let (n, span) = sp(r);
                if !(1..=255).contains(&n) {
                    return Err(self.invalid(&span, format!("registers = {n}: expected 1 to 255")));
                }
                n
            }
        };
        let shared_bytes = match &l.shared_bytes {
            None => 0,
            Some(s) => {
                let (n, span) = sp(s);
                if n > MAX_SHARED_BYTES {
                    return Err(self.invalid(
                        &span,
                        format!("shared_bytes = {n:#x} is larger than the 16 MiB shared window ({MAX_SHARED_BYTES:#x})"),
                    ));
                }
                n
            }
        };
        let budget = match &l.budget {
            None => DEFAULT_BUDGET,
            Some(b) => {
                let (n, span) = sp64(b);
                if n == 0 {
                    return Err(self.invalid(&span, "budget must be at least 1 warp instruction"));
                }
                n
            }
        };
        let (program, program_path) = self.program(l, &table, isa, registers, programs)?;
        Ok(LaunchSpec {
            index,
            program,
            program_path,
            grid,
            block,
            mode,
            registers,
            shared_bytes,
            budget,
            line: self.line(&table),
        })
    }

    /// Structural checks of a `[[launch.input]]` / `[[launch.expect_output]]`.
    pub(super) fn reg_data(&self, r: &Spanned<RawRegData>) -> Result<(), TraceError> {
        let (reg, span) = sp(&r.get_ref().reg);
        if reg >= 32 {
            return Err(self.invalid(&span, format!("reg {reg} is out of range 0 to 31")));
        }
        if self.data(r.get_ref().data())?.is_none() {
            return Err(self.invalid(
                &r.span(),
                "needs one of the data keys u32, i32, f32, u8, file",
            ));
        }
        Ok(())
    }

    /// Assembles a launch's program from `code` or `code_file`.
    /// The same text with the same `registers` is assembled once; the distinct texts may hold
    /// [`MAX_PROGRAM_BYTES`] in all (an assembled program takes about 100 times its text's size).
    pub(super) fn program(
        &self,
        l: &RawLaunch,
        table: &Range<usize>,
        isa: Isa,
        registers: u32,
        programs: &mut Programs,
    ) -> Result<(Arc<Program>, PathBuf), TraceError> {
        let key = match (&l.code, &l.code_file) {
            (Some(code), None) => Some((false, code.get_ref().clone(), isa, registers)),
            (None, Some(file)) => Some((true, file.get_ref().clone(), isa, registers)),
            _ => None,
        };
        if let Some(p) = key.as_ref().and_then(|k| programs.done.get(k)) {
            return Ok(p.clone());
        }
        let mut count = |len: usize, span: &Range<usize>| {
            programs.bytes += len as u64;
            if programs.bytes > MAX_PROGRAM_BYTES {
                return Err(self.invalid(
                    span,
                    format!(
                        "the trace's programs hold more than {MAX_PROGRAM_BYTES} bytes ({} MiB) of \
                         text",
                        MAX_PROGRAM_BYTES >> 20
                    ),
                ));
            }
            Ok(())
        };
        let made = self.assemble(l, table, isa, registers, &mut count)?;
        if let Some(k) = key {
            programs.done.insert(k, made.clone());
        }
        Ok(made)
    }

    /// Reads (for `code_file`) and compiles a launch's program through the front-end boundary;
    /// `count` is told its size first.
    pub(super) fn assemble(
        &self,
        l: &RawLaunch,
        table: &Range<usize>,
        isa: Isa,
        registers: u32,
        count: &mut impl FnMut(usize, &Range<usize>) -> Result<(), TraceError>,
    ) -> Result<(Arc<Program>, PathBuf), TraceError> {
        match (&l.code, &l.code_file) {
            (Some(a), Some(b)) => {
                let (first, second) = if a.span().start < b.span().start {
                    ("code", b.span())
                } else {
                    ("code_file", a.span())
                };
                let other = if first == "code" { "code_file" } else { "code" };
                Err(self.invalid(
                    &second,
                    format!(
                        "`{other}` conflicts with `{first}`: a launch takes exactly one of them"
                    ),
                ))
            }
            (None, None) => Err(self.invalid(
                table,
                "[[launch]] needs `code` (the program text) or `code_file`",
            )),
            (Some(code), None) => {
                count(code.get_ref().len(), &code.span())?;
                let opts = frontend::Options {
                    isa,
                    registers,
                    path: self.src.path.clone(),
                };
                match frontend::compile(code.get_ref().as_bytes(), &opts) {
                    Ok(p) => Ok((Arc::new(p), self.src.path.clone())),
                    Err(d) => Err(TraceError::Program(self.inline_program_error(code, d))),
                }
            }
            (None, Some(file)) => {
                let path = self.dir.join(file.get_ref());
                let bytes = files::read_limited(&path, MAX_PROGRAM_BYTES, "a code_file")
                    .map_err(|message| self.invalid(&file.span(), message))?;
                count(bytes.len(), &file.span())?;
                let opts = frontend::Options {
                    isa,
                    registers,
                    path: path.clone(),
                };
                match frontend::compile(&bytes, &opts) {
                    Ok(p) => Ok((Arc::new(p), path)),
                    Err(d) => Err(TraceError::Program(d)),
                }
            }
        }
    }

    /// Points a front-end diagnostic about inline `code` at the trace: line and column of the
    /// trace file, the trace's line as the offending line, and notes' lines as trace lines.
    pub(super) fn inline_program_error(
        &self,
        code: &Spanned<String>,
        mut d: Diagnostic,
    ) -> Diagnostic {
        let span = code.span();
        let value = code.get_ref();
        d.path = self.src.path.clone();
        let Location::Text { line, col, .. } = d.location else {
            // A byte offset into inline text: point at the string.
            let (line, col) = self.src.line_col(span.start);
            d.location = Location::Text {
                line,
                col,
                line_text: self.src.line_text(line as usize - 1).to_string(),
            };
            return d;
        };
        if let Some(map) = StringMap::new(&self.src.text, &span, value) {
            let trace_line_col = |line: u32, col: u32| {
                self.src
                    .line_col(map.trace_offset(value_offset(value, line, col)))
            };
            let (tl, tc) = trace_line_col(line, col);
            d.location = Location::Text {
                line: tl,
                col: tc,
                line_text: self.src.line_text(tl as usize - 1).to_string(),
            };
            for n in &mut d.notes {
                n.line = n.line.map(|l| trace_line_col(l, 1).0);
            }
            return d;
        }
        // A literal form the decoder does not know: shift lines only. The value's first line is
        // the literal's line, or the next one when a line break follows the opening quotes.
        let raw = self.src.text.get(span.clone()).unwrap_or("");
        let after_quotes = raw.get(3..).unwrap_or("");
        let skip = (raw.starts_with("\"\"\"") || raw.starts_with("'''"))
            && (after_quotes.starts_with('\n') || after_quotes.starts_with("\r\n"));
        let first = self.line(&span) - 1 + u32::from(skip);
        if let Location::Text { line, .. } = &mut d.location {
            *line = line.saturating_add(first);
        }
        for n in &mut d.notes {
            n.line = n.line.map(|l| l.saturating_add(first));
        }
        d
    }
}
