package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraN is GCRA over many keys in one call: redis_rate's allowN script
// (go-redis/redis_rate v10; Copyright (c) 2013 The
// github.com/go-redis/redis_rate Authors, BSD-2-Clause, LICENSE.redis_rate
// here; itself from rwz/redis-gcra, Copyright (c) 2017 Pavel Pravosud)
// run once per key, in order, so takes of one key in one call see each
// other. One change: a give-back (negative cost) that empties the bucket
// deletes the key, where the original kept the old value, so the first
// event of an empty bucket could never be given back.
// Keys and results are as redis_rate's: a key is "rate:" + the limiter's
// own key, holding the theoretical arrival time; each take answers
// allowed, remaining, retry_after and reset_after (seconds, as text).
var gcraN = redis.NewScript(`
redis.replicate_commands()
local jan_1_2017 = 1483228800
local t = redis.call("TIME")
local now = (t[1] - jan_1_2017) + (t[2] / 1000000)
local out = {}
for i, key in ipairs(KEYS) do
  local burst = tonumber(ARGV[4*i-3])
  local rate = tonumber(ARGV[4*i-2])
  local period = tonumber(ARGV[4*i-1])
  local cost = tonumber(ARGV[4*i])
  local emission_interval = period / rate
  local increment = emission_interval * cost
  local burst_offset = emission_interval * burst
  local tat = redis.call("GET", key)
  if not tat then tat = now else tat = tonumber(tat) end
  tat = math.max(tat, now)
  local new_tat = tat + increment
  local allow_at = new_tat - burst_offset
  local diff = now - allow_at
  local remaining = diff / emission_interval
  if remaining < 0 then
    table.insert(out, 0)
    table.insert(out, 0)
    table.insert(out, tostring(diff * -1))
    table.insert(out, tostring(tat - now))
  else
    local reset_after = new_tat - now
    if reset_after > 0 then
      redis.call("SET", key, new_tat, "EX", math.ceil(reset_after))
    else
      redis.call("DEL", key)
    end
    table.insert(out, cost)
    table.insert(out, remaining)
    table.insert(out, "-1")
    table.insert(out, tostring(reset_after))
  end
end
return out
`)

// gcraKeyPrefix keeps redis_rate's key names, so counts carry over.
const gcraKeyPrefix = "rate:"

type gcraResult struct {
	allowed, remaining     int
	retryAfter, resetAfter time.Duration
}

// runGCRA spends every take's cost in one round trip.
func runGCRA(ctx context.Context, rdb redis.Scripter, takes []*take) ([]gcraResult, error) {
	keys := make([]string, len(takes))
	args := make([]any, 0, 4*len(takes))
	for i, t := range takes {
		keys[i] = gcraKeyPrefix + t.key
		args = append(args, t.count, t.count, t.period.Seconds(), t.n)
	}
	v, err := gcraN.Run(ctx, rdb, keys, args...).Slice()
	if err != nil {
		return nil, err
	}
	if len(v) != 4*len(takes) {
		return nil, fmt.Errorf("ratelimit: %d values for %d takes", len(v), len(takes))
	}
	out := make([]gcraResult, len(takes))
	for i := range out {
		allowed, ok1 := v[4*i].(int64)
		remaining, ok2 := v[4*i+1].(int64)
		retry, err1 := seconds(v[4*i+2])
		reset, err2 := seconds(v[4*i+3])
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("ratelimit: unexpected answer %v", v[4*i:4*i+4])
		}
		out[i] = gcraResult{allowed: int(allowed), remaining: int(remaining), retryAfter: retry, resetAfter: reset}
	}
	return out, nil
}

// seconds reads the script's text seconds; -1 stays negative.
func seconds(v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("not text: %v", v)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if f == -1 {
		return -1, nil
	}
	return time.Duration(f * float64(time.Second)), nil
}
