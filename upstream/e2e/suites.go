// Package e2e is Kubernetes' own end-to-end test binary of the pinned release, limited to the
// suites `kubegc e2e` runs. This file names the suites (a non-test file, so that `go build -v`
// of the package compiles them with progress before `go test -c` links the binary); e2e_test.go
// is the test binary's entry.
package e2e

import (
	// The suites: apimachinery (which imports apps), the common node tests (pods, pod
	// templates, config maps), instrumentation (events) and network (services, endpoints).
	_ "k8s.io/kubernetes/test/e2e/apimachinery"
	_ "k8s.io/kubernetes/test/e2e/common/node"
	_ "k8s.io/kubernetes/test/e2e/instrumentation"
	_ "k8s.io/kubernetes/test/e2e/network"

	// What a failed test dumps about the cluster.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
)
