//! Nodes: the taint admission gives a new one.

use crate::apiserver::admission::Admission;
use crate::apiserver::storage::hooks::Kind;

/// The hooks of Nodes.
pub struct Nodes;

impl Kind for Nodes {
    /// A new Node is tainted not-ready until the node lifecycle controller sees it Ready.
    fn admission(&self) -> Admission {
        Admission { not_ready_taint: true, ..Admission::default() }
    }
}
