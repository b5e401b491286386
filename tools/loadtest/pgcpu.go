package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// clusterCPU is the CPU seconds a PostgreSQL cluster has used so far: its
// postmaster (with the children it has reaped) and every live backend,
// found from postmaster.pid in its data directory; -1 when it cannot be
// read. With a primary and its replica on one host, this tells the
// primary's share apart, which the host-wide split cannot.
func clusterCPU(dataDir string) float64 {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return -1
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return -1
	}
	total := procCPU(pid)
	if total < 0 {
		return -1
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		line, err := os.ReadFile(path)
		if err != nil || parentOf(string(line)) != pid {
			continue
		}
		if v, err := parseProcStat(string(line)); err == nil {
			total += v
		}
	}
	return total
}

// parentOf is the ppid (field 4) of a /proc/<pid>/stat line, or -1.
func parentOf(line string) int {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 2 {
		return -1
	}
	p, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return p
}

// dropCachedTiles deletes the tile cache's Redis tier (REDIS_URL), so that
// each of two cold runs against one database starts as cold as the other.
func dropCachedTiles(ctx context.Context) (int, error) {
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return 0, fmt.Errorf("REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	n := 0
	iter := rdb.Scan(ctx, 0, "guidepost:guides:tile:*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 500 {
			if err := rdb.Del(ctx, batch...).Err(); err != nil {
				return n, err
			}
			n, batch = n+len(batch), batch[:0]
		}
	}
	if len(batch) > 0 {
		if err := rdb.Del(ctx, batch...).Err(); err != nil {
			return n, err
		}
		n += len(batch)
	}
	return n, iter.Err()
}
