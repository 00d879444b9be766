package images

// This file is not part of upstream Kubernetes: kubegc's kubelet driver adds it to the package
// with a build overlay, so that the driver can call the image garbage collector's unexported
// steps with explicit times, as the package's own unit tests do.

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"k8s.io/kubernetes/pkg/kubelet/container"
)

// KubegcImageGC is the real image garbage collector with its unexported steps exposed.
type KubegcImageGC struct {
	im *realImageGCManager
}

// KubegcRecord is one image record as the collector keeps it.
type KubegcRecord struct {
	Key            string
	FirstDetected  time.Time
	LastUsed       time.Time
	Size           int64
	Pinned         bool
	RuntimeHandler string
}

// KubegcNewImageGC builds the collector through NewImageGCManager (so the policy is validated
// as the kubelet validates it).
func KubegcNewImageGC(runtime container.Runtime, stats StatsProvider, hooks []PostImageGCHook, recorder record.EventRecorder, nodeRef *v1.ObjectReference, policy ImageGCPolicy) (*KubegcImageGC, error) {
	m, err := NewImageGCManager(runtime, stats, hooks, recorder, nodeRef, policy, noop.NewTracerProvider())
	if err != nil {
		return nil, err
	}
	return &KubegcImageGC{im: m.(*realImageGCManager)}, nil
}

// Manager is the collector behind the ImageGCManager interface.
func (g *KubegcImageGC) Manager() ImageGCManager { return g.im }

// Detect runs detectImages at detectTime.
func (g *KubegcImageGC) Detect(ctx context.Context, detectTime time.Time) error {
	_, err := g.im.detectImages(ctx, detectTime)
	return err
}

// Candidates runs imagesInEvictionOrder at freeTime and returns the image IDs with their records.
func (g *KubegcImageGC) Candidates(ctx context.Context, freeTime time.Time) ([]KubegcRecord, error) {
	images, err := g.im.imagesInEvictionOrder(ctx, freeTime)
	return kubegcRecords(images), err
}

// FreeSpace lists the candidates at freeTime and runs freeSpace on them.
func (g *KubegcImageGC) FreeSpace(ctx context.Context, bytes int64, freeTime time.Time) (int64, error) {
	images, err := g.im.imagesInEvictionOrder(ctx, freeTime)
	if err != nil {
		return 0, err
	}
	_, freed, err := g.im.freeSpace(ctx, bytes, freeTime, images)
	return freed, err
}

// FreeOld lists the candidates at freeTime and runs freeOldImages on them; it returns the
// candidates left.
func (g *KubegcImageGC) FreeOld(ctx context.Context, freeTime, beganGC time.Time) ([]KubegcRecord, error) {
	images, err := g.im.imagesInEvictionOrder(ctx, freeTime)
	if err != nil {
		return nil, err
	}
	left, err := g.im.freeOldImages(ctx, images, freeTime, beganGC)
	return kubegcRecords(left), err
}

// Records returns the image records.
func (g *KubegcImageGC) Records() []KubegcRecord {
	g.im.imageRecordsLock.Lock()
	defer g.im.imageRecordsLock.Unlock()
	var out []KubegcRecord
	for key, r := range g.im.imageRecords {
		out = append(out, kubegcRecord(key, r))
	}
	return out
}

func kubegcRecord(key string, r *imageRecord) KubegcRecord {
	return KubegcRecord{Key: key, FirstDetected: r.firstDetected, LastUsed: r.lastUsed, Size: r.size, Pinned: r.pinned, RuntimeHandler: r.runtimeHandlerUsedToPullImage}
}

func kubegcRecords(images []evictionInfo) []KubegcRecord {
	out := make([]KubegcRecord, 0, len(images))
	for i := range images {
		out = append(out, kubegcRecord(images[i].id, &images[i].imageRecord))
	}
	return out
}
