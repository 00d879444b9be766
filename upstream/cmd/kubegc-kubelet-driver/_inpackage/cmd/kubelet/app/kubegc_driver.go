package app

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can load a configuration file as the kubelet does
// at its start.

import (
	"context"

	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

// KubegcLoadConfigFile loads the configuration file name as the kubelet does at its start
// (loadConfigFile): decoded, defaulted, and evictionHard defaulted when unset or merged with
// its defaults when mergeDefaultEvictionSettings says so.
func KubegcLoadConfigFile(ctx context.Context, name string) (*kubeletconfiginternal.KubeletConfiguration, error) {
	return loadConfigFile(ctx, name)
}
