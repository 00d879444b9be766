//! Deliberately broken collectors, for judging a specification: each mutant breaks one rule of
//! the reference collector, and a specification worth its name has a scenario that fails
//! against it. Never set one outside such a check.

/// One broken rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// Foreground owners never wait for blocking dependents (A.7 broken).
    IgnoreBlockOwnerDeletion,
    /// The `orphan` finalizer is removed without stripping the dependents' references (A.8 broken).
    NeverOrphan,
    /// An item with a dangling owner is deleted even when another owner is solid (A.5 broken).
    DeleteDespiteSolidOwner,
    /// A namespaced owner the collector has seen in another namespace counts as solid (A.10 broken).
    IgnoreCrossNamespaceRule,
    /// Blocking references are never made non-blocking, so cycles stay stuck (A.5 cycle rule broken).
    NeverBreakCycles,
}

impl Mutant {
    /// Every mutant.
    pub const ALL: [Mutant; 5] = [
        Self::IgnoreBlockOwnerDeletion,
        Self::NeverOrphan,
        Self::DeleteDespiteSolidOwner,
        Self::IgnoreCrossNamespaceRule,
        Self::NeverBreakCycles,
    ];

    /// The mutant's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::IgnoreBlockOwnerDeletion => "ignore-block-owner-deletion",
            Self::NeverOrphan => "never-orphan",
            Self::DeleteDespiteSolidOwner => "delete-despite-solid-owner",
            Self::IgnoreCrossNamespaceRule => "ignore-cross-namespace-rule",
            Self::NeverBreakCycles => "never-break-cycles",
        }
    }
}

impl std::str::FromStr for Mutant {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mutant {s:?}; one of: {}", Self::ALL.map(Mutant::name).join(", ")))
    }
}
