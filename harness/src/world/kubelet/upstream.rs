//! The kubelet's own code as a scenario's kubelet: kubegc's kubelet driver (built from the
//! pinned upstream module, `upstream/cmd/kubegc-kubelet-driver/`), one process per scenario,
//! spoken to in the JSON form of [`crate::kubelet_wire`]. Each request carries the whole node;
//! each answer brings the node back as upstream's code left it, with what that code keeps to
//! itself (image records, the collected-images metric, post-GC hook runs).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::kubelet_wire::{Answer, LoopState, Request};
use kubegc::kubelet::images::records::ImageRecord;

/// A running driver and what upstream's collectors have told of themselves so far.
#[derive(Debug)]
pub struct UpstreamKubelet {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The image records after the last request.
    pub records: BTreeMap<String, ImageRecord>,
    /// `image_garbage_collected_total` by reason after the last request.
    pub collected: BTreeMap<String, u64>,
    /// How often the post-GC hooks have run.
    pub hook_runs: usize,
    /// The kubelet's GC loops, once they run.
    pub loops: Option<LoopState>,
    /// Whether the eviction manager reported DiskPressure after its last pass.
    pub disk_pressure: bool,
}

impl UpstreamKubelet {
    /// Starts the driver at `path`.
    pub fn start(path: &Path) -> Result<Self, String> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the kubelet driver {}: {e}", path.display()))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, BufReader::new(stdout)),
            _ => return Err("the kubelet driver has no standard input or output".into()),
        };
        Ok(Self {
            child,
            stdin,
            stdout,
            records: BTreeMap::new(),
            collected: BTreeMap::new(),
            hook_runs: 0,
            loops: None,
            disk_pressure: false,
        })
    }

    /// Sends one request and reads its answer; a request the driver could not carry out at all
    /// (its `fault`) is an error.
    pub fn call(&mut self, request: &Request) -> Result<Answer, String> {
        let mut line = serde_json::to_vec(request).map_err(|e| format!("cannot encode a request for the kubelet driver: {e}"))?;
        line.push(b'\n');
        self.stdin.write_all(&line).and_then(|()| self.stdin.flush()).map_err(|e| format!("cannot write to the kubelet driver: {e}"))?;
        let mut text = String::new();
        match self.stdout.read_line(&mut text) {
            Ok(0) => return Err(format!("the kubelet driver exited ({})", self.exit_status())),
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read from the kubelet driver: {e}")),
        }
        let unreadable = |e: serde_json::Error| format!("cannot read the kubelet driver's answer ({e}): {text}");
        // A fault may come with no node at all (a request the driver could not read).
        let value: serde_json::Value = serde_json::from_str(&text).map_err(unreadable)?;
        if let Some(fault) = value.get("fault").and_then(serde_json::Value::as_str) {
            return Err(format!("the kubelet driver could not carry out {:?}: {fault}", request.op.kind));
        }
        let answer: Answer = serde_json::from_value(value).map_err(unreadable)?;
        self.records = answer.records.iter().map(|r| (r.key.clone(), r.to_model())).collect();
        self.collected = answer.collected.clone();
        self.hook_runs = answer.hook_runs;
        self.loops = answer.loops;
        if let Some(sync) = &answer.sync {
            self.disk_pressure = sync.disk_pressure;
        }
        Ok(answer)
    }

    fn exit_status(&mut self) -> String {
        match self.child.wait() {
            Ok(status) => status.to_string(),
            Err(e) => e.to_string(),
        }
    }
}

impl Drop for UpstreamKubelet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
