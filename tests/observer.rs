//! The observer hook: exact events of a tiny two-warp program under both engines.
use std::sync::{Arc, Mutex};
use warpjit::exec::{
    Engine, Launch, Machine, MemAccess, MemSpace, Observer, RunOptions, Stats, WarpAt,
};
use warpjit::sass::{parse_program, AsmOptions};
use warpjit_runtime::memory::Init;
use warpjit_runtime::ConstBanks;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    Inst {
        warp: u32,
        pc: u32,
        active: u32,
        exec: u32,
    },
    Mem {
        warp: u32,
        access: MemAccess,
    },
    Enter {
        warp: u32,
        block: u32,
        pc: u32,
        active: u32,
    },
    Exit {
        warp: u32,
        block: u32,
    },
    Barrier {
        warp: u32,
        id: u8,
        pc: u32,
        active: u32,
    },
}

#[derive(Default)]
struct Recorder(Mutex<Vec<Event>>);

impl Recorder {
    fn push(&self, e: Event) {
        self.0.lock().unwrap().push(e);
    }
}

impl Observer for Recorder {
    fn inst(&self, at: WarpAt, pc: u32, active: u32, exec: u32) {
        let warp = at.warp;
        self.push(Event::Inst {
            warp,
            pc,
            active,
            exec,
        });
    }
    fn mem(&self, at: WarpAt, access: MemAccess) {
        self.push(Event::Mem {
            warp: at.warp,
            access,
        });
    }
    fn block_enter(&self, at: WarpAt, block: u32, pc: u32, active: u32) {
        let warp = at.warp;
        self.push(Event::Enter {
            warp,
            block,
            pc,
            active,
        });
    }
    fn block_exit(&self, at: WarpAt, block: u32) {
        self.push(Event::Exit {
            warp: at.warp,
            block,
        });
    }
    fn barrier(&self, at: WarpAt, id: u8, pc: u32, active: u32) {
        let warp = at.warp;
        self.push(Event::Barrier {
            warp,
            id,
            pc,
            active,
        });
    }
}

// pcs (Maxwell layout): 0x08 0x10 0x18 | BAR 0x28 | 0x30 0x38 0x48 0x50 | EXIT 0x58.
const TEXT: &str = "
    S2R R0, SR_TID.X;
    SHL R1, R0, 0x2;
    STS [R1], R0;
    BAR.SYNC 0x0;
    ISETP.LT.AND P0, PT, R0, 0x4, PT;
    LDS R2, [R1];
    LDC R3, c[0x0][R1+0x10];
    @P0 STG [R1+0x10000], R2;
    EXIT;
";

fn run(engine: &dyn Engine) -> (Stats, Vec<Event>, Vec<u8>) {
    let prog = Arc::new(parse_program(TEXT, &AsmOptions::default()).unwrap());
    let mut m = Machine::default();
    m.global.map(0x10000, 4096, Init::Zero).unwrap();
    let launch = Launch {
        block: [64, 1, 1],
        shared_bytes: 256,
        ..Launch::new(prog, ConstBanks::new())
    };
    let rec = Arc::new(Recorder::default());
    let opts = RunOptions {
        threads: 1,
        observer: Some(rec.clone()),
        ..RunOptions::default()
    };
    let stats = engine.run(&m, &launch, &opts).expect("runs");
    let events = std::mem::take(&mut *rec.0.lock().unwrap());
    (stats, events, m.global.read_bytes(0x10000, 16).unwrap())
}

fn check(engine: &dyn Engine) {
    let (stats, ev, mem) = run(engine);
    let name = engine.name();
    // Every issued warp instruction, terminators included, once: 4 + 5 per warp.
    let insts: Vec<_> = ev
        .iter()
        .filter(|e| matches!(e, Event::Inst { .. }))
        .collect();
    assert_eq!(insts.len(), 18, "{name}");
    assert_eq!(insts.len() as u64, stats.warp_insts, "{name}");
    let pcs: Vec<u32> = insts
        .iter()
        .filter_map(|e| match e {
            Event::Inst { warp: 0, pc, .. } => Some(*pc),
            _ => None,
        })
        .collect();
    assert_eq!(
        pcs,
        [0x08, 0x10, 0x18, 0x28, 0x30, 0x38, 0x48, 0x50, 0x58],
        "{name}"
    );
    // The guarded store executes in lanes 0-3 of warp 0 only.
    for (warp, exec) in [(0, 0xf), (1, 0)] {
        let want = Event::Inst {
            warp,
            pc: 0x50,
            active: u32::MAX,
            exec,
        };
        assert!(ev.contains(&want), "{name}: {want:?}");
    }
    // Memory: STS, LDS and LDC in 64 lanes each, STG in 4.
    let mem_ev: Vec<(u32, MemAccess)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Mem { warp, access } => Some((*warp, *access)),
            _ => None,
        })
        .collect();
    assert_eq!(mem_ev.len(), 3 * 64 + 4, "{name}");
    for (warp, a) in &mem_ev {
        let tid = warp * 32 + a.lane;
        let (space, addr, store) = match a.pc {
            0x18 => (MemSpace::Shared, 4 * tid as u64, true),
            0x38 => (MemSpace::Shared, 4 * tid as u64, false),
            0x48 => (MemSpace::Const { bank: 0 }, 4 * tid as u64 + 0x10, false),
            0x50 => (MemSpace::Global, 0x10000 + 4 * tid as u64, true),
            pc => panic!("{name}: access at pc {pc:#x}"),
        };
        assert_eq!(
            (a.space, a.addr, a.size, a.store),
            (space, addr, 4, store),
            "{name}"
        );
    }
    let stg: Vec<u32> = mem_ev
        .iter()
        .filter(|(_, a)| a.pc == 0x50)
        .map(|(w, a)| w * 32 + a.lane)
        .collect();
    assert_eq!(stg, [0, 1, 2, 3], "{name}");
    // Two blocks per warp, entered and left; one barrier arrival per warp.
    let count = |f: &dyn Fn(&Event) -> bool| ev.iter().filter(|e| f(e)).count();
    assert_eq!(count(&|e| matches!(e, Event::Enter { .. })), 4, "{name}");
    assert_eq!(count(&|e| matches!(e, Event::Exit { .. })), 4, "{name}");
    for warp in 0..2 {
        let want = Event::Barrier {
            warp,
            id: 0,
            pc: 0x28,
            active: u32::MAX,
        };
        assert!(ev.contains(&want), "{name}: {want:?}");
        let enter = Event::Enter {
            warp,
            block: 1,
            pc: 0x30,
            active: u32::MAX,
        };
        assert!(ev.contains(&enter), "{name}: {enter:?}");
    }
    assert_eq!(count(&|e| matches!(e, Event::Barrier { .. })), 2, "{name}");
    // Warp 0 runs to the barrier, then warp 1; then both to the end.
    let order: Vec<(u32, u32)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Enter { warp, block, .. } => Some((*warp, *block)),
            _ => None,
        })
        .collect();
    assert_eq!(order, [(0, 0), (1, 0), (0, 1), (1, 1)], "{name}");
    assert_eq!(
        mem,
        [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
        "{name}"
    );
}

#[test]
fn observer_sees_every_event_under_both_engines() {
    check(&warpjit::interp::Interpreter);
    let jit = warpjit::jit::Jit::new().expect("host supported");
    check(&jit);
}

/// A faulting instruction is issued but has no effect: no access of it is reported, and the warp
/// does not leave its block.
#[test]
fn a_faulting_instruction_reports_no_access() {
    // pcs: 0x08 0x10 0x18 (faults in lane 16: 64 bytes of shared memory) 0x28.
    let text = "S2R R0, SR_TID.X;\nSHL R1, R0, 0x2;\nLDS R2, [R1];\nSTS [R1], R2;\nEXIT;\n";
    let jit = warpjit::jit::Jit::new().expect("host supported");
    for engine in [&warpjit::interp::Interpreter as &dyn Engine, &jit] {
        let prog = Arc::new(parse_program(text, &AsmOptions::default()).unwrap());
        let launch = Launch {
            shared_bytes: 64,
            ..Launch::new(prog, ConstBanks::new())
        };
        let rec = Arc::new(Recorder::default());
        let opts = RunOptions {
            threads: 1,
            observer: Some(rec.clone()),
            ..RunOptions::default()
        };
        let f = engine
            .run(&Machine::default(), &launch, &opts)
            .expect_err("faults");
        assert_eq!((f.lane, f.pc), (16, 0x18), "{}", engine.name());
        let ev = rec.0.lock().unwrap().clone();
        let want = [
            Event::Enter {
                warp: 0,
                block: 0,
                pc: 0x08,
                active: u32::MAX,
            },
            Event::Inst {
                warp: 0,
                pc: 0x08,
                active: u32::MAX,
                exec: u32::MAX,
            },
            Event::Inst {
                warp: 0,
                pc: 0x10,
                active: u32::MAX,
                exec: u32::MAX,
            },
            Event::Inst {
                warp: 0,
                pc: 0x18,
                active: u32::MAX,
                exec: u32::MAX,
            },
        ];
        assert_eq!(ev, want, "{}", engine.name());
    }
}
