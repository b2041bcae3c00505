//! LLVM-19's AMDGPU disassembler, loaded at run time from `libLLVM.so.19.1` (Debian `libllvm19`).
//!
//! This is the independent oracle for the decoder and the printer: tests and `cargo xtask codegen` compare
//! our text and consumed length with what LLVM prints for the same bytes. The library is opened with
//! `dlopen` so that the rest of the workspace builds without LLVM; tests that need it fail loudly when it is
//! missing (CI installs `llvm-19`).
//!
//! Known LLVM 19 defect (../shared/DESIGN.md, measured): the disassembler segfaults on SDWA words whose
//! `sel` fields hold the reserved value 7 (upstream issue #215006). [`Disassembler::decode`] refuses those
//! words instead of handing them to LLVM ([`Decoded::Skipped`]).

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::sync::Mutex;

/// Where Debian puts the shared library; `RDNA2SPV_LIBLLVM` overrides it.
pub const DEFAULT_LIBRARY: &str = "/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1";

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("cannot load {path}: {source} (install Debian's llvm-19, or set RDNA2SPV_LIBLLVM)")]
    Load {
        path: String,
        source: libloading::Error,
    },
    #[error("LLVM could not create a disassembler for {cpu} (features {features:?})")]
    Create { cpu: String, features: String },
}

/// What LLVM made of the bytes at the start of a buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// LLVM consumed `size` bytes and printed `text` (leading/trailing white space removed).
    Ok { size: usize, text: String },
    /// LLVM rejected the bytes as an invalid encoding.
    Invalid,
    /// Not given to LLVM because it would crash (SDWA with a reserved sel value).
    Skipped,
}

type DisasmContextRef = *mut c_void;
type CreateFn = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    *mut c_void,
    i32,
    *const c_void,
    *const c_void,
) -> DisasmContextRef;
type DisasmFn =
    unsafe extern "C" fn(DisasmContextRef, *mut u8, u64, u64, *mut c_char, usize) -> usize;
type DisposeFn = unsafe extern "C" fn(DisasmContextRef);
type InitFn = unsafe extern "C" fn();
type SetOptionsFn = unsafe extern "C" fn(DisasmContextRef, u64) -> i32;

/// One LLVM disassembler context for one CPU (`gfx1030`, `gfx1010`, …) and feature string.
pub struct Disassembler {
    // Field order matters: the context is disposed before the library is unloaded.
    ctx: Mutex<DisasmContextRef>,
    disasm: DisasmFn,
    dispose: DisposeFn,
    _lib: libloading::Library,
}

// The context is only used under the mutex.
unsafe impl Send for Disassembler {}
unsafe impl Sync for Disassembler {}

impl Disassembler {
    /// Opens LLVM and creates a context. `features` is an LLVM feature string such as `+wavefrontsize64`.
    pub fn new(cpu: &str, features: &str) -> Result<Self, OracleError> {
        let path =
            std::env::var("RDNA2SPV_LIBLLVM").unwrap_or_else(|_| DEFAULT_LIBRARY.to_string());
        Self::with_library(Path::new(&path), cpu, features)
    }

    pub fn with_library(path: &Path, cpu: &str, features: &str) -> Result<Self, OracleError> {
        let load_err = |source| OracleError::Load {
            path: path.display().to_string(),
            source,
        };
        // LLVM's target registration is not thread-safe: `TargetRegistry::RegisterTarget` checks that the
        // target has no name yet and then links it at the head of the list, so two threads registering
        // AMDGPU at once can link it to itself, and every later `lookupTarget` loops forever (seen: the
        // differential tests' threads spinning in `lookupTarget` for 25 CPU minutes). The registration and
        // the context's creation, which looks the target up, run one thread at a time.
        static REGISTRY: Mutex<()> = Mutex::new(());
        let _registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: libLLVM's initialisers have no preconditions; the symbols have the C signatures declared above
        // (llvm-c/Disassembler.h, llvm-c/Target.h of LLVM 19).
        unsafe {
            let lib = libloading::Library::new(path).map_err(load_err)?;
            for name in [
                &b"LLVMInitializeAMDGPUTargetInfo\0"[..],
                b"LLVMInitializeAMDGPUTargetMC\0",
                b"LLVMInitializeAMDGPUDisassembler\0",
            ] {
                let init: libloading::Symbol<InitFn> = lib.get(name).map_err(load_err)?;
                init();
            }
            let create: CreateFn = *lib
                .get::<CreateFn>(b"LLVMCreateDisasmCPUFeatures\0")
                .map_err(load_err)?;
            let disasm: DisasmFn = *lib
                .get::<DisasmFn>(b"LLVMDisasmInstruction\0")
                .map_err(load_err)?;
            let dispose: DisposeFn = *lib
                .get::<DisposeFn>(b"LLVMDisasmDispose\0")
                .map_err(load_err)?;
            let set_options: SetOptionsFn = *lib
                .get::<SetOptionsFn>(b"LLVMSetDisasmOptions\0")
                .map_err(load_err)?;
            let triple = CString::new("amdgcn-amd-amdhsa").unwrap();
            let c_cpu = CString::new(cpu).unwrap();
            let c_features = CString::new(features).unwrap();
            let ctx = create(
                triple.as_ptr(),
                c_cpu.as_ptr(),
                c_features.as_ptr(),
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if ctx.is_null() {
                return Err(OracleError::Create {
                    cpu: cpu.to_string(),
                    features: features.to_string(),
                });
            }
            // Print immediates as llvm-objdump does (no option: 0).
            let _ = set_options(ctx, 0);
            Ok(Self {
                ctx: Mutex::new(ctx),
                disasm,
                dispose,
                _lib: lib,
            })
        }
    }

    /// Decodes the instruction at the start of `bytes` (at most the first 64 bytes are looked at).
    pub fn decode(&self, bytes: &[u8]) -> Decoded {
        if sdwa_would_crash(bytes) {
            return Decoded::Skipped;
        }
        let mut buf = [0u8; 64];
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        let mut out = [0 as c_char; 512];
        let ctx = self.ctx.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: ctx is a live context (disposed only in Drop); buf and out are valid for the lengths given.
        let size = unsafe {
            (self.disasm)(
                *ctx,
                buf.as_mut_ptr(),
                n as u64,
                0,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        if size == 0 {
            return Decoded::Invalid;
        }
        // SAFETY: LLVM writes a NUL-terminated string into `out`.
        let text = unsafe { CStr::from_ptr(out.as_ptr()) }
            .to_string_lossy()
            .trim()
            .to_string();
        Decoded::Ok { size, text }
    }

    /// The C API's own cost, for benchmarks: decodes the instruction at the start of `bytes` and prints it
    /// into `out` (NUL-terminated, as LLVM writes it). Returns (bytes consumed, text length); (0, 0) for an
    /// invalid encoding or one [`decode`](Self::decode) would refuse.
    pub fn disasm_into(&self, bytes: &[u8], out: &mut [u8]) -> (usize, usize) {
        if sdwa_would_crash(bytes) || out.is_empty() {
            return (0, 0);
        }
        let mut buf = [0u8; 64];
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        let ctx = self.ctx.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: ctx is a live context (disposed only in Drop); buf and out are valid for the lengths given.
        let size = unsafe {
            (self.disasm)(
                *ctx,
                buf.as_mut_ptr(),
                n as u64,
                0,
                out.as_mut_ptr().cast(),
                out.len(),
            )
        };
        if size == 0 {
            return (0, 0);
        }
        (size, out.iter().position(|&c| c == 0).unwrap_or(out.len()))
    }

    /// Decodes little-endian words.
    pub fn decode_words(&self, words: &[u32]) -> Decoded {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.decode(&bytes)
    }
}

impl Drop for Disassembler {
    fn drop(&mut self) {
        let ctx = *self.ctx.get_mut().unwrap_or_else(|e| e.into_inner());
        // SAFETY: created by LLVMCreateDisasmCPUFeatures and not yet disposed.
        unsafe { (self.dispose)(ctx) }
    }
}

/// LLVM 19 segfaults on SDWA (src0 = 0xf9 in a VOP1/VOP2/VOPC first word) whose dst_sel, src0_sel or
/// src1_sel is 7, or whose dst_unused is 3. Such words are reserved encodings.
pub fn sdwa_would_crash(bytes: &[u8]) -> bool {
    if bytes.len() < 8 {
        return false;
    }
    let w0 = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let w1 = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    let is_vop_1_2_c = (w0 >> 31) == 0 || (w0 >> 25) == 0x3f || (w0 >> 25) == 0x3e;
    // A VOPC SDWA word has no dst_sel/dst_unused: bits 8..15 hold sdst, which LLVM decodes without crashing
    // (measured with llvm-mc-19 on rocSPARSE's v_cmp_*_sdwa s23, ...).
    let vopc = (w0 >> 25) == 0x3e;
    let dst_reserved = !vopc && (((w1 >> 8) & 7) == 7 || ((w1 >> 11) & 3) == 3);
    is_vop_1_2_c
        && (w0 & 0x1ff) == 0xf9
        && (dst_reserved || ((w1 >> 16) & 7) == 7 || ((w1 >> 24) & 7) == 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_a_known_word() {
        let d = Disassembler::new("gfx1030", "").expect("libLLVM-19 must be installed");
        // v_fmac_f32_e32 v3, s0, v2 (saxpy, ../shared/research/feasibility-amd-binaries.md §1.4)
        assert_eq!(
            d.decode_words(&[0x5606_0400]),
            Decoded::Ok {
                size: 4,
                text: "v_fmac_f32_e32 v3, s0, v2".into()
            }
        );
        assert_eq!(d.decode_words(&[0xffff_ffff]), Decoded::Invalid);
        assert_eq!(
            d.decode_words(&[0x7e02_02f9, 0x0006_0702]),
            Decoded::Skipped
        );
    }
}
