package main

// The kubelet's garbage collection loops as the kubelet starts them: StartGarbageCollection
// (container GC every minute, image GC every five minutes, each first at once) and the image
// manager's Start (detection every five minutes, the image list every 30 seconds), all running
// on the bubble's fake clock. They run whenever the clock moves, as a running kubelet's do.

import (
	"context"
	"fmt"
	"testing/synctest"
	"time"

	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/images"
)

// loops are the kubelet's running loops.
type loops struct {
	stop context.CancelFunc
	// imageGCRuns counts the image GC loop's passes.
	imageGCRuns int
}

// countedImageGC is the image manager as the kubelet's loop holds it; it counts the loop's
// passes (so a scenario can tell whether the loop runs) and leaves the rest to the manager.
type countedImageGC struct {
	images.ImageGCManager
	runs *int
}

func (c countedImageGC) GarbageCollect(ctx context.Context, beganGC time.Time) error {
	*c.runs++
	return c.ImageGCManager.GarbageCollect(ctx, beganGC)
}

// startLoops starts the loops now, which must be when the kubelet started, and lets their
// first passes finish.
func (s *session) startLoops() error {
	if now := time.Now(); !now.Equal(s.settings.Started) {
		return fmt.Errorf("the kubelet's loops start when the kubelet starts (%s), but the clock already reads %s", s.settings.Started.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	gc, err := s.images()
	if err != nil {
		return err
	}
	_, containerGC, err := s.containers()
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(s.ctx)
	l := &loops{stop: stop}
	gc.Manager().Start(ctx)
	config := s.settings.Config
	kubelet.KubegcStartGarbageCollection(ctx, containerGC, countedImageGC{ImageGCManager: gc.Manager(), runs: &l.imageGCRuns}, &recorder{s: s}, s.nodeRef, int32(config.ImageGCHighThresholdPercent), time.Duration(config.ImageMaximumGCAge))
	s.loops = l
	synctest.Wait()
	return nil
}

// runUntil runs the loops (starting them if they are not running) until t, passes due at t
// included.
func (s *session) runUntil(t time.Time) error {
	if s.loops == nil {
		if err := s.startLoops(); err != nil {
			return err
		}
	}
	if err := moveClockTo(t); err != nil {
		return err
	}
	synctest.Wait()
	s.node.Now = t
	return nil
}

// stopLoops stops the loops, as a restarting kubelet does.
func (s *session) stopLoops() {
	if s.loops != nil {
		s.loops.stop()
		synctest.Wait()
		s.loops = nil
	}
}

// loopState is what the answer says of the loops.
func (s *session) loopState() *loopState {
	if s.loops == nil {
		return nil
	}
	return &loopState{ImageGCRuns: s.loops.imageGCRuns}
}
