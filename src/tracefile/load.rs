//! Reading and validating a trace file.

use super::code::{value_offset, StringMap};
use super::error::Source;
use super::files::{self, MAX_PROGRAM_BYTES, MAX_TRACE_BYTES, MAX_TRACE_VALUES};
use super::schema::{HasData, RawData, RawGlobal, RawLaunch, RawRegData, RawTrace, U64};
use super::{
    formats, Buffer, ConstData, Data, DataKind, Expect, GlobalSegment, LaunchSpec, SparseRegion,
    Texture, TextureDim, Trace, TraceError, View, FORMAT, MAX_BLOCK, MAX_GRID, MAX_SHARED_BYTES,
    MAX_THREADS_PER_CTA,
};
use crate::diag::{Diagnostic, Location};
use crate::exec::{Machine, DEFAULT_BUDGET, DEFAULT_LAUNCH_BUDGET, MAX_LAUNCH_THREADS};
use crate::frontend;
use crate::ir::{Isa, Program};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;
use warpjit_runtime::consts::{BANKS, BANK_SIZE};
use warpjit_runtime::memory::Init;
use warpjit_runtime::{BankMode, ConstBanks, GlobalMemory, MemError, SHARED_WINDOW_SIZE};

/// Reads, validates and prepares the trace at `path`: parses the TOML (unknown keys are errors),
/// checks every value, assembles every launch's program, maps global memory (side files
/// memory-mapped copy-on-write) and marks sparse tiles, and fills the constant banks.
///
/// Side files (`file`, `code_file`) are relative to the trace's directory. Nothing runs.
///
/// The trace and its side files must be regular files (never a device or a FIFO); the trace is at
/// most [`MAX_TRACE_BYTES`] with at most [`MAX_TRACE_VALUES`] values, its programs' text at most
/// [`MAX_PROGRAM_BYTES`].
pub fn load(path: &Path) -> Result<Trace, TraceError> {
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
    Cx { src, dir }.build(raw)
}

/// "Did you mean" for serde's `unknown field `adress`, expected one of `addr`, ...`: the
/// closest expected key.
fn unknown_key_suggestion(message: &str) -> Option<crate::diag::Note> {
    let rest = message.strip_prefix("unknown field `")?;
    let (word, expected) = rest.split_once('`')?;
    let keys: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    crate::diag::did_you_mean(word, keys)
}

/// What validation needs: the text (for errors) and the directory side files are relative to.
struct Cx {
    src: Source,
    dir: PathBuf,
}

/// What makes two launches' programs the same: from a `code_file`, the `code` text or
/// `code_file` value, `isa`, `registers`.
type ProgramKey = (bool, String, Isa, u32);

/// The programs a trace's launches assembled so far.
#[derive(Default)]
struct Programs {
    /// By (from a `code_file`, the `code` text or `code_file` value, `isa`, `registers`).
    done: HashMap<ProgramKey, (Arc<Program>, PathBuf)>,
    /// Bytes of the distinct texts assembled.
    bytes: u64,
}

/// A spanned value's value and span.
fn sp<T: Copy>(s: &Spanned<T>) -> (T, Range<usize>) {
    (*s.get_ref(), s.span())
}

/// A spanned 64-bit value's value and span.
fn sp64(s: &Spanned<U64>) -> (u64, Range<usize>) {
    (s.get_ref().0, s.span())
}

impl Cx {
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

        let (mut global, globals) = self.globals(&raw)?;
        let sparse = self.sparse(&raw, &mut global)?;
        let (consts, base_consts, bank0_covered) = self.consts(&raw)?;
        let textures = self.textures(&raw)?;
        let buffers = self.buffers(&raw, &textures)?;

        let mut launches = Vec::new();
        let mut programs = Programs::default();
        for (i, l) in raw.launch.iter().enumerate() {
            launches.push(self.launch(i as u32, l, &mut programs)?);
        }

        let expects = self.expects(&raw, &global)?;
        self.expect_buffers(&raw)?;

        Ok(Trace {
            path: self.src.path.clone(),
            shared_window,
            globals,
            sparse,
            consts,
            textures,
            buffers,
            launches,
            expects,
            machine: Machine {
                global,
                shared_window,
                launch_budget,
            },
            base_consts,
            bank0_covered,
            source: self.src,
        })
    }

    /// `[[global]]`: checks every segment, then maps them in address order (so that mapping
    /// 10^5 segments stays fast).
    fn globals(&self, raw: &RawTrace) -> Result<(GlobalMemory, Vec<GlobalSegment>), TraceError> {
        let mut globals = Vec::with_capacity(raw.global.len());
        let mut spans = Vec::with_capacity(raw.global.len());
        for g in &raw.global {
            let (addr, addr_span) = sp64(&g.get_ref().addr);
            let data = self.data(g.get_ref().data())?;
            let size = self.segment_size(g, &data)?;
            // A segment may end exactly at 2^64: its last byte must not wrap.
            if size == 0 || addr.checked_add(size - 1).is_none() {
                let e = MemError::BadRange { base: addr, size };
                return Err(self.invalid(&addr_span, e.to_string()));
            }
            if matches!(data, Some((Data::File { .. }, _))) && addr % 16 != 0 {
                let e = MemError::FileUnaligned { base: addr, size };
                return Err(self.invalid(&addr_span, e.to_string()));
            }
            globals.push(GlobalSegment {
                addr,
                size,
                data: data.map(|(d, _)| d),
                line: self.line(&g.span()),
            });
            spans.push(addr_span);
        }
        // Sorted by address, two segments overlap only if two neighbours do. Of the overlapping
        // neighbours, report the pair whose later table comes first in the file.
        let mut order: Vec<usize> = (0..globals.len()).collect();
        order.sort_by_key(|&i| (globals[i].addr, i));
        let overlap = order
            .windows(2)
            .filter(|w| globals[w[0]].addr + globals[w[0]].size > globals[w[1]].addr)
            .map(|w| (w[0].max(w[1]), w[0].min(w[1])))
            .min();
        if let Some((later, earlier)) = overlap {
            let (g, o) = (&globals[later], &globals[earlier]);
            let e = MemError::Overlap {
                base: g.addr,
                size: g.size,
                other: o.addr,
                other_size: o.size,
            };
            return Err(self.invalid(&spans[later], e.to_string()));
        }
        let mut global = GlobalMemory::new();
        for &i in &order {
            let g = &globals[i];
            let mapped = match &g.data {
                None => global.map(g.addr, g.size, Init::Zero),
                Some(Data::File { path, .. }) => {
                    let (f, _) = files::open_regular(path)
                        .map_err(|message| self.invalid(&spans[i], message))?;
                    global.map(g.addr, g.size, Init::File(&f))
                }
                Some(d) => {
                    let bytes = d
                        .to_bytes()
                        .map_err(|e| self.invalid(&spans[i], e.to_string()))?;
                    global.map(g.addr, g.size, Init::Bytes(&bytes))
                }
            };
            mapped.map_err(|e| self.invalid(&spans[i], e.to_string()))?;
        }
        Ok((global, globals))
    }

    /// A segment's size: `size` (at least the data's length), else the data's length.
    fn segment_size(
        &self,
        g: &Spanned<RawGlobal>,
        data: &Option<(Data, Range<usize>)>,
    ) -> Result<u64, TraceError> {
        let len = data.as_ref().map(|(d, _)| d.byte_len());
        let Some(s) = &g.get_ref().size else {
            return match (len, data) {
                (Some(len), _) if len > 0 => Ok(len),
                (_, Some((_, span))) => {
                    Err(self.invalid(span, "the data is empty: give the segment a `size`"))
                }
                _ => Err(self.invalid(
                    &g.span(),
                    "[[global]] needs a `size` or one of the data keys u32, i32, f32, u8, file",
                )),
            };
        };
        let (size, span) = sp64(s);
        if let Some(len) = len.filter(|&l| l > size) {
            let message = format!("size {size:#x} is smaller than the data ({len:#x} bytes)");
            return Err(self.invalid(&span, message));
        }
        if size == 0 {
            return Err(self.invalid(&span, "size must be at least 1"));
        }
        Ok(size)
    }

    /// `[[sparse]]`: marks the regions non-resident.
    fn sparse(
        &self,
        raw: &RawTrace,
        global: &mut GlobalMemory,
    ) -> Result<Vec<SparseRegion>, TraceError> {
        let mut sparse = Vec::new();
        for s in &raw.sparse {
            let (addr, span) = sp64(&s.get_ref().addr);
            let (size, _) = sp64(&s.get_ref().size);
            global
                .mark_sparse(addr, size)
                .map_err(|e| self.invalid(&span, e.to_string()))?;
            sparse.push(SparseRegion { addr, size });
        }
        Ok(sparse)
    }

    /// `[[expect]]`: each needs a data key and must lie in mapped memory.
    fn expects(&self, raw: &RawTrace, global: &GlobalMemory) -> Result<Vec<Expect>, TraceError> {
        let mut expects = Vec::new();
        for (index, e) in raw.expect.iter().enumerate() {
            let (addr, span) = sp64(&e.get_ref().addr);
            let Some((data, data_span)) = self.data(e.get_ref().data())? else {
                return Err(self.invalid(
                    &e.span(),
                    "[[expect]] needs one of the data keys u32, i32, f32, u8, file",
                ));
            };
            let len = data.byte_len();
            if len == 0 {
                return Err(self.invalid(
                    &data_span,
                    "the expected data is empty: an expectation must check at least one byte",
                ));
            }
            if !global.covers(addr, len) {
                return Err(self.invalid(&span, MemError::Unmapped { addr, len }.to_string()));
            }
            expects.push(Expect {
                index,
                addr,
                data,
                line: self.line(&e.span()),
                span,
            });
        }
        Ok(expects)
    }

    /// `[[expect_buffer]]`: checked structurally, then refused (DXBC outputs do not exist yet).
    fn expect_buffers(&self, raw: &RawTrace) -> Result<(), TraceError> {
        for b in &raw.expect_buffer {
            let b = b.get_ref();
            let view = self.view(&b.view)?;
            self.slot(&b.slot, view)?;
            if self.data(b.data())?.is_none() {
                return Err(self.invalid(
                    &b.slot.span(),
                    "[[expect_buffer]] needs one of the data keys u32, i32, f32, u8, file",
                ));
            }
        }
        if let Some(b) = raw.expect_buffer.first() {
            return Err(self.src.unsupported(
                &b.span(),
                "DXBC outputs are not supported yet: [[expect_buffer]] checks a buffer that only DXBC \
                 programs write",
            ));
        }
        Ok(())
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
            let path = self.dir.join(v.get_ref());
            let (_, len) =
                files::open_regular(&path).map_err(|message| self.invalid(&v.span(), message))?;
            (Data::File { path, len }, v.span())
        } else {
            return Ok(None);
        };
        Ok(Some(data))
    }

    /// An `f32` element: the float nearest to its decimal text (TOML gave it as an `f64`, which
    /// would round twice).
    fn float(&self, x: &Spanned<f64>) -> f32 {
        let text: String = self
            .src
            .text
            .get(x.span())
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '_')
            .collect();
        match text.as_str() {
            "nan" | "+nan" => f32::from_bits(0x7fc0_0000),
            "-nan" => f32::from_bits(0xffc0_0000),
            t => t.parse::<f32>().unwrap_or(*x.get_ref() as f32),
        }
    }

    #[allow(clippy::type_complexity)]
    fn consts(
        &self,
        raw: &RawTrace,
    ) -> Result<(Vec<ConstData>, ConstBanks, [bool; 0x100]), TraceError> {
        let mut banks = ConstBanks::new();
        let mut covered = [false; 0x100];
        let mut consts: Vec<ConstData> = Vec::new();
        for c in &raw.consts {
            let t = c.get_ref();
            let (bank, bank_span) = sp(&t.bank);
            if bank as usize >= BANKS {
                return Err(self.invalid(
                    &bank_span,
                    format!(
                        "bank {bank} does not exist: there are {BANKS} constant banks (0 to {})",
                        BANKS - 1
                    ),
                ));
            }
            let (offset, offset_span) = t.offset.as_ref().map_or((0, bank_span.clone()), sp);
            let Some((data, data_span)) = self.data(t.data())? else {
                return Err(self.invalid(
                    &c.span(),
                    "[[const]] needs one of the data keys u32, i32, f32, u8, file",
                ));
            };
            let len = data.byte_len();
            if offset as u64 + len > BANK_SIZE as u64 {
                return Err(self.invalid(
                    &offset_span,
                    format!(
                        "{len:#x} bytes at offset {offset:#x} run past the end of the 64 KiB bank (0x10000)"
                    ),
                ));
            }
            let bytes = data
                .to_bytes()
                .map_err(|e| self.invalid(&data_span, e.to_string()))?;
            let end = offset as u64 + bytes.len() as u64;
            if let Some(o) = consts.iter().find(|o| {
                o.bank == bank
                    && (o.offset as u64) < end
                    && offset < o.offset + o.bytes.len() as u32
            }) {
                return Err(self.invalid(
                    &offset_span,
                    format!(
                        "c[{bank:#x}][{offset:#x}..{end:#x}] overlaps the [[const]] at line {} (c[{bank:#x}][{:#x}..{:#x}])",
                        o.line,
                        o.offset,
                        o.offset as u64 + o.bytes.len() as u64
                    ),
                ));
            }
            if banks.write(bank, offset, &bytes).is_none() {
                return Err(self.invalid(&offset_span, "the data does not fit in the bank"));
            }
            if bank == 0 {
                for a in offset as u64..end.min(0x100) {
                    covered[a as usize] = true;
                }
            }
            consts.push(ConstData {
                bank,
                offset,
                bytes,
                line: self.line(&c.span()),
            });
        }
        Ok((consts, banks, covered))
    }

    fn view(&self, v: &Option<Spanned<String>>) -> Result<View, TraceError> {
        match v {
            None => Ok(View::Uav),
            Some(v) => match v.get_ref().as_str() {
                "uav" => Ok(View::Uav),
                "srv" => Ok(View::Srv),
                other => Err(self.invalid(
                    &v.span(),
                    format!("unknown view {other:?}: expected \"uav\" or \"srv\""),
                )),
            },
        }
    }

    fn slot(&self, s: &Spanned<u32>, view: View) -> Result<u32, TraceError> {
        let (slot, span) = sp(s);
        let (max, reg) = match view {
            View::Srv => (128, "t#"),
            View::Uav => (64, "u#"),
        };
        if slot >= max {
            return Err(self.invalid(
                &span,
                format!(
                    "slot {slot} is out of range: {reg} slots are 0 to {}",
                    max - 1
                ),
            ));
        }
        Ok(slot)
    }

    fn textures(&self, raw: &RawTrace) -> Result<Vec<Texture>, TraceError> {
        let mut out: Vec<Texture> = Vec::new();
        for t in &raw.texture {
            let line = self.line(&t.span());
            let t = t.get_ref();
            let slot = self.slot(&t.slot, View::Srv)?;
            if let Some(o) = out.iter().find(|o| o.slot == slot) {
                return Err(self.invalid(
                    &t.slot.span(),
                    format!(
                        "t{slot} is already bound by the [[texture]] at line {}",
                        o.line
                    ),
                ));
            }
            let dim = match t.dim.get_ref().as_str() {
                "2dms" => TextureDim::Ms2d,
                "2dmsarray" => TextureDim::Ms2dArray,
                other => {
                    return Err(self.invalid(
                        &t.dim.span(),
                        format!("unknown dim {other:?}: expected \"2dms\" or \"2dmsarray\""),
                    ))
                }
            };
            let Some((format, element_bytes)) = formats::lookup(t.format.get_ref()) else {
                return Err(self.invalid(
                    &t.format.span(),
                    format!(
                        "unknown format {:?}: expected an uncompressed DXGI format name such as \"R32G32B32A32_UINT\"",
                        t.format.get_ref()
                    ),
                ));
            };
            for (v, key) in [(&t.width, "width"), (&t.height, "height")] {
                let (n, span) = sp(v);
                if !(1..=16384).contains(&n) {
                    return Err(
                        self.invalid(&span, format!("{key} {n} is out of range 1 to 16384"))
                    );
                }
            }
            let (samples, span) = sp(&t.samples);
            if !(samples.is_power_of_two() && samples <= 32) {
                return Err(self.invalid(
                    &span,
                    format!("samples {samples}: expected 1, 2, 4, 8, 16 or 32"),
                ));
            }
            let array_size = match &t.array_size {
                None => 1,
                Some(a) => {
                    let (n, span) = sp(a);
                    if !(1..=2048).contains(&n) {
                        return Err(self
                            .invalid(&span, format!("array_size {n} is out of range 1 to 2048")));
                    }
                    if n != 1 && dim == TextureDim::Ms2d {
                        return Err(self.invalid(
                            &span,
                            "a \"2dms\" texture has array_size 1; use dim = \"2dmsarray\"",
                        ));
                    }
                    n
                }
            };
            let data = self.data(t.data())?;
            let capacity = *t.width.get_ref() as u64
                * *t.height.get_ref() as u64
                * samples as u64
                * array_size as u64
                * element_bytes as u64;
            if let Some((d, span)) = &data {
                if d.byte_len() > capacity {
                    return Err(self.invalid(
                        span,
                        format!(
                            "the data ({} bytes) is larger than the texture ({capacity} bytes)",
                            d.byte_len()
                        ),
                    ));
                }
            }
            out.push(Texture {
                slot,
                dim,
                format: format.to_string(),
                element_bytes,
                width: *t.width.get_ref(),
                height: *t.height.get_ref(),
                samples,
                array_size,
                data: data.map(|(d, _)| d),
                line,
            });
        }
        Ok(out)
    }

    fn buffers(&self, raw: &RawTrace, textures: &[Texture]) -> Result<Vec<Buffer>, TraceError> {
        let mut out: Vec<Buffer> = Vec::new();
        for b in &raw.buffer {
            let line = self.line(&b.span());
            let t = b.get_ref();
            let view = self.view(&t.view)?;
            let slot = self.slot(&t.slot, view)?;
            let clash = out
                .iter()
                .find(|o| o.view == view && o.slot == slot)
                .map(|o| o.line);
            let clash = clash.or_else(|| {
                textures
                    .iter()
                    .find(|o| view == View::Srv && o.slot == slot)
                    .map(|o| o.line)
            });
            if let Some(l) = clash {
                let reg = if view == View::Srv { "t" } else { "u" };
                return Err(self.invalid(
                    &t.slot.span(),
                    format!("{reg}{slot} is already bound at line {l}"),
                ));
            }
            let (stride, stride_span) = sp(&t.stride);
            if stride % 4 != 0 || !(4..=2048).contains(&stride) {
                return Err(self.invalid(
                    &stride_span,
                    format!("stride {stride}: expected a multiple of 4 from 4 to 2048"),
                ));
            }
            let data = self.data(t.data())?;
            let len = data.as_ref().map(|(d, _)| d.byte_len());
            let (size, span) =
                match (&t.size, len) {
                    (Some(s), len) => {
                        let (size, span) = sp64(s);
                        if let Some(len) = len.filter(|&l| l > size) {
                            return Err(self.invalid(
                                &span,
                                format!("size {size} is smaller than the data ({len} bytes)"),
                            ));
                        }
                        (size, span)
                    }
                    (None, Some(len)) => (len, data.as_ref().map_or(b.span(), |(_, s)| s.clone())),
                    (None, None) => return Err(self.invalid(
                        &b.span(),
                        "[[buffer]] needs a `size` or one of the data keys u32, i32, f32, u8, file",
                    )),
                };
            if size == 0 || size % stride as u64 != 0 {
                return Err(self.invalid(
                    &span,
                    format!(
                        "buffer size {size} is not a non-zero multiple of the stride ({stride})"
                    ),
                ));
            }
            out.push(Buffer {
                slot,
                view,
                stride,
                size,
                data: data.map(|(d, _)| d),
                line,
            });
        }
        Ok(out)
    }

    /// Grid or block dimensions: 1 to 3 components, each at least 1 and at most `max`.
    fn dims(
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

    fn launch(
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
    fn reg_data(&self, r: &Spanned<RawRegData>) -> Result<(), TraceError> {
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
    fn program(
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
    fn assemble(
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
    fn inline_program_error(&self, code: &Spanned<String>, mut d: Diagnostic) -> Diagnostic {
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
