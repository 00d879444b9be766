package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

// The states an instance can be in, as the cloud file names them.
const (
	running  = "running"
	shutdown = "shutdown"
	gone     = "gone"
)

// cloudFile is the fake cloud's state: each listed node's instance and its state. A node not
// listed, or no file at all, has an instance that runs.
type cloudFile struct {
	Instances map[string]string `json:"instances"`
}

// fakeCloud is a cloud whose instances are what its file says when it is asked: the file is
// read again on every call, so a test changes the cloud by replacing the file.
type fakeCloud struct {
	path string
}

var (
	_ cloudprovider.Interface   = (*fakeCloud)(nil)
	_ cloudprovider.InstancesV2 = (*fakeCloud)(nil)
)

// state is the state of the node's instance. A file that cannot be read or does not say one of
// the three states is an error, logged here; the controller then leaves the node for this round.
func (c *fakeCloud) state(node *v1.Node) (string, error) {
	data, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return running, nil
	}
	if err != nil {
		klog.ErrorS(err, "Cannot read the cloud file", "path", c.path)
		return "", err
	}
	var file cloudFile
	if err := json.Unmarshal(data, &file); err != nil {
		err = fmt.Errorf("the cloud file %s is not valid JSON: %w", c.path, err)
		klog.ErrorS(err, "Cannot read the cloud file", "path", c.path)
		return "", err
	}
	state, ok := file.Instances[node.Name]
	if !ok {
		return running, nil
	}
	switch state {
	case running, shutdown, gone:
		return state, nil
	}
	err = fmt.Errorf("the cloud file %s gives node %s the state %q; the states are running, shutdown and gone", c.path, node.Name, state)
	klog.ErrorS(err, "Cannot read the cloud file", "path", c.path)
	return "", err
}

// InstanceExists is false only for an instance that is gone.
func (c *fakeCloud) InstanceExists(_ context.Context, node *v1.Node) (bool, error) {
	state, err := c.state(node)
	if err != nil {
		return false, err
	}
	klog.V(4).InfoS("Cloud call", "call", "InstanceExists", "node", node.Name, "state", state)
	return state != gone, nil
}

// InstanceShutdown is true only for an instance that is shut down.
func (c *fakeCloud) InstanceShutdown(_ context.Context, node *v1.Node) (bool, error) {
	state, err := c.state(node)
	if err != nil {
		return false, err
	}
	klog.V(4).InfoS("Cloud call", "call", "InstanceShutdown", "node", node.Name, "state", state)
	return state == shutdown, nil
}

// InstanceMetadata gives the instance's provider ID, kubegc://NODE, and no addresses.
func (c *fakeCloud) InstanceMetadata(_ context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	if _, err := c.state(node); err != nil {
		return nil, err
	}
	return &cloudprovider.InstanceMetadata{ProviderID: "kubegc://" + node.Name}, nil
}

func (c *fakeCloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

func (c *fakeCloud) InstancesV2() (cloudprovider.InstancesV2, bool)   { return c, true }
func (c *fakeCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return nil, false }
func (c *fakeCloud) Instances() (cloudprovider.Instances, bool)       { return nil, false }
func (c *fakeCloud) Zones() (cloudprovider.Zones, bool)               { return nil, false }
func (c *fakeCloud) Clusters() (cloudprovider.Clusters, bool)         { return nil, false }
func (c *fakeCloud) Routes() (cloudprovider.Routes, bool)             { return nil, false }
func (c *fakeCloud) ProviderName() string                             { return "kubegc" }
func (c *fakeCloud) HasClusterID() bool                               { return true }
