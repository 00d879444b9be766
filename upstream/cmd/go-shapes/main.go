// Command go-shapes prints, for every built-in kind of the pinned release, how its Go type
// decodes and encodes JSON: for each struct type reachable from a kind, each field's JSON
// name, whether its tag says omitempty or omitzero, and its shape. kube-apiserver decodes every
// request body into these types and encodes every answer from them, so a null it was sent is
// dropped or kept, an empty list dropped or kept, and a missing field written as its zero
// value, by these rules.
// kubegc's fake API server reads the output, committed as src/apiserver/schema/go_shapes.json:
//
//	go run ./cmd/go-shapes > ../src/apiserver/schema/go_shapes.json
//
// A shape is written as a string:
//
//	s:ZERO   a scalar (string, number, bool) whose zero value is the JSON ZERO
//	o:ZERO   a type with its own JSON encoding (times, quantities, int-or-strings, raw JSON),
//	         kept as sent, whose zero value encodes as the JSON ZERO
//	b        a []byte (a base64 string)
//	p:SHAPE  a pointer
//	l:SHAPE  a slice
//	m:SHAPE  a map with string keys
//	t:NAME   a struct, described under NAME in "types"
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// field is one JSON field of a struct: the options of its tag that decide when it is left out
// ("omitempty", "omitzero", both comma-separated, or none), and its shape.
type field [2]string

var (
	types     = map[string]map[string]field{}
	marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

func main() {
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		fail(err)
	}
	kinds := map[string]string{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if _, isObject := reflect.New(t).Interface().(metav1.Object); !isObject {
			continue
		}
		kinds[gvk.GroupVersion().String()+" "+gvk.Kind] = strings.TrimPrefix(shape(t), "t:")
	}
	out, err := json.Marshal(map[string]interface{}{"kinds": kinds, "types": types})
	if err != nil {
		fail(err)
	}
	// encoding/json sorts map keys, so the output is stable.
	fmt.Println(string(out))
}

// shape describes how values of type t decode and encode.
func shape(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "p:" + shape(t.Elem())
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		zero, err := json.Marshal(reflect.New(t).Interface())
		if err != nil {
			fail(err)
		}
		return "o:" + string(zero)
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "b"
		}
		return "l:" + shape(t.Elem())
	case reflect.Map:
		return "m:" + shape(t.Elem())
	case reflect.Struct:
		name := strings.TrimPrefix(t.PkgPath(), "k8s.io/") + "." + t.Name()
		if _, seen := types[name]; !seen {
			fields := map[string]field{}
			types[name] = fields
			addFields(t, fields)
		}
		return "t:" + name
	case reflect.Interface:
		return "o:null"
	default:
		zero, err := json.Marshal(reflect.Zero(t).Interface())
		if err != nil {
			fail(err)
		}
		return "s:" + string(zero)
	}
}

// addFields adds the JSON fields of struct t to fields, those of inlined structs too.
func addFields(t reflect.Type, fields map[string]field) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" || strings.Contains(","+options+",", ",inline,") {
			addFields(f.Type, fields)
			continue
		}
		if name == "" {
			name = f.Name
		}
		var omit []string
		for _, option := range []string{"omitempty", "omitzero"} {
			if strings.Contains(","+options+",", ","+option+",") {
				omit = append(omit, option)
			}
		}
		fields[name] = field{strings.Join(omit, ","), shape(f.Type)}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go-shapes:", err)
	os.Exit(1)
}
