package kubegctest_test

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kubegc/kubegc/go/kubegctest"
)

// The envtest recipe: envtest's kube-apiserver has no controller manager, so nothing
// collects garbage there until kubegc gc runs beside it. KUBEBUILDER_ASSETS names the
// directory with etcd and kube-apiserver (kubegc's CI builds them from the pinned release).
func TestEnvtestCollectsGarbageWithKubegcGC(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS names no envtest binaries")
	}
	env := &envtest.Environment{}
	config, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	kubegctest.StartGC(t, config)

	ctx := context.Background()
	configMaps := kubernetes.NewForConfigOrDie(config).CoreV1().ConfigMaps("default")
	owner, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A foreground owner waits only for dependents whose reference blocks its deletion
	// (upstream garbagecollector.go, processDeletingDependentsItem); without
	// blockOwnerDeletion the owner may go before its child, which is collected after it.
	block := true
	reference := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID, BlockOwnerDeletion: &block}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: []metav1.OwnerReference{reference}}}
	if _, err := configMaps.Create(ctx, child, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	foreground := metav1.DeletePropagationForeground
	if err := configMaps.Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
		t.Fatal(err)
	}
	// The collector deletes the child, then lets the owner go (foreground deletion).
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := configMaps.Get(ctx, "owner", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("the owner was not deleted in the foreground: %v", err)
	}
	if _, err := configMaps.Get(ctx, "child", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the child outlived its owner's foreground deletion: %v", err)
	}
}
