package main

// The eviction manager's synchronize pass (pkg/kubelet/eviction), built by NewManager over the
// node's filesystems and pods, the real image manager and container collector (watched, to
// tell which reclaim functions ran), and a pod killer that marks the pod evicted.

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/utils/clock"

	"k8s.io/kubernetes/pkg/kubelet/eviction"
)

// evictionState is the eviction manager and what its current pass does.
type evictionState struct {
	s       *session
	manager eviction.Manager
	// reclaimed are the reclaim functions the current pass ran.
	reclaimed reclaimCalls
	// evicted is the pod the current pass evicted, if any.
	evicted *evictedPod
	// pods are the active pods of the current pass.
	pods []evictionPod
}

// watchedImageGC is the image manager as the eviction manager holds it, noting each call.
type watchedImageGC struct{ e *evictionState }

func (w watchedImageGC) DeleteUnusedImages(ctx context.Context) error {
	w.e.reclaimed = append(w.e.reclaimed, "DeleteUnusedImages")
	gc, err := w.e.s.images()
	if err != nil {
		return err
	}
	return gc.Manager().DeleteUnusedImages(ctx)
}

// watchedContainerGC is the container collector as the eviction manager holds it, noting each
// call.
type watchedContainerGC struct{ e *evictionState }

func (w watchedContainerGC) DeleteAllUnusedContainers(ctx context.Context) error {
	w.e.reclaimed = append(w.e.reclaimed, "DeleteAllUnusedContainers")
	_, gc, err := w.e.s.containers()
	if err != nil {
		return err
	}
	return gc.DeleteAllUnusedContainers(ctx)
}

// killPod marks the pod evicted on the node, as the pod workers would once it is killed.
func (e *evictionState) killPod(pod *v1.Pod, _ bool, gracePeriodOverride *int64, _ func(*v1.PodStatus)) error {
	grace := int64(-1)
	if gracePeriodOverride != nil {
		grace = *gracePeriodOverride
	}
	e.evicted = &evictedPod{Pod: pod.Name, GracePeriod: grace}
	if e.s.node.Pods.States == nil {
		e.s.node.Pods.States = map[string]string{}
	}
	e.s.node.Pods.States[string(pod.UID)] = "evicted"
	return nil
}

// diskInfo tells the eviction manager the node's disk layout.
type diskInfo struct{ s *session }

func (d diskInfo) HasDedicatedImageFs(context.Context) (bool, error) {
	withImageFs, _, err := filesystems(d.s.node.Disks.Layout)
	return withImageFs, err
}

func (d diskInfo) HasDedicatedContainerFs(context.Context) (bool, error) {
	_, split, err := filesystems(d.s.node.Disks.Layout)
	return split, err
}

// summary gives the eviction manager the node's filesystems and the active pods' usage: a
// pod's disk usage is its one container's writable layer.
type summary struct{ e *evictionState }

func (p summary) Get(context.Context, bool) (*statsapi.Summary, error) {
	n := p.e.s.node
	now := metav1.NewTime(time.Now())
	stats := func(f *filesystem) *statsapi.FsStats {
		s := fsStats(f)
		s.Time = now
		return s
	}
	out := &statsapi.Summary{Node: statsapi.NodeStats{
		NodeName: p.e.s.nodeRef.Name,
		Fs:       stats(n.fs("node")),
		Runtime:  &statsapi.RuntimeStats{ImageFs: stats(n.fs("image")), ContainerFs: stats(n.fs("container"))},
	}}
	for _, pod := range p.e.pods {
		used := uint64(max(pod.DiskUsage, 0))
		out.Pods = append(out.Pods, statsapi.PodStats{
			PodRef:     statsapi.PodReference{Name: pod.Name, Namespace: "default", UID: pod.Name},
			Containers: []statsapi.ContainerStats{{Name: "app", Rootfs: &statsapi.FsStats{Time: now, UsedBytes: &used}}},
		})
	}
	return out, nil
}

func (p summary) GetCPUAndMemoryStats(ctx context.Context) (*statsapi.Summary, error) {
	return p.Get(ctx, false)
}

// activePods are the pods the eviction manager may evict in the current pass.
func (e *evictionState) activePods() []*v1.Pod {
	var out []*v1.Pod
	for _, p := range e.pods {
		priority := p.Priority
		request := v1.ResourceList{v1.ResourceEphemeralStorage: *resource.NewQuantity(p.Request, resource.BinarySI)}
		out = append(out, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: "default", UID: types.UID(p.Name)},
			Spec: v1.PodSpec{
				Priority:   &priority,
				Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: request}}},
			},
		})
	}
	return out
}

// evictionManager returns the eviction manager, built on first use from the settings.
func (s *session) evictionManager() (*evictionState, error) {
	if s.eviction != nil {
		return s.eviction, nil
	}
	e := &evictionState{s: s}
	config := s.settings.Eviction
	hard, minReclaim := config.Hard, config.MinimumReclaim
	if hard == nil {
		inForce, err := s.evictionHardInForce()
		if err != nil {
			return nil, err
		}
		hard = inForce
	}
	thresholds, err := eviction.ParseThresholdConfig(nil, hard, nil, nil, minReclaim)
	if err != nil {
		return nil, fmt.Errorf("cannot read the eviction thresholds: %w", err)
	}
	e.manager, _ = eviction.NewManager(summary{e: e}, eviction.Config{
		PressureTransitionPeriod: time.Duration(config.PressureTransitionPeriod),
		MaxPodGracePeriodSeconds: config.MaxPodGracePeriodSeconds,
		Thresholds:               thresholds,
	}, e.killPod, watchedImageGC{e: e}, watchedContainerGC{e: e}, &recorder{s: s}, s.nodeRef, clock.RealClock{}, true)
	s.eviction = e
	return e, nil
}

// synchronize runs one pass of the eviction manager over pods.
func (s *session) synchronize(pods []evictionPod, ans *answer) error {
	e, err := s.evictionManager()
	if err != nil {
		return err
	}
	e.reclaimed, e.evicted, e.pods = reclaimCalls{}, nil, pods
	if _, err := eviction.KubegcSynchronize(s.ctx, e.manager, diskInfo{s: s}, e.activePods); err != nil {
		ans.Error = errorText(err)
	}
	ans.Sync = &syncOutcome{ReclaimedWith: e.reclaimed, Evicted: e.evicted, DiskPressure: e.manager.IsUnderDiskPressure()}
	return nil
}
