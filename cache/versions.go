package cache

import (
	"sync"

	"github.com/guidepost/guidepost/guides"
)

// versions is the latest known state of every tile that ever held a
// guide (absent: 0). Reads happen for every tile of every query, writes
// only when a guide is written, so it is sharded under read-write locks.
type versions struct {
	shards [64]versionShard
}

type versionShard struct {
	mu sync.RWMutex
	m  map[int64]guides.TileState
}

func (v *versions) shard(tile int64) *versionShard {
	return &v.shards[uint64(tile)*0x9E3779B97F4A7C15>>58]
}

func (v *versions) get(tile int64) int64 { return v.state(tile).Version }

func (v *versions) state(tile int64) guides.TileState {
	s := v.shard(tile)
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[tile]
}

// raise records version for tile unless a newer one is known; it reports
// whether it changed anything.
func (v *versions) raise(tile int64, st guides.TileState) bool {
	s := v.shard(tile)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[int64]guides.TileState{}
	}
	if s.m[tile].Version >= st.Version {
		return false
	}
	s.m[tile] = st
	return true
}

// replace installs a full snapshot and returns the tiles whose version it
// changed. Versions never go down, except when the database itself was
// replaced: either way the entry must go.
func (v *versions) replace(all map[int64]guides.TileState) []int64 {
	fresh := make([]map[int64]guides.TileState, len(v.shards))
	for i := range fresh {
		fresh[i] = map[int64]guides.TileState{}
	}
	for tile, ver := range all {
		fresh[uint64(tile)*0x9E3779B97F4A7C15>>58][tile] = ver
	}
	var changed []int64
	for i := range v.shards {
		s := &v.shards[i]
		s.mu.Lock()
		for tile, ver := range s.m {
			if fresh[i][tile] != ver {
				changed = append(changed, tile)
			}
		}
		for tile := range fresh[i] {
			if _, ok := s.m[tile]; !ok {
				changed = append(changed, tile)
			}
		}
		s.m = fresh[i]
		s.mu.Unlock()
	}
	return changed
}
