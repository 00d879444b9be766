//! What a container's process does on the fake's nodes, read from its command and arguments,
//! since there is no image to run. The rule, which scenarios and users can rely on:
//! - `sleep N` (GNU sleep's operands: `10`, `1.5`, `2m`, `1h`, several summed; `infinity`
//!   never ends) exits 0 after N; `true` exits 0 and `false` exits 1 at once.
//! - `sh -c SCRIPT` (also bash, ash, dash, any path to them) runs a script of such commands and
//!   `exit N`, `:` and `echo …`, joined by `;`, `&&` or new lines: its time is the sum of its
//!   sleeps, its code that of `exit` or of the last command run. No variable is read: an
//!   `exit` of an expansion (`exit $CODE`, `exit $(( $RANDOM / 16384 ))`) exits 0.
//! - `fallocate -l SIZE FILE` (also in a script) writes SIZE bytes to the container's writable
//!   layer at once and exits 0 (`10G`, `512M`, `1GiB`: powers of 1024; `1GB`: of 1000; `1Gi`
//!   is refused), so that a pod can fill its node's disk (the kubelet model on each node counts
//!   them).
//! - Anything else (no command: the image's own entrypoint; a server; a script with other
//!   commands) runs until it is stopped.
//!
//! A process run as PID 1 with no handler of its own ignores SIGTERM, so `sleep` and shell
//! scripts outlive a graceful stop and are killed when the grace period ends (exit 137, as a
//! real `sleep 3600` pod takes its whole grace period to go); anything else is taken to be a
//! program that handles SIGTERM and exits 0 at once.

use chrono::Duration;
use serde_json::Value;

/// When a process ends by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It runs until it is stopped.
    Never,
    /// It exits `after` its start with `code`.
    After {
        /// How long it runs.
        after: Duration,
        /// Its exit code.
        code: i32,
    },
}

/// How a container's process behaves: when it exits by itself, and whether SIGTERM ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Program {
    /// When it ends by itself.
    pub exit: Exit,
    /// Whether it exits (with 0) as soon as it is asked to stop.
    pub stops_on_term: bool,
    /// The bytes it writes to its container's writable layer when it starts.
    pub writes: i64,
}

/// The shells whose `-c` script is read.
const SHELLS: [&str; 5] = ["sh", "bash", "ash", "dash", "zsh"];

/// The program of `container` (a core/v1 Container): its `command` followed by its `args`.
pub fn program(container: &Value) -> Program {
    let words = |field: &str| -> Vec<String> {
        container[field].as_array().into_iter().flatten().filter_map(|w| w.as_str().map(String::from)).collect()
    };
    let command = words("command");
    if command.is_empty() {
        return Program { exit: Exit::Never, stops_on_term: true, writes: 0 };
    }
    let argv: Vec<String> = command.into_iter().chain(words("args")).collect();
    let name = basename(&argv[0]);
    if SHELLS.contains(&name) && argv.get(1).map(String::as_str) == Some("-c") {
        let script = argv.get(2).map(String::as_str).unwrap_or("");
        let (exit, writes) = run_script(script);
        return Program { exit, stops_on_term: false, writes };
    }
    let stops_on_term = !matches!(name, "sleep" | "true" | "false" | "fallocate");
    let (exit, writes) = match run_command(&argv) {
        Some(Step::Ran { took, code, wrote }) => (Exit::After { after: took, code }, wrote),
        Some(Step::Exit(code)) => (Exit::After { after: Duration::zero(), code }, 0),
        None => (Exit::Never, 0),
    };
    Program { exit, stops_on_term, writes }
}

/// The last component of a path.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// What one command of a script does: runs for a while and ends with a code, or exits the
/// script.
enum Step {
    Ran { took: Duration, code: i32, wrote: i64 },
    Exit(i32),
}

/// The step `argv` makes; none for a command that is not read (or runs for ever).
fn run_command(argv: &[String]) -> Option<Step> {
    let (first, rest) = argv.split_first()?;
    let ran = |code| Some(Step::Ran { took: Duration::zero(), code, wrote: 0 });
    match basename(first) {
        "sleep" => {
            let mut took = Duration::zero();
            for operand in rest {
                took += sleep_operand(operand)?;
            }
            (!rest.is_empty()).then_some(Step::Ran { took, code: 0, wrote: 0 })
        }
        "fallocate" => match rest {
            [flag, size, _file] if flag == "-l" => Some(Step::Ran { took: Duration::zero(), code: 0, wrote: file_size(size)? }),
            _ => None,
        },
        "true" | ":" | "echo" => ran(0),
        "false" => ran(1),
        "exit" => match rest {
            [] => Some(Step::Exit(-1)),
            [code] => code.parse::<i32>().ok().map(|c| Step::Exit(c & 0xff)),
            [expansion, ..] if expansion.starts_with('$') => Some(Step::Exit(0)),
            _ => None,
        },
        _ => None,
    }
}

/// One operand of GNU sleep: a number with an optional `s`, `m`, `h` or `d`; none for
/// `infinity` or what sleep refuses.
fn sleep_operand(operand: &str) -> Option<Duration> {
    let (number, unit) = match operand.char_indices().last()? {
        (i, c @ ('s' | 'm' | 'h' | 'd')) => (&operand[..i], c),
        _ => (operand, 's'),
    };
    let seconds: f64 = number.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
    let scale = match unit {
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => 1.0,
    };
    Some(Duration::milliseconds((seconds * scale * 1000.0).round() as i64))
}

/// fallocate's `--length`: a number with an optional suffix, `K`, `M`, `G`, `T` (or `KiB`, …)
/// in powers of 1024, `KB`, `MB`, `GB`, `TB` in powers of 1000; none for what it refuses.
fn file_size(text: &str) -> Option<i64> {
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let number: i64 = text[..digits].parse().ok()?;
    let (unit, suffix) = text[digits..].split_at(text[digits..].len().min(1));
    let power = ["", "K", "M", "G", "T"].iter().position(|u| *u == unit)? as u32;
    let base: i64 = match suffix {
        "" | "iB" => 1024,
        "B" if power > 0 => 1000,
        _ => return None,
    };
    number.checked_mul(base.checked_pow(power)?)
}

/// What a `sh -c` script does: when it ends (after its sleeps, with the code of `exit` or of
/// its last command; never if it runs a command that is not read), and the bytes it writes
/// until then.
fn run_script(script: &str) -> (Exit, i64) {
    let mut took = Duration::zero();
    let mut wrote = 0i64;
    let mut last = 0;
    for line in script.split('\n') {
        for (joined_by_and, statement) in statements(line) {
            if joined_by_and && last != 0 {
                continue;
            }
            let words: Vec<String> = statement.split_whitespace().map(String::from).collect();
            if words.is_empty() {
                continue;
            }
            match run_command(&words) {
                Some(Step::Ran { took: t, code, wrote: w }) => {
                    took += t;
                    wrote = wrote.saturating_add(w);
                    last = code;
                }
                Some(Step::Exit(code)) => return (Exit::After { after: took, code: if code < 0 { last } else { code } }, wrote),
                None => return (Exit::Never, wrote),
            }
        }
    }
    (Exit::After { after: took, code: last }, wrote)
}

/// The statements of one line, each with whether `&&` joins it to the one before.
fn statements(line: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    for part in line.split(';') {
        for (j, statement) in part.split("&&").enumerate() {
            out.push((j > 0, statement.trim()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn exit_of(container: Value) -> Exit {
        program(&container).exit
    }

    fn after(seconds: i64, code: i32) -> Exit {
        Exit::After { after: Duration::seconds(seconds), code }
    }

    #[test]
    fn sleep_true_and_false_end_as_the_coreutils_do() {
        assert_eq!(exit_of(json!({"command": ["sleep", "10"]})), after(10, 0));
        assert_eq!(exit_of(json!({"command": ["/bin/sleep"], "args": ["1m", "30"]})), after(90, 0));
        assert_eq!(exit_of(json!({"command": ["sleep", "infinity"]})), Exit::Never);
        let random = json!({"command": ["/bin/sh", "-c", "exit $(( $RANDOM / 16384 ))"]});
        assert_eq!(exit_of(random), after(0, 0), "an expansion is not evaluated");
        assert_eq!(exit_of(json!({"command": ["true"]})), after(0, 0));
        assert_eq!(exit_of(json!({"command": ["false"]})), after(0, 1));
        assert_eq!(exit_of(json!({"command": ["sleep", "0.5"]})), Exit::After { after: Duration::milliseconds(500), code: 0 });
    }

    #[test]
    fn shell_scripts_sum_their_sleeps_and_end_with_their_exit_code() {
        assert_eq!(exit_of(json!({"command": ["sh", "-c", "sleep 5; exit 3"]})), after(5, 3));
        assert_eq!(exit_of(json!({"command": ["/bin/sh"], "args": ["-c", "exit 0"]})), after(0, 0));
        assert_eq!(exit_of(json!({"command": ["bash", "-c", "false && sleep 9"]})), after(0, 1));
        assert_eq!(exit_of(json!({"command": ["sh", "-c", "echo hi\nsleep 2"]})), after(2, 0));
        assert_eq!(exit_of(json!({"command": ["sh", "-c", "false; exit"]})), after(0, 1));
        assert_eq!(exit_of(json!({"command": ["sh", "-c", "while true; do sleep 1; done"]})), Exit::Never);
    }

    #[test]
    fn other_programs_run_until_stopped_and_stop_on_sigterm() {
        let server = program(&json!({"image": "nginx"}));
        assert_eq!(server, Program { exit: Exit::Never, stops_on_term: true, writes: 0 });
        assert!(program(&json!({"command": ["/agnhost", "pause"]})).stops_on_term);
        assert!(!program(&json!({"command": ["sleep", "3600"]})).stops_on_term);
        assert!(!program(&json!({"command": ["sh", "-c", "sleep 3600"]})).stops_on_term);
    }

    #[test]
    fn fallocate_writes_its_length_to_the_writable_layer() {
        let filler = program(&json!({"command": ["sh", "-c", "fallocate -l 9G /data; sleep infinity"]}));
        assert_eq!((filler.exit, filler.writes), (Exit::Never, 9 << 30));
        let alone = program(&json!({"command": ["fallocate", "-l", "512M", "/f"]}));
        assert_eq!((alone.exit, alone.writes), (after(0, 0), 512 << 20));
        assert_eq!(program(&json!({"command": ["fallocate", "-l", "2GB", "/f"]})).writes, 2_000_000_000);
        assert_eq!(program(&json!({"command": ["fallocate", "-l", "3GiB", "/f"]})).writes, 3 << 30);
        for refused in ["3Q", "3Gi", "G"] {
            assert_eq!(program(&json!({"command": ["fallocate", "-l", refused, "/f"]})).exit, Exit::Never, "fallocate refuses {refused}");
        }
    }
}
