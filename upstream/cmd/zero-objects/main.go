// Command zero-objects prints, for every built-in kind of the pinned release, the skeleton of
// its Go zero value as the API server's field manager sees it: the object that
// runtime.DefaultUnstructuredConverter makes of a new, empty object of the kind: the structs a
// Go value always holds, the nil slices, maps and pointers its encoding writes as null, and the
// zero values of scalars without omitempty.
//
// A create is recorded in managedFields as an Update from this object, so the fields it
// already holds are not "added" and get no "." of their own, and a scalar the create leaves at
// its zero value is not the creator's. kubegc's fake API server reads
// the output, committed as src/apiserver/apply/zero_objects.json:
//
//	go run ./cmd/zero-objects > ../src/apiserver/apply/zero_objects.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		fail(err)
	}
	out := map[string]interface{}{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			fail(err)
		}
		if _, isObject := obj.(metav1.Object); !isObject {
			continue
		}
		fields, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			fail(err)
		}
		out[gvk.GroupVersion().String()+" "+gvk.Kind] = fields
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println("{")
	for i, k := range keys {
		value, err := json.Marshal(out[k])
		if err != nil {
			fail(err)
		}
		comma := ","
		if i == len(keys)-1 {
			comma = ""
		}
		fmt.Printf("  %q: %s%s\n", k, value, comma)
	}
	fmt.Println("}")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "zero-objects:", err)
	os.Exit(1)
}
