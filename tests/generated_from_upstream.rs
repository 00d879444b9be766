//! Files generated from the pinned release and committed are what their commands print now:
//! `src/apiserver/apply/zero_objects.json` (the zero object of every built-in kind that a
//! create's managedFields are recorded from, `upstream/cmd/zero-objects`) and
//! `src/apiserver/storage/bootstrap_rbac.jsonl` (the RBAC objects a fresh kube-apiserver
//! creates, `upstream/cmd/bootstrap-rbac`), `src/apiserver/schema/go_shapes.json` (how each
//! built-in kind's Go type decodes and encodes JSON, `upstream/cmd/go-shapes`),
//! `src/apiserver/protobuf/proto_shapes.json` (how it is written as protobuf,
//! `upstream/cmd/proto-shapes`) and `src/apiserver/http/table_columns.json` (the Table columns of
//! upstream's printers, `upstream/cmd/table-columns`).

use std::process::Command;

/// Asserts that `go run ./cmd/COMMAND` in `upstream/` prints the committed file `committed`.
fn prints_committed(command: &str, committed: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("go")
        .args(["run", &format!("./cmd/{command}")])
        .current_dir(format!("{root}/upstream"))
        .output()
        .expect("Go runs (it builds the pinned release's control plane too)");
    assert!(output.status.success(), "go run ./cmd/{command} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    let file = std::fs::read_to_string(format!("{root}/{committed}")).unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout) == file,
        "{committed} is stale: regenerate it with `cd upstream && go run ./cmd/{command} > ../{committed}`"
    );
}

#[test]
fn the_zero_objects_are_those_of_the_pinned_release() {
    prints_committed("zero-objects", "src/apiserver/apply/zero_objects.json");
}

#[test]
fn the_bootstrap_rbac_objects_are_those_of_the_pinned_release() {
    prints_committed("bootstrap-rbac", "src/apiserver/storage/bootstrap_rbac.jsonl");
}

#[test]
fn the_go_shapes_are_those_of_the_pinned_release() {
    prints_committed("go-shapes", "src/apiserver/schema/go_shapes.json");
}

#[test]
fn the_proto_shapes_are_those_of_the_pinned_release() {
    prints_committed("proto-shapes", "src/apiserver/protobuf/proto_shapes.json");
}

#[test]
fn the_table_columns_are_those_of_the_pinned_release() {
    prints_committed("table-columns", "src/apiserver/http/table_columns.json");
}
