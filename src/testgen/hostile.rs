//! Hostile program shapes: programs made so that the work done when a program is loaded and
//! first run (lexing, parsing, block building, the DXBC lowering, liveness and uniformity, the
//! JIT's region planning and code) would grow faster than the program, at any size up to the
//! 4 MiB a trace's programs may hold.
//!
//! Each [`Shape`] builds a program from a size `n` ([`Shape::build`]), or the largest that fits a
//! number of bytes ([`Shape::build_within`]), with what it must store: one 32-bit word per lane
//! of one warp of 32 threads (at `OUT + 4 * lane` for SASS, at byte `4 * tid` of the raw UAV
//! `u0` for DXBC), computed here from what the program means (a count, or a small model of its
//! register moves), not by running it. [`Built::trace`] writes the trace that runs it and checks
//! that.
//!
//! What is hostile about each is in its doc. Most keep what they run small whatever `n` (the
//! outer levels of a nest are skipped at run time by a branch the analyses must assume may go
//! either way), so that the load is what is measured: `tests/load_bounds.rs` runs every shape at
//! a size the test suite affords and counts the analyses' work against the program's size, and
//! `examples/load_shapes.rs` writes every shape at the 4 MiB limit for `tests/load/measure.sh`.
//! [`super::Profile::Hostile`] and the DXBC generator's hostile mode put the same shapes, small,
//! among random code.

use crate::ir::Isa;
use std::fmt::Write as _;

/// The global address a SASS shape stores its words at (kernel parameter `c[0x0][0x140]`).
pub const OUT: u64 = 0x10000;

/// Calls a SASS shape nests at most at run time (the reconvergence stack holds 1024 entries).
const CALL_GROUP: usize = 200;

/// Levels of a nest that run (the rest are skipped at run time).
const RUN_DEPTH: usize = 48;

/// Register moves of a loop chain (`R8` to `R247`).
const CHAIN: usize = 239;

/// Indexable temps a DXBC shape declares at most (16 bytes a thread each, in 16 MiB of shared
/// memory for 32 threads).
const MAX_XTEMPS: usize = 30_000;

/// A hostile program shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `n` functions, each calling the next (in chains of 200, so that the calls nest at most
    /// 200 deep when run), each counting 1: a `RET` per function and a return point per call,
    /// which the analyses joined pairwise (`n^2` edges).
    CalChain,
    /// One caller that calls each of `n` functions once.
    CalFan,
    /// `n` functions that each call themselves until three calls deep.
    Recursion,
    /// `n` nested `SSY` (the innermost 48 run; a lane-varying branch inside), closed by `n`
    /// `SYNC`s: every `SYNC` may resume at every `SSY`'s target.
    SsyNest,
    /// The same with `PBK` and `BRK`.
    PbkNest,
    /// The same with `PCNT` and `CONT`.
    PcntNest,
    /// `n` blocks, each jumping to the one before it in the text.
    BraChain,
    /// `n` one-instruction blocks, each labelled.
    BlockPerInst,
    /// `n` branches in a row, on the lane id, to `n` cases that all jump to one end.
    BranchFan,
    /// One block of `n` instructions.
    OneInst,
    /// `n` instructions on one line.
    OneLine,
    /// `n` `SSY` regions in a row, the branch of each on a value the one before writes in its
    /// divergent part: uniformity found one more of them divergent per round, and re-solved
    /// everything each round.
    DivergenceChain,
    /// A loop of `n` one-instruction blocks, 239 of them (spread evenly) moving a value along
    /// `R8..R247`, in register order: what the analyses learn crosses the loop in one pass.
    LoopChainUp,
    /// The same with the moves in reverse register order: uniformity loses, and liveness gains,
    /// one register per pass around the loop, 239 passes over all `n` blocks (the analyses'
    /// worst case: each block evaluated about once per item its set can lose or gain).
    LoopChainDown,
    /// A loop of `n` blocks, each with a branch back to the one before it (never taken): every
    /// block heads a cycle through every later one, and the JIT's search for a region from each
    /// visits as far as it may.
    Ladder,
    /// `n` guarded `EXIT`s (never taken), each ending a block.
    Exits,
    /// `n` labels in a row (one block with `n` names).
    Labels,
    /// DXBC: `n` nested `loop`s, each leaving at once by `breakc` (`n` loop entries for every
    /// `break` and `continue`).
    DxLoopNest,
    /// DXBC: `n` nested `if`s (a lane-varying one, then ones no lane enters).
    DxIfNest,
    /// DXBC: `n` nested `switch`es (no case taken).
    DxSwitchNest,
    /// DXBC: `n` loops in a row, each running once.
    DxLoopSeq,
    /// DXBC: a loop inside `n / 2` nested `if`s, with `n / 2` `breakc`s (the lowering looked
    /// for an enclosing loop through every `if` for each).
    DxIfBreaks,
    /// DXBC: one `switch` on the thread id with `n` cases (the lowering compared each case
    /// with every one before it).
    DxCases,
    /// DXBC: `n` `retc`s (never taken), each ending a block.
    DxRets,
    /// DXBC: up to 30,000 indexable temps `x#` declared (the 16 MiB of shared memory they
    /// share for 32 threads holds no more), then `n` additions to the last one (the lowering
    /// checked each declaration against every one before, and looked an `x#` up by a search).
    DxTemps,
    /// DXBC: `n` `g#` ranges of shared memory declared, then `n` loads from the last one.
    DxTgsm,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 26] = [
        Shape::CalChain,
        Shape::CalFan,
        Shape::Recursion,
        Shape::SsyNest,
        Shape::PbkNest,
        Shape::PcntNest,
        Shape::BraChain,
        Shape::BlockPerInst,
        Shape::BranchFan,
        Shape::OneInst,
        Shape::OneLine,
        Shape::DivergenceChain,
        Shape::LoopChainUp,
        Shape::LoopChainDown,
        Shape::Ladder,
        Shape::Exits,
        Shape::Labels,
        Shape::DxLoopNest,
        Shape::DxIfNest,
        Shape::DxSwitchNest,
        Shape::DxLoopSeq,
        Shape::DxIfBreaks,
        Shape::DxCases,
        Shape::DxRets,
        Shape::DxTemps,
        Shape::DxTgsm,
    ];

    /// The shape's name (`cal_chain`, `dx_loop_nest`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Shape::CalChain => "cal_chain",
            Shape::CalFan => "cal_fan",
            Shape::Recursion => "recursion",
            Shape::SsyNest => "ssy_nest",
            Shape::PbkNest => "pbk_nest",
            Shape::PcntNest => "pcnt_nest",
            Shape::BraChain => "bra_chain",
            Shape::BlockPerInst => "block_per_inst",
            Shape::BranchFan => "branch_fan",
            Shape::OneInst => "one_inst",
            Shape::OneLine => "one_line",
            Shape::DivergenceChain => "divergence_chain",
            Shape::LoopChainUp => "loop_chain_up",
            Shape::LoopChainDown => "loop_chain_down",
            Shape::Ladder => "ladder",
            Shape::Exits => "exits",
            Shape::Labels => "labels",
            Shape::DxLoopNest => "dx_loop_nest",
            Shape::DxIfNest => "dx_if_nest",
            Shape::DxSwitchNest => "dx_switch_nest",
            Shape::DxLoopSeq => "dx_loop_seq",
            Shape::DxIfBreaks => "dx_if_breaks",
            Shape::DxCases => "dx_cases",
            Shape::DxRets => "dx_rets",
            Shape::DxTemps => "dx_temps",
            Shape::DxTgsm => "dx_tgsm",
        }
    }

    /// The program's language.
    pub fn isa(self) -> Isa {
        if self.name().starts_with("dx_") {
            Isa::Dxbc
        } else {
            Isa::Sass
        }
    }

    /// The program of size `n` (at least 1) and what it stores.
    pub fn build(self, n: usize) -> Built {
        let n = n.max(1);
        let mut t = Text::default();
        let expect = match self.isa() {
            Isa::Sass => {
                sass_prologue(&mut t);
                let e = self.sass_body(n, &mut t);
                sass_epilogue(&mut t);
                e
            }
            Isa::Dxbc => {
                dxbc_prologue(&mut t, &self.dxbc_decls(n));
                let e = self.dxbc_body(n, &mut t);
                dxbc_epilogue(&mut t);
                e
            }
        };
        Built {
            shape: self,
            n,
            text: t.0,
            expect,
        }
    }

    /// The largest program of this shape whose text has at most `bytes` bytes (size 1 if none
    /// fits).
    pub fn build_within(self, bytes: usize) -> Built {
        let (mut lo, mut hi) = (1usize, 2usize);
        while self.build(hi).text.len() <= bytes {
            lo = hi;
            hi *= 2;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.build(mid).text.len() <= bytes {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        self.build(lo)
    }

    /// The body of a SASS shape (R0 holds the lane id, R1 the result, P6 is true at run time
    /// but not known to be by the analyses); returns the words the lanes store.
    fn sass_body(self, n: usize, t: &mut Text) -> Vec<u32> {
        let all = |v: usize| vec![v as u32; 32];
        match self {
            Shape::CalChain => {
                for head in (0..n).step_by(CALL_GROUP) {
                    t.line(format_args!("CAL `(.F{head});"));
                }
                t.line("BRA `(.END);");
                for i in 0..n {
                    t.line(format_args!(".F{i}:"));
                    t.line("IADD32I R1, R1, 0x1;");
                    if (i + 1) % CALL_GROUP != 0 && i + 1 < n {
                        t.line(format_args!("CAL `(.F{});", i + 1));
                    }
                    t.line("RET;");
                }
                t.line(".END:");
                all(n)
            }
            Shape::CalFan => {
                for i in 0..n {
                    t.line(format_args!("CAL `(.F{i});"));
                }
                t.line("BRA `(.END);");
                for i in 0..n {
                    t.line(format_args!(".F{i}:\nIADD32I R1, R1, 0x1;\nRET;"));
                }
                t.line(".END:");
                all(n)
            }
            Shape::Recursion => {
                for i in 0..n {
                    t.line(format_args!("MOV R4, RZ;\nCAL `(.F{i});"));
                }
                t.line("BRA `(.END);");
                for i in 0..n {
                    t.line(format_args!(
                        ".F{i}:\nIADD32I R1, R1, 0x1;\nIADD32I R4, R4, 0x1;\n\
                         ISETP.GE.AND P1, PT, R4, 0x3, PT;\n@P1 BRA `(.D{i});\nCAL `(.F{i});\n\
                         .D{i}:\nRET;"
                    ));
                }
                t.line(".END:");
                all(3 * n)
            }
            Shape::SsyNest | Shape::PbkNest | Shape::PcntNest => {
                let (push, wait) = match self {
                    Shape::SsyNest => ("SSY", "SYNC"),
                    Shape::PbkNest => ("PBK", "BRK"),
                    _ => ("PCNT", "CONT"),
                };
                let run = n.saturating_sub(RUN_DEPTH);
                t.line("ISETP.LT.U32.AND P0, PT, R0, 0x10, PT;");
                t.line("@P6 BRA `(.IN);");
                for i in 0..n {
                    if i == run {
                        t.line(".IN:");
                    }
                    t.line(format_args!("{push} `(.S{i});"));
                }
                t.line("@P0 BRA `(.X);\nIADD32I R1, R1, 0x1;\n.X:");
                for i in (0..n).rev() {
                    t.line(format_args!("{wait};\n.S{i}:"));
                }
                (0..32).map(|l| u32::from(l >= 16)).collect()
            }
            Shape::BraChain => {
                t.line(format_args!("BRA `(.L{});", n - 1));
                for i in 0..n {
                    t.line(format_args!(".L{i}:\nIADD32I R1, R1, 0x1;"));
                    match i {
                        0 => t.line("BRA `(.END);"),
                        _ => t.line(format_args!("BRA `(.L{});", i - 1)),
                    }
                }
                t.line(".END:");
                all(n)
            }
            Shape::BlockPerInst => {
                for i in 0..n {
                    t.line(format_args!(".L{i}:\nIADD32I R1, R1, 0x1;"));
                }
                all(n)
            }
            Shape::BranchFan => {
                for i in 0..n {
                    t.line(format_args!(
                        "ISETP.EQ.AND P0, PT, R0, {i:#x}, PT;\n@P0 BRA `(.C{i});"
                    ));
                }
                t.line("BRA `(.END);");
                for i in 0..n {
                    t.line(format_args!(
                        ".C{i}:\nMOV32I R1, {:#x};\nBRA `(.END);",
                        i + 1
                    ));
                }
                t.line(".END:");
                (0..32)
                    .map(|l| if l < n { l as u32 + 1 } else { 0 })
                    .collect()
            }
            Shape::OneInst => {
                for _ in 0..n {
                    t.line("IADD32I R1, R1, 0x1;");
                }
                all(n)
            }
            Shape::OneLine => {
                for _ in 0..n {
                    t.0.push_str("IADD32I R1, R1, 0x1; ");
                }
                t.0.push('\n');
                all(n)
            }
            Shape::DivergenceChain => {
                t.line("MOV R1, R0;");
                for i in 0..n {
                    t.line(format_args!(
                        "ISETP.EQ.AND P0, PT, R1, 0x3, PT;\nSSY `(.S{i});\n@P0 BRA `(.A{i});\n\
                         MOV32I R1, 0x1;\nSYNC;\n.A{i}:\nMOV32I R1, 0x3;\nSYNC;\n.S{i}:\n\
                         IADD32I R4, R4, 0x1;"
                    ));
                }
                t.line("IADD R1, R1, R4;");
                (0..32)
                    .map(|l| if l == 3 { 3 + n as u32 } else { 1 + n as u32 })
                    .collect()
            }
            Shape::LoopChainUp | Shape::LoopChainDown => {
                let up = self == Shape::LoopChainUp;
                // The moves along R8..R247, spread over the loop's blocks (the rest add to R6).
                let stride = (n / CHAIN).max(1);
                let mv = |k: usize| {
                    let c = k / stride;
                    (k.is_multiple_of(stride) && c < CHAIN).then(|| {
                        if up {
                            (8 + c, 9 + c)
                        } else {
                            (246 - c, 247 - c)
                        }
                    })
                };
                t.line("MOV R5, RZ;\nIADD32I R8, R0, 0x1;\n.TOP:");
                for k in 0..n {
                    match mv(k) {
                        Some((a, d)) => t.line(format_args!(".L{k}:\nMOV R{d}, R{a};")),
                        None => t.line(format_args!(".L{k}:\nIADD32I R6, R6, 0x1;")),
                    }
                }
                t.line(
                    "IADD32I R5, R5, 0x1;\nISETP.LT.AND P1, PT, R5, 0x2, PT;\n@P1 BRA `(.TOP);\n\
                     IADD3 R1, R247, R128, R9;",
                );
                (0..32u32)
                    .map(|lane| {
                        let mut r = [0u32; 256];
                        r[8] = lane + 1;
                        for _ in 0..2 {
                            for (a, d) in (0..n).filter_map(mv) {
                                r[d] = r[a];
                            }
                        }
                        r[247].wrapping_add(r[128]).wrapping_add(r[9])
                    })
                    .collect()
            }
            Shape::Ladder => {
                t.line("MOV R5, RZ;\nISETP.NE.AND P5, PT, RZ, RZ, PT;\n.TOP:\n.L0:");
                for i in 1..n {
                    t.line(format_args!(
                        ".L{i}:\nIADD32I R1, R1, 0x1;\n@P5 BRA `(.L{});",
                        i - 1
                    ));
                }
                t.line("IADD32I R5, R5, 0x1;\nISETP.LT.AND P1, PT, R5, 0x2, PT;\n@P1 BRA `(.TOP);");
                all(2 * (n - 1))
            }
            Shape::Exits => {
                for _ in 0..n {
                    t.line("@!P6 EXIT;");
                }
                t.line("MOV32I R1, 0x7;");
                all(7)
            }
            Shape::Labels => {
                for i in 0..n {
                    t.line(format_args!(".L{i}:"));
                }
                t.line("MOV32I R1, 0x9;");
                all(9)
            }
            Shape::DxLoopNest
            | Shape::DxIfNest
            | Shape::DxSwitchNest
            | Shape::DxLoopSeq
            | Shape::DxIfBreaks
            | Shape::DxCases
            | Shape::DxRets
            | Shape::DxTemps
            | Shape::DxTgsm => unreachable!("a DXBC shape"),
        }
    }

    /// The declarations a DXBC shape adds to the prologue's.
    fn dxbc_decls(self, n: usize) -> String {
        let mut t = Text::default();
        match self {
            Shape::DxTemps => {
                for i in 0..n.min(MAX_XTEMPS) {
                    t.line(format_args!("dcl_indexableTemp x{i}[1], 4"));
                }
            }
            Shape::DxTgsm => {
                for i in 0..n - 1 {
                    t.line(format_args!("dcl_tgsm_raw g{i}, 4"));
                }
                t.line(format_args!("dcl_tgsm_raw g{}, 128", n - 1));
            }
            _ => {}
        }
        t.0
    }

    /// The body of a DXBC shape (`r0.x` the result, `r1.x` 0 and `r3.x` 1 at run time, `r2.x`
    /// the thread id); returns the words the threads store.
    fn dxbc_body(self, n: usize, t: &mut Text) -> Vec<u32> {
        let all = |v: usize| vec![v as u32; 32];
        match self {
            Shape::DxLoopNest => {
                for _ in 0..n {
                    t.line("loop\niadd r0.x, r0.x, l(1)\nbreakc_nz r3.x");
                }
                for _ in 0..n {
                    t.line("endloop");
                }
                all(1)
            }
            Shape::DxIfNest => {
                t.line("if_nz r2.x\niadd r0.x, r0.x, l(2)");
                for _ in 1..n {
                    t.line("if_nz r1.x\niadd r0.x, r0.x, l(1)");
                }
                for _ in 0..n {
                    t.line("endif");
                }
                t.line("iadd r0.x, r0.x, l(5)");
                (0..32).map(|l| if l == 0 { 5 } else { 7 }).collect()
            }
            Shape::DxSwitchNest => {
                for _ in 0..n {
                    t.line("switch r1.x\ncase l(1)\niadd r0.x, r0.x, l(1)");
                }
                for _ in 0..n {
                    t.line("break\nendswitch");
                }
                t.line("iadd r0.x, r0.x, l(5)");
                all(5)
            }
            Shape::DxLoopSeq => {
                for _ in 0..n {
                    t.line("loop\niadd r0.x, r0.x, l(1)\nbreakc_nz r3.x\nendloop");
                }
                all(n)
            }
            Shape::DxIfBreaks => {
                let d = n.div_ceil(2);
                for _ in 0..d {
                    t.line("if_nz r1.x");
                }
                t.line("loop");
                for _ in 0..d {
                    t.line("breakc_nz r3.x");
                }
                t.line("break\nendloop");
                for _ in 0..d {
                    t.line("endif");
                }
                t.line("iadd r0.x, r0.x, l(5)");
                all(5)
            }
            Shape::DxCases => {
                t.line("switch r2.x");
                for i in 0..n {
                    t.line(format_args!(
                        "case l({i})\nmov r0.x, l({})\nbreak",
                        3 * i + 1
                    ));
                }
                t.line("endswitch");
                (0..32)
                    .map(|l| if l < n { 3 * l as u32 + 1 } else { 0 })
                    .collect()
            }
            Shape::DxRets => {
                for _ in 0..n {
                    t.line("retc_nz r1.x");
                }
                t.line("iadd r0.x, r0.x, l(7)");
                all(7)
            }
            Shape::DxTemps => {
                let x = n.min(MAX_XTEMPS) - 1;
                t.line(format_args!("mov x{x}[0].x, l(0)"));
                for _ in 0..n {
                    t.line(format_args!("iadd x{x}[0].x, x{x}[0].x, l(1)"));
                }
                t.line(format_args!("mov r0.x, x{x}[0].x"));
                all(n)
            }
            Shape::DxTgsm => {
                let g = n - 1;
                t.line(format_args!(
                    "ishl r2.z, r2.x, l(2)\nstore_raw g{g}.x, r2.z, r2.x"
                ));
                for _ in 0..n {
                    t.line(format_args!("ld_raw r0.x, r2.z, g{g}.xxxx"));
                }
                (0..32).collect()
            }
            _ => unreachable!("a SASS shape"),
        }
    }
}

/// A program built by [`Shape::build`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The shape.
    pub shape: Shape,
    /// Its size.
    pub n: usize,
    /// The program's text: a SASS listing, or a DXBC `cs_5_0` listing.
    pub text: String,
    /// What each of the warp's 32 threads stores.
    pub expect: Vec<u32>,
}

impl Built {
    /// The file name of the program beside its trace (`NAME.sass` or `NAME.asm`).
    pub fn code_file(&self) -> String {
        let ext = match self.shape.isa() {
            Isa::Sass => "sass",
            Isa::Dxbc => "asm",
        };
        format!("{}.{ext}", self.shape.name())
    }

    /// The trace that runs the program (read from [`Built::code_file`] beside it) on one warp of
    /// 32 threads and checks what it stores.
    pub fn trace(&self) -> String {
        let words = |v: &[u32]| {
            v.iter()
                .map(|w| format!("{w:#x}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut s = format!(
            "# A hostile shape (warpjit::testgen::hostile): {} of size {}, {} bytes of program.\n\
             format = \"warpjit-trace/1\"\n\n",
            self.shape.name(),
            self.n,
            self.text.len()
        );
        match self.shape.isa() {
            Isa::Sass => {
                let _ = write!(
                    s,
                    "[[global]]\naddr = {OUT:#x}\nsize = 128\n\n\
                     [[const]]\nbank = 0\noffset = 0x140\nu32 = [{OUT:#x}, 0]\n\n\
                     [[launch]]\ncode_file = \"{}\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\n\
                     [[expect]]\naddr = {OUT:#x}\nu32 = [{}]\n",
                    self.code_file(),
                    words(&self.expect)
                );
            }
            Isa::Dxbc => {
                let _ = write!(
                    s,
                    "[[buffer]]\nslot = 0\nview = \"uav\"\nsize = 128\n\n\
                     [[launch]]\nisa = \"dxbc\"\ncode_file = \"{}\"\ngrid = [1, 1, 1]\n\n\
                     [[expect_buffer]]\nslot = 0\nview = \"uav\"\nu32 = [{}]\n",
                    self.code_file(),
                    words(&self.expect)
                );
            }
        }
        s
    }

    /// Writes the trace (`NAME.toml`) and its program into `dir`; returns the trace's path.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join(self.code_file()), &self.text)?;
        let trace = dir.join(format!("{}.toml", self.shape.name()));
        std::fs::write(&trace, self.trace())?;
        Ok(trace)
    }
}

/// Program text, a line at a time.
#[derive(Default)]
struct Text(String);

impl Text {
    fn line(&mut self, s: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{s}");
    }
}

fn sass_prologue(t: &mut Text) {
    t.line("S2R R0, SR_LANEID;\nISETP.NE.AND P6, PT, RZ, 0x1, PT;");
}

fn sass_epilogue(t: &mut Text) {
    t.line(
        "LEA R2.CC, R0, c[0x0][0x140], 0x2;\nLEA.HI.X R3, R0, c[0x0][0x144], RZ, 0x2;\n\
         STG.E [R2], R1;\nEXIT;",
    );
}

fn dxbc_prologue(t: &mut Text, decls: &str) {
    t.line(
        "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_raw u0\ndcl_input vThreadID.x\n\
         dcl_temps 4",
    );
    t.0.push_str(decls);
    t.line(
        "dcl_thread_group 32, 1, 1\nmov r0.x, l(0)\nmov r1.x, l(0)\nmov r3.x, l(1)\n\
         mov r2.x, vThreadID.x",
    );
}

fn dxbc_epilogue(t: &mut Text) {
    t.line("ishl r2.y, r2.x, l(2)\nstore_raw u0.x, r2.y, r0.x\nret");
}
