package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"time"

	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/klog/v2"
)

// program is what a container's process does, as `kubegc program` prints it.
type program struct {
	// ExitAfterMs is when the process exits by itself, in milliseconds after its start; nil
	// when it runs until it is stopped.
	ExitAfterMs *int64 `json:"exitAfterMs"`
	// Code is the code it then exits with.
	Code int32 `json:"code"`
	// StopsOnTerm says whether SIGTERM ends it at once (with 0); if not, a stop kills it when
	// the grace period ends (137).
	StopsOnTerm bool `json:"stopsOnTerm"`
}

// processes is the kubelet's runtime service with the fake runtime's containers behaving as
// their commands say: a started container exits on its own at its program's time, and a stop
// takes the grace period of a process that ignores SIGTERM. Everything else is the fake
// runtime's own.
type processes struct {
	internalapi.RuntimeService
	fake     *apitest.FakeRuntimeService
	images   *apitest.FakeImageService
	oracle   string
	mu       sync.Mutex
	programs map[string]program
}

func newProcesses(service internalapi.RuntimeService, fake *apitest.FakeRuntimeService, images *apitest.FakeImageService, oracle string) *processes {
	return &processes{RuntimeService: service, fake: fake, images: images, oracle: oracle, programs: map[string]program{}}
}

// ask runs the oracle on a container's command and arguments.
func (p *processes) ask(argv []string) (program, error) {
	out, err := exec.Command(p.oracle, append([]string{"program", "--"}, argv...)...).Output()
	if err != nil {
		return program{}, fmt.Errorf("%s program: %w", p.oracle, err)
	}
	var prog program
	if err := json.Unmarshal(out, &prog); err != nil {
		return program{}, fmt.Errorf("%s program printed %q: %w", p.oracle, out, err)
	}
	return prog, nil
}

func (p *processes) CreateContainer(ctx context.Context, sandbox string, config *runtimeapi.ContainerConfig, sandboxConfig *runtimeapi.PodSandboxConfig) (string, error) {
	prog, err := p.ask(append(append([]string{}, config.GetCommand()...), config.GetArgs()...))
	if err != nil {
		return "", err
	}
	id, err := p.RuntimeService.CreateContainer(ctx, sandbox, config, sandboxConfig)
	if err == nil {
		p.mu.Lock()
		p.programs[id] = prog
		p.mu.Unlock()
	}
	return id, err
}

func (p *processes) StartContainer(ctx context.Context, id string) error {
	if err := p.RuntimeService.StartContainer(ctx, id); err != nil {
		return err
	}
	prog := p.program(id)
	if prog.ExitAfterMs != nil {
		time.AfterFunc(time.Duration(*prog.ExitAfterMs)*time.Millisecond, func() { p.exit(id, prog.Code) })
	}
	return nil
}

// StopContainer stops a running container: at once with 0 if its process ends on SIGTERM,
// else when the grace period (`timeout`, in seconds) ends, with 137, unless it exits by
// itself before.
func (p *processes) StopContainer(ctx context.Context, id string, timeout int64) error {
	if p.running(id) && !p.program(id).StopsOnTerm {
		deadline := time.Now().Add(time.Duration(timeout) * time.Second)
		for p.running(id) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
		}
		p.exit(id, 137)
	} else {
		p.exit(id, 0)
	}
	return p.RuntimeService.StopContainer(ctx, id, timeout)
}

func (p *processes) RemoveContainer(ctx context.Context, id string) error {
	p.mu.Lock()
	delete(p.programs, id)
	p.mu.Unlock()
	return p.RuntimeService.RemoveContainer(ctx, id)
}

func (p *processes) program(id string) program {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.programs[id]
}

func (p *processes) running(id string) bool {
	p.fake.Lock()
	defer p.fake.Unlock()
	c, ok := p.fake.Containers[id]
	return ok && c.State == runtimeapi.ContainerState_CONTAINER_RUNNING
}

// exit ends a running container's process with code, as the runtime would report it.
func (p *processes) exit(id string, code int32) {
	p.fake.Lock()
	defer p.fake.Unlock()
	c, ok := p.fake.Containers[id]
	if !ok || c.State != runtimeapi.ContainerState_CONTAINER_RUNNING {
		return
	}
	c.State = runtimeapi.ContainerState_CONTAINER_EXITED
	c.FinishedAt = time.Now().UnixNano()
	c.ExitCode = code
	c.Reason = "Completed"
	if code != 0 {
		c.Reason = "Error"
	}
	klog.V(2).InfoS("container exited", "id", id, "code", code)
}

// forgetCalls empties the fake runtime's record of calls now and then: it keeps every call for
// tests to read, and a node that runs for hours would hold millions.
func (p *processes) forgetCalls(ctx context.Context) {
	ticker := time.NewTicker(time.Minute)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			p.fake.Lock()
			p.fake.Called = nil
			p.fake.Unlock()
			p.images.Lock()
			p.images.Called = nil
			p.images.Unlock()
		}
	}
}
