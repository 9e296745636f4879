//! Maxwell machine code: the decoder of the 64-bit instruction words NVIDIA's compilers write
//! for sm_50, sm_52 and sm_53 (the code of a cubin's `.text.KERNEL`), and the disassembler that
//! prints them in nvdisasm's syntax.
//!
//! Code is laid out in groups of 32 bytes: a scheduling word (stall counts, barriers, yield
//! and reuse hints; no functional effect here) followed by three instructions, so instructions
//! sit at 0x08, 0x10, 0x18, 0x28, ... The decoder ([`decode`]) looks every instruction word up in
//! the one encoding table ([`encoding`]) and builds the same [`Program`] the SASS text
//! front-end builds from the text [`disassemble`] prints: every decoded instruction is printed
//! and read back by the SASS parser, and must come back equal, so a binary runs exactly as its
//! listing (and a word whose meaning the text cannot state is a load error, not a guess).
//!
//! Branch targets become labels `.L_x_N`, numbered in address order, as nvdisasm names them.
//! A `BRX`'s targets are not in its word: [`decode_with`] takes them from the cubin's
//! `EIATTR_INDIRECT_BRANCH_TARGETS` ([`IndirectBranch`]), and the listing prints them in the
//! note nvdisasm writes, `(*"BRANCH_TARGETS .L_x_1,.L_x_2"*)`.

pub mod encoding;

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::cubin::IndirectBranch;
use crate::ir::build::{assemble, Control, Item, Label, ParsedInst, Target};
use crate::ir::{Program, SrcLoc};
use crate::sass::program::single;
use crate::sass::AsmOptions;
use encoding::{form_of, Decoded, Word};

/// A word that does not decode, or code that does not assemble: where (byte offset from the
/// start of the code), the word, and why. A user error (the binary is malformed or uses an
/// instruction warpjit does not run).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("instruction at {offset:#06x} ({word:#018x}): {message}")]
pub struct DecodeError {
    /// Byte offset of the instruction word in the code.
    pub offset: u32,
    /// The raw word.
    pub word: u64,
    /// What is wrong.
    pub message: String,
}

impl DecodeError {
    /// The error located in the cubin file `bytes` (at `path`) that holds `kernel`: its byte is
    /// the kernel's code offset plus the word's.
    pub fn in_cubin(
        &self,
        path: &std::path::Path,
        bytes: &[u8],
        kernel: &crate::cubin::Kernel,
    ) -> crate::diag::Diagnostic {
        crate::diag::Diagnostic::byte(
            path,
            bytes,
            kernel.code_offset + u64::from(self.offset),
            format!("kernel `{}`: {self}", kernel.name),
        )
    }
}

/// Options of the decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Registers the launch gives the kernel (the text front-end's `registers`): a register
    /// past them is an error, except as an LDG/LD base, which makes the address absolute.
    pub registers: u32,
}

/// One instruction word of the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded1 {
    /// Its byte offset (the pc).
    pub pc: u32,
    /// The raw word.
    pub word: u64,
    /// What it is.
    pub inst: ParsedInst,
}

/// The words of `code` as `(offset, word)`, scheduling words included.
fn words(code: &[u8]) -> impl Iterator<Item = (u32, u64)> + '_ {
    code.chunks_exact(8).enumerate().map(|(i, c)| {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        ((i * 8) as u32, u64::from_le_bytes(b))
    })
}

/// Whether `code` calls a function: whether an instruction word is a `CAL`.
pub fn has_calls(code: &[u8]) -> bool {
    let cal: Vec<&encoding::Form> = encoding::CONTROL
        .iter()
        .filter(|f| f.mnemonic == "CAL")
        .collect();
    words(code).any(|(offset, w)| !is_sched(offset) && cal.iter().any(|f| w & f.mask == f.bits))
}

/// Whether the word at `offset` is a scheduling word (one before every three instructions).
pub fn is_sched(offset: u32) -> bool {
    offset.is_multiple_of(0x20)
}

/// Decodes every instruction word of `code` (scheduling words skipped) to a parsed instruction
/// with its pc; control instructions keep absolute branch targets.
pub fn decode_words(code: &[u8]) -> Result<Vec<Decoded1>, DecodeError> {
    if !code.len().is_multiple_of(8) {
        return Err(DecodeError {
            offset: (code.len() & !7) as u32,
            word: 0,
            message: format!(
                "the code is {} bytes, not a whole number of 8-byte words",
                code.len()
            ),
        });
    }
    let mut out = Vec::new();
    for (pc, word) in words(code) {
        if is_sched(pc) {
            continue;
        }
        let err = |message: String| DecodeError {
            offset: pc,
            word,
            message,
        };
        let w = Word(word);
        let form = form_of(w).ok_or_else(|| {
            err(match encoding::unsupported_of(w) {
                Some((name, why)) => format!("{name} is not supported: {why}"),
                None => "unknown or unsupported Maxwell encoding".into(),
            })
        })?;
        let decoded = (form.decode)(w, pc, form.b.read(w))
            .map_err(|m| err(format!("{}: {m}", form.mnemonic)))?;
        // SSY, PBK, PCNT and CAL have no guard field (those bits are not a predicate there).
        let unguarded = matches!(
            &decoded,
            Decoded::Control(crate::ir::build::ControlKind::Push { .. })
        );
        let guard = if unguarded {
            crate::ir::Guard::ALWAYS
        } else {
            w.guard()
        };
        let loc = SrcLoc {
            line: out.len() as u32 + 1,
            col: 1,
        };
        let inst = match decoded {
            Decoded::Op(op) => ParsedInst::Op(crate::ir::Inst { guard, op, pc, loc }),
            Decoded::Control(kind) => ParsedInst::Control(Control {
                guard,
                kind,
                pc,
                loc,
            }),
        };
        out.push(Decoded1 { pc, word, inst });
    }
    Ok(out)
}

/// The label nvdisasm gives the `n`th branch target (in address order).
fn label_name(n: usize) -> String {
    format!(".L_x_{n}")
}

/// The `BPT.TRAP` codes of the host calls (docs/semantics.md §22g): the calls to functions the
/// CUDA driver supplies, which [`decode_linked`] turns into `BPT.TRAP` with the function's code
/// and the engines run as the driver's function ([`crate::exec::hostcall`]).
pub use crate::ir::{ASSERTFAIL_CODE, CGS_HANDLE_CODE, VPRINTF_CODE};

/// The functions the driver supplies that kernels may call, with their host-call codes.
pub const DRIVER_FUNCTIONS: &[(&str, u32)] = &[
    ("vprintf", VPRINTF_CODE),
    ("__assertfail", ASSERTFAIL_CODE),
    ("__cuda_syscall_CGS_get_intrinsic_handle", CGS_HANDLE_CODE),
];

/// The host-call code of the driver function `name`, if the driver supplies it.
fn driver_code(name: &str) -> Option<u32> {
    DRIVER_FUNCTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| c)
}

/// Decodes a cubin kernel's linked code ([`crate::cubin::Cubin::link`]): as [`decode`], with the
/// calls to functions the driver supplies ([`DRIVER_FUNCTIONS`]) replaced by the host call
/// `BPT.TRAP code` with the function's code (docs/semantics.md §22g): nvJitLink's relocated
/// `JCAL`s ([`crate::cubin::LinkedCode::host_calls`]), and ptxas's `PRET` + `JMX Rx` pairs (the
/// `PRET` becomes a `NOP`) in a module whose bank 4 holds such a function's address
/// ([`crate::cubin::ModuleData::externs4`]; the module has no other function pointers: the
/// cubin reader refuses those). Which function a `JMX` calls is the only one bank 4 names, or,
/// with several, the one whose bank-4 slot the last `LDC.64 Rx` from bank 4 before it loaded
/// (`c[0x4][offset]`, or `c[0x4][Rb+offset]` after `MOV32I Rb, slot`, as ptxas writes it; an
/// error when the slot cannot be told). A call to any other function is an error naming it.
///
/// `branches` are the kernel's indirect branches ([`decode_with`]); the kernel's own code comes
/// first in the linked code, so their offsets hold.
pub fn decode_linked(
    linked: &crate::cubin::LinkedCode,
    module: &crate::cubin::ModuleData,
    opts: &DecodeOptions,
    branches: &[IndirectBranch],
) -> Result<Program, DecodeError> {
    const NOP: u64 = 0x50b0_0000_0007_0f00;
    // BPT.TRAP code: opcode, mode TRAP (3) in bits 6..8, the code in bits 20..39, guard PT.
    let trap = |code: u32| 0xe3a0_0000_0007_00c0u64 | u64::from(code) << 20;
    let word_at = |code: &[u8], at: usize| {
        code.get(at..at + 8)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let mut code = linked.code.clone();
    for (pc, name) in &linked.host_calls {
        let at = *pc as usize;
        let Some(c) = driver_code(name) else {
            return Err(DecodeError {
                offset: *pc,
                word: word_at(&code, at),
                message: format!("a call to `{name}`, which the driver does not supply"),
            });
        };
        code[at..at + 8].copy_from_slice(&trap(c).to_le_bytes());
    }
    if let Some((_, name)) = module
        .externs4
        .iter()
        .find(|(_, n)| driver_code(n).is_none())
    {
        return Err(DecodeError {
            offset: 0,
            word: 0,
            message: format!(
                "bank 4 holds the address of `{name}`, which the driver does not supply"
            ),
        });
    }
    if !module.externs4.is_empty() {
        // Each `JMX Rx` right after a `PRET` to the instruction after it: a call through a
        // function pointer, which in such a module can only be to a driver function.
        let mut prev: Option<(u32, u64)> = None;
        for pc in (0..code.len() as u32).step_by(8) {
            if is_sched(pc) {
                continue;
            }
            let w = word_at(&code, pc as usize);
            if w >> 48 & 0xfff0 == 0xe200 {
                let next = if is_sched(pc + 8) { pc + 16 } else { pc + 8 };
                match prev {
                    Some((ppc, pw))
                        if pw >> 48 & 0xfff0 == 0xe270 && {
                            let rel = (((pw >> 20 & 0xff_ffff) as i64) << 40) >> 40;
                            let t = (i64::from(ppc) + 8 + rel) as u32;
                            let t = if is_sched(t) { t + 8 } else { t };
                            t == next
                        } =>
                    {
                        let c = jmx_callee(&code, pc, w, module).ok_or_else(|| DecodeError {
                            offset: pc,
                            word: w,
                            message: "JMX: bank 4 holds the addresses of several driver \
                                      functions and no LDC.64 from bank 4 before the call \
                                      tells which one it calls"
                                .into(),
                        })?;
                        code[ppc as usize..ppc as usize + 8].copy_from_slice(&NOP.to_le_bytes());
                        code[pc as usize..pc as usize + 8].copy_from_slice(&trap(c).to_le_bytes());
                    }
                    _ => {
                        return Err(DecodeError {
                            offset: pc,
                            word: w,
                            message: "JMX is not supported: an indirect jump that is not a call \
                                      to a driver function (PRET then JMX)"
                                .into(),
                        })
                    }
                }
            }
            prev = Some((pc, w));
        }
    }
    decode_with(&code, opts, branches)
}

/// The host-call code of the driver function a `JMX` (word `w` at `pc`) calls: the only one
/// bank 4 names, or the one whose slot the last `LDC.64` into the `JMX`'s register from bank 4
/// before `pc` loaded. That `LDC` addresses the slot as `c[0x4][imm]`, or (ptxas's usual form)
/// as `c[0x4][Rb+imm]` with `Rb` set by the last `MOV32I Rb, offset` before it.
fn jmx_callee(code: &[u8], pc: u32, w: u64, module: &crate::cubin::ModuleData) -> Option<u32> {
    let mut codes: Vec<u32> = module
        .externs4
        .iter()
        .filter_map(|(_, n)| driver_code(n))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    if let [c] = codes[..] {
        return Some(c);
    }
    // The instruction words before `at`, nearest first.
    let before = |at: u32| {
        (0..at)
            .step_by(8)
            .rev()
            .filter(|&a| !is_sched(a))
            .filter_map(|a| {
                let b = code.get(a as usize..a as usize + 8)?;
                Some((a, u64::from_le_bytes(b.try_into().ok()?)))
            })
    };
    let ra = w >> 8 & 0xff;
    // LDC: opcode 0xef90 (the size in bits 48..50), Rd in bits 0..7, Ra in bits 8..15, a
    // 16-bit offset in bits 20..35 (signed with a register), the bank in bits 36..40.
    let (at, ldc) = before(pc).find(|&(_, x)| x >> 51 == 0xef90 >> 3 && x & 0xff == ra)?;
    if ldc >> 36 & 0x1f != 4 {
        return None;
    }
    let rb = ldc >> 8 & 0xff;
    let imm = ldc >> 20 & 0xffff;
    let off = if rb == 0xff {
        imm as u32
    } else {
        // MOV32I: opcode 0x010 in bits 52..63, Rd in bits 0..7, the value in bits 20..51.
        let (_, mov) = before(at).find(|&(_, x)| x & 0xff == rb && x >> 52 == 0x010)?;
        ((mov >> 20) as u32).wrapping_add(imm as u16 as i16 as i32 as u32)
    };
    module
        .externs4
        .iter()
        .find(|(o, _)| *o == off)
        .and_then(|(_, n)| driver_code(n))
}

/// Decodes a kernel's code into a program: the same program the SASS front-end makes of the
/// text [`disassemble`] prints for it. Source locations are instruction numbers (line `n` is
/// the `n`th instruction). Code with a `BRX` needs its targets: [`decode_with`].
pub fn decode(code: &[u8], opts: &DecodeOptions) -> Result<Program, DecodeError> {
    decode_with(code, opts, &[])
}

/// Sets each `BRX`'s targets from `branches` (the cubin's `EIATTR_INDIRECT_BRANCH_TARGETS`): an
/// address at a multiple of 0x20 (a group's scheduling word) means the instruction after it.
/// A `BRX` the list does not give targets for is an error.
fn brx_targets(decoded: &mut [Decoded1], branches: &[IndirectBranch]) -> Result<(), DecodeError> {
    // Each BRX's entry through a map (the first entry of an offset, as a search finds it): a
    // search through the entries per BRX was quadratic in a kernel of many BRXs.
    let mut by_offset: std::collections::HashMap<u32, &IndirectBranch> =
        std::collections::HashMap::new();
    for b in branches {
        by_offset.entry(b.offset).or_insert(b);
    }
    for d in decoded {
        let ParsedInst::Control(c) = &mut d.inst else {
            continue;
        };
        let crate::ir::build::ControlKind::Brx { targets, .. } = &mut c.kind else {
            continue;
        };
        let err = |message: &str| DecodeError {
            offset: d.pc,
            word: d.word,
            message: format!("BRX: {message}"),
        };
        let Some(&entry) = by_offset.get(&d.pc) else {
            return Err(err(
                "the cubin lists no targets for it (EIATTR_INDIRECT_BRANCH_TARGETS)",
            ));
        };
        if entry.kind == 1 {
            return Err(err(
                "an indirect call through a function pointer (after PRET) is not supported",
            ));
        }
        if entry.kind != 0 || entry.targets.is_empty() {
            return Err(err(&format!(
                "the cubin's entry for it (EIATTR_INDIRECT_BRANCH_TARGETS) is of kind {} \
                 with {} targets, not a jump table's",
                entry.kind,
                entry.targets.len()
            )));
        }
        let mut t: Vec<u32> = entry
            .targets
            .iter()
            .map(|&t| if is_sched(t) { t.wrapping_add(8) } else { t })
            .collect();
        t.sort_unstable();
        t.dedup();
        *targets = t.into_iter().map(Target::Addr).collect();
    }
    Ok(())
}

/// [`decode`] with the cubin's indirect branches and their targets, which the code's `BRX`s
/// go to.
pub fn decode_with(
    code: &[u8],
    opts: &DecodeOptions,
    branches: &[IndirectBranch],
) -> Result<Program, DecodeError> {
    let mut decoded = decode_words(code)?;
    brx_targets(&mut decoded, branches)?;
    let asm = AsmOptions {
        registers: opts.registers,
    };
    // Every op must read back from its text as the same op: the text is the contract.
    for d in &decoded {
        if let ParsedInst::Op(i) = &d.inst {
            check_text(i, &asm).map_err(|message| DecodeError {
                offset: d.pc,
                word: d.word,
                message,
            })?;
        }
    }
    let targets: BTreeSet<u32> = decoded
        .iter()
        .flat_map(|d| match &d.inst {
            ParsedInst::Control(c) => c.targets(),
            ParsedInst::Op(_) => &[],
        })
        .filter_map(|t| match t {
            Target::Addr(a) => Some(*a),
            Target::Label(_) => None,
        })
        .collect();
    // `decoded` is in pc order: a target is found by a binary search (a search through the
    // code per target was quadratic in a 4 MiB kernel).
    let mut labels: Vec<Label> = Vec::new();
    for (n, t) in targets.iter().enumerate() {
        let index = decoded.binary_search_by_key(t, |d| d.pc).ok().ok_or_else(|| {
            let from = decoded
                .iter()
                .find(|d| matches!(&d.inst, ParsedInst::Control(c) if c.targets().contains(&Target::Addr(*t))));
            DecodeError {
                offset: from.map_or(0, |d| d.pc),
                word: from.map_or(0, |d| d.word),
                message: format!("branch target {t:#x} is not an instruction of the code"),
            }
        })?;
        labels.push((label_name(n), SrcLoc::default(), index));
    }
    let numbers: std::collections::HashMap<u32, usize> =
        targets.iter().enumerate().map(|(n, &t)| (t, n)).collect();
    let label_of = |a: u32| numbers.get(&a).map(|&n| label_name(n));
    let items: Vec<Item> = decoded
        .iter()
        .map(|d| {
            let mut p = d.inst.clone();
            if let ParsedInst::Control(c) = &mut p {
                for t in c.targets_mut() {
                    if let Target::Addr(a) = *t {
                        if let Some(l) = label_of(a) {
                            *t = Target::Label(l);
                        }
                    }
                }
            }
            Item {
                p,
                addr: Some(d.pc),
                tloc: None,
            }
        })
        .collect();
    assemble(items, labels, asm.registers).map_err(|e| {
        let d = decoded.get(e.loc.line.saturating_sub(1) as usize);
        DecodeError {
            offset: d.map_or(0, |d| d.pc),
            word: d.map_or(0, |d| d.word),
            message: e.message,
        }
    })
}

/// Prints `i` and parses the text back: `Err` with the reason when the text does not state the
/// same op.
fn check_text(i: &crate::ir::Inst, asm: &AsmOptions) -> Result<(), String> {
    let text = crate::sass::print_inst(i).map_err(|e| e.to_string())?;
    match single(&text, asm) {
        Ok(ParsedInst::Op(back)) if back.op == i.op && back.guard == i.guard => Ok(()),
        Ok(_) => Err(format!(
            "decodes to `{text}`, which reads back as a different instruction (a decoder bug)"
        )),
        Err(e) => Err(format!(
            "decodes to `{text}`, which is not valid: {}",
            e.message
        )),
    }
}

/// Prints a kernel's code as nvdisasm does: each scheduling word as an encoding comment on its
/// own line, each instruction with its `/*0008*/` address, its text and its encoding, and
/// labels before branch targets. The text parses back (SASS front-end, `registers` as given)
/// to the program [`decode`] makes. Code with a `BRX` needs its targets: [`disassemble_with`].
pub fn disassemble(code: &[u8], opts: &DecodeOptions) -> Result<String, DecodeError> {
    disassemble_with(code, opts, &[])
}

/// [`disassemble`] with the cubin's indirect branches ([`decode_with`]).
pub fn disassemble_with(
    code: &[u8],
    opts: &DecodeOptions,
    branches: &[IndirectBranch],
) -> Result<String, DecodeError> {
    let p = decode_with(code, opts, branches)?;
    let lines = crate::sass::print::program_lines(&p).map_err(|e| DecodeError {
        offset: 0,
        word: 0,
        message: e.to_string(),
    })?;
    let mut by_pc: std::collections::HashMap<u32, (Vec<String>, String)> = Default::default();
    let mut pending: Vec<String> = Vec::new();
    for l in lines {
        match l {
            crate::sass::print::Line::Label(n) => pending.push(n),
            crate::sass::print::Line::Inst(Some(pc), text) => {
                by_pc.insert(pc, (std::mem::take(&mut pending), text));
            }
            crate::sass::print::Line::Inst(None, _) => {}
        }
    }
    let mut s = String::new();
    for (pc, word) in words(code) {
        if is_sched(pc) {
            let _ = writeln!(s, "{:86}/* {word:#018x} */", "");
            continue;
        }
        let (labels, text) = by_pc
            .remove(&pc)
            .unwrap_or_else(|| (Vec::new(), "NOP".to_string()));
        for l in labels {
            let _ = writeln!(s, "{l}:");
        }
        let inst = format!("        /*{pc:04x}*/                   {text} ;");
        let _ = writeln!(s, "{inst:86}/* {word:#018x} */");
    }
    Ok(s)
}

/// A cubin's kernels (or the one `kernel` names) printed as nvdisasm prints them: the header,
/// and per kernel its section and entry directives, then its code ([`disassemble`], with the
/// kernel's register count). The text is what a trace's `code` (with `kernel`) accepts, and it
/// runs as the cubin does. A kernel whose code does not decode is left out, its error (located
/// at its byte in `bytes`) returned beside the text and named in a `//` comment there; an
/// unreadable cubin or an unknown `kernel` is an error.
pub fn disassemble_cubin(
    bytes: &[u8],
    path: &std::path::Path,
    kernel: Option<&str>,
) -> Result<(String, Vec<crate::diag::Diagnostic>), crate::diag::Diagnostic> {
    use crate::diag::Diagnostic;
    let cubin = crate::cubin::Cubin::parse(bytes).map_err(|e| e.diagnostic(path, bytes))?;
    let kernels: Vec<&crate::cubin::Kernel> = match kernel {
        Some(name) => vec![cubin
            .kernel(Some(name))
            .map_err(|m| Diagnostic::file(path, m))?],
        None => cubin.kernels.iter().collect(),
    };
    let sm = format!("EF_CUDA_SM{}", cubin.arch);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\t.headerflags\t@\"EF_CUDA_64BIT_ADDRESS {sm} EF_CUDA_VIRTUAL_SM({sm})\""
    );
    let _ = writeln!(s, "\t.elftype\t@\"ET_EXEC\"");
    let mut errors = Vec::new();
    for k in kernels {
        let opts = DecodeOptions {
            registers: k.registers,
        };
        let code = match disassemble_with(&k.code, &opts, &k.indirect_branches) {
            Ok(code) => code,
            Err(e) => {
                let _ = writeln!(s, "\n\n// kernel `{}` left out: {e}", k.name);
                errors.push(e.in_cubin(path, bytes, k));
                continue;
            }
        };
        let n = &k.name;
        let _ = writeln!(
            s,
            "\n\n//--------------------- .text.{n} --------------------------"
        );
        let _ = writeln!(s, "\t.section\t.text.{n},\"ax\",@progbits");
        let _ = writeln!(s, "\t.sectioninfo\t@\"SHI_REGISTERS={}\"", k.registers);
        let _ = writeln!(s, "\t.align\t32");
        let _ = writeln!(s, "        .global         {n}");
        let _ = writeln!(s, "        .type           {n},@function");
        let _ = writeln!(
            s,
            "        .other          {n},@\"STO_CUDA_ENTRY STV_DEFAULT\""
        );
        let _ = writeln!(s, "{n}:");
        let _ = writeln!(s, ".text.{n}:");
        s.push_str(&code);
    }
    Ok((s, errors))
}

/// Each instruction of a decoded program as the disassembler prints it, by pc (for fault
/// reports: a binary has no lines).
pub fn instruction_texts(p: &Program) -> Vec<(u32, String)> {
    match crate::sass::print::program_lines(p) {
        Ok(lines) => lines
            .into_iter()
            .filter_map(|l| match l {
                crate::sass::print::Line::Inst(Some(pc), text) => Some((pc, text)),
                _ => None,
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fence_simd;
#[cfg(test)]
mod tests_int;
#[cfg(test)]
mod tests_logic;
