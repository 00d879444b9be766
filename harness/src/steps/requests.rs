//! Steps on what the API server answered the scenario's last request: its status code and
//! reason, the failure's message, the fields of the object it returned and the names it listed.
//!
//! Requests whose answer a scenario checks are sent as raw HTTP
//! ([`super::support::send`]), so that the answer is kept as the server gave it: the status
//! code and body of a success (`world.last_response`) or the `Status` of a failure
//! (`world.last_error`).

use cucumber::then;

use super::support::{at, explained, list, show};
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// `Then the request fails with status 409 and reason Conflict` (or just `with status 500`,
/// for errors the server has no reason for).
#[then(regex = r"^the request fails with status ((?-u:\d)+)(?: and reason ((?-u:\w)+))?$")]
async fn request_failed(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    let result = request_failed_check(&mut *world, code, reason).await;
    explained(world, result).await
}

async fn request_failed_check(world: &mut KubeWorld, code: u16, reason: String) -> StepResult {
    match &world.last_error {
        Some(e) if e.code == code && (reason.is_empty() || e.reason == reason) => Ok(()),
        Some(e) => Err(format!("the request failed with {} {}: {}", e.code, e.reason, e.message)),
        None => Err("the last request succeeded".into()),
    }
}

/// `Then the failure says "does not match the UID in record"`: the last failure's message
/// contains the text (`\"` for a quote; `${Kind/name}` stands for a uid).
#[then(regex = r#"^the failure says "(.*)"$"#)]
async fn failure_says(world: &mut KubeWorld, text: String) -> StepResult {
    let text = text.replace("\\\"", "\"");
    let result = match (&world.last_error, world.resolve_uids(&text)) {
        (_, Err(e)) => Err(e),
        (Some(e), Ok(text)) if e.message.contains(&text) => Ok(()),
        (Some(e), Ok(text)) => Err(format!("the failure says {:?}, not {text:?}", e.message)),
        (None, _) => Err("the last request succeeded".into()),
    };
    explained(world, result).await
}

/// `Then the request succeeds` (optionally `with status 202`).
#[then(regex = r"^the request succeeds(?: with status ((?-u:\d)+))?$")]
async fn request_succeeded(world: &mut KubeWorld, code: String) -> StepResult {
    let result = match (&world.last_error, &world.last_response) {
        (Some(e), _) => Err(format!("the request failed with {} {}: {}", e.code, e.reason, e.message)),
        (None, Some((have, _))) if !code.is_empty() && have.to_string() != code => {
            Err(format!("the request succeeded with status {have}, not {code}"))
        }
        _ => Ok(()),
    };
    explained(world, result).await
}

/// `Then the response has "details.kind" set to "configmaps"`: a field of the last successful
/// answer, at a dotted path (`unset` for an absent field; `${Kind/name}` for a uid).
#[then(regex = r#"^the response has "([^"]+)" set to "([^"]*)"$"#)]
async fn response_field(world: &mut KubeWorld, path: String, value: String) -> StepResult {
    let result = match (&world.last_response, world.resolve_uids(&value)) {
        (_, Err(e)) => Err(e),
        (Some((_, body)), Ok(want)) if show(at(body, &path)) == want => Ok(()),
        (Some((_, body)), Ok(want)) => Err(format!("the response has {path} = {:?}, expected {want:?}: {body}", show(at(body, &path)))),
        (None, _) => Err("no request was answered with success".into()),
    };
    explained(world, result).await
}

/// `Then the response lists "a, b"`: the names of the items of the last answer (a list), in
/// any order.
#[then(regex = r#"^the response lists "([^"]*)"$"#)]
async fn response_lists(world: &mut KubeWorld, names: String) -> StepResult {
    let result = match &world.last_response {
        Some((_, body)) => {
            let mut have: Vec<String> =
                body["items"].as_array().into_iter().flatten().filter_map(|i| i["metadata"]["name"].as_str().map(String::from)).collect();
            let mut want = list(&names);
            have.sort();
            want.sort();
            if have == want { Ok(()) } else { Err(format!("the response lists {have:?}, expected {want:?}")) }
        }
        None => Err("no request was answered with success".into()),
    };
    explained(world, result).await
}
