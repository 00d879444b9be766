//! The kubelet's garbage collection loops (`StartGarbageCollection` and the image manager's
//! `Start`): container GC every minute, image GC every five minutes, image detection every five
//! minutes, each first run at once. Image GC is not started at all when the high threshold is
//! 100 and there is no MaxAge. Failures become Node events: `ContainerGCFailed` on every
//! failure, `ImageGCFailed` only from the second failure in a row.

use chrono::{DateTime, TimeDelta, Utc};

use crate::kubelet::config::KubeletConfiguration;
use crate::kubelet::containers::ContainerGc;
use crate::kubelet::events::{CONTAINER_GC_FAILED, FailureEvent, IMAGE_GC_FAILED};
use crate::kubelet::images::{ImageGcError, ImageGcManager};
use crate::kubelet::mutant::{Mutable, Mutant};
use crate::kubelet::node::Node;
use crate::kubelet::time::add;

/// `ContainerGCPeriod`.
pub const CONTAINER_GC_PERIOD: TimeDelta = TimeDelta::minutes(1);
/// `ImageGCPeriod`.
pub const IMAGE_GC_PERIOD: TimeDelta = TimeDelta::minutes(5);
/// The image manager's detection period.
pub const DETECTION_PERIOD: TimeDelta = TimeDelta::minutes(5);
/// The most loop iterations one [`GcLoops::run_until`] call runs (about two years of container
/// GC), so that "run until the end of time" is an error instead of a hang.
pub const MAX_ITERATIONS: usize = 1_000_000;

/// Whether the kubelet starts its image GC loop: not when the high threshold is 100 and
/// MaxAge is 0 (a MaxAge keeps age-based GC running even at 100).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageGcLoop {
    /// Whether the high threshold is 100 (space-based GC can never run).
    pub high_is_100: bool,
    /// Whether the loop is started.
    pub started: bool,
}

impl ImageGcLoop {
    /// The decision for `config`.
    pub fn of(config: &KubeletConfiguration) -> Self {
        let high_is_100 = config.image_gc_high_threshold_percent == 100;
        Self { high_is_100, started: !(high_is_100 && config.image_maximum_gc_age == TimeDelta::zero()) }
    }
}

/// When the loops run: each first at once, then every period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Whether each loop waits one period before its first run.
    pub first_runs_wait: bool,
    /// The container GC loop's period.
    pub container_gc: TimeDelta,
    /// The image GC loop's period.
    pub image_gc: TimeDelta,
    /// The image detection loop's period.
    pub detection: TimeDelta,
}

impl Default for Schedule {
    fn default() -> Self {
        Self { first_runs_wait: false, container_gc: CONTAINER_GC_PERIOD, image_gc: IMAGE_GC_PERIOD, detection: DETECTION_PERIOD }
    }
}

/// The loops' state.
#[derive(Clone, Debug)]
pub struct GcLoops {
    /// `beganGC`: when the image GC loop was set up (MaxAge waits this long before acting).
    pub began_gc: DateTime<Utc>,
    /// Whether image GC runs at all.
    image_gc_enabled: bool,
    /// When the loops run.
    schedule: Schedule,
    /// Whether the previous image GC failed.
    prev_image_gc_failed: bool,
    /// When each loop runs next.
    next_container_gc: DateTime<Utc>,
    next_image_gc: DateTime<Utc>,
    next_detection: DateTime<Utc>,
}

impl GcLoops {
    /// Starts the loops of a kubelet running with `active` at `started`.
    pub fn start(config: &KubeletConfiguration, started: DateTime<Utc>, active: Option<Mutant>) -> Self {
        let schedule = Schedule::default().mutated(active);
        let first = |period| if schedule.first_runs_wait { add(started, period).unwrap_or(started) } else { started };
        Self {
            began_gc: started,
            image_gc_enabled: ImageGcLoop::of(config).mutated(active).started,
            schedule,
            prev_image_gc_failed: false,
            next_container_gc: first(schedule.container_gc),
            next_image_gc: first(schedule.image_gc),
            next_detection: first(schedule.detection),
        }
    }

    /// When the next loop iteration is due.
    pub fn next_run(&self) -> DateTime<Utc> {
        let next = self.next_detection.min(self.next_container_gc);
        if self.image_gc_enabled { next.min(self.next_image_gc) } else { next }
    }

    /// Whether the image GC loop runs.
    pub fn image_gc_enabled(&self) -> bool {
        self.image_gc_enabled
    }

    /// One run of the image GC loop's body: `GarbageCollect(beganGC)` and its failure handling.
    /// `None` when the loop is not running.
    pub fn run_image_gc(&mut self, node: &mut Node, images: &mut ImageGcManager) -> Option<Result<(), ImageGcError>> {
        if !self.image_gc_enabled {
            return None;
        }
        let result = images.garbage_collect(node, self.began_gc);
        match &result {
            Err(e) => {
                node.record_failure(FailureEvent { reason: IMAGE_GC_FAILED, message: e.to_string(), recorded: self.prev_image_gc_failed });
                self.prev_image_gc_failed = true;
            }
            Ok(()) => self.prev_image_gc_failed = false,
        }
        Some(result)
    }

    /// One run of the container GC loop's body.
    pub fn run_container_gc(&mut self, node: &mut Node, containers: &ContainerGc) -> Result<(), String> {
        let result = containers.garbage_collect(node);
        if let Err(e) = &result {
            node.record_failure(FailureEvent { reason: CONTAINER_GC_FAILED, message: e.clone(), recorded: true });
        }
        result
    }

    /// Runs every loop iteration due up to `end`, moving the node's clock to each in turn (and
    /// finally to `end`). Detection, container GC and image GC due at the same instant run in
    /// that order. Fails, leaving the clock where it got to, after [`MAX_ITERATIONS`].
    pub fn run_until(
        &mut self,
        end: DateTime<Utc>,
        node: &mut Node,
        images: &mut ImageGcManager,
        containers: &ContainerGc,
    ) -> Result<(), String> {
        for _ in 0..MAX_ITERATIONS {
            let next = self.next_run();
            if next > end {
                break;
            }
            move_clock_to(node, next);
            if self.next_detection == next {
                let _ = images.detect_images(node, next);
                self.next_detection = add(next, self.schedule.detection).unwrap_or(DateTime::<Utc>::MAX_UTC);
            }
            if self.next_container_gc == next {
                let _ = self.run_container_gc(node, containers);
                self.next_container_gc = add(next, self.schedule.container_gc).unwrap_or(DateTime::<Utc>::MAX_UTC);
            }
            if self.image_gc_enabled && self.next_image_gc == next {
                let _ = self.run_image_gc(node, images);
                self.next_image_gc = add(next, self.schedule.image_gc).unwrap_or(DateTime::<Utc>::MAX_UTC);
            }
            if next == DateTime::<Utc>::MAX_UTC {
                break;
            }
        }
        let pending = self.next_detection.min(self.next_container_gc);
        if pending <= end && pending != DateTime::<Utc>::MAX_UTC {
            return Err(format!("the kubelet's loops would run more than {MAX_ITERATIONS} times before {end}"));
        }
        move_clock_to(node, end);
        Ok(())
    }
}

/// Moves a virtual clock forward to `t` (never back).
pub fn move_clock_to(node: &Node, t: DateTime<Utc>) {
    let now = node.now();
    if t > now {
        node.clock.advance(t.signed_duration_since(now));
    }
}
