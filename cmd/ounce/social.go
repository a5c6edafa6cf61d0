package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/social"
)

// cmdUserMute stops (mute) or lets again (unmute) the account with that email from writing
// comments; what it already wrote stays as it is.
func cmdUserMute(ctx context.Context, cfg config, email string, mute bool, stdout io.Writer) error {
	return openStore(ctx, cfg, func(s *db.Store) error {
		svc := social.New(social.Deps{Store: s, Config: cfg.App.Social})
		u, err := svc.SetMuted(ctx, email, mute)
		if apperr.KindOf(err) == apperr.NotFound {
			return usageError{fmt.Sprintf("no account with email %s", db.NormalizeEmail(email))}
		}
		if err != nil {
			return cliError(err)
		}
		if mute {
			fmt.Fprintf(stdout, "%s can no longer comment\n", u.Email)
		} else {
			fmt.Fprintf(stdout, "%s can comment again\n", u.Email)
		}
		return nil
	})
}
