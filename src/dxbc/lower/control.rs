//! Lowering of DXBC's structured control flow (`if`/`else`/`endif`, `loop`, `break` and
//! `continue`, `switch`/`case`/`default`) into IR blocks and reconvergence regions, and of the
//! instructions that end or change a thread's path (`ret`, `retc`, `discard`, `emit`, `cut`,
//! `sync`).

use super::*;

impl Lower<'_> {
    /// Lowers a control-flow or stage instruction; `false` if `inst` is none of them.
    pub(super) fn control(&mut self, inst: &ast::Inst) -> Result<bool, LowerError> {
        use Opcode as O;
        let pc = self.pc;
        match inst.opcode {
            O::If => {
                let cond = self.condition(inst)?;
                let end = self.new_block();
                self.finish_into(|next| Terminator::Push {
                    region: Region::Sync,
                    target: end,
                    next,
                    pc,
                });
                let (then, else_blk) = (self.new_block(), self.new_block());
                // The lanes whose condition fails take the branch to the else part.
                let taken = Cond {
                    guard: Guard(PredSrc {
                        pred: cond.guard.0.pred,
                        neg: !cond.guard.0.neg,
                    }),
                    cc: None,
                };
                self.finish(Terminator::Branch {
                    cond: taken,
                    taken: else_blk,
                    fallthrough: then,
                    pc,
                });
                self.start(then);
                self.frames.push(Frame::If {
                    else_blk,
                    end,
                    has_else: false,
                });
            }
            O::Else => {
                let Some(Frame::If {
                    else_blk, has_else, ..
                }) = self.frames.last_mut()
                else {
                    return Err(self.err("`else` without `if`"));
                };
                if *has_else {
                    return Err(self.err("a second `else` for one `if`"));
                }
                *has_else = true;
                let e = *else_blk;
                self.wait(Region::Sync, Cond::ALWAYS, e);
                self.start(e);
            }
            O::EndIf => {
                let Some(Frame::If {
                    else_blk,
                    end,
                    has_else,
                }) = self.frames.pop()
                else {
                    return Err(self.err("`endif` without `if`"));
                };
                if !has_else {
                    self.wait(Region::Sync, Cond::ALWAYS, else_blk);
                    self.start(else_blk);
                }
                self.wait(Region::Sync, Cond::ALWAYS, end);
                self.start(end);
            }
            O::Loop => {
                let (head, latch, exit) = (self.new_block(), self.new_block(), self.new_block());
                self.finish(Terminator::Push {
                    region: Region::Break,
                    target: exit,
                    next: head,
                    pc,
                });
                self.start(head);
                self.finish_into(|next| Terminator::Push {
                    region: Region::Continue,
                    target: latch,
                    next,
                    pc,
                });
                self.frames.push(Frame::Loop { head, latch, exit });
            }
            O::EndLoop => {
                let Some(Frame::Loop { head, latch, exit }) = self.frames.pop() else {
                    return Err(self.err("`endloop` without `loop`"));
                };
                self.wait(Region::Continue, Cond::ALWAYS, latch);
                self.start(latch);
                self.finish(Terminator::Jump {
                    target: head,
                    pc: Some(pc),
                });
                self.start(exit);
            }
            O::Break | O::Breakc => {
                if self.frames.loops + self.frames.switches == 0 {
                    return Err(self.err("`break` outside a loop or switch"));
                }
                let cond = if inst.opcode == O::Breakc {
                    self.condition(inst)?
                } else {
                    Cond::ALWAYS
                };
                self.finish_into(|next| Terminator::Wait {
                    region: Region::Break,
                    cond,
                    next,
                    pc,
                });
            }
            O::Continue | O::Continuec => {
                if self.frames.loops == 0 {
                    return Err(self.err("`continue` outside a loop"));
                }
                let cond = if inst.opcode == O::Continuec {
                    self.condition(inst)?
                } else {
                    Cond::ALWAYS
                };
                self.finish_into(|next| Terminator::Wait {
                    region: Region::Continue,
                    cond,
                    next,
                    pc,
                });
            }
            O::Switch => {
                let Some(op) = inst.operands.first() else {
                    return Err(self.err("`switch` needs an operand"));
                };
                let selector = self.src(op, 0, Ty::Int)?;
                let selector = match selector {
                    Src::Reg(r) if r.0 as u32 >= self.scratch_base => {
                        return Err(self.err("a `switch` selector with a modifier is not supported"))
                    }
                    s => s,
                };
                let (end, first_test) = (self.new_block(), self.new_block());
                self.finish(Terminator::Push {
                    region: Region::Break,
                    target: end,
                    next: first_test,
                    pc,
                });
                self.frames.push(Frame::Switch {
                    end,
                    first_test,
                    selector,
                    cases: Vec::new(),
                    seen: Default::default(),
                });
            }
            O::Case | O::Default => {
                let value = if inst.opcode == O::Case {
                    match inst.operands.first().map(|o| &o.value) {
                        Some(OperandValue::Imm32(v)) if v.len() == 1 => Some(v[0]),
                        _ => return Err(self.err("`case` takes one literal")),
                    }
                } else {
                    None
                };
                if !matches!(self.frames.last(), Some(Frame::Switch { .. })) {
                    return Err(self.err("`case` or `default` outside a switch"));
                }
                // Consecutive labels share a body; a body that does not break falls through.
                let body = match self.cur {
                    Some(b) if self.blocks[b as usize].insts.is_empty() => b,
                    Some(_) => {
                        let b = self.new_block();
                        self.finish(Terminator::Jump {
                            target: b,
                            pc: None,
                        });
                        self.start(b);
                        b
                    }
                    None => {
                        let b = self.new_block();
                        self.start(b);
                        b
                    }
                };
                if let Some(Frame::Switch { cases, seen, .. }) = self.frames.last_mut() {
                    if !seen.insert(value) {
                        return Err(self.err("a case value or `default` repeated in one switch"));
                    }
                    cases.push((value, body));
                }
            }
            O::EndSwitch => {
                let Some(Frame::Switch {
                    end,
                    first_test,
                    selector,
                    cases,
                    ..
                }) = self.frames.pop()
                else {
                    return Err(self.err("`endswitch` without `switch`"));
                };
                self.wait(Region::Break, Cond::ALWAYS, end);
                // The tests, in case order; `default` (or, without one, the end) last.
                let mut test = first_test;
                let values: Vec<(u32, BlockId)> = cases
                    .iter()
                    .filter_map(|(v, b)| v.map(|v| (v, *b)))
                    .collect();
                let default = cases.iter().find(|(v, _)| v.is_none()).map(|(_, b)| *b);
                let sel = match selector {
                    Src::Reg(r) => Some(r),
                    _ => None,
                };
                for (v, body) in values {
                    self.start(test);
                    let a = match sel {
                        Some(r) => r,
                        None => {
                            let t = Reg(self.scratch_base as u8);
                            self.emit(Mov { d: t, b: selector });
                            t
                        }
                    };
                    self.emit(Isetp {
                        cmp: Cmp::Eq,
                        unsigned: true,
                        x: false,
                        bop: BoolOp::And,
                        p: P_COND,
                        q: Pred::PT,
                        a,
                        b: Src::Imm(v),
                        c: PredSrc::TRUE,
                    });
                    let next = self.new_block();
                    self.finish(Terminator::Branch {
                        cond: Cond {
                            guard: Guard(PredSrc {
                                pred: P_COND,
                                neg: false,
                            }),
                            cc: None,
                        },
                        taken: body,
                        fallthrough: next,
                        pc,
                    });
                    test = next;
                }
                self.start(test);
                match default {
                    Some(b) => self.finish(Terminator::Jump {
                        target: b,
                        pc: None,
                    }),
                    None => self.wait(Region::Break, Cond::ALWAYS, end),
                }
                self.start(end);
            }
            O::Ret => {
                self.store_outputs(Guard::ALWAYS);
                self.finish_into(|next| Terminator::Exit {
                    cond: Cond::ALWAYS,
                    next: Some(next),
                    pc: Some(pc),
                });
            }
            O::Retc => {
                let cond = self.condition(inst)?;
                self.store_outputs(cond.guard);
                self.finish_into(|next| Terminator::Exit {
                    cond,
                    next: Some(next),
                    pc: Some(pc),
                });
            }
            O::Emit | O::EmitStream | O::EmitThenCut | O::EmitThenCutStream => {
                self.emit_vertex()?;
            }
            O::Cut | O::CutStream => {
                if self.prog.version.stage != ast::Stage::Geometry {
                    return Err(self.err("`cut` is a geometry shader instruction"));
                }
                // A strip's end is not observable in the records: nothing to do.
            }
            O::Discard => {
                if self.prog.version.stage != ast::Stage::Pixel {
                    return Err(self.err("`discard` is a pixel shader instruction"));
                }
                // A discarded pixel runs on as a helper of its quad (for its neighbours'
                // derivatives): its outputs and UAV accesses no longer take effect.
                let cond = self.condition(inst)?;
                let keep = PredSrc {
                    pred: cond.guard.0.pred,
                    neg: !cond.guard.0.neg,
                };
                self.emit(Psetp {
                    bop1: BoolOp::And,
                    bop2: BoolOp::And,
                    p: P_LIVE,
                    q: Pred::PT,
                    a: PredSrc {
                        pred: P_LIVE,
                        neg: false,
                    },
                    b: keep,
                    c: PredSrc::TRUE,
                });
            }
            O::Sync => {
                if inst.sync.threads {
                    self.finish_into(|next| Terminator::Barrier {
                        id: 0,
                        cond: Cond::ALWAYS,
                        red: None,
                        count: 0,
                        arrive: false,
                        next,
                        pc,
                    });
                }
                // A memory fence alone orders nothing more: a warp runs its lanes in lockstep and
                // warps of a group in turn between barriers.
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Ends the open block waiting at the innermost `region` entry; `next` follows in order.
    fn wait(&mut self, region: Region, cond: Cond, next: BlockId) {
        let pc = self.pc;
        self.finish(Terminator::Wait {
            region,
            cond,
            next,
            pc,
        });
    }
}
