//! `src/apiserver/apply/zero_objects.json` (the zero object of every built-in kind that a
//! create's managedFields are recorded from) is what `upstream/cmd/zero-objects` prints for the
//! pinned release.

use std::process::Command;

#[test]
fn the_zero_objects_are_those_of_the_pinned_release() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("go")
        .args(["run", "./cmd/zero-objects"])
        .current_dir(format!("{root}/upstream"))
        .output()
        .expect("Go runs (it builds the pinned release's control plane too)");
    assert!(output.status.success(), "go run ./cmd/zero-objects failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let committed = std::fs::read_to_string(format!("{root}/src/apiserver/apply/zero_objects.json")).unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout) == committed,
        "src/apiserver/apply/zero_objects.json is stale: regenerate it with `cd upstream && go run ./cmd/zero-objects > ../src/apiserver/apply/zero_objects.json`"
    );
}
