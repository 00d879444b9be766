package eviction

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can ask which node-level reclaim functions the
// eviction manager chooses and run its synchronize pass, as the package's own unit tests do.

import (
	"context"

	v1 "k8s.io/api/core/v1"

	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
)

// KubegcReclaim runs, in order, the node-level reclaim functions the eviction manager chooses
// for signal (buildSignalToNodeReclaimFuncs) on a node with or without a dedicated image
// filesystem, split from the container filesystem or not, over imageGC and containerGC.
func KubegcReclaim(ctx context.Context, signal string, imageGC ImageGC, containerGC ContainerGC, withImageFs, splitContainerImageFs bool) error {
	for _, reclaim := range buildSignalToNodeReclaimFuncs(imageGC, containerGC, withImageFs, splitContainerImageFs)[evictionapi.Signal(signal)] {
		if err := reclaim(ctx); err != nil {
			return err
		}
	}
	return nil
}

// KubegcSynchronize runs one synchronize pass of a manager NewManager made.
func KubegcSynchronize(ctx context.Context, m Manager, diskInfoProvider DiskInfoProvider, podFunc ActivePodsFunc) ([]*v1.Pod, error) {
	return m.(*managerImpl).synchronize(ctx, diskInfoProvider, podFunc)
}
