//! kube-apiserver's identity Lease: every kube-apiserver names itself by a hash of its host name
//! (k8s.io/apiserver pkg/server/config.go, `NewConfig`) and keeps a Lease of that name in
//! kube-system, labelled `apiserver.kubernetes.io/identity=kube-apiserver` and with its host
//! name, held by its identity and a uuid for an hour and renewed every ten seconds; a renewal
//! that finds it gone creates it again (pkg/controlplane/apiserver/server.go, the lease
//! controller of k8s.io/component-helpers apimachinery/lease). Once the server listens on an
//! address, the Lease also names it for peers (annotation
//! `kubernetes.io/peer-advertise-address`, `labelAPIServerHeartbeatFunc` there); every renewal
//! puts its labels and annotation back. Without a host name to name it by, the fake keeps none.

use std::net::SocketAddr;

use chrono::Duration;
use data_encoding::BASE32_NOPAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::apiserver::go_time::Layout;
use crate::apiserver::schema::WriteOptions;
use crate::apiserver::storage::Storage;
use crate::apiserver::storage::write::Target;

/// How long the lease is held.
const DURATION_SECONDS: i64 = 3600;
/// The annotation naming the address peers reach the server at (`AnnotationPeerAdvertiseAddress`
/// of k8s.io/api core/v1).
const PEER_ADDRESS: &str = "kubernetes.io/peer-advertise-address";
/// How often it is renewed (`IdentityLeaseRenewIntervalPeriod`).
const RENEW_EVERY: Duration = Duration::seconds(10);

/// The server's identity and the Lease's holder.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The server's identity, the Lease's name.
    name: String,
    /// The Lease's holder: the identity and a uuid of this run.
    holder: String,
    /// The host name, a label of the Lease.
    host: String,
    /// The address the server listens on (`host:port`), once it listens on one.
    address: Option<String>,
    /// Whether the Lease is due for a write before its time: it does not name the address yet.
    stale: bool,
}

impl Identity {
    /// The identity of a server on this host with uid source `uid`; `None` without a host name.
    pub fn of_this_host(uid: impl FnOnce() -> String) -> Option<Self> {
        let host = hostname::get().ok()?.into_string().ok()?;
        let name = server_identity(&host);
        Some(Self { holder: format!("{name}_{}", uid()), name, host, address: None, stale: false })
    }

    /// The Lease's labels and annotations, as every write of it sets them.
    fn mark(&self, lease: &mut Value) {
        let meta = &mut lease["metadata"];
        meta["labels"]["apiserver.kubernetes.io/identity"] = json!("kube-apiserver");
        meta["labels"]["kubernetes.io/hostname"] = json!(self.host);
        if let Some(address) = &self.address {
            meta["annotations"][PEER_ADDRESS] = json!(address);
        }
    }
}

impl Storage {
    /// Names `address` as where the server listens, in its identity Lease from the next
    /// renewal on, which is made due now.
    pub fn advertise(&mut self, address: SocketAddr) {
        if let Some(identity) = &mut self.identity {
            identity.address = Some(address.to_string());
            identity.stale = true;
        }
    }

    /// Creates or renews the identity Lease when it is due: absent, last renewed ten seconds
    /// ago or more, or not yet written with the address. Returns whether it wrote.
    pub fn renew_identity_lease(&mut self) -> bool {
        let Some(identity) = self.identity.clone() else { return false };
        let Ok(leases) = self.scope("coordination.k8s.io", "v1", "leases", Some("kube-system".into())) else { return false };
        let now = self.clock.now();
        let renew_time = Layout::Rfc3339Micro.format(now);
        let opts = WriteOptions { field_manager: "kube-apiserver".into(), ..WriteOptions::default() };
        let written = match self.get(&leases, &identity.name) {
            Ok(lease) => {
                let renewed = lease["spec"]["renewTime"].as_str().and_then(crate::clock::parse_time);
                if !identity.stale && renewed.is_some_and(|at| now - at < RENEW_EVERY) {
                    return false;
                }
                let mut lease = (*lease).clone();
                lease["spec"]["renewTime"] = json!(renew_time);
                lease["spec"]["leaseDurationSeconds"] = json!(DURATION_SECONDS);
                identity.mark(&mut lease);
                self.update(&leases, &identity.name, lease, Target::Main, opts).is_ok()
            }
            Err(_) => {
                let spec = json!({"holderIdentity": identity.holder, "leaseDurationSeconds": DURATION_SECONDS, "renewTime": renew_time});
                let mut lease =
                    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": identity.name}, "spec": spec});
                identity.mark(&mut lease);
                self.create(&leases, lease, opts).is_ok()
            }
        };
        if let Some(identity) = self.identity.as_mut().filter(|_| written) {
            identity.stale = false;
        }
        written
    }
}

/// kube-apiserver's identity on `host`: `apiserver-` and the first half of the SHA-256 of the
/// host name and `kube-apiserver`, each prefixed by its length in two bytes, in lower-case
/// base32.
fn server_identity(host: &str) -> String {
    let mut hash = Sha256::new();
    for part in [host, "kube-apiserver"] {
        hash.update((part.len() as u16).to_be_bytes());
        hash.update(part);
    }
    format!("apiserver-{}", BASE32_NOPAD.encode(&hash.finalize()[..16]).to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_identity_is_upstream_s_hash_of_the_host_name() {
        assert_eq!(server_identity("example-host"), "apiserver-xslhalef67ld3xrelzsoqnkaua");
    }
}
