//! What the sanitizer reports: [`Report`] and its parts, and their text.

use std::fmt::Write as _;

/// One of the sanitizer's tools (`--check=TOOL,...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tool {
    /// Out-of-bounds, misaligned and freed-memory accesses.
    Memcheck,
    /// Shared-memory hazards between threads that no barrier orders.
    Racecheck,
    /// Reads of global or shared memory never written.
    Initcheck,
    /// Barriers reached by part of a warp or of a CTA, shuffles reading lanes that do not
    /// execute them.
    Synccheck,
}

impl Tool {
    /// The four tools, in report order.
    pub const ALL: [Tool; 4] = [
        Tool::Memcheck,
        Tool::Racecheck,
        Tool::Initcheck,
        Tool::Synccheck,
    ];

    /// The tool's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Memcheck => "memcheck",
            Tool::Racecheck => "racecheck",
            Tool::Initcheck => "initcheck",
            Tool::Synccheck => "synccheck",
        }
    }
}

/// How serious a report is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A bug: `warpjit run --check` exits with status 5.
    Error,
    /// Legal on Maxwell, where a warp runs in lockstep, but a hazard on GPUs with independent
    /// thread scheduling (racecheck's warp-synchronous hazards): reported, the exit status
    /// unchanged.
    Warning,
}

/// A memory space as reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    /// Global memory (`__global__`).
    Global,
    /// The CTA's shared memory (`__shared__`; DXBC's `g#`): addresses are offsets.
    Shared,
    /// The thread's local memory (`__local__`): addresses are offsets.
    Local,
}

impl Space {
    /// CUDA's name of the space.
    pub fn cuda(self) -> &'static str {
        match self {
            Space::Global => "__global__",
            Space::Shared => "__shared__",
            Space::Local => "__local__",
        }
    }
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// An atomic read-modify-write.
    Atomic,
}

impl AccessKind {
    /// `read`, `write` or `atomic`.
    pub fn word(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        }
    }
    /// `Read`, `Write` or `Atomic`.
    pub fn title(self) -> &'static str {
        match self {
            AccessKind::Read => "Read",
            AccessKind::Write => "Write",
            AccessKind::Atomic => "Atomic",
        }
    }
}

/// Where something happened: a lane of a warp of a CTA, at an instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Where {
    /// The CTA (block) coordinates.
    pub cta: [u32; 3],
    /// The thread's coordinates in its CTA.
    pub thread: [u32; 3],
    /// The warp in the CTA.
    pub warp: u32,
    /// The lane.
    pub lane: u32,
    /// The instruction's pc.
    pub pc: u32,
}

/// A global allocation (a segment of global memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Allocation {
    /// Its first byte.
    pub base: u64,
    /// Its size in bytes.
    pub size: u64,
    /// It was freed (by the host, before this launch).
    pub freed: bool,
}

/// Why an access is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Problem {
    /// Outside every allocation (global memory): an illegal-address fault, which stopped the
    /// launch, or an access past an allocation's end that its mapping still covers (a driver
    /// maps whole pages), and the run went on; `nearest` is the nearest allocation (live or
    /// freed), if there is one.
    OutOfBounds {
        /// The nearest allocation.
        nearest: Option<Allocation>,
    },
    /// Inside an allocation the host freed (still mapped, or not: then a fault).
    Freed {
        /// The freed allocation.
        alloc: Allocation,
    },
    /// Outside the CTA's shared memory (or the thread's local memory) of `bytes` bytes: a
    /// fault, which stopped the launch.
    OutOfRange {
        /// The size of the shared (local) memory.
        bytes: u64,
    },
    /// Not a multiple of the access size: aligned down to `aligned` (docs/semantics.md §16),
    /// and the run went on. `inside` is the global allocation holding the access.
    Misaligned {
        /// The address used.
        aligned: u64,
        /// The global allocation that holds it.
        inside: Option<Allocation>,
    },
}

/// The kind of a shared-memory hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hazard {
    /// A read of a byte another thread wrote, unordered.
    Raw,
    /// A write of a byte another thread read, unordered.
    War,
    /// A write of a byte another thread wrote, unordered, with another value.
    Waw,
}

impl Hazard {
    /// `RAW`, `WAR` or `WAW`.
    pub fn name(self) -> &'static str {
        match self {
            Hazard::Raw => "RAW",
            Hazard::War => "WAR",
            Hazard::Waw => "WAW",
        }
    }
}

/// One instruction whose accesses race with a [`What::Race`]'s write.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RaceWith {
    /// Its first hazard, by CTA and then in the CTA's order (orders the merge of CTAs).
    pub(crate) order: (u64, u64),
    /// A load, a store or an atomic.
    pub kind: AccessKind,
    /// Its first hazard with the write: the thread and instruction.
    pub at: Where,
    /// RAW (the write came first), WAR (this read came first) or WAW.
    pub hazard: Hazard,
    /// The shared-memory byte of the first hazard.
    pub byte: u64,
    /// For RAW, the byte's value before the write and after it; for WAR and WAW the value
    /// the earlier access left and the value the later writes (when known).
    pub values: Option<(u8, u8)>,
    /// Both in one warp: two lanes of one instruction (two writes), or (RAW, WAR) two
    /// instructions of one warp with nothing but lockstep between them.
    pub same_warp: bool,
    /// Hazards (bytes) between the two instructions.
    pub count: u64,
}

/// What a [`Report`] found.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum What {
    /// memcheck: an invalid access.
    Access {
        /// Where it went.
        space: Space,
        /// Load, store or atomic.
        kind: AccessKind,
        /// Bytes accessed.
        size: u32,
        /// The address (shared and local: the offset), as the program computed it.
        addr: u64,
        /// What is wrong with it.
        problem: Problem,
        /// The access faulted, which stopped the launch (docs/semantics.md §10); else it was
        /// performed and the run went on.
        fault: bool,
    },
    /// racecheck: hazards between a write (or atomic) to shared memory and other threads'
    /// accesses to the same bytes that nothing orders (the report's [`Report::at`] is the
    /// write's first occurrence), grouped by the other access's instruction.
    Race {
        /// What the write is: a store or an atomic.
        write: AccessKind,
        /// The other instructions whose accesses race with it, by pc.
        with: Vec<RaceWith>,
    },
    /// initcheck: a read of memory never written.
    Uninit {
        /// Global or shared memory.
        space: Space,
        /// A load or an atomic.
        kind: AccessKind,
        /// Bytes accessed.
        size: u32,
        /// The address (shared: the offset).
        addr: u64,
        /// The global allocation (an undefined one) holding it.
        alloc: Option<Allocation>,
    },
    /// synccheck: a warp reached barrier `barrier` with live lanes `idle` not active (they
    /// diverged), so they did not arrive with it.
    DivergentWarp {
        /// The barrier.
        barrier: u8,
        /// The live lanes that were not active.
        idle: u32,
    },
    /// synccheck: barrier `barrier` completed with its warps waiting at different
    /// instructions: `(pc, warps)` per instruction.
    DivergentBlock {
        /// The barrier.
        barrier: u8,
        /// Each instruction and the warps that waited there.
        at: Vec<(u32, Vec<u32>)>,
    },
    /// synccheck: a SHFL lane read the register of lane `src`, which does not execute the
    /// SHFL (inactive, exited or its guard false): PTX leaves the value undefined; warpjit
    /// gives the register's last value.
    ShflInactive {
        /// The source lane.
        src: u32,
    },
    /// A tool could not check a launch (for example racecheck with a CTA over 2048 threads).
    NotChecked {
        /// Why.
        why: String,
    },
}

/// One finding of the sanitizer: the first occurrence at a site (a tool's kind of problem at
/// one instruction, or at one pair of instructions for a race) in a launch, and how many times
/// it happened there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The tool.
    pub tool: Tool,
    /// Error or warning.
    pub severity: Severity,
    /// The launch (0-based, in the trace's order).
    pub launch: u32,
    /// The first occurrence (for a race, the later of the two accesses).
    pub at: Where,
    /// What was found.
    pub what: What,
    /// How many times it happened at this site in this launch (accesses, lanes; for a race the
    /// hazardous bytes, as compute-sanitizer counts them).
    pub count: u64,
}

/// `n thing` or `n things`.
fn plural(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// `(x,y,z)`.
fn coords(c: [u32; 3]) -> String {
    format!("({},{},{})", c[0], c[1], c[2])
}

/// `by thread (x,y,z) in block (x,y,z) (warp W, lane L)`.
fn by(w: &Where) -> String {
    format!(
        "by thread {} in block {} (warp {}, lane {})",
        coords(w.thread),
        coords(w.cta),
        w.warp,
        w.lane
    )
}

/// The lanes of a mask as ranges: `16-31`, `3, 5-7`.
pub fn lane_list(mask: u32) -> String {
    let mut out = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask >> l & 1 == 1 {
            l += 1;
        }
        out.push(if l - 1 == start {
            format!("{start}")
        } else {
            format!("{start}-{}", l - 1)
        });
    }
    out.join(", ")
}

/// How an access at `addr` relates to allocation `a`: `N bytes before`, `N bytes after`,
/// `inside`.
fn relation(addr: u64, size: u32, a: &Allocation) -> String {
    if addr < a.base {
        format!("is {} bytes before", a.base - addr)
    } else if addr.saturating_add(size as u64) > a.base.saturating_add(a.size) && addr >= a.base {
        let end = a.base + a.size;
        if addr >= end {
            format!("is {} bytes after", addr - end)
        } else {
            format!(
                "straddles the end ({} bytes past it) of",
                addr + size as u64 - end
            )
        }
    } else {
        "is inside".to_string()
    }
}

impl Report {
    /// The report's text: a headline (the tool, then the problem as compute-sanitizer words it,
    /// the pc and the launch), then indented lines with the thread, the addresses and each
    /// instruction's source line (`at PATH:LINE:COL: TEXT`) as `source(launch, pc)` gives it,
    /// and `kernel(launch)`, the launch's kernel name if it has one.
    pub fn render(
        &self,
        source: &dyn Fn(u32, u32) -> Option<String>,
        kernel: &dyn Fn(u32) -> Option<String>,
    ) -> String {
        let mut s = String::new();
        let place = |pc: u32| -> String {
            match kernel(self.launch) {
                Some(k) => format!("at pc {pc:#06x} in kernel {k} (launch {})", self.launch),
                None => format!("at pc {pc:#06x} in launch {}", self.launch),
            }
        };
        let src = |pc: u32| source(self.launch, pc).map(|t| format!("at {t}"));
        let more = |s: &mut String| {
            if self.count > 1 {
                let _ = write!(s, ", and {} more at this site", self.count - 1);
            }
        };
        let tool = self.tool.name();
        let at = &self.at;
        match &self.what {
            What::Access {
                space,
                kind,
                size,
                addr,
                problem,
                fault,
            } => {
                let _ = write!(
                    s,
                    "{tool}: Invalid {} {} of size {} {}\n  {}",
                    space.cuda(),
                    kind.word(),
                    plural(*size as u64, "byte"),
                    place(at.pc),
                    by(at)
                );
                more(&mut s);
                s.push('\n');
                match problem {
                    Problem::OutOfBounds { nearest } => {
                        let _ = write!(s, "  Address {addr:#x} is out of bounds");
                        if let Some(a) = nearest {
                            let _ = write!(
                                s,
                                " and {} the nearest {}allocation at {:#x} of size {}",
                                relation(*addr, *size, a),
                                if a.freed { "(freed) " } else { "" },
                                a.base,
                                plural(a.size, "byte")
                            );
                        }
                        s.push('\n');
                    }
                    Problem::Freed { alloc } => {
                        let _ = writeln!(
                            s,
                            "  Address {addr:#x} is in freed memory: {} bytes into the freed allocation at {:#x} of size {}",
                            addr - alloc.base,
                            alloc.base,
                            plural(alloc.size, "byte")
                        );
                    }
                    Problem::OutOfRange { bytes } => {
                        let what = match space {
                            Space::Local => "the thread's local memory",
                            _ => "the block's shared memory",
                        };
                        let _ = writeln!(
                            s,
                            "  Address {addr:#x} is out of bounds of {what} ({})",
                            plural(*bytes, "byte")
                        );
                    }
                    Problem::Misaligned { aligned, inside } => {
                        let _ = write!(
                            s,
                            "  Address {addr:#x} is misaligned; the access used {aligned:#x} (aligned down, docs/semantics.md §16)"
                        );
                        if let Some(a) = inside {
                            let _ = write!(
                                s,
                                " and {} the nearest allocation at {:#x} of size {}",
                                relation(*aligned, *size, a),
                                a.base,
                                plural(a.size, "byte")
                            );
                        }
                        s.push('\n');
                    }
                }
                if let Some(t) = src(at.pc) {
                    let _ = writeln!(s, "  {t}");
                }
                if *fault {
                    let _ = writeln!(
                        s,
                        "  the launch stopped here: the access is a fault (docs/semantics.md §10)"
                    );
                }
            }
            What::Race { write, with } => {
                let sev = match self.severity {
                    Severity::Error => "Error",
                    Severity::Warning => "Warning",
                };
                let _ = write!(
                    s,
                    "{tool}: {sev}: Race reported between {} access {} [{}]\n  {} {}",
                    write.title(),
                    place(at.pc),
                    plural(self.count, "hazard"),
                    write.title(),
                    by(at)
                );
                match src(at.pc) {
                    Some(t) => {
                        let _ = writeln!(s, "\n    {t}");
                    }
                    None => s.push('\n'),
                }
                for w in with {
                    let _ = write!(
                        s,
                        "  and {} access at pc {:#06x} [{}]: {} on __shared__ byte {:#x}",
                        w.kind.title(),
                        w.at.pc,
                        plural(w.count, "hazard"),
                        w.hazard.name(),
                        w.byte
                    );
                    if let Some((a, b)) = w.values {
                        let (x, y) = match w.hazard {
                            Hazard::Raw => ("value before the write", "written"),
                            _ => ("current value", "incoming"),
                        };
                        let _ = write!(s, " ({x} {a:#04x}, {y} {b:#04x})");
                    }
                    let _ = write!(s, "\n    {} {}", w.kind.title(), by(&w.at));
                    match src(w.at.pc) {
                        Some(t) => {
                            let _ = writeln!(s, "\n    {t}");
                        }
                        None => s.push('\n'),
                    }
                }
                if self.severity == Severity::Warning {
                    let _ = writeln!(
                        s,
                        "  within one warp: ordered on Maxwell, where a warp runs in lockstep, but not on GPUs with independent thread scheduling (__syncwarp() orders it there)"
                    );
                } else if with.iter().any(|w| w.same_warp) {
                    let _ = writeln!(
                        s,
                        "  no barrier orders them (lanes of one warp instruction writing one byte, or in DXBC, where a group's threads run in no promised order)"
                    );
                } else {
                    let _ = writeln!(s, "  no barrier orders them");
                }
            }
            What::Uninit {
                space,
                kind,
                size,
                addr,
                alloc,
            } => {
                let _ = write!(
                    s,
                    "{tool}: Uninitialized {} memory {} of size {} {}\n  {}",
                    space.cuda(),
                    kind.word(),
                    plural(*size as u64, "byte"),
                    place(at.pc),
                    by(at)
                );
                more(&mut s);
                let _ = write!(s, "\n  Address {addr:#x}");
                match alloc {
                    Some(a) => {
                        let _ = writeln!(
                            s,
                            ", in the allocation at {:#x} of size {}, was never written",
                            a.base,
                            plural(a.size, "byte")
                        );
                    }
                    None => {
                        let _ = writeln!(s, " was never written since the block started");
                    }
                }
                if let Some(t) = src(at.pc) {
                    let _ = writeln!(s, "  {t}");
                }
            }
            What::DivergentWarp { barrier, idle } => {
                let _ = write!(
                    s,
                    "{tool}: Barrier error detected. Divergent thread(s) in warp {}\n  {}",
                    place(at.pc),
                    by(at)
                );
                more(&mut s);
                let _ = writeln!(
                    s,
                    "\n  barrier {barrier} reached with live lanes {} of the warp not active: they do not arrive with it",
                    lane_list(*idle)
                );
                if let Some(t) = src(at.pc) {
                    let _ = writeln!(s, "  {t}");
                }
            }
            What::DivergentBlock { barrier, at: pcs } => {
                let _ = write!(
                    s,
                    "{tool}: Barrier error detected. Divergent thread(s) in block {}\n  in block {}",
                    place(at.pc),
                    coords(at.cta)
                );
                more(&mut s);
                let _ = writeln!(
                    s,
                    ": barrier {barrier} completed with its warps waiting at different instructions"
                );
                for (pc, warps) in pcs {
                    let list: Vec<String> = warps.iter().map(u32::to_string).collect();
                    let _ = write!(s, "  warp(s) {} at pc {pc:#06x}", list.join(", "));
                    match src(*pc) {
                        Some(t) => {
                            let _ = writeln!(s, " {t}");
                        }
                        None => s.push('\n'),
                    }
                }
            }
            What::ShflInactive { src: j } => {
                let _ = write!(
                    s,
                    "{tool}: Shuffle error detected. Source lane not executing {}\n  {}",
                    place(at.pc),
                    by(at)
                );
                more(&mut s);
                let _ = writeln!(
                    s,
                    "\n  the SHFL reads lane {j}, which does not execute it (the value is undefined; warpjit gives that lane's register)"
                );
                if let Some(t) = src(at.pc) {
                    let _ = writeln!(s, "  {t}");
                }
            }
            What::NotChecked { why } => {
                let _ = writeln!(s, "{tool}: launch {} not checked: {why}", self.launch);
            }
        }
        s
    }
}
