//! Loading the resources a graphics ISA reads: `[[texture]]` and `[[buffer]]` (views, slots,
//! kinds, sizes), and the expectations on them, `[[expect_buffer]]` and `[[expect_texture]]`.

use super::{sp, sp64, Loader};
use crate::tracefile::files;
use crate::tracefile::schema::{HasData, RawExpectResource, RawTrace};
use crate::tracefile::{
    formats, Buffer, BufferKind, Data, ExpectResource, Sampler, Texture, TextureDim, TraceError,
    View, MAX_RESOURCE_BYTES,
};
use std::ops::Range;
use toml::Spanned;
use warpjit_runtime::resource::Resources;

/// The data keys, for messages.
const DATA_KEYS: &str = "u32, i32, f32, u8, file";

/// Which expectation table: `[[expect_buffer]]` or `[[expect_texture]]`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Buffer,
    Texture,
}

impl Target {
    fn table(self) -> &'static str {
        match self {
            Target::Buffer => "[[expect_buffer]]",
            Target::Texture => "[[expect_texture]]",
        }
    }
}

impl Loader {
    /// A `view` value; `default` when absent.
    pub(super) fn view(
        &self,
        v: &Option<Spanned<String>>,
        default: View,
    ) -> Result<View, TraceError> {
        match v {
            None => Ok(default),
            Some(v) => match v.get_ref().as_str() {
                "uav" => Ok(View::Uav),
                "srv" => Ok(View::Srv),
                other => Err(self.invalid(
                    &v.span(),
                    format!("unknown view {other:?}: expected \"srv\" (t#) or \"uav\" (u#)"),
                )),
            },
        }
    }

    /// A `slot` value, in range for its view.
    pub(super) fn slot(&self, s: &Spanned<u32>, view: View) -> Result<u32, TraceError> {
        let (slot, span) = sp(s);
        if slot >= view.slots() {
            return Err(self.invalid(
                &span,
                format!(
                    "slot {slot} is out of range: {}# slots are 0 to {}",
                    view.register(),
                    view.slots() - 1
                ),
            ));
        }
        Ok(slot)
    }

    /// The line of the texture or buffer already bound to `slot` of `view`, if any.
    fn bound(
        &self,
        view: View,
        slot: u32,
        textures: &[Texture],
        buffers: &[Buffer],
    ) -> Option<(u32, &'static str)> {
        let t = textures
            .iter()
            .find(|o| o.view == view && o.slot == slot)
            .map(|o| (o.line, "[[texture]]"));
        t.or_else(|| {
            buffers
                .iter()
                .find(|o| o.view == view && o.slot == slot)
                .map(|o| (o.line, "[[buffer]]"))
        })
    }

    /// A `format` value: its canonical name and element size.
    fn format(&self, f: &Spanned<String>) -> Result<(&'static str, u32), TraceError> {
        let found = self.known_format(f)?;
        if warpjit_runtime::format::Format::from_name(found.0).is_none() {
            return Err(self.src.unsupported(
                &f.span(),
                format!(
                    "format {} is not supported yet: warpjit converts the UNORM, SNORM, UINT, \
                     SINT and FLOAT formats, not typeless or sRGB ones",
                    found.0
                ),
            ));
        }
        Ok(found)
    }

    /// A `format` value naming a DXGI format: its canonical name and element size.
    fn known_format(&self, f: &Spanned<String>) -> Result<(&'static str, u32), TraceError> {
        formats::lookup(f.get_ref()).ok_or_else(|| {
            let mut d = self.src.at(
                &f.span(),
                format!(
                    "unknown format {:?}: expected an uncompressed DXGI format name such as \
                     \"R32G32B32A32_UINT\"",
                    f.get_ref()
                ),
            );
            d.notes
                .extend(crate::diag::did_you_mean(f.get_ref(), formats::names()));
            TraceError::Invalid(d)
        })
    }

    /// `[[texture]]`.
    pub(super) fn textures(&self, raw: &RawTrace) -> Result<Vec<Texture>, TraceError> {
        let mut out: Vec<Texture> = Vec::new();
        for t in &raw.texture {
            let tspan = t.span();
            let line = self.line(&tspan);
            let t = t.get_ref();
            let view = self.view(&t.view, View::Srv)?;
            let slot = self.slot(&t.slot, view)?;
            if let Some((l, table)) = self.bound(view, slot, &out, &[]) {
                return Err(self.invalid(
                    &t.slot.span(),
                    format!(
                        "{}{slot} is already bound by the {table} at line {l}",
                        view.register()
                    ),
                ));
            }
            let Some(dim) = TextureDim::named(t.dim.get_ref()) else {
                let mut d = self.src.at(
                    &t.dim.span(),
                    format!(
                        "unknown dim {:?}: expected \"1d\", \"1darray\", \"2d\", \"2darray\", \
                         \"2dms\", \"2dmsarray\", \"3d\", \"cube\" or \"cubearray\"",
                        t.dim.get_ref()
                    ),
                );
                d.notes.extend(crate::diag::did_you_mean(
                    t.dim.get_ref(),
                    TextureDim::ALL.iter().map(|d| d.name()),
                ));
                return Err(TraceError::Invalid(d));
            };
            let uav_dim = matches!(
                dim,
                TextureDim::Tex1d
                    | TextureDim::Tex1dArray
                    | TextureDim::Tex2d
                    | TextureDim::Tex2dArray
                    | TextureDim::Tex3d
            );
            if view == View::Uav && !uav_dim {
                return Err(self.invalid(
                    &t.dim.span(),
                    format!(
                        "a \"{}\" texture cannot be a \"uav\": Direct3D has no multisample or cube \
                         UAVs (a uav texture is \"1d\", \"1darray\", \"2d\", \"2darray\" or \"3d\")",
                        dim.name()
                    ),
                ));
            }
            let (format, element_bytes) = self.format(&t.format)?;
            let (width, span) = sp(&t.width);
            if !(1..=16384).contains(&width) {
                return Err(
                    self.invalid(&span, format!("width {width} is out of range 1 to 16384"))
                );
            }
            let one_d = matches!(dim, TextureDim::Tex1d | TextureDim::Tex1dArray);
            let cube = matches!(dim, TextureDim::Cube | TextureDim::CubeArray);
            let height = match &t.height {
                None if one_d => 1,
                None if cube => width,
                None => {
                    return Err(self.invalid(
                        &tspan,
                        format!("a \"{}\" texture needs `height`", dim.name()),
                    ))
                }
                Some(h) => {
                    let (n, span) = sp(h);
                    if one_d {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "`height` is for 2D, 3D and cube textures; a \"{}\" texture is one \
                                 texel high",
                                dim.name()
                            ),
                        ));
                    }
                    if !(1..=16384).contains(&n) {
                        return Err(
                            self.invalid(&span, format!("height {n} is out of range 1 to 16384"))
                        );
                    }
                    if cube && n != width {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "a cube's faces are square: height {n} differs from width {width} \
                                 (leave `height` out)"
                            ),
                        ));
                    }
                    n
                }
            };
            let depth = match &t.depth {
                None if dim == TextureDim::Tex3d => {
                    return Err(self.invalid(&tspan, "a \"3d\" texture needs `depth`"))
                }
                None => 1,
                Some(d) => {
                    let (n, span) = sp(d);
                    if dim != TextureDim::Tex3d {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "`depth` is for \"3d\" textures; use `array_size` for the slices of \
                                 an array (this texture is \"{}\")",
                                dim.name()
                            ),
                        ));
                    }
                    if !(1..=2048).contains(&n) {
                        return Err(
                            self.invalid(&span, format!("depth {n} is out of range 1 to 2048"))
                        );
                    }
                    n
                }
            };
            let samples = match &t.samples {
                None => 1,
                Some(s) => {
                    let (samples, span) = sp(s);
                    // Direct3D's description always carries a sample count: 1 fits every dim.
                    if !dim.is_ms() && samples != 1 {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "samples {samples}: `samples` above 1 is for multisample textures \
                                 (\"2dms\", \"2dmsarray\"); a \"{}\" texture has one sample",
                                dim.name()
                            ),
                        ));
                    }
                    if !(samples.is_power_of_two() && samples <= 32) {
                        return Err(self.invalid(
                            &span,
                            format!("samples {samples}: expected 1, 2, 4, 8, 16 or 32"),
                        ));
                    }
                    samples
                }
            };
            let array_size = match &t.array_size {
                None => 1,
                Some(a) => {
                    let (n, span) = sp(a);
                    // Direct3D's description always carries an array size, 1 for a single
                    // texture: 1 fits every dim.
                    if !dim.is_array() && n != 1 {
                        let array = match dim {
                            TextureDim::Tex1d => "1darray",
                            TextureDim::Ms2d => "2dmsarray",
                            TextureDim::Cube => "cubearray",
                            _ => "2darray",
                        };
                        let what = if dim == TextureDim::Tex3d {
                            "a \"3d\" texture has `depth` slices, not an array".to_string()
                        } else {
                            format!(
                                "a \"{}\" texture has one slice (use dim = \"{array}\")",
                                dim.name()
                            )
                        };
                        return Err(self.invalid(
                            &span,
                            format!(
                                "array_size {n}: `array_size` above 1 is for texture arrays; {what}"
                            ),
                        ));
                    }
                    let max = if dim == TextureDim::CubeArray {
                        341
                    } else {
                        2048
                    };
                    if !(1..=max).contains(&n) {
                        let unit = if dim == TextureDim::CubeArray {
                            " (cubes: 6 faces each, 2048 faces at most)"
                        } else {
                            ""
                        };
                        return Err(self.invalid(
                            &span,
                            format!("array_size {n} is out of range 1 to {max}{unit}"),
                        ));
                    }
                    n
                }
            };
            let chain = warpjit_runtime::resource::TextureShape {
                depth,
                ..warpjit_runtime::resource::TextureShape::new(dim.runtime(), width, height, 1, 1)
            }
            .full_chain();
            let mips = match &t.mip_levels {
                None => 1,
                Some(m) => {
                    let (n, span) = sp(m);
                    if dim.is_ms() && n != 1 {
                        return Err(self.invalid(
                            &span,
                            format!("a multisample texture has one mip level, not {n}"),
                        ));
                    }
                    if view == View::Uav && n != 1 {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "a \"uav\" texture has one mip level here, not {n} (a UAV views one \
                                 level)"
                            ),
                        ));
                    }
                    if n > chain {
                        return Err(self.invalid(
                            &span,
                            format!(
                                "mip_levels {n}: a {width}x{height}{} texture has at most {chain} \
                                 (0 means all of them)",
                                if dim == TextureDim::Tex3d {
                                    format!("x{depth}")
                                } else {
                                    String::new()
                                }
                            ),
                        ));
                    }
                    if n == 0 && !dim.is_ms() && view != View::Uav {
                        chain
                    } else {
                        n.max(1)
                    }
                }
            };
            let texture = Texture {
                slot,
                view,
                dim,
                format: format.to_string(),
                element_bytes,
                width,
                height,
                depth,
                samples,
                array_size,
                mips,
                data: None,
                line,
            };
            let capacity = texture.byte_len();
            if capacity > MAX_RESOURCE_BYTES {
                return Err(self.invalid(
                    &t.width.span(),
                    format!(
                        "the texture is {capacity} bytes (every mip level's width × height × \
                         depth × samples × slices × {element_bytes}-byte {format}): a resource \
                         is at most {MAX_RESOURCE_BYTES:#x} bytes (4 GiB)"
                    ),
                ));
            }
            let data = self.data(t.data())?;
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
                data: data.map(|(d, _)| d),
                ..texture
            });
        }
        Ok(out)
    }

    /// `[[buffer]]`.
    pub(super) fn buffers(
        &self,
        raw: &RawTrace,
        textures: &[Texture],
    ) -> Result<Vec<Buffer>, TraceError> {
        let mut out: Vec<Buffer> = Vec::new();
        for b in &raw.buffer {
            let line = self.line(&b.span());
            let t = b.get_ref();
            let view = self.view(&t.view, View::Uav)?;
            let slot = self.slot(&t.slot, view)?;
            if let Some((l, table)) = self.bound(view, slot, textures, &out) {
                return Err(self.invalid(
                    &t.slot.span(),
                    format!(
                        "{}{slot} is already bound by the {table} at line {l}",
                        view.register()
                    ),
                ));
            }
            let kind = match (&t.stride, &t.format) {
                (Some(s), Some(f)) => {
                    let (later, first) = if s.span().start > f.span().start {
                        (s.span(), "format")
                    } else {
                        (f.span(), "stride")
                    };
                    let other = if first == "stride" {
                        "format"
                    } else {
                        "stride"
                    };
                    return Err(self.invalid(
                        &later,
                        format!(
                            "`{other}` conflicts with `{first}`: a buffer is structured (`stride`), \
                             typed (`format`) or raw (neither)"
                        ),
                    ));
                }
                (Some(s), None) => {
                    let (stride, span) = sp(s);
                    if stride % 4 != 0 || !(4..=2048).contains(&stride) {
                        return Err(self.invalid(
                            &span,
                            format!("stride {stride}: expected a multiple of 4 from 4 to 2048"),
                        ));
                    }
                    BufferKind::Structured { stride }
                }
                (None, Some(f)) => {
                    let (format, element_bytes) = self.format(f)?;
                    BufferKind::Typed {
                        format: format.to_string(),
                        element_bytes,
                    }
                }
                (None, None) => BufferKind::Raw,
            };
            let data = self.data(t.data())?;
            let len = data.as_ref().map(|(d, _)| d.byte_len());
            let (size, span) = match (&t.size, len) {
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
                (None, None) => {
                    return Err(self.invalid(
                        &b.span(),
                        format!("[[buffer]] needs a `size` or one of the data keys {DATA_KEYS}"),
                    ))
                }
            };
            let (element, what) = match &kind {
                BufferKind::Structured { stride } => (*stride, "the stride".to_string()),
                BufferKind::Typed {
                    format,
                    element_bytes,
                } => (*element_bytes, format!("the size of a {format} element")),
                BufferKind::Raw => (4, "4, a raw buffer's word".to_string()),
            };
            if size == 0 || size % element as u64 != 0 {
                return Err(self.invalid(
                    &span,
                    format!("buffer size {size} is not a non-zero multiple of {what} ({element})"),
                ));
            }
            if size > MAX_RESOURCE_BYTES {
                return Err(self.invalid(
                    &span,
                    format!(
                        "buffer size {size:#x}: a resource is at most {MAX_RESOURCE_BYTES:#x} bytes \
                         (4 GiB)"
                    ),
                ));
            }
            let counter = match &t.counter {
                Some(c) if !(view == View::Uav && matches!(kind, BufferKind::Structured { .. })) => {
                    return Err(self.invalid(
                        &c.span(),
                        "`counter` is the hidden counter of a structured UAV (view = \"uav\" with a \
                         `stride`)",
                    ))
                }
                Some(c) => *c.get_ref(),
                None => 0,
            };
            out.push(Buffer {
                slot,
                view,
                kind,
                size,
                data: data.map(|(d, _)| d),
                counter,
                line,
            });
        }
        Ok(out)
    }

    /// `[[expect_buffer]]`.
    pub(super) fn expect_buffers(
        &self,
        raw: &RawTrace,
        textures: &[Texture],
        buffers: &[Buffer],
    ) -> Result<Vec<ExpectResource>, TraceError> {
        let sizes: Vec<(View, u32, u64)> =
            buffers.iter().map(|b| (b.view, b.slot, b.size)).collect();
        self.expect_resources(
            &raw.expect_buffer,
            Target::Buffer,
            &sizes,
            textures,
            buffers,
        )
    }

    /// `[[expect_texture]]`.
    pub(super) fn expect_textures(
        &self,
        raw: &RawTrace,
        textures: &[Texture],
        buffers: &[Buffer],
    ) -> Result<Vec<ExpectResource>, TraceError> {
        let sizes: Vec<(View, u32, u64)> = textures
            .iter()
            .map(|t| (t.view, t.slot, t.byte_len()))
            .collect();
        self.expect_resources(
            &raw.expect_texture,
            Target::Texture,
            &sizes,
            textures,
            buffers,
        )
    }

    /// The expectation tables of one kind: `sizes` are (view, slot, bytes) of the resources they
    /// may name, in the order of [`crate::tracefile::Trace::buffers`] (or `textures`).
    fn expect_resources(
        &self,
        tables: &[Spanned<RawExpectResource>],
        target: Target,
        sizes: &[(View, u32, u64)],
        textures: &[Texture],
        buffers: &[Buffer],
    ) -> Result<Vec<ExpectResource>, TraceError> {
        let mut out = Vec::new();
        for (index, e) in tables.iter().enumerate() {
            let line = self.line(&e.span());
            let t = e.get_ref();
            let view = self.view(&t.view, View::Uav)?;
            let slot = self.slot(&t.slot, view)?;
            let span: Range<usize> = t.slot.span();
            let reg = format!("{}{slot}", view.register());
            let Some(resource) = sizes.iter().position(|&(v, s, _)| v == view && s == slot) else {
                let (declared, other) = match target {
                    Target::Buffer => ("[[buffer]]", "[[expect_texture]]"),
                    Target::Texture => ("[[texture]]", "[[expect_buffer]]"),
                };
                let message = match self.bound(view, slot, textures, buffers) {
                    Some((l, table)) => format!(
                        "{reg} is the {table} at line {l}, not a {declared}: check it with {other}"
                    ),
                    None => format!(
                        "{reg} is not bound: {} checks a {declared} of view \"{}\" (the default \
                         view is \"uav\")",
                        target.table(),
                        view.name()
                    ),
                };
                return Err(self.invalid(&span, message));
            };
            let Some((data, data_span)) = self.data(t.data())? else {
                return Err(self.invalid(
                    &e.span(),
                    format!("{} needs one of the data keys {DATA_KEYS}", target.table()),
                ));
            };
            let len = data.byte_len();
            if len == 0 {
                return Err(self.invalid(
                    &data_span,
                    "the expected data is empty: an expectation must check at least one byte",
                ));
            }
            let size = sizes[resource].2;
            if len > size {
                return Err(self.invalid(
                    &data_span,
                    format!("the expected data ({len} bytes) is larger than {reg} ({size} bytes)"),
                ));
            }
            out.push(ExpectResource {
                index,
                view,
                slot,
                resource,
                data,
                line,
                span,
            });
        }
        Ok(out)
    }
}

impl Loader {
    /// The machine's textures and buffers, from the trace's tables (already validated).
    pub(super) fn resources(
        &self,
        raw: &RawTrace,
        textures: &[Texture],
        buffers: &[Buffer],
        samplers: &[Sampler],
    ) -> Result<Resources, TraceError> {
        use warpjit_runtime::resource as rt;
        let mut r = Resources::new();
        for (s, raws) in samplers.iter().zip(&raw.sampler) {
            r.bind_sampler(s.slot, s.state)
                .map_err(|e| self.invalid(&raws.span(), e.to_string()))?;
        }
        let format = |name: &str, span: &std::ops::Range<usize>| {
            rt_format(name)
                .ok_or_else(|| self.invalid(span, format!("format {name} cannot be converted")))
        };
        for (t, rawt) in textures.iter().zip(&raw.texture) {
            let span = rawt.span();
            // Zero-filled, lazily committed; then the data, if any (level after level).
            let tex = rt::Texture::with_shape(t.shape(), format(&t.format, &span)?, &[])
                .map_err(|e| self.invalid(&span, format!("the texture: {e}")))?;
            self.fill(tex.storage(), &t.data, &span)?;
            self.bind(&mut r, t.view, t.slot, rt::Resource::Texture(tex), &span)?;
        }
        for (b, rawb) in buffers.iter().zip(&raw.buffer) {
            let span = rawb.span();
            let kind = match &b.kind {
                BufferKind::Structured { stride } => rt::BufferKind::Structured { stride: *stride },
                BufferKind::Typed { format: f, .. } => rt::BufferKind::Typed(format(f, &span)?),
                BufferKind::Raw => rt::BufferKind::Raw,
            };
            let buf = rt::Buffer::new(kind, b.size, &[])
                .map_err(|e| self.invalid(&span, format!("the buffer: {e}")))?;
            self.fill(buf.storage(), &b.data, &span)?;
            buf.counter()
                .store(b.counter, std::sync::atomic::Ordering::Relaxed);
            self.bind(&mut r, b.view, b.slot, rt::Resource::Buffer(buf), &span)?;
        }
        Ok(r)
    }

    /// Writes a resource's initial data (already checked to fit) at its start: inline data as
    /// it is, a file a chunk at a time (never read whole), so that only the pages the data
    /// covers are touched.
    fn fill(
        &self,
        storage: &warpjit_runtime::resource::Storage,
        data: &Option<Data>,
        span: &Range<usize>,
    ) -> Result<(), TraceError> {
        use std::io::Read;
        let cannot = |m: String| self.invalid(span, m);
        match data {
            None => Ok(()),
            Some(Data::File { path, len }) => {
                let (f, now) = files::open_resolved(path).map_err(cannot)?;
                if now != *len {
                    return Err(cannot(format!(
                        "{} changed size since the trace was loaded ({now} bytes, was {len})",
                        path.display()
                    )));
                }
                let mut f = f.take(*len);
                let mut buf = vec![0u8; (*len).min(1 << 20) as usize];
                let mut at = 0u64;
                while at < *len {
                    let n = ((*len - at) as usize).min(buf.len());
                    f.read_exact(&mut buf[..n])
                        .map_err(|e| cannot(format!("cannot read {}: {e}", path.display())))?;
                    storage.write(at, &buf[..n]);
                    at += n as u64;
                }
                Ok(())
            }
            Some(d) => {
                let bytes = d.to_bytes().map_err(|e| cannot(e.to_string()))?;
                storage.write(0, &bytes);
                Ok(())
            }
        }
    }

    fn bind(
        &self,
        r: &mut Resources,
        view: View,
        slot: u32,
        res: warpjit_runtime::resource::Resource,
        span: &std::ops::Range<usize>,
    ) -> Result<(), TraceError> {
        match view {
            View::Srv => r.bind_srv(slot, res),
            View::Uav => r.bind_uav(slot, res),
        }
        .map_err(|e| self.invalid(span, e.to_string()))
    }
}

/// The runtime's format for a canonical DXGI name.
fn rt_format(name: &str) -> Option<warpjit_runtime::format::Format> {
    warpjit_runtime::format::Format::from_name(name)
}

/// Sampler slots (`s0` to `s15`).
pub(crate) const SAMPLER_SLOTS: u32 = 16;

impl Loader {
    /// `[[sampler]]`.
    pub(super) fn samplers(&self, raw: &RawTrace) -> Result<Vec<Sampler>, TraceError> {
        use warpjit_runtime::sampler::{AddressMode, ComparisonFunc, Reduction, SamplerState};
        let mut out: Vec<Sampler> = Vec::new();
        for t in &raw.sampler {
            let line = self.line(&t.span());
            let t = t.get_ref();
            let (slot, span) = sp(&t.slot);
            if slot >= SAMPLER_SLOTS {
                return Err(self.invalid(
                    &span,
                    format!("slot {slot} is out of range: s# slots are 0 to 15"),
                ));
            }
            if let Some(o) = out.iter().find(|o| o.slot == slot) {
                return Err(self.invalid(
                    &span,
                    format!(
                        "s{slot} is already bound by the [[sampler]] at line {}",
                        o.line
                    ),
                ));
            }
            let mut st = SamplerState::DEFAULT;
            if let Some(f) = &t.filter {
                let name = f.get_ref();
                let upper = name.to_ascii_uppercase();
                let bare = upper.strip_prefix("D3D11_FILTER_").unwrap_or(&upper);
                let names = SamplerState::filter_names();
                let code = match bare {
                    "POINT" => Some(0x00),
                    "LINEAR" => Some(0x15),
                    _ => names.iter().find(|(n, _)| n == bare).map(|&(_, c)| c),
                };
                let Some((min, mag, mip, aniso, reduction)) =
                    code.and_then(SamplerState::filter_from_code)
                else {
                    let mut d = self.src.at(
                        &f.span(),
                        format!(
                            "unknown filter {name:?}: expected a D3D11_FILTER name such as \
                             \"MIN_MAG_MIP_LINEAR\" or \"COMPARISON_MIN_MAG_LINEAR_MIP_POINT\", \
                             or \"point\", \"linear\", \"anisotropic\""
                        ),
                    );
                    let all: Vec<String> = names
                        .into_iter()
                        .map(|(n, _)| n)
                        .chain(["point", "linear", "anisotropic"].map(String::from))
                        .collect();
                    d.notes.extend(crate::diag::did_you_mean(
                        bare,
                        all.iter().map(|s| s.as_str()),
                    ));
                    return Err(TraceError::Invalid(d));
                };
                (st.min, st.mag, st.mip, st.anisotropic, st.reduction) =
                    (min, mag, mip, aniso, reduction);
            }
            let mode = |s: &Spanned<String>| {
                AddressMode::NAMES
                    .iter()
                    .find(|(n, _)| *n == s.get_ref().as_str())
                    .map(|&(_, m)| m)
                    .ok_or_else(|| {
                        let mut d = self.src.at(
                            &s.span(),
                            format!(
                                "unknown address mode {:?}: expected \"wrap\", \"mirror\", \
                                 \"clamp\", \"border\" or \"mirror_once\"",
                                s.get_ref()
                            ),
                        );
                        d.notes.extend(crate::diag::did_you_mean(
                            s.get_ref(),
                            AddressMode::NAMES.iter().map(|(n, _)| *n),
                        ));
                        TraceError::Invalid(d)
                    })
            };
            let each = [&t.address_u, &t.address_v, &t.address_w];
            if let Some(a) = &t.address {
                if let Some(other) = each.iter().copied().flatten().next() {
                    return Err(self.invalid(
                        &other.span(),
                        "`address` sets u, v and w: give either it or `address_u`, `address_v`, \
                         `address_w`",
                    ));
                }
                st.address = [mode(a)?; 3];
            }
            for (k, a) in each.into_iter().enumerate() {
                if let Some(a) = a {
                    st.address[k] = mode(a)?;
                }
            }
            if let Some(b) = &t.border_color {
                if !st.address.contains(&AddressMode::Border) {
                    return Err(self.invalid(
                        &b.span(),
                        "`border_color` is used only where an address mode is \"border\", and \
                         none is",
                    ));
                }
                if b.get_ref().len() != 4 {
                    return Err(self.invalid(
                        &b.span(),
                        format!(
                            "border_color has {} values: expected 4 (red, green, blue, alpha)",
                            b.get_ref().len()
                        ),
                    ));
                }
                for (k, v) in b.get_ref().iter().enumerate() {
                    st.border_color[k] = self.float(v);
                }
            }
            if let Some(b) = &t.mip_lod_bias {
                let v = self.float(b);
                if !(-16.0..=15.99).contains(&v) {
                    return Err(self.invalid(
                        &b.span(),
                        format!("mip_lod_bias {v} is out of range -16 to 15.99"),
                    ));
                }
                st.mip_lod_bias = v;
            }
            for (key, v, dst) in [
                ("min_lod", &t.min_lod, &mut st.min_lod),
                ("max_lod", &t.max_lod, &mut st.max_lod),
            ] {
                if let Some(v) = v {
                    let x = self.float(v);
                    if x.is_nan() {
                        return Err(self.invalid(&v.span(), format!("{key} is NaN")));
                    }
                    *dst = x;
                }
            }
            if let Some(m) = &t.max_anisotropy {
                let (n, span) = sp(m);
                if !st.anisotropic {
                    return Err(self.invalid(
                        &span,
                        "`max_anisotropy` is used only by an anisotropic filter (filter = \
                         \"ANISOTROPIC\")",
                    ));
                }
                if !(1..=16).contains(&n) {
                    return Err(
                        self.invalid(&span, format!("max_anisotropy {n} is out of range 1 to 16"))
                    );
                }
                st.max_anisotropy = n;
            }
            let comparison = st.reduction == Reduction::Comparison;
            match (&t.comparison_func, comparison) {
                (Some(c), true) => {
                    st.comparison = ComparisonFunc::NAMES
                        .iter()
                        .find(|(n, _)| *n == c.get_ref().as_str())
                        .map(|&(_, f)| f)
                        .ok_or_else(|| {
                            let mut d = self.src.at(
                                &c.span(),
                                format!(
                                    "unknown comparison_func {:?}: expected \"never\", \"less\", \
                                     \"equal\", \"less_equal\", \"greater\", \"not_equal\", \
                                     \"greater_equal\" or \"always\"",
                                    c.get_ref()
                                ),
                            );
                            d.notes.extend(crate::diag::did_you_mean(
                                c.get_ref(),
                                ComparisonFunc::NAMES.iter().map(|(n, _)| *n),
                            ));
                            TraceError::Invalid(d)
                        })?;
                }
                (Some(c), false) => {
                    return Err(self.invalid(
                        &c.span(),
                        "`comparison_func` is used only by a comparison filter (filter = \
                         \"COMPARISON_...\")",
                    ))
                }
                (None, true) => {
                    let at = t.filter.as_ref().map_or(span.clone(), |f| f.span());
                    return Err(self.invalid(
                        &at,
                        "a comparison filter needs `comparison_func` (\"less\", \"less_equal\", \
                         ...)",
                    ));
                }
                (None, false) => {}
            }
            out.push(Sampler {
                slot,
                state: st,
                line,
            });
        }
        Ok(out)
    }
}
