//! Reading and validating a trace file.

use super::error::Source;
use super::files::{self, MAX_TRACE_BYTES, MAX_TRACE_VALUES};
use super::schema::{RawData, RawTrace, U64};
use super::{Data, DataKind, LoadOptions, Trace, TraceError, FORMAT};
use crate::diag::Diagnostic;
use crate::exec::{Machine, DEFAULT_LAUNCH_BUDGET, DEFAULT_QUANTUM};
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use warpjit_runtime::{LOCAL_WINDOW_SIZE, SHARED_WINDOW_SIZE};

mod launch;
mod memory;
mod resources;

use launch::Programs;

/// Reads, validates and prepares the trace at `path`: parses the TOML (unknown keys are errors),
/// checks every value, assembles every launch's program, maps global memory (side files
/// memory-mapped copy-on-write) and marks sparse tiles, and fills the constant banks.
///
/// Side files (`file`, `code_file`) are relative to the trace's directory, and must lie inside
/// its directory tree (after resolving symbolic links): [`load_with`] allows more. Nothing runs.
///
/// The trace and its side files must be regular files (never a device or a FIFO); the trace is at
/// most [`MAX_TRACE_BYTES`] with at most [`MAX_TRACE_VALUES`] values, its programs' text at most
/// [`MAX_PROGRAM_BYTES`](super::MAX_PROGRAM_BYTES).
pub fn load(path: &Path) -> Result<Trace, TraceError> {
    load_with(path, &LoadOptions::default())
}

/// [`load`] with options: side files may also lie inside the directories of
/// [`LoadOptions::allow_paths`].
pub fn load_with(path: &Path, opts: &LoadOptions) -> Result<Trace, TraceError> {
    let bytes = files::read_limited(path, MAX_TRACE_BYTES, "a trace").map_err(|message| {
        TraceError::Unreadable(Diagnostic::file(
            path,
            format!("cannot read the trace: {message}"),
        ))
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let src = Source::new(path, String::from_utf8_lossy(e.as_bytes()).into_owned());
            return Err(TraceError::Syntax(
                src.at(&(at..at), "the trace is not UTF-8 text"),
            ));
        }
    };
    load_text_with(path, text, opts)
}

/// [`load`] of a trace whose text is already in memory (`path` names it in errors and is where
/// its side files are looked for).
pub fn load_text(path: &Path, text: String) -> Result<Trace, TraceError> {
    load_text_with(path, text, &LoadOptions::default())
}

/// [`load_text`] with options ([`load_with`]).
pub fn load_text_with(path: &Path, text: String, opts: &LoadOptions) -> Result<Trace, TraceError> {
    let src = Source::new(path, text);
    if let Some(at) = files::value_past_limit(&src.text, MAX_TRACE_VALUES) {
        return Err(src.invalid(
            &(at..at),
            format!(
                "the trace holds more than {MAX_TRACE_VALUES} values (array elements, keys and \
                 tables): put large data in a side file, `file = \"data.bin\"` (memory-mapped, \
                 never parsed)"
            ),
        ));
    }
    let raw: RawTrace = match toml::from_str(&src.text) {
        Ok(r) => r,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            let message = e.message().trim().replace('\n', "; ");
            let mut d = src.at(&span, message.as_str());
            d.notes.extend(unknown_key_suggestion(&message));
            return Err(TraceError::Syntax(d));
        }
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::new(),
    };
    let side = files::Confinement::new(&dir, &opts.allow_paths);
    Loader { src, side }.build(raw)
}

/// "Did you mean" for serde's `unknown field `adress`, expected one of `addr`, ...`: the
/// closest expected key.
fn unknown_key_suggestion(message: &str) -> Option<crate::diag::Note> {
    let rest = message.strip_prefix("unknown field `")?;
    let (word, expected) = rest.split_once('`')?;
    let keys: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    crate::diag::did_you_mean(word, keys)
}

/// The trace loader: the trace's text (for errors) and where its side files may be (relative to
/// its directory). Its parts: `load/memory.rs` (global memory, constants, expectations),
/// `load/resources.rs` (textures, buffers, their expectations), `load/launch.rs` (launches and their programs).
struct Loader {
    src: Source,
    side: files::Confinement,
}

/// A spanned value's value and span.
fn sp<T: Copy>(s: &Spanned<T>) -> (T, Range<usize>) {
    (*s.get_ref(), s.span())
}

/// A spanned 64-bit value's value and span.
fn sp64(s: &Spanned<U64>) -> (u64, Range<usize>) {
    (s.get_ref().0, s.span())
}

impl Loader {
    fn invalid(&self, span: &Range<usize>, message: impl Into<String>) -> TraceError {
        self.src.invalid(span, message)
    }

    fn line(&self, span: &Range<usize>) -> u32 {
        self.src.line_col(span.start).0
    }

    /// Validates everything, then hands the text over to the trace (for errors found later).
    fn build(self, raw: RawTrace) -> Result<Trace, TraceError> {
        if raw.format.get_ref() != FORMAT {
            return Err(self.invalid(
                &raw.format.span(),
                format!(
                    "unsupported trace format {:?}: expected {FORMAT:?}",
                    raw.format.get_ref()
                ),
            ));
        }

        let mut shared_window = warpjit_runtime::DEFAULT_SHARED_WINDOW;
        if let Some(w) = raw.machine.as_ref().and_then(|m| m.shared_window.as_ref()) {
            let (w, span) = sp64(w);
            if w % SHARED_WINDOW_SIZE != 0 {
                return Err(self.invalid(
                    &span,
                    format!("shared_window {w:#x} is not 16 MiB aligned (a multiple of {SHARED_WINDOW_SIZE:#x})"),
                ));
            }
            if w.saturating_add(SHARED_WINDOW_SIZE) > 1 << 32 {
                return Err(self.invalid(
                    &span,
                    format!("shared_window {w:#x}: the 16 MiB window must lie below 4 GiB (0x100000000)"),
                ));
            }
            shared_window = w;
        }
        let local_window = self.local_window(&raw, shared_window)?;
        let mut launch_budget = DEFAULT_LAUNCH_BUDGET;
        if let Some(b) = raw.machine.as_ref().and_then(|m| m.launch_budget.as_ref()) {
            let (n, span) = sp64(b);
            if n == 0 {
                return Err(
                    self.invalid(&span, "launch_budget must be at least 1 warp instruction")
                );
            }
            launch_budget = n;
        }
        let mut quantum = DEFAULT_QUANTUM;
        if let Some(q) = raw.machine.as_ref().and_then(|m| m.quantum.as_ref()) {
            let (n, span) = sp64(q);
            if n == 0 {
                return Err(self.invalid(&span, "quantum must be at least 1 warp instruction"));
            }
            quantum = n;
        }

        let (mut global, globals) = self.globals(&raw)?;
        let sparse = self.sparse(&raw, &mut global)?;
        let (consts, base_consts, bank0_covered) = self.consts(&raw)?;
        let textures = self.textures(&raw)?;
        let buffers = self.buffers(&raw, &textures)?;
        let samplers = self.samplers(&raw)?;

        let resources = self.resources(&raw, &textures, &buffers, &samplers)?;

        let mut launches = Vec::new();
        let mut programs = Programs::default();
        for (i, l) in raw.launch.iter().enumerate() {
            let bound = launch::Bound {
                textures: &textures,
                buffers: &buffers,
                samplers: &samplers,
            };
            launches.push(self.launch(i as u32, l, &mut programs, bound)?);
        }

        for (spec, l) in launches.iter().zip(&raw.launch) {
            self.check_params(spec, l, &consts)?;
        }
        self.module_data(&mut launches, &raw, &mut global)?;
        self.grid_workspace(&launches, &raw, &mut global)?;
        // A default local window on top of the trace's shared window matters only to a launch
        // with local memory.
        let explicit = raw.machine.as_ref().and_then(|m| m.local_window.as_ref());
        if explicit.is_none() && local_window == shared_window {
            if let Some(spec) = launches.iter().find(|s| s.local_bytes.unwrap_or(0) > 0) {
                let span = raw
                    .machine
                    .as_ref()
                    .and_then(|m| m.shared_window.as_ref())
                    .map_or(0..0, |w| w.span());
                return Err(self.invalid(
                    &span,
                    format!(
                        "shared_window {shared_window:#x} is the default local window, and launch {} \
                         has local memory: set [machine] local_window elsewhere",
                        spec.index
                    ),
                ));
            }
        }

        let expects = self.expects(&raw, &global)?;
        let expect_buffers = self.expect_buffers(&raw, &textures, &buffers)?;
        let expect_textures = self.expect_textures(&raw, &textures, &buffers)?;

        Ok(Trace {
            path: self.src.path.clone(),
            shared_window,
            local_window,
            globals,
            sparse,
            consts,
            textures,
            buffers,
            samplers,
            launches,
            expects,
            expect_buffers,
            expect_textures,
            machine: Machine {
                global,
                shared_window,
                local_window,
                launch_budget,
                resources,
                quantum,
                host_output: Default::default(),
            },
            base_consts,
            bank0_covered,
            source: self.src,
        })
    }

    /// Maps each cubin's `__device__` data (`.nv.global.init`, then `.nv.global`) into global
    /// memory, one module per cubin file in the order of their first launch, module `k` at
    /// [`MODULE_DATA_BASE`](super::MODULE_DATA_BASE) + `k` × 4 GiB, and gives each launch of it
    /// constant bank 4 with the data's addresses written where its relocations say. A trace
    /// segment in the way is an error at the launch's `code_file`.
    fn module_data(
        &self,
        launches: &mut [super::LaunchSpec],
        raw: &RawTrace,
        global: &mut warpjit_runtime::memory::GlobalMemory,
    ) -> Result<(), TraceError> {
        use warpjit_runtime::memory::Init;
        let mut modules: Vec<(PathBuf, u64, u64)> = Vec::new();
        for (spec, l) in launches.iter_mut().zip(&raw.launch) {
            let Some(b) = spec.binary.clone() else {
                continue;
            };
            let span = l.get_ref().code_file.as_ref().map_or(0..0, |f| f.span());
            if let Some(m) = &l.get_ref().module_data {
                // The trace maps the data image itself (a recording of warpjit's CUDA driver):
                // only bank 4 is made, for its address, and bank 3 is read from the image's
                // `.nv.constant3` at each launch.
                let base = sp64(m).0;
                let place = crate::cubin::DataPlacement::at(base, &b.module);
                let mut k = (*b).clone();
                k.banks.push((4, b.module.bank4(place.init, place.zeroed)));
                if k.banks.iter().any(|(bank, _)| *bank == 3) {
                    k.const3_at = base.checked_add(b.module.const3_offset());
                }
                spec.binary = Some(std::sync::Arc::new(k));
                continue;
            }
            if b.module.is_empty() {
                continue;
            }
            let found = modules.iter().find(|(p, _, _)| *p == spec.program_path);
            let (init, zeroed) = match found {
                Some(&(_, init, zeroed)) => (init, zeroed),
                None => {
                    let init = super::MODULE_DATA_BASE + ((modules.len() as u64) << 32);
                    let zeroed = init + (b.module.init.len() as u64).next_multiple_of(256);
                    let mut map = |base: u64, size: u64, data: Init<'_>| {
                        if size == 0 {
                            return Ok(());
                        }
                        global.map(base, size, data).map_err(|e| {
                            self.invalid(
                                &span,
                                format!(
                                    "the cubin's `__device__` data ({size:#x} bytes at {base:#x}): {e}"
                                ),
                            )
                        })
                    };
                    let m = &b.module;
                    let image = m.init_image(crate::cubin::DataPlacement { init, zeroed });
                    map(init, image.len() as u64, Init::Bytes(&image))?;
                    map(zeroed, m.zeroed, Init::Zero)?;
                    modules.push((spec.program_path.clone(), init, zeroed));
                    (init, zeroed)
                }
            };
            let mut k = (*b).clone();
            k.banks.push((4, b.module.bank4(init, zeroed)));
            spec.binary = Some(std::sync::Arc::new(k));
        }
        Ok(())
    }

    /// The grid workspace of cooperative launches (`[[launch]] cooperative = true`): when the
    /// trace has one, [`super::GRID_WORKSPACE_BYTES`] zeroed bytes at
    /// [`super::GRID_WORKSPACE`], which every cooperative launch finds in c\[0x0\]\[0x34\]
    /// (high word) and \[0x38\] (low word), as CUDA's driver gives it.
    fn grid_workspace(
        &self,
        launches: &[super::LaunchSpec],
        raw: &RawTrace,
        global: &mut warpjit_runtime::memory::GlobalMemory,
    ) -> Result<(), TraceError> {
        use warpjit_runtime::memory::Init;
        let first = launches
            .iter()
            .zip(&raw.launch)
            .find(|(s, _)| s.cooperative);
        let Some((_, l)) = first else { return Ok(()) };
        let span = l.get_ref().cooperative.as_ref().map_or(0..0, |c| c.span());
        let (base, size) = (super::GRID_WORKSPACE, super::GRID_WORKSPACE_BYTES);
        global.map(base, size, Init::Zero).map_err(|e| {
            self.invalid(
                &span,
                format!("the grid workspace of cooperative launches ({size:#x} bytes at {base:#x}): {e}"),
            )
        })
    }

    /// `[machine] local_window`: 16 MiB aligned, below 4 GiB, apart from the shared window.
    fn local_window(&self, raw: &RawTrace, shared_window: u64) -> Result<u64, TraceError> {
        let Some(w) = raw.machine.as_ref().and_then(|m| m.local_window.as_ref()) else {
            return Ok(warpjit_runtime::DEFAULT_LOCAL_WINDOW);
        };
        let (w, span) = sp64(w);
        if w % LOCAL_WINDOW_SIZE != 0 {
            return Err(self.invalid(
                &span,
                format!("local_window {w:#x} is not 16 MiB aligned (a multiple of {LOCAL_WINDOW_SIZE:#x})"),
            ));
        }
        if w.saturating_add(LOCAL_WINDOW_SIZE) > 1 << 32 {
            return Err(self.invalid(
                &span,
                format!(
                    "local_window {w:#x}: the 16 MiB window must lie below 4 GiB (0x100000000)"
                ),
            ));
        }
        if w < shared_window + SHARED_WINDOW_SIZE && shared_window < w + LOCAL_WINDOW_SIZE {
            return Err(self.invalid(
                &span,
                format!("local_window {w:#x} overlaps the shared window at {shared_window:#x}"),
            ));
        }
        Ok(w)
    }

    /// The one data key of a table, if any, with its span.
    fn data(&self, d: RawData<'_>) -> Result<Option<(Data, Range<usize>)>, TraceError> {
        let mut found: Vec<(DataKind, Range<usize>)> = Vec::new();
        if let Some(v) = d.u32 {
            found.push((DataKind::U32, v.span()));
        }
        if let Some(v) = d.i32 {
            found.push((DataKind::I32, v.span()));
        }
        if let Some(v) = d.f32 {
            found.push((DataKind::F32, v.span()));
        }
        if let Some(v) = d.u8 {
            found.push((DataKind::U8, v.span()));
        }
        if let Some(v) = d.file {
            found.push((DataKind::File, v.span()));
        }
        found.sort_by_key(|(_, s)| s.start);
        if let [(first, _), (second, span), ..] = found.as_slice() {
            return Err(self.invalid(
                span,
                format!(
                    "`{second}` conflicts with `{first}`: a table takes at most one of the data keys u32, i32, \
                     f32, u8, file"
                ),
            ));
        }
        let data = if let Some(v) = d.u32 {
            (Data::U32(v.get_ref().clone()), v.span())
        } else if let Some(v) = d.i32 {
            (Data::I32(v.get_ref().clone()), v.span())
        } else if let Some(v) = d.f32 {
            let floats = v.get_ref().iter().map(|x| self.float(x)).collect();
            (Data::F32(floats), v.span())
        } else if let Some(v) = d.u8 {
            (Data::U8(v.get_ref().clone()), v.span())
        } else if let Some(v) = d.file {
            let side = self.side_file(v)?;
            let (_, len) =
                files::open_side(&side).map_err(|message| self.invalid(&v.span(), message))?;
            (
                Data::File {
                    path: side.real,
                    len,
                },
                v.span(),
            )
        } else {
            return Ok(None);
        };
        Ok(Some(data))
    }

    /// A side file the trace names at `v` (`file`, `code_file`), resolved inside the allowed
    /// directories; an error at the value otherwise.
    fn side_file(&self, v: &Spanned<String>) -> Result<files::SidePath, TraceError> {
        self.side
            .resolve(v.get_ref())
            .map_err(|message| self.invalid(&v.span(), message))
    }

    /// An `f32` element: the float nearest to its decimal text (TOML gave it as an `f64`, which
    /// would round twice).
    fn float(&self, x: &Spanned<f64>) -> f32 {
        self.float_at(&x.span(), *x.get_ref())
    }

    /// The float nearest to the decimal text at `span` of the trace, whose value TOML gave as
    /// `value` (an integer's text reads as the same number).
    fn float_at(&self, span: &Range<usize>, value: f64) -> f32 {
        let text: String = self
            .src
            .text
            .get(span.clone())
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '_')
            .collect();
        match text.as_str() {
            "nan" | "+nan" => f32::from_bits(0x7fc0_0000),
            "-nan" => f32::from_bits(0xffc0_0000),
            t => t.parse::<f32>().unwrap_or(value as f32),
        }
    }
}
