package kuberuntime

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can build the kubelet's container, sandbox and
// pod-log collector over a fake runtime service, as the package's own unit tests do, and call
// its steps.

import (
	"context"

	cadvisorapi "github.com/google/cadvisor/lib/model"
	"go.opentelemetry.io/otel/trace/noop"
	"k8s.io/client-go/tools/record"
	internalapi "k8s.io/cri-api/pkg/apis"

	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
)

// KubegcPodStates is what the collector asks the pod workers.
type KubegcPodStates = podStateProvider

// KubegcContainerGC is the kubelet's runtime manager with its container collector.
type KubegcContainerGC struct {
	m *kubeGenericRuntimeManager
}

// KubegcNewContainerGC builds the runtime manager over runtimeService and osInterface, its
// collector asking pods, with pod logs under podLogsDirectory.
func KubegcNewContainerGC(ctx context.Context, runtimeService internalapi.RuntimeService, imageService internalapi.ImageManagerService, osInterface kubecontainer.OSInterface, pods KubegcPodStates, podLogsDirectory string) (*KubegcContainerGC, error) {
	tracer := noop.NewTracerProvider().Tracer("")
	m, err := newFakeKubeRuntimeManager(ctx, runtimeService, imageService, &cadvisorapi.MachineInfo{}, osInterface, &containertest.FakeRuntimeHelper{}, tracer, record.NewFakeRecorder(100))
	if err != nil {
		return nil, err
	}
	m.podStateProvider = pods
	m.containerGC = newContainerGC(runtimeService, pods, m, tracer)
	m.podLogsDirectory = podLogsDirectory
	return &KubegcContainerGC{m: m}, nil
}

// Runtime is the runtime manager as the kubelet's container GC uses it.
func (g *KubegcContainerGC) Runtime() kubecontainer.Runtime { return g.m }

// EvictContainers runs evictContainers.
func (g *KubegcContainerGC) EvictContainers(ctx context.Context, policy kubecontainer.GCPolicy, allSourcesReady, evictNonDeletedPods bool) error {
	return g.m.containerGC.evictContainers(ctx, policy, allSourcesReady, evictNonDeletedPods)
}

// EvictSandboxes runs evictSandboxes.
func (g *KubegcContainerGC) EvictSandboxes(ctx context.Context, evictNonDeletedPods bool) error {
	return g.m.containerGC.evictSandboxes(ctx, evictNonDeletedPods)
}

// EvictPodLogsDirectories runs evictPodLogsDirectories.
func (g *KubegcContainerGC) EvictPodLogsDirectories(ctx context.Context, allSourcesReady bool) error {
	return g.m.containerGC.evictPodLogsDirectories(ctx, allSourcesReady)
}
