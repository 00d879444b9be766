@fake-only @kubelet @kubelet-config
Feature: Kubelet garbage collection configuration
  The kubelet configuration file (`KubeletConfiguration`) sets image GC's thresholds and ages:
  `imageGCHighThresholdPercent` (default 85), `imageGCLowThresholdPercent` (default 80),
  `imageMinimumGCAge` (default 2m) and `imageMaximumGCAge` (default 0, disabled). Validation is
  stricter than the image GC manager's own check: the low threshold must be *below* the high one,
  so equal thresholds — and therefore a high threshold of 0 — are rejected here although the
  manager accepts them. A maximum age must be longer than the minimum age. A zero
  `imageMinimumGCAge` in a file is defaulted to 2m, so a file cannot ask for none. (Container
  GC has no configuration fields, only deprecated flags: see the container GC feature.)

  The model mirrors Kubernetes v1.37, the pinned release, and `kubegc run --kubelet upstream`
  runs these scenarios on the kubelet's own defaulting and validation code
  (`pkg/kubelet/apis/config/validation` and its test
  `TestValidateKubeletConfiguration`, whose errors are checked by substring; several errors are
  reported together as `[first, second]`).

  @upstream(TestValidateKubeletConfiguration/Success)
  Scenario: The defaults are valid
    When the kubelet configuration is validated
    Then it is accepted

  @upstream(TestValidateKubeletConfiguration/invalid-ImageGCHighThresholdPercent)
  Scenario: A high threshold above 100 is invalid
    Given the kubelet configuration sets imageGCHighThresholdPercent to 101
    When the kubelet configuration is validated
    Then it is rejected with an error containing "invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive"

  @upstream(TestValidateKubeletConfiguration/invalid-ImageGCLowThresholdPercent)
  Scenario: A negative low threshold is invalid
    Given the kubelet configuration sets imageGCLowThresholdPercent to -1
    When the kubelet configuration is validated
    Then it is rejected with an error containing "invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive"

  @upstream(TestValidateKubeletConfiguration/ImageGCLowThresholdPercent-is-equal-to-ImageGCHighThresholdPercent)
  Scenario: Equal thresholds are invalid — so a high threshold of 0 can never be configured
    Given the kubelet configuration sets imageGCHighThresholdPercent to 0
    And the kubelet configuration sets imageGCLowThresholdPercent to 0
    When the kubelet configuration is validated
    Then it is rejected with an error containing "imageGCLowThresholdPercent (--image-gc-low-threshold) 0 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 0"

  @upstream(TestValidateKubeletConfiguration/ImageGCLowThresholdPercent-is-greater-than-ImageGCHighThresholdPercent)
  Scenario: A low threshold above the high one is invalid
    Given the kubelet configuration sets imageGCHighThresholdPercent to 0
    And the kubelet configuration sets imageGCLowThresholdPercent to 1
    When the kubelet configuration is validated
    Then it is rejected with an error containing "imageGCLowThresholdPercent (--image-gc-low-threshold) 1 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 0"

  # Upstream's test still checks that imageMaximumGCAge needs the ImageMaximumGCAge gate, but the
  # gate is GA and locked on since v1.35 (pkg/features/kube_features.go), so a kubelet can no
  # longer turn it off and the rule never fires: the kubelet's own feature gate refuses first.
  @upstream(TestValidateKubeletConfiguration/imageMaximumGCAge-should-not-be-specified-without-feature-gate)
  Scenario: The ImageMaximumGCAge feature gate is locked on, so a maximum image age never lacks it
    When the feature gate ImageMaximumGCAge is turned off
    Then it is rejected with "cannot set feature gate ImageMaximumGCAge to false, feature is locked to true"
    Given the kubelet configuration sets imageMaximumGCAge to 1h
    When the kubelet configuration is validated
    Then it is accepted

  @upstream(TestValidateKubeletConfiguration/imageMaximumGCAge-should-not-be-negative)
  Scenario: A negative maximum image age is invalid
    Given the kubelet configuration sets imageMaximumGCAge to -1ns
    When the kubelet configuration is validated
    Then it is rejected with an error containing "invalid configuration: imageMaximumGCAge -1ns must not be negative"

  @upstream(TestValidateKubeletConfiguration/imageMaximumGCAge-should-not-be-less-than-imageMinimumGCAge)
  Scenario: A maximum image age not longer than the minimum age is invalid
    Given the kubelet configuration sets imageMaximumGCAge to 1ns
    And the kubelet configuration sets imageMinimumGCAge to 2ns
    When the kubelet configuration is validated
    Then it is rejected with an error containing "invalid configuration: imageMaximumGCAge 1ns must be greater than imageMinimumGCAge 2ns"

  Scenario: Equal thresholds at 80% are invalid too, although the image GC manager would accept them
    Given the kubelet configuration sets imageGCHighThresholdPercent to 80
    And the kubelet configuration sets imageGCLowThresholdPercent to 80
    When the kubelet configuration is validated
    Then it is rejected with "invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 80 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 80"

  Scenario: A negative minimum image age is invalid
    Given the kubelet configuration sets imageMinimumGCAge to -1s
    When the kubelet configuration is validated
    Then it is rejected with "invalid configuration: imageMinimumGCAge -1s must not be negative"

  Scenario: A configuration file cannot ask for no minimum image age: 0 becomes 2m
    Given a kubelet configuration file setting imageMinimumGCAge to 0s
    When the configuration file is loaded
    Then the kubelet configuration has imageMinimumGCAge 2m0s
    And the kubelet configuration has imageGCHighThresholdPercent 85
    And the kubelet configuration has imageGCLowThresholdPercent 80
    And the kubelet configuration has imageMaximumGCAge 0s
