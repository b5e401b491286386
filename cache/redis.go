package cache

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyPrefix names this database's tiles in Redis, when known.
func (c *Guides) key(tile, version int64) string {
	p := c.prefix.Load()
	if p == nil {
		return ""
	}
	return *p + strconv.FormatInt(tile, 10) + ":" + strconv.FormatInt(version, 10)
}

func (c *Guides) namespace(ctx context.Context) {
	for {
		ns, err := c.src.Namespace(ctx)
		if err == nil {
			p := "guidepost:guides:tile:v" + strconv.Itoa(codecVersion) + ":" + ns + ":"
			c.prefix.Store(&p)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (c *Guides) redisUsable() bool {
	return c.redis != nil && c.prefix.Load() != nil && time.Now().UnixNano() >= c.redisDown.Load()
}

func (c *Guides) redisFailed(err error) {
	c.m.redisErrors.Inc()
	c.redisDown.Store(time.Now().Add(c.opt.RedisBackoff).UnixNano())
	c.log.Warn("guides cache: redis failed; skipping it for a while", "err", err, "for", c.opt.RedisBackoff)
}

var errRedisTimeout = errors.New("redis did not answer in time")

// redisCall runs fn with the Redis timeout and returns when the timeout
// does, whether or not fn has: go-redis does not always honour a context
// deadline (a connection's handshake waits for its own read timeout), and
// a request must never wait on a sick Redis longer than RedisTimeout.
func (c *Guides) redisCall(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.opt.RedisTimeout)
	done := make(chan error, 1)
	err := c.calls.goCall(func() {
		defer cancel()
		done <- fn(ctx)
	})
	if err != nil {
		cancel()
		return err
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// fn's goroutine cancels ctx once it has answered: both cases may
		// be ready, and select picks at random.
		select {
		case err := <-done:
			return err
		default:
		}
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return errRedisTimeout
		}
		return ctx.Err()
	}
}

// fromRedis fills out with tiles Redis has at their current version and no
// older than RefreshAfter; it returns the ids still missing.
func (c *Guides) fromRedis(ctx context.Context, ids []int64, out map[int64]*entry, now int64) []int64 {
	if len(ids) == 0 || !c.redisUsable() {
		return ids
	}
	keys := make([]string, len(ids))
	want := make([]int64, len(ids))
	for i, id := range ids {
		want[i] = c.version(id)
		keys[i] = c.key(id, want[i])
	}
	var vals []any
	err := c.redisCall(ctx, func(ctx context.Context) (err error) {
		vals, err = c.redis.MGet(ctx, keys...).Result()
		return err
	})
	if err != nil {
		c.m.lookups.WithLabelValues("l2", "error").Add(float64(len(ids)))
		c.redisFailed(err)
		return ids
	}
	var rest []int64
	for i, v := range vals {
		s, ok := v.(string)
		if ok {
			e, err := decodeEntry(ids[i], []byte(s))
			if err == nil && e.version == want[i] && now-e.builtAt < int64(c.opt.RefreshAfter) {
				e.weigh()
				out[ids[i]] = e
				c.m.lookups.WithLabelValues("l2", "hit").Inc()
				continue
			}
		}
		c.m.lookups.WithLabelValues("l2", "miss").Inc()
		rest = append(rest, ids[i])
	}
	return rest
}

// toRedis hands freshly built tiles to the writer; when it is behind, they
// are simply not shared.
func (c *Guides) toRedis(es []*entry) {
	if len(es) == 0 || !c.redisUsable() {
		return
	}
	select {
	case c.writes <- es:
	default:
	}
}

func (c *Guides) redisWriter(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case es := <-c.writes:
			if !c.redisUsable() {
				continue
			}
			err := c.redisCall(ctx, func(ctx context.Context) error {
				_, err := c.redis.Pipelined(ctx, func(p redis.Pipeliner) error {
					for _, e := range es {
						if k := c.key(e.tile, e.version); k != "" && e.version > 0 {
							p.Set(ctx, k, encodeEntry(e), c.opt.MaxAge)
						}
					}
					return nil
				})
				return err
			})
			if err != nil && ctx.Err() == nil {
				c.redisFailed(err)
			}
		}
	}
}
