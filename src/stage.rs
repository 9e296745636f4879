//! The registers a graphics shader's invocations read and write, for a host program that runs a
//! DXBC vertex, hull, domain, geometry or pixel shader without a trace file: each invocation's
//! `v#` inputs (a geometry shader's per input vertex) and `o#` outputs (a geometry shader's per
//! emitted vertex), laid out as the engines read them (docs/semantics.md §27), and the
//! [`Launch`] that runs the invocations.
//!
//! [`Stage::bind`] makes zeroed input and output records for a number of invocations and binds
//! them to the machine; [`Stage::set_input`] writes an input register of an invocation,
//! [`Stage::launch`] makes the launch (32 invocations per warp, the invocation count in
//! constant bank [`INVOCATIONS_BANK`]), and after it
//! [`Stage::output`] reads what an invocation wrote. A pixel shader's invocations run in 2x2
//! quads (§33): invocation `i` is lane `i`, the lanes that round the count up to a whole quad are
//! helper invocations (their inputs stay 0), and the hidden input slot marks the pixels. (The
//! trace format's `pixels` rectangle, which places helpers next to pixels and extrapolates their
//! inputs, is the trace runner's.)
//!
//! ```
//! use std::sync::Arc;
//! use warpjit::dxbc::{lower::lower, text::parse_located};
//! use warpjit::exec::{Engine, Machine, RunOptions};
//! use warpjit::interp::Interpreter;
//! use warpjit::stage::Stage;
//!
//! // A vertex shader: o0 = v0 * 2.
//! let listing = "vs_5_0\ndcl_input v0.xyzw\ndcl_output o0.xyzw\n\
//!                mul o0.xyzw, v0.xyzw, l(2.0, 2.0, 2.0, 2.0)\nret\n";
//! let (prog, locs) = parse_located(listing).expect("the listing parses");
//! let program = Arc::new(lower(&prog, &locs).expect("the shader lowers"));
//! let mut machine = Machine::default();
//! let stage = Stage::bind(&mut machine, &program, 3).expect("a vertex shader");
//! for i in 0..3 {
//!     let v = (i as f32).to_bits();
//!     stage.set_input(&machine, i, 0, 0, [v, v, v, 1.0f32.to_bits()]).expect("v0 exists");
//! }
//! Interpreter
//!     .run(&machine, &stage.launch(program.clone()), &RunOptions::default())
//!     .expect("runs");
//! let o0 = stage.output(&machine, 2, 0, 0).expect("o0 exists");
//! assert_eq!(f32::from_bits(o0[0]), 4.0);
//! assert_eq!(f32::from_bits(o0[3]), 2.0);
//! ```

use crate::exec::{Launch, Machine};
use crate::ir::{Program, StageIo, INVOCATIONS_BANK};
use std::sync::Arc;
use warpjit_runtime::resource::{Buffer, BufferKind};
use warpjit_runtime::{BankMode, ConstBanks};

/// Why a stage's registers could not be set up or reached. All are user errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageError {
    /// The program is not run over invocations (a compute shader, a SASS kernel).
    NotAStage,
    /// No invocations asked for.
    NoInvocations,
    /// The records do not fit in host memory (or in a buffer's 4 GiB).
    TooLarge(String),
    /// A register, vertex or invocation the shader's records do not have.
    OutOfRange {
        /// What (`"invocation"`, `"vertex"`, `"v#"`, `"o#"`).
        what: &'static str,
        /// The value asked for.
        value: u32,
        /// How many there are.
        count: u32,
    },
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::NotAStage => write!(
                f,
                "the program is not run over invocations (a vertex, hull, domain, geometry or \
                 pixel shader is)"
            ),
            StageError::NoInvocations => write!(f, "a launch needs at least one invocation"),
            StageError::TooLarge(why) => write!(f, "the invocations' registers: {why}"),
            StageError::OutOfRange { what, value, count } => {
                write!(f, "{what} {value} is out of range: there are {count}")
            }
        }
    }
}

impl std::error::Error for StageError {}

/// The shape of a bound stage: its registers and invocations ([`Stage::bind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The shader's registers and vertices per invocation.
    pub io: StageIo,
    /// The invocations.
    pub invocations: u32,
    /// The lanes that run them: the invocations, for a pixel shader rounded up to whole quads.
    pub lanes: u32,
}

impl Stage {
    /// Makes zeroed input and output records for `invocations` invocations of `program` and
    /// binds them to `machine` (replacing any bound before). A pixel shader's pixels are marked
    /// in its hidden input slot.
    pub fn bind(
        machine: &mut Machine,
        program: &Program,
        invocations: u32,
    ) -> Result<Stage, StageError> {
        let io = program.interface.invocations.ok_or(StageError::NotAStage)?;
        if invocations == 0 {
            return Err(StageError::NoInvocations);
        }
        let lanes = match io.live {
            Some(_) => invocations
                .checked_next_multiple_of(4)
                .ok_or_else(|| StageError::TooLarge(format!("{invocations} invocations")))?,
            None => invocations,
        };
        let stage = Stage::bind_lanes(machine, io, invocations, lanes)?;
        if let Some(live) = io.live {
            for lane in 0..invocations {
                stage.put(machine, lane, live, [1, 0, 0, 0]);
            }
        }
        Ok(stage)
    }

    /// [`Stage::bind`] for `lanes` lanes (at least `invocations`; the trace runner's pixel
    /// layouts place them), without marking any pixel: zeroed records, bound.
    pub(crate) fn bind_lanes(
        machine: &mut Machine,
        io: StageIo,
        invocations: u32,
        lanes: u32,
    ) -> Result<Stage, StageError> {
        let make = |records: u64, regs: u32| {
            let len = records * 16 * u64::from(regs);
            Buffer::new(BufferKind::Raw, len.max(4), &[])
                .map_err(|e| StageError::TooLarge(e.to_string()))
        };
        let input = make(u64::from(lanes) * u64::from(io.vertices_in), io.inputs)?;
        let output = make(u64::from(lanes) * u64::from(io.vertices_out), io.outputs)?;
        machine.resources.set_input(Some(input));
        machine.resources.set_output(Some(output));
        Ok(Stage {
            io,
            invocations,
            lanes,
        })
    }

    /// Writes input register `v{reg}` of record `lane` (a lane's, or for a geometry shader a
    /// lane's input vertex: `lane × vertices_in + vertex`), unchecked (a write past the records
    /// is dropped).
    pub(crate) fn put(&self, machine: &Machine, lane: u32, reg: u32, value: [u32; 4]) {
        let at = (u64::from(lane) * u64::from(self.io.inputs) + u64::from(reg)) * 16;
        write_input(machine, at, value);
    }

    /// The byte offset of record `(invocation, vertex)`'s register `reg`, checked against the
    /// `regs` a caller may name; records are `stride` registers long.
    #[allow(clippy::too_many_arguments)]
    fn at(
        &self,
        invocation: u32,
        vertex: u32,
        vertices: u32,
        reg: u32,
        regs: u32,
        stride: u32,
        name: &'static str,
    ) -> Result<u64, StageError> {
        let check = |what, value, count| {
            if value < count {
                Ok(())
            } else {
                Err(StageError::OutOfRange { what, value, count })
            }
        };
        check("invocation", invocation, self.invocations)?;
        check("vertex", vertex, vertices)?;
        check(name, reg, regs)?;
        let record = u64::from(invocation) * u64::from(vertices) + u64::from(vertex);
        Ok((record * u64::from(stride) + u64::from(reg)) * 16)
    }

    /// Sets input register `v{reg}` of input vertex `vertex` (0 but for a geometry shader) of
    /// invocation `invocation` to the four words `value` (x, y, z, w), in the records bound to
    /// `machine`.
    pub fn set_input(
        &self,
        machine: &Machine,
        invocation: u32,
        vertex: u32,
        reg: u32,
        value: [u32; 4],
    ) -> Result<(), StageError> {
        // The hidden slot is the stage's, not the program's.
        let regs = self.io.inputs - u32::from(self.io.live.is_some());
        let (vertices, stride) = (self.io.vertices_in, self.io.inputs);
        let at = self.at(invocation, vertex, vertices, reg, regs, stride, "v#")?;
        write_input(machine, at, value);
        Ok(())
    }

    /// Output register `o{reg}` of output vertex `vertex` (0 but for a geometry shader's
    /// emits) of invocation `invocation`, as the last launch left it in the records bound to
    /// `machine` (zeros where nothing was written).
    pub fn output(
        &self,
        machine: &Machine,
        invocation: u32,
        vertex: u32,
        reg: u32,
    ) -> Result<[u32; 4], StageError> {
        let at = self.at(
            invocation,
            vertex,
            self.io.vertices_out,
            reg,
            self.io.outputs,
            self.io.outputs,
            "o#",
        )?;
        let mut b = [0u8; 16];
        if let Some(out) = machine.resources.output() {
            out.storage().read(at, &mut b);
        }
        Ok(std::array::from_fn(|k| {
            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        }))
    }

    /// The launch of `program` over this stage's lanes: 32 per warp, one warp per CTA, the
    /// graphics bank mode, and the invocation count in constant bank
    /// [`INVOCATIONS_BANK`] (the program's constant buffers are to be added to `consts`).
    pub fn launch(&self, program: Arc<Program>) -> Launch {
        let mut consts = ConstBanks::new();
        let _ = consts.write(INVOCATIONS_BANK as u32, 0, &self.lanes.to_le_bytes());
        Launch {
            grid: [self.lanes.div_ceil(32).max(1), 1, 1],
            block: [32, 1, 1],
            mode: BankMode::Graphics,
            ..Launch::new(program, consts)
        }
    }
}

/// Writes one input register's four words at byte `at` of the records bound to `machine`.
fn write_input(machine: &Machine, at: u64, value: [u32; 4]) {
    if let Some(b) = machine.resources.input() {
        let bytes: Vec<u8> = value.iter().flat_map(|w| w.to_le_bytes()).collect();
        b.storage().write(at, &bytes);
    }
}
