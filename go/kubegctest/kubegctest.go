// Package kubegctest runs kubegc's fake Kubernetes API server for a Go test: the API server
// with its garbage collector, the workload controllers and one node that runs pods (`kubegc
// serve`). Start hands back a *rest.Config for client-go or controller-runtime; Settle returns
// once the collector and the controllers have nothing left to do, so a test reads an outcome
// instead of sleeping for one.
//
// The kubegc binary is the one $KUBEGC names, else the one on PATH (`cargo install --path
// harness` in kubegc's repository).
package kubegctest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Server is a running `kubegc serve`, stopped when the test that started it ends.
type Server struct {
	// Config reaches the served API, with no client-side rate limit (client-go's default of 5
	// requests a second would make a test wait on itself).
	Config *rest.Config
	// Kubeconfig is the file `kubegc serve` wrote, for kubectl or any other client.
	Kubeconfig string
}

// Start runs `kubegc serve` on a free loopback port, with args added (`--gc`, `none`,
// `--nodes`, `2`, ...), and returns once it accepts connections.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	binary := os.Getenv("KUBEGC")
	if binary == "" {
		found, err := exec.LookPath("kubegc")
		if err != nil {
			t.Fatalf("kubegc not found: set KUBEGC to its path or put it on PATH: %v", err)
		}
		binary = found
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig}, args...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("kubegc serve: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("kubegc serve: %v", err)
	}
	t.Cleanup(func() { stop(cmd) })
	// The first line says where it listens; the kubeconfig is written before it.
	lines := bufio.NewReader(stdout)
	first, err := lines.ReadString('\n')
	if !strings.Contains(first, "listening on") {
		t.Fatalf("kubegc serve did not start: %q %v", first, err)
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("reading the kubeconfig of kubegc serve: %v", err)
	}
	config.QPS = -1
	return &Server{Config: config, Kubeconfig: kubeconfig}
}

// Settle returns nil once the garbage collector and every controller have seen every change
// and have nothing left to do, or an error saying what is still pending once timeout has
// passed.
func (s *Server) Settle(ctx context.Context, timeout time.Duration) error {
	clients, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	err = clients.Discovery().RESTClient().Get().AbsPath("/kubegc/v1/settle").Param("timeout", timeout.String()).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("kubegc serve did not settle: %w", err)
	}
	return nil
}

// stop ends `kubegc serve` as Ctrl-C would, and kills it if it lingers.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
