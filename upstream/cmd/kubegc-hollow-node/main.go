// Command kubegc-hollow-node runs one hollow node beside a control plane: the kubelet of the
// pinned release as Kubernetes' own scalability tests run it (kubemark's hollow kubelet,
// k8s.io/kubernetes/pkg/kubemark), on the fake CRI runtime of k8s.io/cri-client/pkg/fake.
//
// The kubelet's own code schedules nothing and runs no image: it admits the pods bound to its
// node, creates their sandboxes and containers through the CRI, restarts, kills and reports
// them, and registers and heartbeats its Node, as on any node. What a container's process
// does, which no image says here, follows kubegc's rule for commands (`kubegc program`): the
// hollow node asks the program named by --programs for each container it starts, and the fake
// runtime's container exits when and as the rule says (see programs.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	clientset "k8s.io/client-go/kubernetes"
	v1core "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	remote "k8s.io/cri-client/pkg"
	fakeremote "k8s.io/cri-client/pkg/fake"
	"k8s.io/klog/v2"
	cadvisortest "k8s.io/kubernetes/pkg/kubelet/cadvisor/testing"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubemark"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the node's identity (system:node:NAME in group system:nodes)")
	name := flag.String("name", "node-1", "the Node's name")
	port := flag.Int("port", 0, "port of the kubelet's server on 127.0.0.1 (required; each node needs its own)")
	maxPods := flag.Int("max-pods", 110, "pods the node admits")
	programs := flag.String("programs", "", "program that says what a container's command does: `PROGRAM program -- ARGV...` prints it as JSON (required)")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *port == 0 || *programs == "" {
		fmt.Fprintln(os.Stderr, "kubegc-hollow-node: --kubeconfig, --port and --programs are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *kubeconfig, *name, *port, *maxPods, *programs); err != nil {
		fmt.Fprintf(os.Stderr, "kubegc-hollow-node: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, name string, port, maxPods int, programs string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("cannot read the kubeconfig: %w", err)
	}
	config.UserAgent = "kubegc-hollow-node"
	client, err := clientset.NewForConfig(config)
	if err != nil {
		return err
	}
	flags, kubeletConfig := kubemark.GetHollowKubeletConfig(&kubemark.HollowKubeletOptions{
		NodeName: name, KubeletPort: port, MaxPods: maxPods, NodeLabels: map[string]string{},
	})
	// kubemark makes the kubelet's directory under /tmp, whatever $TMPDIR says; it goes when
	// the node stops.
	defer os.RemoveAll(flags.RootDirectory)
	// One host runs every hollow node: each keeps to loopback, its own port and its own
	// directory (kubemark's hollow nodes each have a pod of their own).
	kubeletConfig.Address = "127.0.0.1"
	kubeletConfig.ReadOnlyPort = 0
	kubeletConfig.HealthzPort = 0
	flags.CertDirectory = filepath.Join(flags.RootDirectory, "pki")
	// Cluster DNS as kubeadm sets it (the tenth address of the Service range): a pod with
	// the default dnsPolicy then gets no MissingClusterDNS warning, as on a real cluster.
	kubeletConfig.ClusterDNS = []string{"10.96.0.10"}
	kubeletConfig.ClusterDomain = "cluster.local"
	// The heartbeat's client gives up within a status period or lease, as kubemark's does.
	heartbeatConfig := *config
	heartbeatConfig.Timeout = min(kubeletConfig.NodeStatusUpdateFrequency.Duration, time.Duration(kubeletConfig.NodeLeaseDurationSeconds)*time.Second)
	heartbeatConfig.QPS = -1
	heartbeatClient, err := clientset.NewForConfig(&heartbeatConfig)
	if err != nil {
		return err
	}

	endpoint := "unix://" + filepath.Join(flags.RootDirectory, "runtime.sock")
	fake := fakeremote.NewFakeRemoteRuntime()
	if err := fake.Start(endpoint); err != nil {
		return fmt.Errorf("cannot start the fake runtime: %w", err)
	}
	defer fake.Stop()
	runtimeService, err := remote.NewRemoteRuntimeServiceBuilder().WithEndpoint(endpoint).WithConnectionTimeout(15 * time.Second).Build(ctx)
	if err != nil {
		return fmt.Errorf("cannot reach the fake runtime: %w", err)
	}
	processes := newProcesses(runtimeService, fake.RuntimeService, fake.ImageService, programs)
	go processes.forgetCalls(ctx)

	kubelet := kubemark.NewHollowKubelet(flags, kubeletConfig, client, heartbeatClient,
		&cadvisortest.Fake{NodeName: name}, fake.ImageService, processes, cm.NewStubContainerManager())
	// Events as a kubelet records them (kubemark's hollow kubelet records none): through a
	// client of their own, limited as the kubelet's configuration says.
	eventConfig := *config
	eventConfig.QPS = float32(kubeletConfig.EventRecordQPS)
	if eventConfig.QPS == 0 {
		eventConfig.QPS = -1
	}
	eventConfig.Burst = int(kubeletConfig.EventBurst)
	if kubelet.KubeletDeps.EventClient, err = v1core.NewForConfig(&eventConfig); err != nil {
		return err
	}
	kubelet.KubeletDeps.Recorder = nil
	go kubelet.Run(ctx)
	<-ctx.Done()
	return nil
}
