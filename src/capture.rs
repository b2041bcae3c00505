//! `rdna2spv capture` (decision D174): the CLI side of crates/capture. Parses the options, runs the capture,
//! and writes every file inside `-o DIR` atomically, only once all of them were made (bad input: exit 2 and
//! no file).

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// `rdna2spv capture`.
#[derive(Debug, Clone, clap::Args)]
pub struct CaptureArgs {
    /// The compute shader: GLSL (`.comp`, compiled with glslangValidator) or SPIR-V (`.spv`). Not with
    /// --from-radv-log.
    pub shader: Option<PathBuf>,
    /// Read the shader from a `RADV_DEBUG=shaders` (or `shaders,shaderstats`) log of a real program instead.
    #[arg(long, value_name = "LOG")]
    pub from_radv_log: Option<PathBuf>,
    /// With --from-radv-log: which compute shader of the log (0-based, in compile order).
    #[arg(long = "shader", value_name = "N")]
    pub shader_index: Option<usize>,
    /// RADV's null-device family: navi21 (gfx1030) or navi10 (gfx1010).
    #[arg(long, default_value = "navi21")]
    pub family: String,
    /// Required subgroup size, 32 or 64 (default 64; for a log: read off the code).
    #[arg(long)]
    pub wave: Option<u32>,
    /// The SPIR-V entry point (default: the only compute one).
    #[arg(long)]
    pub entry: Option<String>,
    /// Total invocations, `X[,Y,Z]` (default: one workgroup).
    #[arg(long)]
    pub grid: Option<String>,
    /// `NAME=FILE`: a buffer's initial contents instead of a generated placeholder (repeatable).
    #[arg(long = "input", value_name = "NAME=FILE")]
    pub inputs: Vec<String>,
    /// `NAME=BYTES`: a buffer's size (default: one array element per invocation; repeatable).
    #[arg(long = "size", value_name = "NAME=BYTES")]
    pub sizes: Vec<String>,
    /// `NAME=VALUE`: a push constant (by member name, or dword index for a log) instead of 0 (repeatable).
    #[arg(long = "push", value_name = "NAME=VALUE")]
    pub push: Vec<String>,
    /// `NAME=W,H,D,LEVELS,LAYERS`: a storage image's extent, mip levels and array slices (default: the
    /// grid's extent, 1 level, 1 slice; repeatable; D183).
    #[arg(long = "image", value_name = "NAME=W,H,D,LEVELS,LAYERS")]
    pub images: Vec<String>,
    /// `NAME=IMAGE,BASE_LEVEL,LEVELS`: the storage image NAME is a view of levels of IMAGE's texels (a
    /// per-level view, as mip generation binds them; repeatable; D183).
    #[arg(long = "view", value_name = "NAME=IMAGE,BASE_LEVEL,LEVELS")]
    pub views: Vec<String>,
    /// `NAME=FILTER,ADDRESS_U,ADDRESS_V`: a combined image sampler's sampler (filter nearest or linear;
    /// address repeat, mirrored_repeat, clamp_to_edge, mirror_clamp_to_edge or clamp_to_border; repeatable;
    /// D187), then optionally a depth compare (less, less_or_equal, … as the raw manifest's `compare`;
    /// D191).
    #[arg(
        long = "sampler",
        value_name = "NAME=FILTER,ADDRESS_U,ADDRESS_V[,COMPARE]"
    )]
    pub samplers: Vec<String>,
    /// `NAME=FORMAT`: a sampled image's format, e.g. rgba8_unorm (the default) or r32_float (repeatable).
    #[arg(long = "format", value_name = "NAME=FORMAT")]
    pub formats: Vec<String>,
    /// The name of the output files (`NAME.FAMILY.wWAVE.{bin,aco.txt,toml}`; default: the shader's stem).
    #[arg(long)]
    pub name: Option<String>,
    /// The output folder (created).
    #[arg(short, long)]
    pub output: PathBuf,
}

fn pair(s: &str, what: &str) -> Result<(String, String)> {
    let (n, v) = s
        .split_once('=')
        .with_context(|| format!("--{what} {s:?}: expected NAME=VALUE"))?;
    Ok((n.to_string(), v.to_string()))
}

/// Runs `rdna2spv capture`.
pub fn cli_capture(a: &CaptureArgs) -> Result<i32> {
    let source = match (&a.shader, &a.from_radv_log) {
        (Some(s), None) => s.clone(),
        (None, Some(l)) => l.clone(),
        (Some(_), Some(_)) => bail!("give a shader or --from-radv-log LOG, not both"),
        (None, None) => bail!("give a shader (.comp or .spv) or --from-radv-log LOG"),
    };
    if a.shader_index.is_some() && a.from_radv_log.is_none() {
        bail!("--shader N is for --from-radv-log");
    }
    rdna2spv_capture::target_of(&a.family)?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => source
            .file_stem()
            .and_then(|s| s.to_str())
            .map(|s| s.trim_end_matches(".log").to_string())
            .context("the input has no file name")?,
    };
    crate::manifest::check_output_name(&name)?;
    let mut req = rdna2spv_capture::Request::new(&a.family, &a.output, &name);
    req.wave = a.wave;
    req.entry = a.entry.clone();
    if let Some(g) = &a.grid {
        let v: Vec<u32> = g
            .split(',')
            .map(|t| t.trim().parse())
            .collect::<Result<_, _>>()
            .with_context(|| format!("--grid {g:?}: expected X[,Y,Z]"))?;
        if v.is_empty() || v.len() > 3 {
            bail!("--grid {g:?}: expected X[,Y,Z]");
        }
        req.grid = Some([v[0], *v.get(1).unwrap_or(&1), *v.get(2).unwrap_or(&1)]);
    }
    for s in &a.inputs {
        let (n, f) = pair(s, "input")?;
        req.inputs.push((n, f.into()));
    }
    for s in &a.sizes {
        let (n, v) = pair(s, "size")?;
        let b = v
            .parse()
            .with_context(|| format!("--size {s:?}: not a byte count"))?;
        req.sizes.push((n, b));
    }
    for s in &a.push {
        req.push.push(pair(s, "push")?);
    }
    for s in &a.images {
        let (n, v) = pair(s, "image")?;
        let x: Vec<u32> = v
            .split(',')
            .map(|t| t.trim().parse())
            .collect::<Result<_, _>>()
            .with_context(|| format!("--image {s:?}: expected NAME=W,H,D,LEVELS,LAYERS"))?;
        let Ok(x) = <[u32; 5]>::try_from(x) else {
            bail!("--image {s:?}: expected NAME=W,H,D,LEVELS,LAYERS");
        };
        req.images.push((n, x));
    }
    for s in &a.views {
        let (n, v) = pair(s, "view")?;
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        let [of, base, levels] = parts[..] else {
            bail!("--view {s:?}: expected NAME=IMAGE,BASE_LEVEL,LEVELS");
        };
        let num = |t: &str| {
            t.parse::<u32>()
                .with_context(|| format!("--view {s:?}: {t:?} is not a level number"))
        };
        req.views
            .push((n, of.to_string(), num(base)?, num(levels)?));
    }
    for s in &a.samplers {
        let (n, v) = pair(s, "sampler")?;
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        // FILTER, ADDRESS_U, ADDRESS_V, then an optional ADDRESS_W (3-D images, D196) and an optional
        // COMPARE (the compare names differ from the address-mode names).
        let is_mode = |t: &str| {
            matches!(
                t,
                "repeat"
                    | "mirrored_repeat"
                    | "clamp_to_edge"
                    | "mirror_clamp_to_edge"
                    | "clamp_to_border"
            )
        };
        let (f, mut modes, rest) = match parts[..] {
            [f, u, v, ref rest @ ..] if rest.len() <= 2 => (f, vec![u, v], rest),
            _ => bail!(
                "--sampler {s:?}: expected NAME=FILTER,ADDRESS_U,ADDRESS_V[,ADDRESS_W][,COMPARE]"
            ),
        };
        let mut rest = rest.iter().copied();
        let mut next = rest.next();
        if let Some(w) = next.filter(|t| is_mode(t)) {
            modes.push(w);
            next = rest.next();
        }
        if let Some(c) = next {
            req.compares.push((n.clone(), c.to_string()));
        }
        if rest.next().is_some() {
            bail!(
                "--sampler {s:?}: expected NAME=FILTER,ADDRESS_U,ADDRESS_V[,ADDRESS_W][,COMPARE]"
            );
        }
        req.samplers.push((
            n,
            f.to_string(),
            modes.iter().map(|m| m.to_string()).collect(),
        ));
    }
    for s in &a.formats {
        req.formats.push(pair(s, "format")?);
    }
    let shown = source.display().to_string();
    // The capture names its source by file name only (the files stay the same wherever they are made).
    let label = source
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let cap = if let Some(log) = &a.from_radv_log {
        let bytes = std::fs::read(log).with_context(|| format!("reading {}", log.display()))?;
        rdna2spv_capture::capture_log(
            &String::from_utf8_lossy(&bytes),
            a.shader_index,
            &label,
            &req,
        )?
    } else {
        let words = match source.extension().and_then(|e| e.to_str()) {
            Some("spv") => rdna2spv_capture::spirv_words(
                &std::fs::read(&source).with_context(|| format!("reading {shown}"))?,
            )
            .with_context(|| shown.clone())?,
            _ => {
                if !source.is_file() {
                    bail!("{shown}: no such file");
                }
                rdna2spv_capture::glsl_to_spirv(&source)?
            }
        };
        rdna2spv_capture::radv::use_null_device(&a.family)?;
        rdna2spv_capture::capture_spirv(&words, &label, &req)?
    };
    let files = cap.files();
    for (f, _) in &files {
        crate::manifest::check_output_name(f)?;
    }
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("creating {}", a.output.display()))?;
    for (f, data) in &files {
        crate::output::write_atomically(&a.output.join(f), data)?;
    }
    println!(
        "{}: {} words; run it: rdna2spv run {} --backend both --out OUT",
        cap.stem,
        cap.words.len(),
        a.output.join(format!("{}.toml", cap.stem)).display()
    );
    Ok(0)
}
