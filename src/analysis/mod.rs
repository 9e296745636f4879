//! Static analyses of an IR [`Program`](crate::ir::Program), for the JIT.
//!
//! - [`effects`]: what each op, instruction and terminator reads and writes besides general
//!   registers (predicates, condition-code flags, the hidden LEA.LO word, memory) and whether it
//!   can fault. Register operands come from [`Op::for_each_reg`](crate::ir::Op::for_each_reg).
//!   Both are derived from each op's operand roles ([`crate::ir::roles`]), never listed here.
//! - [`liveness`](mod@liveness): per-thread backward liveness of registers, predicates, CC
//!   flags and the LEA.LO word over the CFG, per block and per instruction.
//! - [`uniformity`](mod@uniformity): which values are the same in every active lane of the
//!   warp (warp-uniform), per block entry and after each instruction, and which branches never
//!   split the warp.
//!
//! All three describe the per-thread architectural state with one set type, [`StateSet`].

pub mod cfg;
pub mod effects;
pub mod liveness;
pub mod uniformity;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod testutil;

pub use effects::{Effects, MemSpaces};
pub use liveness::{liveness, LiveSet, Liveness};
pub use uniformity::{uniformity, Uniformity};

use crate::ir::{Pred, Reg};
use warpjit_runtime::warp::{CF, OF, SF, ZF};

/// Bit of the carry flag in a flag mask (bit `f` is the flag at index `f` of `WarpState::cc`).
pub const FLAG_CF: u8 = 1 << CF;
/// Bit of the zero flag in a flag mask.
pub const FLAG_ZF: u8 = 1 << ZF;
/// Bit of the sign flag in a flag mask.
pub const FLAG_SF: u8 = 1 << SF;
/// Bit of the overflow flag in a flag mask.
pub const FLAG_OF: u8 = 1 << OF;
/// All four condition-code flags.
pub const FLAGS_ALL: u8 = FLAG_CF | FLAG_ZF | FLAG_SF | FLAG_OF;

/// The flags a control condition's CC test reads (none without a test).
pub fn cc_test_flags(t: Option<crate::ir::CcTest>) -> u8 {
    let Some(t) = t else { return 0 };
    let [z, s, c, o] = t.expr().reads();
    (if z { FLAG_ZF } else { 0 })
        | (if s { FLAG_SF } else { 0 })
        | (if c { FLAG_CF } else { 0 })
        | (if o { FLAG_OF } else { 0 })
}
/// All seven writable predicates P0..P6 as a predicate mask (bit `n` is `Pn`; `PT` has no bit).
pub const PREDS_ALL: u8 = 0x7f;

/// A set of per-thread state items: general registers R0..R254, predicates P0..P6, the four
/// condition-code flags and the hidden LEA.LO word.
///
/// `RZ` and `PT` are constants, never members: inserting them does nothing and asking for them
/// answers `false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StateSet {
    /// Registers: bit `r % 64` of word `r / 64` is `Rr`; bit 255 (`RZ`) is never set.
    pub regs: [u64; 4],
    /// Predicates: bit `n` is `Pn` (n in 0..=6); bit 7 (`PT`) is never set.
    pub preds: u8,
    /// Condition-code flags: bit `f` is the flag at index `f` of `WarpState::cc`
    /// ([`FLAG_CF`], [`FLAG_ZF`], [`FLAG_SF`], [`FLAG_OF`]).
    pub cc: u8,
    /// The hidden per-thread word written by LEA.LO and read by LEA.HI.
    pub lea_lo: bool,
}

impl StateSet {
    /// The empty set.
    pub const EMPTY: StateSet = StateSet {
        regs: [0; 4],
        preds: 0,
        cc: 0,
        lea_lo: false,
    };

    /// Every item: R0..R254, P0..P6, all four flags and the LEA.LO word.
    pub const FULL: StateSet = StateSet {
        regs: [u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 1],
        preds: PREDS_ALL,
        cc: FLAGS_ALL,
        lea_lo: true,
    };

    /// Whether register `r` is in the set (`RZ` never is).
    pub fn has_reg(&self, r: Reg) -> bool {
        !r.is_rz() && self.regs[r.index() / 64] >> (r.index() % 64) & 1 != 0
    }

    /// Adds register `r` (`RZ` is ignored).
    pub fn insert_reg(&mut self, r: Reg) {
        if !r.is_rz() {
            self.regs[r.index() / 64] |= 1 << (r.index() % 64);
        }
    }

    /// Removes register `r`.
    pub fn remove_reg(&mut self, r: Reg) {
        self.regs[r.index() / 64] &= !(1 << (r.index() % 64));
    }

    /// Adds `count` consecutive registers from `r` (a pair or quad; `RZ` stays out).
    pub fn insert_regs(&mut self, r: Reg, count: u8) {
        for k in 0..count {
            self.insert_reg(r.offset(k));
        }
    }

    /// Removes `count` consecutive registers from `r`.
    pub fn remove_regs(&mut self, r: Reg, count: u8) {
        for k in 0..count {
            self.remove_reg(r.offset(k));
        }
    }

    /// Whether every one of `count` consecutive registers from `r` is in the set (`RZ` counts
    /// as present: it is a constant).
    pub fn has_regs(&self, r: Reg, count: u8) -> bool {
        (0..count)
            .map(|k| r.offset(k))
            .all(|r| r.is_rz() || self.has_reg(r))
    }

    /// The registers in the set, lowest first.
    pub fn iter_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        (0..255u8).map(Reg).filter(move |r| self.has_reg(*r))
    }

    /// Number of registers in the set.
    pub fn reg_count(&self) -> u32 {
        self.regs.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether predicate `p` is in the set (`PT` never is).
    pub fn has_pred(&self, p: Pred) -> bool {
        !p.is_pt() && self.preds >> p.0 & 1 != 0
    }

    /// Adds predicate `p` (`PT` is ignored).
    pub fn insert_pred(&mut self, p: Pred) {
        if !p.is_pt() {
            self.preds |= 1 << p.0;
        }
    }

    /// Whether the CC flag at index `f` of `WarpState::cc` (`CF`=0, `ZF`=1, `SF`=2, `OF`=3) is
    /// in the set.
    pub fn has_flag(&self, f: usize) -> bool {
        f < 4 && self.cc >> f & 1 != 0
    }

    /// Adds the flags of a flag mask ([`FLAG_CF`] | ...).
    pub fn insert_flags(&mut self, mask: u8) {
        self.cc |= mask & FLAGS_ALL;
    }

    /// True when the set holds nothing.
    pub fn is_empty(&self) -> bool {
        *self == StateSet::EMPTY
    }

    /// Adds every item of `o`; returns whether `self` changed.
    pub fn union_with(&mut self, o: &StateSet) -> bool {
        let old = *self;
        for (a, b) in self.regs.iter_mut().zip(o.regs) {
            *a |= b;
        }
        self.preds |= o.preds;
        self.cc |= o.cc;
        self.lea_lo |= o.lea_lo;
        *self != old
    }

    /// Keeps only the items also in `o`; returns whether `self` changed.
    pub fn intersect_with(&mut self, o: &StateSet) -> bool {
        let old = *self;
        for (a, b) in self.regs.iter_mut().zip(o.regs) {
            *a &= b;
        }
        self.preds &= o.preds;
        self.cc &= o.cc;
        self.lea_lo &= o.lea_lo;
        *self != old
    }

    /// Removes every item of `o`.
    pub fn subtract(&mut self, o: &StateSet) {
        for (a, b) in self.regs.iter_mut().zip(o.regs) {
            *a &= !b;
        }
        self.preds &= !o.preds;
        self.cc &= !o.cc;
        self.lea_lo &= !o.lea_lo;
    }

    /// Whether every item of `self` is in `o`.
    pub fn is_subset(&self, o: &StateSet) -> bool {
        let mut t = *self;
        t.subtract(o);
        t.is_empty()
    }
}

impl std::fmt::Display for StateSet {
    /// `{R0 R1 P0 CF lea_lo}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut items: Vec<String> = self.iter_regs().map(|r| r.to_string()).collect();
        items.extend(
            (0..7)
                .filter(|&p| self.has_pred(Pred(p)))
                .map(|p| format!("P{p}")),
        );
        for (flag, name) in [(CF, "CF"), (ZF, "ZF"), (SF, "SF"), (OF, "OF")] {
            if self.has_flag(flag) {
                items.push(name.to_string());
            }
        }
        if self.lea_lo {
            items.push("lea_lo".to_string());
        }
        write!(f, "{{{}}}", items.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_set_basics() {
        let mut s = StateSet::EMPTY;
        s.insert_reg(Reg::RZ);
        s.insert_pred(Pred::PT);
        assert!(s.is_empty(), "RZ and PT are never members");
        s.insert_regs(Reg(4), 4);
        s.insert_regs(Reg(254), 2);
        assert_eq!(
            s.iter_regs().map(|r| r.0).collect::<Vec<_>>(),
            vec![4, 5, 6, 7, 254]
        );
        assert!(!s.has_reg(Reg::RZ));
        assert!(s.has_regs(Reg(254), 2), "RZ counts as present in has_regs");
        s.remove_regs(Reg(4), 2);
        assert_eq!(s.reg_count(), 3);
        s.insert_flags(FLAG_ZF | FLAG_OF);
        assert!(s.has_flag(ZF) && s.has_flag(OF) && !s.has_flag(CF) && !s.has_flag(7));
        s.insert_pred(Pred(6));
        assert_eq!(s.to_string(), "{R6 R7 R254 P6 ZF OF}");
        assert!(!StateSet::FULL.has_reg(Reg::RZ));
        assert!(StateSet::FULL.has_reg(Reg(254)));
        assert!(s.is_subset(&StateSet::FULL));
        let mut t = StateSet::FULL;
        assert!(t.intersect_with(&s));
        assert_eq!(t, s);
        assert!(!t.union_with(&s));
    }
}
