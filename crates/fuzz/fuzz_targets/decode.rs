//! Decoder and printer: any bytes, every sub-target and wave size — a result or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rdna2spv_isa::{decode_bytes, PrintOptions, Target};

fuzz_target!(|data: &[u8]| {
    for target in Target::ALL {
        let mut off = 0;
        while off + 4 <= data.len() {
            match decode_bytes(&data[off..], target) {
                Ok(i) => {
                    let _ = i.text(PrintOptions {
                        wave64: data[0] & 1 == 1,
                    });
                    off += 4 * i.len();
                }
                Err(_) => off += 4,
            }
        }
    }
});
