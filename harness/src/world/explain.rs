//! Why a check on an API server failed: the scenario's objects, recent events and what the
//! collector is doing, appended to the failure message.

use kube::api::{Api, DynamicObject};

use super::api::KubeWorld;

impl KubeWorld {
    /// `failure`, followed by what a person needs to see why: the scenario's objects with their
    /// owners, finalizers and deletionTimestamp, recent events, and what the collector is doing.
    pub async fn explain(&mut self, failure: String) -> String {
        let mut out = format!("{failure}\n  objects of this scenario:");
        let mut names: Vec<(String, String)> = self.objects.keys().cloned().collect();
        names.sort();
        for (kind, name) in names {
            let c = self.objects[&(kind.clone(), name.clone())].clone();
            let api: Api<DynamicObject> = if c.namespace.is_empty() {
                Api::all_with(self.client(), &c.resource)
            } else {
                Api::namespaced_with(self.client(), &c.namespace, &c.resource)
            };
            let line = match api.get_opt(&name).await {
                Ok(Some(o)) => {
                    let owners: Vec<String> = o
                        .metadata
                        .owner_references
                        .unwrap_or_default()
                        .iter()
                        .map(|r| format!("{}/{}{}", r.kind, r.name, if r.block_owner_deletion == Some(true) { " (blocking)" } else { "" }))
                        .collect();
                    let deleting = o.metadata.deletion_timestamp.map(|t| format!(", deletionTimestamp {}", t.0)).unwrap_or_default();
                    format!("owners {owners:?}, finalizers {:?}{deleting}", o.metadata.finalizers.unwrap_or_default())
                }
                Ok(None) => "gone".into(),
                Err(e) => format!("cannot read: {e}"),
            };
            out.push_str(&format!("\n    {kind} {name:?}: {line}"));
        }
        if let Some(ns) = self.namespace.clone() {
            let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(self.client(), &ns);
            if let Ok(list) = events.list(&Default::default()).await {
                out.push_str("\n  events:");
                for e in list.items.iter().rev().take(10) {
                    let o = &e.involved_object;
                    out.push_str(&format!(
                        "\n    {} {} {}/{}: {}",
                        e.type_.as_deref().unwrap_or(""),
                        e.reason.as_deref().unwrap_or(""),
                        o.kind.as_deref().unwrap_or(""),
                        o.name.as_deref().unwrap_or(""),
                        e.message.as_deref().unwrap_or("")
                    ));
                }
            }
        }
        let diagnostics = self.backend().diagnostics();
        if !diagnostics.is_empty() {
            out.push_str(&format!("\n  {diagnostics}"));
        }
        out
    }
}
