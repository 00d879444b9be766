//! Who the fake serves a request as. It authenticates no one, so every request is its admin's:
//! the user the upstream control plane's admin kubeconfig names (`kubegc upstream serve`), in
//! `system:masters`, with the `system:authenticated` group every authenticated user gets
//! (k8s.io/apiserver pkg/authentication/group). A CertificateSigningRequest records its
//! requester from this (`pkg/registry/certificates/certificates/strategy.go`).

/// The requester's user name.
pub const NAME: &str = "kubegc-admin";
/// The requester's uid.
pub const UID: &str = "kubegc-admin";
/// The requester's groups, in the order the authenticator gives them.
pub const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];
