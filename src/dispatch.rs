//! From a manifest and a code object to a dispatch both backends run the same way: the lifted program, the
//! launch (initial SGPRs from the kernel descriptor's ABI), the buffers, and the kernarg segment and AQL
//! dispatch packet filled as a real HSA queue would fill them — at device addresses the caller chooses, so the
//! host evaluator and the Vulkan run see identical memory.

use crate::manifest::{ArgValue, Manifest};
use anyhow::{bail, Context, Result};
use rdna2spv_codeobj::descriptor::SgprKind;
use rdna2spv_codeobj::metadata::ValueKind;
use rdna2spv_codeobj::{CodeObject, Kernel};
use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::LiftOptions;
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::LaunchSegment;

/// A buffer of the dispatch.
#[derive(Debug, Clone)]
pub struct Buffer {
    pub name: String,
    pub data: Vec<u8>,
    /// Written to `<out>/<output>.bin` after the run.
    pub output: Option<String>,
    /// Compared between backends as a multiset of 32-bit words (see `manifest::Arg::unordered`).
    pub unordered: bool,
}

/// Everything a backend needs.
#[derive(Debug, Clone)]
pub struct Plan {
    pub kernel: Kernel,
    pub program: Program,
    pub launch: Launch,
    /// Argument buffers, then `kernarg`, then `dispatch_packet` (when the kernel reads one).
    pub buffers: Vec<Buffer>,
    /// (kernarg offset, buffer index, size) of each pointer argument.
    pointers: Vec<(usize, usize, usize)>,
    kernarg_index: usize,
    packet_index: Option<usize>,
    /// A raw `code` manifest's register setup (lifted again by `bind` once addresses are known).
    raw: Option<crate::raw::RawBinding>,
    /// The code object's image, when the kernel reads its own address or the manifest names globals.
    image: Option<PlacedImage>,
}

/// The code object's image in a plan (decision D155): one buffer, `code_object`, laid out from virtual
/// address 0 and relocated by [`Plan::bind`] for the address it gets; the manifest's `[[globals]]`
/// initialisations are written over it after relocation, and its global outputs are views of it.
#[derive(Debug, Clone)]
struct PlacedImage {
    /// Index of the `code_object` buffer in [`Plan::buffers`].
    index: usize,
    image: rdna2spv_codeobj::Image,
    /// (offset, bytes) written over the relocated image.
    inits: Vec<(usize, Vec<u8>)>,
    /// (output name, offset, size) of each global written out after the run.
    outputs: Vec<(String, usize, usize)>,
}

/// The name of the code object image's buffer (host evaluator messages name it).
pub const IMAGE_BUFFER: &str = "code_object";

pub const AQL_PACKET_BYTES: usize = 64;

/// The largest kernarg segment a plan builds (metadata asking for more is refused, not allocated).
pub const MAX_KERNARG_BYTES: u64 = 1 << 20;

/// The byte range of argument `a` in a kernarg segment of `len` bytes: (offset, size), or an error when the
/// metadata puts it (or a part of it) outside — overflow included.
fn segment_range(a: &rdna2spv_codeobj::metadata::KernelArg, len: usize) -> Result<(usize, usize)> {
    match a.offset.checked_add(a.size) {
        Some(end) if end <= len as u64 => Ok((a.offset as usize, a.size as usize)),
        _ => bail!(
            "at offset {} (+{} bytes) is outside the kernarg segment ({len} bytes)",
            a.offset,
            a.size
        ),
    }
}

/// Bytes of the kernarg buffer the runner gives `kernel`: the metadata's kernarg segment size (else the
/// descriptor's), at least [`AQL_PACKET_BYTES`].
pub fn kernarg_bytes(kernel: &Kernel) -> u64 {
    kernel
        .metadata
        .as_ref()
        .and_then(|m| m.kernarg_segment_size)
        .unwrap_or(kernel.descriptor.kernarg_size as u64)
        .max(AQL_PACKET_BYTES as u64)
}

/// The launch segments this runner gives `kernel` (decision D132): the kernarg buffer
/// ([`kernarg_bytes`]) and the dispatch packet ([`AQL_PACKET_BYTES`], when the kernel asks for the
/// dispatch pointer), at the SGPR pair its ABI loads each address into ([`initial_sgprs`]). A pair the
/// ABI names more than once is left out.
pub fn launch_segments(kernel: &Kernel) -> [Option<LaunchSegment>; 2] {
    let abi = &kernel.abi;
    let pair = |kind: SgprKind| {
        let mut it = abi.user_sgprs.iter().filter(|s| s.kind == kind);
        match (it.next(), it.next()) {
            (Some(s), None) if !abi.system_sgprs.iter().any(|t| t.kind == kind) => {
                Some(s.first as u16)
            }
            _ => None,
        }
    };
    [
        pair(SgprKind::KernargSegmentPtr).map(|sgpr| LaunchSegment {
            sgpr,
            bytes: kernarg_bytes(kernel) as u32,
        }),
        pair(SgprKind::DispatchPtr).map(|sgpr| LaunchSegment {
            sgpr,
            bytes: AQL_PACKET_BYTES as u32,
        }),
    ]
}

pub fn target_of(co: &CodeObject) -> Target {
    co.target
        .gpu
        .name()
        .and_then(Target::from_name)
        .unwrap_or(Target::Gfx1030)
}

/// How to lift `kernel` of `co`: its sub-target, wave size and private segment buffer SGPRs.
pub fn lift_options(co: &CodeObject, kernel: &Kernel) -> LiftOptions {
    LiftOptions {
        target: target_of(co),
        wave_size: kernel.abi.wave_size,
        private_segment_buffer: kernel
            .abi
            .user_sgprs
            .iter()
            .find(|s| s.kind == SgprKind::PrivateSegmentBuffer)
            .map(|s| s.first as u16),
    }
}

/// Lifts a kernel of a code object, inlining its calls to the object's functions (D099).
pub fn lift_kernel(
    co: &CodeObject,
    kernel: &Kernel,
) -> std::result::Result<rdna2spv_ir::Program, rdna2spv_ir::lift::LiftError> {
    let callees: Vec<rdna2spv_ir::lift::Callee> = co
        .functions
        .iter()
        .map(|f| rdna2spv_ir::lift::Callee {
            name: f.name.clone(),
            address: f.address,
            code: f.code.clone(),
        })
        .collect();
    let space = rdna2spv_ir::lift::CallSpace {
        kernel_address: kernel.code_address,
        callees: &callees,
    };
    rdna2spv_ir::lift::lift_with_calls(
        &kernel.name,
        &kernel.code,
        lift_options(co, kernel),
        &rdna2spv_ir::lift::LiftExtras {
            vgpr_count: Some(kernel.abi.vgpr_count),
            // COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT is in blocks of 8 (LLVM AMDGPUUsage; D153).
            shared_vgprs: u32::from(kernel.descriptor.compute_pgm_rsrc3.shared_vgpr_count) * 8,
            initial_mode: Some(crate::float_mode::initial_mode(kernel)),
            ..Default::default()
        },
        &space,
    )
}

impl Plan {
    /// (first, count) of the kernel's wave64 shared VGPRs, if it has any (D153): above the VGPR allocation,
    /// COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT × 8 (a raw manifest's `[abi] vgprs` and `shared_vgprs`).
    pub fn shared_vgprs(&self) -> Option<(u16, u16)> {
        let n = u32::from(self.kernel.descriptor.compute_pgm_rsrc3.shared_vgpr_count) * 8;
        (n > 0 && self.kernel.abi.wave_size == 64)
            .then_some((self.kernel.abi.vgpr_count as u16, n as u16))
    }

    pub fn new(m: &Manifest) -> Result<Plan> {
        if m.code.is_some() {
            return Plan::new_raw(m);
        }
        let path = m.resolve(m.code_object.as_ref().context("no code_object")?);
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let co =
            CodeObject::parse_any(&bytes).with_context(|| format!("loading {}", path.display()))?;
        let kernel = match &m.kernel {
            Some(k) => co.kernel(k)?.clone(),
            None if co.kernels.len() == 1 => co.kernels[0].clone(),
            None => bail!(
                "{}: several kernels; name one with `kernel` ({})",
                path.display(),
                co.kernel_names().join(", ")
            ),
        };
        let abi = kernel.abi.clone();
        let program =
            lift_kernel(&co, &kernel).with_context(|| format!("lifting kernel {}", kernel.name))?;
        let meta = kernel
            .metadata
            .clone()
            .with_context(|| format!("kernel {} has no metadata", kernel.name))?;

        // Explicit arguments against the metadata.
        let explicit: Vec<_> = meta.explicit_args().cloned().collect();
        if explicit.len() != m.args.len() {
            bail!(
                "kernel {} takes {} explicit arguments; the manifest gives {}",
                kernel.name,
                explicit.len(),
                m.args.len()
            );
        }
        let kernarg_size = kernarg_bytes(&kernel);
        if kernarg_size > MAX_KERNARG_BYTES {
            bail!(
                "kernel {}: a kernarg segment of {kernarg_size} bytes (at most {MAX_KERNARG_BYTES})",
                kernel.name
            );
        }
        let mut kernarg = vec![0u8; kernarg_size as usize];
        let mut buffers = Vec::new();
        let mut pointers = Vec::new();
        for (i, a) in explicit.iter().enumerate() {
            let (off, size) = segment_range(a, kernarg.len())
                .with_context(|| format!("kernel {}: argument {i}", kernel.name))?;
            match (m.arg_value(i)?, &a.value_kind) {
                (
                    ArgValue::Buffer {
                        data,
                        output,
                        unordered,
                    },
                    ValueKind::GlobalBuffer,
                ) => {
                    if size != 8 {
                        bail!("argument {i}: a {size}-byte global pointer");
                    }
                    let name = output.clone().unwrap_or_else(|| format!("arg{i}"));
                    pointers.push((off, buffers.len(), size));
                    buffers.push(Buffer {
                        name,
                        data,
                        output,
                        unordered,
                    });
                }
                (ArgValue::Scalar { bytes, width, kind }, ValueKind::ByValue) => {
                    let given = bytes.len();
                    match (width, kind) {
                        (Some(_), "bytes") if given != size => bail!(
                            "argument {i}: `bytes` gives {given} bytes, the kernel's argument takes {size} bytes"
                        ),
                        (Some(w), _) if w as usize != size => bail!(
                            "argument {i}: the manifest gives a {w}-byte {kind}, the kernel takes {size} bytes"
                        ),
                        (None, _) if given > size => bail!(
                            "argument {i}: `bits` is a {given}-byte value, wider than the argument's {size} bytes"
                        ),
                        _ => {}
                    }
                    // Zero-extended: `bits` may give fewer bytes than the argument holds.
                    kernarg[off..off + given].copy_from_slice(&bytes);
                }
                (v, k) => bail!(
                    "argument {i} is a {} in the kernel but {} in the manifest",
                    k.as_str(),
                    match v {
                        ArgValue::Buffer { .. } => "a buffer".to_string(),
                        ArgValue::Scalar { kind, .. } => format!("a by-value `{kind}`"),
                    }
                ),
            }
        }
        fill_hidden_args(&meta, &mut kernarg, m.grid, m.workgroup);
        let kernarg_index = buffers.len();
        buffers.push(Buffer {
            name: "kernarg".into(),
            data: kernarg,
            output: None,
            unordered: false,
        });
        let needs_packet = abi
            .user_sgprs
            .iter()
            .any(|s| s.kind == SgprKind::DispatchPtr);
        let packet_index = needs_packet.then(|| {
            buffers.push(Buffer {
                name: "dispatch_packet".into(),
                data: vec![0; AQL_PACKET_BYTES],
                output: None,
                unordered: false,
            });
            buffers.len() - 1
        });
        let image = place_image(m, &co, &program, &mut buffers)?;
        let launch = launch_for(
            &kernel,
            m.grid,
            m.workgroup,
            m.max_steps_per_wave.unwrap_or(1 << 24),
        )?;
        Ok(Plan {
            kernel,
            program,
            launch,
            buffers,
            pointers,
            kernarg_index,
            packet_index,
            raw: None,
            image,
        })
    }

    /// Fills the pointers in the kernarg segment, the dispatch packet and the initial SGPRs for buffers placed at
    /// `addresses` (one per buffer, in order).
    pub fn bind(&mut self, addresses: &[u64], grid: [u32; 3]) -> Result<()> {
        if addresses.len() != self.buffers.len() {
            bail!(
                "{} addresses for {} buffers",
                addresses.len(),
                self.buffers.len()
            );
        }
        if self.raw.is_some() {
            return self.bind_raw(addresses);
        }
        for &(off, buf, size) in &self.pointers {
            let k = &mut self.buffers[self.kernarg_index].data;
            k[off..off + size].copy_from_slice(&addresses[buf].to_le_bytes()[..size]);
        }
        let code_base = match &self.image {
            Some(im) => {
                let base = addresses[im.index];
                let mut data = im
                    .image
                    .place(base)
                    .with_context(|| format!("relocating the code object for address {base:#x}"))?;
                for (off, bytes) in &im.inits {
                    data[*off..*off + bytes.len()].copy_from_slice(bytes);
                }
                self.buffers[im.index].data = data;
                Some(base)
            }
            None => None,
        };
        self.launch.code_base = code_base;
        let kernarg_address = addresses[self.kernarg_index];
        if let Some(p) = self.packet_index {
            // kernel_object: the descriptor's address in the placed image (its virtual address without one).
            let kernel_object = code_base
                .unwrap_or(0)
                .wrapping_add(self.kernel.descriptor_address);
            self.buffers[p].data = dispatch_packet(
                &self.kernel,
                grid,
                self.launch.workgroup,
                kernel_object,
                kernarg_address,
            )
            .to_vec();
        }
        let packet_address = self.packet_index.map(|p| addresses[p]).unwrap_or(0);
        self.launch.sgprs = initial_sgprs(&self.kernel.abi, kernarg_address, packet_address);
        Ok(())
    }

    /// Whether [`bind`](Self::bind) leaves the program as it is: true except for a raw plan, which lifts
    /// its code again at the bound addresses. The bench reuses a lowered module across runs only then
    /// (D149).
    pub fn program_fixed(&self) -> bool {
        self.raw.is_none()
    }

    /// The launch segments for the lowering ([`launch_segments`]; none for a raw plan, whose registers
    /// the manifest's `[abi]` table sets).
    pub fn segments(&self) -> [Option<LaunchSegment>; 2] {
        if self.raw.is_some() {
            return [None, None];
        }
        launch_segments(&self.kernel)
    }

    /// The module the runner dispatches for this plan with `profile` and `mapping` (launch segments
    /// included), lowered from a copy bound at the host evaluator's addresses ([`host_addresses`]):
    /// binding sets the initial SGPRs, which the lowering reads (an unbound plan hoists no
    /// kernel-argument load, D118, and finds fewer uniform branches, D141). For static counts of the
    /// dispatched module; the runner lowers again at the device's own addresses.
    pub fn module(
        &self,
        profile: &rdna2spv_spirv::profile::DeviceProfile,
        mapping: rdna2spv_spirv::lower::Mapping,
    ) -> Result<Vec<u32>> {
        let mut bound = self.clone();
        let addresses = host_addresses(&bound.buffers);
        let grid = bound.launch.grid;
        bound.bind(&addresses, grid)?;
        Ok(rdna2spv_spirv::lower::lower_with(
            &bound.program,
            &rdna2spv_vulkan::kernel_layout(&bound.launch),
            profile,
            &rdna2spv_spirv::lower::LowerOptions {
                mapping,
                segments: bound.segments(),
                ..Default::default()
            },
        )?)
    }

    /// Index of the kernarg buffer in [`Plan::buffers`].
    pub fn kernarg_index(&self) -> usize {
        self.kernarg_index
    }

    /// Appends to a run's `buffers` one output buffer per `[[globals]]` output: the global's bytes in the
    /// image buffer (both backends call this on their results, so the comparison and the files see them).
    pub fn add_global_outputs(&self, buffers: &mut Vec<Buffer>) {
        let Some(im) = &self.image else { return };
        let Some(data) = buffers.get(im.index).map(|b| b.data.clone()) else {
            return;
        };
        for (name, off, size) in &im.outputs {
            buffers.push(Buffer {
                name: format!("global {name}"),
                data: data.get(*off..*off + *size).unwrap_or_default().to_vec(),
                output: Some(name.clone()),
                unordered: false,
            });
        }
    }
}

/// The code object's image as a buffer of the plan (D155), when the program reads its own address
/// (`s_getpc_b64`, calls: `Node::CodeBase`) or the manifest names globals; `None` otherwise, so a
/// kernel that cannot reach its image runs with the buffers it had before.
fn place_image(
    m: &Manifest,
    co: &CodeObject,
    program: &Program,
    buffers: &mut Vec<Buffer>,
) -> Result<Option<PlacedImage>> {
    let reads_base = program
        .nodes
        .iter()
        .any(|(_, n)| matches!(n, rdna2spv_ir::Node::CodeBase));
    if !reads_base && m.globals.is_empty() {
        return Ok(None);
    }
    let image = match &co.image {
        Ok(im) => im.clone(),
        Err(e) if !m.globals.is_empty() => {
            bail!("[[globals]]: the code object has no load image: {e}")
        }
        // The program's addresses then start at 0, as before images were placed.
        Err(_) => return Ok(None),
    };
    let mut inits = Vec::new();
    let mut outputs: Vec<(String, usize, usize)> = Vec::new();
    for g in &m.globals {
        let Some(sym) = image.global(&g.name) else {
            let mut names: Vec<&str> = image.globals.iter().map(|g| g.name.as_str()).collect();
            names.truncate(20);
            bail!(
                "[[globals]]: the code object has no global {:?} (globals: {})",
                g.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            );
        };
        let (off, size) = (sym.address as usize, sym.size as usize);
        if let Some(f) = &g.file {
            let path = m.resolve(f);
            let bytes = std::fs::read(&path)
                .with_context(|| format!("global {}: reading {}", g.name, path.display()))?;
            if bytes.len() != size {
                bail!(
                    "global {}: {} holds {} bytes; the global has {size}",
                    g.name,
                    path.display(),
                    bytes.len()
                );
            }
            inits.push((off, bytes));
        }
        // Output names were checked with every other output's when the manifest was read (D152).
        if let Some(o) = &g.output {
            outputs.push((o.clone(), off, size));
        }
        if g.file.is_none() && g.output.is_none() {
            bail!("global {}: give `file`, `output` or both", g.name);
        }
    }
    let index = buffers.len();
    buffers.push(Buffer {
        name: IMAGE_BUFFER.into(),
        // Relocated for its address by `bind`.
        data: vec![0; image.size as usize],
        output: None,
        unordered: false,
    });
    Ok(Some(PlacedImage {
        index,
        image,
        inits,
        outputs,
    }))
}

impl Plan {
    /// A raw `code` manifest: the code bytes, the `[abi]` register setup and the named `[[buffers]]`, then
    /// the 32-bit window holding the emulated descriptor sets (when any SGPR points to one).
    fn new_raw(m: &Manifest) -> Result<Plan> {
        use crate::raw::{check, target_of, window_layout, RawBinding};
        let code_path = m.resolve(m.code.as_ref().context("no code")?);
        let code = std::fs::read(&code_path)
            .with_context(|| format!("reading {}", code_path.display()))?;
        if code.is_empty() || code.len() % 4 != 0 {
            bail!(
                "{}: {} bytes is not a whole number of instruction words",
                code_path.display(),
                code.len()
            );
        }
        let abi = m
            .abi
            .clone()
            .context("a raw `code` manifest needs an [abi] table")?;
        let names: Vec<String> = m
            .buffers
            .iter()
            .map(|b| b.name.clone())
            .chain(m.images.iter().map(|i| i.name.clone()))
            .collect();
        check(&abi, &names)?;
        let name = m.kernel.clone().unwrap_or_else(|| {
            code_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "code".into())
        });
        let mut buffers = Vec::new();
        let mut index = std::collections::BTreeMap::new();
        for b in &m.buffers {
            if index.insert(b.name.clone(), buffers.len()).is_some() {
                bail!("buffer {:?} is named twice", b.name);
            }
            let data = match (&b.file, b.size) {
                (Some(f), None) => {
                    let p = m.resolve(f);
                    std::fs::read(&p)
                        .with_context(|| format!("buffer {}: reading {}", b.name, p.display()))?
                }
                (None, Some(n)) if n <= 1 << 30 => vec![0; n as usize],
                (None, Some(n)) => {
                    bail!("buffer {}: {n} bytes is too large (1 GiB at most)", b.name)
                }
                _ => bail!("buffer {}: give exactly one of `file` and `size`", b.name),
            };
            buffers.push(Buffer {
                name: b.name.clone(),
                data,
                output: b.output.then(|| b.name.clone()),
                unordered: b.unordered,
            });
        }
        // Images (D183): a buffer each, holding the texels in D183's layout.
        let mut images = std::collections::BTreeMap::new();
        for im in m.images.iter().filter(|i| i.view_of.is_none()) {
            let desc = im.desc()?;
            if index.insert(im.name.clone(), buffers.len()).is_some() {
                bail!("{:?} names a buffer and an image, or two images", im.name);
            }
            let data = match &im.file {
                Some(f) => {
                    let p = m.resolve(f);
                    let d = std::fs::read(&p)
                        .with_context(|| format!("image {}: reading {}", im.name, p.display()))?;
                    if d.len() as u64 != desc.size() {
                        bail!(
                            "image {}: {} holds {} bytes, the image's layout {} (D183)",
                            im.name,
                            p.display(),
                            d.len(),
                            desc.size()
                        );
                    }
                    d
                }
                None => vec![0; desc.size() as usize],
            };
            buffers.push(Buffer {
                name: im.name.clone(),
                data,
                output: im.output.then(|| im.name.clone()),
                unordered: false,
            });
            images.insert(
                im.name.clone(),
                crate::images::Bound {
                    desc,
                    base_level: 0,
                    levels: desc.levels,
                    ssharp: im.sampler.as_ref().map(|s| s.words()).transpose()?,
                },
            );
        }
        // Views: another T# of an image's memory.
        for im in &m.images {
            let Some(of) = &im.view_of else { continue };
            let Some(parent) = images.get(of).filter(|b| b.levels == b.desc.levels) else {
                bail!(
                    "image {:?}: view_of {of:?} names no image in [[images]]",
                    im.name
                );
            };
            let bound = im.view(&parent.desc)?;
            let i = index[of];
            if index.insert(im.name.clone(), i).is_some() {
                bail!("{:?} names a buffer and an image, or two images", im.name);
            }
            images.insert(im.name.clone(), bound);
        }
        let (set_offsets, window_bytes) = window_layout(&abi, &images);
        let window = (!set_offsets.is_empty()).then(|| {
            buffers.push(Buffer {
                name: "address32_window".into(),
                data: vec![0; window_bytes],
                output: None,
                unordered: false,
            });
            buffers.len() - 1
        });
        let opts = LiftOptions {
            target: target_of(&abi)?,
            wave_size: abi.wave_size,
            private_segment_buffer: None,
        };
        let raw = RawBinding {
            code: code.clone(),
            name: name.clone(),
            opts,
            abi: abi.clone(),
            index,
            window,
            set_offsets,
            images,
        };
        let program = raw.lift(None)?;
        let mut kd = [0u8; rdna2spv_codeobj::descriptor::KERNEL_DESCRIPTOR_SIZE];
        kd[0..4].copy_from_slice(&abi.lds_bytes.to_le_bytes());
        kd[4..8].copy_from_slice(&abi.scratch_bytes.to_le_bytes());
        let descriptor = rdna2spv_codeobj::descriptor::KernelDescriptor::decode(&kd);
        let mut descriptor = descriptor;
        // The shared VGPRs as a descriptor would give them (D153; Plan::shared_vgprs).
        descriptor.compute_pgm_rsrc3 =
            rdna2spv_codeobj::descriptor::Rsrc3::from_raw(abi.shared_vgprs / 8);
        let mut kabi = descriptor.abi();
        kabi.wave_size = abi.wave_size;
        if let Some(v) = abi.vgprs {
            kabi.vgpr_count = v;
        }
        kabi.user_sgprs.clear();
        kabi.system_sgprs.clear();
        kabi.scratch = abi.scratch_bytes > 0;
        let kernel = Kernel {
            name: name.clone(),
            descriptor_symbol: String::new(),
            descriptor_address: 0,
            descriptor_offset: 0,
            descriptor,
            abi: kabi,
            code_address: 0,
            code_offset: 0,
            code_symbol: None,
            code_extent: rdna2spv_codeobj::CodeExtent::SectionEnd,
            code_size: code.len() as u64,
            code,
            metadata: None,
        };
        let launch = Launch {
            wave_size: abi.wave_size,
            grid: m.grid,
            workgroup: m.workgroup,
            sgprs: Vec::new(),
            workitem_id_vgprs: abi.workitem_id_vgprs,
            lds_bytes: abi.lds_bytes,
            scratch_bytes: abi.scratch_bytes,
            max_steps_per_wave: m.max_steps_per_wave.unwrap_or(1 << 24),
            code_base: None,
        };
        Ok(Plan {
            kernel,
            program,
            launch,
            buffers,
            pointers: Vec::new(),
            kernarg_index: usize::MAX,
            packet_index: None,
            raw: Some(raw),
            image: None,
        })
    }

    fn bind_raw(&mut self, addresses: &[u64]) -> Result<()> {
        let raw = self.raw.as_ref().context("not a raw plan")?;
        let sizes: Vec<u64> = self.buffers.iter().map(|b| b.data.len() as u64).collect();
        let (sgprs, window) = raw.sgprs(addresses, &sizes)?;
        let program = raw.lift(Some(addresses))?;
        if let Some(w) = raw.window {
            let d = &mut self.buffers[w].data;
            d[..window.len()].copy_from_slice(&window);
        }
        self.launch.sgprs = sgprs;
        self.program = program;
        Ok(())
    }
}

/// Writes the hidden kernel arguments of `meta` into `kernarg` as the HSA runtime fills them (code object
/// v5 names; v4's global offsets, printf/hostcall buffers and queue pointers are 0): block counts, group
/// sizes, remainders and the grid's dimensionality for a `grid` of work-items in `workgroup`s. Arguments
/// past the end of `kernarg` are left out.
pub fn fill_hidden_args(
    meta: &rdna2spv_codeobj::KernelMetadata,
    kernarg: &mut [u8],
    grid: [u32; 3],
    workgroup: [u32; 3],
) {
    let groups: Vec<u32> = (0..3).map(|d| grid[d].div_ceil(workgroup[d])).collect();
    let dims = grid_dims(grid) as u64;
    for a in meta.hidden_args() {
        // Metadata that puts a hidden argument outside the segment leaves it out (D152: no overflow, no panic).
        let Ok((off, size)) = segment_range(a, kernarg.len()) else {
            continue;
        };
        let v: u64 = match a.value_kind {
            ValueKind::HiddenBlockCountX => groups[0] as u64,
            ValueKind::HiddenBlockCountY => groups[1] as u64,
            ValueKind::HiddenBlockCountZ => groups[2] as u64,
            ValueKind::HiddenGroupSizeX => workgroup[0] as u64,
            ValueKind::HiddenGroupSizeY => workgroup[1] as u64,
            ValueKind::HiddenGroupSizeZ => workgroup[2] as u64,
            ValueKind::HiddenRemainderX => (grid[0] % workgroup[0]) as u64,
            ValueKind::HiddenRemainderY => (grid[1] % workgroup[1]) as u64,
            ValueKind::HiddenRemainderZ => (grid[2] % workgroup[2]) as u64,
            ValueKind::HiddenGridDims => dims,
            _ => 0,
        };
        // A hidden argument wider than 8 bytes gets its value in the first 8 and zeros after (D152).
        let n = size.min(8);
        kernarg[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

/// 1, 2 or 3: the highest dimension of `grid` with more than one work-item.
fn grid_dims(grid: [u32; 3]) -> u16 {
    if grid[2] > 1 {
        3
    } else if grid[1] > 1 {
        2
    } else {
        1
    }
}

/// The `hsa_kernel_dispatch_packet_t` a queue gives `kernel` for a `grid` of work-items in `workgroup`s:
/// header type, dimensions, sizes, the descriptor's segment sizes, `kernel_object` (the descriptor's
/// address) and the kernarg address.
pub fn dispatch_packet(
    kernel: &Kernel,
    grid: [u32; 3],
    workgroup: [u32; 3],
    kernel_object: u64,
    kernarg_address: u64,
) -> [u8; AQL_PACKET_BYTES] {
    let mut d = [0u8; AQL_PACKET_BYTES];
    d[0..2].copy_from_slice(&2u16.to_le_bytes()); // HSA_PACKET_TYPE_KERNEL_DISPATCH
    d[2..4].copy_from_slice(&grid_dims(grid).to_le_bytes());
    for i in 0..3 {
        d[4 + 2 * i..6 + 2 * i].copy_from_slice(&(workgroup[i] as u16).to_le_bytes());
        d[12 + 4 * i..16 + 4 * i].copy_from_slice(&grid[i].to_le_bytes());
    }
    d[24..28].copy_from_slice(&kernel.descriptor.private_segment_fixed_size.to_le_bytes());
    d[28..32].copy_from_slice(&kernel.descriptor.group_segment_fixed_size.to_le_bytes());
    d[32..40].copy_from_slice(&kernel_object.to_le_bytes());
    d[40..48].copy_from_slice(&kernarg_address.to_le_bytes());
    d
}

/// The evaluator's launch of `kernel` (no initial SGPRs and no image address yet: binding sets them):
/// wave size, sizes, LDS and scratch from the descriptor. A kernel with a dynamic stack is refused.
pub fn launch_for(
    kernel: &Kernel,
    grid: [u32; 3],
    workgroup: [u32; 3],
    max_steps_per_wave: u64,
) -> Result<Launch> {
    let abi = &kernel.abi;
    let uses_dynamic_stack = kernel
        .metadata
        .as_ref()
        .and_then(|m| m.uses_dynamic_stack)
        .unwrap_or(false);
    if abi.scratch && uses_dynamic_stack {
        bail!(
            "kernel {} uses a dynamic stack (its scratch size is not known before the run), which is not supported yet",
            kernel.name
        );
    }
    Ok(Launch {
        wave_size: abi.wave_size,
        grid,
        workgroup,
        sgprs: Vec::new(),
        workitem_id_vgprs: abi.workitem_id_vgprs.len() as u32,
        lds_bytes: kernel.descriptor.group_segment_fixed_size,
        scratch_bytes: if abi.scratch
            || abi
                .user_sgprs
                .iter()
                .any(|s| s.kind == SgprKind::PrivateSegmentBuffer)
        {
            kernel.descriptor.private_segment_fixed_size
        } else {
            0
        },
        max_steps_per_wave,
        code_base: None,
    })
}

/// The private segment buffer V# this runtime gives every wave (D010): base 0 (word 0 and the low half of
/// word 1), stride 0, SWIZZLE_ENABLE (word 1 bit 31); NUM_RECORDS 0xffffffff (the runtime checks bounds
/// itself); word 3: ADD_TID_ENABLE (bit 23) and INDEX_STRIDE (bits 22:21) = the wave size (2: 32, 3: 64),
/// element size 4 (fixed on gfx10). The lifter relies on exactly this layout: a lane's swizzled address is
/// a byte of the wave's own scratch region (`Space::Scratch`), so each wave's offset is 0.
pub fn private_segment_buffer(wave_size: u32) -> [u32; 4] {
    let index_stride = if wave_size == 64 { 3 } else { 2 };
    [0, 1 << 31, u32::MAX, 1 << 23 | index_stride << 21]
}

/// The initial SGPRs of every wave, from the kernel descriptor's ABI (LLVM AMDGPUUsage, "Initial Kernel
/// Execution State"): the kernarg and dispatch-packet addresses, workgroup ids, the private segment buffer
/// ([`private_segment_buffer`]) and wave offset (0: every wave has its own scratch region), and zero for what
/// this runtime does not provide (queue, dispatch id, flat scratch init, private segment size).
pub fn initial_sgprs(
    abi: &rdna2spv_codeobj::Abi,
    kernarg_address: u64,
    packet_address: u64,
) -> Vec<(u16, SgprInit)> {
    let mut sgprs = Vec::new();
    let put64 = |first: u32, v: u64, out: &mut Vec<(u16, SgprInit)>| {
        out.push((first as u16, SgprInit::Const(v as u32)));
        out.push((first as u16 + 1, SgprInit::Const((v >> 32) as u32)));
    };
    for s in abi.user_sgprs.iter().chain(&abi.system_sgprs) {
        match s.kind {
            SgprKind::KernargSegmentPtr => put64(s.first, kernarg_address, &mut sgprs),
            SgprKind::DispatchPtr => put64(s.first, packet_address, &mut sgprs),
            SgprKind::WorkgroupIdX => sgprs.push((s.first as u16, SgprInit::WorkgroupId(0))),
            SgprKind::WorkgroupIdY => sgprs.push((s.first as u16, SgprInit::WorkgroupId(1))),
            SgprKind::WorkgroupIdZ => sgprs.push((s.first as u16, SgprInit::WorkgroupId(2))),
            SgprKind::PrivateSegmentBuffer => {
                for (k, w) in private_segment_buffer(abi.wave_size)
                    .into_iter()
                    .enumerate()
                {
                    sgprs.push(((s.first + k as u32) as u16, SgprInit::Const(w)));
                }
            }
            SgprKind::PrivateSegmentWaveOffset => {
                sgprs.push((s.first as u16, SgprInit::ScratchWaveOffset))
            }
            _ => {
                for k in 0..s.count {
                    sgprs.push(((s.first + k) as u16, SgprInit::Const(0)));
                }
            }
        }
    }
    sgprs
}

/// Addresses for the host-only backend: above 4 GiB (so 64-bit address arithmetic is exercised), 64 KiB
/// aligned, with a 64 KiB unmapped gap after every buffer so overruns fault.
pub fn host_addresses(buffers: &[Buffer]) -> Vec<u64> {
    let mut next = 0x1_0000_0000u64;
    buffers
        .iter()
        .map(|b| {
            let a = next;
            next += (b.data.len() as u64).div_ceil(0x1_0000).max(1) * 0x1_0000 + 0x1_0000;
            a
        })
        .collect()
}

/// Runs the plan on the host evaluator at host-chosen addresses; returns the buffers after the run.
pub fn run_host(plan: &mut Plan) -> Result<(Vec<Buffer>, rdna2spv_eval::Stats)> {
    let addresses = host_addresses(&plan.buffers);
    plan.bind(&addresses, plan.launch.grid)?;
    run_host_at(plan, &addresses)
}

/// Runs an already bound plan on the host evaluator with its buffers at `addresses`.
pub fn run_host_at(plan: &Plan, addresses: &[u64]) -> Result<(Vec<Buffer>, rdna2spv_eval::Stats)> {
    let mut mem = Memory::default();
    for (b, &a) in plan.buffers.iter().zip(addresses) {
        mem.add(&b.name, a, b.data.clone())
            .map_err(anyhow::Error::msg)?;
    }
    let stats = rdna2spv_eval::run(&plan.program, &plan.launch, &mut mem)?;
    let mut out = plan
        .buffers
        .iter()
        .map(|b| Buffer {
            data: mem
                .allocation(&b.name)
                .map(|a| a.data.clone())
                .unwrap_or_default(),
            ..b.clone()
        })
        .collect();
    plan.add_global_outputs(&mut out);
    Ok((out, stats))
}
