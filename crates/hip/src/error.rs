//! HIP error codes (the values of `hipError_t` in HIP 5.2's hip_runtime_api.h), their names and strings,
//! and how a call ends: an error code for the program, or the process stopped (unsupported feature, a
//! kernel that faults, a host/device mismatch).

/// `hipError_t` values this runtime returns.
pub mod code {
    pub const SUCCESS: i32 = 0;
    pub const INVALID_VALUE: i32 = 1;
    pub const OUT_OF_MEMORY: i32 = 2;
    pub const INVALID_CONFIGURATION: i32 = 9;
    pub const INVALID_PITCH: i32 = 12;
    pub const INVALID_SYMBOL: i32 = 13;
    pub const INVALID_DEVICE_POINTER: i32 = 17;
    pub const INVALID_MEMCPY_DIRECTION: i32 = 21;
    pub const INVALID_DEVICE_FUNCTION: i32 = 98;
    pub const NO_DEVICE: i32 = 100;
    pub const INVALID_DEVICE: i32 = 101;
    pub const INVALID_IMAGE: i32 = 200;
    pub const NO_BINARY_FOR_GPU: i32 = 209;
    pub const FILE_NOT_FOUND: i32 = 301;
    pub const INVALID_HANDLE: i32 = 400;
    pub const NOT_FOUND: i32 = 500;
    pub const NOT_READY: i32 = 600;
    pub const LAUNCH_FAILURE: i32 = 719;
    pub const NOT_SUPPORTED: i32 = 801;
    pub const UNKNOWN: i32 = 999;
}

/// `hipGetErrorName`: the enumerator's name (NUL-terminated, static).
pub fn name(e: i32) -> &'static [u8] {
    match e {
        code::SUCCESS => b"hipSuccess\0",
        code::INVALID_VALUE => b"hipErrorInvalidValue\0",
        code::OUT_OF_MEMORY => b"hipErrorOutOfMemory\0",
        3 => b"hipErrorNotInitialized\0",
        code::INVALID_CONFIGURATION => b"hipErrorInvalidConfiguration\0",
        code::INVALID_PITCH => b"hipErrorInvalidPitchValue\0",
        code::INVALID_SYMBOL => b"hipErrorInvalidSymbol\0",
        code::INVALID_DEVICE_POINTER => b"hipErrorInvalidDevicePointer\0",
        code::INVALID_MEMCPY_DIRECTION => b"hipErrorInvalidMemcpyDirection\0",
        code::INVALID_DEVICE_FUNCTION => b"hipErrorInvalidDeviceFunction\0",
        code::NO_DEVICE => b"hipErrorNoDevice\0",
        code::INVALID_DEVICE => b"hipErrorInvalidDevice\0",
        code::INVALID_IMAGE => b"hipErrorInvalidImage\0",
        code::NO_BINARY_FOR_GPU => b"hipErrorNoBinaryForGpu\0",
        code::FILE_NOT_FOUND => b"hipErrorFileNotFound\0",
        code::INVALID_HANDLE => b"hipErrorInvalidHandle\0",
        code::NOT_FOUND => b"hipErrorNotFound\0",
        code::NOT_READY => b"hipErrorNotReady\0",
        code::LAUNCH_FAILURE => b"hipErrorLaunchFailure\0",
        code::NOT_SUPPORTED => b"hipErrorNotSupported\0",
        code::UNKNOWN => b"hipErrorUnknown\0",
        _ => b"hipErrorUnknown\0",
    }
}

/// `hipGetErrorString`: a sentence (NUL-terminated, static).
pub fn string(e: i32) -> &'static [u8] {
    match e {
        code::SUCCESS => b"no error\0",
        code::INVALID_VALUE => b"invalid argument\0",
        code::OUT_OF_MEMORY => b"out of memory\0",
        code::INVALID_CONFIGURATION => b"invalid configuration argument\0",
        code::INVALID_PITCH => b"invalid pitch argument\0",
        code::INVALID_SYMBOL => b"invalid device symbol\0",
        code::INVALID_DEVICE_POINTER => b"invalid device pointer\0",
        code::INVALID_MEMCPY_DIRECTION => b"invalid copy direction for memcpy\0",
        code::INVALID_DEVICE_FUNCTION => b"invalid device function\0",
        code::NO_DEVICE => b"no ROCm-capable device is detected\0",
        code::INVALID_DEVICE => b"invalid device ordinal\0",
        code::INVALID_IMAGE => b"device kernel image is invalid\0",
        code::NO_BINARY_FOR_GPU => b"no kernel image is available for execution on the device\0",
        code::FILE_NOT_FOUND => b"file not found\0",
        code::INVALID_HANDLE => b"invalid resource handle\0",
        code::NOT_FOUND => b"named symbol not found\0",
        code::NOT_READY => b"device not ready\0",
        code::LAUNCH_FAILURE => b"unspecified launch failure\0",
        code::NOT_SUPPORTED => b"operation not supported\0",
        _ => b"unknown error\0",
    }
}

/// How a runtime call fails.
#[derive(Debug)]
pub enum Failure {
    /// Returned to the program as a `hipError_t` (and kept as the last error).
    Code(i32),
    /// The process stops with this message and exit status 2: an unsupported call or feature, a kernel the
    /// translator refuses, a kernel that faults (as a GPU memory fault would end the process).
    Stop(String),
    /// `both`: the host evaluator and the device disagree; the process stops with exit status 1.
    Mismatch(String),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Stop(format!("{e:#}"))
    }
}

pub type Result<T> = std::result::Result<T, Failure>;

/// `Err(Failure::Code(c))`.
pub fn fail<T>(c: i32) -> Result<T> {
    Err(Failure::Code(c))
}

/// Stops: `what` is not supported by this runtime.
pub fn unsupported<T>(what: &str) -> Result<T> {
    Err(Failure::Stop(format!(
        "{what} is not supported by the rdna2spv HIP runtime"
    )))
}
