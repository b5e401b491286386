package worker

import (
	"context"
	"time"

	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost/queue"
)

// Purger runs a purge by id; *media.Service (Purge) and *deletion.Service
// (Purge) implement it.
type Purger func(ctx context.Context, id string) error

// purgeHandler retries every failure: a purge fails only when S3 or
// PostgreSQL does, and its steps are safe to repeat.
func purgeHandler(purge Purger, m *Metrics) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		var p queue.PurgePayload
		ctx, err := decodePayload(ctx, t, &p, m, start)
		if err != nil {
			return err
		}
		if err := purge(ctx, p.ID); err != nil {
			m.taskDone(t.Type(), "error", start)
			return err
		}
		m.taskDone(t.Type(), "", start)
		return nil
	}
}

// HandlePurges adds the purge handlers to a mux made by NewMux.
func HandlePurges(mux *asynq.ServeMux, photos, accounts Purger, m *Metrics) {
	mux.HandleFunc(queue.TypePurgeMedia, purgeHandler(photos, m))
	mux.HandleFunc(queue.TypePurgeAccount, purgeHandler(accounts, m))
}
