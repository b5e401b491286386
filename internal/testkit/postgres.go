// Package testkit gives tests real, isolated dependencies: a fresh database
// per call (cloned from a migrated template), a Redis DB number per package,
// a bucket per run, and private Redis/S3 instances for fault tests, so that
// packages running in parallel never see each other.
package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/migrations"
	gsql "github.com/guidepost/guidepost/sql"
)

// AdminURL reaches the server's maintenance database.
func AdminURL() string {
	if u := os.Getenv("TEST_POSTGRES_ADMIN_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func dbURL(name string) string {
	return strings.Replace(AdminURL(), "/postgres?", "/"+name+"?", 1)
}

var templateOnce sync.Map // template name -> struct{}

// DatabaseURL creates a fresh, migrated database for this test and drops it
// afterwards. Cloning a template takes ~0.2 s, far less than migrating.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("testkit: postgres: %v (run `make stack`)", err)
	}
	defer admin.Close(ctx)
	// One lock for every package: CREATE DATABASE … TEMPLATE fails while any
	// other session is connected to the template, including one building it.
	if _, err := admin.Exec(ctx, `SELECT pg_advisory_lock(72001)`); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(context.Background(), `SELECT pg_advisory_unlock(72001)`)
	tpl := templateName()
	if _, done := templateOnce.Load(tpl); !done {
		if err := ensureTemplate(ctx, admin, tpl); err != nil {
			t.Fatalf("testkit: template: %v", err)
		}
		templateOnce.Store(tpl, struct{}{})
	}
	name := fmt.Sprintf("gp_test_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE `+tpl); err != nil {
		t.Fatalf("testkit: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, AdminURL()); err == nil {
			c.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
			c.Close(ctx)
		}
	})
	return dbURL(name)
}

// templateName changes whenever a migration changes, so a stale template is
// never used.
func templateName() string {
	h := sha256.New()
	fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := migrations.FS.ReadFile(path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	return "gp_template_" + hex.EncodeToString(h.Sum(nil))[:12]
}

func ensureTemplate(ctx context.Context, admin *pgx.Conn, tpl string) error {
	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, tpl).Scan(&exists); err != nil || exists {
		return err
	}
	// Build under a temporary name and rename, so a crash mid-build never
	// leaves a half-migrated template behind.
	build := tpl + "_build"
	if _, err := admin.Exec(ctx, `DROP DATABASE IF EXISTS `+build+` WITH (FORCE)`); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+build); err != nil {
		return err
	}
	db, err := gsql.Open(ctx, dbURL(build))
	if err != nil {
		return err
	}
	err = db.Migrate(ctx, slog.New(slog.DiscardHandler))
	db.Close()
	if err != nil {
		return err
	}
	_, err = admin.Exec(ctx, `ALTER DATABASE `+build+` RENAME TO `+tpl)
	return err
}

// DB opens a fresh migrated database for this test.
func DB(t testing.TB) *gsql.DB {
	t.Helper()
	db, err := gsql.Open(context.Background(), DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// EmptyDatabaseURL creates a database with nothing in it, not even PostGIS,
// for tests of the migrations themselves.
func EmptyDatabaseURL(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("testkit: postgres: %v (run `make stack`)", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("gp_empty_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), AdminURL()); err == nil {
			c.Exec(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
			c.Close(context.Background())
		}
	})
	return dbURL(name)
}
