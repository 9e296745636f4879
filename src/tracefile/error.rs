//! Trace errors and how they point into the text at fault.

use crate::diag::Diagnostic;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// An invalid trace file, or an invalid program in one.
///
/// Every variant is a **user error** (the trace's author has to fix the trace or its program; the
/// command line exits with status 2), never a warpjit bug. Each holds a located
/// [`Diagnostic`] and renders as it does (`PATH:LINE:COL: error: MESSAGE` followed by the
/// offending line), except that [`TraceError::Unreadable`] has no line to point at.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The trace file itself cannot be read (missing, unreadable): `PATH: error: cannot read the
    /// trace: REASON`.
    #[error("{0}")]
    Unreadable(Diagnostic),
    /// The TOML is malformed or does not fit the schema: not UTF-8, a syntax error, an unknown
    /// key, a value of the wrong type, a missing key.
    #[error("{0}")]
    Syntax(Diagnostic),
    /// A value is well-typed but invalid: out of range, misaligned, overlapping, conflicting keys,
    /// an unreadable side file, an expectation outside mapped memory.
    #[error("{0}")]
    Invalid(Diagnostic),
    /// The trace asks for something warpjit does not support yet (DXBC programs and outputs).
    #[error("{0}")]
    Unsupported(Diagnostic),
    /// A program of a launch does not compile. For inline `code` the diagnostic's path is the
    /// trace and its line a line of the trace file; for `code_file` it is that file and its line
    /// (or byte offset, for binary input).
    #[error("{0}")]
    Program(Diagnostic),
}

impl TraceError {
    /// The diagnostic: where and what.
    pub fn diagnostic(&self) -> &Diagnostic {
        match self {
            TraceError::Unreadable(d)
            | TraceError::Syntax(d)
            | TraceError::Invalid(d)
            | TraceError::Unsupported(d)
            | TraceError::Program(d) => d,
        }
    }

    /// The rendering, with ANSI colour when `color` (for a terminal).
    pub fn render(&self, color: bool) -> String {
        self.diagnostic().render(color)
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
    pub(crate) fn at(&self, span: &Range<usize>, message: impl Into<String>) -> Diagnostic {
        let (line, col) = self.line_col(span.start);
        Diagnostic::text(
            self.path.clone(),
            line,
            col,
            self.line_text(line as usize - 1),
            message,
        )
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
        assert_eq!(l.line_text(), Some("\tb = 2"));
        assert_eq!(
            l.to_string(),
            "t.toml:2:6: error: bad\n2 |     b = 2\n  |         ^"
        );
    }
}
