"""The fixture in use: what a controller author's test looks like. Run with ``pytest`` once
``pip install ./python`` has installed the fixture and ``KUBEGC`` names a ``kubegc``."""

from kubernetes import client


def test_a_deployment_runs_its_pods_and_takes_them_when_deleted(kubegc):
    apps = client.AppsV1Api(kubegc.api_client)
    core = client.CoreV1Api(kubegc.api_client)
    labels = {"app": "web"}
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=3,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="registry.k8s.io/pause:3.10")]),
            ),
        ),
    )
    apps.create_namespaced_deployment("default", deployment)
    kubegc.settle()
    pods = core.list_namespaced_pod("default", label_selector="app=web").items
    assert len(pods) == 3
    assert all(p.status.phase == "Running" for p in pods)

    apps.delete_namespaced_deployment("web", "default", propagation_policy="Background")
    kubegc.settle()
    assert core.list_namespaced_pod("default", label_selector="app=web").items == []
    assert apps.list_namespaced_replica_set("default").items == []


def test_a_thousand_dependents_are_collected_by_the_time_settle_returns(kubegc):
    core = client.CoreV1Api(kubegc.api_client)
    owner = core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner")))
    reference = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid)
    for i in range(1000):
        child = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"child-{i}", owner_references=[reference]))
        core.create_namespaced_config_map("default", child)
    core.delete_namespaced_config_map("owner", "default", propagation_policy="Background")
    kubegc.settle()
    left = [c.metadata.name for c in core.list_namespaced_config_map("default").items]
    assert left == ["kube-root-ca.crt"]
