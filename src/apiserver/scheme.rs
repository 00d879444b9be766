//! Which kinds kube-apiserver's scheme registers where, for the decoder's two refusals of a
//! body's kind: one it registers has no conversion to the endpoint's, any other is not
//! registered (k8s.io/apimachinery pkg/runtime/scheme.go).

use crate::apiserver::openapi;

/// Kinds any `apiVersion` may name in the scheme DELETE bodies are decoded with (its
/// unversioned types: k8s.io/apimachinery pkg/apis/meta/internalversion/register.go and
/// `metav1.AddToGroupVersion`).
pub const UNVERSIONED_KINDS: [&str; 8] =
    ["DeleteOptions", "CreateOptions", "UpdateOptions", "Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"];

/// Kinds `meta.k8s.io/v1` knows besides the unversioned ones (`v1beta1` only the last four).
pub const META_V1_KINDS: [&str; 8] = [
    "ListOptions",
    "GetOptions",
    "PatchOptions",
    "WatchEvent",
    "Table",
    "TableOptions",
    "PartialObjectMetadata",
    "PartialObjectMetadataList",
];

/// The kinds the core group's `v1` registers that no OpenAPI schema names (k8s.io/api
/// core/v1/register.go): the options of its connect subresources and internal records.
const REGISTERED_IN_CORE_V1: [&str; 10] = [
    "List",
    "ServiceProxyOptions",
    "NodeProxyOptions",
    "PodAttachOptions",
    "PodLogOptions",
    "PodExecOptions",
    "PodPortForwardOptions",
    "PodProxyOptions",
    "SerializedReference",
    "RangeAllocation",
];

/// Whether kube-apiserver's scheme registers `kind` in `group`'s `version`.
pub fn registered(group: &str, version: &str, kind: &str) -> bool {
    // `metav1.AddToGroupVersion` registers the unversioned kinds, the options and the watch
    // event in every group version.
    UNVERSIONED_KINDS.contains(&kind)
        || META_V1_KINDS[..4].contains(&kind)
        || (group.is_empty() && version == "v1" && REGISTERED_IN_CORE_V1.contains(&kind))
        || openapi::has_kind(group, version, kind)
}
