//! Prints what the profile probe measures on a device: `cargo run -p rdna2spv-vulkan --example probe`
//! (`RDNA2SPV_VK_DEVICE=<index or name>` picks the device).

use rdna2spv_vulkan::{probe_with_report, Context, DeviceSelector};

fn main() {
    let ctx = match Context::new(DeviceSelector::from_env()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    eprintln!(
        "device #{}: {} ({}, {} {})",
        ctx.info().index,
        ctx.info().name,
        ctx.info().device_type,
        ctx.info().driver_name,
        ctx.info().driver_info
    );
    match probe_with_report(&ctx) {
        Ok((profile, report)) => {
            eprint!("{report}");
            println!("{}", profile.to_json_pretty());
        }
        Err(e) => {
            eprintln!("error: probe failed: {e}");
            std::process::exit(1);
        }
    }
}
