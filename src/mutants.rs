//! Deliberately broken variants ("mutants") of kubegc's reference implementations, for judging
//! a specification: each breaks one rule, and a specification worth its name has a scenario
//! that fails against every one. [`define_mutants`] gives each family (API server, collector,
//! kubelet model) the same shape: an enum, its names and their parsing.

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
