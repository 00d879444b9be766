package main

// The image garbage collector (pkg/kubelet/images): built through NewImageGCManager, driven
// through its own steps.

import (
	"context"
	"fmt"
	"time"

	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
	"k8s.io/kubernetes/pkg/kubelet/images"
	"k8s.io/kubernetes/pkg/kubelet/metrics"
)

// imagePolicy is the kubelet's image GC policy from its configuration, as kubelet.go builds it.
func (c kubeletConfig) imagePolicy() images.ImageGCPolicy {
	return images.ImageGCPolicy{
		HighThresholdPercent: c.ImageGCHighThresholdPercent,
		LowThresholdPercent:  c.ImageGCLowThresholdPercent,
		MinAge:               time.Duration(c.ImageMinimumGCAge),
		MaxAge:               time.Duration(c.ImageMaximumGCAge),
	}
}

// newImageGC builds an image collector over the node with policy.
func (s *session) newImageGC(policy images.ImageGCPolicy) (*images.KubegcImageGC, error) {
	hook := func(context.Context, []string, time.Time) { s.hookRuns++ }
	runtime := &imageRuntime{FakeRuntime: &containertest.FakeRuntime{}, s: s}
	return images.KubegcNewImageGC(runtime, &statsProvider{s: s}, []images.PostImageGCHook{hook}, &recorder{s: s}, s.nodeRef, policy)
}

// images returns the image collector, built from the configuration on first use.
func (s *session) images() (*images.KubegcImageGC, error) {
	if s.imageGC == nil {
		gc, err := s.newImageGC(s.settings.Config.imagePolicy())
		if err != nil {
			return nil, err
		}
		s.imageGC = gc
	}
	return s.imageGC, nil
}

func at(t *instant, what string) (time.Time, error) {
	if t == nil {
		return time.Time{}, fmt.Errorf("%s needs a time", what)
	}
	return time.Time(*t), nil
}

func (s *session) imageOp(o op, ans *answer) error {
	switch o.Kind {
	case "createImageGC":
		_, err := s.newImageGC(images.ImageGCPolicy{HighThresholdPercent: o.High, LowThresholdPercent: o.Low})
		ans.Validation = &validation{Error: errorText(err)}
		return nil
	case "restart":
		// A restarted kubelet is a new process: its hooks and metrics start over.
		s.stopLoops()
		s.hookRuns = 0
		metrics.ImageGarbageCollectedTotal.Reset()
		gc, err := s.newImageGC(s.settings.Config.imagePolicy())
		if err != nil {
			return err
		}
		s.imageGC = gc
		return nil
	}
	gc, err := s.images()
	if err != nil {
		return err
	}
	switch o.Kind {
	case "detect":
		t, err := at(o.At, o.Kind)
		if err != nil {
			return err
		}
		ans.Error = errorText(gc.Detect(context.Background(), t))
	case "candidates":
		t, err := at(o.At, o.Kind)
		if err != nil {
			return err
		}
		candidates, err := gc.Candidates(context.Background(), t)
		ans.Candidates, ans.Error = toRecords(candidates, false), errorText(err)
	case "freeSpace":
		t, err := at(o.At, o.Kind)
		if err != nil {
			return err
		}
		freed, err := gc.FreeSpace(context.Background(), o.Bytes, t)
		ans.Freed, ans.Error = &freed, errorText(err)
	case "freeOld":
		t, err := at(o.At, o.Kind)
		if err != nil {
			return err
		}
		began, err := at(o.Began, o.Kind)
		if err != nil {
			return err
		}
		left, err := gc.FreeOld(context.Background(), t, began)
		ans.Candidates, ans.Error = toRecords(left, false), errorText(err)
	case "deleteUnusedImages":
		ans.Error = errorText(gc.Manager().DeleteUnusedImages(context.Background()))
	case "garbageCollectImages":
		// One pass as the kubelet's loop makes it, with the loop's beganGC: the kubelet's start.
		ans.Error = errorText(gc.Manager().GarbageCollect(context.Background(), s.settings.Started))
	}
	return nil
}
