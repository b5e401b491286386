// Package queue is the asynq client that API processes (and the worker's
// sweeper) enqueue background work on: the task types, their payloads, the
// enqueue that dedupes by id, and the queue's metrics. Package worker runs
// the tasks; both sides share the names and payloads here.
package queue

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
)

// Queue and task names. The load-test tool reads queue="media" from
// guidepost_queue_size.
const (
	Media      = "media"
	TypeDerive = "media:derive"
)

const (
	// MaxRetry bounds retries of transient failures; with asynq's backoff
	// (n⁴+15 s plus jitter) ten retries span about four hours of outage.
	MaxRetry = 10
	// taskTimeout is far above the slowest render (a 48-MP HEIC decodes in
	// a few seconds): it only catches a hung task.
	taskTimeout = 5 * time.Minute
)

// DerivePayload is a derive task's JSON body.
type DerivePayload struct {
	MediaID string `json:"media_id"`
	// RequestID is the request that queued the task, if any: the worker's
	// lines about the photo then name the upload that caused them.
	RequestID string `json:"request_id,omitempty"`
}

// About is what the task is about, and the request that queued it.
func (p *DerivePayload) About() (id, requestID string) { return p.MediaID, p.RequestID }

// Client is the asynq implementation of media.Queue and deletion.Queue.
type Client struct {
	client    *asynq.Client
	inspector *asynq.Inspector
}

var _ media.Queue = (*Client)(nil)

// NewClient shares the app's go-redis client: one pool per process.
func NewClient(rdb redis.UniversalClient) *Client {
	return &Client{client: asynq.NewClientFromRedisClient(rdb), inspector: asynq.NewInspectorFromRedisClient(rdb)}
}

// Enqueue queues the photo's derive task under the photo's id, so that a
// photo has at most one live task however often it is enqueued (an upload
// and the sweeper racing, say). asynq keeps a finished task's id taken
// (an archived one for 90 days), so a conflict with a finished task is not
// success: that task is deleted and the new one queued, or a failed photo
// uploaded again would never run.
func (q *Client) Enqueue(ctx context.Context, mediaID string) error {
	payload, err := json.Marshal(DerivePayload{MediaID: mediaID, RequestID: guidepost.RequestID(ctx)})
	if err != nil {
		return err
	}
	task := asynq.NewTask(TypeDerive, payload)
	err = q.enqueue(ctx, task, mediaID)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		// A second conflict, after the finished task was deleted, is a live
		// task queued meanwhile: success.
		var freed bool
		if freed, err = q.deleteFinished(ctx, mediaID); err == nil && freed {
			err = q.enqueue(ctx, task, mediaID)
		}
	}
	return enqueueError(err)
}

// enqueueError: a task already queued under the id is success; anything
// but the caller giving up means the queue is unavailable.
func enqueueError(err error) error {
	switch {
	case err == nil, errors.Is(err, asynq.ErrTaskIDConflict):
		return nil
	case errors.Is(err, context.Canceled):
		return err
	}
	return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the task queue is unavailable")
}

func (q *Client) enqueue(ctx context.Context, task *asynq.Task, mediaID string) error {
	_, err := q.client.EnqueueContext(ctx, task,
		asynq.TaskID(mediaID), asynq.Queue(Media), asynq.MaxRetry(MaxRetry), asynq.Timeout(taskTimeout))
	return err
}

// deleteFinished deletes the photo's task if it is archived or completed and
// reports whether the id is free now. A live task (pending, scheduled,
// waiting for a retry, running) is left alone: the photo has its task.
func (q *Client) deleteFinished(ctx context.Context, mediaID string) (freed bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err // the Inspector takes no context; honour it here at least
	}
	info, err := q.inspector.GetTaskInfo(Media, mediaID)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound):
		return true, nil // finished and gone since the conflict
	case err != nil:
		return false, err
	case info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted:
		return false, nil
	}
	err = q.inspector.DeleteTask(Media, mediaID)
	if err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
		return false, err
	}
	return true, nil
}

// TaskState reads the task's state from Redis.
func (q *Client) TaskState(ctx context.Context, mediaID string) (media.TaskState, error) {
	if err := ctx.Err(); err != nil {
		return 0, err // the Inspector takes no context; honour it here at least
	}
	info, err := q.inspector.GetTaskInfo(Media, mediaID)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
		return media.TaskMissing, nil
	case err != nil:
		return 0, guidepost.Wrap(guidepost.EUNAVAILABLE, err, "the task queue is unavailable")
	case info.State == asynq.TaskStateArchived:
		return media.TaskDead, nil
	}
	return media.TaskLive, nil
}
