package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/queue"
)

// Deriver is what the derive handler consumes; *media.Service implements it.
type Deriver interface {
	Derive(ctx context.Context, t media.DeriveTask) error
}

// NewMux routes task types to handlers, as an HTTP mux routes paths.
func NewMux(d Deriver, m *Metrics) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeDerive, deriveHandler(d, m))
	return mux
}

// deriveHandler decodes the payload, calls the service and maps its error:
// a permanent failure (the photo is bad, or its row is gone) wraps
// asynq.SkipRetry so the task is archived at once; anything else is retried
// with backoff. The service is idempotent, so a redelivered task is safe.
func deriveHandler(d Deriver, m *Metrics) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		var p queue.DerivePayload
		ctx, err := decodePayload(ctx, t, &p, m, start)
		if err != nil {
			return err
		}
		retried, _ := asynq.GetRetryCount(ctx)
		maxRetry, _ := asynq.GetMaxRetry(ctx)
		err = d.Derive(ctx, media.DeriveTask{MediaID: p.MediaID, LastTry: retried >= maxRetry})
		if err == nil {
			m.taskDone(t.Type(), "", start)
			return nil
		}
		m.taskDone(t.Type(), media.FailureReason(err), start)
		if media.IsPermanent(err) {
			return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
		}
		return err
	}
}

// payload is a task's JSON body (package queue's): what it is about, and
// the request that queued it.
type payload interface {
	About() (id, requestID string)
}

// decodePayload reads a task's payload into p. One that does not parse or
// names nothing can never succeed: it is archived at once. The context
// returned carries the request id, so the service's lines name the request
// that queued the task.
func decodePayload(ctx context.Context, t *asynq.Task, p payload, m *Metrics, start time.Time) (context.Context, error) {
	err := json.Unmarshal(t.Payload(), p)
	id, requestID := p.About()
	if err != nil || id == "" {
		m.taskDone(t.Type(), "bad_payload", start)
		return ctx, fmt.Errorf("%s: bad payload %q: %w", t.Type(), t.Payload(), asynq.SkipRetry)
	}
	if requestID != "" {
		ctx = guidepost.WithRequestID(ctx, requestID)
	}
	return ctx, nil
}
