//! Embeds the specification: every file of the workspace's `features/` directory (the feature
//! files, their README and the list of upstream cases) and of `fixtures/` (the manifests
//! scenarios load) goes into the `kubegc` binary, so that an installed `kubegc` needs no source
//! tree around it (`features::or_default`).

use std::path::Path;

/// The workspace's directories embedded, as the scenarios find each other's files.
const DIRECTORIES: [&str; 2] = ["features", "fixtures"];

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("..");
    let mut entries = String::new();
    for name in DIRECTORIES {
        let dir = root.join(name);
        // A directory here makes cargo rerun this script when any file in it changes or appears.
        println!("cargo::rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read the specification at {}: {e}", dir.display()))
            .map(|entry| entry.expect("a readable directory entry").path())
            .filter(|path| path.is_file())
            .collect();
        files.sort();
        for path in files {
            let file = path.file_name().and_then(|n| n.to_str()).expect("the specification's file names are UTF-8");
            let absolute = path.canonicalize().expect("an existing file");
            entries.push_str(&format!("    ({:?}, include_str!({:?})),\n", format!("{name}/{file}"), absolute.display().to_string()));
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("specification.rs");
    std::fs::write(out, format!("&[\n{entries}]\n")).expect("OUT_DIR is writable");
}
