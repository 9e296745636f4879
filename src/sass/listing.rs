//! Listings as NVIDIA's tools print them, pasted whole: `nvdisasm` (sections, directives, the
//! data of `.nv.info` and constant sections) and `cuobjdump -sass` (`code for sm_50`,
//! `Function : NAME`, `.headerflags`, the encoding comments). [`select_kernel`] keeps one
//! kernel's instructions and labels and blanks every other line, so that line numbers stay those
//! of the text the user pasted.

use super::AsmError;
use crate::ir::SrcLoc;
use std::borrow::Cow;

/// Directives nvdisasm and cuobjdump print that carry nothing an instruction needs.
const DIRECTIVES: &[&str] = &[
    ".headerflags",
    ".elftype",
    ".section",
    ".sectioninfo",
    ".sectionflags",
    ".sectionentsize",
    ".align",
    ".global",
    ".weak",
    ".type",
    ".size",
    ".other",
    ".byte",
    ".short",
    ".word",
    ".dword",
    ".zero",
    ".text",
];

/// Whether `line` (trimmed) is something an NVIDIA tool prints around the code: a directive, a
/// data line of a non-code section (`/*0000*/ .byte 0x04, 0x2f`), `code for sm_50` or
/// `Function : NAME`.
fn is_tool_line(t: &str) -> bool {
    let rest = match t.strip_prefix("/*") {
        Some(r) => r.split_once("*/").map_or("", |(_, r)| r.trim_start()),
        None => t,
    };
    let word = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or("");
    DIRECTIVES.contains(&word)
        || t.starts_with("code for sm_")
        || t.starts_with("Function :")
        || t.starts_with("Function:")
        // cuobjdump's line of dots after a function.
        || (t.len() > 3 && t.chars().all(|c| c == '.'))
}

/// The section (`.section NAME, ...`) or function (`Function : NAME`) a line opens, if it
/// opens one: the kernel name of a code section, `None` for a data section.
fn opens(t: &str) -> Option<Option<&str>> {
    if let Some(f) = t
        .strip_prefix("Function :")
        .or_else(|| t.strip_prefix("Function:"))
    {
        return Some(Some(f.trim()));
    }
    let rest = t.strip_prefix(".section")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let name = rest.trim().split(',').next().unwrap_or("").trim();
    Some(name.strip_prefix(".text."))
}

/// The instructions and labels of kernel `kernel` of `text` (every other line blank), when
/// `text` is a listing an NVIDIA tool printed; `text` itself otherwise. A listing with several
/// kernels needs `kernel`; a name the listing does not hold is an error naming those it does.
pub fn select_kernel<'t>(text: &'t str, kernel: Option<&str>) -> Result<Cow<'t, str>, AsmError> {
    let first = SrcLoc { line: 1, col: 1 };
    let tool = text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with(".headerflags")
            || t.starts_with(".section")
            || t.starts_with("code for sm_")
            || t.starts_with("Function :")
            || t.starts_with("Fatbin ")
    });
    if !tool {
        return match kernel {
            None => Ok(Cow::Borrowed(text)),
            Some(k) => Err(AsmError::at(
                first,
                format!(
                    "`kernel = \"{k}\"`, but this listing has no kernels to choose from (no \
                     `Function :` or `.section .text.NAME` lines): a plain listing is one kernel"
                ),
            )),
        };
    }
    // The kernels, in order.
    let mut kernels: Vec<&str> = Vec::new();
    for l in text.lines() {
        if let Some(Some(k)) = opens(l.trim()) {
            if !kernels.contains(&k) {
                kernels.push(k);
            }
        }
    }
    let chosen =
        match (kernel, kernels.as_slice()) {
            (Some(k), ks) if ks.contains(&k) => k,
            (Some(k), ks) => {
                return Err(AsmError::at(
                    first,
                    format!(
                        "`kernel = \"{k}\"`, but the listing holds {}",
                        if ks.is_empty() {
                            "no kernel".to_string()
                        } else {
                            ks.join(", ")
                        }
                    ),
                ))
            }
            (None, [k]) => k,
            (None, []) => return Err(AsmError::at(
                first,
                "the listing holds no code section (`.section .text.NAME` or `Function : NAME`)",
            )),
            (None, ks) => {
                return Err(AsmError::at(
                    first,
                    format!(
                        "the listing holds {} kernels ({}): name one with `kernel`",
                        ks.len(),
                        ks.join(", ")
                    ),
                ))
            }
        };
    let mut out = String::with_capacity(text.len());
    // Whether the lines under the current section or function are the chosen kernel's.
    let mut inside = false;
    for l in text.lines() {
        let t = l.trim();
        if let Some(k) = opens(t) {
            inside = k == Some(chosen);
        }
        // cuobjdump: a new fatbin entry (`Fatbin elf code:`, `Fatbin ptx code:`) ends a function.
        if t.starts_with("Fatbin ") {
            inside = false;
        }
        let section_label = t
            .strip_suffix(':')
            .is_some_and(|n| n == chosen || n.strip_prefix(".text.") == Some(chosen));
        if inside && !is_tool_line(t) && !section_label {
            out.push_str(l);
        }
        out.push('\n');
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "\t.headerflags\t@\"EF_CUDA_SM50\"\n\
        \t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"\n\
        .L_0:\n\
        \x20       /*0000*/ \t.byte\t0x04, 0x2f\n\
        \t.section\t.text.a,\"ax\",@progbits\n\
        \t.sectioninfo\t@\"SHI_REGISTERS=8\"\n\
        a:\n\
        .text.a:\n\
        \x20       /*0008*/                   EXIT ;\n\
        \t.section\t.text.b,\"ax\",@progbits\n\
        b:\n\
        .L_x_0:\n\
        \x20       /*0008*/                   BRA `(.L_x_0) ;\n";

    #[test]
    fn one_kernel_is_kept_and_every_other_line_blanked() {
        let a = select_kernel(TWO, Some("a")).expect("a");
        assert_eq!(a.lines().count(), TWO.lines().count());
        let kept: Vec<&str> = a.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(kept, ["        /*0008*/                   EXIT ;"]);
        let b = select_kernel(TWO, Some("b")).expect("b");
        let kept: Vec<&str> = b.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(
            kept,
            [".L_x_0:", "/*0008*/                   BRA `(.L_x_0) ;"]
        );
        let e = select_kernel(TWO, None).unwrap_err();
        assert_eq!(
            e.message,
            "the listing holds 2 kernels (a, b): name one with `kernel`"
        );
        let e = select_kernel(TWO, Some("c")).unwrap_err();
        assert_eq!(e.message, "`kernel = \"c\"`, but the listing holds a, b");
        assert!(select_kernel("EXIT;", Some("a")).is_err());
        assert!(matches!(select_kernel("EXIT;", None), Ok(Cow::Borrowed(_))));
    }
}
