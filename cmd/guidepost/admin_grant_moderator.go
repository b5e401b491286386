package main

import (
	"context"
	"fmt"
	"io"

	"github.com/guidepost/guidepost/moderation"
)

// grantModerator is `guidepost admin grant-moderator EMAIL`.
func grantModerator(ctx context.Context, svc *moderation.Service, args []string, out io.Writer) error {
	email, err := oneEmail("grant-moderator", args)
	if err != nil {
		return err
	}
	id, err := svc.GrantModerator(ctx, email)
	if err != nil {
		return fmt.Errorf("admin: grant-moderator: %w", err)
	}
	fmt.Fprintf(out, "%s (%s) is a moderator\n", email, id)
	return nil
}
