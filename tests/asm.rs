//! The SASS front-end's text tests: every `tests/asm/*.sass` file, case by case (Cranelift's
//! filetests are the model).
//!
//! A file is a list of cases. A case is a header of directive lines, then its text: the lines up
//! to the first empty line or the next directive. Lines between a case's text and the next
//! header are free comments. Line and column numbers in
//! directives count from the case's first text line. A directive line is `// KEY: VALUE` (or
//! `// KEY`) with one of these keys:
//!
//! | directive | meaning |
//! |---|---|
//! | `inst` | assemble the text as exactly one instruction (`parse_inst`), else as a listing |
//! | `registers: N` | the launch gives the program `N` registers (default 255) |
//! | `local_bytes: N` | the `run:` launch gives each thread `N` bytes of local memory (default 0) |
//! | `shared_bytes: N` | the `run:` launch gives the CTA `N` bytes of shared memory (default 0) |
//! | `error: L:C: MESSAGE` | assembling fails at line `L`, column `C`, with a message containing `MESSAGE`, and the error's line is text line `L` |
//! | `note: TEXT` | the error has a note (or help) containing `TEXT` |
//! | `ok` | assembling succeeds |
//! | `print: TEXT` | the instruction prints as exactly `TEXT` (and `TEXT` parses back to it) |
//! | `same: TEXT` | the instruction equals `TEXT`'s (source locations aside) |
//! | `run: R2 = 0x5` | run as a 32-thread CTA under both engines: every lane's `R2` is 0x5 (`R2[7]`: lane 7's; `P0 = 1` for a predicate). The text must not end the program (no EXIT at the end): the harness appends the stores it reads registers with, and uses R248 to R254 |
//!
//! Every failing case is reported with its `file:line`, all at once.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit::ir::{Inst, SrcLoc};
use warpjit::sass::{parse_inst, parse_program, AsmError, AsmOptions, ParsedInst};
use warpjit_runtime::memory::Init;
use warpjit_runtime::ConstBanks;

/// One case: where it starts, its directives and its text.
struct Case {
    /// 1-based line of the case's first directive in its file.
    line: usize,
    directives: Vec<(usize, String, String)>,
    text: String,
}

const KEYS: &[&str] = &[
    "inst",
    "registers",
    "local_bytes",
    "shared_bytes",
    "error",
    "note",
    "ok",
    "print",
    "same",
    "run",
];

/// A directive line's key and value.
fn directive(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("// ")?;
    let (key, value) = match rest.split_once(':') {
        Some((k, v)) => (k.trim(), v.trim()),
        None => (rest.trim(), ""),
    };
    KEYS.contains(&key)
        .then(|| (key.to_string(), value.to_string()))
}

fn cases(file: &str) -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    // Where the current case is: its header, its text, or past its text (free comments).
    #[derive(PartialEq)]
    enum At {
        Header,
        Text,
        After,
    }
    let mut at = At::After;
    for (i, line) in file.lines().enumerate() {
        if let Some((k, v)) = directive(line) {
            if at != At::Header {
                out.push(Case {
                    line: i + 1,
                    directives: Vec::new(),
                    text: String::new(),
                });
                at = At::Header;
            }
            if let Some(c) = out.last_mut() {
                c.directives.push((i + 1, k, v));
            }
            continue;
        }
        let Some(c) = out.last_mut() else { continue };
        match at {
            At::After => {}
            _ if line.is_empty() => at = At::After,
            At::Header => {
                c.text.push_str(line);
                at = At::Text;
            }
            At::Text => {
                c.text.push('\n');
                c.text.push_str(line);
            }
        }
    }
    out
}

fn strip(p: ParsedInst) -> ParsedInst {
    match p {
        ParsedInst::Op(i) => ParsedInst::Op(Inst {
            loc: SrcLoc::default(),
            ..i
        }),
        ParsedInst::Control(mut c) => {
            c.loc = SrcLoc::default();
            ParsedInst::Control(c)
        }
    }
}

/// Where the harness stores register values: 32 lanes × 4 bytes per checked register.
const OUT: u64 = 0x1000_0000;

/// Runs `text` plus stores of `regs` under both engines; the value of every register in every
/// lane, per engine.
fn run(
    text: &str,
    regs: &[String],
    opts: &AsmOptions,
    local_bytes: u32,
    shared_bytes: u32,
) -> Result<Vec<Vec<[u32; 32]>>, String> {
    let mut t = format!("{text}\nS2R R248, SR_TID.X;\nSHL R248, R248, 0x2;\n");
    for (k, r) in regs.iter().enumerate() {
        let at = OUT + 128 * k as u64;
        let value = if let Some(p) = r.strip_prefix('P') {
            let _ = writeln!(t, "MOV32I R252, 0x1;\nSEL R253, R252, RZ, P{p};");
            "R253".to_string()
        } else {
            r.clone()
        };
        let _ = writeln!(
            t,
            "IADD32I R250, R248, {:#x};\nMOV32I R251, {:#x};\nSTG.E [R250], {value};",
            at as u32,
            (at >> 32) as u32
        );
    }
    t.push_str("EXIT;\n");
    let prog = Arc::new(parse_program(&t, opts).map_err(|e| e.render("run", 0))?);
    let mut jit = warpjit::jit::Jit::new().map_err(|e| e.to_string())?;
    jit.threshold = 1;
    let engines: [&dyn Engine; 2] = [&warpjit::interp::Interpreter, &jit];
    let mut out = Vec::new();
    for engine in engines {
        let mut m = Machine::default();
        m.global
            .map(OUT, 128 * regs.len().max(1) as u64, Init::Zero)
            .map_err(|e| e.to_string())?;
        let launch = Launch {
            budget: 100_000,
            local_bytes,
            shared_bytes,
            ..Launch::new(prog.clone(), ConstBanks::new())
        };
        let ro = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        engine
            .run(&m, &launch, &ro)
            .map_err(|f| format!("{}: fault: {f}", engine.name()))?;
        let mut values = Vec::new();
        for k in 0..regs.len() {
            let bytes = m
                .global
                .read_bytes(OUT + 128 * k as u64, 128)
                .map_err(|e| e.to_string())?;
            let mut lanes = [0u32; 32];
            for (l, w) in lanes.iter_mut().enumerate() {
                *w = u32::from_le_bytes(bytes[4 * l..4 * l + 4].try_into().unwrap_or([0; 4]));
            }
            values.push(lanes);
        }
        out.push(values);
    }
    Ok(out)
}

fn parse_num(s: &str) -> Option<u32> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    let v = v as u32;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Checks one case; the failures, each with its line in the file.
fn check(c: &Case) -> Vec<(usize, String)> {
    let mut fails = Vec::new();
    let mut opts = AsmOptions::default();
    let mut single = false;
    let mut local_bytes = 0;
    let mut shared_bytes = 0;
    for (line, k, v) in &c.directives {
        match k.as_str() {
            "inst" => single = true,
            "local_bytes" => match parse_num(v) {
                Some(n) => local_bytes = n,
                None => fails.push((*line, format!("bad local_bytes `{v}`"))),
            },
            "shared_bytes" => match parse_num(v) {
                Some(n) => shared_bytes = n,
                None => fails.push((*line, format!("bad shared_bytes `{v}`"))),
            },
            "registers" => match v.parse() {
                Ok(n) => opts.registers = n,
                Err(_) => fails.push((*line, format!("bad register count `{v}`"))),
            },
            _ => {}
        }
    }
    let text = c.text.as_str();
    let result: Result<Option<ParsedInst>, AsmError> = if single {
        parse_inst(text, &opts).map(Some)
    } else {
        parse_program(text, &opts).map(|_| None)
    };
    let mut checked_error = false;
    for (line, k, v) in &c.directives {
        let mut fail = |m: String| fails.push((*line, m));
        match k.as_str() {
            "inst" | "registers" | "local_bytes" | "shared_bytes" => {}
            "ok" => {
                if let Err(e) = &result {
                    fail(format!("expected success, got {e}"));
                }
            }
            "error" => {
                checked_error = true;
                let mut parts = v.splitn(3, ':');
                let (l, col, msg) = (parts.next(), parts.next(), parts.next());
                let (Some(l), Some(col), Some(msg)) = (
                    l.and_then(|x| x.trim().parse::<u32>().ok()),
                    col.and_then(|x| x.trim().parse::<u32>().ok()),
                    msg,
                ) else {
                    fail(format!("bad error directive `{v}` (want L:C: MESSAGE)"));
                    continue;
                };
                let msg = msg.trim();
                match &result {
                    Ok(_) => fail(format!("expected error `{msg}`, but it assembled")),
                    Err(e) => {
                        if !e.message.contains(msg) {
                            fail(format!("message `{}` lacks `{msg}`", e.message));
                        }
                        if (e.line, e.col) != (l, col) {
                            fail(format!(
                                "error at {}:{}, expected {l}:{col}: {e}",
                                e.line, e.col
                            ));
                        }
                        let want = text.split('\n').nth(e.line as usize - 1).unwrap_or("");
                        if e.line_text != want.trim_end_matches('\r') {
                            fail(format!("error line `{}`, expected `{want}`", e.line_text));
                        }
                    }
                }
            }
            "note" => match &result {
                Err(e) if e.notes.iter().any(|n| n.text().contains(v.as_str())) => {}
                Err(e) => fail(format!(
                    "no note contains `{v}`; notes: {:?}",
                    e.notes.iter().map(|n| n.text()).collect::<Vec<_>>()
                )),
                Ok(_) => fail(format!("expected an error with note `{v}`")),
            },
            "print" => match &result {
                Ok(Some(p)) => {
                    let shown = p.to_string();
                    if shown != *v {
                        fail(format!("prints as `{shown}`, expected `{v}`"));
                    }
                    match parse_inst(v, &opts) {
                        Ok(back) if strip(back.clone()) == strip(p.clone()) => {}
                        other => fail(format!("`{v}` parses back as {other:?}")),
                    }
                }
                Ok(None) => fail("print: needs `// inst`".into()),
                Err(e) => fail(format!("{e}")),
            },
            "same" => match (&result, parse_inst(v, &opts)) {
                (Ok(Some(a)), Ok(b)) if strip(a.clone()) == strip(b.clone()) => {}
                (Ok(Some(a)), Ok(b)) => fail(format!("{a:?}\n  differs from `{v}`: {b:?}")),
                (Ok(None), _) => fail("same: needs `// inst`".into()),
                (Err(e), _) => fail(format!("{e}")),
                (_, Err(e)) => fail(format!("`{v}`: {e}")),
            },
            "run" => {}
            other => fail(format!("unknown directive `{other}`")),
        }
    }
    if !checked_error {
        if let Err(e) = &result {
            if !c.directives.iter().any(|d| d.1 == "ok") {
                fails.push((c.line, format!("unexpected error: {e}")));
            }
        }
    }
    // `run:` lines, all in one run.
    let runs: Vec<(usize, String, Option<usize>, u32)> = c
        .directives
        .iter()
        .filter(|d| d.1 == "run")
        .filter_map(|(line, _, v)| {
            let parsed = v.split_once('=').and_then(|(lhs, rhs)| {
                let lhs = lhs.trim();
                let (reg, lane) = match lhs.split_once('[') {
                    Some((r, l)) => (r, l.trim_end_matches(']').parse::<usize>().ok()),
                    None => (lhs, None),
                };
                Some((reg.to_string(), lane, parse_num(rhs)?))
            });
            match parsed {
                Some((r, lane, val)) => Some((*line, r, lane, val)),
                None => {
                    fails.push((*line, format!("bad run directive `{v}`")));
                    None
                }
            }
        })
        .collect();
    if !runs.is_empty() {
        let mut regs: Vec<String> = Vec::new();
        for r in &runs {
            if !regs.contains(&r.1) {
                regs.push(r.1.clone());
            }
        }
        match run(text, &regs, &opts, local_bytes, shared_bytes) {
            Err(e) => fails.push((c.line, e)),
            Ok(per_engine) => {
                for (e, values) in per_engine.iter().enumerate() {
                    let engine = ["interpreter", "jit"][e];
                    for (line, reg, lane, want) in &runs {
                        let k = regs.iter().position(|r| r == reg).unwrap_or(0);
                        let lanes: Vec<usize> = match lane {
                            Some(l) => vec![*l],
                            None => (0..32).collect(),
                        };
                        for l in lanes {
                            let got = values[k][l.min(31)];
                            if got != *want {
                                fails.push((
                                    *line,
                                    format!("{engine}: {reg} of lane {l} is {got:#x}, expected {want:#x}"),
                                ));
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
    fails
}

#[test]
fn asm_text_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/asm");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/asm")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sass"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no tests/asm/*.sass files");
    let mut report = String::new();
    let (mut n, mut failed) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a text file");
        let name = f
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(f)
            .display()
            .to_string();
        for c in cases(&text) {
            n += 1;
            let fails = check(&c);
            if !fails.is_empty() {
                failed += 1;
            }
            for (line, m) in fails {
                let _ = writeln!(report, "{name}:{line}: {m}");
            }
        }
    }
    assert!(n > 0, "no cases");
    assert!(report.is_empty(), "{failed} of {n} cases failed:\n{report}");
}

#[test]
fn the_harness_catches_failures() {
    let bad = "// error: 1:1: unknown opcode\nNOP;\n// print: MOV R1, R3\n// inst\nMOV R1, R2\n// run: R1 = 0x7\nMOV32I R1, 0x6;\n";
    let cs = cases(bad);
    assert_eq!(cs.len(), 3);
    for c in &cs {
        assert!(!check(c).is_empty(), "case at line {} passed", c.line);
    }
    let good = "// run: R1 = 0x7\n// run: P0 = 1\nMOV32I R1, 0x7;\nISETP.EQ.AND P0, PT, R1, 0x7, PT;\n\n// a comment\n";
    let cs = cases(good);
    assert_eq!(cs.len(), 1);
    assert_eq!(
        cs[0].text,
        "MOV32I R1, 0x7;\nISETP.EQ.AND P0, PT, R1, 0x7, PT;"
    );
    assert_eq!(check(&cs[0]), vec![]);
}
