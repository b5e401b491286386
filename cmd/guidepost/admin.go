package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/moderation"
	gsql "github.com/guidepost/guidepost/sql"
)

const adminUsage = `usage: guidepost admin <command> [args]

commands:
  grant-moderator EMAIL    give the account with EMAIL the moderator role
  revoke-moderator EMAIL   take it away (at once: the role is checked on every request)
`

// adminCommand is one operator command: it gets the business layer and
// its arguments, never the database by hand.
type adminCommand func(ctx context.Context, svc *moderation.Service, args []string, out io.Writer) error

var adminCommands = map[string]adminCommand{
	"grant-moderator":  grantModerator,
	"revoke-moderator": revokeModerator,
}

// admin runs one operator command against the database.
func admin(ctx context.Context, cfg config.Config, log *slog.Logger, args []string, out io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(out, adminUsage)
		return errors.New("admin: no command given")
	}
	cmd, ok := adminCommands[args[0]]
	if !ok {
		fmt.Fprint(out, adminUsage)
		return fmt.Errorf("admin: unknown command %q", args[0])
	}
	db, err := gsql.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	return cmd(ctx, roleService(db, log), args[1:], out)
}

// oneEmail wants exactly one argument, the account's email.
func oneEmail(cmd string, args []string) (string, error) {
	if len(args) != 1 || args[0] == "" {
		return "", fmt.Errorf("admin: usage: guidepost admin %s EMAIL", cmd)
	}
	return args[0], nil
}
