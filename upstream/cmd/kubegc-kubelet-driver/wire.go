package main

// The JSON form kubegc and the driver share (kubegc's side: harness/src/kubelet_wire.rs). Times are
// RFC 3339, durations are nanoseconds, sizes are bytes.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// instant is a time a step names, which may lie beyond year 9999 ("the latest representable
// time"): RFC 3339, or RFC 3339 with an expanded year such as "+262142-12-31T23:59:59Z".
type instant time.Time

func (i *instant) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	years := 0
	if strings.HasPrefix(text, "+") {
		dash := strings.Index(text, "-")
		if dash < 0 {
			return fmt.Errorf("cannot read the time %q", text)
		}
		year, err := strconv.Atoi(text[1:dash])
		if err != nil {
			return fmt.Errorf("cannot read the year of %q: %w", text, err)
		}
		// Read it in a year of the same leap-ness below 10000, then move it by whole 400-year
		// cycles, which keep the calendar.
		base := 2000 + year%400
		years = year - base
		text = fmt.Sprintf("%04d%s", base, text[dash:])
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return err
	}
	*i = instant(t.AddDate(years, 0, 0))
	return nil
}

// request is one operation on the fake node.
type request struct {
	// Node is the fake node as the scenario has it now.
	Node node `json:"node"`
	// Settings are the kubelet's settings the collectors are built from on first use.
	Settings settings `json:"settings"`
	// Op is what to do.
	Op op `json:"op"`
}

// op names one operation and its arguments.
type op struct {
	Kind  string   `json:"kind"`
	At    *instant `json:"at,omitempty"`
	Began *instant `json:"began,omitempty"`
	Bytes int64    `json:"bytes,omitempty"`
	High  int      `json:"high,omitempty"`
	Low   int      `json:"low,omitempty"`
	// IncludingTerminated is evictNonDeletedPods of the container collector's steps.
	IncludingTerminated bool `json:"includingTerminated,omitempty"`
	// MinAge is the minimum age createContainerGC is given.
	MinAge int64 `json:"minAge,omitempty"`
	// Signal and Layout are the eviction signal and disk layout reclaimFunctions is asked of.
	Signal string `json:"signal,omitempty"`
	Layout string `json:"layout,omitempty"`
	// Pods are the active pods synchronize may evict.
	Pods []evictionPod `json:"pods,omitempty"`
}

// settings are the kubelet configuration and policies a scenario gave.
type settings struct {
	Config          kubeletConfig   `json:"config"`
	ConfigFile      configFile      `json:"configFile"`
	ContainerPolicy containerPolicy `json:"containerPolicy"`
	// Started is when the kubelet (and its GC loops) started.
	Started time.Time `json:"started"`
	// Eviction is the eviction manager's configuration.
	Eviction evictionSettings `json:"eviction"`
}

// evictionSettings configure the eviction manager.
type evictionSettings struct {
	// Hard are the hard thresholds by signal (nil: the configuration's evictionHard in force).
	Hard map[string]string `json:"hard,omitempty"`
	// MinimumReclaim are the thresholds' minimum reclaims by signal.
	MinimumReclaim           map[string]string `json:"minimumReclaim,omitempty"`
	PressureTransitionPeriod int64             `json:"pressureTransitionPeriod"`
	MaxPodGracePeriodSeconds int64             `json:"maxPodGracePeriodSeconds"`
}

// kubeletConfig holds the KubeletConfiguration fields the scenarios set.
type kubeletConfig struct {
	ImageGCHighThresholdPercent int   `json:"imageGCHighThresholdPercent"`
	ImageGCLowThresholdPercent  int   `json:"imageGCLowThresholdPercent"`
	ImageMinimumGCAge           int64 `json:"imageMinimumGCAge"`
	ImageMaximumGCAge           int64 `json:"imageMaximumGCAge"`
	// EvictionHard is the configured evictionHard (nil: not set).
	EvictionHard                 map[string]string `json:"evictionHard,omitempty"`
	MergeDefaultEvictionSettings bool              `json:"mergeDefaultEvictionSettings,omitempty"`
}

// configFile holds the fields a configuration file sets (unset ones are defaulted).
type configFile struct {
	ImageGCHighThresholdPercent *int   `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int   `json:"imageGCLowThresholdPercent,omitempty"`
	ImageMinimumGCAge           *int64 `json:"imageMinimumGCAge,omitempty"`
	ImageMaximumGCAge           *int64 `json:"imageMaximumGCAge,omitempty"`
}

// containerPolicy is the container GC policy (negative limits are no limit).
type containerPolicy struct {
	MinAge             int64 `json:"minAge"`
	MaxPerPodContainer int   `json:"maxPerPodContainer"`
	MaxContainers      int   `json:"maxContainers"`
}

// node is the fake node.
type node struct {
	Now          time.Time       `json:"now"`
	Images       []image         `json:"images"`
	Containers   []container     `json:"containers"`
	Sandboxes    []sandbox       `json:"sandboxes"`
	Faults       faults          `json:"faults"`
	Calls        []call          `json:"calls"`
	Disks        disks           `json:"disks"`
	Pods         pods            `json:"pods"`
	Logs         logs            `json:"logs"`
	SourcesReady bool            `json:"sourcesReady"`
	Gates        map[string]bool `json:"gates"`
	Events       []event         `json:"events"`
}

// evictionPod is an active pod with its priority, disk usage and ephemeral-storage request.
type evictionPod struct {
	Name      string `json:"name"`
	Priority  int32  `json:"priority"`
	DiskUsage int64  `json:"diskUsage"`
	Request   int64  `json:"request"`
}

type image struct {
	ID             string `json:"id"`
	Size           int64  `json:"size"`
	Pinned         bool   `json:"pinned"`
	RuntimeHandler string `json:"runtimeHandler"`
	ReleasedBytes  *int64 `json:"releasedBytes,omitempty"`
}

type container struct {
	ID                  string     `json:"id"`
	PodUID              string     `json:"podUid"`
	Name                string     `json:"name"`
	Attempt             uint32     `json:"attempt"`
	Created             time.Time  `json:"created"`
	Finished            *time.Time `json:"finished,omitempty"`
	State               string     `json:"state"`
	ImageID             string     `json:"imageId"`
	ImageRuntimeHandler string     `json:"imageRuntimeHandler"`
	SandboxID           *string    `json:"sandboxId,omitempty"`
	Size                int64      `json:"size"`
	ImageVolumes        []string   `json:"imageVolumes"`
}

type sandbox struct {
	ID      string    `json:"id"`
	PodUID  string    `json:"podUid"`
	Attempt uint32    `json:"attempt"`
	State   string    `json:"state"`
	Created time.Time `json:"created"`
}

type faults struct {
	ListImages      *string  `json:"listImages,omitempty"`
	ListContainers  *string  `json:"listContainers,omitempty"`
	ListSandboxes   *string  `json:"listSandboxes,omitempty"`
	RemoveImage     []string `json:"removeImage"`
	StopContainer   []string `json:"stopContainer"`
	RemoveContainer []string `json:"removeContainer"`
	StopSandbox     []string `json:"stopSandbox"`
	ContainerStatus []string `json:"containerStatus"`
}

// call is one runtime call the kubelet made.
type call struct {
	Call string `json:"call"`
	ID   string `json:"id"`
}

type filesystem struct {
	Capacity  *int64 `json:"capacity,omitempty"`
	Available int64  `json:"available"`
}

type disks struct {
	// Layout is single, dedicated or split.
	Layout          string     `json:"layout"`
	Nodefs          filesystem `json:"nodefs"`
	Imagefs         filesystem `json:"imagefs"`
	ImageStatsError *string    `json:"imageStatsError,omitempty"`
}

type pods struct {
	// States maps a pod UID to running, terminated, removed or evicted.
	States map[string]string `json:"states"`
	Synced bool              `json:"synced"`
}

type logDir struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

type logSymlink struct {
	Name         string `json:"name"`
	TargetExists bool   `json:"targetExists"`
}

type logs struct {
	Dir       string       `json:"dir"`
	PodDirs   []logDir     `json:"podDirs"`
	ReadError *string      `json:"readError,omitempty"`
	Symlinks  []logSymlink `json:"symlinks"`
	Removed   []string     `json:"removed"`
}

type event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Object  string `json:"object"`
}

// imageRecord is an image record (or an eviction candidate: an image ID and its record).
type imageRecord struct {
	Key            string    `json:"key"`
	FirstDetected  time.Time `json:"firstDetected"`
	LastUsed       time.Time `json:"lastUsed"`
	Size           int64     `json:"size"`
	Pinned         bool      `json:"pinned"`
	RuntimeHandler string    `json:"runtimeHandler"`
}

// answer is what the kubelet's code made of a request.
type answer struct {
	// Fault is set when the driver could not carry the request out at all.
	Fault string `json:"fault,omitempty"`
	// Error is the operation's own error, as the kubelet's code returned it.
	Error *string `json:"error,omitempty"`
	// Freed is what freeSpace reported.
	Freed *int64 `json:"freed,omitempty"`
	// Node is the fake node afterwards.
	Node node `json:"node"`
	// Records are the image collector's records afterwards (none before it exists).
	Records []imageRecord `json:"records"`
	// Candidates are the candidates listed, or left by freeOldImages.
	Candidates []imageRecord `json:"candidates,omitempty"`
	// Collected counts image_garbage_collected_total by reason.
	Collected map[string]int64 `json:"collected"`
	// HookRuns counts the post-GC hook's runs.
	HookRuns int `json:"hookRuns"`
	// Validation is the result of a validation (nil: nothing validated).
	Validation *validation `json:"validation,omitempty"`
	// Config is the configuration a loaded file defaulted to.
	Config *kubeletConfig `json:"config,omitempty"`
	// Loops tells of the kubelet's loops, once they run.
	Loops *loopState `json:"loops,omitempty"`
	// ReclaimFunctions are the node-level reclaim functions the eviction manager ran, in order.
	ReclaimFunctions []string `json:"reclaimFunctions,omitempty"`
	// EvictionHard is the evictionHard a kubelet runs with.
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	// Sync is what an eviction manager's synchronize pass did.
	Sync *syncOutcome `json:"sync,omitempty"`
}

// syncOutcome is what a synchronize pass did.
type syncOutcome struct {
	ReclaimedWith []string    `json:"reclaimedWith"`
	Evicted       *evictedPod `json:"evicted,omitempty"`
	DiskPressure  bool        `json:"diskPressure"`
}

// evictedPod is a pod the eviction manager evicted, with the grace period it gave.
type evictedPod struct {
	Pod         string `json:"pod"`
	GracePeriod int64  `json:"gracePeriod"`
}

// loopState tells of the kubelet's running loops.
type loopState struct {
	// ImageGCRuns counts the image GC loop's passes.
	ImageGCRuns int `json:"imageGcRuns"`
}

type validation struct {
	Error *string `json:"error,omitempty"`
}
