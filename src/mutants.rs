//! Deliberately broken variants ("mutants") of kubegc's reference implementations, for judging
//! a specification: each breaks one rule, and a specification worth its name has a scenario
//! that fails against every one. [`define_mutants`] gives each family (API server, collector,
//! kubelet model, cleanup and workload controllers) the same shape: an enum, its names and
//! their parsing.
//!
//! A rule computes its decision as a value, and the code that acts on it passes the value
//! through [`Mutable`] first: the one place a mutant reaches the rule. The families whose rules
//! share files with the code that acts on them (the kubelet model, the cleanup and workload
//! controllers) keep what each mutant makes of each decision in a `mutations.rs` of their own,
//! which no rule imports.

/// Defines `pub enum Mutant` with `ALL`, `name()`, `Display` and `FromStr` from a list of
/// `Variant = "name",` entries (each with its doc comment); `$family` names the family in
/// messages.
macro_rules! define_mutants {
    ($family:literal; $($(#[doc = $doc:literal])* $variant:ident = $name:literal,)*) => {
        #[doc = concat!("One deliberate bug in ", $family, " (see the module documentation).")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Mutant {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Mutant {
            /// Every mutant.
            pub const ALL: &'static [Mutant] = &[$(Mutant::$variant,)*];

            /// Its name, as selected on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(Mutant::$variant => $name,)*
                }
            }
        }

        impl std::fmt::Display for Mutant {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for Mutant {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Mutant::ALL.iter().copied().find(|m| m.name() == s).ok_or_else(|| {
                    let names: Vec<&str> = Mutant::ALL.iter().map(|m| m.name()).collect();
                    format!("{s:?} is not a mutant of {}; one of: {}", $family, names.join(", "))
                })
            }
        }

        #[cfg(test)]
        mod mutant_names {
            use super::Mutant;

            #[test]
            fn names_round_trip_and_are_unique() {
                let mut names: Vec<&str> = Mutant::ALL.iter().map(|m| m.name()).collect();
                for m in Mutant::ALL {
                    assert_eq!(m.name().parse::<Mutant>().unwrap(), *m);
                }
                names.sort();
                names.dedup();
                assert_eq!(names.len(), Mutant::ALL.len());
                assert!("no-such".parse::<Mutant>().is_err());
            }
        }
    };
}

pub(crate) use define_mutants;

/// A decision of a reference rule that a mutant of the family `M` may change.
pub trait Mutable<M>: Sized {
    /// The decision as the `active` mutant makes it; no mutant, or a mutant of another rule,
    /// leaves it as it is.
    fn mutated(self, active: Option<M>) -> Self;
}
