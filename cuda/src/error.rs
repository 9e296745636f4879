//! `CUresult` values as the driver's functions return them.

use crate::abi::consts as c;
use crate::abi::CUresult;

/// What a driver function's body returns: `Ok` is `CUDA_SUCCESS`.
pub type Res<T = ()> = Result<T, CUresult>;

macro_rules! codes {
    ($($name:ident = $c:ident,)*) => {
        $(
            #[doc = concat!("`", stringify!($c), "`.")]
            pub const $name: CUresult = c::$c as CUresult;
        )*
    };
}

codes! {
    SUCCESS = CUDA_SUCCESS,
    INVALID_VALUE = CUDA_ERROR_INVALID_VALUE,
    OUT_OF_MEMORY = CUDA_ERROR_OUT_OF_MEMORY,
    NOT_INITIALIZED = CUDA_ERROR_NOT_INITIALIZED,
    DEINITIALIZED = CUDA_ERROR_DEINITIALIZED,
    NO_DEVICE = CUDA_ERROR_NO_DEVICE,
    INVALID_DEVICE = CUDA_ERROR_INVALID_DEVICE,
    INVALID_IMAGE = CUDA_ERROR_INVALID_IMAGE,
    INVALID_CONTEXT = CUDA_ERROR_INVALID_CONTEXT,
    NO_BINARY_FOR_GPU = CUDA_ERROR_NO_BINARY_FOR_GPU,
    INVALID_PTX = CUDA_ERROR_INVALID_PTX,
    JIT_COMPILER_NOT_FOUND = CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
    UNSUPPORTED_PTX_VERSION = CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
    FILE_NOT_FOUND = CUDA_ERROR_FILE_NOT_FOUND,
    INVALID_HANDLE = CUDA_ERROR_INVALID_HANDLE,
    NOT_FOUND = CUDA_ERROR_NOT_FOUND,
    NOT_READY = CUDA_ERROR_NOT_READY,
    ILLEGAL_ADDRESS = CUDA_ERROR_ILLEGAL_ADDRESS,
    LAUNCH_OUT_OF_RESOURCES = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
    LAUNCH_TIMEOUT = CUDA_ERROR_LAUNCH_TIMEOUT,
    PRIMARY_CONTEXT_ACTIVE = CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
    CONTEXT_IS_DESTROYED = CUDA_ERROR_CONTEXT_IS_DESTROYED,
    HOST_MEMORY_ALREADY_REGISTERED = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
    HOST_MEMORY_NOT_REGISTERED = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
    HARDWARE_STACK_ERROR = CUDA_ERROR_HARDWARE_STACK_ERROR,
    MISALIGNED_ADDRESS = CUDA_ERROR_MISALIGNED_ADDRESS,
    INVALID_PC = CUDA_ERROR_INVALID_PC,
    LAUNCH_FAILED = CUDA_ERROR_LAUNCH_FAILED,
    ASSERT = CUDA_ERROR_ASSERT,
    COOPERATIVE_LAUNCH_TOO_LARGE = CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
    NOT_PERMITTED = CUDA_ERROR_NOT_PERMITTED,
    NOT_SUPPORTED = CUDA_ERROR_NOT_SUPPORTED,
    UNKNOWN = CUDA_ERROR_UNKNOWN,
    PEER_ACCESS_UNSUPPORTED = CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
    INVALID_SOURCE = CUDA_ERROR_INVALID_SOURCE,
    UNSUPPORTED_LIMIT = CUDA_ERROR_UNSUPPORTED_LIMIT,
    MAP_FAILED = CUDA_ERROR_MAP_FAILED,
}

/// The text `cuGetErrorString` gives for `code` (warpjit's own words), if it is a `CUresult`.
pub fn description(code: CUresult) -> Option<&'static str> {
    let name = crate::abi::error_name(code)?;
    Some(match name {
        "CUDA_SUCCESS" => "no error",
        "CUDA_ERROR_INVALID_VALUE" => "invalid argument",
        "CUDA_ERROR_OUT_OF_MEMORY" => "out of memory",
        "CUDA_ERROR_NOT_INITIALIZED" => "initialization error (cuInit has not been called)",
        "CUDA_ERROR_DEINITIALIZED" => "driver shutting down",
        "CUDA_ERROR_NO_DEVICE" => "no CUDA-capable device is detected",
        "CUDA_ERROR_INVALID_DEVICE" => "invalid device ordinal",
        "CUDA_ERROR_INVALID_IMAGE" => "device kernel image is invalid",
        "CUDA_ERROR_INVALID_CONTEXT" => "invalid device context",
        "CUDA_ERROR_NO_BINARY_FOR_GPU" => "no kernel image is available for execution on the device",
        "CUDA_ERROR_INVALID_PTX" => "a PTX JIT compilation failed",
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" => "PTX JIT compiler library not found (warpjit needs NVIDIA's ptxas: on PATH, in WARPJIT_PTXAS, or from the nvidia-cuda-nvcc-cu12 wheel)",
        "CUDA_ERROR_INVALID_HANDLE" => "invalid resource handle",
        "CUDA_ERROR_NOT_FOUND" => "named symbol not found",
        "CUDA_ERROR_NOT_READY" => "device not ready",
        "CUDA_ERROR_ILLEGAL_ADDRESS" => "an illegal memory access was encountered",
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" => "too many resources requested for launch",
        "CUDA_ERROR_LAUNCH_TIMEOUT" => "the launch timed out and was terminated (warpjit's instruction budget ran out)",
        "CUDA_ERROR_HARDWARE_STACK_ERROR" => "an illegal instruction was encountered (stack overflow)",
        "CUDA_ERROR_MISALIGNED_ADDRESS" => "misaligned address",
        "CUDA_ERROR_INVALID_PC" => "invalid program counter",
        "CUDA_ERROR_LAUNCH_FAILED" => "unspecified launch failure",
        "CUDA_ERROR_ASSERT" => "device-side assert triggered",
        "CUDA_ERROR_NOT_SUPPORTED" => "operation not supported (by warpjit's driver)",
        "CUDA_ERROR_UNKNOWN" => "unknown error",
        _ => name,
    })
}
