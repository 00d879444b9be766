// Command bootstrap-rbac prints the RBAC objects kube-apiserver of the pinned release creates
// when it starts (the rbac/bootstrap-roles post-start hook of
// pkg/registry/rbac/rest/storage_rbac.go): the cluster roles and controller roles, their
// bindings, and the roles and bindings of kube-system and kube-public, in the order the hook
// creates them, one JSON object per line. kubegc's fake API server creates the same objects at
// start; the output is committed as src/apiserver/storage/bootstrap_rbac.jsonl:
//
//	go run ./cmd/bootstrap-rbac > ../src/apiserver/storage/bootstrap_rbac.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

func main() {
	for _, role := range append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...) {
		emit("ClusterRole", &role)
	}
	for _, binding := range append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...) {
		emit("ClusterRoleBinding", &binding)
	}
	// The hook walks these maps by namespace; their order is Go's map order, so sorted here.
	roles := bootstrappolicy.NamespaceRoles()
	for _, namespace := range sortedKeys(roles) {
		for _, role := range roles[namespace] {
			role.Namespace = namespace
			emit("Role", &role)
		}
	}
	bindings := bootstrappolicy.NamespaceRoleBindings()
	for _, namespace := range sortedKeys(bindings) {
		for _, binding := range bindings[namespace] {
			binding.Namespace = namespace
			emit("RoleBinding", &binding)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// emit writes obj as the body of a create: apiVersion and kind set, no creationTimestamp.
func emit(kind string, obj runtime.Object) {
	fields, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		fail(err)
	}
	fields["apiVersion"] = rbacv1.SchemeGroupVersion.String()
	fields["kind"] = kind
	if meta, ok := fields["metadata"].(map[string]interface{}); ok {
		delete(meta, "creationTimestamp")
	}
	line, err := json.Marshal(fields)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(line))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bootstrap-rbac:", err)
	os.Exit(1)
}
