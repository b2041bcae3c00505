//! `write_text` into a reused, non-empty buffer prints exactly what `text` prints, after what the buffer
//! already held (the listing writer and `cargo xtask bench decode` print this way). The instruction's own
//! text is checked against LLVM-19 by tests/llvm_differential.rs; this checks only that appending changes
//! nothing — the cases that look back into the buffer (LLVM's misaligned-register warnings moved to the end
//! of the line, the VOPC SDWA destination replaced in place) must look at this instruction's text only.
#[path = "common/mod.rs"]
mod common;

use common::{random_words, Rng};
use rdna2spv_isa::{decode, Format, PrintOptions, Target};

#[test]
fn write_text_appends_exactly_the_text() {
    let mut rng = Rng(11);
    // A prefix with the characters the printer looks for (a space, "vcc_lo") so a search that starts at the
    // buffer's beginning instead of the instruction's would be caught.
    let prefix = "s_nop 0 vcc_lo, vcc ; ";
    let (mut checked, mut warnings, mut vopc_sdwa) = (0, 0, 0);
    let mut buf = String::new();
    for n in 0..240_000 {
        let f = if n % 2 == 0 {
            None
        } else {
            Some(Format::ALL[(rng.next_u32() % 20) as usize])
        };
        let mut w = random_words(&mut rng, f);
        if n >= 200_000 {
            // VOPC SDWA with an SGPR destination (sdwa word bit 15): the in-place replacement case.
            w = random_words(&mut rng, Some(Format::VOPC));
            w[0] = (w[0] & !0x1ff) | 0xf9;
            w[1] |= 1 << 15;
        }
        let Ok(i) = decode(&w, Target::Gfx1030) else {
            continue;
        };
        for wave64 in [false, true] {
            let opts = PrintOptions { wave64 };
            if !i.valid_for(opts) {
                continue;
            }
            let want = i.text(opts);
            buf.clear();
            buf.push_str(prefix);
            i.write_text(opts, &mut buf);
            assert_eq!(
                buf.strip_prefix(prefix),
                Some(want.as_str()),
                "{w:08x?} wave64={wave64}"
            );
            // Printed twice into one buffer: the second copy follows the first unchanged.
            i.write_text(opts, &mut buf);
            assert_eq!(buf, format!("{prefix}{want}{want}"), "{w:08x?}");
            checked += 1;
            warnings += want.contains("; Warning") as usize;
            vopc_sdwa += (i.format() == Format::VOPC && want.contains("_sdwa")) as usize;
        }
    }
    // The stream must reach the two look-back cases, or the test proves nothing about them.
    assert!(checked > 100_000, "{checked}");
    assert!(warnings > 100, "{warnings} texts with warnings");
    assert!(vopc_sdwa > 100, "{vopc_sdwa} VOPC SDWA texts");
}
