package main

// The KubeletConfiguration's defaulting (pkg/kubelet/apis/config/v1beta1) and validation
// (pkg/kubelet/apis/config/validation), as the kubelet applies them to its configuration file.

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"

	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	configvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
)

// defaulted is a configuration file with the given fields after the kubelet's defaulting,
// converted to the internal form the kubelet runs with.
func defaulted(file configFile) (*kubeletconfig.KubeletConfiguration, error) {
	scheme, _, err := kubeletscheme.NewSchemeAndCodecs()
	if err != nil {
		return nil, err
	}
	external := &kubeletconfigv1beta1.KubeletConfiguration{}
	if file.ImageGCHighThresholdPercent != nil {
		external.ImageGCHighThresholdPercent = ptr.To(int32(*file.ImageGCHighThresholdPercent))
	}
	if file.ImageGCLowThresholdPercent != nil {
		external.ImageGCLowThresholdPercent = ptr.To(int32(*file.ImageGCLowThresholdPercent))
	}
	if file.ImageMinimumGCAge != nil {
		external.ImageMinimumGCAge = metav1.Duration{Duration: time.Duration(*file.ImageMinimumGCAge)}
	}
	if file.ImageMaximumGCAge != nil {
		external.ImageMaximumGCAge = metav1.Duration{Duration: time.Duration(*file.ImageMaximumGCAge)}
	}
	scheme.Default(external)
	internal := &kubeletconfig.KubeletConfiguration{}
	if err := scheme.Convert(external, internal, nil); err != nil {
		return nil, fmt.Errorf("cannot convert the configuration: %w", err)
	}
	return internal, nil
}

func (s *session) configOp(o op, ans *answer) error {
	switch o.Kind {
	case "validateConfig":
		// The defaults, with the fields the scenario set as they reach validation.
		kc, err := defaulted(configFile{})
		if err != nil {
			return err
		}
		c := s.settings.Config
		kc.ImageGCHighThresholdPercent = int32(c.ImageGCHighThresholdPercent)
		kc.ImageGCLowThresholdPercent = int32(c.ImageGCLowThresholdPercent)
		kc.ImageMinimumGCAge = metav1.Duration{Duration: time.Duration(c.ImageMinimumGCAge)}
		kc.ImageMaximumGCAge = metav1.Duration{Duration: time.Duration(c.ImageMaximumGCAge)}
		// The scenario's node is not the machine the driver runs on: validation would also
		// judge that machine's cgroup version (validation_linux.go), which is no part of the
		// scenario, so the configuration allows either.
		kc.FailCgroupV1 = false
		ans.Validation = &validation{Error: errorText(configvalidation.ValidateKubeletConfiguration(kc, utilfeature.DefaultFeatureGate))}
	case "loadConfigFile":
		kc, err := defaulted(s.settings.ConfigFile)
		if err != nil {
			return err
		}
		ans.Config = &kubeletConfig{
			ImageGCHighThresholdPercent: int(kc.ImageGCHighThresholdPercent),
			ImageGCLowThresholdPercent:  int(kc.ImageGCLowThresholdPercent),
			ImageMinimumGCAge:           int64(kc.ImageMinimumGCAge.Duration),
			ImageMaximumGCAge:           int64(kc.ImageMaximumGCAge.Duration),
		}
	}
	return nil
}
