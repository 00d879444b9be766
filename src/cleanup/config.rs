//! Which cleanup controllers run, and how: kube-controller-manager's defaults unless changed.

use crate::cleanup::mutant::Mutant;
use crate::cleanup::pass::Controller;

/// The cleanup controllers' configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The pod garbage collector (`pod-garbage-collector-controller`), if it runs.
    pub pod_gc: Option<crate::cleanup::pod_gc::Settings>,
    /// The PersistentVolume controller's reclaim half (`persistentvolume-binder-controller`).
    pub pv_reclaim: bool,
    /// The pvc-protection controller (`persistentvolumeclaim-protection-controller`).
    pub pvc_protection: bool,
    /// The pv-protection controller (`persistentvolume-protection-controller`).
    pub pv_protection: bool,
    /// kube-apiserver's identity-lease collector, if it runs.
    pub identity_leases: Option<crate::cleanup::identity_leases::Settings>,
    /// Whether the TTL-after-finished controller (`ttl-after-finished-controller`) runs.
    pub ttl_after_finished: bool,
    /// The CSR cleaner (`certificatesigningrequest-cleaner-controller`), if it runs.
    pub csr_cleaner: Option<crate::cleanup::csr_cleaner::Settings>,
    /// Whether the node lifecycle controller's health check (`node-lifecycle-controller`) runs.
    pub node_health: bool,
    /// Whether a cloud's node lifecycle controller (`cloud-node-lifecycle-controller`, a
    /// cloud-controller-manager's) runs over the cluster's fake cloud.
    pub cloud_nodes: bool,
    /// The deliberately broken rule, if any (never outside a check of the specification).
    pub mutant: Option<Mutant>,
}

impl Default for Config {
    /// Every controller, with kube-controller-manager's defaults.
    fn default() -> Self {
        Self {
            pod_gc: Some(crate::cleanup::pod_gc::Settings::default()),
            pv_reclaim: true,
            pvc_protection: true,
            pv_protection: true,
            identity_leases: Some(crate::cleanup::identity_leases::Settings::default()),
            ttl_after_finished: true,
            csr_cleaner: Some(crate::cleanup::csr_cleaner::Settings::default()),
            node_health: true,
            cloud_nodes: true,
            mutant: None,
        }
    }
}

impl Config {
    /// No controller at all.
    pub fn none() -> Self {
        Self {
            pod_gc: None,
            pv_reclaim: false,
            pvc_protection: false,
            pv_protection: false,
            identity_leases: None,
            ttl_after_finished: false,
            csr_cleaner: None,
            node_health: false,
            cloud_nodes: false,
            mutant: None,
        }
    }

    /// The names of every controller, as kube-controller-manager's `--controllers` spells them.
    pub fn names() -> Vec<&'static str> {
        Self::default().selected()
    }

    /// The names of the controllers this configuration runs.
    pub fn selected(&self) -> Vec<&'static str> {
        self.controllers(&crate::cloud::Cloud::new()).iter().map(|c| c.name()).collect()
    }

    /// The controllers a comma-separated `list` selects, as kube-controller-manager's
    /// `--controllers` does: `*` for every one (with its defaults), a name to add one, `-name`
    /// to leave one out; an empty list selects none.
    ///
    /// # Errors
    /// When the list names a controller that does not exist.
    pub fn select(list: &str) -> Result<Self, String> {
        let names = Self::names();
        let mut chosen: Vec<&str> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if item == "*" {
                chosen.extend(&names);
                continue;
            }
            let (off, name) = item.strip_prefix('-').map_or((false, item), |name| (true, name));
            let name = *names
                .iter()
                .find(|n| **n == name)
                .ok_or_else(|| format!("{item:?} names no cleanup controller; they are: {}", names.join(", ")))?;
            if off {
                chosen.retain(|c| *c != name);
            } else {
                chosen.push(name);
            }
        }
        let all = Self::default();
        let on = |name: &str| chosen.contains(&name);
        Ok(Self {
            pod_gc: all.pod_gc.filter(|_| on("pod-garbage-collector-controller")),
            pv_reclaim: on("persistentvolume-binder-controller"),
            pvc_protection: on("persistentvolumeclaim-protection-controller"),
            pv_protection: on("persistentvolume-protection-controller"),
            identity_leases: all.identity_leases.filter(|_| on("apiserver-identity-lease-gc")),
            ttl_after_finished: on("ttl-after-finished-controller"),
            csr_cleaner: all.csr_cleaner.filter(|_| on("certificatesigningrequest-cleaner-controller")),
            node_health: on("node-lifecycle-controller"),
            cloud_nodes: on("cloud-node-lifecycle-controller"),
            mutant: None,
        })
    }

    /// The controllers to run, the cloud node lifecycle controller asking `cloud`.
    pub(crate) fn controllers(&self, cloud: &crate::cloud::Cloud) -> Vec<Box<dyn Controller>> {
        let mut controllers: Vec<Box<dyn Controller>> = Vec::new();
        if let Some(settings) = &self.pod_gc {
            controllers.push(Box::new(crate::cleanup::pod_gc::PodGc::new(settings.clone())));
        }
        if self.pv_reclaim {
            controllers.push(Box::new(crate::cleanup::pv_reclaim::PvReclaim));
        }
        if self.pvc_protection {
            controllers.push(Box::new(crate::cleanup::pvc_protection::PvcProtection));
        }
        if self.pv_protection {
            controllers.push(Box::new(crate::cleanup::pv_protection::PvProtection));
        }
        if let Some(settings) = &self.identity_leases {
            controllers.push(Box::new(crate::cleanup::identity_leases::IdentityLeases::new(settings.clone())));
        }
        if self.ttl_after_finished {
            controllers.push(Box::new(crate::cleanup::ttl_after_finished::TtlAfterFinished));
        }
        if let Some(settings) = &self.csr_cleaner {
            controllers.push(Box::new(crate::cleanup::csr_cleaner::CsrCleaner::new(settings.clone())));
        }
        if self.node_health {
            controllers.push(Box::new(crate::cleanup::node_health::NodeHealth));
        }
        if self.cloud_nodes {
            controllers.push(Box::new(crate::cleanup::cloud_nodes::CloudNodes::new(cloud.clone())));
        }
        controllers
    }
}

#[cfg(test)]
mod tests {
    use super::Config;

    #[test]
    fn a_list_selects_as_the_controller_managers_flag_does() {
        let every = Config::select("*").unwrap();
        assert_eq!(every.selected().len(), Config::names().len());
        let without = Config::select("*,-pod-garbage-collector-controller").unwrap();
        assert!(without.pod_gc.is_none() && without.ttl_after_finished);
        let one = Config::select("ttl-after-finished-controller").unwrap();
        assert_eq!(one.selected(), ["ttl-after-finished-controller"]);
        assert!(Config::select("").unwrap().selected().is_empty());
        assert!(Config::select("no-such-controller").unwrap_err().contains("pod-garbage-collector-controller"));
    }
}
