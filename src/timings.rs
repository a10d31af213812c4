//! Wall-clock time of each proving phase, for logs and benchmarks.

use std::fmt;
use std::time::Duration;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimings {
    /// Validation and witness preparation (GPU: slot wait and upload).
    pub prestage: Duration,
    /// The H polynomial: inverse, coset and coset-inverse NTTs.
    pub ntt: Duration,
    /// All multi-scalar multiplications (H, L, A, B in G1 and G2).
    pub msm: Duration,
    /// Combining the MSM results with r and s.
    pub assemble: Duration,
}

impl PhaseTimings {
    pub fn total(&self) -> Duration {
        self.prestage + self.ntt + self.msm + self.assemble
    }
}

impl fmt::Display for PhaseTimings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "prestage {:.3?}, ntt {:.3?}, msm {:.3?}, assemble {:.3?}, total {:.3?}",
            self.prestage, self.ntt, self.msm, self.assemble, self.total()
        )
    }
}
