//! Trace errors and how they point into the text at fault.

use crate::sass::{self, AsmError};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A place in a text file, with the message about it, rendered as
/// `PATH:LINE:COL: error: MESSAGE` followed by the offending line and a caret under the column, each
/// indented by `  | `, with the same bounds as [`AsmError::render`] (the line cut around the
/// column, control characters escaped, the message at most [`sass::MESSAGE_MAX`] characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The file (as the user named it, or joined to the trace's directory for side files).
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is wrong.
    pub message: String,
    /// The text of the offending line (without its line break).
    pub line_text: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.path.display(),
            self.line,
            self.col,
            sass::bounded_message(&self.message)
        )?;
        sass::write_excerpt(f, &self.line_text, self.col)
    }
}

/// An invalid trace file, or an invalid program in one.
///
/// Every variant is a **user error** (the trace's author has to fix the trace or its program; the
/// command line exits with status 2), never a warpjit bug. Each renders as
/// `PATH:LINE:COL: error: MESSAGE` followed by the offending line, except
/// [`TraceError::Unreadable`], which has no line to point at.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The trace file itself cannot be read (missing, unreadable, not UTF-8).
    #[error("{}: error: cannot read the trace: {message}", path.display())]
    Unreadable {
        /// The trace path as given.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// The TOML is malformed or does not fit the schema: a syntax error, an unknown key, a value
    /// of the wrong type, a missing key.
    #[error("{0}")]
    Syntax(Located),
    /// A value is well-typed but invalid: out of range, misaligned, overlapping, conflicting keys,
    /// an unreadable side file, an expectation outside mapped memory.
    #[error("{0}")]
    Invalid(Located),
    /// The trace asks for something warpjit does not support yet (DXBC programs and outputs).
    #[error("{0}")]
    Unsupported(Located),
    /// A program of a launch does not assemble. For inline `code` the error's path is the trace
    /// and its line a line of the trace file; for `code_file` it is that file and its line.
    #[error("{}", error.render(&path.display().to_string(), *line_offset))]
    Program {
        /// The file holding the program text (the trace for inline `code`).
        path: PathBuf,
        /// Added to the error's line to get a line of `path`.
        line_offset: u32,
        /// The assembler's error (line and column inside `path`, less `line_offset` lines).
        error: AsmError,
    },
}

impl TraceError {
    /// The location this error points at, if it has one in the trace file or a side file
    /// (`Program` errors are located by their [`AsmError`]).
    pub fn located(&self) -> Option<&Located> {
        match self {
            TraceError::Syntax(l) | TraceError::Invalid(l) | TraceError::Unsupported(l) => Some(l),
            TraceError::Unreadable { .. } | TraceError::Program { .. } => None,
        }
    }
}

/// A text file and its line starts, to turn byte spans into line, column and line text.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    line_starts: Vec<usize>,
}

impl Source {
    pub(crate) fn new(path: &Path, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            path: path.to_path_buf(),
            text,
            line_starts,
        }
    }

    /// 0-based line index of a byte offset.
    pub(crate) fn line_index(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The text of a 0-based line, without its line break.
    pub(crate) fn line_text(&self, index: usize) -> &str {
        let start = self
            .line_starts
            .get(index)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e.saturating_sub(1));
        let line = self.text.get(start..end.max(start)).unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let li = self.line_index(offset);
        let start = self.line_starts.get(li).copied().unwrap_or(0);
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        (li as u32 + 1, col as u32 + 1)
    }

    /// A located message at the start of a byte span.
    pub(crate) fn at(&self, span: &Range<usize>, message: impl Into<String>) -> Located {
        let (line, col) = self.line_col(span.start);
        Located {
            path: self.path.clone(),
            line,
            col,
            message: message.into(),
            line_text: self.line_text(line as usize - 1).to_string(),
        }
    }

    /// An [`TraceError::Invalid`] at a span.
    pub(crate) fn invalid(&self, span: &Range<usize>, message: impl Into<String>) -> TraceError {
        TraceError::Invalid(self.at(span, message))
    }

    /// An [`TraceError::Unsupported`] at a span.
    pub(crate) fn unsupported(
        &self,
        span: &Range<usize>,
        message: impl Into<String>,
    ) -> TraceError {
        TraceError::Unsupported(self.at(span, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_and_excerpt() {
        let s = Source::new(Path::new("t.toml"), "a = 1\r\n\tb = 2\nc".to_string());
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(8), (2, 2));
        assert_eq!(s.line_col(14), (3, 1));
        assert_eq!(s.line_text(0), "a = 1");
        let l = s.at(&(12..13), "bad");
        assert_eq!(
            l.to_string(),
            "t.toml:2:6: error: bad\n  | \tb = 2\n  | \t    ^"
        );
    }

    #[test]
    fn excerpts_are_bounded_and_escaped() {
        let long = format!("{}\0X{}", "a".repeat(10_000), "\0".repeat(10_000_000));
        let s = Source::new(Path::new("t.toml"), long);
        let l = s.at(&(10_000..10_000), "bad \0 \x1b[31m");
        let shown = l.to_string();
        assert!(shown.len() < 600, "{} bytes", shown.len());
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "t.toml:1:10001: error: bad \\0 \\x1b[31m");
        assert_eq!(
            lines[1],
            format!("  | …{}\\0X{}…", "a".repeat(60), "\\0".repeat(58))
        );
        assert_eq!(lines[2], format!("  |  {}^", " ".repeat(60)));
        // Short lines are whole; the caret skips escapes' widths.
        let s = Source::new(Path::new("t.toml"), "\u{1}\tab".to_string());
        assert_eq!(
            s.at(&(3..3), "m").to_string(),
            "t.toml:1:4: error: m\n  | \\x01\tab\n  |     \t ^"
        );
        let msg = "x".repeat(100_000);
        let shown = s.at(&(0..0), msg).to_string();
        assert!(shown.len() < 500 && shown.contains("x…\n"), "{shown}");
    }
}
