//! The typed model of a shader model 4/5 program, shared by the text and the binary readers.
//!
//! The model keeps what a listing shows and nothing of how the tokens happened to encode it, so a
//! container and the listing Microsoft's disassembler prints for it read to equal programs.

/// The shader stage a program is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Pixel shader (`ps_`).
    Pixel,
    /// Vertex shader (`vs_`).
    Vertex,
    /// Geometry shader (`gs_`).
    Geometry,
    /// Hull shader (`hs_`).
    Hull,
    /// Domain shader (`ds_`).
    Domain,
    /// Compute shader (`cs_`).
    Compute,
}

impl Stage {
    /// Every stage, in token order (the version token's program type).
    pub const ALL: [Stage; 6] = [
        Stage::Pixel,
        Stage::Vertex,
        Stage::Geometry,
        Stage::Hull,
        Stage::Domain,
        Stage::Compute,
    ];

    /// The listing's prefix (`ps`, `vs`, ...).
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Compute => "cs",
        }
    }

    /// The program type of the version token.
    pub fn token(self) -> u32 {
        Stage::ALL.iter().position(|&s| s == self).unwrap_or(0) as u32
    }
}

/// Shader type and model: `cs_5_0` is `Version { stage: Compute, major: 5, minor: 0 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    /// The stage.
    pub stage: Stage,
    /// Major shader model (4 or 5).
    pub major: u8,
    /// Minor shader model (0 or 1).
    pub minor: u8,
}

/// A whole program: its version line, then declarations and instructions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The version line.
    pub version: Version,
    /// Declarations and instructions, in program order.
    pub statements: Vec<Statement>,
}

impl Program {
    /// The declarations, in order.
    pub fn decls(&self) -> impl Iterator<Item = &Decl> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Decl(d) => Some(d),
            Statement::Inst(_) => None,
        })
    }

    /// The instructions, in order.
    pub fn insts(&self) -> impl Iterator<Item = &Inst> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Inst(i) => Some(i),
            Statement::Decl(_) => None,
        })
    }
}

/// One line of a program (a declaration may span several, `dcl_immediateConstantBuffer`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// A `dcl_*` declaration.
    Decl(Decl),
    /// An instruction.
    Inst(Inst),
}

macro_rules! opcodes {
    ($( $(#[$doc:meta])* $v:ident = $num:literal, $text:literal, $ndst:literal; )*) => {
        /// An instruction opcode. One table gives each its listing spelling (without modifiers),
        /// its token opcode number and its number of destination operands.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[$doc])* #[doc = concat!("`", $text, "` (token ", stringify!($num), ")")] $v, )*
        }

        impl Opcode {
            /// Every opcode of the table, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$v),*];

            /// The listing spelling, without modifiers (`ld_structured`, `if`, `sync`).
            pub fn text(self) -> &'static str {
                match self { $(Opcode::$v => $text,)* }
            }

            /// The token opcode number (bits 0..11 of the opcode token).
            pub fn token(self) -> u32 {
                match self { $(Opcode::$v => $num,)* }
            }

            /// How many of the leading operands are destinations (written through a mask).
            pub fn dst_count(self) -> usize {
                match self { $(Opcode::$v => $ndst,)* }
            }

            /// The opcode with this token number, if the table has it.
            pub fn from_token(num: u32) -> Option<Opcode> {
                match num { $($num => Some(Opcode::$v),)* _ => None }
            }

            /// The opcode with this spelling; also accepts the instruction pages' own spellings
            /// (`ld2dms` for `ldms`).
            pub fn from_text(text: &str) -> Option<Opcode> {
                match text {
                    $($text => Some(Opcode::$v),)*
                    "ld2dms" => Some(Opcode::LdMs),
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    Add = 0, "add", 1;
    And = 1, "and", 1;
    Break = 2, "break", 0;
    Breakc = 3, "breakc", 0;
    Call = 4, "call", 0;
    Callc = 5, "callc", 0;
    Case = 6, "case", 0;
    Continue = 7, "continue", 0;
    Continuec = 8, "continuec", 0;
    Cut = 9, "cut", 0;
    Default = 10, "default", 0;
    DerivRtx = 11, "deriv_rtx", 1;
    DerivRty = 12, "deriv_rty", 1;
    Discard = 13, "discard", 0;
    Div = 14, "div", 1;
    Dp2 = 15, "dp2", 1;
    Dp3 = 16, "dp3", 1;
    Dp4 = 17, "dp4", 1;
    Else = 18, "else", 0;
    Emit = 19, "emit", 0;
    EmitThenCut = 20, "emitthencut", 0;
    EndIf = 21, "endif", 0;
    EndLoop = 22, "endloop", 0;
    EndSwitch = 23, "endswitch", 0;
    Eq = 24, "eq", 1;
    Exp = 25, "exp", 1;
    Frc = 26, "frc", 1;
    Ftoi = 27, "ftoi", 1;
    Ftou = 28, "ftou", 1;
    Ge = 29, "ge", 1;
    Iadd = 30, "iadd", 1;
    If = 31, "if", 0;
    Ieq = 32, "ieq", 1;
    Ige = 33, "ige", 1;
    Ilt = 34, "ilt", 1;
    Imad = 35, "imad", 1;
    Imax = 36, "imax", 1;
    Imin = 37, "imin", 1;
    Imul = 38, "imul", 2;
    Ine = 39, "ine", 1;
    Ineg = 40, "ineg", 1;
    Ishl = 41, "ishl", 1;
    Ishr = 42, "ishr", 1;
    Itof = 43, "itof", 1;
    Label = 44, "label", 0;
    Ld = 45, "ld", 1;
    LdMs = 46, "ldms", 1;
    Log = 47, "log", 1;
    Loop = 48, "loop", 0;
    Lt = 49, "lt", 1;
    Mad = 50, "mad", 1;
    Min = 51, "min", 1;
    Max = 52, "max", 1;
    Mov = 54, "mov", 1;
    Movc = 55, "movc", 1;
    Mul = 56, "mul", 1;
    Ne = 57, "ne", 1;
    Nop = 58, "nop", 0;
    Not = 59, "not", 1;
    Or = 60, "or", 1;
    ResInfo = 61, "resinfo", 1;
    Ret = 62, "ret", 0;
    Retc = 63, "retc", 0;
    RoundNe = 64, "round_ne", 1;
    RoundNi = 65, "round_ni", 1;
    RoundPi = 66, "round_pi", 1;
    RoundZ = 67, "round_z", 1;
    Rsq = 68, "rsq", 1;
    Sample = 69, "sample", 1;
    SampleC = 70, "sample_c", 1;
    SampleCLz = 71, "sample_c_lz", 1;
    SampleL = 72, "sample_l", 1;
    SampleD = 73, "sample_d", 1;
    SampleB = 74, "sample_b", 1;
    Sqrt = 75, "sqrt", 1;
    Switch = 76, "switch", 0;
    Sincos = 77, "sincos", 2;
    Udiv = 78, "udiv", 2;
    Ult = 79, "ult", 1;
    Uge = 80, "uge", 1;
    Umul = 81, "umul", 2;
    Umad = 82, "umad", 1;
    Umax = 83, "umax", 1;
    Umin = 84, "umin", 1;
    Ushr = 85, "ushr", 1;
    Utof = 86, "utof", 1;
    Xor = 87, "xor", 1;
    Lod = 108, "lod", 1;
    Gather4 = 109, "gather4", 1;
    SamplePos = 110, "samplepos", 1;
    SampleInfo = 111, "sampleinfo", 1;
    HsDecls = 113, "hs_decls", 0;
    HsControlPointPhase = 114, "hs_control_point_phase", 0;
    HsForkPhase = 115, "hs_fork_phase", 0;
    HsJoinPhase = 116, "hs_join_phase", 0;
    EmitStream = 117, "emit_stream", 0;
    CutStream = 118, "cut_stream", 0;
    EmitThenCutStream = 119, "emitthencut_stream", 0;
    BufInfo = 121, "bufinfo", 1;
    DerivRtxCoarse = 122, "deriv_rtx_coarse", 1;
    DerivRtxFine = 123, "deriv_rtx_fine", 1;
    DerivRtyCoarse = 124, "deriv_rty_coarse", 1;
    DerivRtyFine = 125, "deriv_rty_fine", 1;
    Gather4C = 126, "gather4_c", 1;
    Gather4Po = 127, "gather4_po", 1;
    Gather4PoC = 128, "gather4_po_c", 1;
    Rcp = 129, "rcp", 1;
    F32ToF16 = 130, "f32tof16", 1;
    F16ToF32 = 131, "f16tof32", 1;
    Uaddc = 132, "uaddc", 2;
    Usubb = 133, "usubb", 2;
    CountBits = 134, "countbits", 1;
    FirstBitHi = 135, "firstbit_hi", 1;
    FirstBitLo = 136, "firstbit_lo", 1;
    FirstBitShi = 137, "firstbit_shi", 1;
    Ubfe = 138, "ubfe", 1;
    Ibfe = 139, "ibfe", 1;
    Bfi = 140, "bfi", 1;
    Bfrev = 141, "bfrev", 1;
    Swapc = 142, "swapc", 2;
    LdUavTyped = 163, "ld_uav_typed", 1;
    StoreUavTyped = 164, "store_uav_typed", 1;
    LdRaw = 165, "ld_raw", 1;
    StoreRaw = 166, "store_raw", 1;
    LdStructured = 167, "ld_structured", 1;
    StoreStructured = 168, "store_structured", 1;
    AtomicAnd = 169, "atomic_and", 1;
    AtomicOr = 170, "atomic_or", 1;
    AtomicXor = 171, "atomic_xor", 1;
    AtomicCmpStore = 172, "atomic_cmp_store", 1;
    AtomicIadd = 173, "atomic_iadd", 1;
    AtomicImax = 174, "atomic_imax", 1;
    AtomicImin = 175, "atomic_imin", 1;
    AtomicUmax = 176, "atomic_umax", 1;
    AtomicUmin = 177, "atomic_umin", 1;
    ImmAtomicAlloc = 178, "imm_atomic_alloc", 1;
    ImmAtomicConsume = 179, "imm_atomic_consume", 1;
    ImmAtomicIadd = 180, "imm_atomic_iadd", 2;
    ImmAtomicAnd = 181, "imm_atomic_and", 2;
    ImmAtomicOr = 182, "imm_atomic_or", 2;
    ImmAtomicXor = 183, "imm_atomic_xor", 2;
    ImmAtomicExch = 184, "imm_atomic_exch", 2;
    ImmAtomicCmpExch = 185, "imm_atomic_cmp_exch", 2;
    ImmAtomicImax = 186, "imm_atomic_imax", 2;
    ImmAtomicImin = 187, "imm_atomic_imin", 2;
    ImmAtomicUmax = 188, "imm_atomic_umax", 2;
    ImmAtomicUmin = 189, "imm_atomic_umin", 2;
    Sync = 190, "sync", 0;
    Dadd = 191, "dadd", 1;
    Dmax = 192, "dmax", 1;
    Dmin = 193, "dmin", 1;
    Dmul = 194, "dmul", 1;
    Deq = 195, "deq", 1;
    Dge = 196, "dge", 1;
    Dlt = 197, "dlt", 1;
    Dne = 198, "dne", 1;
    Dmov = 199, "dmov", 1;
    Dmovc = 200, "dmovc", 1;
    Dtof = 201, "dtof", 1;
    Ftod = 202, "ftod", 1;
    EvalSnapped = 203, "eval_snapped", 1;
    EvalSampleIndex = 204, "eval_sample_index", 1;
    EvalCentroid = 205, "eval_centroid", 1;
    Abort = 207, "abort", 0;
    DebugBreak = 208, "debug_break", 0;
    Ddiv = 210, "ddiv", 1;
    Dfma = 211, "dfma", 1;
    Drcp = 212, "drcp", 1;
    Msad = 213, "msad", 1;
    Dtoi = 214, "dtoi", 1;
    Dtou = 215, "dtou", 1;
    Itod = 216, "itod", 1;
    Utod = 217, "utod", 1;
}

impl Opcode {
    /// Whether the opcode takes a `_z` / `_nz` test (`if_nz`, `breakc_z`, ...): it must have one.
    pub fn takes_test(self) -> bool {
        matches!(
            self,
            Opcode::If
                | Opcode::Breakc
                | Opcode::Continuec
                | Opcode::Retc
                | Opcode::Discard
                | Opcode::Callc
        )
    }
}

/// The `_z` / `_nz` test of a conditional instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Test {
    /// `_z`: taken when the selected component is zero.
    Zero,
    /// `_nz`: taken when it is non-zero.
    NonZero,
}

/// A resource dimension, as `dcl_resource_*`, `dcl_uav_typed_*` and `_indexable(...)` spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceDim {
    /// `unknown` (0).
    Unknown,
    /// `buffer`.
    Buffer,
    /// `texture1d`.
    Texture1D,
    /// `texture2d`.
    Texture2D,
    /// `texture2dms`.
    Texture2DMs,
    /// `texture3d`.
    Texture3D,
    /// `texturecube`.
    TextureCube,
    /// `texture1darray`.
    Texture1DArray,
    /// `texture2darray`.
    Texture2DArray,
    /// `texture2dmsarray`.
    Texture2DMsArray,
    /// `texturecubearray`.
    TextureCubeArray,
    /// `raw_buffer`.
    RawBuffer,
    /// `structured_buffer`.
    StructuredBuffer,
}

impl ResourceDim {
    /// Every dimension, in token order.
    pub const ALL: [ResourceDim; 13] = [
        ResourceDim::Unknown,
        ResourceDim::Buffer,
        ResourceDim::Texture1D,
        ResourceDim::Texture2D,
        ResourceDim::Texture2DMs,
        ResourceDim::Texture3D,
        ResourceDim::TextureCube,
        ResourceDim::Texture1DArray,
        ResourceDim::Texture2DArray,
        ResourceDim::Texture2DMsArray,
        ResourceDim::TextureCubeArray,
        ResourceDim::RawBuffer,
        ResourceDim::StructuredBuffer,
    ];

    /// The listing spelling.
    pub fn text(self) -> &'static str {
        match self {
            ResourceDim::Unknown => "unknown",
            ResourceDim::Buffer => "buffer",
            ResourceDim::Texture1D => "texture1d",
            ResourceDim::Texture2D => "texture2d",
            ResourceDim::Texture2DMs => "texture2dms",
            ResourceDim::Texture3D => "texture3d",
            ResourceDim::TextureCube => "texturecube",
            ResourceDim::Texture1DArray => "texture1darray",
            ResourceDim::Texture2DArray => "texture2darray",
            ResourceDim::Texture2DMsArray => "texture2dmsarray",
            ResourceDim::TextureCubeArray => "texturecubearray",
            ResourceDim::RawBuffer => "raw_buffer",
            ResourceDim::StructuredBuffer => "structured_buffer",
        }
    }

    /// The token value.
    pub fn token(self) -> u32 {
        ResourceDim::ALL
            .iter()
            .position(|&d| d == self)
            .unwrap_or(0) as u32
    }

    /// The dimension with this token value.
    pub fn from_token(v: u32) -> Option<ResourceDim> {
        ResourceDim::ALL.get(v as usize).copied()
    }

    /// The dimension with this spelling.
    pub fn from_text(s: &str) -> Option<ResourceDim> {
        ResourceDim::ALL.iter().copied().find(|d| d.text() == s)
    }

    /// Whether a declaration of this dimension carries a sample count (`texture2dms(4)`).
    pub fn is_multisample(self) -> bool {
        matches!(
            self,
            ResourceDim::Texture2DMs | ResourceDim::Texture2DMsArray
        )
    }
}

/// A per-component return type: `(float,float,float,float)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnType {
    /// `unorm` (1).
    Unorm,
    /// `snorm` (2).
    Snorm,
    /// `sint` (3).
    Sint,
    /// `uint` (4).
    Uint,
    /// `float` (5).
    Float,
    /// `mixed` (6).
    Mixed,
    /// `double` (7).
    Double,
    /// `continued` (8).
    Continued,
    /// `unused` (9).
    Unused,
}

impl ReturnType {
    /// Every return type, in token order from 1.
    pub const ALL: [ReturnType; 9] = [
        ReturnType::Unorm,
        ReturnType::Snorm,
        ReturnType::Sint,
        ReturnType::Uint,
        ReturnType::Float,
        ReturnType::Mixed,
        ReturnType::Double,
        ReturnType::Continued,
        ReturnType::Unused,
    ];

    /// The listing spelling.
    pub fn text(self) -> &'static str {
        match self {
            ReturnType::Unorm => "unorm",
            ReturnType::Snorm => "snorm",
            ReturnType::Sint => "sint",
            ReturnType::Uint => "uint",
            ReturnType::Float => "float",
            ReturnType::Mixed => "mixed",
            ReturnType::Double => "double",
            ReturnType::Continued => "continued",
            ReturnType::Unused => "unused",
        }
    }

    /// The 4-bit token value.
    pub fn token(self) -> u32 {
        ReturnType::ALL.iter().position(|&r| r == self).unwrap_or(0) as u32 + 1
    }

    /// The return type with this token value.
    pub fn from_token(v: u32) -> Option<ReturnType> {
        (v as usize)
            .checked_sub(1)
            .and_then(|i| ReturnType::ALL.get(i).copied())
    }

    /// The return type with this spelling.
    pub fn from_text(s: &str) -> Option<ReturnType> {
        ReturnType::ALL.iter().copied().find(|r| r.text() == s)
    }
}

/// The `_indexable(dim[, stride=N])` part of a resource instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceInfo {
    /// The resource dimension.
    pub dim: ResourceDim,
    /// The structure stride in bytes (`stride=16`; 0 when not printed).
    pub stride: u32,
}

/// What `resinfo` and `sampleinfo` return: `_uint`, `_rcpFloat`, or floats (no suffix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum InfoReturn {
    /// No suffix: floats.
    #[default]
    Float,
    /// `_rcpFloat` (resinfo only).
    RcpFloat,
    /// `_uint`.
    Uint,
}

/// The flags of `sync` (`sync_uglobal_g_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SyncFlags {
    /// `_t`: wait for every thread of the group.
    pub threads: bool,
    /// `_g`: thread group shared memory fence.
    pub tgsm: bool,
    /// `_ugroup`: UAV fence, group scope.
    pub uav_group: bool,
    /// `_uglobal`: UAV fence, global scope.
    pub uav_global: bool,
}

/// One instruction with its modifiers and operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The opcode.
    pub opcode: Opcode,
    /// `_sat`.
    pub saturate: bool,
    /// `_z` / `_nz` (exactly for the opcodes that [take one](Opcode::takes_test)).
    pub test: Option<Test>,
    /// `_aoffimmi(u,v,w)` (or D3DCompiler_43's bare `(u,v,w)`): 4-bit two's-complement offsets.
    pub offsets: Option<[i8; 3]>,
    /// `_indexable(dim[, stride=N])`.
    pub resource: Option<ResourceInfo>,
    /// The `(float,float,float,float)` group that follows `_indexable(...)`.
    pub return_type: Option<[ReturnType; 4]>,
    /// `resinfo_uint`, `resinfo_rcpFloat`, `sampleinfo_uint`.
    pub info_return: InfoReturn,
    /// `sync` flags.
    pub sync: SyncFlags,
    /// Operands: the [destinations](Opcode::dst_count) first.
    pub operands: Vec<Operand>,
}

impl Inst {
    /// An instruction with no modifiers.
    pub fn new(opcode: Opcode, operands: Vec<Operand>) -> Inst {
        Inst {
            opcode,
            saturate: false,
            test: None,
            offsets: None,
            resource: None,
            return_type: None,
            info_return: InfoReturn::Float,
            sync: SyncFlags::default(),
            operands,
        }
    }
}

macro_rules! reg_files {
    ($( $v:ident = $num:literal, $text:literal; )*) => {
        /// A register file (operand type): the letters before a register number.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RegFile {
            $( #[doc = concat!("`", $text, "` (operand type ", stringify!($num), ")")] $v, )*
        }

        impl RegFile {
            /// Every register file.
            pub const ALL: &'static [RegFile] = &[$(RegFile::$v),*];

            /// The listing spelling.
            pub fn text(self) -> &'static str {
                match self { $(RegFile::$v => $text,)* }
            }

            /// The operand type of the operand token.
            pub fn token(self) -> u32 {
                match self { $(RegFile::$v => $num,)* }
            }

            /// The register file with this operand type.
            pub fn from_token(v: u32) -> Option<RegFile> {
                match v { $($num => Some(RegFile::$v),)* _ => None }
            }

            /// The register file with this spelling (`CB` as fxc declares it is `cb`).
            pub fn from_text(s: &str) -> Option<RegFile> {
                match s { $($text => Some(RegFile::$v),)* "CB" => Some(RegFile::ConstantBuffer), _ => None }
            }
        }
    };
}

reg_files! {
    Temp = 0, "r";
    Input = 1, "v";
    Output = 2, "o";
    IndexableTemp = 3, "x";
    Sampler = 6, "s";
    Resource = 7, "t";
    ConstantBuffer = 8, "cb";
    ImmediateConstantBuffer = 9, "icb";
    Label = 10, "l";
    InputPrimitiveId = 11, "vPrim";
    OutputDepth = 12, "oDepth";
    Null = 13, "null";
    Rasterizer = 14, "rasterizer";
    OutputCoverageMask = 15, "oMask";
    Stream = 16, "m";
    FunctionBody = 17, "fb";
    FunctionTable = 18, "ft";
    Interface = 19, "fp";
    FunctionInput = 20, "fi";
    FunctionOutput = 21, "fo";
    OutputControlPointId = 22, "vOutputControlPointID";
    InputForkInstanceId = 23, "vForkInstanceID";
    InputJoinInstanceId = 24, "vJoinInstanceID";
    InputControlPoint = 25, "vicp";
    OutputControlPoint = 26, "vocp";
    InputPatchConstant = 27, "vpc";
    InputDomainPoint = 28, "vDomain";
    ThisPointer = 29, "this";
    Uav = 30, "u";
    Tgsm = 31, "g";
    ThreadId = 32, "vThreadID";
    ThreadGroupId = 33, "vThreadGroupID";
    ThreadIdInGroup = 34, "vThreadIDInGroup";
    InputCoverageMask = 35, "vCoverage";
    ThreadIdInGroupFlattened = 36, "vThreadIDInGroupFlattened";
    GsInstanceId = 37, "vGSInstanceID";
    OutputDepthGe = 38, "oDepthGE";
    OutputDepthLe = 39, "oDepthLE";
    CycleCounter = 40, "vCycleCounter";
    OutputStencilRef = 41, "oStencilRef";
    InnerCoverage = 42, "vInnerCoverage";
}

impl RegFile {
    /// Whether the listing writes the first index in brackets even when it is a number
    /// (`icb[3]`, `vicp[0][1]`), rather than right after the name (`r3`, `cb0[2]`).
    pub fn brackets_first_index(self) -> bool {
        matches!(
            self,
            RegFile::ImmediateConstantBuffer
                | RegFile::InputControlPoint
                | RegFile::OutputControlPoint
                | RegFile::InputPatchConstant
        )
    }

    /// Whether a register of this file has a single component when named without a selection
    /// (`oDepth`, `oMask`: the one-component outputs). Input system values such as
    /// `vThreadIDInGroupFlattened` are declared with no component and read with a selection.
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            RegFile::OutputDepth
                | RegFile::OutputCoverageMask
                | RegFile::OutputDepthGe
                | RegFile::OutputDepthLe
                | RegFile::OutputStencilRef
        )
    }
}

/// Which components of a register an operand reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Components {
    /// No components (`null`, `s0`, and registers named in declarations without a selection).
    Zero,
    /// A one-component register (`oDepth`, `vThreadIDInGroupFlattened`).
    One,
    /// A write mask of a four-component register: bit 0 = x ... bit 3 = w (`.xy`).
    Mask(u8),
    /// A four-letter swizzle: component index per lane (`.xyzw`, `.xxxx`).
    Swizzle([u8; 4]),
    /// A single selected component (`.x`), index 0..4.
    Select(u8),
}

/// A source modifier: `-x`, `|x|`, `-|x|`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Modifier {
    /// No modifier.
    #[default]
    None,
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// `-|x|`.
    AbsNeg,
}

/// One index of a register: `r3` (`Imm(3)`), `x0[r1.x + 2]` (`x0`, then `Relative(2, r1.x)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// A number.
    Imm(u32),
    /// A register component: `[r1.x]`, which fxc prints `[r1.x + 0]`.
    Reg(Box<Operand>),
    /// A register component plus a non-zero number: `[r1.x + 2]`.
    RegPlus(Box<Operand>, u32),
}

/// What an operand names: a register, or an immediate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandValue {
    /// A register of `file` with 0 to 3 `indices`.
    Reg {
        /// The register file.
        file: RegFile,
        /// The indices, outermost first (`cb0[r1.x + 2]` is `[Imm(0), RegPlus(r1.x, 2)]`).
        indices: Vec<Index>,
    },
    /// `l(a)` or `l(a, b, c, d)`: one or four 32-bit values.
    Imm32(Vec<u32>),
}

/// An operand: value, component selection, modifier.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// Register or immediate.
    pub value: OperandValue,
    /// Component selection (immediates: [`Components::Zero`], their count is their length).
    pub components: Components,
    /// Source modifier.
    pub modifier: Modifier,
}

impl Operand {
    /// A register with numeric indices and a selection.
    pub fn reg(file: RegFile, indices: &[u32], components: Components) -> Operand {
        Operand {
            value: OperandValue::Reg {
                file,
                indices: indices.iter().map(|&i| Index::Imm(i)).collect(),
            },
            components,
            modifier: Modifier::None,
        }
    }

    /// An immediate `l(...)` of one or four values.
    pub fn imm(values: &[u32]) -> Operand {
        Operand {
            value: OperandValue::Imm32(values.to_vec()),
            components: Components::Zero,
            modifier: Modifier::None,
        }
    }

    /// The register file, for a register operand.
    pub fn file(&self) -> Option<RegFile> {
        match &self.value {
            OperandValue::Reg { file, .. } => Some(*file),
            OperandValue::Imm32(_) => None,
        }
    }
}

/// The interpolation mode of a pixel shader input (`linear noperspective`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interpolation {
    /// Not given (prints nothing).
    #[default]
    Undefined,
    /// `constant`.
    Constant,
    /// `linear`.
    Linear,
    /// `linear centroid`.
    LinearCentroid,
    /// `linear noperspective`.
    LinearNoPerspective,
    /// `linear noperspective centroid`.
    LinearNoPerspectiveCentroid,
    /// `linear sample`.
    LinearSample,
    /// `linear noperspective sample`.
    LinearNoPerspectiveSample,
}

impl Interpolation {
    /// Every mode, in token order.
    pub const ALL: [Interpolation; 8] = [
        Interpolation::Undefined,
        Interpolation::Constant,
        Interpolation::Linear,
        Interpolation::LinearCentroid,
        Interpolation::LinearNoPerspective,
        Interpolation::LinearNoPerspectiveCentroid,
        Interpolation::LinearSample,
        Interpolation::LinearNoPerspectiveSample,
    ];

    /// The listing spelling (empty for `Undefined`).
    pub fn text(self) -> &'static str {
        match self {
            Interpolation::Undefined => "",
            Interpolation::Constant => "constant",
            Interpolation::Linear => "linear",
            Interpolation::LinearCentroid => "linear centroid",
            Interpolation::LinearNoPerspective => "linear noperspective",
            Interpolation::LinearNoPerspectiveCentroid => "linear noperspective centroid",
            Interpolation::LinearSample => "linear sample",
            Interpolation::LinearNoPerspectiveSample => "linear noperspective sample",
        }
    }

    /// The token value.
    pub fn token(self) -> u32 {
        Interpolation::ALL
            .iter()
            .position(|&m| m == self)
            .unwrap_or(0) as u32
    }
}

/// The system-value name of an `_sgv` / `_siv` declaration (`position`, `sampleIndex`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SystemValue(pub u32);

/// Spellings of the system values, by token value.
const SYSTEM_VALUES: [&str; 23] = [
    "undefined",
    "position",
    "clip_distance",
    "cull_distance",
    "rendertarget_array_index",
    "viewport_array_index",
    "vertex_id",
    "primitive_id",
    "instance_id",
    "is_front_face",
    "sampleIndex",
    "finalQuadUeq0EdgeTessFactor",
    "finalQuadVeq0EdgeTessFactor",
    "finalQuadUeq1EdgeTessFactor",
    "finalQuadVeq1EdgeTessFactor",
    "finalQuadUInsideTessFactor",
    "finalQuadVInsideTessFactor",
    "finalTriUeq0EdgeTessFactor",
    "finalTriVeq0EdgeTessFactor",
    "finalTriWeq0EdgeTessFactor",
    "finalTriInsideTessFactor",
    "finalLineDetailTessFactor",
    "finalLineDensityTessFactor",
];

impl SystemValue {
    /// The listing spelling, or `None` for a value without one (printed as its number).
    pub fn text(self) -> Option<&'static str> {
        SYSTEM_VALUES.get(self.0 as usize).copied()
    }

    /// The system value with this spelling.
    pub fn from_text(s: &str) -> Option<SystemValue> {
        SYSTEM_VALUES
            .iter()
            .position(|&n| n == s)
            .map(|i| SystemValue(i as u32))
    }
}

/// `_sgv` (system-generated) or `_siv` (system-interpreted) on an input or output declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SvKind {
    /// `_sgv`.
    Sgv,
    /// `_siv`.
    Siv,
}

/// The mode of `dcl_sampler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplerMode {
    /// `mode_default`.
    Default,
    /// `mode_comparison`.
    Comparison,
    /// `mode_mono`.
    Mono,
}

impl SamplerMode {
    /// Every mode, in token order.
    pub const ALL: [SamplerMode; 3] = [
        SamplerMode::Default,
        SamplerMode::Comparison,
        SamplerMode::Mono,
    ];

    /// The listing spelling.
    pub fn text(self) -> &'static str {
        match self {
            SamplerMode::Default => "mode_default",
            SamplerMode::Comparison => "mode_comparison",
            SamplerMode::Mono => "mode_mono",
        }
    }
}

/// `dcl_globalFlags` names, by bit.
pub const GLOBAL_FLAGS: [(u32, &str); 8] = [
    (1, "refactoringAllowed"),
    (2, "enableDoublePrecisionFloatOps"),
    (4, "forceEarlyDepthStencil"),
    (8, "enableRawAndStructuredBuffers"),
    (16, "skipOptimization"),
    (32, "enableMinimumPrecision"),
    (64, "enable11_1DoubleExtensions"),
    (128, "enable11_1ShaderExtensions"),
];

/// Flags of a UAV declaration (`dcl_uav_structured_glc_opc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct UavFlags {
    /// `_glc`: globally coherent.
    pub glc: bool,
    /// `_opc`: has an order-preserving counter (structured only).
    pub opc: bool,
    /// `_rov`: rasterizer ordered.
    pub rov: bool,
}

/// A declaration, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decl {
    /// `dcl_globalFlags a | b`: the flag bits ([`GLOBAL_FLAGS`]).
    GlobalFlags(u32),
    /// `dcl_constantbuffer CB0[16], immediateIndexed` (or `dynamicIndexed`).
    ConstantBuffer {
        /// The `cb#` slot.
        slot: u32,
        /// Size in 16-byte vectors.
        size: u32,
        /// `dynamicIndexed` rather than `immediateIndexed`.
        dynamic: bool,
    },
    /// `dcl_immediateConstantBuffer { { a, b, c, d}, ... }`: the rows, 4 values each.
    ImmediateConstantBuffer(Vec<[u32; 4]>),
    /// `dcl_resource_texture2dms(4) (float,float,float,float) t0`, `dcl_resource_buffer ...`.
    Resource {
        /// The `t#` slot.
        slot: u32,
        /// The dimension (not raw or structured).
        dim: ResourceDim,
        /// The sample count of a multisample texture (0: any).
        samples: u32,
        /// The return type per component.
        return_type: [ReturnType; 4],
    },
    /// `dcl_resource_raw t0`.
    ResourceRaw {
        /// The `t#` slot.
        slot: u32,
    },
    /// `dcl_resource_structured t0, 16`.
    ResourceStructured {
        /// The `t#` slot.
        slot: u32,
        /// Structure stride in bytes.
        stride: u32,
    },
    /// `dcl_uav_typed_texture2d (float,float,float,float) u0`.
    UavTyped {
        /// The `u#` slot.
        slot: u32,
        /// The dimension.
        dim: ResourceDim,
        /// The return type per component.
        return_type: [ReturnType; 4],
        /// Flags.
        flags: UavFlags,
    },
    /// `dcl_uav_raw u0`.
    UavRaw {
        /// The `u#` slot.
        slot: u32,
        /// Flags.
        flags: UavFlags,
    },
    /// `dcl_uav_structured u0, 16`.
    UavStructured {
        /// The `u#` slot.
        slot: u32,
        /// Structure stride in bytes.
        stride: u32,
        /// Flags.
        flags: UavFlags,
    },
    /// `dcl_tgsm_raw g0, 1024` (bytes).
    TgsmRaw {
        /// The `g#` slot.
        slot: u32,
        /// Size in bytes.
        bytes: u32,
    },
    /// `dcl_tgsm_structured g0, 16, 256` (stride, count).
    TgsmStructured {
        /// The `g#` slot.
        slot: u32,
        /// Structure stride in bytes.
        stride: u32,
        /// Number of structures.
        count: u32,
    },
    /// `dcl_sampler s0, mode_default`.
    Sampler {
        /// The `s#` slot.
        slot: u32,
        /// The mode.
        mode: SamplerMode,
    },
    /// `dcl_input v0.xy`, `dcl_input_sgv v0.x, vertex_id`,
    /// `dcl_input_ps_siv linear noperspective v0.xy, position`, `dcl_input vThreadID.xy`.
    Input {
        /// `dcl_input_ps*` (pixel shader form, with an interpolation mode).
        ps: bool,
        /// The interpolation mode (`ps` only).
        interpolation: Interpolation,
        /// The register and its mask.
        reg: Operand,
        /// The system value of `_sgv` / `_siv`.
        sv: Option<(SvKind, SystemValue)>,
    },
    /// `dcl_output o0.xyzw`, `dcl_output_siv o0.xyzw, position`, `dcl_output oDepth`.
    Output {
        /// The register and its mask.
        reg: Operand,
        /// The system value of `_sgv` / `_siv`.
        sv: Option<(SvKind, SystemValue)>,
    },
    /// `dcl_temps 4`.
    Temps(u32),
    /// `dcl_indexableTemp x0[16], 4`.
    IndexableTemp {
        /// The `x#` register.
        reg: u32,
        /// Number of elements.
        size: u32,
        /// Components per element (1..4).
        components: u32,
    },
    /// `dcl_thread_group 64, 1, 1`.
    ThreadGroup([u32; 3]),
    /// `dcl_inputprimitive triangle` (geometry shaders).
    InputPrimitive(Primitive),
    /// `dcl_outputtopology trianglestrip` (geometry shaders).
    OutputTopology(Topology),
    /// `dcl_maxout 3`: the most vertices a geometry shader invocation emits.
    MaxOutputVertexCount(u32),
    /// `dcl_gsinstances 2`.
    GsInstanceCount(u32),
    /// `dcl_stream m0`.
    Stream(u32),
}

/// The input primitive of a geometry shader (token value; 8 + n - 1 is an n-control-point patch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Primitive(pub u32);

const PRIMITIVES: [(u32, &str); 6] = [
    (0, "undefined"),
    (1, "point"),
    (2, "line"),
    (3, "triangle"),
    (6, "lineadj"),
    (7, "triangleadj"),
];

impl Primitive {
    /// The listing spelling, or `None` for a value printed as its number.
    pub fn text(self) -> Option<&'static str> {
        PRIMITIVES
            .iter()
            .find(|(v, _)| *v == self.0)
            .map(|(_, n)| *n)
    }

    /// The primitive with this spelling.
    pub fn from_text(s: &str) -> Option<Primitive> {
        PRIMITIVES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(v, _)| Primitive(*v))
    }
}

/// The output topology of a geometry shader (token value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Topology(pub u32);

const TOPOLOGIES: [(u32, &str); 10] = [
    (0, "undefined"),
    (1, "pointlist"),
    (2, "linelist"),
    (3, "linestrip"),
    (4, "trianglelist"),
    (5, "trianglestrip"),
    (10, "linelistadj"),
    (11, "linestripadj"),
    (12, "trianglelistadj"),
    (13, "trianglestripadj"),
];

impl Topology {
    /// The listing spelling, or `None` for a value printed as its number.
    pub fn text(self) -> Option<&'static str> {
        TOPOLOGIES
            .iter()
            .find(|(v, _)| *v == self.0)
            .map(|(_, n)| *n)
    }

    /// The topology with this spelling.
    pub fn from_text(s: &str) -> Option<Topology> {
        TOPOLOGIES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(v, _)| Topology(*v))
    }
}
