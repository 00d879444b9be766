package kubelet

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can ask the kubelet's own pod workers about pods in
// given states, as the package's own unit tests build pod workers.

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
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
