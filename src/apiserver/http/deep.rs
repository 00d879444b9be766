//! Requests whose bodies nest deeply, served on a thread with a stack to match. Go's decoder
//! takes nesting to 10,000 levels (encoding/json scanner.go `maxNestingDepth`), and the
//! decoding, the typed round trip and every walk over a body recurse once a level: on a
//! runtime's usual 2 MiB stack a body a few thousand levels deep would overflow it and abort
//! the process.

use std::future::Future;

use axum::body::Body;
use axum::response::Response;
use futures::StreamExt;

use crate::apiserver::status::ApiResult;

/// Nesting a body may have and be served on the caller's stack.
const SHALLOW: usize = 128;

/// The stack of a deep request's thread, or of a deep answer's encoding: far more than 10,000 levels need (it is reserved,
/// not committed, until used).
pub const DEEP_STACK_BYTES: usize = 1 << 30;

/// What a request's handling gives: its answer and its warnings.
pub type Answer = (ApiResult<Response>, Vec<String>);

/// Whether `body` nests objects and arrays deeper than the caller's stack is trusted with
/// (counted outside strings, in JSON and in YAML's flow style alike).
pub fn is_deep(body: &[u8]) -> bool {
    let (mut depth, mut strings) = (0usize, Strings::default());
    for &byte in body {
        if strings.within(byte) {
            continue;
        }
        match byte {
            b'{' | b'[' => {
                depth += 1;
                if depth > SHALLOW {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A scan of JSON text byte by byte: whether it is inside a string.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Reads `byte`; whether it continues a string begun before it (its closing quote too).
    /// An opening quote is not within one: the caller sees it, and the string begins.
    pub fn within(&mut self, byte: u8) -> bool {
        if !self.inside {
            self.inside = byte == b'"';
            return false;
        }
        match byte {
            _ if self.escaped => self.escaped = false,
            b'\\' => self.escaped = true,
            b'"' => self.inside = false,
            _ => {}
        }
        true
    }
}

/// Serves a request on a thread of its own with a deep stack and a runtime that lives as long
/// as the answer's body (a watch streams from it). `None` if no thread could be started.
pub async fn on_deep_stack<F, Fut>(serve: F) -> Option<Answer>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = Answer>,
{
    let (answer_tx, answer_rx) = tokio::sync::oneshot::channel();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new().name("kubegc-deep-body".into()).stack_size(DEEP_STACK_BYTES).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        runtime.block_on(async move {
            let (result, warnings) = serve().await;
            // The body keeps the runtime: the thread ends once the body is dropped.
            let result = result.map(move |response| {
                response.map(|body| {
                    Body::from_stream(body.into_data_stream().map(move |chunk| {
                        let _runtime_kept_until_dropped = &done_tx;
                        chunk
                    }))
                })
            });
            if answer_tx.send((result, warnings)).is_ok() {
                let _ = done_rx.await;
            }
        });
    });
    thread.ok()?;
    answer_rx.await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_counted_outside_strings() {
        let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(!is_deep(nested(SHALLOW).as_bytes()));
        assert!(is_deep(nested(SHALLOW + 1).as_bytes()));
        let quoted = format!("{{\"a\": \"{}\\\"\"}}", "[".repeat(SHALLOW + 1));
        assert!(!is_deep(quoted.as_bytes()));
        let siblings = "[1],".repeat(SHALLOW + 1);
        assert!(!is_deep(format!("[{siblings}1]").as_bytes()));
    }
}
