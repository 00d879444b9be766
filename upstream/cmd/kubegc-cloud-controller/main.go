// Command kubegc-cloud-controller runs the cloud node lifecycle controller of the pinned
// release (k8s.io/cloud-provider's controllers/nodelifecycle), as cloud-controller-manager
// runs it, over a fake cloud that a test controls through a JSON file (see cloud.go):
//
//	{"instances": {"node-1": "running", "node-2": "shutdown", "node-3": "gone"}}
//
// The controller looks only at Nodes whose Ready condition is not True: it deletes a Node
// whose instance is gone (recording a DeletingNode Event) and taints a Node whose instance is
// shut down with node.cloudprovider.kubernetes.io/shutdown:NoSchedule; it takes that taint
// off a Node that is Ready again. The controller records its Events to the API server itself.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/cloud-provider/controllers/nodelifecycle"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"
	"k8s.io/klog/v2"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the controller's identity (required; it must get, list, watch, patch and delete Nodes and create Events)")
	cloudFile := flag.String("cloud-file", "", "JSON file of the fake cloud's state, read again on every cloud call; no file means every instance runs (required)")
	period := flag.Duration("node-monitor-period", 5*time.Second, "how often the controller looks at the Nodes that are not Ready (cloud-controller-manager's default)")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *cloudFile == "" {
		fmt.Fprintln(os.Stderr, "kubegc-cloud-controller: --kubeconfig and --cloud-file are required")
		os.Exit(2)
	}
	if *period <= 0 {
		fmt.Fprintln(os.Stderr, "kubegc-cloud-controller: --node-monitor-period must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *kubeconfig, *cloudFile, *period); err != nil {
		fmt.Fprintf(os.Stderr, "kubegc-cloud-controller: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, cloudFile string, period time.Duration) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("cannot read the kubeconfig: %w", err)
	}
	config.UserAgent = "kubegc-cloud-controller"
	client, err := clientset.NewForConfig(config)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	// One worker, cloud-controller-manager's default (--concurrent-node-lifecycle-syncs).
	controller, err := nodelifecycle.NewCloudNodeLifecycleController(
		factory.Core().V1().Nodes(), client, &fakeCloud{path: cloudFile}, period, 1)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced && ctx.Err() == nil {
			return fmt.Errorf("cannot list %v", informer)
		}
	}
	klog.InfoS("Running the cloud node lifecycle controller", "cloudFile", cloudFile, "nodeMonitorPeriod", period)
	// Run makes its own event broadcaster, recording to the client's core v1 Events, and
	// returns when ctx is done.
	controller.Run(ctx, controllersmetrics.NewControllerManagerMetrics("kubegc-cloud-controller"))
	return nil
}
