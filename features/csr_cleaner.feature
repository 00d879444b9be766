@csr-cleaner
Feature: The CSR cleaner
  Certificate signing requests do not stay forever. kube-controller-manager's CSR cleaner (on
  by default) looks at every CertificateSigningRequest once an hour, the first time when it
  starts, and deletes a request that is:
  - approved and issued a certificate, its `Approved` condition last updated more than an hour
    ago;
  - denied, its `Denied` condition last updated more than an hour ago;
  - failed, its `Failed` condition last updated more than an hour ago;
  - pending — no condition at all — and created more than 24 hours ago;
  - approved with an issued certificate past its NotAfter, however young the request.
  "More than" is strict, and a condition without a `lastUpdateTime` is never old. A request
  approved but never issued a certificate matches none of these and stays. The API server
  fills a condition's missing `lastUpdateTime` when the `approval` or `status` subresource
  writes it, so the times here are when the scenario approved, denied or failed a request.
  (Upstream: pkg/controller/certificates/cleaner/cleaner.go — `handle`, `isIssuedPastDeadline`,
  `isDeniedPastDeadline`, `isFailedPastDeadline`, `isPendingPastDeadline`, `isIssuedExpired`,
  `isOlderThan` — and its test TestCleanerWithApprovedExpiredCSR; the condition times:
  `populateConditionTimestamps` in pkg/registry/certificates/certificates/strategy.go.)

  These rules take hours: the cleaner looks once an hour and its ages are an hour and a day, so
  every scenario needs a virtual clock (`@virtual-clock`) and runs in a cluster of its own, whose
  cleaner starts with it. On a real control plane they would take up to 25 hours of real time,
  so they are skipped on `--target upstream`. Upstream's unit test also has a case with the
  certificate "garbage", which the cleaner treats as issued but not expired; the API server
  refuses such a certificate (`validateCertificate`), so no client can set one up.

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-approved-not-passed-deadline)
  @upstream(TestCleanerWithApprovedExpiredCSR/delete-approved-passed-deadline)
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-approved-not-passed-deadline-unexpired)
  Scenario: An approved and issued request goes once its approval is more than an hour old
    Given a cluster of its own
    And a certificate signing request "r"
    And certificate signing request "r" is approved
    And certificate signing request "r" is issued a certificate that expires in 2117
    When 90 minutes pass
    Then CertificateSigningRequest "r" still exists
    When an hour passes
    Then CertificateSigningRequest "r" is gone

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/delete-approved-not-passed-deadline-expired)
  Scenario: An issued certificate past its NotAfter takes its request at the next look, however young
    Given a cluster of its own
    And a certificate signing request "r"
    And certificate signing request "r" is approved
    And certificate signing request "r" is issued a certificate that expired in 2017
    When an hour passes
    Then CertificateSigningRequest "r" is gone

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-approved-passed-deadline-not-issued)
  Scenario: An approved request never issued a certificate stays
    Given a cluster of its own
    And a certificate signing request "r"
    And certificate signing request "r" is approved
    And a certificate signing request "refused"
    And certificate signing request "refused" is denied
    When 3 hours pass
    Then CertificateSigningRequest "refused" is gone
    And CertificateSigningRequest "r" still exists

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-denied-not-passed-deadline)
  @upstream(TestCleanerWithApprovedExpiredCSR/delete-denied-passed-deadline)
  Scenario: A denied request goes once its denial is more than an hour old
    Given a cluster of its own
    And a certificate signing request "r"
    And certificate signing request "r" is denied
    When 90 minutes pass
    Then CertificateSigningRequest "r" still exists
    When an hour passes
    Then CertificateSigningRequest "r" is gone

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-failed-not-passed-deadline)
  @upstream(TestCleanerWithApprovedExpiredCSR/delete-failed-passed-deadline)
  Scenario: A failed request goes once its failure is more than an hour old, however old its approval
    Given a cluster of its own
    And a certificate signing request "r"
    And certificate signing request "r" is approved
    And 2 hours pass
    And certificate signing request "r" has failed
    When 90 minutes pass
    Then CertificateSigningRequest "r" still exists
    When an hour passes
    Then CertificateSigningRequest "r" is gone

  @virtual-clock @own-cluster
  @upstream(TestCleanerWithApprovedExpiredCSR/no-delete-pending-not-passed-deadline)
  @upstream(TestCleanerWithApprovedExpiredCSR/delete-pending-passed-deadline)
  Scenario: A request with no condition goes once it is more than a day old
    Given a cluster of its own
    And a certificate signing request "r"
    When 5 hours pass
    Then CertificateSigningRequest "r" still exists
    When 20 hours pass
    Then CertificateSigningRequest "r" is gone
