package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"golang.org/x/sync/errgroup"
)

// user is one guest account. Every virtual user acts as its own account:
// one token shared by all would only measure the duplicate-rejection path.
type user struct {
	idx  int
	id   string
	auth string // "Bearer <token>", built once
	addr string // X-Forwarded-For on its requests ("" sends none)

	// mu serialises this user's like taps so that the final state the tool
	// expects for each (user, guide) pair is well defined.
	mu    sync.Mutex
	likes map[string]*pairState // by guide id
}

type guestAnswer struct {
	User struct {
		ID string `json:"id"`
	} `json:"user"`
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
}

// signupUsers creates n guest accounts through the API, conc at a time.
func signupUsers(ctx context.Context, c *client, n, conc int, log *slog.Logger) ([]*user, error) {
	users := make([]*user, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i := range n {
		g.Go(func() error {
			u, err := signup(gctx, c, i)
			users[i] = u
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	log.Info("guest users created", "users", n)
	return users, nil
}

func signup(ctx context.Context, c *client, i int) (*user, error) {
	var a guestAnswer
	addr := ""
	if c.forwardUsers {
		addr = fmt.Sprintf("198.18.%d.%d", i/250, i%250+1) // RFC 2544's benchmarking range
	}
	o := c.retrying(ctx, request{
		kind: "signup", method: http.MethodPost, path: "/v1/auth/guest",
		ctype: "application/json", out: &a, from: addr,
	}, 4, jsonBody([]byte("{}")))
	if !o.ok() {
		return nil, fmt.Errorf("guest signup %d: HTTP %d (%s)", i, o.code, o.fail)
	}
	if a.AccessToken == "" {
		return nil, fmt.Errorf("guest signup %d: answer had no access_token", i)
	}
	return &user{idx: i, id: a.User.ID, auth: "Bearer " + a.AccessToken, addr: addr, likes: map[string]*pairState{}}, nil
}
