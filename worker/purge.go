package worker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/account"
)

// Purge task types: removing a deleted photo's objects and row, and
// everything a deleted account owned. Both are idempotent, so asynq's
// retries (and the sweeper redoing a lost one) are safe.
const (
	TypePurgeMedia   = "media:purge"
	TypePurgeAccount = "account:purge"
)

var _ account.Queue = (*Queue)(nil)

type purgePayload struct {
	ID        string `json:"id"`
	RequestID string `json:"request_id,omitempty"`
}

func (p *purgePayload) about() (string, string) { return p.ID, p.RequestID }

// EnqueuePurge queues the purge of a deleted photo.
func (q *Queue) EnqueuePurge(ctx context.Context, mediaID string) error {
	return q.enqueuePurge(ctx, TypePurgeMedia, mediaID)
}

// EnqueueAccountPurge queues the removal of a deleted account.
func (q *Queue) EnqueueAccountPurge(ctx context.Context, userID string) error {
	return q.enqueuePurge(ctx, TypePurgeAccount, userID)
}

// enqueuePurge dedupes by type and id: a purge already queued is success.
// One that finished and is still retained blocks nothing that matters:
// the thing it purged is gone, or the sweeper purges it.
func (q *Queue) enqueuePurge(ctx context.Context, typ, id string) error {
	payload, err := json.Marshal(purgePayload{ID: id, RequestID: guidepost.RequestID(ctx)})
	if err != nil {
		return err
	}
	_, err = q.client.EnqueueContext(ctx, asynq.NewTask(typ, payload),
		asynq.TaskID(typ+":"+id), asynq.Queue(QueueMedia), asynq.MaxRetry(MaxRetry), asynq.Timeout(taskTimeout))
	return enqueueError(err)
}

// Purger runs a purge by id; *media.Service (Purge) and *account.Service
// (Purge) implement it.
type Purger func(ctx context.Context, id string) error

// purgeHandler retries every failure: a purge fails only when S3 or
// PostgreSQL does, and its steps are safe to repeat.
func purgeHandler(purge Purger, m *Metrics) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		var p purgePayload
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
	mux.HandleFunc(TypePurgeMedia, purgeHandler(photos, m))
	mux.HandleFunc(TypePurgeAccount, purgeHandler(accounts, m))
}
