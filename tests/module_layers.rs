//! The layering the architecture promises (docs/architecture.md), checked on the sources: no
//! two modules of an area (`src/apiserver`, `src/gc`, `src/cleanup`, `src/workloads`,
//! `src/kubelet`, `harness/src`) import each other, directly or through others, a parent module
//! counting as a module like any other; the collector never imports the API server outside its
//! tests, and the kubelet model imports neither; the API server's and the collector's `mod.rs`
//! only name their parts (the server, its handle and the collector's run loops live in files of
//! their own).
//!
//! An import is any `crate::`, `super::` or `self::` path outside comments and outside the
//! `#[cfg(test)] mod tests` block that ends a file. Cycles are looked for twice: between files,
//! and between the top-level modules of an area (`apiserver::http`, `apiserver::storage`, ...).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`apiserver::storage::read`) → source with comments and tests removed.
type Sources = BTreeMap<String, String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source folder is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The sources below `root/area`, keyed by module path relative to `root`.
fn sources(root: &Path, area: &str) -> Sources {
    let mut files = Vec::new();
    rust_files(&root.join(area), &mut files);
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(root).expect("below root").with_extension("");
            let mut segments: Vec<String> = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if segments.last().is_some_and(|s| matches!(s.as_str(), "mod" | "lib" | "main")) {
                segments.pop();
            }
            let text = std::fs::read_to_string(&file).expect("source is readable");
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
            let code: String = code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
            (segments.join("::"), code)
        })
        .collect()
}

/// Every module path `code` (the source of `module`) names from the crate's root: its
/// `crate::` paths, and its `super::` and `self::` paths made absolute, with `use` groups
/// (`crate::a::{b, c::d}`) expanded.
fn crate_paths(module: &str, code: &str) -> Vec<String> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (at, _) in code.match_indices("::") {
        let start = code[..at].char_indices().rev().find(|&(_, c)| !is_ident(c)).map_or(0, |(i, c)| i + c.len_utf8());
        let head = &code[start..at];
        // A visibility (`pub(in crate::gc)`) names a module but imports nothing from it.
        if !matches!(head, "crate" | "super" | "self") || code[..start].ends_with("::") || code[..start].ends_with("(in ") {
            continue;
        }
        let rest = &code[start..];
        let base: String = rest.chars().take_while(|&c| is_ident(c) || c == ':').collect();
        let base = base.trim_end_matches(':').to_string();
        let after = &rest[base.len()..];
        let Some(base) = absolute(module, &base) else { continue };
        if let Some(group) = after.strip_prefix("::{").and_then(|g| g.split('}').next()) {
            for part in group.split(',') {
                let part = part.trim().split("::{").next().unwrap_or_default().trim();
                if !part.is_empty() && part != "self" {
                    out.push(format!("{base}::{part}"));
                }
            }
        }
        out.push(base);
    }
    out
}

/// `path` (`crate::a::b`, `super::super::c`, `self::d`) from the crate's root, as named in
/// `module`; `None` for a `super` above the root.
fn absolute(module: &str, path: &str) -> Option<String> {
    let mut at: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut segments = path.split("::").peekable();
    match segments.next()? {
        "crate" => at.clear(),
        "self" => {}
        _ => {
            at.pop()?;
            while segments.next_if_eq(&"super").is_some() {
                at.pop()?;
            }
        }
    }
    at.extend(segments);
    Some(at.join("::"))
}

/// The modules each module imports, cut to `depth` segments (0: whole paths), within `area`.
/// Between files (depth 0), a file below a top-level module of `top_level_depth` segments that
/// imports one of its ancestors down to that module extends the type its parent defines
/// (`storage::delete` is `Storage`'s DELETE) and is not counted; an import of anything above a
/// top-level module, the area's root among them, always is.
fn imports(sources: &Sources, area: &str, depth: usize, top_level_depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let cut = |m: &str| if depth == 0 { m.to_string() } else { m.split("::").take(depth).collect::<Vec<_>>().join("::") };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in sources {
        for path in crate_paths(module, code) {
            let mut segments: Vec<&str> = path.split("::").collect();
            while !segments.is_empty() && !sources.contains_key(&segments.join("::")) {
                segments.pop();
            }
            let (from, to) = (cut(module), cut(&segments.join("::")));
            let extends_parent = depth == 0 && from.starts_with(&format!("{to}::")) && segments.len() >= top_level_depth;
            if !segments.is_empty() && from != to && !extends_parent && to.starts_with(area) {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    edges
}

/// A cycle in `edges`, as the modules on it, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            return Some(path[at..].to_vec());
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

fn assert_no_cycles(root: &Path, area: &str, top_level_depth: usize) {
    let sources = sources(root, area);
    assert!(sources.len() > 3, "{area}: no sources found under {}", root.display());
    for depth in [0, top_level_depth] {
        let edges = imports(&sources, area, depth, top_level_depth);
        assert!(!edges.is_empty(), "{area}: no imports found; the check reads nothing");
        if let Some(cycle) = find_cycle(&edges) {
            panic!("{area}: modules import each other in a cycle: {}", cycle.join(" -> "));
        }
    }
}

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_api_server_modules_import_each_other_in_no_cycle() {
    assert_no_cycles(&manifest().join("src"), "apiserver", 2);
}

#[test]
fn the_collector_modules_import_each_other_in_no_cycle() {
    assert_no_cycles(&manifest().join("src"), "gc", 2);
}

#[test]
fn the_cleanup_controllers_import_each_other_in_no_cycle() {
    assert_no_cycles(&manifest().join("src"), "cleanup", 2);
}

#[test]
fn the_kubelet_model_modules_import_each_other_in_no_cycle() {
    assert_no_cycles(&manifest().join("src"), "kubelet", 2);
}

#[test]
fn the_harness_modules_import_each_other_in_no_cycle() {
    assert_no_cycles(&manifest().join("harness/src"), "", 1);
}

/// The lines of `code` (a module's source, comments and tests removed) that do more than name
/// its parts: anything but `mod` declarations and `use` re-exports.
fn more_than_names(code: &str) -> Vec<&str> {
    let names = |l: &&str| ["pub mod ", "mod ", "pub use ", "use "].iter().any(|p| l.starts_with(p));
    code.lines().map(str::trim).filter(|l| !l.is_empty() && !names(l)).collect()
}

#[test]
fn the_api_server_and_the_collector_keep_their_parts_in_files_of_their_own() {
    for area in ["apiserver", "gc"] {
        let sources = sources(&manifest().join("src"), area);
        let extra = more_than_names(&sources[area]);
        assert!(extra.is_empty(), "src/{area}/mod.rs does more than name its parts: {extra:?}");
    }
}

#[test]
fn the_root_check_sees_a_definition() {
    assert!(more_than_names("pub mod a;\npub use a::B;\n").is_empty());
    assert_eq!(more_than_names("pub mod a;\npub struct Server;\n"), ["pub struct Server;"]);
}

/// The modules of `area` whose code (tests aside) names a module under one of `forbidden`.
fn importers(area: &str, forbidden: &[&str]) -> Vec<String> {
    let sources = sources(&manifest().join("src"), area);
    assert!(!sources.is_empty(), "{area}: no sources found");
    sources
        .into_iter()
        .filter(|(module, code)| {
            crate_paths(module, code).iter().any(|p| forbidden.iter().any(|f| p == f || p.starts_with(&format!("{f}::"))))
        })
        .map(|(module, _)| module)
        .collect()
}

#[test]
fn the_collector_reaches_the_api_server_only_through_a_client() {
    let offenders = importers("gc", &["apiserver"]);
    assert!(offenders.is_empty(), "the collector imports the API server in {offenders:?}");
}

#[test]
fn the_kubelet_model_stands_alone() {
    let offenders = importers("kubelet", &["apiserver", "gc"]);
    assert!(offenders.is_empty(), "the kubelet model imports the API server or the collector in {offenders:?}");
}

#[test]
fn the_workload_controllers_are_clients_too() {
    let offenders = importers("workloads", &["apiserver", "gc"]);
    assert!(offenders.is_empty(), "the workload controllers import the API server or the collector in {offenders:?}");
    assert_no_cycles(&manifest().join("src"), "workloads", 2);
}

#[test]
fn the_check_sees_a_cycle_when_there_is_one() {
    let sources: Sources = [
        ("apiserver::a".to_string(), "use crate::apiserver::b::{Thing, c::Other};".to_string()),
        ("apiserver::b".to_string(), "fn f() { crate::apiserver::a::g() }".to_string()),
        ("apiserver::b::c".to_string(), String::new()),
    ]
    .into();
    let cycle = find_cycle(&imports(&sources, "apiserver", 0, 2)).expect("a -> b -> a is a cycle");
    assert_eq!(cycle, ["apiserver::a", "apiserver::b"]);
    let acyclic: Sources =
        [("apiserver::a".to_string(), "use crate::apiserver::b;".to_string()), ("apiserver::b".to_string(), String::new())].into();
    assert_eq!(find_cycle(&imports(&acyclic, "apiserver", 0, 2)), None);
    let through_the_parent: Sources = [
        ("apiserver".to_string(), "pub use crate::apiserver::http::router;".to_string()),
        ("apiserver::http".to_string(), "use super::Server;".to_string()),
    ]
    .into();
    let cycle = find_cycle(&imports(&through_the_parent, "apiserver", 0, 2)).expect("a child importing its parent, which imports it");
    assert_eq!(cycle, ["apiserver", "apiserver::http"]);
    let extending: Sources = [
        ("apiserver::storage".to_string(), "use crate::apiserver::storage::hooks::Kind;".to_string()),
        ("apiserver::storage::hooks".to_string(), "use super::Storage;".to_string()),
    ]
    .into();
    assert_eq!(find_cycle(&imports(&extending, "apiserver", 0, 2)), None, "a file extending its parent's type");
}

#[test]
fn relative_paths_are_read_from_the_module_that_names_them() {
    assert_eq!(absolute("gc::collector::tasks", "super::Collector").as_deref(), Some("gc::collector::Collector"));
    assert_eq!(absolute("gc::collector::tasks", "super::super::run").as_deref(), Some("gc::run"));
    assert_eq!(absolute("gc::collector", "self::tasks").as_deref(), Some("gc::collector::tasks"));
    assert_eq!(absolute("gc::collector", "crate::gc::run").as_deref(), Some("gc::run"));
    assert_eq!(absolute("", "super::x"), None);
    let paths = crate_paths("gc::run", "pub(in crate::gc) fn f() { use super::{a, b::c}; }");
    assert_eq!(paths, ["gc::a", "gc::b::c", "gc"]);
}
