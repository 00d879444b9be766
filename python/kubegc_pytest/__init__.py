"""kubegc's fake Kubernetes API server for Python tests.

``Served.start()`` runs ``kubegc serve`` on a free loopback port (the reference garbage
collector, the workload controllers and one node beside it) and hands back its kubeconfig, a
``kubernetes.client.ApiClient`` for it, and ``settle()``, which returns once the collector and
the controllers have nothing left to do. The pytest fixture ``kubegc`` (see ``plugin``) gives a
test one of its own.
"""

from .served import NotSettled, Served

__all__ = ["NotSettled", "Served"]
