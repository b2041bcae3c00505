//! The exported HIP C ABI (HIP 5.2 signatures, hip_runtime_api.h). Every function runs through
//! [`crate::entry`]; pointers from the program are trusted as a real runtime trusts them.
#![allow(
    non_snake_case,
    clippy::missing_safety_doc,
    clippy::not_unsafe_ptr_arg_deref
)]

use crate::error::{code, fail, unsupported, Failure, Result};
use crate::launch::{launch, Args};
use crate::memory::Kind;
use crate::runtime::{new_handle, with, Fatbin, Runtime, Source, CALL_CONFIG, LAST_ERROR};
use crate::{entry, props};
use std::ffi::{c_char, c_void, CStr};
use std::time::Instant;

/// `dim3`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    fn array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// What `__hipRegisterFatBinary` receives (clang's CGCUDANV.cpp, `.hipFatBinSegment`): magic "HIPF",
/// version 1, the offload bundle, and an unused pointer.
#[repr(C)]
pub struct FatbinWrapper {
    pub magic: u32,
    pub version: u32,
    pub binary: *const u8,
    pub unused: *const c_void,
}

pub const FATBIN_MAGIC: u32 = 0x4849_5046;

type Stream = usize;

fn out<T>(p: *mut T, v: T) -> Result<()> {
    if p.is_null() {
        return fail(code::INVALID_VALUE);
    }
    // SAFETY: a non-null pointer the program gave for the result.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

fn cstr(p: *const c_char) -> Result<String> {
    if p.is_null() {
        return fail(code::INVALID_VALUE);
    }
    // SAFETY: a NUL-terminated string from the program.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// `len` bytes of host memory at `p`.
fn host_slice<'a>(p: *const c_void, len: usize) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return fail(code::INVALID_VALUE);
    }
    // SAFETY: host memory the program owns, `len` bytes long.
    Ok(unsafe { std::slice::from_raw_parts(p as *const u8, len) })
}

fn host_slice_mut<'a>(p: *mut c_void, len: usize) -> Result<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return fail(code::INVALID_VALUE);
    }
    // SAFETY: as above, writable.
    Ok(unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) })
}

// ---- Registration (what hipcc's generated constructors call) ----

#[no_mangle]
pub extern "C" fn __hipRegisterFatBinary(data: *const FatbinWrapper) -> *mut c_void {
    let mut handle = 0usize;
    entry("__hipRegisterFatBinary", || {
        if data.is_null() {
            return Err(Failure::Stop("a null fat binary wrapper".into()));
        }
        // SAFETY: the wrapper hipcc emitted.
        let w = unsafe { &*data };
        if w.magic != FATBIN_MAGIC || w.binary.is_null() {
            return Err(Failure::Stop(format!(
                "the fat binary wrapper has magic {:#x} (expected {FATBIN_MAGIC:#x}, \"HIPF\")",
                w.magic
            )));
        }
        // SAFETY: the wrapper points to the program's `.hip_fatbin` bundle.
        let len = unsafe { crate::module::bundle_len(w.binary) }?;
        // SAFETY: `len` bytes of that bundle.
        let bytes = unsafe { std::slice::from_raw_parts(w.binary, len) }.to_vec();
        with(|rt| {
            handle = new_handle();
            rt.fatbin_handles.insert(handle, rt.fatbins.len());
            rt.fatbins.push(Fatbin {
                bytes,
                module: None,
            });
            Ok(())
        })
    });
    handle as *mut c_void
}

#[no_mangle]
pub extern "C" fn __hipUnregisterFatBinary(_modules: *mut c_void) {
    // Modules stay loaded until the process ends (this runs from the program's destructors).
}

fn fatbin_index(rt: &Runtime, modules: *mut c_void) -> Result<usize> {
    rt.fatbin_handles
        .get(&(modules as usize))
        .copied()
        .ok_or(Failure::Stop("an unknown fat binary handle".into()))
}

#[no_mangle]
pub extern "C" fn __hipRegisterFunction(
    modules: *mut c_void,
    host_function: *const c_void,
    _device_function: *mut c_char,
    device_name: *const c_char,
    _thread_limit: u32,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block_dim: *mut Dim3,
    _grid_dim: *mut Dim3,
    _wsize: *mut i32,
) {
    entry("__hipRegisterFunction", || {
        let name = cstr(device_name)?;
        with(|rt| {
            let fb = fatbin_index(rt, modules)?;
            rt.functions
                .insert(host_function as usize, (Source::Fatbin(fb), name));
            Ok(())
        })
    });
}

#[no_mangle]
pub extern "C" fn __hipRegisterVar(
    modules: *mut c_void,
    var: *mut c_void,
    _host_var: *mut c_char,
    device_var: *const c_char,
    _ext: i32,
    _size: usize,
    _constant: i32,
    _global: i32,
) {
    entry("__hipRegisterVar", || {
        let name = cstr(device_var)?;
        with(|rt| {
            let fb = fatbin_index(rt, modules)?;
            rt.vars.insert(var as usize, (fb, name));
            Ok(())
        })
    });
}

#[no_mangle]
pub extern "C" fn __hipRegisterManagedVar() {
    entry("__hipRegisterManagedVar", || {
        unsupported("managed memory (__managed__ variables)")
    });
}

#[no_mangle]
pub extern "C" fn __hipRegisterTexture() {
    entry("__hipRegisterTexture", || unsupported("texture references"));
}

#[no_mangle]
pub extern "C" fn __hipRegisterSurface() {
    entry("__hipRegisterSurface", || unsupported("surface references"));
}

#[no_mangle]
pub extern "C" fn __hipPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Stream,
) -> i32 {
    entry("__hipPushCallConfiguration", || {
        CALL_CONFIG.with(|c| {
            c.borrow_mut()
                .push((grid.array(), block.array(), shared, stream))
        });
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn __hipPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut Stream,
) -> i32 {
    entry("__hipPopCallConfiguration", || {
        let Some((g, b, s, st)) = CALL_CONFIG.with(|c| c.borrow_mut().pop()) else {
            return fail(code::INVALID_CONFIGURATION);
        };
        out(
            grid,
            Dim3 {
                x: g[0],
                y: g[1],
                z: g[2],
            },
        )?;
        out(
            block,
            Dim3 {
                x: b[0],
                y: b[1],
                z: b[2],
            },
        )?;
        out(shared, s)?;
        out(stream, st)
    })
}

// ---- Launches ----

#[no_mangle]
pub extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> i32 {
    entry("hipLaunchKernel", || {
        with(|rt| {
            rt.check_stream(stream)?;
            let Some((source, name)) = rt.functions.get(&(function as usize)).cloned() else {
                return fail(code::INVALID_DEVICE_FUNCTION);
            };
            let m = rt.module_of(source)?;
            launch(
                rt,
                m,
                &name,
                grid.array(),
                block.array(),
                shared,
                Args::Pointers(args),
            )
        })
    })
}

#[no_mangle]
pub extern "C" fn hipModuleLaunchKernel(
    function: *mut c_void,
    gx: u32,
    gy: u32,
    gz: u32,
    bx: u32,
    by: u32,
    bz: u32,
    shared: u32,
    stream: Stream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> i32 {
    entry("hipModuleLaunchKernel", || {
        let args = if !params.is_null() {
            Args::Pointers(params)
        } else if !extra.is_null() {
            // HIP_LAUNCH_PARAM_BUFFER_POINTER (1), ptr, HIP_LAUNCH_PARAM_BUFFER_SIZE (2), &size, END (3).
            let (mut buf, mut size) = (std::ptr::null::<u8>(), None::<usize>);
            let mut i = 0;
            loop {
                // SAFETY: the program's `extra` list, terminated by HIP_LAUNCH_PARAM_END.
                let k = unsafe { *extra.add(i) } as usize;
                match k {
                    1 => buf = unsafe { *extra.add(i + 1) } as *const u8,
                    // SAFETY: points to a size_t.
                    2 => size = Some(unsafe { *(*extra.add(i + 1) as *const usize) }),
                    3 => break,
                    _ => return fail(code::INVALID_VALUE),
                }
                i += 2;
            }
            match (buf.is_null(), size) {
                (false, Some(n)) => Args::Buffer(host_slice(buf as *const c_void, n)?.to_vec()),
                _ => return fail(code::INVALID_VALUE),
            }
        } else {
            Args::Buffer(Vec::new())
        };
        with(|rt| {
            rt.check_stream(stream)?;
            let Some((source, name)) = rt.functions.get(&(function as usize)).cloned() else {
                return fail(code::INVALID_HANDLE);
            };
            let m = rt.module_of(source)?;
            launch(
                rt,
                m,
                &name,
                [gx, gy, gz],
                [bx, by, bz],
                shared as usize,
                args,
            )
        })
    })
}

#[no_mangle]
pub extern "C" fn hipLaunchCooperativeKernel() -> i32 {
    entry("hipLaunchCooperativeKernel", || {
        unsupported("a cooperative launch (hipLaunchCooperativeKernel)")
    })
}

#[no_mangle]
pub extern "C" fn hipLaunchCooperativeKernelMultiDevice() -> i32 {
    entry("hipLaunchCooperativeKernelMultiDevice", || {
        unsupported("a cooperative launch (hipLaunchCooperativeKernelMultiDevice)")
    })
}

#[no_mangle]
pub extern "C" fn hipFuncGetAttributes(attr: *mut u8, function: *const c_void) -> i32 {
    entry("hipFuncGetAttributes", || {
        let (lds, scratch, vgprs, max_threads) = with(|rt| {
            let Some((source, name)) = rt.functions.get(&(function as usize)).cloned() else {
                return fail(code::INVALID_DEVICE_FUNCTION);
            };
            let m = rt.module_of(source)?;
            let module = rt.modules[m]
                .as_mut()
                .ok_or(Failure::Code(code::INVALID_HANDLE))?;
            let k = &module.entry(&name)?.kernel;
            let max = k
                .metadata
                .as_ref()
                .and_then(|m| m.max_flat_workgroup_size)
                .unwrap_or(1024);
            Ok((
                k.descriptor.group_segment_fixed_size,
                k.descriptor.private_segment_fixed_size,
                k.abi.vgpr_count,
                max,
            ))
        })?;
        if attr.is_null() {
            return fail(code::INVALID_VALUE);
        }
        // hipFuncAttributes (56 bytes): binaryVersion, cacheModeCA, constSizeBytes, localSizeBytes,
        // maxDynamicSharedSizeBytes, maxThreadsPerBlock, numRegs, preferredShmemCarveout, ptxVersion,
        // sharedSizeBytes.
        let mut a = [0u8; 56];
        a[16..24].copy_from_slice(&(scratch as u64).to_le_bytes());
        a[24..28].copy_from_slice(&((64 * 1024 - lds) as i32).to_le_bytes());
        a[28..32].copy_from_slice(&(max_threads as i32).to_le_bytes());
        a[32..36].copy_from_slice(&(vgprs as i32).to_le_bytes());
        a[48..56].copy_from_slice(&(lds as u64).to_le_bytes());
        // SAFETY: the program's hipFuncAttributes.
        unsafe { std::ptr::copy_nonoverlapping(a.as_ptr(), attr, a.len()) };
        Ok(())
    })
}

// ---- Modules ----

fn module_handle(rt: &mut Runtime, index: usize) -> usize {
    let h = new_handle();
    rt.module_handles.insert(h, index);
    h
}

#[no_mangle]
pub extern "C" fn hipModuleLoad(module: *mut *mut c_void, fname: *const c_char) -> i32 {
    entry("hipModuleLoad", || {
        let path = cstr(fname)?;
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(_) => return fail(code::FILE_NOT_FOUND),
        };
        let h = with(|rt| {
            let m = rt.load_module(&bytes, path.clone())?;
            Ok(module_handle(rt, m))
        })?;
        out(module, h as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipModuleLoadData(module: *mut *mut c_void, image: *const c_void) -> i32 {
    entry("hipModuleLoadData", || {
        if image.is_null() {
            return fail(code::INVALID_VALUE);
        }
        let p = image as *const u8;
        // SAFETY: an ELF code object or an offload bundle in the program's memory; its length comes from
        // its own headers.
        let len = unsafe {
            if std::slice::from_raw_parts(p, 4) == b"\x7fELF" {
                let sh = |o: usize| {
                    let mut b = [0u8; 8];
                    std::ptr::copy_nonoverlapping(p.add(o), b.as_mut_ptr(), 8);
                    u64::from_le_bytes(b)
                };
                // The section header table ends the file: e_shoff + e_shnum * e_shentsize.
                let shoff = sh(0x28) as usize;
                let shentsize = (sh(0x3a) & 0xffff) as usize;
                let shnum = (sh(0x3c) & 0xffff) as usize;
                shoff + shnum * shentsize
            } else {
                crate::module::bundle_len(p)?
            }
        };
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts(p, len) }.to_vec();
        let h = with(|rt| {
            let m = rt.load_module(&bytes, "hipModuleLoadData image".into())?;
            Ok(module_handle(rt, m))
        })?;
        out(module, h as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(module: *mut c_void) -> i32 {
    entry("hipModuleUnload", || {
        with(|rt| match rt.module_handles.remove(&(module as usize)) {
            Some(_) => Ok(()),
            None => fail(code::INVALID_HANDLE),
        })
    })
}

#[no_mangle]
pub extern "C" fn hipModuleGetFunction(
    function: *mut *mut c_void,
    module: *mut c_void,
    name: *const c_char,
) -> i32 {
    entry("hipModuleGetFunction", || {
        let name = cstr(name)?;
        let h = with(|rt| {
            let Some(&m) = rt.module_handles.get(&(module as usize)) else {
                return fail(code::INVALID_HANDLE);
            };
            let found = rt.modules[m]
                .as_ref()
                .is_some_and(|md| md.co.kernel(&name).is_ok());
            if !found {
                return fail(code::NOT_FOUND);
            }
            let h = new_handle();
            rt.functions.insert(h, (Source::Module(m), name.clone()));
            Ok(h)
        })?;
        out(function, h as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipModuleGetGlobal(
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    module: *mut c_void,
    name: *const c_char,
) -> i32 {
    entry("hipModuleGetGlobal", || {
        let name = cstr(name)?;
        let (a, s) = with(|rt| {
            let Some(&m) = rt.module_handles.get(&(module as usize)) else {
                return fail(code::INVALID_HANDLE);
            };
            rt.modules[m]
                .as_ref()
                .and_then(|md| md.global(&name))
                .ok_or(Failure::Code(code::NOT_FOUND))
        })?;
        if !dptr.is_null() {
            out(dptr, a as *mut c_void)?;
        }
        if !bytes.is_null() {
            out(bytes, s as usize)?;
        }
        Ok(())
    })
}

// ---- Memory ----

#[no_mangle]
pub extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> i32 {
    entry("hipMalloc", || {
        if ptr.is_null() {
            return fail(code::INVALID_VALUE);
        }
        let a = if size == 0 {
            0
        } else {
            with(|rt| rt.ready()?.mem.alloc(size as u64, Kind::Malloc))?
        };
        out(ptr, a as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipFree(ptr: *mut c_void) -> i32 {
    entry("hipFree", || {
        if ptr.is_null() {
            return Ok(());
        }
        with(|rt| rt.ready()?.mem.free(ptr as u64, Kind::Malloc))
    })
}

#[no_mangle]
pub extern "C" fn hipMallocManaged() -> i32 {
    entry("hipMallocManaged", || {
        unsupported("managed memory (hipMallocManaged)")
    })
}

#[no_mangle]
pub extern "C" fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, _flags: u32) -> i32 {
    entry("hipHostMalloc", || {
        // Pinned host memory is ordinary host memory here: a copy source or destination (kernels cannot
        // reach it).
        let layout = std::alloc::Layout::from_size_align(size.max(1) + 64, 64)
            .map_err(|_| Failure::Code(code::OUT_OF_MEMORY))?;
        // SAFETY: a non-zero-sized layout.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return fail(code::OUT_OF_MEMORY);
        }
        // The size in the first 64 bytes, for hipHostFree.
        // SAFETY: the allocation has at least 64 bytes.
        unsafe { (p as *mut usize).write(size.max(1)) };
        out(ptr, unsafe { p.add(64) } as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipHostFree(ptr: *mut c_void) -> i32 {
    entry("hipHostFree", || {
        if ptr.is_null() {
            return Ok(());
        }
        // SAFETY: a pointer hipHostMalloc returned: its size sits 64 bytes before it.
        unsafe {
            let p = (ptr as *mut u8).sub(64);
            let size = (p as *const usize).read();
            std::alloc::dealloc(
                p,
                std::alloc::Layout::from_size_align_unchecked(size + 64, 64),
            );
        }
        Ok(())
    })
}

/// Copies `len` bytes. `kind` is hipMemcpyKind (0 host→host, 1 host→device, 2 device→host, 3 device→device,
/// 4 default). As ROCm does with its pointer information, an address inside a device allocation is device
/// memory whatever `kind` says; one that `kind` calls device memory must lie inside an allocation
/// (`hipErrorInvalidValue` otherwise, also for a copy that runs past an allocation's end).
fn copy(dst: *mut c_void, src: *const c_void, len: usize, kind: i32) -> Result<()> {
    if !(0..=4).contains(&kind) {
        return fail(code::INVALID_MEMCPY_DIRECTION);
    }
    if len == 0 {
        return Ok(());
    }
    with(|rt| {
        let mem = &mut rt.ready()?.mem;
        let d_dev = matches!(kind, 1 | 3) || mem.contains(dst as u64);
        let s_dev = matches!(kind, 2 | 3) || mem.contains(src as u64);
        let data = if s_dev {
            mem.read(src as u64, len as u64)?
        } else {
            host_slice(src, len)?.to_vec()
        };
        if d_dev {
            mem.write(dst as u64, &data)
        } else {
            host_slice_mut(dst, len)?.copy_from_slice(&data);
            Ok(())
        }
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpy(dst: *mut c_void, src: *const c_void, len: usize, kind: i32) -> i32 {
    entry("hipMemcpy", || copy(dst, src, len, kind))
}

#[no_mangle]
pub extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    kind: i32,
    stream: Stream,
) -> i32 {
    entry("hipMemcpyAsync", || {
        with(|rt| rt.check_stream(stream))?;
        copy(dst, src, len, kind)
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpyHtoD(dst: *mut c_void, src: *const c_void, len: usize) -> i32 {
    entry("hipMemcpyHtoD", || copy(dst, src, len, 1))
}

#[no_mangle]
pub extern "C" fn hipMemcpyDtoH(dst: *mut c_void, src: *const c_void, len: usize) -> i32 {
    entry("hipMemcpyDtoH", || copy(dst, src, len, 2))
}

#[no_mangle]
pub extern "C" fn hipMemcpyDtoD(dst: *mut c_void, src: *const c_void, len: usize) -> i32 {
    entry("hipMemcpyDtoD", || copy(dst, src, len, 3))
}

fn fill(dst: *mut c_void, pattern: &[u8], count: usize) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    let data: Vec<u8> = pattern
        .iter()
        .copied()
        .cycle()
        .take(pattern.len() * count)
        .collect();
    with(|rt| rt.ready()?.mem.write(dst as u64, &data))
}

#[no_mangle]
pub extern "C" fn hipMemset(dst: *mut c_void, value: i32, len: usize) -> i32 {
    entry("hipMemset", || fill(dst, &[value as u8], len))
}

#[no_mangle]
pub extern "C" fn hipMemsetAsync(dst: *mut c_void, value: i32, len: usize, stream: Stream) -> i32 {
    entry("hipMemsetAsync", || {
        with(|rt| rt.check_stream(stream))?;
        fill(dst, &[value as u8], len)
    })
}

#[no_mangle]
pub extern "C" fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) -> i32 {
    entry("hipMemsetD8", || fill(dst, &[value], count))
}

#[no_mangle]
pub extern "C" fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) -> i32 {
    entry("hipMemsetD16", || fill(dst, &value.to_le_bytes(), count))
}

#[no_mangle]
pub extern "C" fn hipMemsetD32(dst: *mut c_void, value: i32, count: usize) -> i32 {
    entry("hipMemsetD32", || fill(dst, &value.to_le_bytes(), count))
}

/// Pitched rows: bytes `width` of each of `height` rows, `pitch` apart.
fn rows(pitch: usize, width: usize, height: usize) -> Result<()> {
    if width > pitch && height > 1 {
        return fail(code::INVALID_PITCH);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn copy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: i32,
) -> Result<()> {
    rows(dpitch, width, height)?;
    rows(spitch, width, height)?;
    for r in 0..height {
        copy(
            (dst as usize).wrapping_add(r * dpitch) as *mut c_void,
            (src as usize).wrapping_add(r * spitch) as *const c_void,
            width,
            kind,
        )?;
    }
    Ok(())
}

fn fill_2d(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize) -> Result<()> {
    rows(pitch, width, height)?;
    for r in 0..height {
        fill(
            (dst as usize).wrapping_add(r * pitch) as *mut c_void,
            &[value as u8],
            width,
        )?;
    }
    Ok(())
}

/// Rows of a pitched allocation start 256 bytes apart at least (ROCm's alignment for gfx10).
pub const PITCH_ALIGN: usize = 256;

#[no_mangle]
pub extern "C" fn hipMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> i32 {
    entry("hipMallocPitch", || {
        let p = width.div_ceil(PITCH_ALIGN).max(1) * PITCH_ALIGN;
        let size = p
            .checked_mul(height)
            .ok_or(Failure::Code(code::OUT_OF_MEMORY))?;
        let a = if size == 0 {
            0
        } else {
            with(|rt| rt.ready()?.mem.alloc(size as u64, Kind::Malloc))?
        };
        out(ptr, a as *mut c_void)?;
        out(pitch, p)
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: i32,
) -> i32 {
    entry("hipMemcpy2D", || {
        copy_2d(dst, dpitch, src, spitch, width, height, kind)
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: i32,
    stream: Stream,
) -> i32 {
    entry("hipMemcpy2DAsync", || {
        with(|rt| rt.check_stream(stream))?;
        copy_2d(dst, dpitch, src, spitch, width, height, kind)
    })
}

#[no_mangle]
pub extern "C" fn hipMemset2D(
    dst: *mut c_void,
    pitch: usize,
    value: i32,
    width: usize,
    height: usize,
) -> i32 {
    entry("hipMemset2D", || fill_2d(dst, pitch, value, width, height))
}

#[no_mangle]
pub extern "C" fn hipMemset2DAsync(
    dst: *mut c_void,
    pitch: usize,
    value: i32,
    width: usize,
    height: usize,
    stream: Stream,
) -> i32 {
    entry("hipMemset2DAsync", || {
        with(|rt| rt.check_stream(stream))?;
        fill_2d(dst, pitch, value, width, height)
    })
}

#[no_mangle]
pub extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> i32 {
    entry("hipMemGetInfo", || {
        out(free, props::TOTAL_GLOBAL_MEM as usize)?;
        out(total, props::TOTAL_GLOBAL_MEM as usize)
    })
}

fn symbol_range(symbol: *const c_void, len: usize, offset: usize) -> Result<u64> {
    let (addr, size) = with(|rt| rt.symbol(symbol as usize))?;
    match offset.checked_add(len) {
        Some(end) if end as u64 <= size => Ok(addr + offset as u64),
        _ => fail(code::INVALID_VALUE),
    }
}

#[no_mangle]
pub extern "C" fn hipMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    len: usize,
    offset: usize,
    kind: i32,
) -> i32 {
    entry("hipMemcpyToSymbol", || {
        let a = symbol_range(symbol, len, offset)?;
        let k = if kind == 3 { 3 } else { 1 };
        copy(a as *mut c_void, src, len, k)
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    len: usize,
    offset: usize,
    kind: i32,
    stream: Stream,
) -> i32 {
    entry("hipMemcpyToSymbolAsync", || {
        with(|rt| rt.check_stream(stream))?;
        let a = symbol_range(symbol, len, offset)?;
        copy(a as *mut c_void, src, len, if kind == 3 { 3 } else { 1 })
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    len: usize,
    offset: usize,
    kind: i32,
) -> i32 {
    entry("hipMemcpyFromSymbol", || {
        let a = symbol_range(symbol, len, offset)?;
        copy(dst, a as *const c_void, len, if kind == 3 { 3 } else { 2 })
    })
}

#[no_mangle]
pub extern "C" fn hipGetSymbolAddress(ptr: *mut *mut c_void, symbol: *const c_void) -> i32 {
    entry("hipGetSymbolAddress", || {
        let (a, _) = with(|rt| rt.symbol(symbol as usize))?;
        out(ptr, a as *mut c_void)
    })
}

#[no_mangle]
pub extern "C" fn hipGetSymbolSize(size: *mut usize, symbol: *const c_void) -> i32 {
    entry("hipGetSymbolSize", || {
        let (_, s) = with(|rt| rt.symbol(symbol as usize))?;
        out(size, s as usize)
    })
}

// ---- Device ----

#[no_mangle]
pub extern "C" fn hipInit(_flags: u32) -> i32 {
    entry("hipInit", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipGetDeviceCount(count: *mut i32) -> i32 {
    entry("hipGetDeviceCount", || out(count, 1))
}

#[no_mangle]
pub extern "C" fn hipSetDevice(device: i32) -> i32 {
    entry("hipSetDevice", || {
        if device != 0 {
            return fail(code::INVALID_DEVICE);
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipGetDevice(device: *mut i32) -> i32 {
    entry("hipGetDevice", || out(device, 0))
}

#[no_mangle]
pub extern "C" fn hipDeviceGetAttribute(value: *mut i32, attr: i32, device: i32) -> i32 {
    entry("hipDeviceGetAttribute", || {
        if device != 0 {
            return fail(code::INVALID_DEVICE);
        }
        match props::attribute(attr) {
            Some(v) => out(value, v),
            None => fail(code::INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub extern "C" fn hipGetDeviceProperties(prop: *mut u8, device: i32) -> i32 {
    entry("hipGetDeviceProperties", || {
        if device != 0 {
            return fail(code::INVALID_DEVICE);
        }
        if prop.is_null() {
            return fail(code::INVALID_VALUE);
        }
        let p = props::properties();
        // SAFETY: the program's hipDeviceProp_t (HIP 5.2: 792 bytes).
        unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), prop, p.len()) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> i32 {
    entry("hipDeviceSynchronize", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipDeviceReset() -> i32 {
    entry("hipDeviceReset", || {
        with(|rt| {
            if let Some(r) = rt.ready.as_mut() {
                r.mem.free_all_mallocs();
            }
            rt.streams.clear();
            rt.events.clear();
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn hipDriverGetVersion(v: *mut i32) -> i32 {
    entry("hipDriverGetVersion", || out(v, 50_221_153))
}

#[no_mangle]
pub extern "C" fn hipRuntimeGetVersion(v: *mut i32) -> i32 {
    entry("hipRuntimeGetVersion", || out(v, 50_221_153))
}

// ---- Errors ----

/// The calling thread's last error, reset to hipSuccess.
#[no_mangle]
pub extern "C" fn hipGetLastError() -> i32 {
    LAST_ERROR.with(|e| e.replace(code::SUCCESS))
}

/// The calling thread's last error.
#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> i32 {
    LAST_ERROR.with(|e| e.get())
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(e: i32) -> *const c_char {
    crate::error::name(e).as_ptr() as *const c_char
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(e: i32) -> *const c_char {
    crate::error::string(e).as_ptr() as *const c_char
}

// ---- Streams and events (in order, synchronous) ----

#[no_mangle]
pub extern "C" fn hipStreamCreate(stream: *mut Stream) -> i32 {
    entry("hipStreamCreate", || {
        let h = with(|rt| {
            let h = new_handle();
            rt.streams.insert(h);
            Ok(h)
        })?;
        out(stream, h)
    })
}

#[no_mangle]
pub extern "C" fn hipStreamCreateWithFlags(stream: *mut Stream, _flags: u32) -> i32 {
    hipStreamCreate(stream)
}

#[no_mangle]
pub extern "C" fn hipStreamDestroy(stream: Stream) -> i32 {
    entry("hipStreamDestroy", || {
        with(|rt| {
            if rt.streams.remove(&stream) {
                Ok(())
            } else {
                fail(code::INVALID_HANDLE)
            }
        })
    })
}

#[no_mangle]
pub extern "C" fn hipStreamSynchronize(stream: Stream) -> i32 {
    entry("hipStreamSynchronize", || {
        with(|rt| rt.check_stream(stream))
    })
}

#[no_mangle]
pub extern "C" fn hipStreamQuery(stream: Stream) -> i32 {
    entry("hipStreamQuery", || with(|rt| rt.check_stream(stream)))
}

#[no_mangle]
pub extern "C" fn hipStreamWaitEvent(stream: Stream, event: usize, _flags: u32) -> i32 {
    entry("hipStreamWaitEvent", || {
        with(|rt| {
            rt.check_stream(stream)?;
            if !rt.events.contains_key(&event) {
                return fail(code::INVALID_HANDLE);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn hipEventCreate(event: *mut usize) -> i32 {
    entry("hipEventCreate", || {
        let h = with(|rt| {
            let h = new_handle();
            rt.events.insert(h, None);
            Ok(h)
        })?;
        out(event, h)
    })
}

#[no_mangle]
pub extern "C" fn hipEventCreateWithFlags(event: *mut usize, _flags: u32) -> i32 {
    hipEventCreate(event)
}

#[no_mangle]
pub extern "C" fn hipEventRecord(event: usize, stream: Stream) -> i32 {
    entry("hipEventRecord", || {
        with(|rt| {
            rt.check_stream(stream)?;
            match rt.events.get_mut(&event) {
                Some(t) => {
                    *t = Some(Instant::now());
                    Ok(())
                }
                None => fail(code::INVALID_HANDLE),
            }
        })
    })
}

#[no_mangle]
pub extern "C" fn hipEventSynchronize(event: usize) -> i32 {
    entry("hipEventSynchronize", || {
        with(|rt| match rt.events.get(&event) {
            Some(_) => Ok(()),
            None => fail(code::INVALID_HANDLE),
        })
    })
}

#[no_mangle]
pub extern "C" fn hipEventQuery(event: usize) -> i32 {
    hipEventSynchronize(event)
}

#[no_mangle]
pub extern "C" fn hipEventElapsedTime(ms: *mut f32, start: usize, stop: usize) -> i32 {
    entry("hipEventElapsedTime", || {
        let t = with(|rt| match (rt.events.get(&start), rt.events.get(&stop)) {
            (Some(Some(a)), Some(Some(b))) => Ok(b.saturating_duration_since(*a)),
            (Some(_), Some(_)) => fail(code::NOT_READY),
            _ => fail(code::INVALID_HANDLE),
        })?;
        out(ms, (t.as_secs_f64() * 1e3) as f32)
    })
}

#[no_mangle]
pub extern "C" fn hipEventDestroy(event: usize) -> i32 {
    entry("hipEventDestroy", || {
        with(|rt| match rt.events.remove(&event) {
            Some(_) => Ok(()),
            None => fail(code::INVALID_HANDLE),
        })
    })
}

// ---- Aliases and simple queries ----

#[no_mangle]
pub extern "C" fn hipMallocHost(ptr: *mut *mut c_void, size: usize) -> i32 {
    hipHostMalloc(ptr, size, 0)
}

#[no_mangle]
pub extern "C" fn hipMemAllocHost(ptr: *mut *mut c_void, size: usize) -> i32 {
    hipHostMalloc(ptr, size, 0)
}

#[no_mangle]
pub extern "C" fn hipHostAlloc(ptr: *mut *mut c_void, size: usize, flags: u32) -> i32 {
    hipHostMalloc(ptr, size, flags)
}

#[no_mangle]
pub extern "C" fn hipFreeHost(ptr: *mut c_void) -> i32 {
    hipHostFree(ptr)
}

#[no_mangle]
pub extern "C" fn hipMemAllocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
    _element_size: u32,
) -> i32 {
    hipMallocPitch(ptr, pitch, width, height)
}

#[no_mangle]
pub extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    kind: i32,
    stream: Stream,
) -> i32 {
    hipMemcpyAsync(dst, src, len, kind, stream)
}

#[no_mangle]
pub extern "C" fn hipMemcpyHtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    stream: Stream,
) -> i32 {
    hipMemcpyAsync(dst, src, len, 1, stream)
}

#[no_mangle]
pub extern "C" fn hipMemcpyDtoHAsync(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    stream: Stream,
) -> i32 {
    hipMemcpyAsync(dst, src, len, 2, stream)
}

#[no_mangle]
pub extern "C" fn hipMemcpyDtoDAsync(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    stream: Stream,
) -> i32 {
    hipMemcpyAsync(dst, src, len, 3, stream)
}

#[no_mangle]
pub extern "C" fn hipMemsetD8Async(
    dst: *mut c_void,
    value: u8,
    count: usize,
    stream: Stream,
) -> i32 {
    entry("hipMemsetD8Async", || {
        with(|rt| rt.check_stream(stream))?;
        fill(dst, &[value], count)
    })
}

#[no_mangle]
pub extern "C" fn hipMemsetD16Async(
    dst: *mut c_void,
    value: u16,
    count: usize,
    stream: Stream,
) -> i32 {
    entry("hipMemsetD16Async", || {
        with(|rt| rt.check_stream(stream))?;
        fill(dst, &value.to_le_bytes(), count)
    })
}

#[no_mangle]
pub extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: i32,
    count: usize,
    stream: Stream,
) -> i32 {
    entry("hipMemsetD32Async", || {
        with(|rt| rt.check_stream(stream))?;
        fill(dst, &value.to_le_bytes(), count)
    })
}

#[no_mangle]
pub extern "C" fn hipMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    len: usize,
    offset: usize,
    kind: i32,
    stream: Stream,
) -> i32 {
    entry("hipMemcpyFromSymbolAsync", || {
        with(|rt| rt.check_stream(stream))?;
        let a = symbol_range(symbol, len, offset)?;
        copy(dst, a as *const c_void, len, if kind == 3 { 3 } else { 2 })
    })
}

fn check_device(device: i32) -> Result<()> {
    if device == 0 {
        Ok(())
    } else {
        fail(code::INVALID_DEVICE)
    }
}

#[no_mangle]
pub extern "C" fn hipDeviceGet(device: *mut i32, ordinal: i32) -> i32 {
    entry("hipDeviceGet", || {
        check_device(ordinal)?;
        out(device, 0)
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceGetName(name: *mut c_char, len: i32, device: i32) -> i32 {
    entry("hipDeviceGetName", || {
        check_device(device)?;
        if name.is_null() || len <= 0 {
            return fail(code::INVALID_VALUE);
        }
        let p = props::properties();
        let n = p[..256].iter().position(|&b| b == 0).unwrap_or(255);
        let k = n.min(len as usize - 1);
        // SAFETY: the program's buffer of `len` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(p.as_ptr(), name as *mut u8, k);
            *name.add(k) = 0;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: i32) -> i32 {
    entry("hipDeviceTotalMem", || {
        check_device(device)?;
        out(bytes, props::TOTAL_GLOBAL_MEM as usize)
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceComputeCapability(major: *mut i32, minor: *mut i32, device: i32) -> i32 {
    entry("hipDeviceComputeCapability", || {
        check_device(device)?;
        out(major, 10)?;
        out(minor, 3)
    })
}

#[no_mangle]
pub extern "C" fn hipSetDeviceFlags(_flags: u32) -> i32 {
    entry("hipSetDeviceFlags", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipGetDeviceFlags(flags: *mut u32) -> i32 {
    entry("hipGetDeviceFlags", || out(flags, 0))
}

#[no_mangle]
pub extern "C" fn hipDeviceSetCacheConfig(_config: i32) -> i32 {
    entry("hipDeviceSetCacheConfig", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipDeviceGetCacheConfig(config: *mut i32) -> i32 {
    entry("hipDeviceGetCacheConfig", || out(config, 0))
}

#[no_mangle]
pub extern "C" fn hipDeviceSetSharedMemConfig(_config: i32) -> i32 {
    entry("hipDeviceSetSharedMemConfig", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipDeviceGetSharedMemConfig(config: *mut i32) -> i32 {
    // hipSharedMemBankSizeFourByte.
    entry("hipDeviceGetSharedMemConfig", || out(config, 1))
}

#[no_mangle]
pub extern "C" fn hipFuncSetCacheConfig(_function: *const c_void, _config: i32) -> i32 {
    entry("hipFuncSetCacheConfig", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipFuncSetAttribute(_function: *const c_void, _attr: i32, _value: i32) -> i32 {
    entry("hipFuncSetAttribute", || Ok(()))
}

#[no_mangle]
pub extern "C" fn hipDeviceCanAccessPeer(can: *mut i32, device: i32, peer: i32) -> i32 {
    entry("hipDeviceCanAccessPeer", || {
        check_device(device)?;
        if peer != 0 {
            return fail(code::INVALID_DEVICE);
        }
        out(can, 0)
    })
}

#[no_mangle]
pub extern "C" fn hipStreamCreateWithPriority(
    stream: *mut Stream,
    _flags: u32,
    _priority: i32,
) -> i32 {
    hipStreamCreate(stream)
}

#[no_mangle]
pub extern "C" fn hipDeviceGetStreamPriorityRange(least: *mut i32, greatest: *mut i32) -> i32 {
    entry("hipDeviceGetStreamPriorityRange", || {
        if !least.is_null() {
            out(least, 0)?;
        }
        if !greatest.is_null() {
            out(greatest, 0)?;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipStreamGetFlags(stream: Stream, flags: *mut u32) -> i32 {
    entry("hipStreamGetFlags", || {
        with(|rt| rt.check_stream(stream))?;
        out(flags, 0)
    })
}

#[no_mangle]
pub extern "C" fn hipStreamGetPriority(stream: Stream, priority: *mut i32) -> i32 {
    entry("hipStreamGetPriority", || {
        with(|rt| rt.check_stream(stream))?;
        out(priority, 0)
    })
}

/// `hipStreamCallback_t`.
type StreamCallback = Option<extern "C" fn(Stream, i32, *mut c_void)>;

#[no_mangle]
pub extern "C" fn hipStreamAddCallback(
    stream: Stream,
    callback: StreamCallback,
    user_data: *mut c_void,
    _flags: u32,
) -> i32 {
    let mut call = None;
    let r = entry("hipStreamAddCallback", || {
        with(|rt| rt.check_stream(stream))?;
        call = Some(callback.ok_or(Failure::Code(code::INVALID_VALUE))?);
        Ok(())
    });
    // Everything enqueued has completed (streams are synchronous): call it now, outside the lock.
    if let Some(f) = call {
        f(stream, code::SUCCESS, user_data);
    }
    r
}

/// Work-items a compute unit keeps resident, and how many blocks of `block` threads that allows.
fn resident_blocks(block: i32, lds_per_block: u64) -> i32 {
    if block <= 0 {
        return 0;
    }
    let by_threads = props::MAX_THREADS_PER_CU / block;
    let by_lds = (props::SHARED_MEM_PER_BLOCK)
        .checked_div(lds_per_block)
        .map_or(i32::MAX, |n| n.min(i32::MAX as u64) as i32);
    by_threads.min(by_lds).min(32)
}

/// LDS bytes and the largest block of a registered kernel.
fn kernel_limits(function: *const c_void) -> Result<(u64, i32)> {
    with(|rt| {
        let Some((source, name)) = rt.functions.get(&(function as usize)).cloned() else {
            return fail(code::INVALID_DEVICE_FUNCTION);
        };
        let m = rt.module_of(source)?;
        let module = rt.modules[m]
            .as_ref()
            .ok_or(Failure::Code(code::INVALID_HANDLE))?;
        let k = module
            .co
            .kernel(&name)
            .map_err(|_| Failure::Code(code::INVALID_DEVICE_FUNCTION))?;
        let max = k
            .metadata
            .as_ref()
            .and_then(|m| m.max_flat_workgroup_size)
            .unwrap_or(1024)
            .min(1024) as i32;
        Ok((k.descriptor.group_segment_fixed_size as u64, max))
    })
}

#[no_mangle]
pub extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut i32,
    function: *const c_void,
    block: i32,
    dynamic_lds: usize,
) -> i32 {
    entry("hipOccupancyMaxActiveBlocksPerMultiprocessor", || {
        let (lds, max) = kernel_limits(function)?;
        if block <= 0 || block > max {
            return out(blocks, 0);
        }
        out(blocks, resident_blocks(block, lds + dynamic_lds as u64))
    })
}

#[no_mangle]
pub extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid: *mut i32,
    block: *mut i32,
    function: *const c_void,
    dynamic_lds: usize,
    limit: i32,
) -> i32 {
    entry("hipOccupancyMaxPotentialBlockSize", || {
        let (lds, max) = kernel_limits(function)?;
        let b = if limit > 0 { max.min(limit) } else { max };
        let per_cu = resident_blocks(b, lds + dynamic_lds as u64).max(1);
        out(block, b)?;
        out(grid, per_cu * props::COMPUTE_UNITS)
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceGetLimit(value: *mut usize, limit: i32) -> i32 {
    // hipLimitPrintfFifoSize (1), hipLimitMallocHeapSize (2): no printf FIFO and no device heap here.
    entry("hipDeviceGetLimit", || match limit {
        1 | 2 => out(value, 0),
        _ => fail(code::INVALID_VALUE),
    })
}

// ---- Every other function of ROCm's ABI: a stub that stops the program naming the call; the symbol
// versions of all exports (generated by build.rs from abi.txt) ----

include!(concat!(env!("OUT_DIR"), "/exports.rs"));
