//! Tokens of SASS text.
//!
//! Whitespace, `//` and `/* */` comments, scheduling text (`?WAIT6`, `&req_6`, `&wr0`, `&rdN`) are
//! dropped. A block comment holding only 1 to 8 hex digits (`/*0068*/`) is an address comment and
//! kept as [`Tok::Addr`]; others (`/* 0x4c98078000870001 */`) are dropped. nvdisasm's notes
//! `(*"BRANCH_TARGETS .L_x_1,.L_x_2"*)` are kept as [`Tok::Note`] (a `BRX`'s targets). Line
//! breaks are tokens (they end statements). Columns count characters.

use super::AsmError;
use crate::ir::SrcLoc;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `[A-Za-z_$][A-Za-z0-9_$]*`: mnemonics, modifiers, registers, names, labels.
    Ident(String),
    /// `[0-9][A-Za-z0-9_]*`: a number as written (checked when used).
    Num(String),
    /// One punctuation character: `. , ; : [ ] ( ) + - ~ ! @ { } | `` ` ``.
    Punct(char),
    /// An address comment `/*0068*/`.
    Addr(u32),
    /// A note `(*"TEXT"*)` as nvdisasm prints them after an instruction: the text inside the
    /// quotes (`BRANCH_TARGETS .L_x_1,.L_x_2`, `INDIRECT_CALL`).
    Note(String),
    /// End of a line.
    Newline,
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub loc: SrcLoc,
    /// Whether whitespace or a comment separates it from the previous token on its line.
    pub space_before: bool,
}

impl Token {
    /// True for the punctuation character `c`.
    pub fn is(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    /// The identifier text, if an identifier.
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// The text of the token as written (address comments and newlines print as empty).
    pub fn text(&self) -> String {
        match &self.tok {
            Tok::Ident(s) | Tok::Num(s) => s.clone(),
            Tok::Punct(c) => c.to_string(),
            Tok::Note(n) => format!("(*\"{n}\"*)"),
            Tok::Addr(_) | Tok::Newline => String::new(),
        }
    }
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Splits `text` into tokens.
pub fn lex(text: &str) -> Result<Vec<Token>, AsmError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut space = true;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let loc = SrcLoc { line, col };
        // Length (in chars) of a run starting at `i + skip` whose chars satisfy `f`.
        let run = |skip: usize, f: &dyn Fn(char) -> bool| {
            chars.iter().skip(i + skip).take_while(|&&c| f(c)).count() + skip
        };
        let (len, tok) = match c {
            '\n' => {
                out.push(Token {
                    tok: Tok::Newline,
                    loc,
                    space_before: space,
                });
                i += 1;
                line += 1;
                col = 1;
                space = true;
                continue;
            }
            c if c.is_whitespace() => (1, None),
            '/' if at(i + 1) == '/' => (run(2, &|c| c != '\n'), None),
            '/' if at(i + 1) == '*' => {
                let body_start = i + 2;
                let mut j = body_start;
                while j < chars.len() && !(chars[j] == '*' && at(j + 1) == '/') {
                    j += 1;
                }
                if j >= chars.len() {
                    return Err(AsmError::at(loc, "unterminated `/*` comment"));
                }
                let body = chars.get(body_start..j).unwrap_or(&[]);
                let tok = if (1..=8).contains(&body.len())
                    && body.iter().all(|c| c.is_ascii_hexdigit())
                {
                    let s: String = body.iter().collect();
                    u32::from_str_radix(&s, 16).ok().map(Tok::Addr)
                } else {
                    None
                };
                // Advance over the comment, counting line breaks inside it.
                for &ch in chars.get(i..j + 2).unwrap_or(&[]) {
                    if ch == '\n' {
                        line += 1;
                        col = 1;
                    } else {
                        col += 1;
                    }
                }
                i = j + 2;
                if let Some(tok) = tok {
                    out.push(Token {
                        tok,
                        loc,
                        space_before: space,
                    });
                }
                space = true;
                continue;
            }
            '(' if at(i + 1) == '*' => {
                // A note: `(*"text"*)` on one line.
                let body_start = i + 2;
                let mut j = body_start;
                while j < chars.len() && chars[j] != '\n' && !(chars[j] == '*' && at(j + 1) == ')')
                {
                    j += 1;
                }
                if j >= chars.len() || chars[j] == '\n' {
                    return Err(AsmError::at(loc, "unterminated `(*` note"));
                }
                let body: String = chars.get(body_start..j).unwrap_or(&[]).iter().collect();
                let text = body
                    .trim()
                    .strip_prefix('"')
                    .and_then(|b| b.strip_suffix('"'))
                    .unwrap_or(body.trim())
                    .to_string();
                (j + 2 - i, Some(Tok::Note(text)))
            }
            '?' => (run(1, &ident_char), None),
            '&' => (run(1, &|c| ident_char(c) || c == '='), None),
            c if ident_start(c) => {
                let n = run(1, &ident_char);
                (n, Some(Tok::Ident(chars.iter().skip(i).take(n).collect())))
            }
            c if c.is_ascii_digit() => {
                let mut n = run(1, &|c| c.is_ascii_alphanumeric() || c == '_');
                let hex = c == '0' && matches!(at(i + 1), 'x' | 'X');
                // After a `.` the number is a modifier (`.64.128`), never a float.
                let modifier = i > 0 && at(i - 1) == '.';
                if !hex && !modifier {
                    // A decimal float literal: `1.5`, `2.5e-3`, `1e+30` (a `.` only before a
                    // digit, so `R1.reuse`-like suffixes never join a number).
                    if at(i + n) == '.' && at(i + n + 1).is_ascii_digit() {
                        n = run(n + 1, &|c| c.is_ascii_alphanumeric());
                    }
                    let e = at(i + n - 1);
                    if matches!(e, 'e' | 'E')
                        && matches!(at(i + n), '+' | '-')
                        && at(i + n + 1).is_ascii_digit()
                    {
                        n = run(n + 1, &|c| c.is_ascii_digit());
                    }
                }
                (n, Some(Tok::Num(chars.iter().skip(i).take(n).collect())))
            }
            '.' | ',' | ';' | ':' | '[' | ']' | '(' | ')' | '+' | '-' | '~' | '!' | '@' | '{'
            | '}' | '|' | '`' => (1, Some(Tok::Punct(c))),
            c => return Err(AsmError::at(loc, format!("unexpected character `{c}`"))),
        };
        match tok {
            Some(tok) => {
                out.push(Token {
                    tok,
                    loc,
                    space_before: space,
                });
                space = false;
            }
            None => space = true,
        }
        i += len;
        col += len as u32;
    }
    // The text always ends a line, so the last statement ends where the text does.
    out.push(Token {
        tok: Tok::Newline,
        loc: SrcLoc { line, col },
        space_before: space,
    });
    Ok(out)
}

/// The value of a number token: `0x`/`0X` hex (digits in either case) or decimal.
pub fn number(text: &str, loc: SrcLoc) -> Result<i64, AsmError> {
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (text, 10),
    };
    let bad = || AsmError::at(loc, format!("malformed number `{text}`"));
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(bad());
    }
    let v = u64::from_str_radix(digits, radix)
        .map_err(|_| AsmError::at(loc, format!("number `{text}` is too large")))?;
    i64::try_from(v).map_err(|_| AsmError::at(loc, format!("number `{text}` is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn drops_scheduling_text_and_comments() {
        assert_eq!(
            toks("/*0008*/ NOP ?WAIT6 &req_6 &wr0 &rd1 ; /* 0x4c98 */ // x\n"),
            vec![
                Tok::Addr(8),
                Tok::Ident("NOP".into()),
                Tok::Punct(';'),
                Tok::Newline,
                Tok::Newline
            ]
        );
    }

    #[test]
    fn columns_count_characters_and_lines() {
        let t = lex("/* é\n */ ab").unwrap();
        assert_eq!(t[0].loc, SrcLoc { line: 2, col: 5 });
        let t = lex("é R1").unwrap_err();
        assert_eq!((t.line, t.col), (1, 1));
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let e = lex("NOP /* x").unwrap_err();
        assert_eq!(
            (e.col, e.message.as_str()),
            (5, "unterminated `/*` comment")
        );
    }

    #[test]
    fn numbers() {
        let l = SrcLoc::default();
        assert_eq!(number("0xFf", l), Ok(255));
        assert_eq!(number("0XfF", l), Ok(255));
        assert_eq!(number("42", l), Ok(42));
        assert!(number("0x", l).is_err());
        assert!(number("12a", l).is_err());
        assert!(number("0x1ffffffffffffffff", l)
            .unwrap_err()
            .message
            .contains("too large"));
    }
}
