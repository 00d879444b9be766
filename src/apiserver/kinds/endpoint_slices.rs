//! discovery.k8s.io/v1 EndpointSlices: the address type every slice must have and may never
//! change (upstream `pkg/apis/discovery/validation/validation.go`).

use serde_json::Value;

use crate::apiserver::status::{FieldError, FieldErrorKind};
use crate::apiserver::storage::hooks::Kind;
use crate::apiserver::storage::write::Target;

/// The address types a slice may have, in the order upstream lists them.
const ADDRESS_TYPES: [&str; 3] = ["FQDN", "IPv4", "IPv6"];

/// discovery.k8s.io/v1 EndpointSlices.
pub struct EndpointSlices;

impl Kind for EndpointSlices {
    /// `addressType` may not change (`ValidateEndpointSliceUpdate`).
    fn prepare_update(&self, _target: Target, new: &mut Value, existing: &Value, _now: &str) -> Vec<FieldError> {
        if new["addressType"] == existing["addressType"] {
            return vec![];
        }
        vec![FieldError::invalid("addressType", new["addressType"].clone(), "field is immutable")]
    }

    /// `addressType` is required and one of the supported types (`validateAddressType`).
    fn validate(&self, slice: &Value) -> Vec<FieldError> {
        match slice["addressType"].as_str() {
            None | Some("") => vec![FieldError::required("addressType", "")],
            Some(t) if ADDRESS_TYPES.contains(&t) => vec![],
            Some(t) => {
                let supported = ADDRESS_TYPES.map(|t| format!("\"{t}\"")).join(", ");
                vec![FieldError::new(
                    FieldErrorKind::NotSupported,
                    "addressType",
                    Some(Value::from(t)),
                    format!("supported values: {supported}"),
                )]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_address_type_is_required_supported_and_immutable() {
        assert_eq!(EndpointSlices.validate(&json!({"addressType": "IPv4"})), vec![]);
        assert_eq!(EndpointSlices.validate(&json!({})), vec![FieldError::required("addressType", "")]);
        let refused = EndpointSlices.validate(&json!({"addressType": "IP"}));
        assert_eq!(refused[0].kind, FieldErrorKind::NotSupported);
        assert_eq!(refused[0].detail, "supported values: \"FQDN\", \"IPv4\", \"IPv6\"");
        let mut changed = json!({"addressType": "IPv6"});
        let refused = EndpointSlices.prepare_update(Target::Main, &mut changed, &json!({"addressType": "IPv4"}), "");
        assert_eq!(refused, vec![FieldError::invalid("addressType", json!("IPv6"), "field is immutable")]);
    }
}
