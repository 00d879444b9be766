// Command proto-shapes prints, for every kind of the pinned release's client scheme (lists and
// meta.k8s.io's Status too), how its Go type is written as Kubernetes protobuf: for each struct
// type reachable from a kind, each field's protobuf field number, its JSON name ("" for a struct
// embedded without one, such as a Volume's VolumeSource, written as a message of its own) and its
// shape. kube-apiserver answers a client that asks for application/vnd.kubernetes.protobuf by
// marshalling these types with their generated code (generated.pb.go); kubegc's fake API server
// writes the same bytes from its JSON objects by these rules. The output is committed as
// src/apiserver/protobuf/proto_shapes.json:
//
//	go run ./cmd/proto-shapes > ../src/apiserver/protobuf/proto_shapes.json
//
// A shape is written as a string:
//
//	i        a signed or unsigned integer (a varint)
//	B        a bool (a varint)
//	f        a float64 (eight bytes, little-endian)
//	s        a string
//	b        a []byte
//	n:NAME   a type with its own JSON and protobuf forms (times, quantities, int-or-strings, raw
//	         JSON, the apiextensions JSON schema unions), by its Go name
//	p:SHAPE  a pointer: written only when set
//	l:SHAPE  a slice: one field per item
//	m:SHAPE  a map with string keys: one {1: key, 2: value} entry per key, in key order
//	t:NAME   a struct, written as a message, described under NAME in "types"
//
// The generated code writes every field that is not a pointer, a slice or a map, zero or not.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// field is one protobuf field of a struct: its number, its JSON name and its shape.
type field struct {
	Number int    `json:"n"`
	JSON   string `json:"j"`
	Shape  string `json:"s"`
}

var (
	types     = map[string][]field{}
	marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

func main() {
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		fail(err)
	}
	kinds := map[string]string{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.Kind() != reflect.Struct {
			continue
		}
		if s := shape(t); strings.HasPrefix(s, "t:") && len(types[strings.TrimPrefix(s, "t:")]) > 0 {
			kinds[gvk.GroupVersion().String()+" "+gvk.Kind] = strings.TrimPrefix(s, "t:")
		}
	}
	out, err := json.Marshal(map[string]interface{}{"kinds": kinds, "types": types})
	if err != nil {
		fail(err)
	}
	// encoding/json sorts map keys, so the output is stable.
	fmt.Println(string(out))
}

// name is a named type's name as the output knows it.
func name(t reflect.Type) string {
	return strings.TrimPrefix(t.PkgPath(), "k8s.io/") + "." + t.Name()
}

// shape describes how values of type t are written as protobuf.
func shape(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "p:" + shape(t.Elem())
	case reflect.Bool:
		return "B"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "i"
	case reflect.Float32, reflect.Float64:
		return "f"
	case reflect.String:
		return "s"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "b"
		}
		if t.Name() != "" {
			// go-to-protobuf writes a named slice (metav1.Verbs, authenticationv1.ExtraValue)
			// as a message of its own whose field 1 holds the items, unless a field's tag
			// makes it repeated (see fields).
			return "w:" + shape(t.Elem())
		}
		return "l:" + shape(t.Elem())
	case reflect.Map:
		return "m:" + shape(t.Elem())
	case reflect.Struct:
		if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
			return "n:" + name(t)
		}
		n := name(t)
		if _, seen := types[n]; !seen {
			types[n] = nil
			types[n] = fields(t)
		}
		return "t:" + n
	}
	return "?"
}

// fields are the protobuf fields of struct t, in field number order.
func fields(t reflect.Type) []field {
	out := []field{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if !f.IsExported() || tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		number, err := strconv.Atoi(parts[1])
		if err != nil {
			fail(fmt.Errorf("%s.%s: protobuf tag %q", name(t), f.Name, tag))
		}
		jsonName, options, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.Contains(","+options+",", ",inline,") || f.Anonymous && jsonName == "" {
			jsonName = ""
		}
		s := shape(f.Type)
		if parts[0] == "bytes" && parts[2] == "rep" && strings.HasPrefix(s, "w:") {
			// A named slice the tag makes repeated is written item by item after all
			// (apiextensions ValidationRules).
			s = "l:" + strings.TrimPrefix(s, "w:")
		}
		out = append(out, field{number, jsonName, s})
	}
	// The generated code writes fields by number, whatever order the struct declares them in.
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "proto-shapes:", err)
	os.Exit(1)
}
