"""One ``kubegc serve`` process and a client of it."""

import json
import os
import shutil
import subprocess
import tempfile

from kubernetes import client, config


class NotSettled(Exception):
    """The served cluster still had work to do when the timeout passed."""


def _binary():
    """The ``kubegc`` to run: ``$KUBEGC``, else the one on ``PATH``."""
    found = os.environ.get("KUBEGC") or shutil.which("kubegc")
    if not found:
        raise FileNotFoundError(
            "kubegc not found: set KUBEGC to its path or put it on PATH "
            "(cargo install --path harness, in kubegc's repository)"
        )
    return found


class Served:
    """A running ``kubegc serve``; ``stop()`` (or leaving a ``with`` block) ends it."""

    def __init__(self, process, directory, kubeconfig):
        self._process = process
        self._directory = directory
        #: The kubeconfig ``kubegc serve`` wrote: for kubectl or any other client.
        self.kubeconfig = kubeconfig
        #: A client of the served API, for the ``kubernetes`` package's typed and dynamic APIs.
        self.api_client = config.new_client_from_config(config_file=kubeconfig)

    @classmethod
    def start(cls, *args):
        """Starts ``kubegc serve`` with ``args`` added (``"--gc", "none"``, ``"--nodes", "2"``)
        and returns once it accepts connections."""
        directory = tempfile.TemporaryDirectory(prefix="kubegc-")
        kubeconfig = os.path.join(directory.name, "kubeconfig")
        command = [_binary(), "serve", "--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig, *args]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The first line says where it listens; the kubeconfig is written before it.
        first = process.stdout.readline()
        if "listening on" not in first:
            process.kill()
            _, err = process.communicate()
            directory.cleanup()
            raise RuntimeError(f"kubegc serve did not start: {first}{err}")
        return cls(process, directory, kubeconfig)

    def settle(self, timeout="30s"):
        """Returns once the garbage collector and every controller have seen every change and
        have nothing left to do; raises ``NotSettled`` (saying what is pending) if they still
        have when ``timeout`` (a Go duration) has passed."""
        request = self.api_client.param_serialize(
            method="GET", resource_path="/kubegc/v1/settle", query_params=[("timeout", timeout)],
            auth_settings=["BearerToken"],
        )
        response = self.api_client.call_api(*request)
        response.read()
        body = response.data.decode() if isinstance(response.data, bytes) else str(response.data)
        if response.status == 504:
            raise NotSettled(json.loads(body).get("message", body))
        if response.status != 200:
            raise RuntimeError(f"GET /kubegc/v1/settle answered {response.status}: {body}")

    def stop(self):
        """Stops the server and removes its kubeconfig."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self.api_client.close()
        self._directory.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
