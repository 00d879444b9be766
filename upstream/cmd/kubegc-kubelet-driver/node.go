package main

// The fake node the kubelet's code acts on: the runtime the image collector sees (upstream's
// FakeRuntime, with per-image faults and the node's images), the stats provider over the
// node's filesystems, and an event recorder. Removing an image gives its bytes back to the
// filesystem that holds images, as kubegc's model of the node does.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
)

// injected is the error of a call the scenario made fail (the same text as kubegc's model).
func injected(ids []string, call, id string) error {
	if slices.Contains(ids, id) {
		return fmt.Errorf("failed to %s %q: injected fault", call, id)
	}
	return nil
}

// fs returns the filesystem holding images, container writable layers or the rest.
func (n *node) fs(role string) *filesystem {
	switch {
	case role == "node" || n.Disks.Layout == "single" || (role == "container" && n.Disks.Layout == "split"):
		return &n.Disks.Nodefs
	default:
		return &n.Disks.Imagefs
	}
}

// release gives bytes back to a filesystem.
func (f *filesystem) release(bytes int64) {
	if bytes > 0 {
		f.Available += bytes
	}
}

func (n *node) record(name, id string) {
	n.Calls = append(n.Calls, call{Call: name, ID: id})
}

// called records a runtime call on id, and fails it (as doing what) when id is among failing.
func (n *node) called(name, id string, failing []string, doing string) error {
	n.record(name, id)
	return injected(failing, doing, id)
}

// imageRuntime is the runtime as the image collector sees it: upstream's FakeRuntime for
// everything the collector does not call, the node's images and containers for what it does.
type imageRuntime struct {
	*containertest.FakeRuntime
	s *session
}

func (r *imageRuntime) ListImages(context.Context) ([]kubecontainer.Image, error) {
	n := r.s.node
	if n.Faults.ListImages != nil {
		return nil, errors.New(*n.Faults.ListImages)
	}
	out := make([]kubecontainer.Image, 0, len(n.Images))
	for _, i := range n.Images {
		out = append(out, kubecontainer.Image{ID: i.ID, Size: i.Size, Pinned: i.Pinned, Spec: kubecontainer.ImageSpec{RuntimeHandler: i.RuntimeHandler}})
	}
	return out, nil
}

func (r *imageRuntime) GetPods(_ context.Context, all bool) ([]*kubecontainer.Pod, error) {
	n := r.s.node
	if n.Faults.ListContainers != nil {
		return nil, errors.New(*n.Faults.ListContainers)
	}
	var pods []*kubecontainer.Pod
	byUID := map[string]*kubecontainer.Pod{}
	for _, c := range n.Containers {
		if !all && c.State != "running" {
			continue
		}
		pod, ok := byUID[c.PodUID]
		if !ok {
			pod = &kubecontainer.Pod{ID: types.UID(c.PodUID), Name: c.PodUID, Namespace: "default"}
			byUID[c.PodUID] = pod
			pods = append(pods, pod)
		}
		pod.Containers = append(pod.Containers, &kubecontainer.Container{
			ID:                  kubecontainer.ContainerID{Type: "containerd", ID: c.ID},
			Name:                c.Name,
			Image:               c.ImageID,
			ImageID:             c.ImageID,
			ImageRuntimeHandler: c.ImageRuntimeHandler,
			State:               containerState(c.State),
		})
	}
	return pods, nil
}

// containerStates are the container states a node names, as the CRI and as the kubelet's
// runtime give them (any other name is unknown).
var containerStates = map[string]struct {
	cri     runtimeapi.ContainerState
	kubelet kubecontainer.State
}{
	"created": {runtimeapi.ContainerState_CONTAINER_CREATED, kubecontainer.ContainerStateCreated},
	"running": {runtimeapi.ContainerState_CONTAINER_RUNNING, kubecontainer.ContainerStateRunning},
	"exited":  {runtimeapi.ContainerState_CONTAINER_EXITED, kubecontainer.ContainerStateExited},
}

func containerState(s string) kubecontainer.State {
	if state, ok := containerStates[s]; ok {
		return state.kubelet
	}
	return kubecontainer.ContainerStateUnknown
}

func (r *imageRuntime) GetContainerStatus(_ context.Context, _ types.UID, id kubecontainer.ContainerID) (*kubecontainer.Status, error) {
	n := r.s.node
	if err := injected(n.Faults.ContainerStatus, "get the status of container", id.ID); err != nil {
		return nil, err
	}
	for _, c := range n.Containers {
		if c.ID == id.ID {
			status := &kubecontainer.Status{ID: id, Name: c.Name, State: containerState(c.State)}
			for _, v := range c.ImageVolumes {
				status.Mounts = append(status.Mounts, kubecontainer.Mount{Image: &runtimeapi.ImageSpec{Image: v}})
			}
			return status, nil
		}
	}
	return nil, fmt.Errorf("container %q not found", id.ID)
}

// RemoveImage removes the first listed image with that ID and handler (or that ID).
func (r *imageRuntime) RemoveImage(_ context.Context, spec kubecontainer.ImageSpec) error {
	n := r.s.node
	if err := n.called("RemoveImage", spec.Image, n.Faults.RemoveImage, "remove image"); err != nil {
		return err
	}
	at := slices.IndexFunc(n.Images, func(i image) bool { return i.ID == spec.Image && i.RuntimeHandler == spec.RuntimeHandler })
	if at < 0 {
		at = slices.IndexFunc(n.Images, func(i image) bool { return i.ID == spec.Image })
	}
	if at < 0 {
		return fmt.Errorf("image %q not found", spec.Image)
	}
	removed := n.Images[at]
	n.Images = slices.Delete(n.Images, at, at+1)
	released := removed.Size
	if removed.ReleasedBytes != nil {
		released = *removed.ReleasedBytes
	}
	n.fs("image").release(released)
	return nil
}

// statsProvider reports the node's filesystems.
type statsProvider struct{ s *session }

func fsStats(f *filesystem) *statsapi.FsStats {
	stats := &statsapi.FsStats{}
	if f.Capacity != nil {
		c := uint64(*f.Capacity)
		stats.CapacityBytes = &c
	}
	a := uint64(max(f.Available, 0))
	stats.AvailableBytes = &a
	return stats
}

func (p *statsProvider) ImageFsStats(context.Context) (*statsapi.FsStats, *statsapi.FsStats, error) {
	n := p.s.node
	if n.Disks.ImageStatsError != nil {
		return nil, nil, errors.New(*n.Disks.ImageStatsError)
	}
	return fsStats(n.fs("image")), fsStats(n.fs("container")), nil
}

// recorder keeps the events the kubelet's code records on the node.
type recorder struct{ s *session }

func objectName(obj runtime.Object) string {
	switch o := obj.(type) {
	case *v1.ObjectReference:
		if o.Kind == "Pod" {
			return "Pod/" + o.Name
		}
		return o.Kind
	case *v1.Pod:
		return "Pod/" + o.Name
	default:
		return fmt.Sprintf("%T", obj)
	}
}

func (r *recorder) Event(obj runtime.Object, eventType, reason, message string) {
	r.s.node.Events = append(r.s.node.Events, event{Type: eventType, Reason: reason, Message: message, Object: objectName(obj)})
}

func (r *recorder) Eventf(obj runtime.Object, eventType, reason, format string, args ...interface{}) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...interface{}) {
	r.Eventf(obj, eventType, reason, format, args...)
}

func (r *recorder) WithLogger(klog.Logger) record.EventRecorderLogger { return r }
