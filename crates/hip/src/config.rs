//! What `rdna2spv exec` passes the runtime, through the environment.

use crate::error::{Failure, Result};

/// Where kernels run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The host evaluator; device memory is host memory at addresses the runtime chooses.
    Host,
    /// The translated SPIR-V on a Vulkan device; device memory is Vulkan buffers at their device addresses.
    Vulkan,
    /// Every launch on the device, then on the host evaluator from the same memory, compared bit for bit.
    Both,
    /// The device where the kernel's pipeline is compiled; meanwhile the host evaluator, while a child
    /// process compiles it (D252). Device memory is Vulkan buffers, as for `Vulkan`.
    Auto,
}

/// The runtime's settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub backend: Backend,
    /// `RDNA2SPV_HIP_DEVICE`: a Vulkan device index or part of its name.
    pub device: Option<String>,
    /// `RDNA2SPV_HIP_PROFILE`: `device` (measure the device, default) or `portable`.
    pub portable: bool,
    /// `RDNA2SPV_HIP_LOG`: one line per launch on stderr.
    pub log: bool,
    /// `RDNA2SPV_HIP_CHECKED`: device launches validate every global access against the live allocations
    /// (`run --checked`): an access outside them stops the program (exit 2) instead of corrupting memory.
    pub checked: bool,
    /// `RDNA2SPV_HIP_WARMER` (`auto`): the `rdna2spv` executable that compiles a pipeline in a child
    /// process (`rdna2spv exec` sets it to itself). None: launches wait for their compile on the device.
    pub warmer: Option<std::path::PathBuf>,
    /// `RDNA2SPV_HIP_AUTO_WAIT_MS` (`auto`): how long a launch waits for its pipeline's compile before it
    /// runs on the host evaluator instead (default 0).
    pub auto_wait: std::time::Duration,
}

pub const ENV_BACKEND: &str = "RDNA2SPV_HIP_BACKEND";
pub const ENV_DEVICE: &str = "RDNA2SPV_HIP_DEVICE";
pub const ENV_PROFILE: &str = "RDNA2SPV_HIP_PROFILE";
pub const ENV_LOG: &str = "RDNA2SPV_HIP_LOG";
pub const ENV_CHECKED: &str = "RDNA2SPV_HIP_CHECKED";
pub const ENV_WARMER: &str = "RDNA2SPV_HIP_WARMER";
pub const ENV_AUTO_WAIT: &str = "RDNA2SPV_HIP_AUTO_WAIT_MS";

impl Config {
    /// Reads the environment; without `RDNA2SPV_HIP_BACKEND` the backend is `vulkan`, as a program expects a
    /// device (`rdna2spv exec` always sets it: `auto` unless `--backend` says otherwise, D254).
    pub fn from_env() -> Result<Config> {
        let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let backend = match get(ENV_BACKEND).as_deref() {
            None | Some("vulkan") => Backend::Vulkan,
            Some("host") => Backend::Host,
            Some("both") => Backend::Both,
            Some("auto") => Backend::Auto,
            Some(v) => {
                return Err(Failure::Stop(format!(
                    "{ENV_BACKEND}={v:?}: expected host, vulkan, both or auto"
                )))
            }
        };
        let auto_wait = match get(ENV_AUTO_WAIT) {
            None => std::time::Duration::ZERO,
            Some(v) => match v.parse::<u64>() {
                Ok(ms) => std::time::Duration::from_millis(ms),
                Err(_) => {
                    return Err(Failure::Stop(format!(
                        "{ENV_AUTO_WAIT}={v:?}: expected a number of milliseconds"
                    )))
                }
            },
        };
        let portable = match get(ENV_PROFILE).as_deref() {
            None | Some("device") => false,
            Some("portable") => true,
            Some(v) => {
                return Err(Failure::Stop(format!(
                    "{ENV_PROFILE}={v:?}: expected device or portable"
                )))
            }
        };
        Ok(Config {
            backend,
            device: get(ENV_DEVICE),
            portable,
            log: get(ENV_LOG).is_some_and(|v| v != "0"),
            checked: get(ENV_CHECKED).is_some_and(|v| v != "0"),
            warmer: get(ENV_WARMER).map(std::path::PathBuf::from),
            auto_wait,
        })
    }
}
