//! Loading global memory (`[[global]]`, `[[sparse]]`), the constant banks (`[[const]]`) and
//! the expectations on memory (`[[expect]]`).

use super::{sp, sp64, Loader};
use crate::tracefile::files;
use crate::tracefile::schema::{HasData, RawConst, RawGlobal, RawTrace};
use crate::tracefile::{ConstData, Data, Expect, GlobalSegment, SparseRegion, TraceError};
use std::ops::Range;
use toml::Spanned;
use warpjit_runtime::consts::{BANKS, BANK_SIZE};
use warpjit_runtime::memory::Init;
use warpjit_runtime::{ConstBanks, GlobalMemory, MemError};

impl Loader {
    /// `[[global]]`: checks every segment, then maps them in address order (so that mapping
    /// 10^5 segments stays fast).
    pub(super) fn globals(
        &self,
        raw: &RawTrace,
    ) -> Result<(GlobalMemory, Vec<GlobalSegment>), TraceError> {
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
            let uninitialized = match &g.get_ref().uninitialized {
                Some(u) if *u.get_ref() && data.is_some() => {
                    return Err(self.invalid(
                        &u.span(),
                        "an `uninitialized` segment holds no data: give it a `size` only",
                    ))
                }
                Some(u) => *u.get_ref(),
                None => false,
            };
            globals.push(GlobalSegment {
                addr,
                size,
                data: data.map(|(d, _)| d),
                uninitialized,
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
                    let (f, _) = files::open_resolved(path)
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
    pub(super) fn segment_size(
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
    pub(super) fn sparse(
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
    pub(super) fn expects(
        &self,
        raw: &RawTrace,
        global: &GlobalMemory,
    ) -> Result<Vec<Expect>, TraceError> {
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

    /// `[[const]]`: the trace's constant data, the banks it fills, and which bytes of bank 0's
    /// first 0x100 it covers.
    #[allow(clippy::type_complexity)]
    pub(super) fn consts(
        &self,
        raw: &RawTrace,
    ) -> Result<(Vec<ConstData>, ConstBanks, [bool; 0x100]), TraceError> {
        let mut banks = ConstBanks::new();
        let mut covered = [false; 0x100];
        let mut consts: Vec<ConstData> = Vec::new();
        for c in &raw.consts {
            let data = self.const_table(c, &consts, "[[const]]")?;
            if banks.write(data.bank, data.offset, &data.bytes).is_none() {
                let span = c.get_ref().offset.as_ref().map_or(c.span(), |o| o.span());
                return Err(self.invalid(&span, "the data does not fit in the bank"));
            }
            if data.bank == 0 {
                let end = data.offset as u64 + data.bytes.len() as u64;
                for a in data.offset as u64..end.min(0x100) {
                    covered[a as usize] = true;
                }
            }
            consts.push(data);
        }
        Ok((consts, banks, covered))
    }

    /// One `[[const]]` (or `[[launch.const]]`, as `table` names it) table, checked: a bank that
    /// exists, a data key, the data inside the bank, and no byte also given by one of `others`
    /// (the tables of the same scope before it).
    pub(super) fn const_table(
        &self,
        c: &Spanned<RawConst>,
        others: &[ConstData],
        table: &str,
    ) -> Result<ConstData, TraceError> {
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
                format!("{table} needs one of the data keys u32, i32, f32, u8, file"),
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
        if let Some(o) = others.iter().find(|o| {
            o.bank == bank && (o.offset as u64) < end && offset < o.offset + o.bytes.len() as u32
        }) {
            return Err(self.invalid(
                &offset_span,
                format!(
                    "c[{bank:#x}][{offset:#x}..{end:#x}] overlaps the {table} at line {} (c[{bank:#x}][{:#x}..{:#x}])",
                    o.line,
                    o.offset,
                    o.offset as u64 + o.bytes.len() as u64
                ),
            ));
        }
        Ok(ConstData {
            bank,
            offset,
            bytes,
            line: self.line(&c.span()),
        })
    }
}
