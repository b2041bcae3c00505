//! `cargo xtask bench translate`: translation time (decode → lift → lower → SPIR-V words) against kernel size
//! over rocSPARSE kernels of growing size, and against lavapipe's compile of the same module at first dispatch.
//! (Being written: until then the section reports that it has not been measured and fails.)

use crate::bench::{Opts, Section};
use anyhow::{bail, Result};

pub fn section(_opts: &Opts) -> Result<Section> {
    bail!("the translate section is not written yet")
}
