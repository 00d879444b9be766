package kubelet

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can ask the kubelet's own pod workers about pods in
// given states, as the package's own unit tests build pod workers, and start the kubelet's own
// garbage collection loops.

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/images"
)

// KubegcStartGarbageCollection runs StartGarbageCollection on a kubelet holding only what it
// uses: the container collector, the image manager, the event recorder, the node's reference
// and the image GC high threshold and maximum age of its configuration. The loops stop when ctx
// ends.
func KubegcStartGarbageCollection(ctx context.Context, containerGC kubecontainer.GC, imageManager images.ImageGCManager, recorder record.EventRecorderLogger, nodeRef *v1.ObjectReference, highThresholdPercent int32, maxAge time.Duration) {
	kl := &Kubelet{
		containerGC:  containerGC,
		imageManager: imageManager,
		recorder:     recorder,
		nodeRef:      nodeRef,
		kubeletConfiguration: kubeletconfiginternal.KubeletConfiguration{
			ImageGCHighThresholdPercent: highThresholdPercent,
			ImageMaximumGCAge:           metav1.Duration{Duration: maxAge},
		},
	}
	kl.StartGarbageCollection(ctx)
}

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
