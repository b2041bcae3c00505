//! The memory operation of every atomic (decision D060): the new memory value from the old one and the data
//! operands, on 32 or 64 bits. Written from the RDNA 2 ISA guide's definitions ("Data share operations",
//! "Flat/global atomics", "MUBUF atomics"); float forms follow the evaluator's float rules (D005: NaN
//! results are the default quiet NaN; denormals preserved; round to nearest even).

use crate::specialize;
use rdna2spv_ir::quirks::F64_DEFAULT_NAN;
use rdna2spv_ir::AtomicOp;

/// The value memory holds after `op` on `old` with data `x` (and `y`, the second data operand of the
/// two-operand forms; 0 otherwise). `wide`: 64-bit. Bits above the width are zero in and out.
pub fn rmw(op: AtomicOp, wide: bool, old: u64, x: u64, y: u64) -> u64 {
    let m = if wide { u64::MAX } else { u32::MAX as u64 };
    let (o, x, y) = (old & m, x & m, y & m);
    let signed = |v: u64| {
        if wide {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let r = match op {
        AtomicOp::Add => o.wrapping_add(x),
        AtomicOp::Sub => o.wrapping_sub(x),
        AtomicOp::RSub => x.wrapping_sub(o),
        AtomicOp::And => o & x,
        AtomicOp::Or => o | x,
        AtomicOp::Xor => o ^ x,
        AtomicOp::MinU => o.min(x),
        AtomicOp::MaxU => o.max(x),
        AtomicOp::MinI => {
            if signed(x) < signed(o) {
                x
            } else {
                o
            }
        }
        AtomicOp::MaxI => {
            if signed(x) > signed(o) {
                x
            } else {
                o
            }
        }
        AtomicOp::Swap => x,
        AtomicOp::CmpSwap => {
            if o == y {
                x
            } else {
                o
            }
        }
        AtomicOp::Inc => {
            if o >= x {
                0
            } else {
                o + 1
            }
        }
        AtomicOp::Dec => {
            if o == 0 || o > x {
                x
            } else {
                o - 1
            }
        }
        // Clamped at zero: x > o gives 0.
        AtomicOp::CSub => o.saturating_sub(x),
        AtomicOp::MskOr => (o & !x) | y,
        AtomicOp::Wrap => {
            if o >= x {
                o - x
            } else {
                o.wrapping_add(y)
            }
        }
        AtomicOp::FAdd => specialize::f32_add(o as u32, x as u32) as u64,
        AtomicOp::FMin => {
            if wide {
                f64_min(o, x)
            } else {
                specialize::f32_min(o as u32, x as u32) as u64
            }
        }
        AtomicOp::FMax => {
            if wide {
                f64_max(o, x)
            } else {
                specialize::f32_max(o as u32, x as u32) as u64
            }
        }
        AtomicOp::FCmpSwap => {
            let eq = if wide {
                f64::from_bits(o) == f64::from_bits(y)
            } else {
                f32::from_bits(o as u32) == f32::from_bits(y as u32)
            };
            if eq {
                x
            } else {
                o
            }
        }
    };
    r & m
}

/// IEEE minNum on f64 as [`specialize::f32_min`] on f32: a NaN operand yields the other, -0 < +0.
pub fn f64_min(a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => F64_DEFAULT_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a | b,
        _ if x < y => a,
        _ => b,
    }
}

/// IEEE maxNum on f64 (see [`f64_min`]).
pub fn f64_max(a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => F64_DEFAULT_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a & b,
        _ if x > y => a,
        _ => b,
    }
}
