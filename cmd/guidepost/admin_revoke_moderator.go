package main

import (
	"context"
	"fmt"
	"io"

	"github.com/guidepost/guidepost/moderation"
)

// revokeModerator is `guidepost admin revoke-moderator EMAIL`.
func revokeModerator(ctx context.Context, svc *moderation.Service, args []string, out io.Writer) error {
	email, err := oneEmail("revoke-moderator", args)
	if err != nil {
		return err
	}
	id, err := svc.RevokeModerator(ctx, email)
	if err != nil {
		return fmt.Errorf("admin: revoke-moderator: %w", err)
	}
	fmt.Fprintf(out, "%s (%s) is no longer a moderator\n", email, id)
	return nil
}
