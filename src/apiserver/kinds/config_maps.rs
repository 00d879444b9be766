//! ConfigMaps: kube-apiserver's cluster authentication trust controller
//! (pkg/controlplane/controller/clusterauthenticationtrust) puts
//! `kube-system/extension-apiserver-authentication` back as soon as it is deleted.

use serde_json::Value;

use crate::apiserver::storage::Storage;
use crate::apiserver::storage::hooks::Kind;

/// core/v1 ConfigMaps.
pub struct ConfigMaps;

impl Kind for ConfigMaps {
    /// The client CA the server publishes is written again once removed.
    fn removed(&self, storage: &mut Storage, object: &Value) {
        let meta = &object["metadata"];
        if meta["namespace"] == "kube-system" && meta["name"] == "extension-apiserver-authentication" {
            if let Err(e) = storage.publish_client_ca() {
                tracing::debug!(error = %e.message, "the client CA was not written again");
            }
        }
    }
}
