//! The service account controller (`pkg/controller/serviceaccount/serviceaccounts_controller.go`):
//! every active namespace has a ServiceAccount named `default`, made when the namespace is
//! and made again when it is deleted. A namespace that is not active (being terminated) gets
//! none.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::workloads::writes::Writes;

/// The name of the ServiceAccount every namespace gets.
pub const DEFAULT: &str = "default";

/// The namespaces, by name, of `namespaces` that are active and lack the `default` account.
pub fn lacking<'a>(namespaces: &'a [Namespace], accounts: &[ServiceAccount]) -> Vec<&'a str> {
    let with: BTreeSet<&str> =
        accounts.iter().filter(|a| a.metadata.name.as_deref() == Some(DEFAULT)).filter_map(|a| a.metadata.namespace.as_deref()).collect();
    namespaces
        .iter()
        .filter(|ns| ns.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Active"))
        .filter_map(|ns| ns.metadata.name.as_deref())
        .filter(|name| !with.contains(name))
        .collect()
}

/// One sync of the controller: the `default` account where it is missing.
pub async fn sync(writes: &mut Writes, namespaces: &[Namespace], accounts: &[ServiceAccount]) {
    for namespace in lacking(namespaces, accounts) {
        let account = ServiceAccount { metadata: ObjectMeta { name: Some(DEFAULT.into()), ..Default::default() }, ..Default::default() };
        writes.create(namespace, &account).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_active_namespaces_without_the_account_lack_it() {
        let ns = |name: &str, phase: &str| -> Namespace {
            serde_json::from_value(json!({"metadata": {"name": name}, "status": {"phase": phase}})).unwrap()
        };
        let sa = |namespace: &str, name: &str| -> ServiceAccount {
            serde_json::from_value(json!({"metadata": {"name": name, "namespace": namespace}})).unwrap()
        };
        let namespaces = [ns("a", "Active"), ns("b", "Active"), ns("c", "Terminating"), ns("d", "Active")];
        let accounts = [sa("a", DEFAULT), sa("b", "builder"), sa("x", DEFAULT)];
        assert_eq!(lacking(&namespaces, &accounts), ["b", "d"]);
    }
}
