//! Listings in the syntax Microsoft's compilers print (fxc, D3DCompiler_43 and _47): the parser
//! ([`parse`]) and the printer ([`print()`]), with `parse(&print(p)) == p` for every program.
//!
//! The parser takes a listing pasted whole: `//` comments (the header and the instruction-count
//! trailer) are skipped, declarations may be spelled in either case (`CB0[16]`, `cb0[1]`), and every
//! spelling of the texture-load modifiers fxc prints is accepted (`ldms_aoffimmi(1,2,0)`,
//! D3DCompiler_43's `ldms(-2,3,0)`, `ld_structured_indexable(structured_buffer, stride=16)(...)`).

use std::fmt::{self, Write as _};

use super::ast::*;

/// A located error in a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// The offending text (a word, or the rest of the line).
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// A suggestion ("did you mean `mul`?") for a misspelt instruction.
    pub help: Option<String>,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)?;
        if !self.text.is_empty() {
            write!(f, " (at `{}`)", self.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for TextError {}

impl TextError {
    /// The error as a [`Diagnostic`](crate::diag::Diagnostic) about `path`, whose text is `src`.
    pub fn to_diagnostic(&self, path: &std::path::Path, src: &str) -> crate::diag::Diagnostic {
        let line_text = src
            .lines()
            .nth(self.line.saturating_sub(1) as usize)
            .unwrap_or("");
        let d = crate::diag::Diagnostic::text(
            path,
            self.line,
            self.col,
            line_text,
            self.message.clone(),
        );
        match &self.help {
            Some(h) => d.with_note(crate::diag::Note::help(h.clone())),
            None => d,
        }
    }
}

type Result<T> = std::result::Result<T, TextError>;

/// Parses a whole listing into a [`Program`].
pub fn parse(src: &str) -> Result<Program> {
    parse_located(src).map(|(p, _)| p)
}

/// Parses a whole listing into a [`Program`] and the 1-based (line, column) where each of its
/// statements starts.
pub fn parse_located(src: &str) -> Result<(Program, Vec<(u32, u32)>)> {
    let mut p = Parser { src, pos: 0 };
    let mut locs = Vec::new();
    // Line counting carried forward from one statement to the next.
    let (mut line, mut line_start, mut counted) = (1u32, 0usize, 0usize);
    p.skip_blank();
    let (mut start, mut word) = p.word();
    if is_level9_version(word) {
        // fxc's listing of a `*_4_0_level_9_x` target prints the Direct3D 9 program first (its
        // "Level9 shader bytecode", with `#line` directives), then the shader model 4 one: the
        // latter is the program.
        (start, word) = p.skip_to_version().ok_or_else(|| {
            p.error_at(
                start,
                word,
                "a Direct3D 9 (level 9) program without the shader model 4 program after it",
            )
        })?;
    }
    let version = parse_version(word).ok_or_else(|| {
        p.error_at(
            start,
            word,
            "expected a version line such as `cs_5_0` or `ps_4_1`",
        )
    })?;
    if (version.major, version.minor) == (5, 1) {
        return Err(p.error_at(start, word, super::tokens::SM51));
    }
    p.end_of_statement()?;
    let mut statements = Vec::new();
    loop {
        p.skip_blank();
        if p.pos >= src.len() {
            break;
        }
        for (i, b) in src.as_bytes()[counted..p.pos].iter().enumerate() {
            if *b == b'\n' {
                line += 1;
                line_start = counted + i + 1;
            }
        }
        counted = p.pos;
        let col = src[line_start..p.pos].chars().count() as u32 + 1;
        locs.push((line, col));
        statements.push(p.statement()?);
        p.end_of_statement()?;
    }
    Ok((
        Program {
            version,
            statements,
        },
        locs,
    ))
}

/// Whether `word` is a Direct3D 9 shader model's version line (`vs_2_0`, `ps_2_x`, `ps_3_0`...),
/// as the level-9 part of an fxc listing starts.
fn is_level9_version(word: &str) -> bool {
    let mut parts = word.split('_');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some("vs" | "ps"), Some("1" | "2" | "3"), Some(_), None)
    )
}

fn parse_version(word: &str) -> Option<Version> {
    let mut parts = word.split('_');
    let prefix = parts.next()?;
    let stage = Stage::ALL.into_iter().find(|s| s.prefix() == prefix)?;
    let major: u8 = parts.next()?.parse().ok()?;
    let minor: u8 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(4..=5).contains(&major) || minor > 1 {
        return None;
    }
    Some(Version {
        stage,
        major,
        minor,
    })
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

/// The role of an operand, which decides how its component letters read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Written: letters are a mask.
    Dst,
    /// Read: one letter selects, four swizzle, two or three are a mask.
    Src,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error_at(&self, pos: usize, text: &str, message: impl Into<String>) -> TextError {
        let before = &self.src[..pos.min(self.src.len())];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = self.src[line_start..pos.min(self.src.len())]
            .chars()
            .count() as u32
            + 1;
        TextError {
            line,
            col,
            text: text.chars().take(60).collect(),
            message: message.into(),
            help: None,
        }
    }

    /// An error at the current position, showing the rest of the line.
    fn error(&self, message: impl Into<String>) -> TextError {
        let line = self.rest().lines().next().unwrap_or("").trim_end();
        self.error_at(self.pos, line, message)
    }

    /// Skips spaces and tabs (not line breaks).
    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' {
                self.pos += 1;
            } else if self.rest().starts_with("//") || self.rest().starts_with("#line") {
                // A comment, or a `#line N "file"` directive of a listing compiled with debug
                // information, runs to the end of the line.
                self.pos += self.rest().find('\n').unwrap_or(self.rest().len());
            } else {
                break;
            }
        }
    }

    /// Skips whitespace, line breaks and comments.
    fn skip_blank(&mut self) {
        loop {
            self.skip_ws();
            match self.peek() {
                Some('\n' | '\r') => self.pos += 1,
                _ => break,
            }
        }
    }

    /// Moves to the next line that starts with a shader model 4 or 5 version word and reads
    /// it (`None`, at the end, when there is none).
    fn skip_to_version(&mut self) -> Option<(usize, &'a str)> {
        loop {
            let next = self.rest().find('\n')?;
            self.pos += next + 1;
            let save = self.pos;
            let (start, word) = self.word();
            if parse_version(word).is_some() {
                return Some((start, word));
            }
            self.pos = save;
        }
    }

    /// Skips a minimum-precision annotation after an operand (`{min16f}`, `{min2_8f}`,
    /// `{min16i}`, `{min16u}`, `{min16f as def32}`, ...): a hint Direct3D lets an implementation
    /// ignore, and warpjit computes at 32 bits (docs/semantics.md §27).
    fn skip_precision(&mut self) -> Result<()> {
        self.skip_ws();
        if !self.rest().starts_with('{') {
            return Ok(());
        }
        let start = self.pos;
        let end = self
            .rest()
            .find(['}', '\n'])
            .filter(|&e| self.rest()[e..].starts_with('}'));
        let Some(end) = end else {
            return Err(self.error("a precision annotation `{...}` without its `}`"));
        };
        let inner = &self.rest()[1..end];
        let known = ["min16f", "min2_8f", "min16i", "min16u", "def32"];
        let ok = inner.split(" as ").all(|w| known.contains(&w.trim()));
        if !ok {
            return Err(self.error_at(
                start,
                &self.src[start..start + end + 1],
                "unknown precision annotation (known: min16f, min2_8f, min16i, min16u, def32)",
            ));
        }
        self.pos += end + 1;
        Ok(())
    }

    fn end_of_statement(&mut self) -> Result<()> {
        self.skip_precision()?;
        self.skip_ws();
        match self.peek() {
            None | Some('\n' | '\r') => Ok(()),
            _ => Err(self.error("unexpected text after the end of the statement")),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`")))
        }
    }

    /// A run of word characters (letters, digits, `_`); returns its start and text.
    fn word(&mut self) -> (usize, &'a str) {
        self.skip_ws();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += len;
        (start, &self.src[start..self.pos])
    }

    /// The mnemonic: everything up to white space outside parentheses.
    fn mnemonic(&mut self) -> Result<(usize, &'a str)> {
        self.skip_ws();
        let start = self.pos;
        let mut depth = 0i32;
        for (i, c) in self.rest().char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ' ' | '\t' | '\r' | '\n' if depth <= 0 => {
                    self.pos = start + i;
                    return Ok((start, &self.src[start..self.pos]));
                }
                '\n' => break,
                _ => {}
            }
        }
        if depth > 0 {
            return Err(self.error_at(start, self.rest(), "unclosed `(` in the mnemonic"));
        }
        self.pos = self.src.len();
        Ok((start, &self.src[start..]))
    }

    fn number(&mut self) -> Result<u32> {
        let (start, w) = self.word();
        parse_uint(w).ok_or_else(|| self.error_at(start, w, "expected a number"))
    }

    fn statement(&mut self) -> Result<Statement> {
        let (start, mnemonic) = self.mnemonic()?;
        if mnemonic
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("dcl_"))
        {
            Ok(Statement::Decl(self.decl(start, mnemonic)?))
        } else {
            Ok(Statement::Inst(self.inst(start, mnemonic)?))
        }
    }

    fn inst(&mut self, start: usize, mnemonic: &'a str) -> Result<Inst> {
        let mut inst = parse_mnemonic(mnemonic).map_err(|m| {
            let mut e = self.error_at(start, mnemonic, m);
            e.help = suggest_instruction(mnemonic);
            e
        })?;
        self.skip_ws();
        if !matches!(self.peek(), None | Some('\n' | '\r')) {
            loop {
                let role = if inst.operands.len() < inst.opcode.dst_count() {
                    Role::Dst
                } else {
                    Role::Src
                };
                inst.operands.push(self.operand(role)?);
                if !self.eat(',') {
                    break;
                }
            }
        }
        Ok(inst)
    }

    /// An operand with its modifier.
    fn operand(&mut self, role: Role) -> Result<Operand> {
        self.skip_ws();
        let neg = self.eat('-');
        let abs = self.eat('|');
        let mut op = self.operand_body(role)?;
        if abs {
            self.expect('|')?;
        }
        self.skip_precision()?;
        op.modifier = match (neg, abs) {
            (false, false) => Modifier::None,
            (true, false) => Modifier::Neg,
            (false, true) => Modifier::Abs,
            (true, true) => Modifier::AbsNeg,
        };
        Ok(op)
    }

    fn operand_body(&mut self, role: Role) -> Result<Operand> {
        self.skip_ws();
        let start = self.pos;
        if self.rest().starts_with("l(") {
            self.pos += 2;
            let mut values = Vec::new();
            loop {
                values.push(self.literal()?);
                if !self.eat(',') {
                    break;
                }
            }
            self.expect(')')?;
            if values.len() != 1 && values.len() != 4 {
                return Err(self.error_at(
                    start,
                    &self.src[start..self.pos],
                    "an immediate has 1 or 4 values",
                ));
            }
            return Ok(Operand::imm(&values));
        }
        let name_len = self
            .rest()
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(self.rest().len());
        let name = &self.src[self.pos..self.pos + name_len];
        let file = RegFile::from_text(name).ok_or_else(|| {
            let shown = self.rest().split([',', ' ', '\n']).next().unwrap_or("");
            self.error_at(start, shown, "expected an operand (register or `l(...)`)")
        })?;
        self.pos += name_len;
        let mut indices = Vec::new();
        let digits = self
            .rest()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest().len());
        if digits > 0 {
            let text = &self.src[self.pos..self.pos + digits];
            let n = text
                .parse()
                .map_err(|_| self.error_at(self.pos, text, "register number out of range"))?;
            self.pos += digits;
            indices.push(Index::Imm(n));
        }
        while self.peek() == Some('[') {
            self.pos += 1;
            indices.push(self.index()?);
            self.expect(']')?;
        }
        if indices.len() > 3 {
            return Err(self.error_at(
                start,
                &self.src[start..self.pos],
                "a register has at most 3 indices",
            ));
        }
        let components = if self.peek() == Some('.') {
            self.pos += 1;
            let (lstart, letters) = self.word();
            parse_components(letters, role)
                .ok_or_else(|| self.error_at(lstart, letters, "bad component selection"))?
        } else if file.is_scalar() {
            Components::One
        } else {
            Components::Zero
        };
        Ok(Operand {
            value: OperandValue::Reg { file, indices },
            components,
            modifier: Modifier::None,
        })
    }

    /// `3`, `r1.x`, `r1.x + 3`.
    fn index(&mut self) -> Result<Index> {
        self.skip_ws();
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Ok(Index::Imm(self.number()?));
        }
        let reg = Box::new(self.operand(Role::Src)?);
        if self.eat('+') {
            // fxc prints a register index alone as `[r1.x + 0]`.
            Ok(match self.number()? {
                0 => Index::Reg(reg),
                n => Index::RegPlus(reg, n),
            })
        } else {
            Ok(Index::Reg(reg))
        }
    }

    /// One 32-bit literal value: decimal or hex integer, or float.
    fn literal(&mut self) -> Result<u32> {
        self.skip_blank();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '#')))
            .unwrap_or(self.rest().len());
        let text = &self.src[start..start + len];
        self.pos += len;
        parse_literal(text).ok_or_else(|| self.error_at(start, text, "bad literal"))
    }

    fn decl(&mut self, start: usize, mnemonic: &'a str) -> Result<Decl> {
        let bad = |p: &Self, m: &str| p.error_at(start, mnemonic, m.to_string());
        let lower = mnemonic.to_ascii_lowercase();
        let rest = &lower[4..];
        if rest == "globalflags" {
            let mut flags = 0;
            self.skip_ws();
            if matches!(self.peek(), None | Some('\n' | '\r')) {
                return Ok(Decl::GlobalFlags(0));
            }
            loop {
                let (s, w) = self.word();
                let bit = GLOBAL_FLAGS
                    .iter()
                    .find(|(_, n)| *n == w)
                    .map(|(b, _)| *b)
                    .or_else(|| parse_uint(w))
                    .ok_or_else(|| self.error_at(s, w, "unknown global flag"))?;
                flags |= bit;
                if !self.eat('|') {
                    break;
                }
            }
            return Ok(Decl::GlobalFlags(flags));
        }
        if rest == "constantbuffer" {
            let (slot, size) = self.slot_pair(RegFile::ConstantBuffer)?;
            self.expect(',')?;
            let (s, w) = self.word();
            let dynamic = match w {
                "immediateIndexed" => false,
                "dynamicIndexed" => true,
                _ => {
                    return Err(self.error_at(s, w, "expected immediateIndexed or dynamicIndexed"))
                }
            };
            return Ok(Decl::ConstantBuffer {
                slot,
                size,
                dynamic,
            });
        }
        if rest == "immediateconstantbuffer" {
            return self.icb();
        }
        if rest == "temps" {
            return Ok(Decl::Temps(self.number()?));
        }
        if rest == "indexabletemp" {
            let (reg, size) = self.slot_pair(RegFile::IndexableTemp)?;
            self.expect(',')?;
            let components = self.number()?;
            return Ok(Decl::IndexableTemp {
                reg,
                size,
                components,
            });
        }
        if rest == "thread_group" {
            let x = self.number()?;
            self.expect(',')?;
            let y = self.number()?;
            self.expect(',')?;
            let z = self.number()?;
            return Ok(Decl::ThreadGroup([x, y, z]));
        }
        if rest == "inputprimitive" {
            let (s, w) = self.word();
            let v = Primitive::from_text(w)
                .or_else(|| parse_uint(w).map(Primitive))
                .ok_or_else(|| self.error_at(s, w, "unknown input primitive"))?;
            return Ok(Decl::InputPrimitive(v));
        }
        if rest == "outputtopology" {
            let (s, w) = self.word();
            let v = Topology::from_text(w)
                .or_else(|| parse_uint(w).map(Topology))
                .ok_or_else(|| self.error_at(s, w, "unknown output topology"))?;
            return Ok(Decl::OutputTopology(v));
        }
        if rest == "maxout" {
            return Ok(Decl::MaxOutputVertexCount(self.number()?));
        }
        if rest == "gsinstances" {
            return Ok(Decl::GsInstanceCount(self.number()?));
        }
        if rest == "stream" {
            return Ok(Decl::Stream(self.slot(RegFile::Stream)?));
        }
        if rest == "sampler" {
            let slot = self.slot(RegFile::Sampler)?;
            self.expect(',')?;
            let (s, w) = self.word();
            let mode = SamplerMode::ALL
                .into_iter()
                .find(|m| m.text() == w)
                .ok_or_else(|| self.error_at(s, w, "unknown sampler mode"))?;
            return Ok(Decl::Sampler { slot, mode });
        }
        if rest == "resource_raw" {
            return Ok(Decl::ResourceRaw {
                slot: self.slot(RegFile::Resource)?,
            });
        }
        if rest == "resource_structured" {
            let slot = self.slot(RegFile::Resource)?;
            self.expect(',')?;
            return Ok(Decl::ResourceStructured {
                slot,
                stride: self.number()?,
            });
        }
        if let Some(dim_text) = rest.strip_prefix("resource_") {
            let (dim_text, samples) = match dim_text.split_once('(') {
                Some((d, n)) => {
                    let n = n
                        .strip_suffix(')')
                        .and_then(parse_uint)
                        .ok_or_else(|| bad(self, "bad sample count"))?;
                    (d, n)
                }
                None => (dim_text, 0),
            };
            let dim = ResourceDim::from_text(dim_text)
                .filter(|d| !matches!(d, ResourceDim::RawBuffer | ResourceDim::StructuredBuffer))
                .ok_or_else(|| bad(self, "unknown resource dimension"))?;
            if samples != 0 && !dim.is_multisample() {
                return Err(bad(self, "only multisample textures have a sample count"));
            }
            let return_type = self.return_types()?;
            let slot = self.slot(RegFile::Resource)?;
            return Ok(Decl::Resource {
                slot,
                dim,
                samples,
                return_type,
            });
        }
        if let Some(uav) = rest.strip_prefix("uav_") {
            let mut words: Vec<&str> = uav.split('_').collect();
            let mut flags = UavFlags::default();
            while let Some(&last) = words.last() {
                match last {
                    "glc" => flags.glc = true,
                    "opc" => flags.opc = true,
                    "rov" => flags.rov = true,
                    _ => break,
                }
                words.pop();
            }
            let kind = words.join("_");
            if kind == "raw" {
                let slot = self.slot(RegFile::Uav)?;
                return Ok(Decl::UavRaw { slot, flags });
            }
            if kind == "structured" {
                let slot = self.slot(RegFile::Uav)?;
                self.expect(',')?;
                let stride = self.number()?;
                return Ok(Decl::UavStructured {
                    slot,
                    stride,
                    flags,
                });
            }
            if let Some(d) = kind.strip_prefix("typed_") {
                let dim = ResourceDim::from_text(d)
                    .ok_or_else(|| bad(self, "unknown resource dimension"))?;
                let return_type = self.return_types()?;
                let slot = self.slot(RegFile::Uav)?;
                return Ok(Decl::UavTyped {
                    slot,
                    dim,
                    return_type,
                    flags,
                });
            }
            return Err(bad(self, "unknown UAV declaration"));
        }
        if rest == "tgsm_raw" {
            let slot = self.slot(RegFile::Tgsm)?;
            self.expect(',')?;
            return Ok(Decl::TgsmRaw {
                slot,
                bytes: self.number()?,
            });
        }
        if rest == "tgsm_structured" {
            let slot = self.slot(RegFile::Tgsm)?;
            self.expect(',')?;
            let stride = self.number()?;
            self.expect(',')?;
            return Ok(Decl::TgsmStructured {
                slot,
                stride,
                count: self.number()?,
            });
        }
        if let Some(io) = rest
            .strip_prefix("input")
            .map(|r| (true, r))
            .or_else(|| rest.strip_prefix("output").map(|r| (false, r)))
        {
            let (is_input, suffix) = io;
            let (ps, sv_kind) = match suffix {
                "" => (false, None),
                "_sgv" => (false, Some(SvKind::Sgv)),
                "_siv" => (false, Some(SvKind::Siv)),
                "_ps" if is_input => (true, None),
                "_ps_sgv" if is_input => (true, Some(SvKind::Sgv)),
                "_ps_siv" if is_input => (true, Some(SvKind::Siv)),
                _ => return Err(bad(self, "unknown declaration")),
            };
            let interpolation = if ps {
                self.interpolation()?
            } else {
                Interpolation::Undefined
            };
            let reg = self.operand(Role::Dst)?;
            let sv = match sv_kind {
                None => None,
                Some(kind) => {
                    self.expect(',')?;
                    let (s, w) = self.word();
                    let value = SystemValue::from_text(w)
                        .or_else(|| parse_uint(w).map(SystemValue))
                        .ok_or_else(|| self.error_at(s, w, "unknown system value"))?;
                    Some((kind, value))
                }
            };
            return Ok(if is_input {
                Decl::Input {
                    ps,
                    interpolation,
                    reg,
                    sv,
                }
            } else {
                Decl::Output { reg, sv }
            });
        }
        Err(bad(self, "unknown or unsupported declaration"))
    }

    fn interpolation(&mut self) -> Result<Interpolation> {
        let save = self.pos;
        let mut words = Vec::new();
        loop {
            let before = self.pos;
            let (_, w) = self.word();
            if matches!(
                w,
                "constant" | "linear" | "centroid" | "noperspective" | "sample"
            ) {
                words.push(w);
            } else {
                self.pos = before;
                break;
            }
        }
        let text = words.join(" ");
        Interpolation::ALL
            .into_iter()
            .find(|m| m.text() == text)
            .ok_or_else(|| self.error_at(save, &text, "unknown interpolation mode"))
    }

    /// `(float,float,float,float)`.
    fn return_types(&mut self) -> Result<[ReturnType; 4]> {
        self.expect('(')?;
        let mut out = [ReturnType::Float; 4];
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 {
                self.expect(',')?;
            }
            let (s, w) = self.word();
            *slot = ReturnType::from_text(w)
                .ok_or_else(|| self.error_at(s, w, "unknown return type"))?;
        }
        self.expect(')')?;
        Ok(out)
    }

    /// A declared register with one numeric index: `t3`.
    fn slot(&mut self, file: RegFile) -> Result<u32> {
        self.skip_ws();
        let start = self.pos;
        let op = self.operand(Role::Dst)?;
        match op.value {
            OperandValue::Reg { file: f, indices }
                if f == file && op.components == Components::Zero =>
            {
                if let [Index::Imm(n)] = indices[..] {
                    return Ok(n);
                }
            }
            _ => {}
        }
        Err(self.error_at(
            start,
            &self.src[start..self.pos],
            format!("expected a `{}` register", file.text()),
        ))
    }

    /// A declared register with two numeric indices: `cb0[16]`, `x0[4]`.
    fn slot_pair(&mut self, file: RegFile) -> Result<(u32, u32)> {
        self.skip_ws();
        let start = self.pos;
        let op = self.operand(Role::Dst)?;
        if let OperandValue::Reg { file: f, indices } = &op.value {
            if let [Index::Imm(a), Index::Imm(b)] = indices[..] {
                if *f == file {
                    return Ok((a, b));
                }
            }
        }
        Err(self.error_at(
            start,
            &self.src[start..self.pos],
            format!("expected `{}N[size]`", file.text()),
        ))
    }

    /// `{ { a, b, c, d}, ... }` over several lines.
    fn icb(&mut self) -> Result<Decl> {
        self.skip_ws();
        self.expect('{')?;
        let mut rows = Vec::new();
        loop {
            self.skip_blank();
            if self.peek() == Some('}') {
                self.pos += 1;
                break;
            }
            self.expect('{')?;
            let mut row = [0u32; 4];
            for (i, v) in row.iter_mut().enumerate() {
                if i > 0 {
                    self.skip_blank();
                    self.expect(',')?;
                }
                *v = self.literal()?;
            }
            self.skip_blank();
            self.expect('}')?;
            rows.push(row);
            self.skip_blank();
            if self.peek() == Some(',') {
                self.pos += 1;
            }
        }
        Ok(Decl::ImmediateConstantBuffer(rows))
    }
}

fn parse_uint(w: &str) -> Option<u32> {
    if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        w.parse().ok()
    }
}

/// Reads one literal value to its 32 bits: `1`, `-1`, `0x3f800000`, `0.500000`, `-0.000000`,
/// `1e-10`, and the old compilers' `1.#INF00`, `-1.#QNAN0`.
pub fn parse_literal(text: &str) -> Option<u32> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if body.is_empty() {
        return None;
    }
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = u32::from_str_radix(h, 16).ok()?;
        return Some(if neg { v.wrapping_neg() } else { v });
    }
    if body.contains('#') {
        let up = body.to_ascii_uppercase();
        let bits = if up.contains("INF") {
            0x7f80_0000
        } else if up.contains("IND") || up.contains("NAN") {
            0x7fc0_0000
        } else {
            return None;
        };
        return Some(if neg { bits | 0x8000_0000 } else { bits });
    }
    if body.contains(['.', 'e', 'E']) {
        if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            return None;
        }
        let v: f32 = body.parse().ok()?;
        return Some(if neg { (-v).to_bits() } else { v.to_bits() });
    }
    if !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u64 = body.parse().ok()?;
    if neg {
        (v <= 1 << 31).then(|| (v as u32).wrapping_neg())
    } else {
        u32::try_from(v).ok()
    }
}

/// Prints one 32-bit value so that [`parse_literal`] gives the same bits back: small integers in
/// decimal, floats as fxc prints them (`0.500000`) when six decimals suffice, else in the shortest
/// decimal that round-trips, and everything else (NaN, infinities, odd bit patterns) in hex.
pub fn format_literal(bits: u32) -> String {
    let i = bits as i32;
    if (-65536..65536).contains(&i) {
        return i.to_string();
    }
    let f = f32::from_bits(bits);
    if f.is_normal() {
        let six = format!("{f:.6}");
        if parse_literal(&six) == Some(bits) {
            return six;
        }
        let short = format!("{f:?}");
        if parse_literal(&short) == Some(bits) {
            return short;
        }
    }
    format!("0x{bits:08x}")
}

fn component_index(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

fn parse_components(letters: &str, role: Role) -> Option<Components> {
    let idx: Vec<u8> = letters
        .chars()
        .map(component_index)
        .collect::<Option<_>>()?;
    if idx.is_empty() || idx.len() > 4 {
        return None;
    }
    let as_mask = || {
        let strictly_rising = idx.windows(2).all(|w| w[0] < w[1]);
        strictly_rising.then(|| Components::Mask(idx.iter().fold(0, |m, &i| m | 1 << i)))
    };
    match (role, idx.len()) {
        (Role::Dst, _) => as_mask(),
        (Role::Src, 1) => Some(Components::Select(idx[0])),
        (Role::Src, 4) => Some(Components::Swizzle([idx[0], idx[1], idx[2], idx[3]])),
        (Role::Src, _) => as_mask(),
    }
}

/// Words of a mnemonic after its opcode's (`_sat`, `_z`, `_indexable`, ...).
const MODIFIER_WORDS: &[&str] = &[
    "sat",
    "z",
    "nz",
    "aoffimmi",
    "indexable",
    "uint",
    "rcpFloat",
    "t",
    "g",
    "ugroup",
    "uglobal",
];

/// "did you mean `X`?" for a mnemonic that names no instruction: the leading words that come
/// closest to an opcode, with the modifier words after them kept (`mull_sat` suggests
/// `mul_sat`, `ld_strutured_indexable` `ld_structured_indexable`), or `None` when the mnemonic
/// names an instruction or nothing is close.
fn suggest_instruction(m: &str) -> Option<String> {
    let head = m.split('(').next().unwrap_or(m);
    let words: Vec<&str> = head.split('_').collect();
    // The splits whose words after the lead are all modifiers.
    let splits =
        (1..=words.len()).filter(|&k| words[k..].iter().all(|w| MODIFIER_WORDS.contains(w)));
    let mut best: Option<(f64, String)> = None;
    for k in splits {
        let lead = words[..k].join("_");
        if Opcode::from_text(&lead).is_some() {
            return None;
        }
        if let Some(c) = crate::diag::closest(&lead, Opcode::ALL.iter().map(|o| o.text())) {
            let score = strsim::jaro_winkler(&lead, c);
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, format!("did you mean `{c}{}`?", &m[lead.len()..])));
            }
        }
    }
    best.map(|(_, s)| s)
}

/// Splits a mnemonic into its words and parenthesised groups and builds the instruction.
fn parse_mnemonic(m: &str) -> std::result::Result<Inst, String> {
    let mut words: Vec<&str> = Vec::new();
    let mut groups: Vec<&str> = Vec::new();
    let mut rest = m;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('(') {
            let close = r.find(')').ok_or("unclosed `(`")?;
            groups.push(&r[..close]);
            rest = &r[close + 1..];
        } else if let Some(r) = rest.strip_prefix('_') {
            rest = r;
        } else {
            let end = rest.find(['_', '(']).unwrap_or(rest.len());
            words.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    // The longest leading run of words that names an opcode.
    let (opcode, used) = (1..=words.len())
        .rev()
        .find_map(|k| Opcode::from_text(&words[..k].join("_")).map(|o| (o, k)))
        .ok_or_else(|| format!("unknown instruction `{m}`"))?;
    let mut inst = Inst::new(opcode, Vec::new());
    let mut aoffimmi = false;
    let mut indexable = false;
    for &w in &words[used..] {
        let dup = match w {
            "sat" => std::mem::replace(&mut inst.saturate, true),
            "z" | "nz" if opcode.takes_test() => inst
                .test
                .replace(if w == "z" { Test::Zero } else { Test::NonZero })
                .is_some(),
            "aoffimmi" => std::mem::replace(&mut aoffimmi, true),
            "indexable" => std::mem::replace(&mut indexable, true),
            "uint" | "rcpFloat" if matches!(opcode, Opcode::ResInfo | Opcode::SampleInfo) => {
                let new = if w == "uint" {
                    InfoReturn::Uint
                } else {
                    InfoReturn::RcpFloat
                };
                std::mem::replace(&mut inst.info_return, new) != InfoReturn::Float
            }
            "t" | "g" | "ugroup" | "uglobal" if opcode == Opcode::Sync => {
                let f = match w {
                    "t" => &mut inst.sync.threads,
                    "g" => &mut inst.sync.tgsm,
                    "ugroup" => &mut inst.sync.uav_group,
                    _ => &mut inst.sync.uav_global,
                };
                std::mem::replace(f, true)
            }
            _ => return Err(format!("unknown modifier `_{w}` on `{}`", opcode.text())),
        };
        if dup {
            return Err(format!("modifier `_{w}` given twice"));
        }
    }
    if opcode.takes_test() != inst.test.is_some() {
        return Err(format!("`{}` needs a `_z` or `_nz` test", opcode.text()));
    }
    let mut groups = groups.into_iter().peekable();
    // Offsets: `_aoffimmi(u,v[,w])`, or D3DCompiler_43's bare `(u,v,w)`.
    if let Some(g) = groups.peek() {
        if let Some(offs) = parse_offsets(g) {
            inst.offsets = Some(offs?);
            groups.next();
        }
    }
    if aoffimmi && inst.offsets.is_none() {
        return Err("`_aoffimmi` needs its offsets `(u,v,w)`".into());
    }
    if indexable {
        let g = groups
            .next()
            .ok_or("`_indexable` needs its resource dimension `(texture2d)`")?;
        let (dim, stride) = match g.split_once(',') {
            Some((d, s)) => {
                let s = s
                    .trim()
                    .strip_prefix("stride=")
                    .and_then(|n| parse_uint(n.trim()))
                    .ok_or_else(|| format!("bad stride in `({g})`"))?;
                (d.trim(), s)
            }
            None => (g.trim(), 0),
        };
        let dim = ResourceDim::from_text(dim)
            .ok_or_else(|| format!("unknown resource dimension `{dim}`"))?;
        inst.resource = Some(ResourceInfo { dim, stride });
        if let Some(g) = groups.next() {
            let types: Vec<ReturnType> = g
                .split(',')
                .map(|t| ReturnType::from_text(t.trim()))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("bad return types `({g})`"))?;
            inst.return_type = Some(
                types
                    .try_into()
                    .map_err(|_| format!("`({g})` needs four return types"))?,
            );
        }
    }
    if let Some(g) = groups.next() {
        return Err(format!("unexpected `({g})` in `{m}`"));
    }
    Ok(inst)
}

/// `-2,3,0` as offsets: `None` if the group is not a list of integers.
#[allow(clippy::type_complexity)]
fn parse_offsets(g: &str) -> Option<std::result::Result<[i8; 3], String>> {
    let vals: Vec<i64> = g
        .split(',')
        .map(|v| v.trim().parse().ok())
        .collect::<Option<_>>()?;
    if !(2..=3).contains(&vals.len()) {
        return Some(Err(format!("`({g})`: offsets are (u,v) or (u,v,w)")));
    }
    let mut out = [0i8; 3];
    for (o, &v) in out.iter_mut().zip(&vals) {
        if !(-8..=7).contains(&v) {
            return Some(Err(format!("offset {v} is outside -8..7")));
        }
        *o = v as i8;
    }
    Some(Ok(out))
}

impl fmt::Display for Program {
    /// The listing, as [`print()`] gives it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

/// Prints a program in fxc's syntax (`parse(&print(p)) == p`).
pub fn print(p: &Program) -> String {
    let mut out = String::new();
    let v = p.version;
    let _ = writeln!(out, "{}_{}_{}", v.stage.prefix(), v.major, v.minor);
    let mut depth = 0usize;
    for s in &p.statements {
        match s {
            Statement::Decl(d) => {
                out.push_str(&print_decl(d));
            }
            Statement::Inst(i) => {
                if matches!(
                    i.opcode,
                    Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch | Opcode::Else
                ) {
                    depth = depth.saturating_sub(1);
                }
                for _ in 0..depth {
                    out.push_str("  ");
                }
                out.push_str(&print_inst(i));
                if matches!(
                    i.opcode,
                    Opcode::If | Opcode::Loop | Opcode::Switch | Opcode::Else
                ) {
                    depth += 1;
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Prints one instruction (no indentation, no line break).
pub fn print_inst(i: &Inst) -> String {
    let mut s = String::from(i.opcode.text());
    if i.sync.uav_global {
        s.push_str("_uglobal");
    }
    if i.sync.uav_group {
        s.push_str("_ugroup");
    }
    if i.sync.tgsm {
        s.push_str("_g");
    }
    if i.sync.threads {
        s.push_str("_t");
    }
    match i.test {
        Some(Test::Zero) => s.push_str("_z"),
        Some(Test::NonZero) => s.push_str("_nz"),
        None => {}
    }
    if i.saturate {
        s.push_str("_sat");
    }
    if i.offsets.is_some() {
        s.push_str("_aoffimmi");
    }
    if i.resource.is_some() {
        s.push_str("_indexable");
    }
    if let Some([u, v, w]) = i.offsets {
        let _ = write!(s, "({u},{v},{w})");
    }
    if let Some(r) = i.resource {
        if r.stride != 0 {
            let _ = write!(s, "({}, stride={})", r.dim.text(), r.stride);
        } else {
            let _ = write!(s, "({})", r.dim.text());
        }
        if let Some(rt) = i.return_type {
            s.push_str(&return_types_text(&rt));
        }
    }
    match i.info_return {
        InfoReturn::Float => {}
        InfoReturn::RcpFloat => s.push_str("_rcpFloat"),
        InfoReturn::Uint => s.push_str("_uint"),
    }
    for (n, op) in i.operands.iter().enumerate() {
        s.push_str(if n == 0 { " " } else { ", " });
        s.push_str(&print_operand(op));
    }
    s
}

fn return_types_text(rt: &[ReturnType; 4]) -> String {
    format!(
        "({},{},{},{})",
        rt[0].text(),
        rt[1].text(),
        rt[2].text(),
        rt[3].text()
    )
}

const LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

/// Prints one operand as fxc does (`-|cb0[r1.x + 2].xyzw|`, `l(0.500000, 1, 0, 0)`).
pub fn print_operand(op: &Operand) -> String {
    let mut body = String::new();
    match &op.value {
        OperandValue::Imm32(vals) => {
            let parts: Vec<String> = vals.iter().map(|&v| format_literal(v)).collect();
            let _ = write!(body, "l({})", parts.join(", "));
        }
        OperandValue::Reg { file, indices } => {
            body.push_str(file.text());
            for (n, idx) in indices.iter().enumerate() {
                match idx {
                    Index::Imm(v)
                        if n == 0
                            && !file.brackets_first_index()
                            && !(*file == RegFile::Input && indices.len() == 2) =>
                    {
                        let _ = write!(body, "{v}");
                    }
                    Index::Imm(v) => {
                        let _ = write!(body, "[{v}]");
                    }
                    Index::Reg(r) => {
                        let _ = write!(body, "[{} + 0]", print_operand(r));
                    }
                    Index::RegPlus(r, v) => {
                        let _ = write!(body, "[{} + {v}]", print_operand(r));
                    }
                }
            }
        }
    }
    match op.components {
        Components::Zero | Components::One => {}
        Components::Mask(m) => {
            if m != 0 {
                body.push('.');
                for (b, c) in LETTERS.iter().enumerate() {
                    if m & (1 << b) != 0 {
                        body.push(*c);
                    }
                }
            }
        }
        Components::Swizzle(sw) => {
            body.push('.');
            for c in sw {
                body.push(LETTERS[c as usize & 3]);
            }
        }
        Components::Select(c) => {
            body.push('.');
            body.push(LETTERS[c as usize & 3]);
        }
    }
    match op.modifier {
        Modifier::None => body,
        Modifier::Neg => format!("-{body}"),
        Modifier::Abs => format!("|{body}|"),
        Modifier::AbsNeg => format!("-|{body}|"),
    }
}

fn uav_flags_text(f: UavFlags) -> String {
    let mut s = String::new();
    if f.glc {
        s.push_str("_glc");
    }
    if f.opc {
        s.push_str("_opc");
    }
    if f.rov {
        s.push_str("_rov");
    }
    s
}

fn sv_text(sv: Option<(SvKind, SystemValue)>) -> (&'static str, String) {
    match sv {
        None => ("", String::new()),
        Some((kind, v)) => (
            if kind == SvKind::Sgv { "_sgv" } else { "_siv" },
            format!(
                ", {}",
                v.text().map_or_else(|| v.0.to_string(), str::to_string)
            ),
        ),
    }
}

/// Prints one declaration (no line break at the end; the immediate constant buffer spans lines).
pub fn print_decl(d: &Decl) -> String {
    match d {
        Decl::GlobalFlags(flags) => {
            let mut names: Vec<String> = GLOBAL_FLAGS
                .iter()
                .filter(|(b, _)| flags & b != 0)
                .map(|(_, n)| n.to_string())
                .collect();
            let unnamed = GLOBAL_FLAGS.iter().fold(*flags, |f, (b, _)| f & !b);
            if unnamed != 0 {
                names.push(format!("{unnamed:#x}"));
            }
            format!("dcl_globalFlags {}", names.join(" | "))
        }
        Decl::ConstantBuffer {
            slot,
            size,
            dynamic,
        } => format!(
            "dcl_constantbuffer CB{slot}[{size}], {}",
            if *dynamic {
                "dynamicIndexed"
            } else {
                "immediateIndexed"
            }
        ),
        Decl::ImmediateConstantBuffer(rows) => {
            let mut s = String::from("dcl_immediateConstantBuffer {");
            if rows.is_empty() {
                s.push('}');
                return s;
            }
            for (n, r) in rows.iter().enumerate() {
                if n > 0 {
                    s.push_str(",\n                              ");
                }
                let vals: Vec<String> = r.iter().map(|&v| format_literal(v)).collect();
                let _ = write!(s, " {{ {}}}", vals.join(", "));
            }
            s.push_str(" }");
            s
        }
        Decl::Resource {
            slot,
            dim,
            samples,
            return_type,
        } => {
            let ms = if dim.is_multisample() {
                format!("({samples})")
            } else {
                String::new()
            };
            format!(
                "dcl_resource_{}{ms} {} t{slot}",
                dim.text(),
                return_types_text(return_type)
            )
        }
        Decl::ResourceRaw { slot } => format!("dcl_resource_raw t{slot}"),
        Decl::ResourceStructured { slot, stride } => {
            format!("dcl_resource_structured t{slot}, {stride}")
        }
        Decl::UavTyped {
            slot,
            dim,
            return_type,
            flags,
        } => format!(
            "dcl_uav_typed_{}{} {} u{slot}",
            dim.text(),
            uav_flags_text(*flags),
            return_types_text(return_type)
        ),
        Decl::UavRaw { slot, flags } => format!("dcl_uav_raw{} u{slot}", uav_flags_text(*flags)),
        Decl::UavStructured {
            slot,
            stride,
            flags,
        } => format!(
            "dcl_uav_structured{} u{slot}, {stride}",
            uav_flags_text(*flags)
        ),
        Decl::TgsmRaw { slot, bytes } => format!("dcl_tgsm_raw g{slot}, {bytes}"),
        Decl::TgsmStructured {
            slot,
            stride,
            count,
        } => format!("dcl_tgsm_structured g{slot}, {stride}, {count}"),
        Decl::Sampler { slot, mode } => format!("dcl_sampler s{slot}, {}", mode.text()),
        Decl::Input {
            ps,
            interpolation,
            reg,
            sv,
        } => {
            let (suffix, name) = sv_text(*sv);
            let interp = if *ps && *interpolation != Interpolation::Undefined {
                format!("{} ", interpolation.text())
            } else {
                String::new()
            };
            format!(
                "dcl_input{}{suffix} {interp}{}{name}",
                if *ps { "_ps" } else { "" },
                print_operand(reg)
            )
        }
        Decl::Output { reg, sv } => {
            let (suffix, name) = sv_text(*sv);
            format!("dcl_output{suffix} {}{name}", print_operand(reg))
        }
        Decl::Temps(n) => format!("dcl_temps {n}"),
        Decl::IndexableTemp {
            reg,
            size,
            components,
        } => format!("dcl_indexableTemp x{reg}[{size}], {components}"),
        Decl::ThreadGroup([x, y, z]) => format!("dcl_thread_group {x}, {y}, {z}"),
        Decl::InputPrimitive(p) => format!(
            "dcl_inputprimitive {}",
            p.text().map_or_else(|| p.0.to_string(), str::to_string)
        ),
        Decl::OutputTopology(t) => format!(
            "dcl_outputtopology {}",
            t.text().map_or_else(|| t.0.to_string(), str::to_string)
        ),
        Decl::MaxOutputVertexCount(n) => format!("dcl_maxout {n}"),
        Decl::GsInstanceCount(n) => format!("dcl_gsinstances {n}"),
        Decl::Stream(m) => format!("dcl_stream m{m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_split_into_opcode_and_modifiers() {
        let i = parse_mnemonic(
            "sample_c_lz_aoffimmi_indexable(1,2,0)(texture2d)(float,float,float,float)",
        )
        .unwrap();
        assert_eq!(i.opcode, Opcode::SampleCLz);
        assert_eq!(i.offsets, Some([1, 2, 0]));
        assert_eq!(i.return_type, Some([ReturnType::Float; 4]));
        let i = parse_mnemonic("imm_atomic_cmp_exch").unwrap();
        assert_eq!(i.opcode, Opcode::ImmAtomicCmpExch);
        let i = parse_mnemonic("retc_nz").unwrap();
        assert_eq!((i.opcode, i.test), (Opcode::Retc, Some(Test::NonZero)));
        assert!(parse_mnemonic("round_z_z").is_err());
        assert!(parse_mnemonic("ld(1,2,3)(texture2d)").is_err());
        assert!(parse_mnemonic("ld_indexable").is_err());
        assert!(parse_mnemonic("ld_indexable(structured_buffer, stride=x)").is_err());
        assert!(parse_mnemonic("ldms(1,2,3,4)").is_err());
    }

    /// fxc's listing of a `*_4_0_level_9_x` target: the Direct3D 9 program (with `#line`
    /// directives) is skipped, the shader model 4 program after it is the program, its
    /// statements located on their own lines; a level-9 program alone is an error at its
    /// version line.
    #[test]
    fn level9_listings_give_their_shader_model_4_program() {
        let src = "//\n// Level9 shader bytecode:\n//\n    vs_2_0\n    def c7, 0, 1, 0, 0\n\
                   #line 41 \"C:\\a.fx\"\n    dp4 oPos.z, v0, c5  // ::VSBasic<10>\n\
                   // approximately 11 instruction slots used\nvs_4_0\n\
                   dcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret \n";
        let (p, locs) = parse_located(src).unwrap();
        assert_eq!((p.version.stage, p.version.major), (Stage::Vertex, 4));
        assert_eq!(locs, [(10, 1), (11, 1), (12, 1)]);
        let e = parse("cs_5_1\nret\n").unwrap_err();
        assert!(e.message.contains("shader model 5.1"), "{e}");
        let e = parse("    ps_2_0\n    mov oC0, c0\n").unwrap_err();
        assert_eq!((e.line, e.col, e.text.as_str()), (1, 5, "ps_2_0"));
        assert!(e.message.contains("level 9"), "{e}");
    }

    /// Minimum-precision annotations after operands and declared registers are accepted and
    /// change nothing; an unknown one is an error at its `{`.
    #[test]
    fn precision_annotations_are_hints() {
        let with = parse(
            "ps_4_0\ndcl_input_ps linear v0.x {min16f}\ndcl_output o0.xyzw\ndcl_temps 1\n\
             add r0.x {min16f}, v0.x {min16f as def32}, l(1.0) {def32 as min16f}\n\
             mov o0.xyzw, r0.xxxx {min16f as def32}\nret\n",
        )
        .unwrap();
        let without = parse(
            "ps_4_0\ndcl_input_ps linear v0.x\ndcl_output o0.xyzw\ndcl_temps 1\n\
             add r0.x, v0.x, l(1.0)\nmov o0.xyzw, r0.xxxx\nret\n",
        )
        .unwrap();
        assert_eq!(with, without);
        let e = parse("ps_4_0\nmov o0.x {min8f}, l(0)\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 10));
        assert!(e.message.contains("unknown precision annotation"), "{e}");
    }

    #[test]
    fn literals() {
        assert_eq!(parse_literal("1"), Some(1));
        assert_eq!(parse_literal("-1"), Some(u32::MAX));
        assert_eq!(parse_literal("4294967295"), Some(u32::MAX));
        assert_eq!(parse_literal("4294967296"), None);
        assert_eq!(parse_literal("-2147483648"), Some(0x8000_0000));
        assert_eq!(parse_literal("-2147483649"), None);
        assert_eq!(parse_literal("0x00008000"), Some(0x8000));
        assert_eq!(parse_literal("0.707107"), Some(0x3f35_04f7));
        assert_eq!(parse_literal("-1.#IND00"), Some(0xffc0_0000));
        assert_eq!(parse_literal("1.5.5"), None);
        assert_eq!(parse_literal("-"), None);
        assert_eq!(parse_literal("x"), None);
        assert_eq!(format_literal(0x3f35_04f3), "0.70710677");
        assert_eq!(format_literal(0x7fc0_0000), "0x7fc00000");
        assert_eq!(format_literal(0xffff_ffff), "-1");
    }
}
