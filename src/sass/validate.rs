//! Typed access to a [`RawInst`] with validation: [`Args`] hands an op's parser its modifiers and
//! operands one by one, each checked (kind, prefixes, suffixes, register range and alignment,
//! immediate range) and reported at the offending token.

use super::parser::{RawInst, RawKind, RawOperand};
use super::AsmError;
use crate::diag::{did_you_mean, Note};
use crate::ir::{Addr, ConstRef, Half, Pred, PredSrc, Reg, Src, SrcLoc};

/// `-x` allowed.
pub const NEG: u8 = 1;
/// `~x` allowed.
pub const NOT: u8 = 2;
/// `.H0`/`.H1` allowed.
pub const HALF: u8 = 4;
/// `.CC` allowed (destinations).
pub const CC: u8 = 8;
/// `|x|` allowed (float sources).
pub const ABS: u8 = 16;
/// `.B0`-`.B3` byte selects allowed (conversion sources).
pub const BYTE: u8 = 32;

/// The prefixes and suffixes an operand carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `-x`.
    pub neg: bool,
    /// `~x`.
    pub not: bool,
    /// `.H0` / `.H1`.
    pub half: Half,
    /// Where `.CC` is written, if it is.
    pub cc: Option<SrcLoc>,
    /// `|x|`.
    pub abs: bool,
    /// `.B1`-`.B3`: the byte written (0 when none).
    pub byte: u8,
}

/// How an immediate literal becomes the op's 32-bit value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmRule {
    /// No immediate allowed in this slot.
    None,
    /// The ALU `Imm20` field: `v` in [-0x80000, 0xfffff] means sext20(v & 0xfffff); `v` in
    /// [0xfff80000, 0xffffffff] is accepted as that sign-extended 32-bit pattern.
    S20,
    /// Unsigned 16 bits, [0, 0xffff] (XMAD).
    U16,
    /// Any 32-bit value, [-0x80000000, 0xffffffff]; negative literals wrap.
    Any32,
}

/// A signed hex rendering for messages (`-0x10`, `0x7fff`).
pub fn hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

/// Applies `rule` to the literal `v` written at `loc`.
pub fn imm_rule(v: i64, rule: ImmRule, loc: SrcLoc) -> Result<u32, AsmError> {
    let out = |what: &str| {
        Err(AsmError::at(
            loc,
            format!("immediate {} out of range for {what}", hex(v)),
        ))
    };
    match rule {
        ImmRule::None => Err(AsmError::at(loc, "an immediate is not allowed here")),
        ImmRule::S20 if (-0x80000..=0xfffff).contains(&v) => {
            Ok((((v as u32) << 12) as i32 >> 12) as u32)
        }
        ImmRule::S20 if (0xfff8_0000..=0xffff_ffff).contains(&v) => Ok(v as u32),
        ImmRule::S20 => out(
            "a signed 20-bit field: [-0x80000, 0xfffff], or [0xfff80000, 0xffffffff] as a 32-bit pattern",
        ),
        ImmRule::U16 if (0..=0xffff).contains(&v) => Ok(v as u32),
        ImmRule::U16 => out("an unsigned 16-bit field [0, 0xffff]"),
        ImmRule::Any32 if (-0x8000_0000..=0xffff_ffff).contains(&v) => Ok(v as u32),
        ImmRule::Any32 => out("a 32-bit field [-0x80000000, 0xffffffff]"),
    }
}

/// Whether a float source slot takes an immediate, and how wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FImm {
    /// No immediate.
    None,
    /// The 20-bit form: the top 20 bits of a binary32.
    F20,
    /// Any binary32.
    F32,
}

/// What a memory operand allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrRule {
    /// Width of the offset field: ImmS`bits` with a base register, ImmU`bits` without.
    pub bits: u32,
    /// `.E`: the base is a register pair {Ra+1, Ra}.
    pub e: bool,
    /// LDG/LD: a base register at or past the register count means absolute addressing.
    pub abs_reg_ok: bool,
}

fn kind_name(k: &RawKind) -> String {
    match k {
        RawKind::Reg(_) => "a register".into(),
        RawKind::Pred(_) => "a predicate".into(),
        RawKind::Imm(_) => "an immediate".into(),
        RawKind::Float(_) => "a float immediate".into(),
        RawKind::Const { .. } => "a constant".into(),
        RawKind::Mem { .. } => "a memory address".into(),
        RawKind::Name(s) => format!("`{s}`"),
        RawKind::Label(s) => format!("label `{s}`"),
    }
}

/// Typed, validated access to the modifiers and operands of one [`RawInst`].
///
/// Modifiers are taken by name (any order); the first operand access (or [`Args::done`]) reports
/// any modifier no one took. Operands are taken in order; [`Args::done`] reports extra ones.
pub struct Args<'a> {
    raw: &'a RawInst,
    regs: u32,
    pos: usize,
    used: Vec<bool>,
    mods_checked: bool,
    /// Every modifier the op's parser asked about, in order, for "valid modifiers" notes (a
    /// second name for an adjacent pair such as `.U.128`).
    asked: Vec<(&'static str, Option<&'static str>)>,
}

impl<'a> Args<'a> {
    /// Wraps `raw` for a program with `regs` registers.
    pub fn new(raw: &'a RawInst, regs: u32) -> Args<'a> {
        Args {
            raw,
            regs,
            pos: 0,
            used: vec![false; raw.mods.len()],
            mods_checked: false,
            asked: Vec::new(),
        }
    }

    /// The raw instruction.
    pub fn raw(&self) -> &'a RawInst {
        self.raw
    }

    /// An error at `loc`.
    pub fn err<T>(&self, loc: SrcLoc, msg: impl Into<String>) -> Result<T, AsmError> {
        Err(AsmError::at(loc, msg))
    }

    // ---- modifiers -------------------------------------------------------------------------

    /// Takes every not yet taken modifier named in `table`, in written order (repeats allowed).
    pub fn take_all<T: Copy>(&mut self, table: &[(&'static str, T)]) -> Vec<(T, &'a str, SrcLoc)> {
        for &(n, _) in table {
            self.ask(n, None);
        }
        let mut out = Vec::new();
        for (i, (m, loc)) in self.raw.mods.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            if let Some((_, v)) = table.iter().find(|(n, _)| n == m) {
                self.used[i] = true;
                out.push((*v, m.as_str(), *loc));
            }
        }
        out
    }

    /// Takes the first untaken pair of adjacent modifiers `.first.second` (`.U.128`); returns
    /// where it starts.
    pub fn take_adjacent(&mut self, first: &'static str, second: &'static str) -> Option<SrcLoc> {
        self.ask(first, Some(second));
        let mods = &self.raw.mods;
        let i = (1..mods.len()).find(|&i| {
            !self.used[i - 1] && !self.used[i] && mods[i - 1].0 == first && mods[i].0 == second
        })?;
        self.used[i - 1] = true;
        self.used[i] = true;
        Some(mods[i - 1].1)
    }

    /// At most one modifier of `table` (one group of alternatives).
    pub fn choice<T: Copy>(&mut self, table: &[(&'static str, T)]) -> Result<Option<T>, AsmError> {
        let found = self.take_all(table);
        Self::one_of(found)
    }

    /// At most one entry of a list of taken modifiers: duplicates and alternatives are errors.
    pub fn one_of<T: Copy>(found: Vec<(T, &str, SrcLoc)>) -> Result<Option<T>, AsmError> {
        match found.as_slice() {
            [] => Ok(None),
            [(v, _, _)] => Ok(Some(*v)),
            [(_, a, _), (_, b, loc), ..] if a == b => {
                Err(AsmError::at(*loc, format!("duplicate modifier `.{b}`")))
            }
            [(_, a, _), (_, b, loc), ..] => Err(AsmError::at(
                *loc,
                format!("conflicting modifiers `.{a}` and `.{b}`"),
            )),
        }
    }

    /// Exactly one modifier of `table`.
    pub fn require<T: Copy>(&mut self, table: &[(&'static str, T)]) -> Result<T, AsmError> {
        match self.choice(table)? {
            Some(v) => Ok(v),
            None => {
                let names: Vec<String> = table.iter().map(|(n, _)| format!(".{n}")).collect();
                self.err(
                    self.raw.mn_loc,
                    format!(
                        "{} needs one of the modifiers {}",
                        self.raw.mnemonic,
                        names.join(" ")
                    ),
                )
            }
        }
    }

    /// Whether the modifier `name` is written (at most once).
    pub fn flag(&mut self, name: &'static str) -> Result<bool, AsmError> {
        Ok(self.flag_loc(name)?.is_some())
    }

    /// Where the modifier `name` is written, if it is (at most once).
    pub fn flag_loc(&mut self, name: &'static str) -> Result<Option<SrcLoc>, AsmError> {
        let found = self.take_all(&[(name, ())]);
        Self::one_of(found.clone())?;
        Ok(found.first().map(|f| f.2))
    }

    /// Records that the parser asked about modifier `name` (`.name.second` for a pair).
    fn ask(&mut self, name: &'static str, second: Option<&'static str>) {
        if !self.asked.contains(&(name, second)) {
            self.asked.push((name, second));
        }
    }

    /// Reports the first modifier no one took, with the modifiers the op's parser asked about.
    pub fn check_mods(&mut self) -> Result<(), AsmError> {
        self.mods_checked = true;
        match self.used.iter().position(|u| !u) {
            None => Ok(()),
            Some(i) => {
                let (m, loc) = &self.raw.mods[i];
                let e = AsmError::at(
                    *loc,
                    format!("unknown modifier `.{m}` for {}", self.raw.mnemonic),
                );
                let e = e.maybe_note(did_you_mean(m, self.asked.iter().map(|a| a.0)));
                let note = if self.asked.is_empty() {
                    format!("{} takes no modifiers", self.raw.mnemonic)
                } else {
                    let names: Vec<String> = self
                        .asked
                        .iter()
                        .map(|(a, b)| match b {
                            Some(b) => format!(".{a}.{b}"),
                            None => format!(".{a}"),
                        })
                        .collect();
                    format!("modifiers of {}: {}", self.raw.mnemonic, names.join(" "))
                };
                Err(e.note(Note::info(note)))
            }
        }
    }

    // ---- operands --------------------------------------------------------------------------

    /// The next operand without taking it.
    pub fn peek(&self) -> Option<&'a RawOperand> {
        self.raw.operands.get(self.pos)
    }

    /// Takes the next operand; `what` names the expected operand for the error when missing.
    pub fn next(&mut self, what: &str) -> Result<&'a RawOperand, AsmError> {
        if !self.mods_checked {
            self.check_mods()?;
        }
        match self.raw.operands.get(self.pos) {
            Some(o) => {
                self.pos += 1;
                Ok(o)
            }
            None => self.err(
                self.raw.end,
                format!("missing operand: {} expects {what} here", self.raw.mnemonic),
            ),
        }
    }

    /// Checks that every modifier and operand was taken.
    pub fn done(&mut self) -> Result<(), AsmError> {
        if !self.mods_checked {
            self.check_mods()?;
        }
        match self.peek() {
            Some(o) => self.err(
                o.loc,
                format!("too many operands for {}", self.raw.mnemonic),
            ),
            None => Ok(()),
        }
    }

    /// Checks an operand's prefixes and suffixes against `allow`.
    pub fn flags(&self, o: &RawOperand, allow: u8) -> Result<Flags, AsmError> {
        let mut f = Flags::default();
        if let Some(l) = o.bang {
            return self.err(l, "`!` applies only to predicates");
        }
        if let Some(l) = o.neg {
            if allow & NEG == 0 {
                return self.err(l, "negation `-` is not allowed on this operand");
            }
            f.neg = true;
        }
        if let Some(l) = o.abs {
            if allow & ABS == 0 {
                return self.err(l, "absolute value `|x|` is not allowed on this operand");
            }
            f.abs = true;
        }
        if let Some(l) = o.not {
            if allow & NOT == 0 {
                return self.err(l, "inversion `~` is not allowed on this operand");
            }
            f.not = true;
        }
        let is_reg = matches!(o.kind, RawKind::Reg(_));
        let half_ok = allow & HALF != 0 && (is_reg || matches!(o.kind, RawKind::Const { .. }));
        for (s, l) in &o.sfx {
            match s.as_str() {
                "reuse" if is_reg => {}
                "H0" | "H1" if half_ok => {
                    if f.half != Half::None || f.byte != 0 {
                        return self.err(*l, "more than one half select on an operand");
                    }
                    f.half = if s == "H0" { Half::H0 } else { Half::H1 };
                }
                "CC" if allow & CC != 0 && is_reg && f.cc.is_none() => f.cc = Some(*l),
                "B0" | "B1" | "B2" | "B3" if allow & BYTE != 0 && half_ok => {
                    if f.byte != 0 || f.half != Half::None {
                        return self.err(*l, "more than one byte select on an operand");
                    }
                    f.byte = s.as_bytes()[1] - b'0';
                }
                _ => return self.err(*l, format!("unexpected suffix `.{s}` on this operand")),
            }
        }
        Ok(f)
    }

    /// Checks that register `r` is below the register count (`RZ` always is).
    pub fn check_reg(&self, r: u8, loc: SrcLoc) -> Result<Reg, AsmError> {
        if r != 255 && u32::from(r) >= self.regs {
            return self.err(
                loc,
                format!(
                    "register R{r} is out of range: the program has {} registers",
                    self.regs
                ),
            );
        }
        Ok(Reg(r))
    }

    /// Checks the alignment and range of a pair (`n` = 2) or quad (`n` = 4) starting at `r`.
    pub fn check_wide(&self, r: Reg, n: u8, loc: SrcLoc) -> Result<(), AsmError> {
        if r.is_rz() || n <= 1 {
            return Ok(());
        }
        let (what, bits) = if n == 2 { ("pair", 64) } else { ("quad", 128) };
        if !r.0.is_multiple_of(n) {
            return self.err(
                loc,
                format!(
                    "misaligned register {what} {r}: a {bits}-bit operand needs a register number that is a multiple of {n}"
                ),
            );
        }
        let last = u32::from(r.0) + u32::from(n) - 1;
        if last > 254 {
            return self.err(loc, format!("register {what} {r}..R{last} runs past R254"));
        }
        if last >= self.regs {
            return self.err(
                loc,
                format!(
                    "register {what} {r}..R{last} is out of range: the program has {} registers",
                    self.regs
                ),
            );
        }
        Ok(())
    }

    /// A register with the prefixes/suffixes in `allow`.
    pub fn reg_x(&mut self, allow: u8) -> Result<(Reg, Flags), AsmError> {
        let o = self.next("a register")?;
        match o.kind {
            RawKind::Reg(r) => {
                let f = self.flags(o, allow)?;
                Ok((self.check_reg(r, o.atom_loc)?, f))
            }
            ref k => self.err(
                o.atom_loc,
                format!("expected a register, found {}", kind_name(k)),
            ),
        }
    }

    /// A plain register.
    pub fn reg(&mut self) -> Result<Reg, AsmError> {
        Ok(self.reg_x(0)?.0)
    }

    /// A register that starts a group of `n` (1, 2 or 4) registers.
    pub fn wide_reg(&mut self, n: u8) -> Result<Reg, AsmError> {
        let r = self.reg()?;
        let loc = self
            .raw
            .operands
            .get(self.pos.wrapping_sub(1))
            .map(|o| o.atom_loc);
        self.check_wide(r, n, loc.unwrap_or(self.raw.end))?;
        Ok(r)
    }

    /// A destination register with an optional `.CC`; `cc_mod` is the `.CC` modifier on the
    /// opcode, if any (both is an error). Returns where `.CC` is written.
    pub fn dst_cc(&mut self, cc_mod: Option<SrcLoc>) -> Result<(Reg, Option<SrcLoc>), AsmError> {
        let (r, f) = self.reg_x(CC)?;
        match (f.cc, cc_mod) {
            (Some(l), Some(_)) => self.err(
                l,
                "duplicate `.CC` (on both the opcode and the destination)",
            ),
            (a, b) => Ok((r, a.or(b))),
        }
    }

    /// `c[bank][offset]` as a [`ConstRef`] (no index register).
    pub fn const_ref(&self, o: &RawOperand) -> Result<ConstRef, AsmError> {
        let RawKind::Const { bank, base, off } = &o.kind else {
            return self.err(
                o.atom_loc,
                format!("expected a constant, found {}", kind_name(&o.kind)),
            );
        };
        if let Some((_, l)) = base {
            return self.err(
                *l,
                "an indexed constant `c[bank][Ra+offset]` is only allowed in LDC",
            );
        }
        let bank = self.bank(*bank)?;
        // A plain `c[b][imm]` reads as LDC with Ra = RZ, whose 16-bit field is unsigned: a
        // negative literal names the same field (`c[0x2][-0x4]` is `c[0x2][0xfffc]`).
        if !(-0x8000..=0xffff).contains(&off.0) {
            return self.err(
                off.1,
                format!(
                    "constant offset {} out of range [-0x8000, 0xffff]",
                    hex(off.0)
                ),
            );
        }
        Ok(ConstRef {
            bank,
            offset: off.0 as u16,
        })
    }

    /// A constant bank number, 0..=31.
    pub fn bank(&self, (b, l): (i64, SrcLoc)) -> Result<u8, AsmError> {
        if !(0..=31).contains(&b) {
            return self.err(l, format!("constant bank {} out of range [0, 31]", hex(b)));
        }
        Ok(b as u8)
    }

    /// A register, a constant, or an immediate per `rule`, with the prefixes/suffixes in `allow`.
    pub fn src(&mut self, rule: ImmRule, allow: u8) -> Result<(Src, Flags), AsmError> {
        let what = if rule == ImmRule::None {
            "a register or a constant"
        } else {
            "a register, a constant or an immediate"
        };
        let o = self.next(what)?;
        let f = self.flags(o, allow)?;
        let s = match o.kind {
            RawKind::Reg(r) => Src::Reg(self.check_reg(r, o.atom_loc)?),
            RawKind::Const { .. } => Src::Const(self.const_ref(o)?),
            RawKind::Imm(v) if rule != ImmRule::None => Src::Imm(imm_rule(v, rule, o.atom_loc)?),
            ref k => {
                return self.err(
                    o.atom_loc,
                    format!("expected {what}, found {}", kind_name(k)),
                )
            }
        };
        Ok((s, f))
    }

    /// A float source: a register, a constant or (`imm` not `None`) a binary32 immediate, with
    /// the prefixes in `allow`. An immediate is a float literal (`1.5`, `-2e-3`) or a binary32 bit pattern of at least 0x800000 in magnitude written as an
    /// integer (`0x7fc00000`; smaller integers are refused so that `1` is never read as a bit
    /// pattern). With `FImm::F20` the immediate must fit the 20-bit form (its low 12 bits zero).
    pub fn fsrc(&mut self, imm: FImm, allow: u8) -> Result<(Src, Flags), AsmError> {
        let o = self.next("a register, a constant or a float immediate")?;
        let f = self.flags(o, allow | NEG)?;
        let bits = match &o.kind {
            RawKind::Reg(r) => {
                self.check_neg(o, f, allow)?;
                return Ok((Src::Reg(self.check_reg(*r, o.atom_loc)?), f));
            }
            RawKind::Const { .. } => {
                self.check_neg(o, f, allow)?;
                return Ok((Src::Const(self.const_ref(o)?), f));
            }
            RawKind::Float(b) if imm != FImm::None => *b,
            RawKind::Imm(v) if imm != FImm::None => {
                // `-0x3f800000` is -1.0: the sign flips the sign bit.
                let mag = v.unsigned_abs();
                if mag > 0xffff_ffff || (mag as u32) & 0x7fff_ffff < 0x80_0000 {
                    return self.err(
                        o.atom_loc,
                        format!(
                            "an integer in a float operand is a binary32 bit pattern of at least 0x800000 in magnitude (`0x3f800000` is 1.0); write {} as a float literal such as `{}.0`",
                            hex(*v),
                            v
                        ),
                    );
                }
                let sign = if *v < 0 { 0x8000_0000 } else { 0 };
                mag as u32 ^ sign
            }
            k => {
                return self.err(
                    o.atom_loc,
                    format!(
                        "expected a register, a constant{}, found {}",
                        if imm == FImm::None {
                            ""
                        } else {
                            " or a float immediate"
                        },
                        kind_name(k)
                    ),
                )
            }
        };
        if let Some(l) = o.neg.or(o.abs) {
            return self.err(
                l,
                "a float immediate takes no `-` or `|x|` modifier: write the value (`-1.5`)",
            );
        }
        if imm == FImm::F20 && bits & 0xfff != 0 {
            return self.err(
                o.atom_loc,
                format!(
                    "the float immediate {:#010x} does not fit this form's 20 bits (the low 12 bits of the binary32 must be zero; the 32I forms take any value)",
                    bits
                ),
            );
        }
        Ok((Src::Imm(bits), f))
    }

    fn check_neg(&self, o: &RawOperand, f: Flags, allow: u8) -> Result<(), AsmError> {
        match o.neg {
            Some(l) if f.neg && allow & NEG == 0 => {
                self.err(l, "negation `-` is not allowed on this operand")
            }
            _ => Ok(()),
        }
    }

    /// An immediate per `rule`, with the prefixes in `allow`.
    pub fn imm_x(&mut self, rule: ImmRule, allow: u8) -> Result<(u32, Flags), AsmError> {
        let o = self.next("an immediate")?;
        match o.kind {
            RawKind::Imm(v) => {
                let f = self.flags(o, allow)?;
                Ok((imm_rule(v, rule, o.atom_loc)?, f))
            }
            ref k => self.err(
                o.atom_loc,
                format!("expected an immediate, found {}", kind_name(k)),
            ),
        }
    }

    /// An immediate in [lo, hi]; `what` names it in the error.
    pub fn imm(&mut self, lo: i64, hi: i64, what: &str) -> Result<i64, AsmError> {
        let o = self.next(what)?;
        match o.kind {
            RawKind::Imm(v) => {
                self.flags(o, 0)?;
                if !(lo..=hi).contains(&v) {
                    return self.err(
                        o.atom_loc,
                        format!("{what} {} out of range [{}, {}]", hex(v), hex(lo), hex(hi)),
                    );
                }
                Ok(v)
            }
            ref k => self.err(
                o.atom_loc,
                format!("expected {what}, found {}", kind_name(k)),
            ),
        }
    }

    /// A predicate source, optionally inverted with `!`.
    pub fn pred(&mut self) -> Result<PredSrc, AsmError> {
        let o = self.next("a predicate")?;
        match o.kind {
            RawKind::Pred(p) => {
                let plain = RawOperand {
                    bang: None,
                    ..o.clone()
                };
                self.flags(&plain, 0)?;
                Ok(PredSrc {
                    pred: Pred(p),
                    neg: o.bang.is_some(),
                })
            }
            ref k => self.err(
                o.atom_loc,
                format!("expected a predicate, found {}", kind_name(k)),
            ),
        }
    }

    /// A predicate destination (no `!`).
    pub fn pred_dst(&mut self) -> Result<Pred, AsmError> {
        let o = self.next("a predicate")?;
        match o.kind {
            RawKind::Pred(p) => {
                if let Some(l) = o.bang {
                    return self.err(l, "a destination predicate cannot be inverted");
                }
                self.flags(o, 0)?;
                Ok(Pred(p))
            }
            ref k => self.err(
                o.atom_loc,
                format!("expected a predicate, found {}", kind_name(k)),
            ),
        }
    }

    /// True when the next operand is a predicate (an optional leading predicate destination).
    pub fn peek_pred(&self) -> bool {
        matches!(self.peek().map(|o| &o.kind), Some(RawKind::Pred(_)))
    }

    /// True when the next operand is a register.
    pub fn peek_reg(&self) -> bool {
        matches!(self.peek().map(|o| &o.kind), Some(RawKind::Reg(_)))
    }

    /// A name with its suffixes joined by dots (`SR_TID.X`, `CC.EQ`, `PR`), and where it is.
    pub fn name(&mut self, what: &str) -> Result<(String, SrcLoc), AsmError> {
        let o = self.next(what)?;
        match &o.kind {
            RawKind::Name(s) if o.neg.is_none() && o.not.is_none() && o.bang.is_none() => {
                let mut s = s.clone();
                for (x, _) in &o.sfx {
                    s.push('.');
                    s.push_str(x);
                }
                Ok((s, o.atom_loc))
            }
            k => self.err(o.loc, format!("expected {what}, found {}", kind_name(k))),
        }
    }

    /// A memory operand `[Ra+imm]` / `[imm]` checked per `rule`.
    pub fn addr(&mut self, rule: AddrRule) -> Result<Addr, AsmError> {
        let o = self.next("a memory address `[Ra+offset]`")?;
        let RawKind::Mem { base, off: (v, vl) } = o.kind else {
            return self.err(
                o.atom_loc,
                format!(
                    "expected a memory address `[Ra+offset]`, found {}",
                    kind_name(&o.kind)
                ),
            );
        };
        self.flags(o, 0)?;
        let mut reg = None;
        if let Some((r, rl)) = base.filter(|b| b.0 != 255) {
            if u32::from(r) < self.regs {
                if rule.e {
                    self.check_wide(Reg(r), 2, rl)?;
                }
                reg = Some(Reg(r));
            } else if !rule.abs_reg_ok {
                self.check_reg(r, rl)?;
            }
        }
        let bits = rule.bits;
        if reg.is_some() {
            let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
            if !(lo..=hi).contains(&v) {
                return self.err(
                    vl,
                    format!(
                        "address offset {} out of range for ImmS{bits} [{}, {}]",
                        hex(v),
                        hex(lo),
                        hex(hi)
                    ),
                );
            }
        } else {
            let hi = (1i64 << bits) - 1;
            if v < 0 {
                return self.err(
                    vl,
                    format!(
                        "negative absolute address {}: without a base register the offset is ImmU{bits} [0, {}]",
                        hex(v),
                        hex(hi)
                    ),
                );
            }
            if v > hi {
                return self.err(
                    vl,
                    format!(
                        "absolute address {} out of range for ImmU{bits} [0, {}]",
                        hex(v),
                        hex(hi)
                    ),
                );
            }
        }
        Ok(Addr {
            base: reg,
            offset: v as i32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: SrcLoc = SrcLoc { line: 1, col: 1 };

    #[test]
    fn imm20_sign_extends_twenty_bits() {
        assert_eq!(imm_rule(0xfff82, ImmRule::S20, L), Ok(-0x7e_i32 as u32));
        assert_eq!(imm_rule(0x7ffff, ImmRule::S20, L), Ok(0x7ffff));
        assert_eq!(imm_rule(0x80000, ImmRule::S20, L), Ok(0xfff8_0000));
        assert_eq!(imm_rule(-0x80000, ImmRule::S20, L), Ok(0xfff8_0000));
        assert_eq!(imm_rule(0xffff_ffff, ImmRule::S20, L), Ok(0xffff_ffff));
        assert!(imm_rule(0x10_0000, ImmRule::S20, L).is_err());
        assert!(imm_rule(0xfff7_ffff, ImmRule::S20, L).is_err());
        assert!(imm_rule(-0x80001, ImmRule::S20, L).is_err());
    }

    #[test]
    fn other_rules() {
        assert_eq!(imm_rule(-1, ImmRule::Any32, L), Ok(0xffff_ffff));
        assert_eq!(imm_rule(-0x8000_0000, ImmRule::Any32, L), Ok(0x8000_0000));
        assert!(imm_rule(0x1_0000_0000, ImmRule::Any32, L).is_err());
        assert_eq!(imm_rule(0xffff, ImmRule::U16, L), Ok(0xffff));
        assert!(imm_rule(-1, ImmRule::U16, L).is_err());
        let e = imm_rule(1, ImmRule::None, L).unwrap_err();
        assert_eq!(e.message, "an immediate is not allowed here");
    }

    #[test]
    fn hex_rendering() {
        assert_eq!(hex(-16), "-0x10");
        assert_eq!(hex(0x7fff), "0x7fff");
        assert_eq!(hex(i64::MIN), "-0x8000000000000000");
    }
}
