//! The dependency graph in DOT, in the shape of kube-controller-manager's
//! `/debug/controllers/garbagecollector/graph` handler: one vertex per node labelled with its
//! coordinates and flags, one edge from each dependent to each owner; optionally only the
//! nodes connected to some UIDs.

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write;

use crate::gc::graph::{Graph, Node, Uid};

fn vertex_id(n: &Node) -> String {
    format!("\"{}\"", n.identity.uid)
}

fn label(n: &Node) -> String {
    let i = &n.identity;
    format!(
        "uid={}\\nnamespace={}\\n{}.{}/{}\\nvirtual={}\\nbeingDeleted={}\\ndeletingDependents={}",
        i.uid, i.namespace, i.kind, i.api_version, i.name, n.virtual_node, n.being_deleted, n.deleting_dependents
    )
}

/// The node for `uid`, as a value of its own.
fn node(graph: &Graph, uid: &str) -> Option<Node> {
    graph.get(&Uid::from(uid)).map(|n| n.to_node())
}

/// Renders the whole graph, or the part connected (through owners and dependents) to `uids`.
pub fn render(graph: &Graph, uids: &[String]) -> String {
    let selected: BTreeSet<String> = if uids.is_empty() {
        graph.nodes().map(|n| n.uid().to_string()).collect()
    } else {
        let mut seen = BTreeSet::new();
        let mut queue: VecDeque<String> = uids.iter().cloned().collect();
        while let Some(uid) = queue.pop_front() {
            let Some(n) = node(graph, &uid) else { continue };
            if !seen.insert(uid) {
                continue;
            }
            queue.extend(n.dependents.iter().map(|d| d.to_string()));
            queue.extend(n.owners.iter().map(|o| o.uid.to_string()));
        }
        seen
    };
    let mut out = String::from("strict digraph full {\n  // Node definitions.\n");
    for uid in &selected {
        if let Some(n) = node(graph, uid) {
            let color = if n.virtual_node { "\"#ffaa00\"" } else { "\"#000000\"" };
            let _ = writeln!(
                out,
                "  {} [\n    label=\"{}\"\n    group=\"{}\"\n    version=\"{}\"\n    kind=\"{}\"\n    namespace=\"{}\"\n    name=\"{}\"\n    uid=\"{}\"\n    missing=\"{}\"\n    beingDeleted=\"{}\"\n    deletingDependents=\"{}\"\n    virtual=\"{}\"\n    color={}\n  ];",
                vertex_id(&n),
                label(&n),
                group_of(&n.identity.api_version),
                version_of(&n.identity.api_version),
                n.identity.kind,
                n.identity.namespace,
                n.identity.name,
                n.identity.uid,
                n.virtual_node,
                n.being_deleted,
                n.deleting_dependents,
                n.virtual_node,
                color
            );
        }
    }
    out.push_str("\n  // Edge definitions.\n");
    for uid in &selected {
        if let Some(n) = node(graph, uid) {
            for o in &n.owners {
                if selected.contains(&o.uid.to_string()) {
                    let _ = writeln!(out, "  {} -> \"{}\";", vertex_id(&n), o.uid);
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

fn version_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or(api_version, |(_, v)| v)
}
