//! The generic statement parser: tokens to labels and [`RawInst`]s, with no knowledge of any op.
//!
//! A statement ends at `;` or at the end of a line. It is `label:` (`name:`, `.L_1:`), or
//! `[@[!]P] MNEMONIC[.MOD]... [operand {, operand}]`. Braces are dropped: a `{ ... }` group inside
//! a statement is a scheduling control block, a lone `{` or `}` marks a dual-issue pair as cuobjdump
//! prints it; only DEPBAR keeps them, in its operand text (which `syntax` parses).

use super::lexer::{number, Tok, Token};
use super::AsmError;
use crate::ir::{Guard, Pred, PredSrc, SrcLoc};

/// A value with the location of its text.
pub type Spanned<T> = (T, SrcLoc);

/// The core of an operand, after prefixes and before suffixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawKind {
    /// `R0..R254`, or `RZ` (255).
    Reg(u8),
    /// `P0..P6`, or `PT` (7).
    Pred(u8),
    /// A number; a `-` written directly before it is folded in.
    Imm(i64),
    /// A decimal float literal (`1.5`, `-2.5e-3`: with a `.` or an exponent), as the nearest
    /// binary32; a `-` written directly before it is folded in (as the sign bit).
    Float(u32),
    /// `c[bank][offset]`, `c[bank][Ra+offset]`.
    Const {
        /// The bank number.
        bank: Spanned<i64>,
        /// The index register, if written (`RZ` included).
        base: Option<Spanned<u8>>,
        /// The offset (0 at the register when omitted).
        off: Spanned<i64>,
    },
    /// `[Ra+offset]`, `[offset]`, `[Ra]`.
    Mem {
        /// The base register, if written (`RZ` included).
        base: Option<Spanned<u8>>,
        /// The offset (0 when omitted).
        off: Spanned<i64>,
    },
    /// Any other identifier (`SR_TID`, `PR`, `CC`, `SB0`, a label name).
    Name(String),
    /// A label reference written `.L_1` or `` `(.L_1) ``.
    Label(String),
}

/// One operand as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawOperand {
    /// The core.
    pub kind: RawKind,
    /// Start of the operand (prefixes included).
    pub loc: SrcLoc,
    /// Start of the core.
    pub atom_loc: SrcLoc,
    /// A `-` prefix (not folded into a number).
    pub neg: Option<SrcLoc>,
    /// A `~` prefix.
    pub not: Option<SrcLoc>,
    /// A `!` prefix.
    pub bang: Option<SrcLoc>,
    /// `|x|` around the core (and its suffixes): where the opening `|` is.
    pub abs: Option<SrcLoc>,
    /// Dotted suffixes (`.H1`, `.CC`, `.reuse`, `.X` of `SR_TID.X`), without the dot; the location
    /// is the dot's.
    pub sfx: Vec<Spanned<String>>,
}

/// One instruction statement, parsed generically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawInst {
    /// The guard (`@PT` when none).
    pub guard: Guard,
    /// Where the guard is written, if it is.
    pub guard_loc: Option<SrcLoc>,
    /// The mnemonic.
    pub mnemonic: String,
    /// Where the mnemonic is.
    pub mn_loc: SrcLoc,
    /// Dotted modifiers after the mnemonic, without the dot; the location is the dot's.
    pub mods: Vec<Spanned<String>>,
    /// The operands (empty for DEPBAR, see `text`).
    pub operands: Vec<RawOperand>,
    /// DEPBAR only: the operand text, normalised (tokens joined, `, ` after commas).
    pub text: String,
    /// A note nvdisasm prints after the operands, `(*"BRANCH_TARGETS .L_x_1,.L_x_2"*)`: its
    /// text inside the quotes and where it starts. Only `BRX` reads it; others ignore it.
    pub note: Option<Spanned<String>>,
    /// Start of the statement (the guard or the mnemonic).
    pub loc: SrcLoc,
    /// Where the statement ends (its `;`, line break, or end of text).
    pub end: SrcLoc,
}

/// A statement of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `name:`.
    Label(Spanned<String>),
    /// An instruction, with the address comment that precedes it, if any.
    Inst(RawInst, Option<u32>),
}

/// Splits tokens into statements. Address comments apply to the next instruction.
pub fn statements(tokens: &[Token]) -> Result<Vec<Stmt>, AsmError> {
    let mut out = Vec::new();
    let mut pending: Option<u32> = None;
    let mut cur: Vec<Token> = Vec::new();
    let mut iter = tokens.iter().peekable();
    loop {
        let t = iter.next();
        match t.map(|t| &t.tok) {
            Some(Tok::Addr(a)) => pending = Some(*a),
            Some(Tok::Punct(';')) | Some(Tok::Newline) | None => {
                let end = match t {
                    Some(t) => t.loc,
                    None => tokens.last().map(|t| t.loc).unwrap_or_default(),
                };
                statement(&cur, end, &mut pending, &mut out)?;
                cur.clear();
                if t.is_none() {
                    break;
                }
            }
            Some(_) => cur.extend(t.cloned()),
        }
    }
    Ok(out)
}

/// Length of a label definition `[.]name{.name}:` at the start of `t`, colon included.
fn label_len(t: &[Token]) -> Option<usize> {
    let mut i = usize::from(t.first()?.is('.'));
    loop {
        t.get(i)?.ident()?;
        i += 1;
        match t.get(i) {
            Some(x) if x.is(':') => return Some(i + 1),
            Some(x) if x.is('.') && !x.space_before => i += 1,
            _ => return None,
        }
    }
}

fn statement(
    toks: &[Token],
    end: SrcLoc,
    pending: &mut Option<u32>,
    out: &mut Vec<Stmt>,
) -> Result<(), AsmError> {
    let mut toks = toks;
    while let Some(n) = label_len(skip_braces(toks)) {
        let t = skip_braces(toks);
        let name: String = t.iter().take(n - 1).map(Token::text).collect();
        out.push(Stmt::Label((name, t[0].loc)));
        toks = t.get(n..).unwrap_or(&[]);
    }
    if skip_braces(toks).is_empty() {
        return Ok(());
    }
    let inst = raw_inst(toks, end)?;
    out.push(Stmt::Inst(inst, pending.take()));
    Ok(())
}

/// Drops leading braces and brace groups.
fn skip_braces(mut t: &[Token]) -> &[Token] {
    loop {
        match t.first() {
            Some(x) if x.is('}') => t = &t[1..],
            Some(x) if x.is('{') => {
                t = match t.iter().position(|x| x.is('}')) {
                    Some(close) => &t[close + 1..],
                    None => &t[1..],
                }
            }
            _ => return t,
        }
    }
}

/// Removes every brace group and lone brace.
fn strip_braces(t: &[Token]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(first) = rest.first() {
        if first.is('{') || first.is('}') {
            rest = skip_braces(rest);
        } else {
            out.push(first.clone());
            rest = &rest[1..];
        }
    }
    out
}

/// A cursor over the tokens of one statement.
struct Cur<'a> {
    t: &'a [Token],
    i: usize,
    end: SrcLoc,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.t.get(self.i)
    }
    fn peek_at(&self, n: usize) -> Option<&'a Token> {
        self.t.get(self.i + n)
    }
    fn bump(&mut self) -> Option<&'a Token> {
        let t = self.t.get(self.i);
        self.i += 1;
        t
    }
    fn here(&self) -> SrcLoc {
        self.peek().map(|t| t.loc).unwrap_or(self.end)
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek().is_some_and(|t| t.is(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: char, what: &str) -> Result<(), AsmError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(AsmError::at(self.here(), format!("expected `{c}` {what}")))
        }
    }
    /// A `.X` suffix written right after the previous token.
    fn suffix(&mut self) -> Option<Spanned<String>> {
        let dot = self.peek().filter(|t| t.is('.') && !t.space_before)?;
        let word = self.peek_at(1).filter(|t| !t.space_before)?;
        match &word.tok {
            Tok::Ident(s) | Tok::Num(s) => {
                self.i += 2;
                Some((s.clone(), dot.loc))
            }
            _ => None,
        }
    }
}

/// `R12` / `RZ` → register number; `P3` / `PT` → predicate number. `None` if neither.
fn reg_or_pred(s: &str, loc: SrcLoc) -> Result<Option<RawKind>, AsmError> {
    match s {
        "RZ" => return Ok(Some(RawKind::Reg(255))),
        "PT" => return Ok(Some(RawKind::Pred(7))),
        _ => {}
    }
    let mut chars = s.chars();
    let (class, digits) = match chars.next() {
        Some(c @ ('R' | 'P')) => (c, chars.as_str()),
        _ => return Ok(None),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Ok(None);
    }
    let n: u32 = digits.parse().unwrap_or(u32::MAX);
    match class {
        'R' if n <= 254 => Ok(Some(RawKind::Reg(n as u8))),
        'R' => Err(AsmError::at(
            loc,
            format!("no register `{s}`: registers are R0..R254 and RZ"),
        )),
        _ if n <= 6 => Ok(Some(RawKind::Pred(n as u8))),
        _ => Err(AsmError::at(
            loc,
            format!("no predicate `{s}`: predicates are P0..P6 and PT"),
        )),
    }
}

/// A predicate by name (`P0`..`P6`, `PT`).
pub fn pred_name(s: &str) -> Option<Pred> {
    match reg_or_pred(s, SrcLoc::default()) {
        Ok(Some(RawKind::Pred(p))) => Some(Pred(p)),
        _ => None,
    }
}

fn raw_inst(toks: &[Token], end: SrcLoc) -> Result<RawInst, AsmError> {
    let toks = skip_braces(toks);
    let mut c = Cur { t: toks, i: 0, end };
    let loc = c.here();
    let (guard, guard_loc) = if c.eat('@') {
        let neg = c.eat('!');
        let p = c.bump();
        match p.and_then(|p| p.ident().and_then(pred_name)) {
            Some(pred) => (Guard(PredSrc { pred, neg }), Some(loc)),
            None => {
                let at = p.map(|p| p.loc).unwrap_or(end);
                return Err(AsmError::at(at, "expected a predicate after `@`").note(
                    crate::diag::Note::info(
                        "a guard is `@P0` to `@P6` or `@PT`, negated with `!` (`@!P0`)",
                    ),
                ));
            }
        }
    } else {
        (Guard::ALWAYS, None)
    };
    let rest = skip_braces(c.t.get(c.i..).unwrap_or(&[]));
    let mut c = Cur { t: rest, i: 0, end };
    let mn_loc = c.here();
    let mnemonic = match c.bump() {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => s.clone(),
        _ => return Err(AsmError::at(mn_loc, "expected an instruction mnemonic")),
    };
    let mut mods = Vec::new();
    while let Some(m) = c.suffix() {
        mods.push(m);
    }
    let rest = c.t.get(c.i..).unwrap_or(&[]);
    let mut inst = RawInst {
        guard,
        guard_loc,
        mnemonic,
        mn_loc,
        mods,
        operands: Vec::new(),
        text: String::new(),
        note: None,
        loc,
        end,
    };
    if inst.mnemonic == "DEPBAR" {
        inst.text = rest
            .iter()
            .map(|t| if t.is(',') { ", ".into() } else { t.text() })
            .collect();
        inst.text = inst.text.trim_end().to_string();
        return Ok(inst);
    }
    let mut rest = strip_braces(rest);
    if let Some(Token {
        tok: Tok::Note(n),
        loc,
        ..
    }) = rest.last()
    {
        inst.note = Some((n.clone(), *loc));
        rest.pop();
    }
    let mut c = Cur {
        t: &rest,
        i: 0,
        end,
    };
    if c.peek().is_none() {
        return Ok(inst);
    }
    // nvdisasm writes a BRX's or JMX's offset after its register with no comma: `BRX R4 -0xd0`.
    let spaced = matches!(inst.mnemonic.as_str(), "BRX" | "JMX");
    loop {
        inst.operands.push(operand(&mut c)?);
        match c.bump() {
            None => return Ok(inst),
            Some(t) if t.is(',') => {}
            Some(t) if spaced && (t.is('-') || matches!(t.tok, Tok::Num(_))) => c.i -= 1,
            Some(t) => {
                return Err(AsmError::at(
                    t.loc,
                    format!(
                        "expected `,` or the end of the instruction, found `{}`",
                        t.text()
                    ),
                ))
            }
        }
    }
}

/// A number token as an integer or, written with a `.` or an exponent in decimal, a float.
/// Whether `t` names a non-finite float as nvdisasm prints them after a sign (`INF`, `QNAN`):
/// infinity, or a quiet NaN (read as 0x7fc00000 with its sign: the listing does not say the
/// payload).
fn special_float(t: Option<&Token>) -> bool {
    matches!(t.and_then(|t| t.ident()), Some("INF" | "QNAN"))
}

fn number_kind(t: &Token, neg: bool) -> Result<RawKind, AsmError> {
    let text = t.text();
    let hex = text.starts_with("0x") || text.starts_with("0X");
    if !hex && text.contains(['.', 'e', 'E']) {
        let v: f32 = text
            .parse()
            .map_err(|_| AsmError::at(t.loc, format!("malformed number `{text}`")))?;
        let bits = v.to_bits();
        return Ok(RawKind::Float(if neg { bits ^ 0x8000_0000 } else { bits }));
    }
    Ok(RawKind::Imm(num(t, neg)?))
}

/// Parses a number token, with the sign already read.
fn num(t: &Token, neg: bool) -> Result<i64, AsmError> {
    let v = number(&t.text(), t.loc)?;
    Ok(if neg { -v } else { v })
}

/// `[ terms ]` after the `[`: at most one register and one number, joined by `+`/`-`.
fn address(c: &mut Cur) -> Result<(Option<Spanned<u8>>, Spanned<i64>), AsmError> {
    let open = c.here();
    let (mut base, mut off) = (None, None);
    let mut first = true;
    loop {
        if c.eat(']') {
            break;
        }
        let term_loc = c.here();
        let mut neg = false;
        let mut signs = 0;
        let mut sign_loc = term_loc;
        while let Some(t) = c.peek().filter(|t| t.is('+') || t.is('-')) {
            if t.is('-') {
                neg = !neg;
                sign_loc = t.loc;
            }
            signs += 1;
            c.i += 1;
        }
        if signs == 0 && !first {
            return Err(AsmError::at(
                term_loc,
                "expected `+`, `-` or `]` in the address",
            ));
        }
        first = false;
        let t = c
            .bump()
            .ok_or_else(|| AsmError::at(c.end, "expected `]` to close the address"))?;
        match &t.tok {
            Tok::Num(_) if off.is_some() => {
                return Err(AsmError::at(
                    t.loc,
                    "an address takes at most one immediate offset",
                ))
            }
            Tok::Num(_) => off = Some((num(t, neg)?, if neg { sign_loc } else { t.loc })),
            Tok::Ident(s) => match reg_or_pred(s, t.loc)? {
                Some(RawKind::Reg(_)) if base.is_some() => {
                    return Err(AsmError::at(t.loc, "an address takes at most one register"))
                }
                Some(RawKind::Reg(_)) if neg => {
                    return Err(AsmError::at(
                        sign_loc,
                        "an address register cannot be negated",
                    ))
                }
                Some(RawKind::Reg(r)) => {
                    base = Some((r, t.loc));
                    if let Some((s, l)) = c.suffix() {
                        if s != "reuse" {
                            return Err(AsmError::at(l, format!("unexpected suffix `.{s}`")));
                        }
                    }
                }
                _ => {
                    return Err(AsmError::at(
                        t.loc,
                        format!("expected a register, found `{s}`"),
                    ))
                }
            },
            _ => {
                return Err(AsmError::at(
                    t.loc,
                    format!(
                        "expected a register or a number in the address, found `{}`",
                        t.text()
                    ),
                ))
            }
        }
    }
    if base.is_none() && off.is_none() {
        return Err(AsmError::at(open, "empty address"));
    }
    let off = off.unwrap_or((0, base.map(|b| b.1).unwrap_or(open)));
    Ok((base, off))
}

/// A label name `.L_1` / `name`, used inside `` `( ) ``.
fn label_name(c: &mut Cur) -> Result<String, AsmError> {
    let at = c.here();
    let mut name = String::new();
    if c.eat('.') {
        name.push('.');
    }
    match c.bump().and_then(|t| t.ident()) {
        Some(s) => name.push_str(s),
        None => return Err(AsmError::at(at, "expected a label name")),
    }
    while let Some((s, _)) = c.suffix() {
        name.push('.');
        name.push_str(&s);
    }
    Ok(name)
}

fn operand(c: &mut Cur) -> Result<RawOperand, AsmError> {
    let loc = c.here();
    let (mut neg, mut not, mut bang, mut abs) = (None, None, None, None);
    while let Some(t) = c.peek() {
        if abs.is_some() {
            break;
        }
        let slot = match t.tok {
            Tok::Punct('|') => &mut abs,
            Tok::Punct('-')
                if !matches!(c.peek_at(1).map(|t| &t.tok), Some(Tok::Num(_)))
                    && !special_float(c.peek_at(1)) =>
            {
                &mut neg
            }
            Tok::Punct('~') => &mut not,
            Tok::Punct('!') => &mut bang,
            _ => break,
        };
        if slot.is_some() {
            return Err(AsmError::at(t.loc, format!("repeated `{}`", t.text())));
        }
        *slot = Some(t.loc);
        c.i += 1;
    }
    let atom_loc = c.here();
    let t = c
        .bump()
        .ok_or_else(|| AsmError::at(atom_loc, "expected an operand"))?;
    let kind = match &t.tok {
        // nvdisasm's non-finite float immediates: `+INF`, `-INF`, `+QNAN`, `-QNAN`.
        Tok::Punct(sign @ ('+' | '-')) if special_float(c.peek()) => {
            let name = c.bump().and_then(|n| n.ident()).unwrap_or_default();
            let bits = if name == "INF" {
                0x7f80_0000
            } else {
                0x7fc0_0000
            };
            RawKind::Float(if *sign == '-' {
                bits | 0x8000_0000
            } else {
                bits
            })
        }
        Tok::Punct('-') => {
            // A negative number: `-` directly followed by a number token.
            let n = c
                .bump()
                .ok_or_else(|| AsmError::at(atom_loc, "expected a number"))?;
            number_kind(n, true)?
        }
        Tok::Num(_) => number_kind(t, false)?,
        Tok::Punct('[') => {
            let (base, off) = address(c)?;
            RawKind::Mem { base, off }
        }
        Tok::Punct('`') => {
            c.expect('(', "after `` ` ``")?;
            let name = label_name(c)?;
            c.expect(')', "after the label")?;
            RawKind::Label(name)
        }
        Tok::Punct('.')
            if c.peek()
                .is_some_and(|n| !n.space_before && n.ident().is_some()) =>
        {
            RawKind::Label(format!(
                ".{}",
                c.bump().and_then(|n| n.ident()).unwrap_or_default()
            ))
        }
        Tok::Ident(s) if s == "c" && c.peek().is_some_and(|n| n.is('[')) => {
            c.i += 1;
            let bt = c
                .bump()
                .ok_or_else(|| AsmError::at(c.end, "expected a bank number"))?;
            let bank = match &bt.tok {
                Tok::Num(_) => (num(bt, false)?, bt.loc),
                Tok::Punct('-') => match c.bump() {
                    Some(n) if matches!(n.tok, Tok::Num(_)) => (num(n, true)?, bt.loc),
                    _ => return Err(AsmError::at(bt.loc, "expected a bank number")),
                },
                _ => return Err(AsmError::at(bt.loc, "expected a bank number")),
            };
            c.expect(']', "after the bank number")?;
            c.expect('[', "to open the constant's offset")?;
            let (base, off) = address(c)?;
            RawKind::Const { bank, base, off }
        }
        Tok::Ident(s) => reg_or_pred(s, t.loc)?.unwrap_or_else(|| RawKind::Name(s.clone())),
        _ => {
            return Err(AsmError::at(
                t.loc,
                format!("expected an operand, found `{}`", t.text()),
            ))
        }
    };
    let mut sfx = Vec::new();
    while let Some(s) = c.suffix() {
        sfx.push(s);
    }
    if let Some(open) = abs {
        match c.peek() {
            Some(t) if t.is('|') => c.i += 1,
            _ => return Err(AsmError::at(open, "`|` without its closing `|`")),
        }
    }
    Ok(RawOperand {
        kind,
        loc,
        atom_loc,
        neg,
        not,
        bang,
        abs,
        sfx,
    })
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn one(s: &str) -> RawInst {
        match statements(&lex(s).unwrap()).unwrap().as_slice() {
            [Stmt::Inst(i, _)] => i.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn memory_operand_forms_are_the_same() {
        let forms = [
            "[R2-0x10]",
            "[R2+-0x10]",
            "[ R2 + -16 ]",
            "[-0x10+R2]",
            "[R2 - 16]",
        ];
        for f in forms {
            let i = one(&format!("LDG R0, {f};"));
            match &i.operands[1].kind {
                RawKind::Mem {
                    base: Some((2, _)),
                    off: (-16, _),
                } => {}
                k => panic!("{f}: {k:?}"),
            }
        }
    }

    #[test]
    fn labels_guards_modifiers_suffixes() {
        let st =
            statements(&lex(".L_1:\nloop: @!P3 IADD.X R4.CC, -R1.reuse, c[0x2][0x10];").unwrap())
                .unwrap();
        assert!(matches!(&st[0], Stmt::Label((n, _)) if n == ".L_1"));
        assert!(matches!(&st[1], Stmt::Label((n, _)) if n == "loop"));
        let Stmt::Inst(i, None) = &st[2] else {
            panic!()
        };
        assert_eq!(
            i.guard,
            Guard(PredSrc {
                pred: Pred(3),
                neg: true
            })
        );
        assert_eq!(i.mnemonic, "IADD");
        assert_eq!(i.mods[0].0, "X");
        assert_eq!(i.operands[0].sfx[0].0, "CC");
        assert!(i.operands[1].neg.is_some());
        assert!(matches!(
            i.operands[2].kind,
            RawKind::Const {
                bank: (2, _),
                base: None,
                off: (16, _)
            }
        ));
    }

    #[test]
    fn braces_are_dropped_except_for_depbar() {
        let st =
            statements(&lex("{ IADD R0, R0, R5 ;\n SYNC ; }\nDEPBAR.LE SB0, 0x0, {1,0};").unwrap())
                .unwrap();
        assert_eq!(st.len(), 3);
        let Stmt::Inst(i, _) = &st[2] else { panic!() };
        assert_eq!(i.text, "SB0, 0x0, {1, 0}");
    }

    #[test]
    fn address_comment_goes_to_next_instruction() {
        let st = statements(&lex("/*0068*/\n.L_1:\n NOP;\n NOP;").unwrap()).unwrap();
        assert!(matches!(st[1], Stmt::Inst(_, Some(0x68))));
        assert!(matches!(st[2], Stmt::Inst(_, None)));
    }
}
