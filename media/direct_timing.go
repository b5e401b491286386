package media

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// A direct upload's create and complete are compared with a floor that
// makes only their store calls (tools/uploadbench -floor). Each step is
// timed through the Observer, so a slow run says whether the time went to
// the store, the database, Redis or the probe, not only that it was slow.
const (
	stepCreateLookup  = "create.db_lookup" // a photo or open upload of the same bytes
	stepCreateRate    = "create.rate"      // the upload rate, asked (Redis)
	stepCreateStore   = "create.s3_create" // CreateMultipartUpload
	stepCreateInsert  = "create.db_insert" // the upload's row, within the limits
	stepCreatePresign = "create.presign"   // the part URLs (local signing)

	stepCompleteClaim   = "complete.db_claim"      // read and claim the upload's row
	stepCompleteList    = "complete.s3_list_parts" // ListParts
	stepCompletePresign = "complete.presign"       // the parts checked against the declaration
	stepCompleteJoin    = "complete.s3_complete"   // CompleteMultipartUpload
	stepCompleteProbe   = "complete.s3_probe"      // ranged GETs of the object and the header probe
	stepCompleteAdmit   = "complete.db_admit"      // usage (database) and the render spent (Redis)
	stepCompleteInsert  = "complete.db_insert"     // the photo's row
	stepCompleteState   = "complete.db_state"      // the upload marked completed
	stepCompleteEnqueue = "complete.enqueue"       // the render task (Redis)
	stepCompleteAnswer  = "complete.answer"        // the photo as its owner sees it
)

// timed reports a step that began at start.
func (s *Service) timed(step string, start time.Time) {
	s.deps.Observer.ObserveStage(step, time.Since(start))
}

// StepTimes is the API's Observer: it exports the direct-upload steps as
// guidepost_direct_upload_step_seconds{step}.
type StepTimes struct{ h *prometheus.HistogramVec }

// NewStepTimes registers on reg; a collector registered already (one
// registry shared by `guidepost dev`) is reused.
func NewStepTimes(reg prometheus.Registerer) *StepTimes {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "guidepost_direct_upload_step_seconds",
		Help:    "Time per step of a direct upload's create and complete (database, Redis, store calls, probe).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"step"})
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(h); errors.As(err, &are) {
		h = are.ExistingCollector.(*prometheus.HistogramVec)
	} else if err != nil {
		panic(err)
	}
	return &StepTimes{h: h}
}

// ObserveStage records one step.
func (t *StepTimes) ObserveStage(step string, d time.Duration) {
	t.h.WithLabelValues(step).Observe(d.Seconds())
}

// ObserveReencodes: the API renders nothing.
func (t *StepTimes) ObserveReencodes(int) {}
