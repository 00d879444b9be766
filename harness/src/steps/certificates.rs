//! Steps for certificate signing requests, for the CSR cleaner: a request (a real PKCS#10
//! request for a custom signer), approved or denied through the `approval` subresource, marked
//! failed or issued a certificate through the `status` subresource — as an approver and a
//! signer would. The API server fills the times of the conditions.

use base64::Engine;
use cucumber::given;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use super::support::create_body;
use crate::world::StepResult;
use crate::world::api::KubeWorld;

/// The signer the scenarios' requests name: one no controller of the cluster signs for.
const SIGNER: &str = "example.com/kubegc";

/// `Given a certificate signing request "r"`: a request for a client certificate, with no
/// condition yet.
#[given(regex = r#"^a certificate signing request "([^"]+)"$"#)]
async fn request(world: &mut KubeWorld, name: String) -> StepResult {
    let key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
    let params = rcgen::CertificateParams::new(vec![format!("{name}.kubegc.example")]).map_err(|e| e.to_string())?;
    let pem = params.serialize_request(&key).and_then(|r| r.pem()).map_err(|e| e.to_string())?;
    let body = json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": base64_of(pem.as_bytes()), "signerName": SIGNER, "usages": ["client auth"]},
    });
    create_body(world, "CertificateSigningRequest", &name, body, false)
        .await
        .map_err(|e| format!("cannot create CertificateSigningRequest {name:?}: {e}"))
}

/// `Given certificate signing request "r" is approved` (or `denied`): the condition added
/// through the `approval` subresource, without times.
#[given(regex = r#"^certificate signing request "([^"]+)" is (approved|denied)$"#)]
async fn decided(world: &mut KubeWorld, name: String, decision: String) -> StepResult {
    let kind = if decision == "approved" { "Approved" } else { "Denied" };
    add_condition(world, &name, "approval", kind).await
}

/// `Given certificate signing request "r" has failed`: the `Failed` condition added through
/// the `status` subresource, without times.
#[given(regex = r#"^certificate signing request "([^"]+)" has failed$"#)]
async fn failed(world: &mut KubeWorld, name: String) -> StepResult {
    add_condition(world, &name, "status", "Failed").await
}

/// `Given certificate signing request "r" is issued a certificate that expires in 2117` (or
/// `that expired in 2016`): a self-signed certificate valid from the year before until then,
/// written through the `status` subresource.
#[given(regex = r#"^certificate signing request "([^"]+)" is issued a certificate that (?:expires|expired) in ((?-u:\d){4})$"#)]
async fn issued(world: &mut KubeWorld, name: String, year: i32) -> StepResult {
    let key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
    let mut params = rcgen::CertificateParams::new(vec![format!("{name}.kubegc.example")]).map_err(|e| e.to_string())?;
    params.not_before = rcgen::date_time_ymd(year - 1, 1, 1);
    params.not_after = rcgen::date_time_ymd(year, 1, 1);
    let certificate = params.self_signed(&key).map_err(|e| e.to_string())?;
    write(world, &name, "status", json!({"status": {"certificate": base64_of(certificate.pem().as_bytes())}})).await
}

/// Adds a true condition of type `kind` to request `name` through `subresource`, keeping the
/// conditions it has.
async fn add_condition(world: &mut KubeWorld, name: &str, subresource: &str, kind: &str) -> StepResult {
    let api = world.object_api("CertificateSigningRequest", name).await?;
    let current = api.get(name).await.map_err(|e| format!("cannot read CertificateSigningRequest {name:?}: {e}"))?;
    let mut conditions = current.data["status"]["conditions"].as_array().cloned().unwrap_or_default();
    conditions.push(json!({"type": kind, "status": "True", "reason": "Kubegc", "message": "set by the scenario"}));
    write(world, name, subresource, json!({"status": {"conditions": conditions}})).await
}

/// Merges `patch` into request `name` through `subresource`.
async fn write(world: &mut KubeWorld, name: &str, subresource: &str, patch: Value) -> StepResult {
    let api = world.object_api("CertificateSigningRequest", name).await?;
    world.settled = false;
    api.patch_subresource(subresource, name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| format!("cannot write the {subresource} of CertificateSigningRequest {name:?}: {e}"))?;
    Ok(())
}

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
