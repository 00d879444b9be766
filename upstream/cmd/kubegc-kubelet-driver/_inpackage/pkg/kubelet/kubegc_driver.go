package kubelet

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can run the kubelet's own garbage collection loops
// and pod workers' answers over fakes, as the package's own unit tests build a Kubelet.

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/images"
)

// KubegcPodWorkers are the kubelet's pod workers knowing each pod of states in its state
// (running, terminated, removed — deleted and terminated — or evicted), synced or not.
func KubegcPodWorkers(states map[string]string, synced bool, at time.Time) (*podWorkers, error) {
	p := &podWorkers{podSyncStatuses: map[types.UID]*podSyncStatus{}, podsSynced: synced}
	for uid, state := range states {
		s := &podSyncStatus{syncedAt: at, startedAt: at}
		switch state {
		case "running":
		case "terminated":
			s.terminatingAt, s.terminatedAt = at, at
		case "removed":
			s.terminatingAt, s.terminatedAt, s.deleted = at, at, true
		case "evicted":
			s.terminatingAt, s.terminatedAt, s.evicted = at, at, true
		default:
			return nil, fmt.Errorf("unknown pod state %q", state)
		}
		p.podSyncStatuses[types.UID(uid)] = s
	}
	return p, nil
}

// KubegcStartGarbageCollection runs the kubelet's StartGarbageCollection with these
// collectors and this image GC configuration.
func KubegcStartGarbageCollection(ctx context.Context, containerGC kubecontainer.GC, imageManager images.ImageGCManager, recorder record.EventRecorderLogger, nodeRef *v1.ObjectReference, highThresholdPercent int32, maxAge time.Duration) {
	kl := &Kubelet{containerGC: containerGC, imageManager: imageManager, recorder: recorder, nodeRef: nodeRef}
	kl.kubeletConfiguration.ImageGCHighThresholdPercent = highThresholdPercent
	kl.kubeletConfiguration.ImageMaximumGCAge.Duration = maxAge
	kl.StartGarbageCollection(ctx)
}
