package main

// A session: the kubelet's collectors for one scenario, kept from request to request.

import (
	"context"
	"fmt"
	"sort"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/images"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/metrics"
)

// session holds the collectors of one kubelet and the node they act on.
type session struct {
	ctx context.Context
	// node is the current request's node; the fakes read and change it.
	node     *node
	settings settings
	// imageGC is the image garbage collector, built on first use.
	imageGC  *images.KubegcImageGC
	hookRuns int
	nodeRef  *v1.ObjectReference
	// gates are the feature gates set so far.
	gates map[string]bool
	// podWorkers know the current request's pods.
	podWorkers kuberuntime.KubegcPodStates
	// cri is the fake runtime service the container collector works on.
	cri *criRuntime
	// runtimeGC and containerGC are the runtime manager's collector and the kubelet's
	// container GC over it, built on first use.
	runtimeGC   *kuberuntime.KubegcContainerGC
	containerGC kubecontainer.GC
	// loops are the kubelet's GC loops, once started.
	loops *loops
	// eviction is the eviction manager, once used.
	eviction *evictionState
}

func newSession() *session {
	legacyregistry.MustRegister(metrics.ImageGarbageCollectedTotal)
	// The kubelet's own logging is not part of the answers.
	klog.SetLogger(logr.Discard())
	return &session{
		ctx:     context.Background(),
		nodeRef: &v1.ObjectReference{Kind: "Node", Name: "node", UID: "node", Namespace: ""},
		gates:   map[string]bool{},
	}
}

// handle carries one request out.
func (s *session) handle(req *request) answer {
	s.node = &req.Node
	s.settings = req.Settings
	var ans answer
	if req.Op.Kind == "setGates" {
		// A gate upstream refuses to change is the answer, not a fault.
		ans.Validation = &validation{Error: errorText(s.setGates(s.node.Gates))}
	} else if err := s.prepare(); err != nil {
		ans.Fault = err.Error()
	} else if err := s.dispatch(req.Op, &ans); err != nil {
		ans.Fault = err.Error()
	}
	ans.Node = *s.node
	ans.Records = s.records()
	ans.Collected = collected()
	ans.HookRuns = s.hookRuns
	ans.Loops = s.loopState()
	return ans
}

// prepare sets the node's feature gates, gives the pod workers and the runtime the node's pods
// and containers, and moves the kubelet's clock to the node's (the loops, if running, run on
// the way).
func (s *session) prepare() error {
	if err := s.setGates(s.node.Gates); err != nil {
		return fmt.Errorf("cannot set feature gates %v: %w", s.node.Gates, err)
	}
	if err := s.loadPods(); err != nil {
		return err
	}
	if s.cri != nil {
		s.cri.load()
	}
	if err := moveClockTo(s.node.Now); err != nil {
		return err
	}
	synctest.Wait()
	return nil
}

// moveClockTo moves the bubble's fake clock forward to t (never back).
func moveClockTo(t time.Time) error {
	now := time.Now()
	if t.Before(now) {
		return fmt.Errorf("the node's clock reads %s, before the kubelet's %s: the clock cannot go back", t.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))
	}
	time.Sleep(t.Sub(now))
	return nil
}

// setGates sets the feature gates the node names (only those the kubelet knows).
func (s *session) setGates(gates map[string]bool) error {
	changed := map[string]bool{}
	for name, on := range gates {
		if was, ok := s.gates[name]; !ok || was != on {
			changed[name] = on
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(changed); err != nil {
		return err
	}
	for name, on := range changed {
		s.gates[name] = on
	}
	return nil
}

func (s *session) dispatch(o op, ans *answer) error {
	switch o.Kind {
	case "createImageGC", "detect", "candidates", "freeSpace", "freeOld", "deleteUnusedImages", "garbageCollectImages", "restart":
		return s.imageOp(o, ans)
	case "createContainerGC", "evictContainers", "evictSandboxes", "evictLogs", "deleteAllUnusedContainers", "garbageCollectContainers":
		return s.containerOp(o, ans)
	case "runUntil":
		t, err := at(o.At, o.Kind)
		if err != nil {
			return err
		}
		return s.runUntil(t)
	case "validateConfig", "loadConfigFile":
		return s.configOp(o, ans)
	case "synchronize":
		return s.synchronize(o.Pods, ans)
	case "reclaimFunctions", "evictionHardInForce":
		return s.evictionOp(o, ans)
	default:
		return fmt.Errorf("the driver has no operation %q", o.Kind)
	}
}

// errorText is err's text, or nil.
func errorText(err error) *string {
	if err == nil {
		return nil
	}
	text := err.Error()
	return &text
}

// collected reads image_garbage_collected_total.
func collected() map[string]int64 {
	out := map[string]int64{}
	for _, reason := range []string{images.ImageGarbageCollectedTotalReasonAge, images.ImageGarbageCollectedTotalReasonSpace} {
		v, err := testutil.GetCounterMetricValue(metrics.ImageGarbageCollectedTotal.WithLabelValues(reason))
		if err == nil && v > 0 {
			out[reason] = int64(v)
		}
	}
	return out
}

func (s *session) records() []imageRecord {
	if s.imageGC == nil {
		return []imageRecord{}
	}
	return toRecords(s.imageGC.Records(), true)
}

func toRecords(in []images.KubegcRecord, sorted bool) []imageRecord {
	out := make([]imageRecord, 0, len(in))
	for _, r := range in {
		out = append(out, imageRecord{Key: r.Key, FirstDetected: r.FirstDetected.UTC(), LastUsed: r.LastUsed.UTC(), Size: r.Size, Pinned: r.Pinned, RuntimeHandler: r.RuntimeHandler})
	}
	if sorted {
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	}
	return out
}
