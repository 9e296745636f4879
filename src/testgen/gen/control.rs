//! Control-flow statements: lane-varying conditions, if/else with and without SSY/SYNC,
//! counted and endless loops (with BRA, or PBK/BRK and PCNT/CONT), switches (BRX over a jump
//! table in constant bank 2, as ptxas writes them), EXIT, BAR.SYNC, BAR.RED with B2R.RESULT, and
//! BAR.ARV/BAR.SYNC with a thread count.

use super::{floor_pow2, Gen, TableEntry};
use crate::ir::*;

/// Where the generator's jump tables start in constant bank 2, and how many words they may
/// take in all (inside the bank's randomly filled low area, which every case rewrites).
pub(super) const TABLE_BASE: u32 = 0x300;
/// See [`TABLE_BASE`].
pub(super) const TABLE_WORDS: u32 = 0x40;

impl Gen<'_, '_> {
    /// Computes a predicate that varies across lanes, warps, CTAs, or not at all.
    pub(super) fn cond(&mut self, p: Pred) {
        match self.weighted(&[30, 30, 20, 10, 10]) {
            0 => {
                let m = self.range(1, 31);
                self.emit(format!("LOP.AND.NZ {p}, RZ, R27, {m:#x}"));
            }
            1 => {
                let mut i = self.isetp();
                if let Op::Isetp(o) = &mut i {
                    o.p = p;
                    o.x = false;
                    o.c = PredSrc::TRUE;
                    o.bop = BoolOp::And;
                }
                self.op0(i);
            }
            2 => {
                let t = if self.chance(50) {
                    32 * self.range(1, 2)
                } else {
                    self.below(self.threads_per_cta + 1)
                };
                self.emit(format!("ISETP.LT.U32.AND {p}, PT, R25, {t:#x}, PT"));
            }
            3 => self.emit(format!("ISETP.EQ.AND {p}, PT, R26, RZ, PT")),
            _ => {
                let (a, b) = (self.psrc(), self.psrc());
                self.emit(format!("PSETP.AND.OR {p}, PT, {a}, {b}, PT"));
            }
        }
    }

    pub(super) fn if_stmt(&mut self, depth: u32) {
        let ssy = self.chance(55);
        let has_else = self.chance(60);
        let p = Pred(self.below(7) as u8);
        let cc = self.chance(15);
        if cc {
            // A CC.EQ / CC.NE branch on a fresh .CC result.
            let d = self.dst();
            let o = self.iadd3(d);
            let o = match o {
                Op::Iadd3(mut x) => {
                    x.cc = true;
                    x
                }
                _ => unreachable!(),
            };
            self.op0(o);
        } else {
            self.cond(p);
        }
        let (l_else, l_end) = (self.new_label(), self.new_label());
        if ssy {
            let t = self.target(&l_end);
            self.emit(format!("SSY {t}"));
            self.ssy_depth += 1;
        }
        let t = self.target(&l_else);
        let neg = if self.chance(50) { "!" } else { "" };
        if cc {
            let test = self.pick(&["CC.EQ", "CC.NE"]);
            let guard = if self.chance(30) {
                format!("@{neg}{p} ")
            } else {
                String::new()
            };
            self.emit(format!("{guard}BRA {test}, {t}"));
        } else {
            self.emit(format!("@{neg}{p} BRA {t}"));
        }
        let n = self.range(1, 5) as usize;
        self.stmts(n, depth + 1);
        if ssy {
            self.emit("SYNC");
        } else {
            let t = self.target(&l_end);
            self.emit(format!("BRA {t}"));
        }
        self.place(&l_else);
        if has_else {
            let n = self.range(1, 4) as usize;
            self.stmts(n, depth + 1);
        }
        if ssy {
            self.emit("SYNC");
            self.ssy_depth -= 1;
        }
        self.place(&l_end);
    }

    pub(super) fn loop_stmt(&mut self, depth: u32) {
        let lvl = self.loop_depth;
        let cnt = Reg(20 + 2 * lvl);
        let lim = Reg(21 + 2 * lvl);
        self.loop_depth += 1;
        let kind = self.weighted(&[35, 30, 20, 15]);
        if kind == 3 {
            self.pbk_loop(cnt, lim, depth);
            self.loop_depth -= 1;
            return;
        }
        let (l_top, l_after) = (self.new_label(), self.new_label());
        let ssy = kind == 1 && self.chance(50);
        match kind {
            0 => self.emit(format!("MOV {cnt}, RZ")),
            1 => {
                self.emit(format!("MOV {cnt}, RZ"));
                let src = self.pick(&["R27", "R24", "R25", "R3"]);
                self.emit(format!("LOP32I.AND {lim}, {src}, 0x3"));
                self.emit(format!("IADD32I {lim}, {lim}, 0x1"));
            }
            _ => {
                let n = self.range(1, 4);
                self.emit(format!("MOV32I {cnt}, {n:#x}"));
            }
        }
        if ssy {
            let t = self.target(&l_after);
            self.emit(format!("SSY {t}"));
            self.ssy_depth += 1;
        }
        self.place(&l_top);
        let n = self.range(1, 4) as usize;
        self.stmts(n, depth + 1);
        let t = self.target(&l_top);
        let p = Pred(self.below(7) as u8);
        match kind {
            0 => {
                let n = self.range(1, 5);
                self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
                self.emit(format!("ISETP.LT.AND {p}, PT, {cnt}, {n:#x}, PT"));
                self.emit(format!("@{p} BRA {t}"));
            }
            1 => {
                self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
                self.emit(format!("ISETP.LT.U32.AND {p}, PT, {cnt}, {lim}, PT"));
                self.emit(format!("@{p} BRA {t}"));
            }
            _ => {
                self.emit(format!("IADD32I {cnt}.CC, {cnt}, -0x1"));
                self.emit(format!("BRA CC.NE, {t}"));
            }
        }
        if ssy {
            self.emit("SYNC");
            self.ssy_depth -= 1;
            self.place(&l_after);
        }
        self.loop_depth -= 1;
    }

    /// A loop with a lane-varying trip count (1 to 4) built as ptxas builds loops with `break`
    /// and `continue`: PBK before it, and (in some) PCNT at the top of each iteration with an
    /// unconditional CONT at its end; the body may BRK or CONT from any depth ([`Gen::misc`]),
    /// inside SSY regions included.
    fn pbk_loop(&mut self, cnt: Reg, lim: Reg, depth: u32) {
        let (l_top, l_next, l_exit) = (self.new_label(), self.new_label(), self.new_label());
        let cont = self.chance(60);
        self.emit(format!("MOV {cnt}, RZ"));
        let src = self.pick(&["R27", "R24", "R25", "R3"]);
        self.emit(format!("LOP32I.AND {lim}, {src}, 0x3"));
        self.emit(format!("IADD32I {lim}, {lim}, 0x1"));
        let t = self.target(&l_exit);
        self.emit(format!("PBK {t}"));
        self.place(&l_top);
        if cont {
            let t = self.target(&l_next);
            self.emit(format!("PCNT {t}"));
            self.cont_depth += 1;
        }
        self.brk_depth += 1;
        let n = self.range(1, 4) as usize;
        self.stmts(n, depth + 1);
        self.brk_depth -= 1;
        if cont {
            self.cont_depth -= 1;
            self.emit("CONT");
        }
        self.place(&l_next);
        let p = Pred(self.below(7) as u8);
        self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
        self.emit(format!("ISETP.GE.U32.AND {p}, PT, {cnt}, {lim}, PT"));
        if self.chance(50) {
            self.emit(format!("@{p} BRK"));
            let t = self.target(&l_top);
            self.emit(format!("BRA {t}"));
        } else {
            let t = self.target(&l_top);
            self.emit(format!("@!{p} BRA {t}"));
            self.emit("BRK");
        }
        self.place(&l_exit);
    }

    /// A switch as ptxas compiles it: an index from lane-varying or uniform data, clamped so
    /// that the last of the table's `k + 1` words is the default, loaded from constant bank 2
    /// and taken by BRX to one of `k + 1` cases, inside an SSY/SYNC or PBK/BRK region or none
    /// (the cases then jump to the end). Sometimes guarded (the lanes whose guard fails run a
    /// fall-through body), sometimes with a table entry at a case's scheduling word (the
    /// instruction after it), rarely with an entry no case is at (a bad-branch-target fault).
    /// The table's words and the BRX's offset are set once the program's pcs are known
    /// ([`Gen::resolve_switches`]).
    pub(super) fn switch_stmt(&mut self, depth: u32) {
        let k = self.range(1, 5);
        if self.table_words + k + 1 > TABLE_WORDS {
            return self.if_stmt(depth);
        }
        let base = TABLE_BASE + 4 * self.table_words;
        self.table_words += k + 1;
        let cases: Vec<String> = (0..=k).map(|_| self.new_label()).collect();
        let l_end = self.new_label();
        let region = self.weighted(&[40, 35, 25]);
        let guarded = self.chance(20);
        let p = Pred(self.below(7) as u8);
        if guarded {
            self.cond(p);
        }
        let src = self.pick(&["R27", "R25", "R24", "R26", "R3", "R7"]);
        let mask = self.pick(&[0x1u32, 0x3, 0x7, 0xf]);
        self.emit(format!("LOP32I.AND R16, {src}, {mask:#x}"));
        self.emit(format!("IMNMX.U32 R16, R16, {k:#x}, PT"));
        self.emit("SHL R16, R16, 0x2");
        let t = self.target(&l_end);
        match region {
            0 => {
                self.emit(format!("SSY {t}"));
                self.ssy_depth += 1;
            }
            1 => self.emit(format!("PBK {t}")),
            _ => {}
        }
        self.emit(format!("LDC R16, c[0x2][R16+{base:#x}]"));
        let mut entries = Vec::with_capacity(cases.len());
        for c in &cases {
            let e = match self.weighted(&[90, 8, 1, 1]) {
                0 => TableEntry::Label(c.clone(), false),
                1 => TableEntry::Label(c.clone(), true),
                // An instruction that is not a declared target, an address between two.
                2 => TableEntry::Label(l_end.clone(), false),
                _ => TableEntry::Between(c.clone()),
            };
            entries.push(e);
        }
        self.switches.push((base, entries));
        // The note's targets in any order, some twice.
        let mut named: Vec<&str> = cases.iter().map(String::as_str).collect();
        if self.chance(30) {
            named.reverse();
        }
        if self.chance(20) {
            named.push(&cases[0]);
        }
        let g = if guarded {
            let neg = if self.chance(50) { "!" } else { "" };
            format!("@{neg}{p} ")
        } else {
            String::new()
        };
        let note = named.join(",");
        // The offset is set later: 0x0 stands for it.
        self.emit(format!("{g}BRX R16 0x0 (*\"BRANCH_TARGETS {note}\"*)"));
        let leave = |g: &mut Self| match region {
            0 => g.emit("SYNC"),
            1 => g.emit("BRK"),
            _ => {
                let t = g.target(&l_end);
                g.emit(format!("BRA {t}"));
            }
        };
        if guarded {
            let n = self.range(1, 2) as usize;
            self.stmts(n, depth + 1);
            leave(self);
        }
        for c in &cases {
            self.place(c);
            let n = self.range(1, 3) as usize;
            self.stmts(n, depth + 1);
            leave(self);
        }
        if region == 0 {
            self.ssy_depth -= 1;
        }
        self.place(&l_end);
    }

    /// `@P BRK` or `@P CONT` out of the innermost PBK loop or PCNT iteration, if there is one.
    pub(super) fn break_or_continue(&mut self) -> bool {
        let brk = self.brk_depth > 0;
        let cont = self.cont_depth > 0;
        if !brk && !cont {
            return false;
        }
        let p = Pred(self.below(7) as u8);
        self.cond(p);
        let neg = if self.chance(50) { "!" } else { "" };
        let what = if brk && (!cont || self.chance(50)) {
            "BRK"
        } else {
            "CONT"
        };
        self.emit(format!("@{neg}{p} {what}"));
        true
    }

    pub(super) fn inf_loop(&mut self) {
        self.inf_loop = true;
        let l = self.new_label();
        self.place(&l);
        let n = self.range(1, 4) as usize;
        self.stmts(n, 1);
        let t = self.target(&l);
        match self.below(3) {
            0 => self.emit(format!("BRA {t}")),
            1 => self.emit(format!("@PT BRA {t}")),
            _ => {
                self.emit("IADD RZ.CC, RZ, RZ");
                self.emit(format!("BRA CC.EQ, {t}"));
            }
        }
    }

    pub(super) fn exit_stmt(&mut self, depth: u32) {
        match self.weighted(&[60, 25, if depth > 0 { 15 } else { 0 }]) {
            0 => {
                let p = Pred(self.below(7) as u8);
                self.cond(p);
                let neg = if self.chance(50) { "!" } else { "" };
                self.emit(format!("@{neg}{p} EXIT"));
            }
            1 => {
                let test = self.pick(&super::int::CC_TESTS);
                let g = self.guard();
                self.emit(format!("{g}EXIT {test}"));
            }
            _ => self.emit("EXIT"),
        }
    }

    /// A loop whose every iteration takes a ticket from a word of shared memory (`ATOMS.ADD`,
    /// lanes in order) into a register the epilogue stores, with no barrier: which tickets a
    /// warp gets depends on where the turns of its CTA's warps end (docs/semantics.md §9), so
    /// an engine that ended them elsewhere than the interpreter would leave other values.
    pub(super) fn ticket_loop(&mut self) {
        let lvl = self.loop_depth;
        let cnt = Reg(20 + 2 * lvl);
        let l_top = self.new_label();
        let d = Reg(self.below(16) as u8);
        let step = self.range(1, 3);
        let n = self.range(2, 6);
        let p = Pred(self.below(7) as u8);
        self.emit(format!("MOV {cnt}, RZ"));
        self.emit(format!("MOV32I R19, {step:#x}"));
        self.place(&l_top);
        self.emit(format!("ATOMS.ADD {d}, [0x0], R19"));
        if self.chance(50) {
            self.emit(format!("IADD R18, {d}, R25"));
        }
        self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
        self.emit(format!("ISETP.LT.AND {p}, PT, {cnt}, {n:#x}, PT"));
        let t = self.target(&l_top);
        self.emit(format!("@{p} BRA {t}"));
    }

    pub(super) fn barrier(&mut self) {
        let id = [0u8, 1, 15][self.weighted(&[80, 15, 5])];
        let g = if self.chance(20) {
            Guard(self.psrc())
        } else {
            Guard::ALWAYS
        };
        if self.shared_bytes >= 8 && self.chance(60) {
            // Exchange words between threads (and warps) through shared memory.
            let m = (floor_pow2(self.shared_bytes) - 1) & !3;
            self.emit("ISCADD R18, R25, RZ, 0x2");
            self.emit(format!("LOP32I.AND R18, R18, {m:#x}"));
            let v = self.sreg();
            self.emit(format!("STS [R18], {v}"));
            self.emit(format!("{g}BAR.SYNC {id:#x}"));
            let x = self.pick(&[0x80u32, 0x4, 0x100, 0x84]);
            self.emit(format!("LOP32I.XOR R19, R18, {x:#x}"));
            self.emit(format!("LOP32I.AND R19, R19, {m:#x}"));
            let d = self.dst();
            self.emit(format!("LDS {d}, [R19]"));
        } else if self.chance(50) {
            // A barrier reduction of a predicate (exited, inactive and guarded-off lanes take
            // no part), read back by every lane; sometimes with a thread count (a warp per
            // arrival), which may complete early or never.
            let op = self.pick(&["POPC", "AND", "OR"]);
            let n = if self.chance(15) {
                format!(", {:#x}", 32 * (1 + self.below(4)))
            } else {
                String::new()
            };
            let p = self.psrc();
            self.emit(format!("{g}BAR.RED.{op} {id:#x}{n}, {p}"));
            let d = self.dst();
            let q = self.pdst();
            self.emit(format!("B2R.RESULT {d}, {q}"));
        } else if self.chance(10) {
            // A warp that arrives without waiting, and one that waits for the count.
            let n = 32 * (1 + self.below(4));
            self.emit(format!("{g}BAR.ARV {id:#x}, {n:#x}"));
            let g2 = self.guard();
            self.emit(format!("{g2}BAR.SYNC {id:#x}, {n:#x}"));
        } else {
            self.emit(format!("{g}BAR.SYNC {id:#x}"));
        }
    }
}
