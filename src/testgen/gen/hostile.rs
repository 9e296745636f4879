//! Hostile control flow, small ([`Profile::Hostile`](crate::testgen::Profile::Hostile)): the
//! shapes of [`crate::testgen::hostile`] that made loading slow, with random code inside them:
//! subroutines (called from one or several places, nested, recursive), deep nests of `SSY`,
//! `PBK` and `PCNT`, chains of backward jumps, a block per statement, fans of branches on the
//! lane id, chains of divergent regions whose conditions the region before decides.

use super::Gen;
use crate::ir::*;

impl Gen<'_, '_> {
    pub(super) fn hostile(&mut self, depth: u32) {
        match self.weighted(&[25, 20, 15, 10, 15, 15]) {
            0 => self.subroutine(depth),
            1 => self.nest(depth),
            2 => self.jump_chain(depth),
            3 => self.block_per_stmt(depth),
            4 => self.fan(depth),
            _ => self.divergence_chain(),
        }
    }

    /// A subroutine, written where it stands and jumped over, then called one to three times
    /// (statements between the calls); a third of them call themselves, counting in a loop
    /// counter, up to five deep.
    fn subroutine(&mut self, depth: u32) {
        let (f, after, ret) = (self.new_label(), self.new_label(), self.new_label());
        let recursive = self.loop_depth < 2 && self.chance(33);
        let cnt = Reg(20 + 2 * self.loop_depth);
        if recursive {
            self.loop_depth += 1;
        }
        let t = self.target(&after);
        self.emit(format!("BRA {t}"));
        self.place(&f);
        if recursive {
            let p = Pred(self.below(7) as u8);
            let n = self.range(1, 5);
            self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
            self.emit(format!("ISETP.GT.U32.AND {p}, PT, {cnt}, {n:#x}, PT"));
            let t = self.target(&ret);
            self.emit(format!("@{p} BRA {t}"));
        }
        let n = self.range(1, 3) as usize;
        self.stmts(n, depth + 1);
        if recursive {
            let t = self.target(&f);
            self.emit(format!("CAL {t}"));
        }
        self.place(&ret);
        self.emit("RET");
        if recursive {
            self.loop_depth -= 1;
        }
        self.place(&after);
        for k in 0..self.range(1, 3) {
            if k > 0 {
                self.stmt(depth + 1);
            }
            if recursive {
                self.emit(format!("MOV {cnt}, RZ"));
            }
            let t = self.target(&f);
            self.emit(format!("CAL {t}"));
        }
    }

    /// Two to 24 nested `SSY`s (or `PBK`s, or `PCNT`s), a lane-varying branch and statements
    /// inside, closed by as many `SYNC`s (`BRK`s, `CONT`s).
    fn nest(&mut self, depth: u32) {
        let (push, wait) =
            [("SSY", "SYNC"), ("PBK", "BRK"), ("PCNT", "CONT")][self.below(3) as usize];
        let levels: Vec<String> = (0..self.range(2, 24)).map(|_| self.new_label()).collect();
        for l in &levels {
            let t = self.target(l);
            self.emit(format!("{push} {t}"));
        }
        let p = Pred(self.below(7) as u8);
        self.cond(p);
        let x = self.new_label();
        let t = self.target(&x);
        self.emit(format!("@{p} BRA {t}"));
        let n = self.range(1, 3) as usize;
        self.stmts(n, depth + 1);
        self.place(&x);
        for l in levels.iter().rev() {
            self.emit(wait);
            self.place(l);
        }
    }

    /// Two to ten blocks run last to first, each jumping to the one before it in the text.
    fn jump_chain(&mut self, depth: u32) {
        let links: Vec<String> = (0..self.range(2, 10)).map(|_| self.new_label()).collect();
        let end = self.new_label();
        let t = self.target(&links[links.len() - 1]);
        self.emit(format!("BRA {t}"));
        for (i, l) in links.iter().enumerate() {
            self.place(l);
            self.stmt(depth + 1);
            let to = if i == 0 { &end } else { &links[i - 1] };
            let t = self.target(to);
            self.emit(format!("BRA {t}"));
        }
        self.place(&end);
    }

    /// Three to sixteen statements, each labelled (a block each).
    fn block_per_stmt(&mut self, depth: u32) {
        for _ in 0..self.range(3, 16) {
            let l = self.new_label();
            self.place(&l);
            self.stmt(depth + 1);
        }
    }

    /// Two to twelve branches in a row on the lane id (or a data register), each to a case of
    /// its own; every way ends at one block, in an `SSY` region or by jumps.
    fn fan(&mut self, depth: u32) {
        let ssy = self.chance(50);
        let cases: Vec<String> = (0..self.range(2, 12)).map(|_| self.new_label()).collect();
        let end = self.new_label();
        if ssy {
            let t = self.target(&end);
            self.emit(format!("SSY {t}"));
        }
        let src = if self.chance(70) {
            Reg(27)
        } else {
            Reg(self.below(20) as u8)
        };
        for (i, c) in cases.iter().enumerate() {
            let p = Pred(self.below(7) as u8);
            self.emit(format!("ISETP.EQ.AND {p}, PT, {src}, {i:#x}, PT"));
            let t = self.target(c);
            self.emit(format!("@{p} BRA {t}"));
        }
        let close = |g: &mut Self| {
            if ssy {
                g.emit("SYNC");
            } else {
                let t = g.target(&end);
                g.emit(format!("BRA {t}"));
            }
        };
        close(self);
        for c in &cases {
            self.place(c);
            self.stmt(depth + 1);
            close(self);
        }
        self.place(&end);
    }

    /// Two to eight `SSY` regions in a row, each diverging on a register the one before sets
    /// in its divergent part.
    fn divergence_chain(&mut self) {
        let r = Reg(self.below(20) as u8);
        for _ in 0..self.range(2, 8) {
            let p = Pred(self.below(7) as u8);
            let (a, s) = (self.new_label(), self.new_label());
            self.emit(format!("ISETP.EQ.AND {p}, PT, {r}, 0x3, PT"));
            let t = self.target(&s);
            self.emit(format!("SSY {t}"));
            let t = self.target(&a);
            self.emit(format!("@{p} BRA {t}"));
            self.emit(format!("MOV32I {r}, 0x1"));
            self.emit("SYNC");
            self.place(&a);
            self.emit(format!("MOV32I {r}, 0x3"));
            self.emit("SYNC");
            self.place(&s);
        }
    }
}
