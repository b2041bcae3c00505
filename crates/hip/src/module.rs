//! Code objects the program brings: the gfx1030 entry of each registered fat binary (clang offload bundle)
//! and `hipModuleLoad`/`hipModuleLoadData` objects. Each module's image (D155) is placed once, at load, in
//! device memory and stays there: globals keep their values across launches, as on a GPU.

use crate::error::{code, Failure, Result};
use crate::memory::{AddressSpace, Kind};
use rdna2spv_codeobj::bundle::{self, BundleEntry};
use rdna2spv_codeobj::{CodeObject, Kernel};
use rdna2spv_ir::Program;
use std::collections::HashMap;
use std::sync::Arc;

/// The only target this runtime runs (and reports: `gcnArchName`).
pub const TARGET: &str = "gfx1030";

/// What a lowered module depends on besides the program: grid and workgroup (work-items), LDS bytes, the
/// number of allocations a checked module validates against (0: unchecked) and whether it keeps no fault
/// records (a checked launch's first run, D250).
pub type ShapeKey = ([u32; 3], [u32; 3], u32, usize, bool);

/// A kernel, lifted once when a launch needs its program (and its float mode checked then), with its
/// lowered modules by launch shape. A launch whose module comes from the persistent cache (D160) does not
/// lift it.
pub struct LiftedKernel {
    pub kernel: Kernel,
    /// None until lifted.
    pub program: Option<Program>,
    /// SPIR-V words by launch shape.
    pub lowered: HashMap<ShapeKey, Arc<Vec<u32>>>,
    /// A checked launch of it reached an allocation its launch memory does not point into (D250): its
    /// checked launches test every allocation from the first run on.
    pub reaches_further: bool,
}

/// A loaded code object.
pub struct Module {
    /// Where it came from, for messages.
    pub origin: String,
    pub co: CodeObject,
    /// A 128-bit hash of the bytes the object was loaded from (the bundle or code object): with a kernel's
    /// name, what its lifted program is a function of (the persistent cache's key, D160).
    pub digest: String,
    /// The placed image's address (None: the object has no load image).
    pub image_base: Option<u64>,
    pub kernels: HashMap<String, LiftedKernel>,
}

/// A 128-bit hex digest of `bytes` (two salted SipHash runs; the same in every run of one build).
pub fn digest(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut name = String::new();
    for salt in [0u8, 1] {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        bytes.hash(&mut h);
        name.push_str(&format!("{:016x}", h.finish()));
    }
    name
}

impl Module {
    /// Loads `co` (read from `bytes`) and places its image in `mem` (relocated for its address).
    pub fn load(
        origin: String,
        co: CodeObject,
        bytes: &[u8],
        index: usize,
        mem: &mut AddressSpace,
    ) -> Result<Module> {
        let image_base = match &co.image {
            Ok(im) => {
                let base = mem.alloc(im.size, Kind::Image(index))?;
                let bytes = im.place(base).map_err(|e| {
                    Failure::Stop(format!("{origin}: relocating the code object: {e}"))
                })?;
                mem.write(base, &bytes)?;
                Some(base)
            }
            Err(_) => None,
        };
        Ok(Module {
            origin,
            co,
            digest: digest(bytes),
            image_base,
            kernels: HashMap::new(),
        })
    }

    /// The kernel named `name` (symbol or metadata name), not lifted yet unless a launch needed it.
    pub fn entry(&mut self, name: &str) -> Result<&mut LiftedKernel> {
        if !self.kernels.contains_key(name) {
            let kernel = match self.co.kernel(name) {
                Ok(k) => k.clone(),
                Err(_) => return Err(Failure::Code(code::INVALID_DEVICE_FUNCTION)),
            };
            self.kernels.insert(
                name.to_string(),
                LiftedKernel {
                    kernel,
                    program: None,
                    lowered: HashMap::new(),
                    reaches_further: false,
                },
            );
        }
        Ok(self.kernels.get_mut(name).expect("inserted"))
    }

    /// The kernel named `name`, lifted (once).
    pub fn kernel(&mut self, name: &str) -> Result<&mut LiftedKernel> {
        self.entry(name)?;
        let lk = self.kernels.get_mut(name).expect("entered");
        if lk.program.is_none() {
            let kernel = &lk.kernel;
            let program = rdna2spv::dispatch::lift_kernel(&self.co, kernel).map_err(|e| {
                Failure::Stop(format!(
                    "{}: lifting kernel {}: {e}",
                    self.origin, kernel.name
                ))
            })?;
            lk.program = Some(program);
        }
        Ok(lk)
    }

    /// The address and size of global `name` in the placed image.
    pub fn global(&self, name: &str) -> Option<(u64, u64)> {
        let base = self.image_base?;
        let im = self.co.image.as_ref().ok()?;
        let g = im.global(name)?;
        Some((base + g.address, g.size))
    }
}

/// The gfx1030 code object of a clang offload bundle (an entry whose target id is gfx1030, with any
/// feature settings); `hipErrorNoBinaryForGpu` (with the bundle's targets on stderr) when there is none.
pub fn gfx1030_object(bytes: &[u8], origin: &str) -> Result<CodeObject> {
    let entries: Vec<BundleEntry> = bundle::extract(bytes)
        .map_err(|e| Failure::Stop(format!("{origin}: reading the offload bundle: {e}")))?;
    let Some(e) = entries.iter().find(|e| {
        e.is_amdgcn() && !e.data.is_empty() && e.target_id().split(':').next() == Some(TARGET)
    }) else {
        let triples: Vec<&str> = entries.iter().map(|e| e.triple.as_str()).collect();
        eprintln!(
            "rdna2spv-hip: {origin}: no {TARGET} code object in the fat binary (entries: {}); build with --offload-arch={TARGET}",
            triples.join(", ")
        );
        return Err(Failure::Code(code::NO_BINARY_FOR_GPU));
    };
    CodeObject::parse(e.data).map_err(|err| {
        Failure::Stop(format!(
            "{origin}: loading the {} code object: {err}",
            e.triple
        ))
    })
}

/// The length of the offload bundle at `p` (its header and the end of its furthest entry), read through
/// the pointer a program registers (`__hipRegisterFatBinary` gets no length).
///
/// # Safety
/// `p` must point to a readable clang offload bundle (what hipcc puts in `.hip_fatbin`).
pub unsafe fn bundle_len(p: *const u8) -> Result<usize> {
    let read = |at: usize| -> u64 {
        let mut w = [0u8; 8];
        // SAFETY: inside the bundle's header, which the caller vouches for.
        unsafe { std::ptr::copy_nonoverlapping(p.add(at), w.as_mut_ptr(), 8) };
        u64::from_le_bytes(w)
    };
    let mut magic = [0u8; 24];
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(p, magic.as_mut_ptr(), 24) };
    if &magic != bundle::BUNDLE_MAGIC {
        return Err(Failure::Stop(
            "__hipRegisterFatBinary: the fat binary is not a clang offload bundle (compressed bundles are not supported)".into(),
        ));
    }
    let count = read(24);
    if count > 4096 {
        return Err(Failure::Stop(format!(
            "__hipRegisterFatBinary: {count} bundle entries"
        )));
    }
    let mut at = 32usize;
    let mut end = 0u64;
    for _ in 0..count {
        let (off, size, tlen) = (read(at), read(at + 8), read(at + 16));
        if tlen > 4096 || off.checked_add(size).is_none_or(|e| e > 1 << 34) {
            return Err(Failure::Stop(
                "__hipRegisterFatBinary: a malformed offload bundle header".into(),
            ));
        }
        end = end.max(off + size);
        at += 24 + tlen as usize;
    }
    Ok(end.max(at as u64) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bundle as clang-offload-bundler lays it out (crates/codeobj/src/bundle.rs).
    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut h = bundle::BUNDLE_MAGIC.to_vec();
        h.extend((entries.len() as u64).to_le_bytes());
        let header: usize = 32 + entries.iter().map(|(t, _)| 24 + t.len()).sum::<usize>();
        let mut at = header as u64;
        let mut body: Vec<u8> = Vec::new();
        for (t, d) in entries {
            h.extend(at.to_le_bytes());
            h.extend((d.len() as u64).to_le_bytes());
            h.extend((t.len() as u64).to_le_bytes());
            h.extend(t.as_bytes());
            body.extend(*d);
            at += d.len() as u64;
        }
        h.extend(body);
        h
    }

    #[test]
    fn a_registered_bundle_is_measured_from_its_header() {
        let b = bundle(&[
            ("host-x86_64-unknown-linux", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx1030", &[7u8; 300]),
        ]);
        let mut padded = b.clone();
        padded.extend([0xaa; 100]);
        assert_eq!(unsafe { bundle_len(padded.as_ptr()) }.unwrap(), b.len());
        let mut bad = b.clone();
        bad[0] = b'X';
        assert!(matches!(
            unsafe { bundle_len(bad.as_ptr()) },
            Err(Failure::Stop(_))
        ));
    }

    #[test]
    fn a_bundle_without_gfx1030_is_no_binary_for_the_gpu() {
        let b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", &[1u8; 64])]);
        assert!(matches!(
            gfx1030_object(&b, "test"),
            Err(Failure::Code(code::NO_BINARY_FOR_GPU))
        ));
    }

    #[test]
    fn the_gfx1030_entry_of_hipccs_bundle_loads() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/kernels/saxpy_hip.bundle"
        );
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(unsafe { bundle_len(bytes.as_ptr()) }.unwrap(), bytes.len());
        let co = gfx1030_object(&bytes, "saxpy_hip.bundle").unwrap();
        assert_eq!(co.kernel_names(), ["saxpy"]);
    }
}
