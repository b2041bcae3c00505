//! The runtime's state: registered fat binaries, kernels and variables, loaded modules, device memory,
//! streams and events. One instance behind a mutex; every entry point locks it for its whole call.

use crate::config::{Backend, Config};
use crate::error::{code, fail, Result};
use crate::memory::AddressSpace;
use crate::module::{gfx1030_object, Module};
use rdna2spv_vulkan::{Context, DeviceProfile};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Where a kernel handle's code lives.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A registered fat binary (index into [`Runtime::fatbins`]).
    Fatbin(usize),
    /// A loaded module (index into [`Runtime::modules`]).
    Module(usize),
}

/// A fat binary the program registered: its bundle's bytes, loaded as a module on first use.
pub struct Fatbin {
    pub bytes: Vec<u8>,
    pub module: Option<usize>,
}

/// The device side, opened on the first call that needs memory or a launch.
pub struct Ready {
    pub config: Config,
    /// The Vulkan device and its lowering profile (Vulkan and both backends).
    pub vulkan: Option<(&'static Context, DeviceProfile)>,
    pub mem: AddressSpace,
    /// The persistent translation cache (Vulkan backends; None when turned off).
    pub disk: Option<crate::cache::DiskCache>,
    /// The Vulkan pipeline cache's file and the bytes taken from it at start (with `disk`; D160).
    pub pipelines: Option<(std::path::PathBuf, usize)>,
    /// The `auto` backend's choices and background compiles (D252).
    pub auto: Option<crate::auto::Auto>,
}

#[derive(Default)]
pub struct Runtime {
    pub ready: Option<Ready>,
    pub fatbins: Vec<Fatbin>,
    /// Loaded modules; `None` once unloaded.
    pub modules: Vec<Option<Module>>,
    /// Kernel handles (a registered host stub's address, or a `hipFunction_t`) → (code, kernel name).
    pub functions: HashMap<usize, (Source, String)>,
    /// Registered host shadow variables' addresses → (fat binary, device name).
    pub vars: HashMap<usize, (usize, String)>,
    /// `hipModule_t` handles → module index.
    pub module_handles: HashMap<usize, usize>,
    /// Fat binary handles → index.
    pub fatbin_handles: HashMap<usize, usize>,
    pub streams: std::collections::HashSet<usize>,
    /// Events: the time each was last recorded.
    pub events: HashMap<usize, Option<Instant>>,
    /// Launches so far (numbered from 1 in messages).
    pub launches: u64,
}

/// A launch configuration `__hipPushCallConfiguration` keeps for the stub's `__hipPopCallConfiguration`:
/// (grid, block, shared bytes, stream).
pub type CallConfig = ([u32; 3], [u32; 3], usize, usize);

thread_local! {
    /// Per thread, as in ROCm: a kernel stub pops what its own thread pushed.
    pub static CALL_CONFIG: std::cell::RefCell<Vec<CallConfig>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The thread's last error (`hipGetLastError`, `hipPeekAtLastError`).
    pub static LAST_ERROR: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

pub static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);

/// A fresh opaque handle (a unique, never-freed address).
pub fn new_handle() -> usize {
    Box::into_raw(Box::new(0u64)) as usize
}

impl Runtime {
    /// Opens the backend on first use (reads the configuration, opens and measures the Vulkan device).
    pub fn ready(&mut self) -> Result<&mut Ready> {
        if self.ready.is_none() {
            let config = Config::from_env()?;
            let vulkan = match config.backend {
                Backend::Host => None,
                Backend::Vulkan | Backend::Both | Backend::Auto => {
                    let ctx = rdna2spv::device::open(config.device.as_deref())?;
                    let ctx: &'static Context = Box::leak(Box::new(ctx));
                    let choice = if config.portable {
                        rdna2spv::device::ProfileChoice::Portable
                    } else {
                        rdna2spv::device::ProfileChoice::Device
                    };
                    let profile = rdna2spv::device::profile_of(ctx, choice)?;
                    Some((ctx, profile))
                }
            };
            let mem = AddressSpace::new(vulkan.as_ref().map(|(c, _)| *c));
            let disk = vulkan
                .as_ref()
                .and_then(|_| crate::cache::DiskCache::open());
            let pipelines = match (&disk, &vulkan) {
                (Some(d), Some((ctx, _))) => Some(d.load_pipelines(ctx)),
                _ => None,
            };
            let auto = (config.backend == Backend::Auto).then(|| {
                crate::auto::Auto::new(
                    config.warmer.clone(),
                    config.device.clone(),
                    config.auto_wait,
                )
            });
            self.ready = Some(Ready {
                auto,
                config,
                vulkan,
                mem,
                disk,
                pipelines,
            });
        }
        Ok(self.ready.as_mut().expect("just set"))
    }

    /// The module of a kernel or variable source, loading a fat binary's gfx1030 object on first use.
    pub fn module_of(&mut self, source: Source) -> Result<usize> {
        match source {
            Source::Module(m) => match self.modules.get(m) {
                Some(Some(_)) => Ok(m),
                _ => fail(code::INVALID_HANDLE),
            },
            Source::Fatbin(f) => {
                if let Some(m) = self.fatbins[f].module {
                    return Ok(m);
                }
                let origin = format!("fat binary {f}");
                let co = gfx1030_object(&self.fatbins[f].bytes, &origin)?;
                let index = self.modules.len();
                let bytes = std::mem::take(&mut self.fatbins[f].bytes);
                let module = Module::load(origin, co, &bytes, index, &mut self.ready()?.mem);
                self.fatbins[f].bytes = bytes;
                self.modules.push(Some(module?));
                self.fatbins[f].module = Some(index);
                Ok(index)
            }
        }
    }

    /// Loads a code object or offload bundle as a new module (`hipModuleLoad*`).
    pub fn load_module(&mut self, bytes: &[u8], origin: String) -> Result<usize> {
        let co = if rdna2spv_codeobj::bundle::is_bundle(bytes) {
            gfx1030_object(bytes, &origin)?
        } else {
            match rdna2spv_codeobj::CodeObject::parse(bytes) {
                Ok(co) => co,
                Err(e) => {
                    eprintln!("rdna2spv-hip: {origin}: {e}");
                    return fail(code::INVALID_IMAGE);
                }
            }
        };
        let index = self.modules.len();
        let module = Module::load(origin, co, bytes, index, &mut self.ready()?.mem)?;
        self.modules.push(Some(module));
        Ok(index)
    }

    /// The device address and size of a registered variable (`hipMemcpyToSymbol`'s `symbol`).
    pub fn symbol(&mut self, host_var: usize) -> Result<(u64, u64)> {
        let Some((fb, name)) = self.vars.get(&host_var).cloned() else {
            return fail(code::INVALID_SYMBOL);
        };
        let m = self.module_of(Source::Fatbin(fb))?;
        match self.modules[m].as_ref().and_then(|m| m.global(&name)) {
            Some(g) => Ok(g),
            None => fail(code::INVALID_SYMBOL),
        }
    }

    pub fn check_stream(&self, stream: usize) -> Result<()> {
        if stream == 0 || self.streams.contains(&stream) {
            Ok(())
        } else {
            fail(code::INVALID_HANDLE)
        }
    }
}

/// Runs `f` on the runtime (created on first use); the lock is released before the caller acts on a
/// [`Failure::Stop`](crate::error::Failure::Stop) (exiting runs the program's destructors, which call back into the runtime). A
/// [`Failure::Code`](crate::error::Failure::Code) becomes the thread's last error in [`crate::entry`].
pub fn with<T>(f: impl FnOnce(&mut Runtime) -> Result<T>) -> Result<T> {
    let mut guard = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    let rt = guard.get_or_insert_with(Runtime::default);
    f(rt)
}
