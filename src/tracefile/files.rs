//! Reading the trace and its side files: regular files only (a device or a FIFO is never opened
//! for reading, so it can neither block nor stream without end), and every read bounded.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

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
    let regular = |meta: &Metadata| {
        if meta.is_file() {
            Ok(meta.len())
        } else {
            Err(format!(
                "{} is {}, not a regular file",
                path.display(),
                kind(meta)
            ))
        }
    };
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    regular(&fs::metadata(path).map_err(cannot)?)?;
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let len = regular(&f.metadata().map_err(cannot)?)?;
    Ok((f, len))
}

/// Reads the whole regular file at `path`, of at most `limit` bytes (`what` names the limit in
/// the message, e.g. "a code_file").
pub(crate) fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let (f, len) = open_regular(path)?;
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
    let (f, now) = open_regular(path)?;
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
