//! Developer tool: probe LLVM-19 for every vector-ALU row of the table (which modifier bits an opcode accepts
//! and prints, which DPP/SDWA variants exist, the literal class of each source).
//!
//! cargo run --release -p rdna2spv-isa --example vopprobe              raw probe lines (the bootstrap of the
//!                                                                     `+flag` tokens in opcodes.txt)
//! cargo run --release -p rdna2spv-isa --example vopprobe -- --check   compare every row's flags with LLVM
//!
//! A bit LLVM accepts and prints is a modifier (`+abs`, `+neg`, ...); one it accepts without printing goes to
//! `+ignore`; one it rejects must be zero. In VOP3b forms bits 8..14 are sdst, not abs/op_sel.
use llvm_oracle::{Decoded, Disassembler};
use rdna2spv_isa::generated::{Field, ENCODINGS};
use rdna2spv_isa::{Encoding, Format, Mods, Operand, Target};

fn has_field(e: &Encoding, f: Field) -> bool {
    e.operands
        .iter()
        .any(|o| matches!(o, Operand::Field(x, _) if *x == f))
}

/// The flags a VOP3/VOP3P row should carry, from the accepted (`f`) and printed (`c`) bits of both words.
fn vop3_mods(e: &Encoding, f0: u32, f1: u32, c0: u32, c1: u32) -> Mods {
    let mut m = Mods::NONE;
    if e.format == Format::VOP3 {
        m.abs = ((c0 >> 8) & 7) as u8;
        m.opsel = ((c0 >> 11) & 0xf) as u8;
        m.clamp = c0 & 0x8000 != 0;
        m.omod = c1 & 0x1800_0000 != 0;
        m.neg = (c1 >> 29) as u8;
    } else {
        m.neg_hi = ((c0 >> 8) & 7) as u8;
        m.opsel = ((c0 >> 11) & 7) as u8;
        m.opsel_hi = (((c1 >> 27) & 3) | (((c0 >> 14) & 1) << 2)) as u8;
        m.clamp = c0 & 0x8000 != 0;
        m.neg = (c1 >> 29) as u8;
    }
    m.ignore = [f0 & !c0 & 0xffff, f1 & !c1];
    if has_field(e, Field::Sdst2) {
        m.abs = 0;
        m.opsel = 0;
        m.ignore[0] &= !0x7f00;
    }
    m
}

fn text(d: &Disassembler, w: &[u32]) -> Option<String> {
    match d.decode_words(w) {
        Decoded::Ok { size, text } if size == w.len() * 4 => Some(text),
        _ => None,
    }
}

/// Which single bits of `mask` can be flipped in word `wi` of `w` and still decode (with the same mnemonic),
/// and which of those change the text.
fn flips2(d: &Disassembler, w: &[u32], wi: usize, mask: u32, mn: &str) -> (u32, u32) {
    let base = text(d, w).unwrap_or_default();
    let mut ok = 0;
    let mut ch = 0;
    for b in 0..32 {
        if mask & (1 << b) == 0 {
            continue;
        }
        let mut v = w.to_vec();
        v[wi] ^= 1 << b;
        if let Some(t) = text(d, &v) {
            if t.split_whitespace().next() == Some(mn) {
                ok |= 1 << b;
                if t != base {
                    ch |= 1 << b;
                }
            }
        }
    }
    (ok, ch)
}

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let mut mismatches = 0;
    let ds: Vec<(Target, Disassembler)> = Target::ALL
        .iter()
        .map(|t| (*t, Disassembler::new(t.name(), "").unwrap()))
        .collect();
    for e in ENCODINGS.iter() {
        if !matches!(
            e.format,
            Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P
        ) {
            continue;
        }
        let target = Target::ALL
            .into_iter()
            .find(|t| e.targets.contains(*t))
            .unwrap();
        let d = &ds.iter().find(|x| x.0 == target).unwrap().1;
        let op = e.op as u32;
        let mn = e.mnemonic;
        let mut out = String::new();
        match e.format {
            Format::VOP3 | Format::VOP3P => {
                let p = e.format == Format::VOP3P;
                let base = if p {
                    0xcc00_0000 | (op << 16)
                } else {
                    0xd400_0000 | (op << 16)
                };
                let mut found = None;
                'outer: for s0 in [0x108u32, 8, 0] {
                    for s1 in [0x10cu32, 12, 0] {
                        for s2 in [0x110u32, 16, 0] {
                            for sd in [0u32, 6] {
                                for vd in [4u32, 0] {
                                    for hi in if p { [0u32, 1] } else { [0, 0] } {
                                        let w0 = base | vd | (sd << 8) | (hi << 14);
                                        let w1 = s0 | (s1 << 9) | (s2 << 18) | ((hi * 3) << 27);
                                        if let Some(t) = text(d, &[w0, w1]) {
                                            found = Some((vec![w0, w1], t));
                                            break 'outer;
                                        }
                                        if let Some(t) = text(d, &[w0, w1, 0x1234_5678]) {
                                            found = Some((vec![w0, w1, 0x1234_5678], t));
                                            break 'outer;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                let Some((w, t)) = found else {
                    println!("NOTFOUND {:?} 0x{op:x} {mn}", e.format);
                    continue;
                };
                let (f0, c0) = flips2(d, &w, 0, 0xffff, mn);
                let (f1, c1) = flips2(d, &w, 1, 0xf800_0000, mn);
                if check {
                    let want = vop3_mods(e, f0, f1, c0, c1);
                    if want != e.mods {
                        mismatches += 1;
                        println!(
                            "{:?} 0x{op:x} {mn}: table {:?}\n    llvm {want:?}",
                            e.format, e.mods
                        );
                    }
                    continue;
                }
                out += &format!(
                    "T {} {:08x} {:08x} | {t} | f0={f0:04x} f1={f1:08x} c0={c0:04x} c1={c1:08x}",
                    w.len(),
                    w[0],
                    w[1]
                );
                // literal classes per source
                for (i, sh) in [(0, 0), (1, 9), (2, 18)] {
                    let mut sig = Vec::new();
                    for (val, lit) in [
                        (248u32, None),
                        (240, None),
                        (193, None),
                        (255, Some(0x3c00u32)),
                        (255, Some(0x3c00_3c00)),
                        (255, Some(0x3ff0_0000)),
                        (255, Some(0x3e22_f983)),
                        (255, Some(0xffff_fff0)),
                    ] {
                        let mut v = w[..2].to_vec();
                        v[1] = (v[1] & !(0x1ff << sh)) | (val << sh);
                        if let Some(l) = lit {
                            v.push(l);
                        }
                        sig.push(
                            text(d, &v)
                                .map(|s| {
                                    s.replace(", ", ",")
                                        .split_whitespace()
                                        .skip(1)
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                })
                                .unwrap_or("X".into()),
                        );
                    }
                    out += &format!(" | s{i}: {}", sig.join(" ; "));
                }
            }
            _ => {
                let (base, w0) = match e.format {
                    Format::VOP1 => (
                        0x7e00_0000 | (op << 9),
                        0x7e00_0000 | (op << 9) | (4 << 17) | 0x108,
                    ),
                    Format::VOP2 => (op << 25, (op << 25) | (4 << 17) | (12 << 9) | 0x108),
                    _ => (
                        0x7c00_0000 | (op << 17),
                        0x7c00_0000 | (op << 17) | (12 << 9) | 0x108,
                    ),
                };
                let mut plain = None;
                for w in [
                    vec![w0],
                    vec![w0 & !0x1ff | 0xff, 0x1234_5678],
                    vec![w0 & !(0xff << 17)],
                    vec![base],
                    vec![w0 & !(0xff << 17) & !0x1ff | 0xff, 0x1234_5678],
                ] {
                    if let Some(t) = text(d, &w) {
                        plain = Some((w, t));
                        break;
                    }
                }
                let Some((w, t)) = plain else {
                    println!("NOTFOUND {:?} 0x{op:x} {mn}", e.format);
                    continue;
                };
                out += &format!("T {} {:08x} | {t}", w.len(), w[0]);
                let wb = w[0] & !0x1ff;
                if check {
                    let s1sel = if e.format == Format::VOP1 {
                        0
                    } else {
                        0x0600_0000
                    };
                    let sd = if e.format == Format::VOPC { 0 } else { 0x600 };
                    let probe = |src: u32, w1: u32| {
                        let v = vec![wb | src, w1];
                        text(d, &v).map(|t| {
                            let m = t.split_whitespace().next().unwrap().to_string();
                            flips2(d, &v, 1, 0xffff_ffff, &m)
                        })
                    };
                    let mut want = Mods::NONE;
                    want.dpp =
                        probe(0xfa, 0xff00_e408).map(|(f, c)| [(f >> 20) & 0xf, (c >> 20) & 0xf]);
                    want.dpp8 = probe(0xe9, 0xfac6_8808).is_some();
                    want.sdwa = probe(0xf9, 0x0006_0008 | s1sel | sd)
                        .map(|(f, c)| [f & 0xffff_ff00, c & 0xffff_ff00]);
                    if want != e.mods {
                        mismatches += 1;
                        println!(
                            "{:?} 0x{op:x} {mn}: table {:?}\n    llvm {want:?}",
                            e.format, e.mods
                        );
                    }
                    continue;
                }
                let s1sel = if e.format == Format::VOP1 {
                    0
                } else {
                    0x0600_0000
                };
                let sd = if e.format == Format::VOPC { 0 } else { 0x600 };
                for (name, src, w1) in [
                    ("dpp", 0xfa, 0xff00_e408u32),
                    ("dpp8", 0xe9, 0xfac6_8808),
                    ("dpp8fi", 0xea, 0xfac6_8808),
                    ("sdwa", 0xf9, 0x0006_0008 | s1sel | sd),
                ] {
                    let v = vec![wb | src, w1];
                    match text(d, &v) {
                        Some(t) => {
                            let m = t.split_whitespace().next().unwrap().to_string();
                            let (f, c) = flips2(d, &v, 1, 0xffff_ffff, &m);
                            out += &format!(" | {name}: {t} flips={f:08x} ch={c:08x}");
                        }
                        None => out += &format!(" | {name}: X"),
                    }
                }
                // literal class of src0
                let mut sig = Vec::new();
                for (val, lit) in [
                    (248u32, None),
                    (240, None),
                    (255, Some(0x3c00u32)),
                    (255, Some(0x3c00_3c00)),
                    (255, Some(0x3ff0_0000)),
                    (255, Some(0x3e22_f983)),
                ] {
                    let mut v = vec![(w[0] & !0x1ff) | val];
                    if let Some(l) = lit {
                        v.push(l);
                    }
                    sig.push(
                        text(d, &v)
                            .map(|s| {
                                s.replace(", ", ",")
                                    .split_whitespace()
                                    .skip(1)
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            })
                            .unwrap_or("X".into()),
                    );
                }
                out += &format!(" | s0: {}", sig.join(" ; "));
            }
        }
        let tg: Vec<&str> = Target::ALL
            .iter()
            .filter(|t| e.targets.contains(**t))
            .map(|t| t.name())
            .collect();
        println!(
            "{:?} 0x{:03x} {} {} || {out}",
            e.format,
            op,
            tg.join(","),
            mn
        );
    }
    if check {
        println!("{mismatches} rows differ from LLVM");
        if mismatches > 0 {
            std::process::exit(1);
        }
    }
}
