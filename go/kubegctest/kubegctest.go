// Package kubegctest runs kubegc's fake Kubernetes API server for a Go test: the API server
// with its garbage collector, the workload controllers and one node that runs pods (`kubegc
// serve`). Start hands back a *rest.Config for client-go or controller-runtime; Settle returns
// once the collector and the controllers have nothing left to do, so a test reads an outcome
// instead of sleeping for one. StartGC adds kubegc's garbage collector to another API server,
// such as envtest's, which has none.
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
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	first := run(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig}, args...)...)
	// The first line says where it listens; the kubeconfig is written before it.
	if !strings.Contains(first, "listening on") {
		t.Fatalf("kubegc serve did not start: %q", first)
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("reading the kubeconfig of kubegc serve: %v", err)
	}
	config.QPS = -1
	return &Server{Config: config, Kubeconfig: kubeconfig}
}

// run starts kubegc with args, stopped when the test ends, and returns the first line it
// prints (the rest is read and dropped).
func run(t testing.TB, args ...string) string {
	t.Helper()
	binary := os.Getenv("KUBEGC")
	if binary == "" {
		found, err := exec.LookPath("kubegc")
		if err != nil {
			t.Fatalf("kubegc not found: set KUBEGC to its path or put it on PATH: %v", err)
		}
		binary = found
	}
	cmd := exec.Command(binary, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("kubegc %s: %v", args[0], err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("kubegc %s: %v", args[0], err)
	}
	t.Cleanup(func() { stop(cmd) })
	lines := bufio.NewReader(stdout)
	first, _ := lines.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	return first
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

// StartGC runs kubegc's reference garbage collector (`kubegc gc`) against the API server
// config reaches — envtest's, say, which has no controller manager and so collects no
// garbage — and stops it when the test ends.
func StartGC(t testing.TB, config *rest.Config) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	file := clientcmdapi.NewConfig()
	file.Clusters["target"] = &clientcmdapi.Cluster{Server: config.Host, CertificateAuthorityData: config.CAData, InsecureSkipTLSVerify: config.Insecure}
	file.AuthInfos["gc"] = &clientcmdapi.AuthInfo{ClientCertificateData: config.CertData, ClientKeyData: config.KeyData, Token: config.BearerToken}
	file.Contexts["target"] = &clientcmdapi.Context{Cluster: "target", AuthInfo: "gc"}
	file.CurrentContext = "target"
	if err := clientcmd.WriteToFile(*file, kubeconfig); err != nil {
		t.Fatalf("writing a kubeconfig for kubegc gc: %v", err)
	}
	first := run(t, "gc", "--kubeconfig", kubeconfig)
	if !strings.Contains(first, "garbage collector running against") {
		t.Fatalf("kubegc gc did not start: %q", first)
	}
}
