//! The lifter's dispatch is total over the opcode table (D179): every row of every opcode, decoded from a
//! template word on each of its sub-targets and followed by `s_endpgm`, is either lifted or refused with a
//! named error — never a panic, never a silent no-op of an unknown family. The families the lifter does not
//! lift at all (MIMG, EXP, VINTRP) refuse by their own name.
//!
//! The templates place the row's opcode number in its format's opcode field with registers in the other fields
//! (the encodings of `cargo xtask sweep`, xtask/src/sweep.rs); the first template the decoder turns into
//! that very row is used.
//!
//! With `RDNA2SPV_FAMILY_DUMP=FILE` the test also writes every row's outcome (the lifted program's text or the
//! refusal) to FILE: two dumps taken before and after a refactoring of the lifter show whether it was a pure
//! move.

use rdna2spv_ir::lift::{lift, LiftError, LiftOptions};
use rdna2spv_isa::generated::ENCODINGS;
use rdna2spv_isa::{decode, Encoding, Family, Format, Target};
use std::collections::BTreeMap;

fn templates(f: Format, op: u32) -> Vec<Vec<u32>> {
    let w1v = |s0: u32, s1: u32, s2: u32| s0 | (s1 << 9) | (s2 << 18);
    match f {
        Format::SOP2 => {
            let b = 0x8000_0000 | (op << 23);
            vec![vec![b | (4 << 16) | (12 << 8) | 8]]
        }
        Format::SOPK => {
            let b = 0xb000_0000 | (op << 23);
            vec![vec![b | (4 << 16)], vec![b | (4 << 16) | 0x10], vec![b]]
        }
        Format::SOP1 => {
            let b = 0xbe80_0000 | (op << 8);
            vec![
                vec![b | (4 << 16) | 8],
                vec![b | (4 << 16)],
                vec![b | 8],
                vec![b],
            ]
        }
        Format::SOPC => {
            let b = 0xbf00_0000 | (op << 16);
            vec![vec![b | (12 << 8) | 8], vec![b | (12 << 8) | 0x88]]
        }
        Format::SOPP => {
            // simm16 = 0 first: a branch then targets the next instruction.
            let b = 0xbf80_0000 | (op << 16);
            vec![vec![b], vec![b | 1], vec![b | 0x10]]
        }
        Format::SMEM => {
            let b = 0xf400_0000 | (op << 18);
            vec![
                vec![b | (4 << 6) | 4, 0xfa00_0010],
                vec![b | (4 << 6) | 4, 0x1000_0010],
                vec![b | (4 << 6), 0xfa00_0000],
                vec![b | 4, 0xfa00_0010],
                vec![b, 0xfa00_0000],
                vec![b, 0],
            ]
        }
        Format::VOP1 => {
            let b = 0x7e00_0000 | (op << 9);
            vec![
                vec![b | (4 << 17) | 0x108],
                vec![b | 0x108],
                vec![b | (4 << 17)],
                vec![b],
            ]
        }
        Format::VOP2 => {
            let b = op << 25;
            vec![
                vec![b | (4 << 17) | (12 << 9) | 0x108],
                vec![b | (4 << 17) | (12 << 9) | 0xff, 0x1234_5678],
            ]
        }
        Format::VOPC => vec![vec![0x7c00_0000 | (op << 17) | (12 << 9) | 0x108]],
        Format::VOP3 => {
            let b = 0xd400_0000 | (op << 16);
            // Bits 8..10 set first: s6 as a VOP3b carry-out, abs on src1/src2 where the row has them (a row
            // that has neither rejects the word and takes a later template).
            vec![
                vec![b | (6 << 8) | 4, w1v(0x108, 0x10c, 0x110)],
                vec![b | (6 << 8) | 4, w1v(0x108, 0x10c, 0x6a)],
                vec![b | 4, w1v(0x108, 0x10c, 0x110)],
                vec![b | 4, w1v(0x108, 0x10c, 0)],
                vec![b | 4, w1v(0x108, 0, 0)],
                vec![b | 4, w1v(0x108, 0x10c, 0x6a)],
                vec![b | 4, w1v(0x08, 0x10c, 0)],
                vec![b | 4, w1v(0x108, 0x0c, 0)],
                vec![b | 4, w1v(0x108, 0x10c, 0x10)],
                vec![b | 4, w1v(0x08, 0x10c, 0x110)],
                vec![b | 4, w1v(0, 0, 0)],
                vec![b, w1v(0, 0, 0)],
            ]
        }
        Format::VOP3P => {
            let b = 0xcc00_0000 | (op << 16) | (1 << 14);
            let w1 = |s0, s1, s2| w1v(s0, s1, s2) | (3 << 27);
            vec![
                vec![b | 4, w1(0x108, 0x10c, 0x110)],
                vec![b | 4, w1(0x108, 0x10c, 0)],
                vec![(b & !(1 << 14)) | 4, w1v(0x108, 0x10c, 0x110)],
            ]
        }
        Format::DS => {
            let b = 0xd800_0000 | (op << 18);
            let w1 = |a: u32, d0: u32, d1: u32, v: u32| a | (d0 << 8) | (d1 << 16) | (v << 24);
            let mut t = Vec::new();
            for (a, d0, d1, v) in [
                (8, 12, 16, 4),
                (8, 12, 16, 0),
                (8, 12, 0, 4),
                (8, 12, 0, 0),
                (8, 0, 0, 4),
                (8, 0, 0, 0),
                (0, 12, 0, 4),
                (0, 12, 0, 0),
                (0, 0, 0, 4),
                (0, 0, 0, 0),
            ] {
                t.push(vec![b, w1(a, d0, d1, v)]);
                t.push(vec![b | (1 << 17), w1(a, d0, d1, v)]); // gds
            }
            t
        }
        Format::FLAT | Format::SCRATCH | Format::GLOBAL => {
            let seg = match f {
                Format::FLAT => 0,
                Format::SCRATCH => 1,
                _ => 2,
            };
            let b = 0xdc00_0000 | (op << 18) | (seg << 14);
            let w1 = |a: u32, d: u32, s: u32, v: u32| a | (d << 8) | (s << 16) | (v << 24);
            let mut t = Vec::new();
            for s in [0x7d, 4] {
                for (a, d, v) in [(8, 12, 4), (8, 12, 0), (8, 0, 4), (8, 0, 0), (0, 0, 0)] {
                    t.push(vec![b, w1(a, d, s, v)]);
                }
            }
            t.push(vec![b | (1 << 13), w1(0, 12, 0x7d, 4)]);
            t.push(vec![b | (1 << 13), w1(0, 12, 0x7d, 0)]);
            t.push(vec![b | (1 << 13), w1(0, 0, 0x7d, 4)]);
            t
        }
        Format::MUBUF => {
            let b = 0xe000_0000 | (op << 18);
            let w1 = |va: u32, vd: u32, r: u32, so: u32| va | (vd << 8) | (r << 16) | (so << 24);
            vec![
                vec![b, w1(8, 4, 2, 0x80)],
                vec![b, w1(0, 0, 0, 0x80)],
                vec![b, w1(0, 0, 0, 0)],
                vec![b | (1 << 16), w1(8, 4, 2, 0x80)],
            ]
        }
        Format::MTBUF => {
            let b = 0xe800_0000 | ((op & 7) << 16) | (1 << 19);
            let w1 = (8 | (4 << 8) | (2 << 16) | (0x80 << 24)) | ((op >> 3) << 21);
            vec![vec![b, w1]]
        }
        Format::MIMG => {
            let b = 0xf000_0000 | ((op & 0x7f) << 18) | (op >> 7) | (1 << 8);
            let w1 = |va: u32, vd: u32, r: u32, s: u32| va | (vd << 8) | (r << 16) | (s << 21);
            vec![
                vec![b, w1(8, 4, 2, 0)],
                vec![b, w1(8, 4, 2, 3)],
                vec![b | (0xf << 8), w1(8, 4, 2, 0)],
                vec![b | (0xf << 8) | (1 << 12), w1(8, 4, 2, 3)],
                vec![(b & !(0xf << 8)) | (1 << 12), w1(8, 4, 2, 3)],
                vec![b & !(0xf << 8), w1(8, 4, 2, 0)],
            ]
        }
        Format::EXP => vec![vec![0xf800_0000 | 0xf, 0x0c08_0804]],
        Format::VINTRP => vec![vec![0xc800_0000 | (op << 16) | (4 << 18) | 8]],
    }
}

/// The first template that decodes to `row` on `target`, cut to the instruction's length.
fn words_for(row: &'static Encoding, target: Target) -> Option<Vec<u32>> {
    templates(row.format, row.op as u32)
        .into_iter()
        .find_map(|w| {
            let i = decode(&w, target).ok()?;
            std::ptr::eq(i.encoding, row).then(|| w[..i.len()].to_vec())
        })
}

#[derive(Debug, Default)]
struct Tally {
    rows: usize,
    lifted: usize,
    refused: usize,
    other_error: usize,
}

#[test]
fn every_opcode_is_lifted_or_refused_by_name() {
    let mut tally: BTreeMap<Family, Tally> = BTreeMap::new();
    let mut opcodes: BTreeMap<Family, std::collections::BTreeSet<_>> = BTreeMap::new();
    let (mut no_words, mut panics) = (Vec::new(), Vec::new());
    let mut dump = String::new();
    for row in ENCODINGS.iter() {
        let fam = row.opcode.family();
        opcodes.entry(fam).or_default().insert(row.opcode);
        for target in Target::ALL {
            if !row.targets.contains(target) {
                continue;
            }
            let Some(words) = words_for(row, target) else {
                no_words.push(format!("{} {target:?}", row.mnemonic));
                continue;
            };
            let t = tally.entry(fam).or_default();
            t.rows += 1;
            let code: Vec<u8> = words
                .iter()
                .chain(&[0xbf81_0000]) // s_endpgm
                .flat_map(|x| x.to_le_bytes())
                .collect();
            let opts = LiftOptions {
                target,
                wave_size: 32,
                private_segment_buffer: None,
            };
            let r = std::panic::catch_unwind(|| lift("k", &code, opts));
            if let Ok(r) = &r {
                let out = match r {
                    Ok(p) => p.to_string(),
                    Err(e) => e.to_string(),
                };
                dump += &format!("== {} {target:?} {words:08x?}\n{out}\n", row.mnemonic);
            }
            match r {
                Err(_) => panics.push(format!("{} {target:?} {words:08x?}", row.mnemonic)),
                Ok(Ok(_)) => t.lifted += 1,
                Ok(Err(LiftError::Unsupported { reason, text, .. })) => {
                    assert!(!reason.is_empty() && !text.is_empty(), "{}", row.mnemonic);
                    let own = match fam {
                        Family::Mimg => Some("MIMG"),
                        Family::Exp => Some("EXP"),
                        Family::Vintrp => Some("VINTRP"),
                        _ => None,
                    };
                    if let Some(own) = own {
                        assert!(reason.contains(own), "{}: {reason}", row.mnemonic);
                    }
                    t.refused += 1;
                }
                Ok(Err(e)) => {
                    assert!(!e.to_string().is_empty());
                    t.other_error += 1;
                }
            }
        }
    }
    for (fam, t) in &tally {
        println!(
            "{fam:?}: {} opcodes, {} rows×targets: {} lifted, {} refused, {} other errors",
            opcodes[fam].len(),
            t.rows,
            t.lifted,
            t.refused,
            t.other_error
        );
    }
    if let Ok(path) = std::env::var("RDNA2SPV_FAMILY_DUMP") {
        std::fs::write(path, &dump).unwrap();
    }
    assert!(panics.is_empty(), "the lifter panicked on: {panics:#?}");
    // Every family of the table is exercised, and almost every row has a template word.
    for fam in Family::ALL {
        assert!(tally.get(&fam).is_some_and(|t| t.rows > 0), "{fam:?}");
    }
    assert!(
        no_words.len() < 40,
        "rows without a template word: {no_words:#?}"
    );
}
