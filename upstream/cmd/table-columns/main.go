// Command table-columns prints the Table columns kube-apiserver answers `kubectl get` with: for
// each kind the pinned release's printers handle (k8s.io/kubernetes pkg/printers/internalversion,
// `AddHandlers`), its column definitions, by the internal Go type they print ("core.Secret"),
// and under "" the columns of the default table convertor (k8s.io/apiserver
// pkg/registry/rest/table.go) that serves the kinds with no printer. CustomResourceDefinitions have
// a convertor of their own (k8s.io/apiextensions-apiserver
// pkg/registry/customresourcedefinition/tableconvertor), under "apiextensions.CustomResourceDefinition".
// kubegc's fake API server reads the output, committed as src/apiserver/http/table_columns.json:
//
//	go run ./cmd/table-columns > ../src/apiserver/http/table_columns.json
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/printers/internalversion"
)

// collector keeps the columns each print function is registered with.
type collector map[string][]metav1.TableColumnDefinition

// TableHandler records the columns of the type printFunc prints (its lists are skipped).
func (c collector) TableHandler(columns []metav1.TableColumnDefinition, printFunc interface{}) error {
	printed := reflect.TypeOf(printFunc).In(0).Elem()
	name := printed.PkgPath()[strings.LastIndex(printed.PkgPath(), "/")+1:] + "." + printed.Name()
	if !strings.HasSuffix(printed.Name(), "List") {
		c[name] = columns
	}
	return nil
}

func main() {
	columns := collector{}
	internalversion.AddHandlers(columns)
	columns[""] = convertorColumns(rest.NewDefaultTableConvertor(schema.GroupResource{}), &metav1.PartialObjectMetadata{})
	columns["apiextensions.CustomResourceDefinition"] = convertorColumns(tableconvertor.New(), &apiextensions.CustomResourceDefinition{})
	out, err := json.Marshal(columns)
	if err != nil {
		fail(err)
	}
	// encoding/json sorts map keys, so the output is stable.
	fmt.Println(string(out))
}

// convertorColumns is the columns convertor answers with for object.
func convertorColumns(convertor rest.TableConvertor, object runtime.Object) []metav1.TableColumnDefinition {
	table, err := convertor.ConvertToTable(context.Background(), object, nil)
	if err != nil {
		fail(err)
	}
	return table.ColumnDefinitions
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "table-columns:", err)
	os.Exit(1)
}
