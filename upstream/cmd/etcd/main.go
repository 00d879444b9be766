// Command etcd is the etcd server of the version the pinned Kubernetes release is tested with.
//
// etcd publishes its server as a library but its command only from its root module, whose
// own replace lines keep it from being built as a dependency; this is that command's entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
