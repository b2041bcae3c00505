//! `rdna2spv capture` (decision D174): a compute shader compiled by Mesa RADV/ACO — through RADV's null
//! device from GLSL or SPIR-V, or found in a `RADV_DEBUG=shaders` log of a real program — becomes the files
//! `rdna2spv run` takes: the exact code words, ACO's listing and a raw manifest whose `[abi]` is read from
//! the driver's own output.
//!
//! * registers: ACO's `p_startpgm` line gives every argument register and its size; RADV's argument order
//!   for compute shaders (ring offsets, one SGPR per used descriptor set, inline push-constant dwords,
//!   workgroup ids, scratch offset; Mesa 22.x `radv_shader_args.c`) names them, from the final NIR's facts
//!   (sets, push-constant dwords, workgroup-id components). The two must agree exactly, else exit 2.
//! * VGPRs, LDS and scratch: the pipeline executable's statistics; shared VGPRs and the float mode: ACO's
//!   `ac_shader_config` in RADV's pipeline-cache blob ([`radv::config_of_cache`]).
//! * buffers and push constants: named after the shader's bindings (SPIR-V reflection; in a log, NIR's
//!   variable declarations), with placeholder inputs the user replaces.
//!
//! Nothing is written here: [`Capture::files`] returns every file's name and bytes and the caller writes them
//! (the CLI: atomically, after all of them were made).

pub mod image_layout;
pub mod listing;
pub mod radv;
pub mod recipes;
pub mod reflect;

use anyhow::{bail, Context, Result};
use listing::{NirFacts, StartArg};
use reflect::{Binding, PushMember, Scalar};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the user asks of a capture besides the shader.
#[derive(Debug, Clone)]
pub struct Request {
    /// `navi21` (gfx1030) or `navi10` (gfx1010).
    pub family: String,
    /// 32 or 64; None: 64 when compiling, read off the code for a log.
    pub wave: Option<u32>,
    pub entry: Option<String>,
    /// Total invocations per dimension; None: one workgroup.
    pub grid: Option<[u32; 3]>,
    /// `NAME=FILE`: a buffer's initial contents instead of a placeholder.
    pub inputs: Vec<(String, PathBuf)>,
    /// `NAME=BYTES`: a buffer's size instead of the default (one element per invocation).
    pub sizes: Vec<(String, u64)>,
    /// `NAME=VALUE`: a push constant's value instead of 0.
    pub push: Vec<(String, String)>,
    /// `NAME=W,H,D,LEVELS,LAYERS`: a storage image's shape instead of the default (the grid's extent, one
    /// level, one slice; D183).
    pub images: Vec<(String, [u32; 5])>,
    /// `NAME=IMAGE,BASE_LEVEL,LEVELS`: the storage-image binding NAME is a view of some levels of the
    /// binding IMAGE's image (D183), as a program binds per-level views for mip generation.
    pub views: Vec<(String, String, u32, u32)>,
    /// `NAME=FILTER,ADDRESS_U,ADDRESS_V[,ADDRESS_W]`: a combined image sampler's sampler settings
    /// (default nearest, clamp_to_edge; D187, D196), as the raw manifest's `sampler` names them.
    pub samplers: Vec<(String, String, Vec<String>)>,
    /// `NAME=COMPARE`: a depth sampler's compare operation (the fourth `--sampler` field; default
    /// less_or_equal for a shadow sampler; D191).
    pub compares: Vec<(String, String)>,
    /// `NAME=FORMAT`: a sampled image's format (default rgba8_unorm; a shader does not name it).
    pub formats: Vec<(String, String)>,
    /// The output folder (inputs inside it are referenced, not copied).
    pub dir: PathBuf,
    /// The shader's name (file stem); output files are `<name>.<family>.w<wave>.*`.
    pub name: String,
}

impl Request {
    pub fn new(family: &str, dir: &Path, name: &str) -> Self {
        Self {
            family: family.into(),
            wave: None,
            entry: None,
            grid: None,
            inputs: Vec::new(),
            sizes: Vec::new(),
            push: Vec::new(),
            images: Vec::new(),
            views: Vec::new(),
            samplers: Vec::new(),
            compares: Vec::new(),
            formats: Vec::new(),
            dir: dir.into(),
            name: name.into(),
        }
    }
}

/// `navi21` → gfx1030, `navi10` → gfx1010.
pub fn target_of(family: &str) -> Result<&'static str> {
    match family {
        "navi21" => Ok("gfx1030"),
        "navi10" => Ok("gfx1010"),
        f => bail!("--family {f:?}: must be navi21 (gfx1030) or navi10 (gfx1010)"),
    }
}

/// Compiles a GLSL compute shader to SPIR-V with glslangValidator (Vulkan 1.3).
pub fn glsl_to_spirv(src: &Path) -> Result<Vec<u32>> {
    let tmp = std::env::temp_dir().join(format!(
        "rdna2spv-capture-{}-{}.spv",
        std::process::id(),
        src.file_stem().and_then(|s| s.to_str()).unwrap_or("shader")
    ));
    let out = std::process::Command::new("glslangValidator")
        .args(["--target-env", "vulkan1.3", "-S", "comp", "-o"])
        .arg(&tmp)
        .arg(src)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("GLSL input needs glslangValidator, which is not installed: apt-get install glslang-tools (or give a .spv file)")
        }
        Err(e) => return Err(e).context("running glslangValidator"),
    };
    let words = if out.status.success() {
        std::fs::read(&tmp)
            .map_err(anyhow::Error::from)
            .and_then(|b| spirv_words(&b))
    } else {
        Err(anyhow::anyhow!(
            "glslangValidator could not compile {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    };
    let _ = std::fs::remove_file(&tmp);
    words
}

/// A SPIR-V binary's words (little-endian, checked magic).
pub fn spirv_words(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        bail!(
            "not a SPIR-V binary ({} bytes, not a whole number of words with a header)",
            bytes.len()
        );
    }
    let w: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    if w[0] != 0x0723_0203 {
        bail!(
            "not a SPIR-V binary (magic {:#010x}, expected 0x07230203)",
            w[0]
        );
    }
    Ok(w)
}

/// One captured shader, ready to be written.
#[derive(Debug, Clone)]
pub struct Capture {
    pub stem: String,
    pub words: Vec<u32>,
    pub listing: String,
    pub manifest: String,
    /// Other files (placeholder and copied inputs): (name inside the folder, bytes).
    pub extra: Vec<(String, Vec<u8>)>,
}

impl Capture {
    /// Every file to write into the output folder: (file name, bytes).
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut f = vec![
            (
                format!("{}.bin", self.stem),
                self.words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ),
            (
                format!("{}.aco.txt", self.stem),
                self.listing.clone().into_bytes(),
            ),
            (
                format!("{}.toml", self.stem),
                self.manifest.clone().into_bytes(),
            ),
        ];
        f.extend(self.extra.iter().cloned());
        f
    }
}

/// Everything a manifest is made from, whichever route found it.
struct Facts<'a> {
    source: String,
    family: &'a str,
    wave: u32,
    words: Vec<u32>,
    assembly: &'a str,
    aco_ir: &'a str,
    nir: NirFacts,
    stats: &'a [(String, u64)],
    config: Option<radv::ShaderConfig>,
    bindings: Vec<Binding>,
    push: Vec<PushMember>,
}

/// Captures a SPIR-V compute shader through RADV's null device ([`radv::use_null_device`] must have run).
pub fn capture_spirv(spirv: &[u32], source: &str, req: &Request) -> Result<Capture> {
    target_of(&req.family)?;
    let wave = req.wave.unwrap_or(64);
    if wave != 32 && wave != 64 {
        bail!("--wave {wave}: must be 32 or 64");
    }
    let r = reflect::reflect(spirv, req.entry.as_deref())?;
    let out = radv::compile(spirv, &r, wave)?;
    let words = listing::words_of_assembly(&out.assembly)?;
    let nir = listing::nir_facts(&out.nir)?;
    let facts = Facts {
        source: source.to_string(),
        family: &req.family,
        wave,
        words,
        assembly: &out.assembly,
        aco_ir: &out.aco_ir,
        nir,
        stats: &out.stats,
        config: out.config,
        bindings: r.bindings.clone(),
        push: r.push.clone(),
    };
    let mut text = format!(
        "// {}, required subgroup size {wave}, captured by `rdna2spv capture` from {source}\n",
        out.device_name
    );
    write!(
        text,
        "// ==== ACO IR\n{}\n// ==== Assembly\n{}\n",
        out.aco_ir, out.assembly
    )?;
    build(&facts, req, text)
}

/// Captures compute shader `index` (0-based, in the order RADV compiled them) of a `RADV_DEBUG=shaders` log.
pub fn capture_log(
    log: &str,
    index: Option<usize>,
    source: &str,
    req: &Request,
) -> Result<Capture> {
    target_of(&req.family)?;
    let shaders = listing::split_radv_log(log)?;
    let i = match (index, shaders.len()) {
        (Some(i), n) if i < n => i,
        (Some(i), n) => bail!("--shader {i}: the log holds {n} compute shader(s) (0..{})", n - 1),
        (None, 1) => 0,
        (None, n) => bail!(
            "the log holds {n} compute shaders: choose one with --shader 0..{} (their sizes in words: {})",
            n - 1,
            shaders
                .iter()
                .map(|s| listing::words_of_assembly(&s.disasm).map(|w| w.len().to_string()).unwrap_or_else(|_| "?".into()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let s = &shaders[i];
    let words = listing::words_of_assembly(&s.disasm)?;
    let wave = match req.wave {
        Some(w @ (32 | 64)) => w,
        Some(w) => bail!("--wave {w}: must be 32 or 64"),
        None => wave_of_code(&s.disasm).context(
            "the log does not say the wave size and the code does not show it: give --wave 32 or 64",
        )?,
    };
    let nir = listing::nir_facts(&s.nir)?;
    let bindings = nir
        .vars
        .iter()
        .filter(|v| matches!(v.mode.as_str(), "ssbo" | "ubo"))
        .map(|v| Binding {
            // NIR's listing has no descriptor set: a log's shader is taken to use set 0 alone (D175).
            set: 0,
            binding: v.binding,
            name: v.name.clone(),
            readonly: v.readonly || v.mode == "ubo",
            writeonly: v.writeonly,
            stride: Some(4),
            fixed_bytes: 0,
            elem: Scalar::Other,
            uniform: v.mode == "ubo",
            image: None,
        })
        .collect::<Vec<_>>();
    let mut bindings = bindings;
    bindings.sort_by_key(|b| b.binding);
    if let Some(v) = nir
        .vars
        .iter()
        .find(|v| matches!(v.mode.as_str(), "image" | "uniform"))
    {
        bail!("the shader uses {:?} (an image, sampler or texel buffer): a log's images are not described yet (compile the shader with `rdna2spv capture SHADER` instead; D183)", v.name);
    }
    let push = (0..nir.push_bytes.div_ceil(4))
        .map(|d| PushMember {
            name: format!("pc{d}"),
            offset: 4 * d,
            ty: Scalar::Other,
            bytes: 4,
        })
        .collect();
    let facts = Facts {
        source: format!("compute shader {i} of {source}"),
        family: &req.family,
        wave,
        words,
        assembly: &s.disasm,
        aco_ir: &s.aco_ir,
        nir,
        stats: &s.stats,
        config: None,
        bindings,
        push,
    };
    let mut text = format!(
        "// compute shader {i} of the RADV_DEBUG=shaders log {source}, wave{wave}, captured by `rdna2spv capture --from-radv-log`\n"
    );
    write!(
        text,
        "// ==== NIR\n{}\n// ==== ACO IR\n{}\n// ==== Assembly\n{}\n",
        s.nir, s.aco_ir, s.disasm
    )?;
    build(&facts, req, text)
}

/// The wave size ACO's code shows: wave64 code names `exec`/`vcc` whole, wave32 code only `exec_lo`/`vcc_lo`;
/// None when the code names neither (then the user must say).
pub fn wave_of_code(asm: &str) -> Option<u32> {
    let mut w32 = false;
    let mut w64 = false;
    for line in asm.lines() {
        let code = line.split(';').next().unwrap_or("");
        for t in code.split(|c: char| c == ',' || c.is_whitespace()) {
            match t {
                "exec_lo" | "exec_hi" | "vcc_lo" | "vcc_hi" => w32 = true,
                "exec" | "vcc" => w64 = true,
                _ => {}
            }
        }
    }
    // Wave64 code also names the halves (`s_not_b32 vcc_hi, vcc_hi`); wave32 code never names them whole.
    match (w32, w64) {
        (_, true) => Some(64),
        (true, false) => Some(32),
        (false, false) => None,
    }
}

/// What RADV put in one argument register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    RingOffsets,
    DescriptorSet(u32),
    PushDword(u32),
    WorkgroupId(usize),
    ScratchOffset,
}

impl Role {
    fn size(self) -> u32 {
        if self == Role::RingOffsets {
            2
        } else {
            1
        }
    }
}

/// RADV's compute-shader SGPR arguments (Mesa 22.x `radv_declare_shader_args`) for what the NIR reads.
fn predicted_roles(n: &NirFacts, sets: &[u32]) -> Result<Vec<Role>> {
    if !n.unsupported.is_empty() {
        bail!(
            "the shader reads {} (RADV passes them in registers a raw manifest cannot describe yet)",
            n.unsupported.join(", ")
        );
    }
    if n.loads_push_constants && n.push_not_inlinable {
        bail!("the shader reads push constants at a dynamic offset or narrower than 32 bits: RADV then passes a pointer to them, which a raw manifest cannot describe yet");
    }
    let mut roles = vec![Role::RingOffsets];
    roles.extend(sets.iter().copied().map(Role::DescriptorSet));
    roles.extend(
        (0..64)
            .filter(|d| n.push_mask >> d & 1 != 0)
            .map(Role::PushDword),
    );
    roles.extend(
        (0..3)
            .filter(|&i| n.workgroup_ids[i])
            .map(Role::WorkgroupId),
    );
    roles.push(Role::ScratchOffset);
    Ok(roles)
}

fn stat(stats: &[(String, u64)], name: &str) -> Option<u64> {
    stats.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

/// A name usable as a raw-manifest buffer name and file-name part.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "buffer".into()
    } else {
        s
    }
}

fn placeholder(elem: Scalar, bytes: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes as usize);
    let mut i = 0u32;
    while (v.len() as u64) < bytes {
        let w: u32 = match elem {
            // Small exact values, all normal or zero: (i mod 64 − 32) / 4.
            Scalar::F32 => ((i % 64) as f32 - 32.0).mul_add(0.25, 0.0).to_bits(),
            Scalar::I32 => (i as i32).wrapping_sub(100) as u32,
            _ => i,
        };
        v.extend_from_slice(&w.to_le_bytes());
        i += 1;
    }
    v.truncate(bytes as usize);
    v
}

/// Placeholder texels: small exact values for float formats (f32: (i mod 64 − 32) / 4; f16 the same as
/// half bits), a byte pattern otherwise.
fn image_placeholder(format: &str, bytes: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes as usize);
    let mut i = 0u32;
    let f16 = format.starts_with("r") && format.contains("16_float");
    let f32 = format.contains("32_float");
    while (v.len() as u64) < bytes {
        let x = (i % 64) as f32 - 32.0;
        if f32 {
            v.extend_from_slice(&(x * 0.25).to_bits().to_le_bytes());
        } else if f16 {
            // (i mod 64 − 32) / 4 as f16: sign, exponent and 10 mantissa bits, exact.
            let h = half_bits(x * 0.25);
            v.extend_from_slice(&h.to_le_bytes());
        } else {
            v.push((i.wrapping_mul(37).wrapping_add(11) & 0xff) as u8);
        }
        i += 1;
    }
    v.truncate(bytes as usize);
    v
}

/// The f16 bits of a value exactly representable as a normal f16 or zero.
fn half_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = (b >> 13) & 0x3ff;
    (sign | (exp as u32) << 10 | man) as u16
}

/// One `[[images]]` entry of the manifest (D183).
fn image_entry(
    text: &mut String,
    extra: &mut Vec<(String, Vec<u8>)>,
    req: &Request,
    im: &reflect::StorageImage,
    b: &Binding,
    n: &str,
    grid: [u32; 3],
) -> Result<()> {
    if let Some((_, of, base, levels)) = req.views.iter().find(|(m, ..)| m == n) {
        if req.views.iter().any(|(m, ..)| m == of) || of == n {
            bail!("--view {n}={of},...: {of} is a view itself");
        }
        writeln!(text, "\n[[images]]\nname = {n:?}")?;
        writeln!(
            text,
            "view_of = {of:?}                # levels {base}..{} of {of}'s texels",
            base + levels
        )?;
        writeln!(text, "base_level = {base}")?;
        writeln!(text, "levels = {levels}")?;
        return Ok(());
    }
    let [w, h, d, levels, layers] = match req.images.iter().find(|(m, _)| m == n) {
        Some((_, s)) => *s,
        None if im.cube && im.sampled => [grid[0], grid[0], 1, 1, 6],
        None if im.cube => [grid[0], grid[1], 1, 1, 6],
        None => match im.dim {
            "1d" => [grid[0], 1, 1, 1, 1],
            "2d" => [grid[0], grid[1], 1, 1, 1],
            "3d" => [grid[0], grid[1], grid[2], 1, 1],
            "1d_array" => [grid[0], 1, 1, 1, grid[1]],
            _ => [grid[0], grid[1], 1, 1, grid[2]],
        },
    };
    let format = match req.formats.iter().find(|(m, _)| m == n) {
        Some((_, f)) if im.sampled => f.as_str(),
        Some(_) => bail!("--format {n}=...: {n} is a storage image, whose format the shader names"),
        None => im.format,
    };
    let desc = image_layout::ImageDesc::new(format, im.dim, [w, h, d], levels, layers)
        .with_context(|| format!("image {n:?}"))?;
    writeln!(text, "\n[[images]]\nname = {n:?}")?;
    writeln!(text, "format = {format:?}")?;
    if im.sampled {
        let (filter, modes) = match req.samplers.iter().find(|(m, ..)| m == n) {
            Some((_, f, a)) => (f.as_str(), a.clone()),
            None => ("nearest", vec!["clamp_to_edge".to_string(); 2]),
        };
        let address = modes
            .iter()
            .map(|m| format!("{m:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let compare = match req.compares.iter().find(|(m, _)| m == n) {
            Some((_, c)) => format!(", compare = {c:?}"),
            None if im.depth => ", compare = \"less_or_equal\"".to_string(),
            None => String::new(),
        };
        writeln!(
            text,
            "sampler = {{ filter = {filter:?}, address = [{address}]{compare} }}   # a combined image sampler (D187, D191)"
        )?;
    }
    if im.cube {
        writeln!(
            text,
            "dim = {:?}               # a cube: six faces per cube as slices (D183, D196)",
            im.dim
        )?;
    } else {
        writeln!(text, "dim = {:?}", im.dim)?;
    }
    writeln!(text, "extent = [{w}, {h}, {d}]")?;
    writeln!(text, "levels = {levels}")?;
    writeln!(text, "layers = {layers}")?;
    if let Some((_, path)) = req.inputs.iter().find(|(m, _)| m == n) {
        // Referenced when inside the output folder, else copied under its own name.
        let inside = path
            .canonicalize()
            .ok()
            .zip(req.dir.canonicalize().ok())
            .and_then(|(p, d)| p.strip_prefix(d).ok().map(Path::to_path_buf));
        let file = match inside {
            Some(rel) => rel.to_string_lossy().into_owned(),
            None => {
                let data = std::fs::read(path)
                    .with_context(|| format!("reading --input {n}={}", path.display()))?;
                let file = path
                    .file_name()
                    .and_then(|f| f.to_str())
                    .with_context(|| format!("--input {n}={}: not a file name", path.display()))?
                    .to_string();
                if extra.iter().any(|(f, _)| *f == file) {
                    bail!("two --input files are named {file}");
                }
                extra.push((file.clone(), data));
                file
            }
        };
        writeln!(text, "file = {file:?}")?;
    } else if !b.writeonly {
        let file = format!("{}.{n}.in.bin", req.name);
        extra.push((file.clone(), image_placeholder(format, desc.size())));
        writeln!(
            text,
            "file = {file:?}                 # placeholder texels ({} bytes, D183's layout): replace them",
            desc.size()
        )?;
    }
    // Written out when the shader writes it, or writes through a view of it.
    let viewed = req.views.iter().any(|(_, of, ..)| of == n);
    if !b.readonly || viewed {
        writeln!(
            text,
            "output = true                    # written to OUT/{n}.bin"
        )?;
    }
    Ok(())
}

fn build(f: &Facts, req: &Request, mut listing_text: String) -> Result<Capture> {
    let target = target_of(f.family)?;
    let wave = f.wave;
    let stem = format!("{}.{}.w{wave}", req.name, f.family);
    let startpgm = listing::startpgm_line(f.aco_ir)?;
    let args = listing::parse_startpgm(startpgm)?;
    let sgprs: Vec<&StartArg> = args.iter().filter(|a| !a.vgpr).collect();
    let vgprs_args: Vec<&StartArg> = args.iter().filter(|a| a.vgpr).collect();
    // The descriptor sets: those of the shader's bindings, ascending (RADV: one SGPR per used set).
    let mut sets: Vec<u32> = f.bindings.iter().map(|b| b.set).collect();
    sets.sort_unstable();
    sets.dedup();
    let roles = predicted_roles(&f.nir, &sets)?;
    let sizes_ok =
        roles.len() == sgprs.len() && roles.iter().zip(&sgprs).all(|(r, a)| r.size() == a.size);
    if !sizes_ok {
        bail!(
            "ACO's p_startpgm has {} SGPR arguments ({}), but RADV's layout for what the shader reads predicts {} ({:?}): this capture needs arguments rdna2spv does not know yet\n  {startpgm}",
            sgprs.len(),
            sgprs.iter().map(|a| format!("s{}", a.size)).collect::<Vec<_>>().join(" "),
            roles.len(),
            roles
        );
    }
    let workitem_vgprs = match vgprs_args.as_slice() {
        [a] if a.reg == 0 && (1..=3).contains(&a.size) => a.size,
        [] => 1,
        _ => bail!("ACO's p_startpgm passes the local invocation id in {} VGPR argument(s) not starting at v0: not the layout rdna2spv knows\n  {startpgm}", vgprs_args.len()),
    };
    let workgroup = f
        .nir
        .workgroup_size
        .context("the NIR listing has no workgroup-size line")?;
    let grid = req.grid.unwrap_or(workgroup);
    for d in 0..3 {
        if grid[d] == 0 || !grid[d].is_multiple_of(workgroup[d]) {
            bail!("--grid {grid:?} must be a positive multiple of the workgroup size {workgroup:?} in each dimension");
        }
    }
    let invocations: u64 = grid.iter().map(|&g| u64::from(g)).product();

    // The buffers, in (set, binding) order, with unique plain names.
    let mut names: Vec<String> = Vec::new();
    for b in &f.bindings {
        let mut n = sanitize(&b.name);
        if names.contains(&n) {
            n = format!("{n}_{}_{}", b.set, b.binding);
        }
        names.push(n);
    }
    for n in req
        .inputs
        .iter()
        .map(|(n, _)| n)
        .chain(req.sizes.iter().map(|(n, _)| n))
        .chain(req.images.iter().map(|(n, _)| n))
        .chain(req.views.iter().flat_map(|(n, of, _, _)| [n, of]))
    {
        if !names.contains(n) {
            bail!(
                "no buffer named {n:?} (the shader's buffers: {})",
                names.join(", ")
            );
        }
    }

    // Registers.
    let mut sgpr_lines = Vec::new();
    let mut address32_hi = None;
    for (role, a) in roles.iter().zip(&sgprs) {
        let reg = a.reg;
        match *role {
            Role::RingOffsets => {
                sgpr_lines.push(format!("    {{ reg = {reg}, u32 = 0 }},   # ring offsets"));
                sgpr_lines.push(format!("    {{ reg = {}, u32 = 0 }},", reg + 1));
            }
            Role::DescriptorSet(s) => {
                let hi = listing::address32_hi(f.aco_ir, &a.temp).with_context(|| {
                    format!("ACO's IR never pairs descriptor set {s}'s pointer {} with its high half (p_create_vector)", a.temp)
                })?;
                if address32_hi.is_some_and(|h| h != hi) {
                    bail!("ACO's IR pairs the descriptor sets with different high halves");
                }
                address32_hi = Some(hi);
                let in_set: Vec<String> = f
                    .bindings
                    .iter()
                    .zip(&names)
                    .filter(|(b, _)| b.set == s)
                    .map(|(_, n)| format!("{n:?}"))
                    .collect();
                if in_set.is_empty() {
                    bail!("descriptor set {s} has no buffer the capture knows");
                }
                sgpr_lines.push(format!(
                    "    {{ reg = {reg}, descriptor_set = [{}] }},   # set {s}, bindings in order",
                    in_set.join(", ")
                ));
            }
            Role::PushDword(d) => {
                let m = f
                    .push
                    .iter()
                    .find(|m| m.offset <= 4 * d && 4 * d < m.offset + m.bytes.max(4));
                let (label, kind, dword_of) = match m {
                    Some(m) => (
                        m.name.clone(),
                        if m.bytes == 4 { m.ty } else { Scalar::Other },
                        (4 * d - m.offset) / 4,
                    ),
                    None => (format!("pc{d}"), Scalar::Other, 0),
                };
                let given = req
                    .push
                    .iter()
                    .find(|(n, _)| *n == label || *n == d.to_string());
                let value = match (given, kind) {
                    (None, Scalar::F32) => "f32 = 0.0".to_string(),
                    (None, Scalar::I32) => "i32 = 0".to_string(),
                    (None, Scalar::U32) => "u32 = 0".to_string(),
                    (None, _) => "bits = \"0x00000000\"".to_string(),
                    (Some((_, v)), k) => {
                        push_value(v, k, dword_of).with_context(|| format!("--push {label}={v}"))?
                    }
                };
                let what = match m {
                    Some(m) if m.bytes > 4 => {
                        format!("push constant {label}, dword {dword_of} (offset {})", 4 * d)
                    }
                    _ => format!("push constant {label} (offset {})", 4 * d),
                };
                sgpr_lines.push(format!("    {{ reg = {reg}, {value} }},   # {what}"));
            }
            Role::WorkgroupId(i) => {
                sgpr_lines.push(format!("    {{ reg = {reg}, workgroup_id = {i} }},"))
            }
            Role::ScratchOffset => sgpr_lines.push(format!(
                "    {{ reg = {reg}, scratch_wave_offset = true }},"
            )),
        }
    }
    for (n, _) in &req.push {
        let known = f.push.iter().any(|m| m.name == *n)
            || n.parse::<u32>()
                .is_ok_and(|d| f.nir.push_mask >> d & 1 != 0);
        if !known {
            bail!(
                "--push {n}: the shader reads no push constant of that name (it reads: {})",
                roles
                    .iter()
                    .filter_map(|r| match r {
                        Role::PushDword(d) => Some(
                            f.push
                                .iter()
                                .find(|m| m.offset <= 4 * d && 4 * d < m.offset + m.bytes.max(4))
                                .map(|m| m.name.clone())
                                .unwrap_or_else(|| format!("pc{d}"))
                        ),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    // Statistics and ACO's shader config.
    let vgprs = stat(f.stats, "VGPRs");
    let lds = stat(f.stats, "LDS size").unwrap_or(0);
    let scratch = stat(f.stats, "Scratch size").unwrap_or(0);
    let mut notes = Vec::new();
    let (shared, float_mode) = match (f.config, vgprs) {
        (Some(c), Some(v)) => {
            if u64::from(c.num_vgprs) != v {
                bail!(
                    "RADV's pipeline cache says {} VGPRs, its statistics {v}",
                    c.num_vgprs
                );
            }
            (c.num_shared_vgprs, Some(c.float_mode))
        }
        (None, Some(v)) => {
            notes.push(
                "shared_vgprs read off the code (no shader config at hand; D174)".to_string(),
            );
            (
                listing::shared_vgprs_of_code(f.assembly, v as u32, f.family, wave)?,
                None,
            )
        }
        (_, None) => {
            notes.push("no \"VGPRs\" statistic (make the log with RADV_DEBUG=shaders,shaderstats): all 256 VGPRs private".to_string());
            (0, None)
        }
    };
    let (denormals, mode_note) = match float_mode {
        Some(m) => match (m >> 4) & 3 {
            0 => ("flush", format!("ACO's float_mode = {m:#04x}: f32 denormals flushed")),
            3 => ("preserve", format!("ACO's float_mode = {m:#04x}: f32 denormals kept")),
            d => bail!("ACO's float_mode {m:#04x} flushes f32 denormals on {} only: not a mode rdna2spv describes", if d == 1 { "output" } else { "input" }),
        },
        None => ("flush", "RADV's compute default (the float mode is not in a log)".to_string()),
    };
    let scratch_bytes = match f.config {
        Some(c) => c.scratch_bytes_per_wave.div_ceil(wave),
        None => scratch as u32,
    };

    // Buffers.
    let mut extra = Vec::new();
    let mut buf_text = String::new();
    let canon_dir = req.dir.canonicalize().ok();
    for (b, n) in f.bindings.iter().zip(&names) {
        if let Some(im) = &b.image {
            image_entry(&mut buf_text, &mut extra, req, im, b, n, grid)?;
            continue;
        }
        write!(buf_text, "\n[[buffers]]\nname = {n:?}\n")?;
        let size = req.sizes.iter().find(|(m, _)| m == n).map(|(_, s)| *s);
        let default_size = match b.stride {
            Some(s) => u64::from(b.fixed_bytes) + u64::from(s) * invocations,
            None => u64::from(b.fixed_bytes.max(4)),
        };
        if let Some((_, path)) = req.inputs.iter().find(|(m, _)| m == n) {
            let inside = path
                .canonicalize()
                .ok()
                .zip(canon_dir.as_ref())
                .and_then(|(p, d)| p.strip_prefix(d).ok().map(Path::to_path_buf));
            let file = match inside {
                Some(rel) => rel.to_string_lossy().into_owned(),
                None => {
                    let data = std::fs::read(path)
                        .with_context(|| format!("reading --input {n}={}", path.display()))?;
                    // Copied under its own file name (inputs shared by several captures stay one file).
                    let file = path
                        .file_name()
                        .and_then(|f| f.to_str())
                        .with_context(|| {
                            format!("--input {n}={}: not a file name", path.display())
                        })?
                        .to_string();
                    if extra.iter().any(|(f, _): &(String, Vec<u8>)| *f == file) {
                        bail!("two --input files are named {file}");
                    }
                    extra.push((file.clone(), data));
                    file
                }
            };
            writeln!(buf_text, "file = {file:?}")?;
        } else if !b.writeonly {
            let bytes = size.unwrap_or(default_size);
            let file = format!("{}.{n}.in.bin", req.name);
            extra.push((file.clone(), placeholder(b.elem, bytes)));
            writeln!(
                buf_text,
                "file = {file:?}                 # placeholder input ({bytes} bytes): replace it"
            )?;
        } else {
            writeln!(buf_text, "size = {}", size.unwrap_or(default_size))?;
        }
        if !b.readonly {
            writeln!(
                buf_text,
                "output = true                    # written to OUT/{n}.bin"
            )?;
        }
    }

    let mut m = String::new();
    writeln!(
        m,
        "# {} compiled by Mesa RADV/ACO ({}, wave{wave}), captured by `rdna2spv capture` (D174).",
        f.source, f.family
    )?;
    writeln!(m, "# The abi table is the driver's: registers from ACO's p_startpgm line (see {stem}.aco.txt), vgprs/lds/scratch")?;
    if f.config.is_some() {
        writeln!(m, "# from the executable statistics, shared VGPRs and the float mode from ACO's shader config.")?;
    } else {
        writeln!(m, "# from the statistics in the log, shared VGPRs from the code, the float mode RADV's default (D175).")?;
    }
    writeln!(m, "# Replace the placeholder inputs, push-constant values and grid as you like; `rdna2spv run` takes it as is.")?;
    for n in &notes {
        writeln!(m, "# note: {n}")?;
    }
    writeln!(m, "code = \"{stem}.bin\"")?;
    writeln!(m, "kernel = \"{stem}\"")?;
    writeln!(m, "grid = [{}, {}, {}]", grid[0], grid[1], grid[2])?;
    writeln!(
        m,
        "workgroup = [{}, {}, {}]              # the shader's local size",
        workgroup[0], workgroup[1], workgroup[2]
    )?;
    writeln!(m, "\n[abi]")?;
    writeln!(m, "target = \"{target}\"")?;
    writeln!(m, "wave_size = {wave}")?;
    writeln!(m, "workitem_id_vgprs = {workitem_vgprs}")?;
    writeln!(m, "lds_bytes = {lds}")?;
    if scratch_bytes > 0 {
        writeln!(m, "scratch_bytes = {scratch_bytes}              # per lane")?;
    }
    writeln!(m, "f32_denormals = \"{denormals}\"          # {mode_note}")?;
    if let Some(v) = float_mode {
        // The `float_mode` key of the raw manifest (docs/manifest.md) once `run` reads it; recorded meanwhile.
        writeln!(m, "# float_mode = {v:#04x}")?;
    }
    if let Some(hi) = address32_hi {
        writeln!(m, "address32_hi = {hi:#010x}")?;
    }
    if let Some(v) = vgprs {
        writeln!(m, "vgprs = {v}")?;
        if shared > 0 {
            writeln!(m, "shared_vgprs = {shared}                # v{v}..v{}: seen by both halves of the wave (D153)", v + u64::from(shared) - 1)?;
        }
    }
    writeln!(m, "sgpr = [")?;
    for l in &sgpr_lines {
        writeln!(m, "{l}")?;
    }
    writeln!(m, "]")?;
    m.push_str(&buf_text);

    writeln!(listing_text, "// ==== statistics")?;
    for (n, v) in f.stats {
        writeln!(listing_text, "// {n} = {v}")?;
    }
    if let Some(c) = f.config {
        writeln!(
            listing_text,
            "// ==== ac_shader_config (RADV's pipeline cache)"
        )?;
        writeln!(
            listing_text,
            "// num_sgprs = {}, num_vgprs = {}, num_shared_vgprs = {}, lds_size = {}, float_mode = {:#04x}, scratch_bytes_per_wave = {}",
            c.num_sgprs, c.num_vgprs, c.num_shared_vgprs, c.lds_size, c.float_mode, c.scratch_bytes_per_wave
        )?;
    }
    if let Some(v) = vgprs {
        writeln!(
            listing_text,
            "// ==== rdna2spv: [abi] vgprs = {v}, shared_vgprs = {shared} (the \"VGPRs\" statistic; shared: {})",
            if f.config.is_some() { "ACO's shader config" } else { "read off the code" }
        )?;
    }
    Ok(Capture {
        stem,
        words: f.words.clone(),
        listing: listing_text,
        manifest: m,
        extra,
    })
}

/// A push-constant dword's manifest entry from the user's value: by the member's type, or for untyped
/// dwords `1.5` (f32), `-3` (i32), `7` (u32), `0x…` (bits).
fn push_value(v: &str, kind: Scalar, dword_of: u32) -> Result<String> {
    let v = v.trim();
    if let Some(h) = v.strip_prefix("0x") {
        let x = u64::from_str_radix(h, 16).context("not a hex number")?;
        let x = (x >> (32 * dword_of)) as u32;
        return Ok(if kind == Scalar::U32 {
            format!("u32 = {x:#010x}")
        } else {
            format!("bits = \"{x:#010x}\"")
        });
    }
    Ok(match kind {
        Scalar::F32 => format!("f32 = {:?}", v.parse::<f32>().context("not an f32")?),
        Scalar::I32 => format!("i32 = {}", v.parse::<i32>().context("not an i32")?),
        Scalar::U32 => format!("u32 = {}", v.parse::<u32>().context("not a u32")?),
        _ => {
            if let Ok(x) = v.parse::<u32>() {
                format!("u32 = {x}")
            } else if let Ok(x) = v.parse::<i32>() {
                format!("i32 = {x}")
            } else if let Ok(x) = v.parse::<f32>() {
                format!("f32 = {x:?}")
            } else {
                bail!("not a number (u32, i32, f32 or 0x… bits)")
            }
        }
    })
}
