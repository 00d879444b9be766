//! Warnings a request's handling gives its client, as upstream's request-scoped recorder
//! (`k8s.io/apiserver/pkg/warning` and `pkg/endpoints/filters/warning.go`) collects them: any
//! rule may [`add`] one while a request is served inside [`recording`], and the answer carries
//! each once as a `Warning: 299 - "text"` header.

use std::cell::RefCell;
use std::future::Future;

/// Past this many characters of warnings in all, each is cut to [`TRUNCATE_ITEM_CHARS`].
const TRUNCATE_AT_TOTAL_CHARS: usize = 4 * 1024;
/// The length of each warning once they are cut.
const TRUNCATE_ITEM_CHARS: usize = 256;

tokio::task_local! {
    static RECORDER: RefCell<Recorder>;
}

/// The warnings of one request, as upstream's recorder keeps them.
#[derive(Debug, Default)]
struct Recorder {
    /// Every distinct warning, in the order given.
    texts: Vec<String>,
    /// The header values written.
    headers: Vec<String>,
    /// Characters written.
    written: usize,
    /// Whether warnings are being cut.
    truncating: bool,
}

fn cut(text: &str) -> String {
    text.chars().take(TRUNCATE_ITEM_CHARS).collect()
}

impl Recorder {
    fn add(&mut self, text: &str) {
        if text.is_empty() || (self.truncating && self.written >= TRUNCATE_AT_TOTAL_CHARS) || self.texts.iter().any(|t| t == text) {
            return;
        }
        self.texts.push(text.to_string());
        let text = if self.truncating { cut(text) } else { text.to_string() };
        let Some(value) = header(&text) else { return };
        let length = text.chars().count();
        if self.truncating || self.written + length <= TRUNCATE_AT_TOTAL_CHARS {
            self.written += length;
            self.headers.push(value);
            return;
        }
        // Over the limit: start again with every warning cut.
        self.truncating = true;
        self.written = 0;
        self.headers.clear();
        for text in self.texts.iter().map(|t| cut(t)) {
            if let Some(value) = header(&text) {
                self.written += text.chars().count();
                self.headers.push(value);
            }
        }
    }
}

/// The value of a `Warning` header for `text` (upstream's `NewWarningHeader` with code 299 and
/// no agent): `"` and `\` escaped; none for text with control characters.
fn header(text: &str) -> Option<String> {
    if text.chars().any(char::is_control) {
        return None;
    }
    Some(format!("299 - \"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"")))
}

/// Adds a warning for the client of the request being served (none outside [`recording`]).
pub fn add(text: &str) {
    let _ = RECORDER.try_with(|recorder| recorder.borrow_mut().add(text));
}

/// Runs `handling`, collecting the warnings it adds: its output and the `Warning` header values.
pub async fn recording<F: Future>(handling: F) -> (F::Output, Vec<String>) {
    RECORDER
        .scope(RefCell::new(Recorder::default()), async move {
            let output = handling.await;
            (output, RECORDER.with(|recorder| std::mem::take(&mut recorder.borrow_mut().headers)))
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn warnings_are_headers_given_once_and_cut_when_too_long() {
        let ((), headers) = recording(async {
            add(r#"unknown field "spec.x""#);
            add(r#"unknown field "spec.x""#);
            add("line one\nline two");
            add("a\\b");
        })
        .await;
        assert_eq!(headers, [r#"299 - "unknown field \"spec.x\"""#, r#"299 - "a\\b""#]);
        let long = "x".repeat(3000);
        let ((), headers) = recording(async {
            add(&long);
            add(&format!("{long}y"));
        })
        .await;
        assert_eq!(headers, [format!("299 - \"{}\"", "x".repeat(256)), format!("299 - \"{}\"", "x".repeat(256))]);
        add("outside a request: dropped");
    }
}
