//! Kernel entry points.
//!
//! Each kernel is declared once through `kernel!`: on nvptx it becomes an
//! exported `extern "ptx-kernel"` symbol; on the host it is a plain `unsafe
//! fn` with the same signature whose "grid" is a sequential loop, so host
//! tests run the very same body, buffer layout included.

pub mod grid;

macro_rules! kernel {
    ($(#[doc = $doc:literal])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[doc = $doc])*
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name($($arg: $ty),*) $body

        $(#[doc = $doc])*
        ///
        /// # Safety
        /// Every pointer must be valid for `n` elements of its type (see
        /// [`crate::layout`]). An output may be the very same buffer as an
        /// input (in place) but must not partially overlap one.
        #[cfg(not(target_arch = "nvptx64"))]
        pub unsafe fn $name($($arg: $ty),*) $body
    };
}

pub mod bench;
pub mod elementwise;
pub mod fixed_base;
pub mod msm;
pub mod ntt;
pub mod point_decode;
pub mod r1cs;

kernel! {
    /// Launch smoke test: `p[i] += 1`.
    fn add_one(p: *mut u64, n: u32) {
        for i in grid::indices(n) {
            *p.add(i) += 1;
        }
    }
}
