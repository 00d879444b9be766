package kubegctest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubegc/kubegc/go/kubegctest"
)

// A controller author's test: a Deployment's pods run, and go with it.
func TestADeploymentRunsItsPodsAndTakesThemWhenDeleted(t *testing.T) {
	ctx := context.Background()
	server := kubegctest.Start(t)
	clients := kubernetes.NewForConfigOrDie(server.Config)
	labels := map[string]string{"app": "web"}
	replicas := int32(3)
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := clients.AppsV1().Deployments("default").Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := server.Settle(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	pods, err := clients.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("%d pods, expected 3", len(pods.Items))
	}
	for _, pod := range pods.Items {
		if pod.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s is %s, expected Running", pod.Name, pod.Status.Phase)
		}
	}
	background := metav1.DeletePropagationBackground
	if err := clients.AppsV1().Deployments("default").Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	if err := server.Settle(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	pods, err = clients.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 0 {
		t.Fatalf("%d pods left after the Deployment's deletion", len(pods.Items))
	}
}

// Settle waits for the garbage collector: a thousand dependents are gone when it returns.
func TestAThousandDependentsAreCollectedBeforeSettleReturns(t *testing.T) {
	ctx := context.Background()
	server := kubegctest.Start(t)
	configMaps := kubernetes.NewForConfigOrDie(server.Config).CoreV1().ConfigMaps("default")
	owner, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reference := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}
	for i := range 1000 {
		child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("child-%d", i), OwnerReferences: []metav1.OwnerReference{reference}}}
		if _, err := configMaps.Create(ctx, child, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := configMaps.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := server.Settle(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	left, err := configMaps.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 1 || left.Items[0].Name != "kube-root-ca.crt" {
		t.Fatalf("%d ConfigMaps left, expected only kube-root-ca.crt", len(left.Items))
	}
}
