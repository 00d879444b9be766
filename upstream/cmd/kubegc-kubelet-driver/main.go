// Command kubegc-kubelet-driver drives the kubelet's own garbage collection code — the image
// garbage collector (pkg/kubelet/images), the container, sandbox and log collector
// (pkg/kubelet/kuberuntime), the eviction manager (pkg/kubelet/eviction) and the
// KubeletConfiguration defaulting and validation — over fakes, as upstream's unit tests do, so
// that kubegc can judge its Rust model of the kubelet against the real thing.
//
// It reads one JSON request a line on standard input and answers each with one JSON line on
// standard output (see wire.go). A request carries the whole fake node (runtime, disks, pods,
// logs, the clock) and one operation; the answer carries the node afterwards and what the
// kubelet's code made of it. The collectors live for the whole session, so their memory (image
// records, pressure transitions) carries from one request to the next, as in a running kubelet.
//
// The session runs inside a testing/synctest bubble, so time.Now is a fake clock: before each
// operation the bubble's clock is moved forward to the node's clock.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"testing/synctest"
)

func main() {
	// One processor: the kubelet's loops act on one fake node, one at a time, and loops due at
	// the same instant run in a repeatable order.
	runtime.GOMAXPROCS(1)
	testing.Init()
	testing.Main(func(string, string) (bool, error) { return true, nil }, []testing.InternalTest{{Name: "Session", F: func(t *testing.T) {
		synctest.Test(t, func(*testing.T) { serve() })
	}}}, nil, nil)
}

// serve answers requests until standard input ends, then exits the process (the kubelet's
// loops would otherwise keep the bubble alive).
func serve() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	s := newSession()
	for in.Scan() {
		var req request
		var ans answer
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			ans = answer{Fault: fmt.Sprintf("cannot read the request: %v", err)}
		} else {
			ans = s.handle(&req)
		}
		if err := out.Encode(ans); err != nil {
			fmt.Fprintf(os.Stderr, "cannot write an answer: %v\n", err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}
