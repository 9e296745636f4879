//! Loading the resources a graphics ISA reads: `[[texture]]`, `[[buffer]]` (views and slots),
//! and `[[expect_buffer]]` (checked, then refused).

use super::{sp, sp64, Loader};
use crate::tracefile::schema::{HasData, RawTrace};
use crate::tracefile::{formats, Buffer, Texture, TextureDim, TraceError, View};
use toml::Spanned;

impl Loader {
    /// `[[expect_buffer]]`: checked structurally, then refused (DXBC outputs do not exist yet).
    pub(super) fn expect_buffers(&self, raw: &RawTrace) -> Result<(), TraceError> {
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

    pub(super) fn view(&self, v: &Option<Spanned<String>>) -> Result<View, TraceError> {
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

    pub(super) fn slot(&self, s: &Spanned<u32>, view: View) -> Result<u32, TraceError> {
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

    pub(super) fn textures(&self, raw: &RawTrace) -> Result<Vec<Texture>, TraceError> {
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

    pub(super) fn buffers(
        &self,
        raw: &RawTrace,
        textures: &[Texture],
    ) -> Result<Vec<Buffer>, TraceError> {
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
}
