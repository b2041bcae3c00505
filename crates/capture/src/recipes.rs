//! The recipes of the ACO captures under fixtures/aco/: every one is exactly `rdna2spv capture` of its
//! `.comp` with these options (`cargo xtask aco --fixtures` regenerates them; tests/capture.rs checks that
//! capturing again gives the committed files byte for byte). The inputs and the non-default output sizes
//! and push-constant values are what tests/captures.rs computes its references from.

use std::path::Path;

/// One fixture capture.
#[derive(Debug, Clone, Copy)]
pub struct Recipe {
    pub name: &'static str,
    pub family: &'static str,
    pub wave: u32,
    pub grid: u32,
    /// Buffer name → input file (inside fixtures/aco/).
    pub inputs: &'static [(&'static str, &'static str)],
    /// Buffer name → bytes, where the default (one element per invocation) is not it.
    pub sizes: &'static [(&'static str, u64)],
    /// Push-constant member → value.
    pub push: &'static [(&'static str, &'static str)],
}

impl Recipe {
    /// `muladd.navi21.w64`.
    pub fn stem(&self) -> String {
        format!("{}.{}.w{}", self.name, self.family, self.wave)
    }

    /// The `rdna2spv capture` arguments that make this capture from `fixtures_dir` into `out`.
    pub fn cli_args(&self, fixtures_dir: &Path, out: &Path) -> Vec<String> {
        let mut a = vec![
            fixtures_dir
                .join(format!("{}.comp", self.name))
                .display()
                .to_string(),
            "--family".into(),
            self.family.into(),
            "--wave".into(),
            self.wave.to_string(),
            "--grid".into(),
            self.grid.to_string(),
        ];
        for (n, f) in self.inputs {
            a.push("--input".into());
            a.push(format!("{n}={}", fixtures_dir.join(f).display()));
        }
        for (n, s) in self.sizes {
            a.push("--size".into());
            a.push(format!("{n}={s}"));
        }
        for (n, v) in self.push {
            a.push("--push".into());
            a.push(format!("{n}={v}"));
        }
        a.push("-o".into());
        a.push(out.display().to_string());
        a
    }

    /// The same as a [`crate::Request`] writing into `dir`.
    pub fn request(&self, fixtures_dir: &Path, dir: &Path) -> crate::Request {
        let mut r = crate::Request::new(self.family, dir, self.name);
        r.wave = Some(self.wave);
        r.grid = Some([self.grid, 1, 1]);
        r.inputs = self
            .inputs
            .iter()
            .map(|(n, f)| (n.to_string(), fixtures_dir.join(f)))
            .collect();
        r.sizes = self
            .sizes
            .iter()
            .map(|(n, s)| (n.to_string(), *s))
            .collect();
        r.push = self
            .push
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        r
    }
}

const fn r(
    name: &'static str,
    family: &'static str,
    wave: u32,
    inputs: &'static [(&'static str, &'static str)],
    sizes: &'static [(&'static str, u64)],
    push: &'static [(&'static str, &'static str)],
) -> Recipe {
    Recipe {
        name,
        family,
        wave,
        grid: 256,
        inputs,
        sizes,
        push,
    }
}

const MULADD_IN: &[(&str, &str)] = &[("x", "muladd.x.in.bin"), ("y", "muladd.y.in.bin")];
const MULADD_PUSH: &[(&str, &str)] = &[("a", "1.5"), ("b", "-2.25")];

/// Every capture under fixtures/aco/.
pub const FIXTURES: &[Recipe] = &[
    r(
        "muladd",
        "navi21",
        64,
        MULADD_IN,
        &[("w", 2048)],
        MULADD_PUSH,
    ),
    r(
        "muladd",
        "navi21",
        32,
        MULADD_IN,
        &[("w", 2048)],
        MULADD_PUSH,
    ),
    r(
        "muladd",
        "navi10",
        64,
        MULADD_IN,
        &[("w", 2048)],
        MULADD_PUSH,
    ),
    r(
        "intops",
        "navi21",
        64,
        &[("x", "intops.x.in.bin"), ("y", "intops.y.in.bin")],
        &[("r", 3072)],
        &[("k", "0x9e3779b9"), ("s", "-3000")],
    ),
    r(
        "shared",
        "navi21",
        32,
        &[("x", "shared.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "shared",
        "navi21",
        64,
        &[("x", "shared.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "half2",
        "navi21",
        64,
        &[
            ("a", "half2.a.in.bin"),
            ("b", "half2.b.in.bin"),
            ("c", "half2.c.in.bin"),
        ],
        &[("r", 2048)],
        &[],
    ),
    r(
        "control",
        "navi21",
        32,
        &[("x", "control.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "control",
        "navi21",
        64,
        &[("x", "control.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "ballot",
        "navi21",
        64,
        &[("x", "ballot.x.in.bin")],
        &[("r", 3072)],
        &[],
    ),
    r(
        "ballot",
        "navi21",
        32,
        &[("x", "ballot.x.in.bin")],
        &[("r", 3072)],
        &[],
    ),
    r(
        "reduce",
        "navi21",
        64,
        &[("x", "reduce.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "reduce",
        "navi21",
        32,
        &[("x", "reduce.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "shuffle",
        "navi21",
        64,
        &[("x", "shuffle.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "shuffle",
        "navi21",
        32,
        &[("x", "shuffle.x.in.bin")],
        &[],
        &[],
    ),
    r(
        "shuffle_rel",
        "navi21",
        64,
        &[("x", "shuffle.x.in.bin")],
        &[],
        &[("down", "37")],
    ),
    r(
        "shuffle_rel",
        "navi21",
        32,
        &[("x", "shuffle.x.in.bin")],
        &[],
        &[("down", "7")],
    ),
];
