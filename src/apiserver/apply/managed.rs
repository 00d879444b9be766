//! `metadata.managedFields` bookkeeping, as upstream's field manager keeps it: entries decoded
//! into managers and their field sets, the ownership changes a write makes (with the conflicts
//! an apply meets), and the entries encoded back in upstream's order.

use serde_json::{Value, json};

use crate::apiserver::apply::fieldset::{Element, FieldSet, Path, path_string};
use crate::apiserver::apply::typed::Comparison;
use crate::apiserver::go_quote::quote as go_quote;
use crate::apiserver::status::ApiError;

mod scale;

pub use scale::replicas_path;

/// The operation a managedFields entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    /// Server-side apply.
    Apply,
    /// Any other write: create, update, non-apply patch.
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Self::Apply => "Apply",
            Self::Update => "Update",
        }
    }
}

/// Who owns fields: one managedFields entry's identity. An applier is the same manager at
/// every version; an updater is one manager per version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manager {
    /// The field manager's name.
    pub name: String,
    /// Apply or Update.
    pub operation: Operation,
    /// The version of an Update (empty for Apply).
    pub api_version: String,
    /// The subresource written (`status`), empty for the main resource.
    pub subresource: String,
}

impl Manager {
    /// The manager `name` (`unknown` when empty, as upstream names it) doing `operation` at
    /// `api_version` on `subresource`.
    pub fn new(name: &str, operation: Operation, api_version: &str, subresource: &str) -> Self {
        let name = if name.is_empty() { "unknown" } else { name };
        let api_version = if operation == Operation::Apply { "" } else { api_version };
        Self { name: name.into(), operation, api_version: api_version.into(), subresource: subresource.into() }
    }

    /// Upstream's manager identifier (the entry's JSON without fields and time), which orders
    /// managers in conflict messages.
    fn identifier(&self) -> String {
        let mut id = format!("{{\"manager\":{},\"operation\":\"{}\"", Value::from(self.name.as_str()), self.operation.as_str());
        if !self.api_version.is_empty() {
            id.push_str(&format!(",\"apiVersion\":{}", Value::from(self.api_version.as_str())));
        }
        if !self.subresource.is_empty() {
            id.push_str(&format!(",\"subresource\":{}", Value::from(self.subresource.as_str())));
        }
        id.push('}');
        id
    }

    /// The manager as conflict messages name it: `"name"`, with its subresource, and `using
    /// v1` for an updater.
    fn describe(&self) -> String {
        let mut out = go_quote(&self.name);
        if !self.subresource.is_empty() {
            out.push_str(&format!(" with subresource {}", go_quote(&self.subresource)));
        }
        if self.operation == Operation::Update {
            out.push_str(&format!(" using {}", self.api_version));
        }
        out
    }
}

/// One manager's entry: what it owns, at which version, since when.
#[derive(Clone, Debug)]
struct Entry {
    manager: Manager,
    api_version: String,
    time: Option<String>,
    fields: FieldSet,
}

/// A field an apply would take from another manager.
#[derive(Clone, Debug)]
pub struct Conflict {
    /// The manager that owns the field.
    pub manager: Manager,
    /// The field.
    pub path: Path,
}

/// The 409 an apply with conflicts gets: upstream's message (one line for one conflict, a list
/// by manager for several) and one `FieldManagerConflict` cause per field.
pub fn conflict_error(conflicts: &[Conflict]) -> ApiError {
    let mut sorted: Vec<&Conflict> = conflicts.iter().collect();
    sorted.sort_by_key(|c| c.manager.identifier());
    let causes: Vec<Value> = sorted
        .iter()
        .map(|c| json!({"reason": "FieldManagerConflict", "message": format!("conflict with {}", c.manager.describe()), "field": path_string(&c.path)}))
        .collect();
    let message = match sorted.as_slice() {
        [one] => format!("Apply failed with 1 conflict: conflict with {}: {}", one.manager.describe(), path_string(&one.path)),
        _ => {
            let mut lines = Vec::new();
            for (i, c) in sorted.iter().enumerate() {
                if i == 0 || sorted[i - 1].manager != c.manager {
                    lines.push(format!("conflicts with {}:", c.manager.describe()));
                }
                lines.push(format!("- {}", path_string(&c.path)));
            }
            format!("Apply failed with {} conflicts: {}", sorted.len(), lines.join("\n"))
        }
    };
    ApiError::apply_conflict(message, causes)
}

/// The paths no manager ever owns (upstream's strip set): type and identity metadata.
fn never_owned() -> FieldSet {
    let mut set = FieldSet::default();
    for top in ["apiVersion", "kind", "metadata"] {
        set.insert(&[Element::Field(top.into())]);
    }
    for field in
        ["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"]
    {
        set.insert(&[Element::Field("metadata".into()), Element::Field(field.into())]);
    }
    set
}

/// The decoded managedFields of an object.
#[derive(Clone, Debug, Default)]
pub struct Managed {
    entries: Vec<Entry>,
}

impl Managed {
    /// Decodes `metadata.managedFields`, refusing what upstream refuses (an unknown operation,
    /// no apiVersion, a fieldsType other than `FieldsV1`, fields that do not parse); of two
    /// entries of one identity the later wins, as in upstream's map of managers
    /// (`decodeManagedFields` in apimachinery pkg/util/managedfields/internal/managedfields.go).
    pub fn decode(list: &Value) -> Result<Self, String> {
        let mut entries = Vec::new();
        for (i, entry) in list.as_array().map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
            let s = |key: &str| entry[key].as_str().unwrap_or("").to_string();
            let operation = match entry["operation"].as_str() {
                Some("Apply") => Operation::Apply,
                Some("Update") => Operation::Update,
                _ => return Err("operation must be `Apply` or `Update`".into()),
            };
            if s("apiVersion").is_empty() {
                return Err("apiVersion must not be empty".into());
            }
            match entry["fieldsType"].as_str() {
                Some("FieldsV1") => {}
                None | Some("") => return Err(format!("missing fieldsType in managed fields entry {i}")),
                Some(other) => return Err(format!("invalid fieldsType {other:?} in managed fields entry {i}")),
            }
            let fields = match entry.get("fieldsV1") {
                Some(v) if !v.is_null() => FieldSet::from_fields_v1(v).map_err(|e| format!("error decoding set: {e}"))?,
                _ => FieldSet::default(),
            };
            let manager = Manager::new(&s("manager"), operation, &s("apiVersion"), &s("subresource"));
            let entry = Entry { manager, api_version: s("apiVersion"), time: entry["time"].as_str().map(String::from), fields };
            // Managers are keyed by identity: of two entries of one, the later is kept.
            match entries.iter().position(|e: &Entry| e.manager == entry.manager) {
                Some(i) => entries[i] = entry,
                None => entries.push(entry),
            }
        }
        Ok(Self { entries })
    }

    /// Whether there is no entry (what [`Managed::encode`] writes as no managedFields).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries as `metadata.managedFields`, in upstream's order (Apply before Update, then
    /// by time, manager, version, subresource); `None` when there are none.
    pub fn encode(&self) -> Option<Value> {
        if self.entries.is_empty() {
            return None;
        }
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by(|a, b| {
            let key = |e: &Entry| (e.manager.operation, e.time.clone().unwrap_or_default());
            key(a)
                .cmp(&key(b))
                .then_with(|| a.manager.name.cmp(&b.manager.name))
                .then_with(|| a.api_version.cmp(&b.api_version))
                .then_with(|| a.manager.subresource.cmp(&b.manager.subresource))
        });
        let list = entries
            .iter()
            .map(|e| {
                let mut v = json!({"manager": e.manager.name, "operation": e.manager.operation.as_str(), "apiVersion": e.api_version,
                    "fieldsType": "FieldsV1", "fieldsV1": e.fields.to_fields_v1()});
                if let Some(time) = &e.time {
                    v["time"] = json!(time);
                }
                if !e.manager.subresource.is_empty() {
                    v["subresource"] = json!(e.manager.subresource);
                }
                v
            })
            .collect();
        Some(Value::Array(list))
    }

    fn position(&self, manager: &Manager) -> Option<usize> {
        self.entries.iter().position(|e| e.manager == *manager)
    }

    /// What `manager` owns (empty when it owns nothing).
    pub fn fields(&self, manager: &Manager) -> FieldSet {
        self.position(manager).map(|i| self.entries[i].fields.clone()).unwrap_or_default()
    }

    /// Every field some manager owns.
    pub fn all_fields(&self) -> FieldSet {
        self.entries.iter().fold(FieldSet::default(), |all, e| all.union(&e.fields))
    }

    /// Records that `manager` owns exactly `fields`, at `api_version`; the time is kept.
    pub fn set(&mut self, manager: &Manager, api_version: &str, fields: FieldSet) {
        match self.position(manager) {
            Some(i) => {
                self.entries[i].fields = fields;
                self.entries[i].api_version = api_version.into();
            }
            None => self.entries.push(Entry { manager: manager.clone(), api_version: api_version.into(), time: None, fields }),
        }
    }

    /// Stamps `manager`'s entry with `time`.
    pub fn touch(&mut self, manager: &Manager, time: &str) {
        if let Some(i) = self.position(manager) {
            self.entries[i].time = Some(time.into());
        }
    }

    /// Takes the fields a write changed from every manager but `writer` (and the fields it
    /// removed from all of them), dropping managers left with nothing; without `force`, a
    /// changed field another manager owns is a conflict and nothing changes.
    pub fn settle(&mut self, comparison: &Comparison, writer: Option<&Manager>, force: bool) -> Result<(), Vec<Conflict>> {
        let changed = comparison.changed();
        if !force {
            let conflicts: Vec<Conflict> = self
                .entries
                .iter()
                .filter(|e| Some(&e.manager) != writer)
                .flat_map(|e| e.fields.intersection(&changed).paths().into_iter().map(|path| Conflict { manager: e.manager.clone(), path }))
                .collect();
            if !conflicts.is_empty() {
                return Err(conflicts);
            }
        }
        for entry in self.entries.iter_mut().filter(|e| Some(&e.manager) != writer) {
            entry.fields = entry.fields.difference(&changed).difference(&comparison.removed);
        }
        self.entries.retain(|e| !e.fields.is_empty());
        Ok(())
    }

    /// Drops the entries of managers but `writer` recorded at a version the object does not
    /// convert to (`versions`, every apiVersion it is served at), as structured-merge-diff's
    /// updater drops a manager whose version is missing (`Updater.update` in merge/update.go):
    /// an entry of another group (an Event's events.k8s.io/v1 entry written through core v1),
    /// or of a version not served. `Err` for an apiVersion that is no group/version at all,
    /// which fails the whole update there.
    pub fn drop_unconvertible(&mut self, versions: &[String], writer: &Manager) -> Result<(), String> {
        if let Some(e) = self.entries.iter().find(|e| e.manager != *writer && e.api_version.matches('/').count() > 1) {
            return Err(format!("unexpected GroupVersion string: {}", e.api_version));
        }
        self.entries.retain(|e| e.manager == *writer || versions.contains(&e.api_version));
        Ok(())
    }

    /// Removes the fields no manager owns from `manager`'s entry, and the entry if that leaves
    /// nothing.
    pub fn strip(&mut self, manager: &Manager) {
        if let Some(i) = self.position(manager) {
            self.entries[i].fields = self.entries[i].fields.difference(&never_owned());
            if self.entries[i].fields.is_empty() {
                self.entries.remove(i);
            }
        }
    }

    /// Records an Update by `manager`: it gains the fields the write changed (a manager's
    /// updates at one version merge into one entry, stamped `now`); others lose them.
    pub fn record_update(&mut self, comparison: &Comparison, manager: &Manager, now: &str) {
        self.settle(comparison, None, true).expect("forced");
        let changed = comparison.changed().difference(&never_owned());
        if changed.is_empty() {
            return;
        }
        let owned = self.fields(manager).union(&changed);
        self.set(manager, &manager.api_version, owned);
        self.touch(manager, now);
    }
}

/// Whether a request's `managedFields` asks to reset them (`[]` or `[{}]`).
pub fn is_reset(list: &Value) -> bool {
    match list.as_array().map(Vec::as_slice) {
        Some([]) => true,
        Some([one]) => one.as_object().is_some_and(|m| m.is_empty()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apiserver::apply::fieldset::Element;

    fn path(fields: &[&str]) -> Path {
        fields.iter().map(|f| Element::Field((*f).into())).collect()
    }

    #[test]
    fn conflict_messages_name_managers_as_upstream() {
        let csa = Manager::new("kubectl-client-side-apply", Operation::Update, "v1", "");
        let one = conflict_error(&[Conflict { manager: csa.clone(), path: path(&["data", "key"]) }]);
        assert_eq!(one.code, 409);
        assert_eq!(one.message, "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.key");
        let applier = Manager::new("a", Operation::Apply, "v1", "");
        let two = conflict_error(&[
            Conflict { manager: csa, path: path(&["data", "x"]) },
            Conflict { manager: applier.clone(), path: path(&["data", "y"]) },
            Conflict { manager: applier, path: path(&["data", "z"]) },
        ]);
        assert_eq!(
            two.message,
            "Apply failed with 3 conflicts: conflicts with \"a\":\n- .data.y\n- .data.z\nconflicts with \"kubectl-client-side-apply\" using v1:\n- .data.x"
        );
        let causes = &two.details.unwrap()["causes"];
        assert_eq!(causes[0], json!({"reason": "FieldManagerConflict", "message": "conflict with \"a\"", "field": ".data.y"}));
    }

    #[test]
    fn decoding_refuses_what_upstream_refuses() {
        assert!(Managed::decode(&json!([{"manager": "m", "operation": "Delete", "apiVersion": "v1", "fieldsType": "FieldsV1"}])).is_err());
        assert!(Managed::decode(&json!([{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1"}])).is_err());
        assert!(Managed::decode(&json!([{"manager": "m", "operation": "Update", "apiVersion": "v1"}])).is_err());
        let ok = json!([{"manager": "m", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:00Z",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}, "f:k": {}}}}]);
        assert_eq!(Managed::decode(&ok).unwrap().encode(), Some(ok));
        assert!(is_reset(&json!([])) && is_reset(&json!([{}])) && !is_reset(&json!(null)));
    }
}
