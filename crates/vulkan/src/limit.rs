//! The module-size limit of a device compile (decision D164).
//!
//! lavapipe compiles a module inside its first dispatch, and its time and memory grow faster than the module.
//! Measured on the 2-core development machine under load (`cargo xtask bench corpus-size`, docs/performance.md,
//! 2026-12-02): cold compile CPU time ≈ [`CPU_S_COEFFICIENT`] × words^[`CPU_S_EXPONENT`] (least squares in
//! log-log over the compiled modules of ≥ 20,000 words, 19k–336k words), and peak memory of the compiling
//! process ≈ [`PEAK_MB_BASE`] (Vulkan and lavapipe start-up: flat up to ~130k words) + [`PEAK_MB_COEFFICIENT`] ×
//! words^[`PEAK_MB_EXPONENT`] MB (through a 336k-word module at 404 MB and issue 31's 5.15 M-word module at
//! 16.4 GB). A module over [`DEFAULT_MAX_MODULE_WORDS`] is refused before the driver sees it, naming its size,
//! the limit and the prediction, instead of letting the compile take the machine's memory.
//! `RDNA2SPV_MAX_MODULE_WORDS` (a number, or `none`) and the command lines' `--max-module-words` move it.

/// The default limit: about 1 GB of compile memory and a few minutes of CPU predicted for lavapipe (D164).
pub const DEFAULT_MAX_MODULE_WORDS: usize = 1_000_000;

/// Fit of lavapipe's cold compile CPU time (seconds) against module words: `a × words^b` (D164).
pub const CPU_S_COEFFICIENT: f64 = 1.8e-7;
/// See [`CPU_S_COEFFICIENT`].
pub const CPU_S_EXPONENT: f64 = 1.49;
/// Peak resident memory (MB) of a process that compiles a small module on lavapipe.
pub const PEAK_MB_BASE: f64 = 290.0;
/// Fit of the compile's memory above [`PEAK_MB_BASE`] (MB) against module words: `c × words^d`.
pub const PEAK_MB_COEFFICIENT: f64 = 1.14e-8;
/// See [`PEAK_MB_COEFFICIENT`].
pub const PEAK_MB_EXPONENT: f64 = 1.81;

/// The predicted cold lavapipe compile of a module of `words` words: (CPU seconds, peak memory in GB).
pub fn predicted_compile(words: usize) -> (f64, f64) {
    let w = words as f64;
    (
        CPU_S_COEFFICIENT * w.powf(CPU_S_EXPONENT),
        (PEAK_MB_BASE + PEAK_MB_COEFFICIENT * w.powf(PEAK_MB_EXPONENT)) / 1024.0,
    )
}

/// The limit from `RDNA2SPV_MAX_MODULE_WORDS` (a number of words; `none`, `off` or `0`: no limit), else
/// [`DEFAULT_MAX_MODULE_WORDS`]. An unreadable value is an error naming it.
pub fn max_module_words_from_env() -> Result<Option<usize>, String> {
    match std::env::var("RDNA2SPV_MAX_MODULE_WORDS") {
        Ok(v) => parse_limit(&v).ok_or_else(|| {
            format!("RDNA2SPV_MAX_MODULE_WORDS={v:?} is not a number of words or `none`")
        }),
        Err(_) => Ok(Some(DEFAULT_MAX_MODULE_WORDS)),
    }
}

/// `none`/`off`/`0` → no limit; a number (underscores and commas allowed) → that limit.
pub fn parse_limit(v: &str) -> Option<Option<usize>> {
    let v = v.trim();
    if matches!(v.to_ascii_lowercase().as_str(), "none" | "off" | "0") {
        return Some(None);
    }
    let digits: String = v.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    digits.parse::<usize>().ok().map(Some)
}

/// Why a module is refused: its size, the limit and the prediction (the text of
/// [`crate::Error::ModuleTooLarge`]).
pub fn too_large_message(words: usize, limit: usize) -> String {
    let (secs, gb) = predicted_compile(words);
    format!(
        "the module is {} words, over the limit of {} words for a device compile: lavapipe's cold compile of \
         it would take about {} of CPU and {gb:.1} GB of memory on a 2-core machine (docs/performance.md); \
         raise the limit with --max-module-words N (or RDNA2SPV_MAX_MODULE_WORDS=N, `none` for no limit) if the \
         device can take it (decision D164)",
        group(words),
        group(limit),
        human_seconds(secs)
    )
}

/// Seconds as "12 s" or "7 min".
pub fn human_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

/// 1234567 → "1,234,567".
pub fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_limits_and_groups_digits() {
        assert_eq!(parse_limit("none"), Some(None));
        assert_eq!(parse_limit("0"), Some(None));
        assert_eq!(parse_limit("2_000_000"), Some(Some(2_000_000)));
        assert_eq!(parse_limit("1,500"), Some(Some(1500)));
        assert_eq!(parse_limit("lots"), None);
        assert_eq!(group(5_152_243), "5,152,243");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
    }

    #[test]
    fn prediction_grows_with_the_module() {
        let (s1, g1) = predicted_compile(100_000);
        let (s2, g2) = predicted_compile(1_000_000);
        assert!(s2 > 10.0 * s1 && g2 > g1, "{s1} {s2} {g1} {g2}");
        // The default limit keeps the predicted compile within issue 31's 2 GB; the 2.38 M-word lane module
        // of the segmented sort kernel is over it.
        assert!(predicted_compile(DEFAULT_MAX_MODULE_WORDS).1 <= 2.0);
        const { assert!(2_377_353 > DEFAULT_MAX_MODULE_WORDS) };
    }
}
