package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/mail"
)

// cmdUserResetPassword sets a new password on an account (the way back in for an operator
// who forgot theirs): read from stdin (or prompted on a terminal, or --password-file),
// checked by the rules of every password, and every browser of the account signed out. With
// mail set up, the account's address is told.
func cmdUserResetPassword(ctx context.Context, cfg config, email, pwFile string, stdin io.Reader, stdout, stderr io.Writer) error {
	addr := db.NormalizeEmail(email)
	pw, err := readPassword(stdin, stderr, pwFile)
	if err != nil {
		return err
	}
	if err := account.ValidatePassword(pw); err != nil {
		return usageError{"password: " + err.Error()}
	}
	return openStore(ctx, cfg, func(s *db.Store) error {
		acct := account.New(account.Deps{Store: s, Config: account.Config{NewUsersGold: cfg.App.Account.NewUsersGold}})
		// With mail set up, the account's address is told in the transaction of the change.
		acct.SetNotices(mail.New(mail.Deps{Store: s, Config: cfg.App.Mail.WithBaseURL(cfg.App.Site.BaseURL)}))
		u, err := acct.SetPasswordByEmail(ctx, email, pw)
		if apperr.KindOf(err) == apperr.NotFound {
			return usageError{fmt.Sprintf("no account with email %s", addr)}
		}
		if err != nil {
			return cliError(err)
		}
		fmt.Fprintf(stdout, "password of %s changed; its browsers are signed out\n", u.Email)
		return nil
	})
}

// cmdUserSetAdmin makes an account an administrator, or (on false) no longer one.
func cmdUserSetAdmin(ctx context.Context, cfg config, email string, on bool, stdout io.Writer) error {
	return withAccounts(ctx, cfg, func(acct *account.Service) error {
		u, err := acct.SetAdmin(ctx, email, on)
		if apperr.KindOf(err) == apperr.NotFound {
			return usageError{fmt.Sprintf("no account with email %s", db.NormalizeEmail(email))}
		}
		if err != nil {
			return cliError(err)
		}
		if u.IsAdmin {
			fmt.Fprintf(stdout, "%s is now an administrator\n", u.Email)
		} else {
			fmt.Fprintf(stdout, "%s is no longer an administrator\n", u.Email)
		}
		return nil
	})
}
