package queue

import (
	"context"
	"encoding/json"

	"github.com/hibiken/asynq"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth/deletion"
)

// Purge task types: removing a deleted photo's objects and row, and
// everything a deleted account owned. Both are idempotent, so asynq's
// retries (and the sweeper redoing a lost one) are safe.
const (
	TypePurgeMedia   = "media:purge"
	TypePurgeAccount = "account:purge"
)

var _ deletion.Queue = (*Client)(nil)

// PurgePayload is a purge task's JSON body.
type PurgePayload struct {
	ID        string `json:"id"`
	RequestID string `json:"request_id,omitempty"`
}

// About is what the task is about, and the request that queued it.
func (p *PurgePayload) About() (id, requestID string) { return p.ID, p.RequestID }

// EnqueuePurge queues the purge of a deleted photo.
func (q *Client) EnqueuePurge(ctx context.Context, mediaID string) error {
	return q.enqueuePurge(ctx, TypePurgeMedia, mediaID)
}

// EnqueueAccountPurge queues the removal of a deleted account.
func (q *Client) EnqueueAccountPurge(ctx context.Context, userID string) error {
	return q.enqueuePurge(ctx, TypePurgeAccount, userID)
}

// enqueuePurge dedupes by type and id: a purge already queued is success.
// One that finished and is still retained blocks nothing that matters:
// the thing it purged is gone, or the sweeper purges it.
func (q *Client) enqueuePurge(ctx context.Context, typ, id string) error {
	payload, err := json.Marshal(PurgePayload{ID: id, RequestID: guidepost.RequestID(ctx)})
	if err != nil {
		return err
	}
	_, err = q.client.EnqueueContext(ctx, asynq.NewTask(typ, payload),
		asynq.TaskID(typ+":"+id), asynq.Queue(Media), asynq.MaxRetry(MaxRetry), asynq.Timeout(taskTimeout))
	return enqueueError(err)
}
