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
//	o:ZERO   a type with its own JSON encoding (quantities, raw JSON), kept as sent, whose zero
//	         value encodes as the JSON ZERO
//	u:ZERO   the same, of a type server-side apply takes as any scalar (times, int-or-strings)
//	b        a []byte (a base64 string)
//	p:SHAPE  a pointer
//	l:SHAPE  a slice
//	m:SHAPE  a map with string keys
//	t:NAME   a struct, described under NAME in "types"
//
// Each field also says how server-side apply merges it, as the OpenAPI definitions kube-apiserver
// builds its field management from say (the `+listType`, `+listMapKey`, `+mapType` markers of
// the Go types): "" (granular, or a list that is atomic by default), "atomic", "set", or
// "map:KEY,KEY=DEFAULT" (a list of items told apart by those fields, a key with its JSON default).
// "atomic" lists the structs that are replaced whole (`+structType=atomic`). "named" gives, for each
// struct under its name in "types", the Go names of the named scalar types its fields hold
// (`types.UID`, `v1.PullPolicy`), as Go's decoding errors name them. "micro" lists, for each
// struct, its fields of type `metav1.MicroTime` (through a pointer), which decode with a layout
// of their own (`metav1.RFC3339Micro`).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	kubeopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// field is one JSON field of a struct: the options of its tag that decide when it is left out
// ("omitempty", "omitzero", both comma-separated, or none), its shape and how apply merges it.
type field [3]string

// modelNamed is a type that names its OpenAPI definition.
type modelNamed interface{ OpenAPIModelName() string }

var (
	types     = map[string]map[string]field{}
	atomic    = []string{}
	named     = map[string]map[string]string{}
	micro     = map[string][]string{}
	microTime = reflect.TypeOf(metav1.MicroTime{})
	marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	byName    = func(name string) spec.Ref { return spec.MustCreateRef(name) }
	models    = map[string]common.OpenAPIDefinition{}
)

func main() {
	for _, definitions := range []map[string]common.OpenAPIDefinition{kubeopenapi.GetOpenAPIDefinitions(byName), apiextensionsopenapi.GetOpenAPIDefinitions(byName)} {
		for name, definition := range definitions {
			models[name] = definition
		}
	}
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
	sort.Strings(atomic)
	out, err := json.Marshal(map[string]interface{}{"kinds": kinds, "types": types, "atomic": atomic, "named": named, "micro": micro})
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
		if untypedScalar(t) {
			return "u:" + string(zero)
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
		name := typeName(t)
		if _, seen := types[name]; !seen {
			fields := map[string]field{}
			types[name] = fields
			model := model(t)
			if model.Extensions["x-kubernetes-map-type"] == "atomic" {
				atomic = append(atomic, name)
			}
			addFields(t, name, model, fields)
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

// schemaTyped is a type that names its OpenAPI type and format itself.
type schemaTyped interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

// untypedScalar says whether server-side apply takes any scalar, and no map or list, for type
// t with its own JSON encoding: a string of a format (a time, an int-or-string), which
// kube-openapi's schemaconv (`convertPrimitive`) makes an untyped scalar.
func untypedScalar(t reflect.Type) bool {
	typed, ok := reflect.New(t).Interface().(schemaTyped)
	if !ok {
		return false
	}
	types, format := typed.OpenAPISchemaType(), typed.OpenAPISchemaFormat()
	return len(types) == 1 && types[0] == "string" && format != "" && format != "byte"
}

// model is the OpenAPI definition of struct t (empty for a type with none).
func model(t reflect.Type) spec.Schema {
	named, ok := reflect.New(t).Interface().(modelNamed)
	if !ok {
		return spec.Schema{}
	}
	return models[named.OpenAPIModelName()].Schema
}

// merge says how apply merges the property of a definition.
func merge(property spec.Schema) string {
	if property.Extensions["x-kubernetes-map-type"] == "atomic" {
		return "atomic"
	}
	switch property.Extensions["x-kubernetes-list-type"] {
	case "set":
		return "set"
	case "map":
		var keys []string
		for _, key := range property.Extensions["x-kubernetes-list-map-keys"].([]interface{}) {
			key := key.(string)
			if def := defaultOf(property.Items.Schema, key); def != "" {
				key += "=" + def
			}
			keys = append(keys, key)
		}
		return "map:" + strings.Join(keys, ",")
	}
	return ""
}

// defaultOf is the default of field key of the items of a list (their definition's when they
// are a reference), as JSON, or "" for none.
func defaultOf(item *spec.Schema, key string) string {
	if ref := item.Ref.String(); ref != "" {
		definition := models[ref].Schema
		item = &definition
	}
	def := item.Properties[key].Default
	if def == nil {
		return ""
	}
	text, err := json.Marshal(def)
	if err != nil {
		fail(err)
	}
	return string(text)
}

// addFields adds the JSON fields of struct t (with OpenAPI definition model) to fields, those
// of inlined structs too, and their named scalar types and micro times to those of struct owner.
func addFields(t reflect.Type, owner string, model spec.Schema, fields map[string]field) {
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
			addFields(f.Type, owner, model, fields)
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
		fields[name] = field{strings.Join(omit, ","), shape(f.Type), merge(model.Properties[name])}
		if f.Type == microTime || f.Type.Kind() == reflect.Pointer && f.Type.Elem() == microTime {
			micro[owner] = append(micro[owner], name)
		}
		if scalar := namedScalar(f.Type); scalar != "" {
			if named[owner] == nil {
				named[owner] = map[string]string{}
			}
			named[owner][name] = scalar
		}
	}
}

// typeName is how the output names struct t: its package path after k8s.io/, and its name.
func typeName(t reflect.Type) string {
	return strings.TrimPrefix(t.PkgPath(), "k8s.io/") + "." + t.Name()
}

// namedScalar is the Go name of the named scalar type t holds (through pointers, slices and
// maps), or "" if its scalars are plain strings, numbers and bools or t holds none.
func namedScalar(t reflect.Type) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.PkgPath() == "" || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return ""
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64:
		return t.String()
	}
	return ""
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go-shapes:", err)
	os.Exit(1)
}
