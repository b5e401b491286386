package api_test

import (
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
)

// testServer is what a test API is built from: its dependencies and its
// configuration, which a test's tune func changes before api.New. The
// auth and guide services are built after tune, from AuthDeps and Login,
// and GuideDeps, so a test can give them a limiter or keys.
type testServer struct {
	api.Deps
	api.Config
	AuthDeps  auth.Deps
	Login     auth.LoginLimits // none unless a test sets them
	GuideDeps guides.Deps
}

// authService is the auth service on AuthDeps, with the default sessions
// and the test's log-in limits.
func (ts *testServer) authService() *auth.Service {
	return auth.New(ts.AuthDeps, auth.Config{Sessions: auth.DefaultConfig().Sessions, Login: ts.Login})
}

func (ts *testServer) server() *api.Server { return api.New(ts.Deps, ts.Config) }
