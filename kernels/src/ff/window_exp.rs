//! Exponentiation by a fixed exponent with a sliding window of odd powers.
//!
//! Fermat inversion raises to `p − 2`: bit by bit that is one squaring per
//! bit plus one multiplication per set bit (381 + 229 for BLS12-381's Fp).
//! With 4-bit windows of odd digits the multiplications drop to one per
//! window (≈ 70) plus 8 for the table `a, a^3, …, a^15`. The window
//! schedule is computed at compile time from the exponent, so a kernel only
//! walks a constant table of `(squarings, digit)` steps, the same for every
//! thread.

use super::field::Field;

/// Most window steps an exponent of up to 384 bits can need (each step
/// consumes at least one bit).
pub const MAX_STEPS: usize = 384;

/// Window bits: digits are odd and below `2^WINDOW`.
pub const WINDOW: u32 = 4;

/// A fixed exponent as its leading digit, then steps of "square this many
/// times, multiply by this digit's power", then trailing squarings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowSchedule {
    pub top: u8,
    pub steps: [(u16, u8); MAX_STEPS],
    pub len: usize,
    pub tail: u16,
}

const fn bit<const N: usize>(e: &[u64; N], i: u32) -> bool {
    (e[(i / 64) as usize] >> (i % 64)) & 1 == 1
}

/// The schedule of the exponent `e` (little-endian limbs, not zero).
pub const fn window_schedule<const N: usize>(e: &[u64; N]) -> WindowSchedule {
    let mut top_bit = 64 * N as u32;
    loop {
        assert!(top_bit > 0, "window_schedule: a zero exponent");
        top_bit -= 1;
        if bit(e, top_bit) {
            break;
        }
    }
    let mut s = WindowSchedule { top: 0, steps: [(0, 0); MAX_STEPS], len: 0, tail: 0 };
    let mut first = true;
    let mut pending: u16 = 0;
    // `i + 1` bits remain, from bit `i` down.
    let mut i = top_bit as i64;
    while i >= 0 {
        if !bit(e, i as u32) {
            pending += 1;
            i -= 1;
            continue;
        }
        // The lowest set bit within the window below and at `i`.
        let mut j = if i + 1 >= WINDOW as i64 { i + 1 - WINDOW as i64 } else { 0 };
        while !bit(e, j as u32) {
            j += 1;
        }
        let mut digit = 0u8;
        let mut k = i;
        while k >= j {
            digit = (digit << 1) | bit(e, k as u32) as u8;
            k -= 1;
        }
        let width = (i - j + 1) as u16;
        if first {
            s.top = digit;
            first = false;
        } else {
            s.steps[s.len] = (pending + width, digit);
            s.len += 1;
        }
        pending = 0;
        i = j - 1;
    }
    s.tail = pending;
    s
}

/// `a^e` for the exponent `schedule` was made from.
#[inline(always)]
pub fn pow_windowed<F: Field>(a: F, schedule: &WindowSchedule) -> F {
    let a2 = a.square();
    let a3 = a * a2;
    let a5 = a3 * a2;
    let a7 = a5 * a2;
    let a9 = a7 * a2;
    let a11 = a9 * a2;
    let a13 = a11 * a2;
    let a15 = a13 * a2;
    // A match, not an array index: the odd powers stay in registers.
    let power = |d: u8| match d {
        1 => a,
        3 => a3,
        5 => a5,
        7 => a7,
        9 => a9,
        11 => a11,
        13 => a13,
        _ => a15,
    };
    let mut acc = power(schedule.top);
    let mut k = 0;
    while k < schedule.len {
        let (squarings, digit) = schedule.steps[k];
        for _ in 0..squarings {
            acc = acc.square();
        }
        acc = acc * power(digit);
        k += 1;
    }
    for _ in 0..schedule.tail {
        acc = acc.square();
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rebuilds the exponent from its schedule: every digit odd and below
    /// 2^WINDOW, and the same value.
    fn rebuild<const N: usize>(s: &WindowSchedule) -> [u64; N] {
        let mut e = [0u64; N];
        let shl = |e: &mut [u64; N], by: u16| {
            for _ in 0..by {
                let mut carry = 0;
                for limb in e.iter_mut() {
                    let next = *limb >> 63;
                    *limb = (*limb << 1) | carry;
                    carry = next;
                }
                assert_eq!(carry, 0, "overflow");
            }
        };
        let digit_ok = |d: u8| d % 2 == 1 && (d as u32) < 1 << WINDOW;
        assert!(digit_ok(s.top));
        e[0] = s.top as u64;
        for &(squarings, digit) in &s.steps[..s.len] {
            assert!(digit_ok(digit) && squarings >= 1);
            shl(&mut e, squarings);
            e[0] |= digit as u64;
        }
        shl(&mut e, s.tail);
        e
    }

    #[test]
    fn schedules_rebuild_their_exponents() {
        use crate::ff::{FpConfig, FrConfig, MontConfig};
        let cases: [[u64; 6]; 6] = [
            FpConfig::MODULUS_MINUS_TWO,
            [1, 0, 0, 0, 0, 0],
            [0b1011_0001, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 1 << 63],
            [u64::MAX; 6],
            [0x8000_0000_0000_0001, 0x10, 0, 3, 0, 0xf0f0],
        ];
        for e in cases {
            assert_eq!(rebuild::<6>(&window_schedule(&e)), e);
        }
        let fr = FrConfig::MODULUS_MINUS_TWO;
        assert_eq!(rebuild::<4>(&window_schedule(&fr)), fr);
        // Fp's p − 2: far fewer multiplications than its 229 set bits.
        assert!(window_schedule(&FpConfig::MODULUS_MINUS_TWO).len < 90);
    }
}
