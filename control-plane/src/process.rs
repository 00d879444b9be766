//! One upstream program run as a child: its output in a log file, its lifetime tied to ours.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

/// A running upstream program; stopped (SIGTERM, then SIGKILL) when dropped.
#[derive(Debug)]
pub struct Process {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Process {
    /// Starts `program` with `args`, writing its stdout and stderr to `<log_dir>/<name>.log`.
    /// The child gets SIGKILL if this process dies first, so nothing outlives a killed kubegc.
    pub fn spawn(name: impl Into<String>, program: &Path, args: &[String], log_dir: &Path) -> anyhow::Result<Self> {
        let name = name.into();
        let log = log_dir.join(format!("{name}.log"));
        let out = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::null()).stdout(out.try_clone()?).stderr(out);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().with_context(|| format!("cannot start {}", program.display()))?;
        Ok(Self { name, child, log })
    }

    /// The name it was started with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Fails with the end of the log if the program has exited.
    pub fn check_running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => anyhow::bail!("{} exited ({status}); the end of {}:\n{}", self.name, self.log.display(), self.log_tail(30)),
        }
    }

    /// The last `lines` lines of the program's log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Whether the log has a line containing `needle`.
    pub fn logged(&self, needle: &str) -> bool {
        std::fs::read_to_string(&self.log).is_ok_and(|t| t.contains(needle))
    }

    /// Freezes the program (SIGSTOP): it keeps its place among the running, but does nothing
    /// (a machine that is off, to the rest of the cluster) until it is stopped.
    pub fn freeze(&mut self) {
        // SAFETY: signalling our own child's pid.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGSTOP) };
    }

    /// Asks the program to stop and waits up to `grace` before killing it.
    pub fn stop(&mut self, grace: Duration) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        // SAFETY: signalling our own child's pid (a frozen one handles SIGTERM once continued).
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            libc::kill(self.child.id() as libc::pid_t, libc::SIGCONT);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(10));
    }
}
