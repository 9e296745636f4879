//! Lowering of the instructions that reach views and textures: buffer and texture loads and
//! stores, atomics and the append/consume counters, view queries (`bufinfo`, `resinfo`,
//! `sampleinfo`), sampling and derivatives, each against the view its operand names.

use super::*;

impl Lower<'_> {
    /// The view a resource operand (`t#`, `u#`, `g#`) names and its declared stride (0 for raw
    /// and typed views).
    pub(super) fn view(&self, op: &ast::Operand) -> Result<(View, ViewKind), LowerError> {
        let OperandValue::Reg { file, indices } = &op.value else {
            return Err(self.err("expected a resource (t#, u# or g#)"));
        };
        if *file == RegFile::Rasterizer {
            return Err(self.err(
                "the rasterizer (the render target's sample count, \
                 GetRenderTargetSampleCount) is not supported: there is no render target",
            ));
        }
        let Some(Index::Imm(slot)) = indices.first() else {
            return Err(self.err("a resource needs a literal slot"));
        };
        let slot = *slot;
        let found = match file {
            RegFile::Resource | RegFile::Uav => {
                let want = if *file == RegFile::Resource {
                    View::Srv(slot as u8)
                } else {
                    View::Uav(slot as u8)
                };
                self.view_kinds
                    .get(&want)
                    .filter(|_| slot < 128)
                    .map(|&kind| (want, kind))
            }
            RegFile::Tgsm => self.tgsm_at.get(&slot).map(|&i| &self.tgsm[i]).map(|t| {
                (
                    t.1,
                    if t.2 == 0 {
                        ViewKind::Raw
                    } else {
                        ViewKind::Structured(t.2)
                    },
                )
            }),
            other => {
                return Err(self.err(format!(
                    "expected a resource (t#, u# or g#), not `{}`",
                    other.text()
                )))
            }
        };
        found.ok_or_else(|| self.err(format!("{}{slot} is not declared", file.text())))
    }

    /// `ld_structured` and `ld_raw`: `dst, [index,] offset, view`.
    pub(super) fn ld_buf(&mut self, inst: &ast::Inst, structured: bool) -> Result<(), LowerError> {
        let n = if structured { 4 } else { 3 };
        if inst.operands.len() != n {
            return Err(self.err(format!("`{}` takes {n} operands", inst.opcode.text())));
        }
        let res = &inst.operands[n - 1];
        let (view, kind) = self.view(res)?;
        let (stride, index, offset) = self.buf_address(inst, kind, structured)?;
        let dests = self.dests(&inst.operands[0])?;
        let comp = std::array::from_fn(|c| source_component(res.components, c as u8));
        self.emit(LdBuf {
            d: dests.map(|d| d.unwrap_or(Reg::RZ)),
            view,
            stride,
            index,
            offset,
            comp,
        });
        Ok(())
    }

    /// A buffer access's stride, element index and byte offset (operands 1 and 2 of a
    /// structured access; operand 1 of a raw one, index 0): a structured access needs a
    /// structured view, a raw one addresses the bytes of a raw or a structured view.
    fn buf_address(
        &mut self,
        inst: &ast::Inst,
        kind: ViewKind,
        structured: bool,
    ) -> Result<(u32, Src, Src), LowerError> {
        let stride = match (kind, structured) {
            (ViewKind::Structured(s), true) => s,
            (ViewKind::Raw, false) | (ViewKind::Structured(_), false) => 0,
            _ => {
                return Err(self.err(format!(
                    "`{}` needs a {} view",
                    inst.opcode.text(),
                    if structured { "structured" } else { "raw" }
                )))
            }
        };
        let (index, offset) = if structured {
            (
                self.src(&inst.operands[1], 0, Ty::Int)?,
                self.src(&inst.operands[2], 0, Ty::Int)?,
            )
        } else {
            (Src::Imm(0), self.src(&inst.operands[1], 0, Ty::Int)?)
        };
        Ok((stride, index, offset))
    }

    /// `store_structured` and `store_raw`: `view.mask, [index,] offset, value`.
    pub(super) fn st_buf(&mut self, inst: &ast::Inst, structured: bool) -> Result<(), LowerError> {
        let n = if structured { 4 } else { 3 };
        if inst.operands.len() != n {
            return Err(self.err(format!("`{}` takes {n} operands", inst.opcode.text())));
        }
        let dst = &inst.operands[0];
        let (view, kind) = self.view(dst)?;
        if matches!(view, View::Srv(_)) {
            return Err(self.err("a t# view is read only"));
        }
        let (stride, index, offset) = self.buf_address(inst, kind, structured)?;
        let mask = match dst.components {
            Components::Mask(m) => m,
            _ => 1,
        };
        let value = &inst.operands[n - 1];
        let mut v = [Src::Imm(0); 4];
        for (c, slot) in v.iter_mut().enumerate() {
            if mask & (1 << c) != 0 {
                *slot = self.src(value, c as u8, Ty::Int)?;
            }
        }
        self.emit_effect(StBuf {
            view,
            stride,
            index,
            offset,
            v,
            mask,
        });
        Ok(())
    }

    /// `ld`, `ldms` (`ld2dms`): `dst, address, view[, sample]`.
    pub(super) fn ld_tex(&mut self, inst: &ast::Inst, ms: bool) -> Result<(), LowerError> {
        let n = if ms { 4 } else { 3 };
        if inst.operands.len() != n {
            return Err(self.err(format!("`{}` takes {n} operands", inst.opcode.text())));
        }
        let res = &inst.operands[2];
        let (view, kind) = self.view(res)?;
        let (is_buffer, dim) = match kind {
            ViewKind::TypedBuffer => (true, None),
            ViewKind::Texture {
                dim: TextureKind::Cube | TextureKind::CubeArray,
                ..
            } => {
                return Err(self.err(format!(
                    "`{}` cannot read a cube texture (Direct3D's `ld` reads every texture but \
                     cubes: sample it, or view it as a 2D array)",
                    inst.opcode.text()
                )))
            }
            ViewKind::Texture { dim, .. } => (false, Some(dim)),
            ViewKind::Structured(_) | ViewKind::Raw => {
                return Err(self.err(format!(
                    "`{}` needs a texture or typed buffer",
                    inst.opcode.text()
                )))
            }
        };
        let ms = dim.is_some_and(TextureKind::is_multisample);
        if ms != (inst.opcode == Opcode::LdMs) {
            return Err(self.err(if ms {
                "a multisampled texture is read with `ldms`"
            } else {
                "`ldms` reads a multisampled texture"
            }));
        }
        let addr = &inst.operands[1];
        let x = self.src(addr, 0, Ty::Int)?;
        // The address's components by dimension: 1D (x), 1D array (x, slice), 2D (x, y), 2D
        // array and multisample array (x, y, slice), 3D (x, y, z, held in `slice`); `.w` is the
        // mip level of every texture but multisample ones (and `ld_uav_typed`'s, which has none).
        let (y, slice) = match dim {
            None | Some(TextureKind::Tex1d) => (Src::Imm(0), Src::Imm(0)),
            Some(TextureKind::Tex1dArray) => (Src::Imm(0), self.src(addr, 1, Ty::Int)?),
            Some(TextureKind::Tex2d | TextureKind::Tex2dMs) => {
                (self.src(addr, 1, Ty::Int)?, Src::Imm(0))
            }
            Some(_) => (self.src(addr, 1, Ty::Int)?, self.src(addr, 2, Ty::Int)?),
        };
        let (sample, mip) = if ms {
            (self.src(&inst.operands[3], 0, Ty::Int)?, Src::Imm(0))
        } else if is_buffer || inst.opcode == Opcode::LdUavTyped {
            // Buffers have no mips; `ld_uav_typed` reads mip 0 (its address has no level).
            (Src::Imm(0), Src::Imm(0))
        } else {
            (Src::Imm(0), self.src(addr, 3, Ty::Int)?)
        };
        // Offsets apply to the texel axes (not to an array's slice): u of 1D, u and v of 2D,
        // u, v and w of 3D.
        let o = inst.offsets.unwrap_or([0; 3]);
        let offset = match dim {
            None => [0; 3],
            Some(TextureKind::Tex1d | TextureKind::Tex1dArray) => [o[0], 0, 0],
            Some(TextureKind::Tex3d) => o,
            Some(_) => [o[0], o[1], 0],
        };
        let dests = self.dests(&inst.operands[0])?;
        self.emit(LdTex {
            d: dests.map(|d| d.unwrap_or(Reg::RZ)),
            view,
            x,
            y,
            slice,
            sample,
            mip,
            offset,
            comp: std::array::from_fn(|c| source_component(res.components, c as u8)),
        });
        Ok(())
    }

    /// The column, row and slice (an array's slice, a 3D texture's depth) a typed view's
    /// integer address names: `x` of a buffer or 1D texture, `x, slice` of a 1D array, `x, y`
    /// of a 2D texture, `x, y, slice` of the others.
    pub(super) fn texel_address(
        &mut self,
        addr: &ast::Operand,
        kind: ViewKind,
    ) -> Result<[Src; 3], LowerError> {
        let x = self.src(addr, 0, Ty::Int)?;
        let zero = Src::Imm(0);
        Ok(match kind {
            ViewKind::Texture {
                dim: TextureKind::Tex1dArray,
                ..
            } => [x, zero, self.src(addr, 1, Ty::Int)?],
            ViewKind::Texture {
                dim: TextureKind::Tex2d | TextureKind::Tex2dMs,
                ..
            } => [x, self.src(addr, 1, Ty::Int)?, zero],
            ViewKind::Texture {
                dim: TextureKind::Tex1d,
                ..
            }
            | ViewKind::TypedBuffer => [x, zero, zero],
            ViewKind::Texture { .. } => {
                [x, self.src(addr, 1, Ty::Int)?, self.src(addr, 2, Ty::Int)?]
            }
            // Raw and structured views: the address is (index, offset) as given.
            ViewKind::Raw | ViewKind::Structured(_) => {
                [x, self.src(addr, 1, Ty::Int)?, self.src(addr, 2, Ty::Int)?]
            }
        })
    }

    /// `store_uav_typed u#.mask, address, value`.
    pub(super) fn st_tex(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        if inst.operands.len() != 3 {
            return Err(self.err("`store_uav_typed` takes 3 operands"));
        }
        let (view, kind) = self.view(&inst.operands[0])?;
        if !matches!(
            (view, kind),
            (
                View::Uav(_),
                ViewKind::TypedBuffer | ViewKind::Texture { .. }
            )
        ) {
            return Err(self.err("`store_uav_typed` needs a typed u# view"));
        }
        let addr = &inst.operands[1];
        let [x, y, slice] = self.texel_address(addr, kind)?;
        let mut v = [Src::Imm(0); 4];
        for (c, slot) in v.iter_mut().enumerate() {
            *slot = self.src(&inst.operands[2], c as u8, Ty::Int)?;
        }
        self.emit_effect(StTex {
            view,
            x,
            y,
            slice,
            v,
        });
        Ok(())
    }

    /// `atomic_* view, address, value[, value]` and `imm_atomic_* dst, view, address, value[,
    /// value]`.
    pub(super) fn atomic(
        &mut self,
        inst: &ast::Inst,
        f: AtomFn,
        returns: bool,
    ) -> Result<(), LowerError> {
        let first = returns as usize;
        let values = if f == AtomFn::CmpExch { 2 } else { 1 };
        if inst.operands.len() != first + 2 + values {
            return Err(self.err(format!(
                "`{}` takes {} operands",
                inst.opcode.text(),
                first + 2 + values
            )));
        }
        let (view, kind) = self.view(&inst.operands[first])?;
        if matches!(view, View::Srv(_)) {
            return Err(self.err("an atomic needs a u# or g# view"));
        }
        let stride = match kind {
            ViewKind::Structured(s) => s,
            _ => 0,
        };
        let a_op = &inst.operands[first + 1];
        let addr = self.texel_address(a_op, kind)?;
        let a = self.src(&inst.operands[first + 2], 0, Ty::Int)?;
        let b = if values == 2 {
            self.src(&inst.operands[first + 3], 0, Ty::Int)?
        } else {
            Src::Imm(0)
        };
        let d = if returns {
            let ds = self.dests(&inst.operands[0])?;
            ds.into_iter().flatten().next().unwrap_or(Reg::RZ)
        } else {
            Reg::RZ
        };
        self.emit_effect(Atom {
            d,
            view,
            stride,
            addr,
            f,
            a,
            b,
        });
        self.zero_if_not_live(d);
        Ok(())
    }

    /// In a pixel shader, `d` (unless `RZ`) becomes 0 in the lanes that are not live: what an
    /// immediate atomic returns to a helper or discarded pixel.
    pub(super) fn zero_if_not_live(&mut self, d: Reg) {
        if d.is_rz() || self.io.is_none_or(|io| io.live.is_none()) {
            return;
        }
        let dead = Guard(PredSrc {
            pred: P_LIVE,
            neg: true,
        });
        self.emit_guarded(dead, Mov { d, b: Src::Imm(0) });
    }

    /// `imm_atomic_alloc dst, u#` and `imm_atomic_consume dst, u#`: a structured UAV's hidden
    /// counter.
    pub(super) fn counter(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        if inst.operands.len() != 2 {
            return Err(self.err(format!("`{}` takes 2 operands", inst.opcode.text())));
        }
        let (view, kind) = self.view(&inst.operands[1])?;
        if !matches!((view, kind), (View::Uav(_), ViewKind::Structured(_))) {
            return Err(self.err(format!(
                "`{}` needs a structured u# view (its hidden counter)",
                inst.opcode.text()
            )));
        }
        let d = self.dests(&inst.operands[0])?;
        let d = d.into_iter().flatten().next().unwrap_or(Reg::RZ);
        let f = if inst.opcode == Opcode::ImmAtomicAlloc {
            AtomFn::Alloc
        } else {
            AtomFn::Consume
        };
        self.emit_effect(Atom {
            d,
            view,
            stride: 0,
            addr: [Src::Imm(0); 3],
            f,
            a: Src::Imm(0),
            b: Src::Imm(0),
        });
        self.zero_if_not_live(d);
        Ok(())
    }

    /// `bufinfo dst, view`, `resinfo dst, mip, view`, `sampleinfo dst, view`.
    pub(super) fn info(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        let format = match inst.info_return {
            ast::InfoReturn::Float => InfoFormat::Float,
            ast::InfoReturn::Uint => InfoFormat::Uint,
            ast::InfoReturn::RcpFloat => InfoFormat::RcpFloat,
        };
        let (kind, res, mip) = match inst.opcode {
            Opcode::BufInfo if inst.operands.len() == 2 => {
                (InfoKind::BufferLength, &inst.operands[1], Src::Imm(0))
            }
            Opcode::ResInfo if inst.operands.len() == 3 => (
                InfoKind::Dimensions(format),
                &inst.operands[2],
                self.src(&inst.operands[1], 0, Ty::Int)?,
            ),
            Opcode::SampleInfo if inst.operands.len() == 2 => {
                (InfoKind::Samples(format), &inst.operands[1], Src::Imm(0))
            }
            _ => {
                return Err(self.err(format!(
                    "`{}` has the wrong number of operands",
                    inst.opcode.text()
                )))
            }
        };
        let (view, vk) = self.view(res)?;
        let ok = match kind {
            InfoKind::BufferLength => !matches!(vk, ViewKind::Texture { .. }),
            InfoKind::Dimensions(_) | InfoKind::Samples(_) => {
                matches!(vk, ViewKind::Texture { .. })
            }
        };
        if !ok || matches!(view, View::Tgsm { .. }) {
            return Err(self.err(format!(
                "`{}` does not apply to that view",
                inst.opcode.text()
            )));
        }
        let dests = self.dests(&inst.operands[0])?;
        self.emit(Info {
            d: dests.map(|d| d.unwrap_or(Reg::RZ)),
            view,
            dim: match vk {
                ViewKind::Texture { dim, .. } => Some(dim),
                _ => None,
            },
            kind,
            mip,
            comp: std::array::from_fn(|c| source_component(res.components, c as u8)),
        });
        Ok(())
    }

    /// Why an instruction that needs a pixel shader's quads cannot run in this stage, if it
    /// cannot.
    pub(super) fn needs_quads(&self, inst: &ast::Inst) -> Result<(), LowerError> {
        let stage = self.prog.version.stage;
        if stage == ast::Stage::Pixel {
            return Ok(());
        }
        let what = if inst.opcode.text().starts_with("deriv") {
            "a derivative"
        } else {
            "an implicit LOD (derivatives of the coordinates)"
        };
        Err(self.err(format!(
            "`{}` needs {what}, which only a pixel shader's 2x2 quads have; a {} shader samples \
             with `sample_l`, `sample_d`, `sample_c_lz` or `gather4` (Direct3D allows implicit \
             derivatives outside pixel shaders from shader model 6.6 only)",
            inst.opcode.text(),
            match stage {
                ast::Stage::Compute => "compute",
                ast::Stage::Vertex => "vertex",
                ast::Stage::Geometry => "geometry",
                ast::Stage::Hull => "hull",
                ast::Stage::Domain => "domain",
                ast::Stage::Pixel => "pixel",
            }
        )))
    }

    /// `deriv_rt{x,y}[_coarse|_fine] dst, src`: per component, the quad's difference.
    pub(super) fn deriv(
        &mut self,
        inst: &ast::Inst,
        y: bool,
        fine: bool,
    ) -> Result<(), LowerError> {
        self.needs_quads(inst)?;
        self.per_component(inst, &[Ty::Float], |l: &mut Self, d, s: &[Src]| {
            l.emit(Deriv {
                d,
                a: s[0],
                y,
                fine,
            });
            Ok(())
        })
    }

    /// `sample*`, `gather4*` and `lod`: `dst, address, [offset,] t#, s#[, extra...]`.
    pub(super) fn sample(&mut self, inst: &ast::Inst) -> Result<(), LowerError> {
        use Opcode as O;
        let op = inst.opcode;
        // Whether the operands hold gather4_po's offsets, and how many follow the sampler.
        let (po, tail) = match op {
            O::Gather4Po => (true, 0),
            O::Gather4PoC => (true, 1),
            O::SampleB | O::SampleL | O::SampleC | O::SampleCLz | O::Gather4C => (false, 1),
            O::SampleD => (false, 2),
            _ => (false, 0),
        };
        let n = 4 + usize::from(po) + tail;
        if inst.operands.len() != n {
            return Err(self.err(format!("`{}` takes {n} operands", op.text())));
        }
        let implicit = matches!(op, O::Sample | O::SampleB | O::SampleC | O::Lod);
        if implicit {
            self.needs_quads(inst)?;
        }
        let (ri, si) = if po { (3, 4) } else { (2, 3) };
        let res = &inst.operands[ri];
        let (view, kind) = self.view(res)?;
        let dim = match (view, kind) {
            (View::Srv(_), ViewKind::Texture { dim, .. }) if !dim.is_multisample() => dim,
            _ => {
                return Err(self.err(format!(
                    "`{}` samples a t# texture that is not multisampled (1D, 2D, 3D, cube or an \
                     array of them)",
                    op.text()
                )))
            }
        };
        let gather = matches!(op, O::Gather4 | O::Gather4C | O::Gather4Po | O::Gather4PoC);
        let gather_dims = if po {
            matches!(dim, TextureKind::Tex2d | TextureKind::Tex2dArray)
        } else {
            matches!(
                dim,
                TextureKind::Tex2d
                    | TextureKind::Tex2dArray
                    | TextureKind::Cube
                    | TextureKind::CubeArray
            )
        };
        if gather && !gather_dims {
            return Err(self.err(format!(
                "`{}` gathers from a 2D texture{} (this view is {dim:?})",
                op.text(),
                if po {
                    " or 2D array"
                } else {
                    ", a cube, or an array of them"
                }
            )));
        }
        let samp = &inst.operands[si];
        let (slot, channel) = match &samp.value {
            OperandValue::Reg {
                file: RegFile::Sampler,
                indices,
            } => match indices.first() {
                Some(Index::Imm(s)) => (
                    *s,
                    match samp.components {
                        Components::Select(k) => k,
                        _ => 0,
                    },
                ),
                _ => return Err(self.err("a sampler needs a literal slot")),
            },
            _ => return Err(self.err(format!("`{}` needs a sampler s#", op.text()))),
        };
        let compare = matches!(op, O::SampleC | O::SampleCLz | O::Gather4C | O::Gather4PoC);
        let Some(decl) = self.prog.decls().find_map(|d| match *d {
            Decl::Sampler { slot: s, mode } if s == slot => Some(mode),
            _ => None,
        }) else {
            return Err(self.err(format!("s{slot} is not declared (dcl_sampler)")));
        };
        if slot >= 16 {
            return Err(self.err(format!("sampler slot s{slot} is out of range (s0 to s15)")));
        }
        if compare != (decl == ast::SamplerMode::Comparison) {
            return Err(self.err(format!(
                "`{}` needs a sampler declared {}, and s{slot} is declared {}",
                op.text(),
                if compare {
                    "mode_comparison"
                } else {
                    "mode_default"
                },
                decl.text()
            )));
        }
        let addr = &inst.operands[1];
        let mut coord = [Src::Imm(0); 4];
        for (k, c) in coord.iter_mut().enumerate() {
            *c = self.src(addr, k as u8, Ty::Float)?;
        }
        // Derivatives: given (sample_d), or those of the coordinates across the quad.
        let axes = match dim {
            TextureKind::Tex1d | TextureKind::Tex1dArray => 1,
            TextureKind::Tex2d | TextureKind::Tex2dArray => 2,
            _ => 3,
        };
        let (mut ddx, mut ddy) = ([Src::Imm(0); 3], [Src::Imm(0); 3]);
        if op == O::SampleD {
            for k in 0..3 {
                ddx[k] = self.src(&inst.operands[4], k as u8, Ty::Float)?;
                ddy[k] = self.src(&inst.operands[5], k as u8, Ty::Float)?;
            }
        } else if implicit {
            for k in 0..axes {
                for (y, out) in [(false, &mut ddx), (true, &mut ddy)] {
                    let t = self.scratch()?;
                    self.emit(Deriv {
                        d: t,
                        a: coord[k],
                        y,
                        fine: false,
                    });
                    out[k] = Src::Reg(t);
                }
            }
        }
        let extra = &inst.operands[si + 1..];
        let (lod, reference) = match op {
            O::SampleB | O::SampleL => (self.src(&extra[0], 0, Ty::Float)?, Src::Imm(0)),
            O::SampleC | O::SampleCLz | O::Gather4C | O::Gather4PoC => {
                (Src::Imm(0), self.src(&extra[0], 0, Ty::Float)?)
            }
            _ => (Src::Imm(0), Src::Imm(0)),
        };
        let po = if po {
            let o = &inst.operands[2];
            Some([self.src(o, 0, Ty::Int)?, self.src(o, 1, Ty::Int)?])
        } else {
            None
        };
        // Immediate offsets apply to the texel axes (none on a cube).
        let o = inst.offsets.unwrap_or([0; 3]);
        let offset = match dim {
            TextureKind::Cube | TextureKind::CubeArray => [0; 3],
            _ => std::array::from_fn(|k| if k < axes { o[k] } else { 0 }),
        };
        let f = match op {
            O::SampleL | O::SampleCLz => SampleFn::Level,
            O::Gather4 | O::Gather4C | O::Gather4Po | O::Gather4PoC => SampleFn::Gather(channel),
            O::Lod => SampleFn::Lod,
            _ => SampleFn::Grad,
        };
        let dests = self.dests(&inst.operands[0])?;
        self.emit(Sample {
            d: dests.map(|d| d.unwrap_or(Reg::RZ)),
            view,
            sampler: slot as u8,
            f,
            compare,
            coord,
            ddx,
            ddy,
            lod,
            reference,
            offset,
            po,
            comp: std::array::from_fn(|c| source_component(res.components, c as u8)),
        });
        if inst.saturate {
            for d in dests.into_iter().flatten() {
                self.emit(Un {
                    d,
                    f: UnFn::Sat,
                    a: Src::Reg(d),
                });
            }
        }
        Ok(())
    }

    /// Lowers a resource access (buffer and texture loads and stores, sampling, derivatives,
    /// atomics and counters, resource information); `false` if `inst` is none of them.
    pub(super) fn resource(&mut self, inst: &ast::Inst) -> Result<bool, LowerError> {
        use Opcode as O;
        match inst.opcode {
            O::LdStructured => self.ld_buf(inst, true)?,
            O::LdRaw => self.ld_buf(inst, false)?,
            O::StoreStructured => self.st_buf(inst, true)?,
            O::StoreRaw => self.st_buf(inst, false)?,
            O::Ld => self.ld_tex(inst, false)?,
            O::LdMs => {
                let v = self.prog.version;
                // Shader model 4.0 allows a multisample load in pixel shaders only (the `ld`
                // page), and fxc writes those as `ldms`: accepted there.
                if (v.major, v.minor) < (4, 1) && v.stage != ast::Stage::Pixel {
                    return Err(self.err(format!(
                        "`ldms` needs shader model 4.1 or later (4.0 in a pixel shader); this program is {}_{}_{}",
                        v.stage.prefix(),
                        v.major,
                        v.minor
                    )));
                }
                self.ld_tex(inst, true)?
            }
            O::LdUavTyped => self.ld_tex(inst, false)?,
            O::StoreUavTyped => self.st_tex(inst)?,
            O::BufInfo | O::ResInfo | O::SampleInfo => self.info(inst)?,
            O::Sample
            | O::SampleB
            | O::SampleL
            | O::SampleD
            | O::SampleC
            | O::SampleCLz
            | O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Lod => self.sample(inst)?,
            O::DerivRtx | O::DerivRtxCoarse => self.deriv(inst, false, false)?,
            O::DerivRty | O::DerivRtyCoarse => self.deriv(inst, true, false)?,
            O::DerivRtxFine => self.deriv(inst, false, true)?,
            O::DerivRtyFine => self.deriv(inst, true, true)?,
            O::AtomicIadd => self.atomic(inst, AtomFn::Add, false)?,
            O::AtomicAnd => self.atomic(inst, AtomFn::And, false)?,
            O::AtomicOr => self.atomic(inst, AtomFn::Or, false)?,
            O::AtomicXor => self.atomic(inst, AtomFn::Xor, false)?,
            O::AtomicImax => self.atomic(inst, AtomFn::Imax, false)?,
            O::AtomicImin => self.atomic(inst, AtomFn::Imin, false)?,
            O::AtomicUmax => self.atomic(inst, AtomFn::Umax, false)?,
            O::AtomicUmin => self.atomic(inst, AtomFn::Umin, false)?,
            O::AtomicCmpStore => self.atomic(inst, AtomFn::CmpExch, false)?,
            O::ImmAtomicAlloc | O::ImmAtomicConsume => self.counter(inst)?,
            O::ImmAtomicIadd => self.atomic(inst, AtomFn::Add, true)?,
            O::ImmAtomicAnd => self.atomic(inst, AtomFn::And, true)?,
            O::ImmAtomicOr => self.atomic(inst, AtomFn::Or, true)?,
            O::ImmAtomicXor => self.atomic(inst, AtomFn::Xor, true)?,
            O::ImmAtomicImax => self.atomic(inst, AtomFn::Imax, true)?,
            O::ImmAtomicImin => self.atomic(inst, AtomFn::Imin, true)?,
            O::ImmAtomicUmax => self.atomic(inst, AtomFn::Umax, true)?,
            O::ImmAtomicUmin => self.atomic(inst, AtomFn::Umin, true)?,
            O::ImmAtomicExch => self.atomic(inst, AtomFn::Exch, true)?,
            O::ImmAtomicCmpExch => self.atomic(inst, AtomFn::CmpExch, true)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The view kind of a typed declaration (`None` for a dimension a typed view cannot have:
/// `unknown`, raw and structured).
pub(super) fn view_kind(dim: ast::ResourceDim, samples: u32) -> Option<ViewKind> {
    use ast::ResourceDim as D;
    let dim = match dim {
        D::Buffer => return Some(ViewKind::TypedBuffer),
        D::Texture1D => TextureKind::Tex1d,
        D::Texture1DArray => TextureKind::Tex1dArray,
        D::Texture2D => TextureKind::Tex2d,
        D::Texture2DArray => TextureKind::Tex2dArray,
        D::Texture2DMs => TextureKind::Tex2dMs,
        D::Texture2DMsArray => TextureKind::Tex2dMsArray,
        D::Texture3D => TextureKind::Tex3d,
        D::TextureCube => TextureKind::Cube,
        D::TextureCubeArray => TextureKind::CubeArray,
        D::Unknown | D::RawBuffer | D::StructuredBuffer => return None,
    };
    Some(ViewKind::Texture { dim, samples })
}
