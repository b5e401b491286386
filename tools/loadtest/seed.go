package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"

	"golang.org/x/sync/errgroup"
)

type guideIn struct {
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	Lat      float64  `json:"lat"`
	Lng      float64  `json:"lng"`
	MediaIDs []string `json:"media_ids"`
	Tags     []string `json:"tags"`
}

type guideOut struct {
	ID        string `json:"id"`
	LikeCount int    `json:"like_count"`
}

type listOut struct {
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
}

var seedTags = []string{"food", "cafe", "hiking", "beach", "temple", "market", "night", "museum", "view", "family"}

// createGuide posts one guide at a random point by u.
func createGuide(ctx context.Context, c *client, u *user, title string) (string, error) {
	lat, lng := randomPoint(anyRand)
	in := guideIn{
		Title: title, Body: "Written by guidepost-load to exercise the API.",
		Lat: lat, Lng: lng, MediaIDs: []string{},
		Tags: []string{seedTags[rand.IntN(len(seedTags))]},
	}
	b, _ := json.Marshal(in)
	var out guideOut
	o := c.retrying(ctx, request{
		kind: "guide_create", method: http.MethodPost, path: "/v1/guides",
		ctype: "application/json", user: u, out: &out,
	}, 3, jsonBody(b))
	if !o.ok() || out.ID == "" {
		return "", fmt.Errorf("create guide: HTTP %d (%s)", o.code, o.fail)
	}
	return out.ID, nil
}

// seedGuides creates n guides spread over users, conc at a time.
func seedGuides(ctx context.Context, c *client, users []*user, n, conc int, prefix string) ([]string, error) {
	ids := make([]string, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i := range n {
		g.Go(func() error {
			id, err := createGuide(gctx, c, users[i%len(users)], prefix+" "+strconv.Itoa(i+1))
			ids[i] = id
			return err
		})
	}
	return ids, g.Wait()
}

// discoverGuides collects ids of existing guides with viewport queries over
// each area, so reads also hit guides written before this run.
func discoverGuides(ctx context.Context, c *client, u *user, limit int) []string {
	boxes := []bbox{sparseBox}
	for _, a := range areas {
		boxes = append(boxes, areaBox(a))
	}
	seen := map[string]bool{}
	var ids []string
	for _, b := range boxes {
		var out listOut
		o := c.do(ctx, request{kind: "discover", method: http.MethodGet,
			path: "/v1/guides?bbox=" + b.param() + "&limit=" + strconv.Itoa(limit), user: u, out: &out})
		if !o.ok() {
			continue
		}
		for _, it := range out.Items {
			if it.ID != "" && !seen[it.ID] {
				seen[it.ID] = true
				ids = append(ids, it.ID)
			}
		}
	}
	return ids
}

// hotGuide is a guide whose like count the run verifies. Hot guides are
// created fresh for each run so no earlier run's likes blur the expectation.
type hotGuide struct {
	id       string
	baseline int // like_count read before the load
}

func createHotGuides(ctx context.Context, c *client, users []*user, n int) ([]*hotGuide, error) {
	ids, err := seedGuides(ctx, c, users, n, 4, "guidepost-load hot guide")
	if err != nil {
		return nil, err
	}
	hot := make([]*hotGuide, n)
	g, gctx := errgroup.WithContext(ctx)
	for i, id := range ids {
		g.Go(func() error {
			cnt, err := readLikeCount(gctx, c, users[0], id, "baseline")
			hot[i] = &hotGuide{id: id, baseline: cnt}
			return err
		})
	}
	return hot, g.Wait()
}

func readLikeCount(ctx context.Context, c *client, u *user, id, kind string) (int, error) {
	var out guideOut
	o := c.do(ctx, request{kind: kind, method: http.MethodGet, path: "/v1/guides/" + id, user: u, out: &out})
	if !o.ok() {
		return 0, fmt.Errorf("read guide %s: HTTP %d (%s)", id, o.code, o.fail)
	}
	return out.LikeCount, nil
}
