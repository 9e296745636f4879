//! Lowering of what a graphics stage reads and writes: a vertex, geometry or pixel shader's
//! invocation index and special inputs, a geometry shader's input vertices and `emit`s, the
//! outputs stored at the end, and a pixel shader's live lanes (only pixels' effects count), with
//! the interface facts the lowering derives from the declarations (`pixel_inputs`,
//! `geometry_shape`, `special_io`).

use super::*;

impl Lower<'_> {
    /// Component `k` of a special input register: a geometry shader's primitive id is its
    /// invocation index and its instance id 0; elsewhere the register's record slot.
    pub(super) fn special_input(&mut self, file: RegFile, k: u8) -> Result<Src, LowerError> {
        let (name, _) = special_io(file).expect("a special input");
        if self.prog.version.stage == ast::Stage::Geometry {
            return match file {
                RegFile::InputPrimitiveId => Ok(Src::Reg(self.invocation())),
                RegFile::GsInstanceId => Ok(Src::Imm(0)),
                _ => Err(self.err(format!("a geometry shader has no {name}"))),
            };
        }
        match self.named_io.iter().find(|n| n.name == name && !n.output) {
            Some(n) => Ok(Src::Reg(Reg((self.io_base + 4 * n.slot + k as u32) as u8))),
            None => Err(self.err(format!("{name} is not declared (dcl_input {name})"))),
        }
    }

    /// A geometry shader's count of the vertices it emitted.
    pub(super) fn emit_counter(&self) -> Reg {
        let outputs = self.io.map_or(0, |io| io.outputs);
        Reg((self.io_base + 4 * (self.in_regs + outputs)) as u8)
    }

    /// Component `k` of a geometry shader's `v[vertex][reg]`: the launch's input record
    /// `invocation * vertices_in + vertex`; a vertex index at or past the primitive's vertex
    /// count reads 0.
    pub(super) fn vertex_input(&mut self, indices: &[Index], k: u8) -> Result<Src, LowerError> {
        let Some(io) = self
            .io
            .filter(|_| self.prog.version.stage == ast::Stage::Geometry)
        else {
            return Err(self.err("`v[vertex][reg]` is a geometry shader's input"));
        };
        let Some(&Index::Imm(reg)) = indices.get(1) else {
            return Err(self.err("an input register v[vertex][reg] needs a literal register"));
        };
        if reg >= io.inputs {
            return Err(self.err(format!("v{reg} is not declared")));
        }
        let nv = io.vertices_in;
        let inv = Src::Reg(self.invocation());
        let t = self.scratch()?;
        match &indices[0] {
            Index::Imm(v) if *v < nv => self.emit(Tern {
                d: t,
                f: TernFn::Imad,
                a: inv,
                b: Src::Imm(nv),
                c: Src::Imm(*v),
            }),
            Index::Imm(_) => self.emit(Mov {
                d: t,
                b: Src::Imm(u32::MAX),
            }),
            Index::Reg(o) | Index::RegPlus(o, _) => {
                let n = match &indices[0] {
                    Index::RegPlus(_, n) => *n,
                    _ => 0,
                };
                let o = (**o).clone();
                let v = self.src(&o, 0, Ty::Int)?;
                let ok = self.scratch()?;
                self.emit(Bin {
                    d: t,
                    f: BinFn::Iadd,
                    a: v,
                    b: Src::Imm(n),
                });
                self.record_index(t, ok, Src::Reg(t), inv, nv);
            }
        }
        self.emit(LdBuf {
            d: [t, Reg::RZ, Reg::RZ, Reg::RZ],
            view: View::Input,
            stride: 16 * io.inputs,
            index: Src::Reg(t),
            offset: Src::Imm(16 * reg),
            comp: [k, 0, 0, 0],
        });
        Ok(Src::Reg(t))
    }

    /// Into `t`, the record `inv * count + i` of invocation `inv`'s `i`th of `count` (`ok`, a
    /// scratch register, is whether `i < count`), or `u32::MAX`, past every record, when `i`
    /// is out of range.
    fn record_index(&mut self, t: Reg, ok: Reg, i: Src, inv: Src, count: u32) {
        self.emit(Bin {
            d: ok,
            f: BinFn::Ult,
            a: i,
            b: Src::Imm(count),
        });
        self.emit(Tern {
            d: t,
            f: TernFn::Imad,
            a: inv,
            b: Src::Imm(count),
            c: i,
        });
        self.emit(Tern {
            d: t,
            f: TernFn::Movc,
            a: Src::Reg(ok),
            b: Src::Reg(t),
            c: Src::Imm(u32::MAX),
        });
    }

    /// `emit`: a geometry shader's `o#` registers become its next output record
    /// (`invocation * vertices_out + n` for its `n`th emit; dropped past `dcl_maxout`).
    pub(super) fn emit_vertex(&mut self) -> Result<(), LowerError> {
        let Some(io) = self
            .io
            .filter(|_| self.prog.version.stage == ast::Stage::Geometry)
        else {
            return Err(self.err("`emit` is a geometry shader instruction"));
        };
        let (n, inv) = (self.emit_counter(), self.invocation());
        let (t, ok) = (self.scratch()?, self.scratch()?);
        self.record_index(t, ok, Src::Reg(n), Src::Reg(inv), io.vertices_out);
        for i in 0..io.outputs {
            let base = self.io_base + 4 * (self.in_regs + i);
            self.emit(StBuf {
                view: View::Output,
                stride: 16 * io.outputs,
                index: Src::Reg(t),
                offset: Src::Imm(16 * i),
                v: std::array::from_fn(|k| Src::Reg(Reg((base + k as u32) as u8))),
                mask: 0xf,
            });
        }
        self.emit(Bin {
            d: n,
            f: BinFn::Iadd,
            a: Src::Reg(n),
            b: Src::Imm(1),
        });
        Ok(())
    }

    /// The invocation index register of a vertex or pixel shader.
    pub(super) fn invocation(&self) -> Reg {
        Reg((self.sysval_base + 10) as u8)
    }

    /// A vertex or pixel shader's start: its invocation index (32 a CTA), the lanes past the
    /// launch's invocation count exit, and the others load their `v#` registers.
    pub(super) fn invocation_prologue(&mut self) {
        let Some(io) = self.io else { return };
        let (t, c, inv) = (self.scratch_base, self.scratch_base + 1, self.invocation());
        self.emit(S2r {
            d: Reg(t as u8),
            sr: SpecialReg::TidX,
        });
        self.emit(S2r {
            d: Reg(c as u8),
            sr: SpecialReg::CtaidX,
        });
        self.emit(Tern {
            d: inv,
            f: TernFn::Imad,
            a: Src::Reg(Reg(c as u8)),
            b: Src::Imm(32),
            c: Src::Reg(Reg(t as u8)),
        });
        self.emit(Isetp {
            cmp: Cmp::Ge,
            unsigned: true,
            x: false,
            bop: BoolOp::And,
            p: P_COND,
            q: Pred::PT,
            a: inv,
            b: Src::Const(ConstRef {
                bank: INVOCATIONS_BANK,
                offset: 0,
            }),
            c: PredSrc::TRUE,
        });
        let pc = self.pc;
        self.finish_into(|next| Terminator::Exit {
            cond: Cond {
                guard: Guard(PredSrc {
                    pred: P_COND,
                    neg: false,
                }),
                cc: None,
            },
            next: Some(next),
            pc: Some(pc),
        });
        if self.prog.version.stage == ast::Stage::Geometry {
            // Its inputs stay where they are; it has emitted nothing yet.
            self.emit(Mov {
                d: self.emit_counter(),
                b: Src::Imm(0),
            });
            return;
        }
        for i in 0..io.inputs {
            let base = self.io_base + 4 * i;
            self.emit(LdBuf {
                d: std::array::from_fn(|k| Reg((base + k as u32) as u8)),
                view: View::Input,
                stride: 16 * io.inputs,
                index: Src::Reg(inv),
                offset: Src::Imm(16 * i),
                comp: [0, 1, 2, 3],
            });
        }
        if let Some(live) = io.live {
            // A pixel (not a helper of its quad) has a non-zero word 0 in the hidden slot.
            self.emit(Isetp {
                cmp: Cmp::Ne,
                unsigned: true,
                x: false,
                bop: BoolOp::And,
                p: P_LIVE,
                q: Pred::PT,
                a: Reg((self.io_base + 4 * live) as u8),
                b: Src::Imm(0),
                c: PredSrc::TRUE,
            });
        }
    }

    /// The guard of what only a pixel shader's live lanes do (their outputs, UAV accesses),
    /// combined with `guard`: `guard` itself in the other stages.
    pub(super) fn live_guard(&mut self, guard: Guard) -> Guard {
        if self.io.is_none_or(|io| io.live.is_none()) {
            return guard;
        }
        let live = PredSrc {
            pred: P_LIVE,
            neg: false,
        };
        if guard.is_always() {
            return Guard(live);
        }
        self.emit(Psetp {
            bop1: BoolOp::And,
            bop2: BoolOp::And,
            p: P_TMP,
            q: Pred::PT,
            a: guard.0,
            b: live,
            c: PredSrc::TRUE,
        });
        Guard(PredSrc {
            pred: P_TMP,
            neg: false,
        })
    }

    /// Emits an op with a side effect outside the invocation (a UAV store or atomic): in a
    /// pixel shader only for its live lanes (Direct3D ignores helpers' and discarded pixels'
    /// UAV accesses).
    pub(super) fn emit_effect(&mut self, op: impl Into<Op>) {
        let g = self.live_guard(Guard::ALWAYS);
        self.emit_guarded(g, op);
    }

    /// A vertex or pixel shader's end: the lanes `guard` lets through write their `o#`
    /// registers to the launch's outputs (nothing for a compute shader).
    pub(super) fn store_outputs(&mut self, guard: Guard) {
        let Some(io) = self.io else { return };
        if self.prog.version.stage == ast::Stage::Geometry {
            // A geometry shader's outputs are what it emits.
            return;
        }
        let inv = self.invocation();
        let guard = self.live_guard(guard);
        for i in 0..io.outputs {
            let base = self.io_base + 4 * (self.in_regs + i);
            self.emit_guarded(
                guard,
                StBuf {
                    view: View::Output,
                    stride: 16 * io.outputs,
                    index: Src::Reg(inv),
                    offset: Src::Imm(16 * i),
                    v: std::array::from_fn(|k| Src::Reg(Reg((base + k as u32) as u8))),
                    mask: 0xf,
                },
            );
        }
    }
}

/// A pixel shader's `v#` declarations: how each register is interpolated, and which holds
/// `SV_Position`.
pub(super) fn pixel_inputs(prog: &ast::Program) -> Vec<PixelInput> {
    let mut out: Vec<PixelInput> = Vec::new();
    for d in prog.decls() {
        let Decl::Input {
            interpolation,
            reg,
            sv,
            ..
        } = d
        else {
            continue;
        };
        let OperandValue::Reg {
            file: RegFile::Input,
            indices,
        } = &reg.value
        else {
            continue;
        };
        let Some(Index::Imm(r)) = indices.first() else {
            continue;
        };
        // position, clip and cull distances are interpolated floats; the other system values
        // (render target and viewport index, ids, is_front_face, sampleIndex) are integers.
        let sv = sv.map(|(_, v)| v.0);
        let position = sv == Some(1);
        let constant = *interpolation == ast::Interpolation::Constant
            || sv.is_some_and(|v| (4..=10).contains(&v));
        match out.iter_mut().find(|p| p.reg == *r) {
            Some(p) => {
                p.constant |= constant;
                p.position |= position;
            }
            None => out.push(PixelInput {
                reg: *r,
                constant,
                position,
            }),
        }
    }
    out
}

/// A geometry shader's input vertices per invocation (from `dcl_inputprimitive`, else the
/// first index of its `dcl_input v[n][reg]`) and `dcl_maxout`.
pub(super) fn geometry_shape(prog: &ast::Program) -> Result<(u32, u32), LowerError> {
    let mut vertices = None;
    let mut maxout = None;
    for d in prog.decls() {
        match d {
            Decl::InputPrimitive(p) => {
                vertices = match p.0 {
                    1 => Some(1),
                    2 => Some(2),
                    3 => Some(3),
                    6 => Some(4),
                    7 => Some(6),
                    n @ 8..=39 => Some(n - 7),
                    _ => vertices,
                }
            }
            Decl::Input { reg, .. } if vertices.is_none() => {
                if let OperandValue::Reg { indices, .. } = &reg.value {
                    if let (Some(Index::Imm(n)), 2) = (indices.first(), indices.len()) {
                        vertices = Some(*n);
                    }
                }
            }
            Decl::MaxOutputVertexCount(n) => maxout = Some(*n),
            _ => {}
        }
    }
    let err = |message: &str| LowerError {
        stmt: None,
        message: message.into(),
    };
    let vertices = vertices.filter(|n| (1..=32).contains(n)).ok_or_else(|| {
        err("a geometry shader needs `dcl_inputprimitive` (point, line, triangle, ...)")
    })?;
    let maxout = maxout
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| err("a geometry shader needs `dcl_maxout n` (1 to 1024)"))?;
    Ok((vertices, maxout))
}

/// The name of a special input or output register file, and whether it is an output: what a
/// trace's `[[launch.input]]` / `[[launch.expect_output]]` names it.
pub(super) fn special_io(file: RegFile) -> Option<(&'static str, bool)> {
    Some(match file {
        RegFile::InputPrimitiveId => ("vPrim", false),
        RegFile::InputCoverageMask => ("vCoverage", false),
        RegFile::InnerCoverage => ("vInnerCoverage", false),
        RegFile::GsInstanceId => ("vGSInstanceID", false),
        RegFile::OutputDepth => ("oDepth", true),
        RegFile::OutputDepthGe => ("oDepthGE", true),
        RegFile::OutputDepthLe => ("oDepthLE", true),
        RegFile::OutputCoverageMask => ("oMask", true),
        RegFile::OutputStencilRef => ("oStencilRef", true),
        _ => return None,
    })
}
