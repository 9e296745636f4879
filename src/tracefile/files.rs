//! Reading the trace and its side files: regular files only (a device or a FIFO is never opened
//! for reading, so it can neither block nor stream without end), every read bounded, and side
//! files only inside the trace's own directory tree or a directory the user allows
//! ([`Confinement`]).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// Largest trace file read: 64 MiB. Large data belongs in side files (`file = "..."`), which are
/// memory-mapped, never parsed.
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// Most program text a trace may have assembled, over all its launches (inline `code` and
/// `code_file` alike; a text used by several launches counts once), and so the largest `code_file`
/// read: 4 MiB. An assembled instruction takes a few hundred bytes, so this bounds the programs to
/// about 400 MB even for a text of nothing but `NOP;` lines; real listings (with addresses and
/// scheduling comments, over 50 bytes an instruction) take far less.
pub const MAX_PROGRAM_BYTES: u64 = 4 << 20;

/// Most values a trace may hold: array elements, keys and tables, counted as the `,`, `=`, `[`
/// (`[[` once) and `{` outside strings and comments before the TOML is parsed, since the parsed
/// document takes 200 (array elements) to 450 (keys, tables) bytes per value. 2^20 values (about
/// 4 MiB of `u32` data) load in at most about 470 MB; more data belongs in a side file.
pub const MAX_TRACE_VALUES: usize = 1 << 20;

/// What kind of file `meta` describes, for "not a regular file" messages.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file, and returns it with its length. The type is
/// checked before opening (opening a FIFO blocks), the file is opened with `O_NONBLOCK` in case it
/// was replaced in between, and the type is checked again on the open file.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), String> {
    open_checked(path, path, false)
}

/// [`open_regular`] of a side file [`Confinement::resolve`] found: its real path is opened with
/// `O_NOFOLLOW` (it has no symbolic link left to follow; one put there since is refused), and
/// messages name it as the trace does.
pub(crate) fn open_side(p: &SidePath) -> Result<(File, u64), String> {
    open_checked(&p.real, &p.shown, true)
}

/// [`open_regular`] of `path`, naming it `shown` in messages; with `nofollow`, a symbolic link
/// at `path` is refused instead of followed.
fn open_checked(path: &Path, shown: &Path, nofollow: bool) -> Result<(File, u64), String> {
    let regular = |meta: &Metadata| {
        if meta.is_file() {
            Ok(meta.len())
        } else {
            Err(format!(
                "{} is {}, not a regular file",
                shown.display(),
                kind(meta)
            ))
        }
    };
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", shown.display());
    let meta = if nofollow {
        fs::symlink_metadata(path)
    } else {
        fs::metadata(path)
    };
    let meta = meta.map_err(cannot)?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{} became a symbolic link after it was checked",
            shown.display()
        ));
    }
    regular(&meta)?;
    let flags = libc::O_NONBLOCK | if nofollow { libc::O_NOFOLLOW } else { 0 };
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(cannot)?;
    let len = regular(&f.metadata().map_err(cannot)?)?;
    Ok((f, len))
}

/// Reads the whole regular file at `path`, of at most `limit` bytes (`what` names the limit in
/// the message, e.g. "a code_file").
pub(crate) fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let opened = open_regular(path)?;
    read_opened(opened, path, limit, what)
}

/// [`read_limited`] of a side file ([`open_side`]).
pub(crate) fn read_side(p: &SidePath, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let opened = open_side(p)?;
    read_opened(opened, &p.shown, limit, what)
}

/// The whole of an opened file of length `len`, at most `limit` bytes.
fn read_opened(
    (f, len): (File, u64),
    path: &Path,
    limit: u64,
    what: &str,
) -> Result<Vec<u8>, String> {
    let too_long = |len: u64| {
        format!(
            "{} is {len} bytes: {what} is limited to {limit} bytes ({} MiB)",
            path.display(),
            limit >> 20
        )
    };
    if len > limit {
        return Err(too_long(len));
    }
    let mut buf = Vec::with_capacity(len as usize);
    f.take(limit + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if buf.len() as u64 > limit {
        return Err(too_long(buf.len() as u64));
    }
    Ok(buf)
}

/// Reads exactly `len` bytes from the start of the regular file at `path` (its length when the
/// trace was loaded): an error if it is now shorter or longer.
pub(crate) fn read_exact_len(path: &Path, len: u64) -> Result<Vec<u8>, String> {
    let (f, now) = open_resolved(path)?;
    if now != len {
        return Err(format!(
            "{} changed size since the trace was loaded ({now} bytes, was {len})",
            path.display()
        ));
    }
    let mut buf = Vec::with_capacity(len as usize);
    f.take(len)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if buf.len() as u64 != len {
        return Err(format!("{} shrank while being read", path.display()));
    }
    Ok(buf)
}

/// A data `file` opened again after loading (to read it, or to compare with it): its path is the
/// real one [`Confinement::resolve`] found, opened without following a symbolic link.
pub(crate) fn open_resolved(path: &Path) -> Result<(File, u64), String> {
    open_checked(path, path, true)
}

/// A side file a trace names, resolved by [`Confinement::resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SidePath {
    /// The path as the trace gives it, joined to the trace's directory: what messages show.
    pub(crate) shown: PathBuf,
    /// The file itself: absolute, every symbolic link resolved, inside an allowed directory.
    pub(crate) real: PathBuf,
}

/// Where a trace's side files (`file`, `code_file`) may be: inside the trace's own directory
/// tree, or inside one of the directories the user allows (`warpjit run --allow-path DIR`). A
/// trace is untrusted input: without this, `file = "/etc/hostname"` or
/// `file = "../../../../etc/hostname"` would read any host file into guest memory (and out again
/// through `--dump` or an expectation's mismatch), and an error in a `code_file` would quote its
/// lines.
#[derive(Clone, Debug)]
pub(crate) struct Confinement {
    /// The trace's directory as given (side files are relative to it).
    dir: PathBuf,
    /// The trace's directory, absolute (real when it can be resolved): what relative names are
    /// checked against before any file is looked at.
    base: PathBuf,
    /// The directories side files may be in: the trace's, then the allowed ones, each absolute
    /// with its symbolic links resolved.
    roots: Vec<PathBuf>,
    /// The trace's directory, absolute as written (its symbolic links kept): an absolute name
    /// written through the same links (`/link/traces/x.bin` for a trace in `/link/traces`,
    /// `/link` a link) is inside it as written; the real path is checked after.
    lexical: PathBuf,
}

/// `p` with `.` and `..` taken out lexically (`..` at the root stays at the root), without
/// looking at the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// `p` absolute and real (symbolic links resolved) if it exists, else absolute and normalized.
fn real_or_absolute(p: &Path) -> PathBuf {
    let p = if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    };
    fs::canonicalize(p).unwrap_or_else(|_| normalize(&std::path::absolute(p).unwrap_or_default()))
}

impl Confinement {
    /// Side files of a trace in `dir` (as given), confined to `dir`'s tree and the trees of
    /// `allow` (directories that do not exist allow nothing).
    pub(crate) fn new(dir: &Path, allow: &[PathBuf]) -> Confinement {
        let base = real_or_absolute(dir);
        let mut roots = vec![base.clone()];
        roots.extend(allow.iter().filter_map(|a| fs::canonicalize(a).ok()));
        let lexical = normalize(&std::path::absolute(dir).unwrap_or_default());
        Confinement {
            dir: dir.to_path_buf(),
            base,
            roots,
            lexical,
        }
    }

    /// Whether `p` (absolute) lies in an allowed tree.
    fn allowed(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r))
    }

    /// The trace's directory, for messages.
    fn shown_dir(&self) -> String {
        if self.dir.as_os_str().is_empty() {
            ".".to_string()
        } else {
            self.dir.display().to_string()
        }
    }

    /// Resolves a side file's name (relative to the trace's directory, or absolute). Refused, with
    /// the reason: a name that leaves the allowed trees as written (an absolute path, or `..`
    /// past the trace's directory), checked before the file system is looked at; and a name that
    /// leaves them through a symbolic link (the real path is checked).
    pub(crate) fn resolve(&self, name: &str) -> Result<SidePath, String> {
        const HOW: &str = "a trace reads side files only inside its own directory tree \
                           (`warpjit run --allow-path DIR` allows the files under DIR too)";
        let shown = self.dir.join(name);
        if name.is_empty() {
            return Err("the path is empty: expected a file name relative to the trace".into());
        }
        if name.contains('\0') {
            return Err("the path holds a NUL character".into());
        }
        let written = normalize(&self.base.join(name));
        let as_given = normalize(&self.lexical.join(name));
        if !self.allowed(&written) && !as_given.starts_with(&self.lexical) {
            return Err(format!(
                "{name:?} is outside the trace's directory ({}): {HOW}",
                self.shown_dir()
            ));
        }
        let real = fs::canonicalize(&shown)
            .map_err(|e| format!("cannot read {}: {e}", shown.display()))?;
        if !self.allowed(&real) {
            return Err(format!(
                "{name:?} leads through a symbolic link to {}, outside the trace's directory \
                 ({}): {HOW}",
                real.display(),
                self.shown_dir()
            ));
        }
        Ok(SidePath { shown, real })
    }
}

/// The byte offset of the value past the first `limit` in a TOML text (see [`MAX_TRACE_VALUES`]
/// for what counts), if there are more. Strings (all four kinds) and comments are skipped as TOML
/// lexes them; on malformed text the count is approximate, and the parser reports the error.
pub(crate) fn value_past_limit(text: &str, limit: usize) -> Option<usize> {
    let b = text.as_bytes();
    let (mut i, mut n) = (0, 0usize);
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            q @ (b'"' | b'\'') => {
                let basic = q == b'"';
                if b[i..].starts_with(&[q, q, q]) {
                    i += 3;
                    while i < b.len() {
                        if basic && b[i] == b'\\' {
                            i += 2;
                        } else if b[i..].starts_with(&[q, q, q]) {
                            i += 3;
                            // Up to two quotes may end the content right before the delimiter.
                            let mut extra = 0;
                            while extra < 2 && i < b.len() && b[i] == q {
                                i += 1;
                                extra += 1;
                            }
                            break;
                        } else {
                            i += 1;
                        }
                    }
                } else {
                    i += 1;
                    while i < b.len() && b[i] != q && b[i] != b'\n' {
                        i += if basic && b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                continue;
            }
            b',' | b'=' | b'{' | b'[' => {
                n += 1;
                if n > limit {
                    return Some(i);
                }
                if b[i] == b'[' && b.get(i + 1) == Some(&b'[') {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings_and_comments() {
        let t = "a = [1, 2] # , , ,\n[[g]]\ns = \"x, = [\\\" ,\"\nm = \"\"\"\n,,\"\"\"\"\nl = ''',''' # x\n";
        // Counted: `=` `[` `,` (line 1), `[[` (once), `=`, `=`, `=`.
        assert_eq!(value_past_limit(t, 7), None);
        assert_eq!(value_past_limit(t, 6), t.rfind("= '''"));
        assert_eq!(value_past_limit("x = 'a,b'\ny = 1", 1), Some(12));
        assert_eq!(value_past_limit("x = \"unterminated\n, ,", 2), Some(20));
    }
}
