//! The proof kinds and priorities of the protocol, as the engine names and
//! orders them.

use std::fmt;

/// What a request asks to prove (the proto's `ProofKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProofKind {
    /// PoRep C2 (`POREP_SEAL_COMMIT`).
    PorepSealCommit,
    /// SnapDeals update (`SNAP_DEALS_UPDATE`).
    SnapDealsUpdate,
    /// One WindowPoSt partition (`WINDOW_POST_PARTITION`).
    WindowPostPartition,
    /// WinningPoSt (`WINNING_POST`).
    WinningPost,
    /// A value the protocol does not define (or `PROOF_KIND_UNSPECIFIED`).
    Unknown(i32),
}

impl ProofKind {
    /// The kinds the protocol defines, in its order.
    pub const KNOWN: [ProofKind; 4] = [ProofKind::PorepSealCommit, ProofKind::SnapDealsUpdate, ProofKind::WindowPostPartition, ProofKind::WinningPost];

    /// From the proto enum's number.
    pub fn from_proto(value: i32) -> Self {
        match value {
            1 => ProofKind::PorepSealCommit,
            2 => ProofKind::SnapDealsUpdate,
            3 => ProofKind::WindowPostPartition,
            4 => ProofKind::WinningPost,
            other => ProofKind::Unknown(other),
        }
    }

    /// A Prometheus label value (upstream's).
    pub fn metric_label(self) -> &'static str {
        match self {
            ProofKind::PorepSealCommit => "porep_c2",
            ProofKind::SnapDealsUpdate => "snap_update",
            ProofKind::WindowPostPartition => "window_post",
            ProofKind::WinningPost => "winning_post",
            ProofKind::Unknown(_) => "unknown",
        }
    }

    /// The priority of a request that leaves it unspecified (upstream's:
    /// a WinningPoSt must land within its epoch, a WindowPoSt within its
    /// deadline).
    pub fn default_priority(self) -> Priority {
        match self {
            ProofKind::WinningPost => Priority::Critical,
            ProofKind::WindowPostPartition => Priority::High,
            _ => Priority::Normal,
        }
    }
}

impl fmt::Display for ProofKind {
    /// Upstream's names in `QueueStatus.proof_kind`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofKind::PorepSealCommit => write!(f, "porep-c2"),
            ProofKind::SnapDealsUpdate => write!(f, "snap-update"),
            ProofKind::WindowPostPartition => write!(f, "window-post"),
            ProofKind::WinningPost => write!(f, "winning-post"),
            ProofKind::Unknown(n) => write!(f, "unknown-{n}"),
        }
    }
}

/// How soon a job runs: higher first, then in arrival order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// `LOW`.
    Low = 1,
    /// `NORMAL`.
    Normal = 2,
    /// `HIGH`.
    High = 3,
    /// `CRITICAL`.
    Critical = 4,
}

impl Priority {
    /// Every priority, lowest first.
    pub const ALL: [Priority; 4] = [Priority::Low, Priority::Normal, Priority::High, Priority::Critical];

    /// From the proto enum's number; unspecified or unknown values take
    /// the kind's default.
    pub fn from_proto(value: i32, kind: ProofKind) -> Self {
        match value {
            1 => Priority::Low,
            2 => Priority::Normal,
            3 => Priority::High,
            4 => Priority::Critical,
            _ => kind.default_priority(),
        }
    }

    /// A Prometheus label value.
    pub fn label(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
            Priority::Critical => "critical",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_priority_follows_the_kind() {
        assert_eq!(Priority::from_proto(0, ProofKind::WinningPost), Priority::Critical);
        assert_eq!(Priority::from_proto(0, ProofKind::PorepSealCommit), Priority::Normal);
        assert_eq!(Priority::from_proto(1, ProofKind::WinningPost), Priority::Low);
        assert_eq!(ProofKind::from_proto(9), ProofKind::Unknown(9));
        assert!(Priority::Critical > Priority::Low);
    }
}
