//! Which kinds kube-apiserver's scheme registers where, for the decoder's two refusals of a
//! body's kind: one it registers has no conversion to the endpoint's, any other is not
//! registered (k8s.io/apimachinery pkg/runtime/scheme.go).

use crate::apiserver::openapi;

/// Kinds any `apiVersion` may name in the scheme DELETE bodies are decoded with (its
/// unversioned types: k8s.io/apimachinery pkg/apis/meta/internalversion/register.go and
/// `metav1.AddToGroupVersion`): three options, then the kinds every scheme takes anywhere.
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

/// The kinds the apiextensions group registers that no OpenAPI schema names, in `v1` and
/// `v1beta1` (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1/register.go).
const APIEXTENSIONS_KINDS: [&str; 3] = ["CustomResourceDefinition", "CustomResourceDefinitionList", "ConversionReview"];

/// Whether the scheme of the server behind `endpoint_group` registers `kind` in `group`'s
/// `version`. kube-apiserver's scheme holds every built-in group but apiextensions.k8s.io,
/// whose own server's holds that group and the core `v1` of its options
/// (k8s.io/apiextensions-apiserver pkg/apiserver/apiserver.go). `metav1.AddToGroupVersion`
/// registers the options and the watch event in each group version a scheme holds, and
/// `Status` and the discovery kinds in every group version at all.
pub fn registered(endpoint_group: &str, group: &str, version: &str, kind: &str) -> bool {
    const EXTENSIONS: &str = "apiextensions.k8s.io";
    let (options, anywhere) = UNVERSIONED_KINDS.split_at(3);
    if anywhere.contains(&kind) {
        return true;
    }
    let held = if endpoint_group == EXTENSIONS {
        (group.is_empty() && version == "v1") || (group == EXTENSIONS && matches!(version, "v1" | "v1beta1"))
    } else {
        group != EXTENSIONS && openapi::has_group_version(group, version)
    };
    let own_kind = if endpoint_group == EXTENSIONS {
        group == EXTENSIONS && APIEXTENSIONS_KINDS.contains(&kind)
    } else {
        (group.is_empty() && version == "v1" && REGISTERED_IN_CORE_V1.contains(&kind)) || openapi::has_kind(group, version, kind)
    };
    held && (options.contains(&kind) || META_V1_KINDS[..4].contains(&kind) || own_kind)
}
