package main

// The kubelet's container, sandbox and pod-log collector (pkg/kubelet/kuberuntime, behind the
// kubelet's own pkg/kubelet/container GC), over upstream's fake CRI runtime service holding the
// node's containers and sandboxes, a fake OS holding its log directories and legacy symlinks,
// and the kubelet's pod workers knowing its pods.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	critest "k8s.io/cri-api/pkg/apis/testing"

	kubelettypes "k8s.io/kubelet/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
)

// criRuntime is upstream's fake CRI runtime service loaded with the node's containers and
// sandboxes; stopping and removing also act on the node (calls recorded, faults injected,
// a container's writable layer given back to its filesystem).
type criRuntime struct {
	*critest.FakeRuntimeService
	s *session
}

func criContainerState(s string) runtimeapi.ContainerState {
	if state, ok := containerStates[s]; ok {
		return state.cri
	}
	return runtimeapi.ContainerState_CONTAINER_UNKNOWN
}

func podLabels(uid string) map[string]string {
	return map[string]string{
		kubelettypes.KubernetesPodUIDLabel:       uid,
		kubelettypes.KubernetesPodNameLabel:      uid,
		kubelettypes.KubernetesPodNamespaceLabel: "default",
	}
}

// load puts the node's containers and sandboxes into the fake runtime service.
func (r *criRuntime) load() {
	n := r.s.node
	var containers []*critest.FakeContainer
	for _, c := range n.Containers {
		labels := podLabels(c.PodUID)
		labels[kubelettypes.KubernetesContainerNameLabel] = c.Name
		status := runtimeapi.ContainerStatus{
			Id:        c.ID,
			Metadata:  &runtimeapi.ContainerMetadata{Name: c.Name, Attempt: c.Attempt},
			State:     criContainerState(c.State),
			CreatedAt: c.Created.UnixNano(),
			Image:     &runtimeapi.ImageSpec{Image: c.ImageID},
			ImageRef:  c.ImageID,
			Labels:    labels,
		}
		if c.Finished != nil {
			status.FinishedAt = c.Finished.UnixNano()
		}
		fc := &critest.FakeContainer{ContainerStatus: status}
		if c.SandboxID != nil {
			fc.SandboxID = *c.SandboxID
		}
		containers = append(containers, fc)
	}
	r.SetFakeContainers(containers)
	var sandboxes []*critest.FakePodSandbox
	for _, sb := range n.Sandboxes {
		state := runtimeapi.PodSandboxState_SANDBOX_NOTREADY
		if sb.State == "ready" {
			state = runtimeapi.PodSandboxState_SANDBOX_READY
		}
		sandboxes = append(sandboxes, &critest.FakePodSandbox{PodSandboxStatus: runtimeapi.PodSandboxStatus{
			Id:        sb.ID,
			Metadata:  &runtimeapi.PodSandboxMetadata{Name: sb.PodUID, Uid: sb.PodUID, Namespace: "default", Attempt: sb.Attempt},
			State:     state,
			CreatedAt: sb.Created.UnixNano(),
			Labels:    podLabels(sb.PodUID),
		}})
	}
	r.SetFakeSandboxes(sandboxes)
}

func (r *criRuntime) ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	if e := r.s.node.Faults.ListContainers; e != nil {
		return nil, errors.New(*e)
	}
	return r.FakeRuntimeService.ListContainers(ctx, filter)
}

func (r *criRuntime) ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	if e := r.s.node.Faults.ListSandboxes; e != nil {
		return nil, errors.New(*e)
	}
	return r.FakeRuntimeService.ListPodSandbox(ctx, filter)
}

func (r *criRuntime) ContainerStatus(ctx context.Context, id string, verbose bool) (*runtimeapi.ContainerStatusResponse, error) {
	if err := injected(r.s.node.Faults.ContainerStatus, "get the status of container", id); err != nil {
		return nil, err
	}
	return r.FakeRuntimeService.ContainerStatus(ctx, id, verbose)
}

func (r *criRuntime) StopContainer(ctx context.Context, id string, timeout int64) error {
	n := r.s.node
	if err := n.called("StopContainer", id, n.Faults.StopContainer, "stop container"); err != nil {
		return err
	}
	if err := r.FakeRuntimeService.StopContainer(ctx, id, timeout); err != nil {
		return err
	}
	for i := range n.Containers {
		if n.Containers[i].ID == id {
			n.Containers[i].State = "exited"
		}
	}
	return nil
}

func (r *criRuntime) RemoveContainer(ctx context.Context, id string) error {
	n := r.s.node
	if err := n.called("RemoveContainer", id, n.Faults.RemoveContainer, "remove container"); err != nil {
		return err
	}
	if err := r.FakeRuntimeService.RemoveContainer(ctx, id); err != nil {
		return err
	}
	at := slices.IndexFunc(n.Containers, func(c container) bool { return c.ID == id })
	if at >= 0 {
		n.fs("container").release(n.Containers[at].Size)
		n.Containers = slices.Delete(n.Containers, at, at+1)
	}
	return nil
}

func (r *criRuntime) StopPodSandbox(ctx context.Context, id string) error {
	n := r.s.node
	if err := n.called("StopPodSandbox", id, n.Faults.StopSandbox, "stop sandbox"); err != nil {
		return err
	}
	if err := r.FakeRuntimeService.StopPodSandbox(ctx, id); err != nil {
		return err
	}
	for i := range n.Sandboxes {
		if n.Sandboxes[i].ID == id {
			n.Sandboxes[i].State = "notready"
		}
	}
	return nil
}

func (r *criRuntime) RemovePodSandbox(ctx context.Context, id string) error {
	n := r.s.node
	n.record("RemovePodSandbox", id)
	if err := r.FakeRuntimeService.RemovePodSandbox(ctx, id); err != nil {
		return err
	}
	n.Sandboxes = slices.DeleteFunc(n.Sandboxes, func(sb sandbox) bool { return sb.ID == id })
	return nil
}

// nodeOS is upstream's fake OS over the node's pod log directories and legacy symlinks.
type nodeOS struct {
	*containertest.FakeOS
	s *session
}

// fileInfo describes a log directory or symlink.
type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return f.size }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir
	}
	return 0
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

const legacyLogsDir = "/var/log/containers"

func (o *nodeOS) ReadDir(dir string) ([]os.DirEntry, error) {
	l := o.s.node.Logs
	if dir != l.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	if l.ReadError != nil {
		return nil, errors.New(*l.ReadError)
	}
	var out []os.DirEntry
	for _, d := range l.PodDirs {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: d.Name, size: d.Size, dir: true}))
	}
	return out, nil
}

func (o *nodeOS) RemoveAll(path string) error {
	n := o.s.node
	at := slices.IndexFunc(n.Logs.PodDirs, func(d logDir) bool { return filepath.Join(n.Logs.Dir, d.Name) == path })
	if at < 0 {
		return &fs.PathError{Op: "removeall", Path: path, Err: fs.ErrNotExist}
	}
	n.fs("node").release(n.Logs.PodDirs[at].Size)
	n.Logs.PodDirs = slices.Delete(n.Logs.PodDirs, at, at+1)
	n.Logs.Removed = append(n.Logs.Removed, path)
	return nil
}

func (o *nodeOS) Glob(pattern string) ([]string, error) {
	var out []string
	for _, l := range o.s.node.Logs.Symlinks {
		path := filepath.Join(legacyLogsDir, l.Name)
		if ok, err := filepath.Match(pattern, path); err != nil {
			return nil, err
		} else if ok {
			out = append(out, path)
		}
	}
	return out, nil
}

// Stat follows a symlink: it exists when its target does.
func (o *nodeOS) Stat(path string) (os.FileInfo, error) {
	for _, l := range o.s.node.Logs.Symlinks {
		if filepath.Join(legacyLogsDir, l.Name) == path && l.TargetExists {
			return fileInfo{name: l.Name}, nil
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist}
}

func (o *nodeOS) Remove(path string) error {
	n := o.s.node
	at := slices.IndexFunc(n.Logs.Symlinks, func(l logSymlink) bool { return filepath.Join(legacyLogsDir, l.Name) == path })
	if at < 0 {
		return &fs.PathError{Op: "remove", Path: path, Err: fs.ErrNotExist}
	}
	n.Logs.Symlinks = slices.Delete(n.Logs.Symlinks, at, at+1)
	n.Logs.Removed = append(n.Logs.Removed, path)
	return nil
}

// podStates answers for the pod workers of the current request's node.
type podStates struct{ s *session }

func (p podStates) IsPodTerminationRequested(uid types.UID) bool {
	return p.s.podWorkers.IsPodTerminationRequested(uid)
}
func (p podStates) ShouldPodRuntimeBeRemoved(uid types.UID) bool {
	return p.s.podWorkers.ShouldPodRuntimeBeRemoved(uid)
}
func (p podStates) ShouldPodContentBeRemoved(uid types.UID) bool {
	return p.s.podWorkers.ShouldPodContentBeRemoved(uid)
}

// sourcesReady says whether the node's config sources are all ready.
type sourcesReady struct{ s *session }

func (r sourcesReady) AllReady() bool { return r.s.node.SourcesReady }

// loadPods gives the session pod workers knowing the node's pods.
func (s *session) loadPods() error {
	workers, err := kubelet.KubegcPodWorkers(s.node.Pods.States, s.node.Pods.Synced, time.Now())
	if err != nil {
		return err
	}
	s.podWorkers = workers
	return nil
}

func (c containerPolicy) gcPolicy() kubecontainer.GCPolicy {
	return kubecontainer.GCPolicy{MinAge: time.Duration(c.MinAge), MaxPerPodContainer: c.MaxPerPodContainer, MaxContainers: c.MaxContainers}
}

// containers returns the runtime manager and the kubelet's container GC, built on first use
// (from the container policy).
func (s *session) containers() (*kuberuntime.KubegcContainerGC, kubecontainer.GC, error) {
	if s.runtimeGC == nil {
		runtime := &criRuntime{FakeRuntimeService: critest.NewFakeRuntimeService(), s: s}
		s.cri = runtime
		os := &nodeOS{FakeOS: &containertest.FakeOS{}, s: s}
		manager, err := kuberuntime.KubegcNewContainerGC(s.ctx, runtime, critest.NewFakeImageService(), os, podStates{s: s}, s.node.Logs.Dir)
		if err != nil {
			return nil, nil, err
		}
		gc, err := kubecontainer.NewContainerGC(manager.Runtime(), s.settings.ContainerPolicy.gcPolicy(), sourcesReady{s: s})
		if err != nil {
			return nil, nil, err
		}
		s.runtimeGC, s.containerGC = manager, gc
	}
	s.cri.load()
	return s.runtimeGC, s.containerGC, nil
}

func (s *session) containerOp(o op, ans *answer) error {
	if o.Kind == "createContainerGC" {
		policy := s.settings.ContainerPolicy.gcPolicy()
		policy.MinAge = time.Duration(o.MinAge)
		_, err := kubecontainer.NewContainerGC(nil, policy, sourcesReady{s: s})
		ans.Validation = &validation{Error: errorText(err)}
		return nil
	}
	manager, gc, err := s.containers()
	if err != nil {
		return err
	}
	ready := s.node.SourcesReady
	switch o.Kind {
	case "evictContainers":
		ans.Error = errorText(manager.EvictContainers(s.ctx, s.settings.ContainerPolicy.gcPolicy(), ready, o.IncludingTerminated))
	case "evictSandboxes":
		ans.Error = errorText(manager.EvictSandboxes(s.ctx, o.IncludingTerminated))
	case "evictLogs":
		ans.Error = errorText(manager.EvictPodLogsDirectories(s.ctx, ready))
	case "deleteAllUnusedContainers":
		ans.Error = errorText(gc.DeleteAllUnusedContainers(s.ctx))
	case "garbageCollectContainers":
		ans.Error = errorText(gc.GarbageCollect(s.ctx))
	}
	return nil
}
