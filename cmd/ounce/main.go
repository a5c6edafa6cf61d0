// Command ounce runs the Ounce service and its administration tasks.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/web"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `ounce — precious-metals portfolio and market intelligence

Usage:
  ounce serve [flags]                          run the web app and API
  ounce migrate                                apply database migrations
  ounce user add --email E [--tier free|gold] [--admin] [--password-file F]
                                               create an account (password from stdin or file)
  ounce user set-tier --email E --tier free|gold
  ounce user mute --email E                    stop an account from commenting (unmute lets it again)
  ounce apikey new --email E [--name N]        print a new API key once
  ounce prices import --metal M FILE.csv       add or correct daily closes (date,usd_per_oz)
  ounce vault import FILE.xls                  import a CME depository report
  ounce vault open-interest --metal M --contracts N [--date D]
  ounce dealers import FILE.json               add or edit dealers, products, listings and feeds
  ounce dealers fetch                          fetch dealer prices once now and print a summary
  ounce dealers clicks [--since 30d|YYYY-MM-DD] click-throughs per dealer
  ounce version

Configuration comes from the environment (see README); serve flags override it.
`

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		// Whatever failed, a connection string's password is not printed.
		fmt.Fprintln(os.Stderr, "ounce: "+db.RedactURL(err.Error()))
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "migrate":
		return withStore(ctx, args[1:], func(cfg config, s *db.Store) error {
			fmt.Fprintln(stdout, "database is up to date")
			return nil
		})
	case "user":
		return cmdUser(ctx, args[1:], stdin, stdout)
	case "apikey":
		return cmdAPIKey(ctx, args[1:], stdout)
	case "prices":
		return cmdPrices(ctx, args[1:], stdout, stderr)
	case "vault":
		return cmdVault(ctx, args[1:], stdout)
	case "dealers":
		return cmdDealers(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "ounce "+version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q (try: ounce help)", args[0])}
}

// withStore opens and migrates the configured database, runs fn, and closes it.
func withStore(ctx context.Context, args []string, fn func(config, *db.Store) error) error {
	fs := flag.NewFlagSet("ounce", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	return openStore(ctx, cfg, func(s *db.Store) error { return fn(cfg, s) })
}

func openStore(ctx context.Context, cfg config, fn func(*db.Store) error) error {
	s, err := db.Open(ctx, cfg.DatabaseURL, cfg.sqlitePath())
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return fn(s)
}

// newLogger writes text lines at level and up. Every string and error value passes through
// db.RedactURL, so no log line shows a connection string's password.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l, ReplaceAttr: redactAttr}))
}

func redactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); db.RedactURL(s) != s {
			a.Value = slog.StringValue(db.RedactURL(s))
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(db.RedactURL(err.Error()))
		}
	}
	return a
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	log := newLogger(stderr, cfg.LogLevel)
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	return openStore(ctx, cfg, func(s *db.Store) error {
		market, err := newMarket(ctx, cfg, s, log)
		if err != nil {
			return err
		}
		srv, err := web.New(web.Options{Store: s, Logger: log, Market: market, Config: cfg.App})
		if err != nil {
			return err
		}
		// Demo news and articles, classified against current prices, and the vault seed:
		// pages are useful from the first request, even offline.
		if err := srv.Handlers().Intel().EnsureSeed(ctx); err != nil {
			log.Warn("seeding market intelligence", "err", err)
		}
		srv.Start()
		errc := make(chan error, 1)
		go func() { errc <- srv.Listen(cfg.Addr) }()
		engine := "SQLite at " + cfg.sqlitePath()
		if s.Engine == db.Postgres {
			engine = "PostgreSQL"
		}
		fmt.Fprintf(stdout, "Ounce %s serving %s (database: %s)\n", version, cfg.App.Site.BaseURL, engine)
		lim := srv.Limits()
		log.Info("connection limits", "max_connections", lim.MaxConnections, "max_streams", lim.MaxStreams, "max_streams_per_client", lim.MaxStreamsPerClient)
		select {
		case err := <-errc:
			return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
		case <-ctx.Done():
		}
		log.Info("shutting down: finishing in-flight requests")
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		return srv.Shutdown(sctx)
	})
}

func readPassword(stdin io.Reader, file string) (string, error) {
	var r io.Reader = stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func cmdUser(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"user needs a subcommand: add, set-tier, mute or unmute"}
	}
	fs := flag.NewFlagSet("user", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "account email")
	tier := fs.String("tier", "", "free or gold")
	admin := fs.Bool("admin", false, "make the account an administrator")
	pwFile := fs.String("password-file", "", "read the password from this file instead of stdin")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *email == "" {
		return usageError{"--email is required"}
	}
	if *tier != "" && !account.ValidTier(*tier) {
		return usageError{"--tier must be free or gold"}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	addr := db.NormalizeEmail(*email)
	switch args[0] {
	case "add":
		pw, err := readPassword(stdin, *pwFile)
		if err != nil {
			return err
		}
		// Checked before the database is opened, so a typo creates nothing.
		if _, errs := account.ValidateSignup(*email, pw); len(errs) > 0 {
			return usageError{errs[0].Field + " " + errs[0].Message}
		}
		return withAccounts(ctx, cfg, func(acct *account.Service) error {
			u, err := acct.CreateUser(ctx, account.NewUser{Credentials: account.Credentials{Email: *email, Password: pw}, Tier: *tier, Admin: *admin})
			if apperr.KindOf(err) == apperr.Conflict {
				return fmt.Errorf("an account with email %s already exists", addr)
			}
			if err != nil {
				return cliError(err)
			}
			fmt.Fprintf(stdout, "created %s (tier %s%s)\n", u.Email, u.Tier, map[bool]string{true: ", admin"}[u.IsAdmin])
			return nil
		})
	case "mute", "unmute":
		return cmdUserMute(ctx, cfg, *email, args[0] == "mute", stdout)
	case "set-tier":
		if *tier == "" {
			return usageError{"--tier is required"}
		}
		return withAccounts(ctx, cfg, func(acct *account.Service) error {
			if err := acct.SetTier(ctx, *email, *tier); apperr.KindOf(err) == apperr.NotFound {
				return fmt.Errorf("no account with email %s", addr)
			} else if err != nil {
				return cliError(err)
			}
			fmt.Fprintf(stdout, "%s is now %s\n", addr, *tier)
			return nil
		})
	}
	return usageError{fmt.Sprintf("unknown user subcommand %q", args[0])}
}

func cmdAPIKey(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "new" {
		return usageError{"apikey needs the subcommand new"}
	}
	fs := flag.NewFlagSet("apikey", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "account email")
	name := fs.String("name", "cli", "a name to recognise the key by")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if *email == "" {
		return usageError{"--email is required"}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	return withAccounts(ctx, cfg, func(acct *account.Service) error {
		u, err := acct.UserByEmail(ctx, *email)
		if apperr.KindOf(err) == apperr.NotFound {
			return fmt.Errorf("no account with email %s", db.NormalizeEmail(*email))
		}
		if err != nil {
			return err
		}
		secret, _, err := acct.CreateAPIKey(ctx, u, *name)
		if err != nil {
			return cliError(err)
		}
		fmt.Fprintln(stdout, secret)
		return nil
	})
}

// withAccounts opens the configured database and runs fn with the account service over it.
func withAccounts(ctx context.Context, cfg config, fn func(*account.Service) error) error {
	return openStore(ctx, cfg, func(s *db.Store) error {
		return fn(account.New(account.Deps{Store: s, Config: account.Config{NewUsersGold: cfg.App.Account.NewUsersGold}}))
	})
}

// cliError is how a command reports a service error: a domain error in its own words,
// anything else (an outage, a bug) as it is.
func cliError(err error) error {
	if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
		return errors.New(e.Msg)
	}
	return err
}
