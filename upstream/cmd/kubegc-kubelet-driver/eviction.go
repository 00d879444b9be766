package main

// The eviction manager's choices (pkg/kubelet/eviction) and the evictionHard a kubelet runs
// with (cmd/kubelet/app's loading of its configuration file).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/kubernetes/cmd/kubelet/app"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
)

// reclaimCalls stands for image GC and container GC before the eviction manager and records
// which of them it calls, in order.
type reclaimCalls []string

func (r *reclaimCalls) DeleteUnusedImages(context.Context) error {
	*r = append(*r, "DeleteUnusedImages")
	return nil
}

func (r *reclaimCalls) DeleteAllUnusedContainers(context.Context) error {
	*r = append(*r, "DeleteAllUnusedContainers")
	return nil
}

// filesystems reads a disk layout: whether there is a dedicated image filesystem, and whether
// it is split from the container filesystem.
func filesystems(layout string) (withImageFs, split bool, err error) {
	switch layout {
	case "single":
		return false, false, nil
	case "dedicated":
		return true, false, nil
	case "split":
		return true, true, nil
	default:
		return false, false, fmt.Errorf("unknown disk layout %q", layout)
	}
}

// evictionHardInForce writes the configuration's evictionHard to a configuration file and
// loads it as the kubelet does.
func (s *session) evictionHardInForce() (map[string]string, error) {
	dir, err := os.MkdirTemp("", "kubegc-kubelet-config-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := map[string]any{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
	if c := s.settings.Config; c.EvictionHard != nil {
		file["evictionHard"] = c.EvictionHard
		file["mergeDefaultEvictionSettings"] = c.MergeDefaultEvictionSettings
	}
	text, err := json.Marshal(file)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(name, text, 0o600); err != nil {
		return nil, err
	}
	kc, err := app.KubegcLoadConfigFile(s.ctx, name)
	if err != nil {
		return nil, err
	}
	return kc.EvictionHard, nil
}

func (s *session) evictionOp(o op, ans *answer) error {
	switch o.Kind {
	case "reclaimFunctions":
		withImageFs, split, err := filesystems(o.Layout)
		if err != nil {
			return err
		}
		calls := reclaimCalls{}
		if err := eviction.KubegcReclaim(s.ctx, o.Signal, &calls, &calls, withImageFs, split); err != nil {
			return err
		}
		ans.ReclaimFunctions = calls
	case "evictionHardInForce":
		hard, err := s.evictionHardInForce()
		if err != nil {
			return err
		}
		ans.EvictionHard = hard
	}
	return nil
}
