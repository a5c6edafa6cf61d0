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
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/apperr"
)

const usage = `ounce — precious-metals portfolio and market intelligence

Usage:
  ounce serve [--addr A] [--data-dir D] [--database-url U] [--base-url U] [--offline] [--metrics]
                                               run the web app and API
  ounce migrate                                apply database migrations and exit
  ounce backup FILE                            copy the SQLite database consistently, server running or not
  ounce restore [--force] FILE                 make a backup the SQLite database (stop the server first)
  ounce user add --email E [--tier free|gold] [--admin] [--password-file F]
                                               create an account (password prompted, or read from stdin or F)
  ounce user list                              every account: email, tier, administrator, created
  ounce user reset-password --email E          set a new password (read from stdin, or prompted);
                                               every browser of the account is signed out
  ounce user set-admin --email E [--off]       make an account an administrator (--off: no longer)
  ounce user set-tier --email E --tier free|gold
                                               change an account's membership
  ounce user mute --email E                    stop an account from commenting
  ounce user unmute --email E                  let a muted account comment again
  ounce apikey new --email E [--name N]        print a new API key once, nothing else
  ounce prices import --metal M [--granularity daily|monthly] FILE.csv
                                               add or correct closes (header date,usd_per_oz)
  ounce fx import FILE.csv                     add or correct exchange rates (header date,currency,per_eur)
  ounce vault import FILE.xls [FILE.xls ...]   store CME depository reports
  ounce vault open-interest --metal M --contracts N [--date YYYY-MM-DD]
                                               record futures open interest (date: today, UTC)
  ounce dealers import FILE.json               add or edit dealers, products, listings and feeds
  ounce dealers fetch                          fetch every listed page and feed once, print a summary
  ounce dealers clicks [--since 30d|YYYY-MM-DD]
                                               click-throughs per dealer (default: the last 30 days)
  ounce version                                version, commit, build date and Go release
  ounce help                                   this text

Flags may come before or after file names. Settings come from the environment (README,
Configuration); the flags of serve override it. Exit status: 0 done, 2 bad input or
configuration, 1 failure while running.
`

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(report(os.Stderr, err))
}

// report prints err as one line (a connection string's password never shown) and returns the
// exit status: 0 for none, 2 for bad input or configuration, 1 for a failure while running.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "ounce: "+db.RedactURL(err.Error()))
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// usageError is bad input: a wrong flag, argument, file or setting (exit 2).
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// commandHelp is the part of usage about one command (every line of it and of its
// subcommands, with their continuation lines).
func commandHelp(cmd string) string {
	var b strings.Builder
	keep := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  ounce "):
			keep = strings.HasPrefix(line, "  ounce "+cmd+" ") || line == "  ounce "+cmd
		case !strings.HasPrefix(line, "    "):
			keep = false
		}
		if keep {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return usage
	}
	return "Usage:\n" + b.String()
}

// wantsHelp reports whether args ask for help (-h, -help or --help anywhere before "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command given (try: ounce help)"}
	}
	if args[0] != "help" && wantsHelp(args[1:]) {
		fmt.Fprint(stdout, commandHelp(args[0]))
		return nil
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "migrate":
		return withStore(ctx, args[1:], func(cfg config, s *db.Store) error {
			fmt.Fprintln(stdout, "database is up to date")
			return nil
		})
	case "backup":
		return cmdBackup(ctx, args[1:], stdout)
	case "restore":
		return cmdRestore(ctx, args[1:], stdout)
	case "user":
		return cmdUser(ctx, args[1:], stdin, stdout, stderr)
	case "apikey":
		return cmdAPIKey(ctx, args[1:], stdout)
	case "prices":
		return cmdPrices(ctx, args[1:], stdout, stderr)
	case "vault":
		return cmdVault(ctx, args[1:], stdout)
	case "fx":
		return cmdFX(ctx, args[1:], stdout, stderr)
	case "dealers":
		return cmdDealers(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprint(stdout, readBuild())
		return nil
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			fmt.Fprint(stdout, commandHelp(args[1]))
			return nil
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q (try: ounce help)", args[0])}
}

// parseInterspersed parses fs's flags wherever they stand among args, so `prices import
// FILE --metal gold` works as well as `prices import --metal gold FILE`; fs.Args() are then
// the other arguments in order. Everything after "--" is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return flagError(err)
		}
		left := fs.Args()
		consumed := args[:len(args)-len(left)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			rest = append(rest, left...)
			break
		}
		if len(left) == 0 {
			break
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
	return fs.Parse(append([]string{"--"}, rest...))
}

// flagError turns the flag package's errors into one line in our words.
func flagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Errorf("unknown flag %s (try: ounce help)", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Errorf("flag %s needs a value", name)
	}
	return err
}

// fieldLine is a service's field problem as one line: "email: enter a valid email address",
// "name is required".
func fieldLine(f apperr.FieldError) string {
	if strings.HasPrefix(f.Message, "is ") || strings.HasPrefix(f.Message, "must ") {
		return f.Field + " " + f.Message
	}
	return f.Field + ": " + f.Message
}

// withStore opens and migrates the configured database, runs fn, and closes it.
// It takes serve's flags (--database-url, --data-dir …), as it always has.
func withStore(ctx context.Context, args []string, fn func(config, *db.Store) error) error {
	fs := quietFlags("ounce")
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return usageError{flagError(err).Error()}
	}
	return openStore(ctx, cfg, func(s *db.Store) error { return fn(cfg, s) })
}

// withConfigStore opens and migrates the database the environment configures, runs fn with
// the configuration and the store, and closes it; a bad configuration is a usage error.
func withConfigStore(ctx context.Context, fn func(config, *db.Store) error) error {
	cfg, err := loadConfig(nil, nil)
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

// logLevels are the values OUNCE_LOG_LEVEL takes.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// newLogger writes text lines at level and up (loadConfig has checked the level). Every
// string and error value passes through db.RedactURL, so no log line shows a connection
// string's password.
func newLogger(w io.Writer, level string) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: logLevels[strings.ToLower(level)], ReplaceAttr: redactAttr}))
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
	fs := quietFlags("serve")
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return usageError{flagError(err).Error()}
	}
	// The address is taken before anything else starts, so a busy port is one line and exit 1.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return listenError(cfg.Addr, err)
	}
	defer ln.Close()
	log := newLogger(stderr, cfg.LogLevel)
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	return openStore(ctx, cfg, func(s *db.Store) error {
		market, err := app.NewMarket(ctx, cfg.App, s, log)
		if err != nil {
			return err
		}
		a, err := app.New(app.Options{Store: s, Logger: log, Market: market, Config: cfg.App})
		if err != nil {
			return err
		}
		srv := a.Server
		// Demo news and articles, classified against current prices, and the vault seed:
		// pages are useful from the first request, even offline.
		if err := a.Intel.EnsureSeed(ctx); err != nil {
			log.Warn("seeding market intelligence", "err", err)
		}
		srv.Start()
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		engine := "SQLite at " + cfg.sqlitePath()
		if s.Engine == db.Postgres {
			engine = "PostgreSQL"
		}
		fmt.Fprintf(stdout, "Ounce %s serving %s (database: %s)\n", cfg.App.Site.Version, cfg.App.Site.BaseURL, engine)
		lim := srv.Limits()
		log.Info("connection limits", "max_connections", lim.MaxConnections, "max_streams", lim.MaxStreams, "max_streams_per_client", lim.MaxStreamsPerClient)
		select {
		case err := <-errc:
			return fmt.Errorf("serving on %s: %w", cfg.Addr, err)
		case <-ctx.Done():
		}
		log.Info("shutting down: finishing in-flight requests")
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		return srv.Shutdown(sctx)
	})
}

// listenError says in one line why the address cannot be served.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot listen on %s: the address is already in use (another ounce or program holds it; set OUNCE_ADDR or --addr)", addr)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("cannot listen on %s: permission denied (ports below 1024 need privileges; use a higher port behind a reverse proxy)", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("cannot listen on %s: no such address on this machine", addr)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}

// readPassword reads one line from file, else from stdin; on a terminal it prompts on
// stderr and reads without echo.
func readPassword(stdin io.Reader, stderr io.Writer, file string) (string, error) {
	var r io.Reader = stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return "", usageError{"--password-file: " + err.Error()}
		}
		defer f.Close()
		r = f
	} else if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		return promptPassword(f, stderr)
	}
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func cmdUser(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"user needs a subcommand: add, list, reset-password, set-admin, set-tier, mute or unmute"}
	}
	fs := quietFlags("user")
	email := fs.String("email", "", "account email")
	tier := fs.String("tier", "", "free or gold")
	admin := fs.Bool("admin", false, "make the account an administrator")
	pwFile := fs.String("password-file", "", "read the password from this file instead of stdin")
	off := fs.Bool("off", false, "set-admin: take administration away")
	switch args[0] {
	case "add", "list", "reset-password", "set-admin", "set-tier", "mute", "unmute":
	default:
		return usageError{fmt.Sprintf("unknown user subcommand %q (add, list, reset-password, set-admin, set-tier, mute or unmute)", args[0])}
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{flagError(err).Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return usageError{err.Error()}
	}
	if args[0] == "list" {
		if *email != "" || *tier != "" || *admin || *pwFile != "" || *off {
			return usageError{"user list takes no flags"}
		}
		return cmdUserList(ctx, cfg, stdout)
	}
	if *email == "" {
		return usageError{"--email is required"}
	}
	if *off && args[0] != "set-admin" {
		return usageError{"--off is a flag of user set-admin only"}
	}
	switch args[0] {
	case "reset-password":
		return cmdUserResetPassword(ctx, cfg, *email, *pwFile, stdin, stdout, stderr)
	case "set-admin":
		return cmdUserSetAdmin(ctx, cfg, *email, !*off, stdout)
	}
	if *tier != "" && !account.ValidTier(*tier) {
		return usageError{"--tier must be free or gold"}
	}
	addr := db.NormalizeEmail(*email)
	switch args[0] {
	case "add":
		// The address is checked before a password is asked for, and both before the database
		// is opened, so a typo creates nothing.
		if _, errs := account.ValidateSignup(*email, "a placeholder to check the email alone"); len(errs) > 0 && errs[0].Field == "email" {
			return usageError{fieldLine(errs[0])}
		}
		pw, err := readPassword(stdin, stderr, *pwFile)
		if err != nil {
			return err
		}
		if _, errs := account.ValidateSignup(*email, pw); len(errs) > 0 {
			return usageError{fieldLine(errs[0])}
		}
		return withAccounts(ctx, cfg, func(acct *account.Service) error {
			u, err := acct.CreateUser(ctx, account.NewUser{Credentials: account.Credentials{Email: *email, Password: pw}, Tier: *tier, Admin: *admin})
			if apperr.KindOf(err) == apperr.Conflict {
				return usageError{fmt.Sprintf("an account with email %s already exists", addr)}
			}
			if err != nil {
				return cliError(err)
			}
			fmt.Fprintf(stdout, "created %s (tier %s%s)\n", u.Email, u.Tier, map[bool]string{true: ", admin"}[u.IsAdmin])
			return nil
		})
	case "mute", "unmute":
		return cmdUserMute(ctx, cfg, *email, args[0] == "mute", stdout)
	}
	// set-tier
	if *tier == "" {
		return usageError{"--tier is required"}
	}
	return withAccounts(ctx, cfg, func(acct *account.Service) error {
		if err := acct.SetTier(ctx, *email, *tier); apperr.KindOf(err) == apperr.NotFound {
			return usageError{fmt.Sprintf("no account with email %s", addr)}
		} else if err != nil {
			return cliError(err)
		}
		fmt.Fprintf(stdout, "%s is now %s\n", addr, *tier)
		return nil
	})
}

// cmdUserList prints every account, one line each.
func cmdUserList(ctx context.Context, cfg config, stdout io.Writer) error {
	return openStore(ctx, cfg, func(s *db.Store) error {
		users, err := s.Users(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "EMAIL\tTIER\tADMIN\tCREATED")
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Email, u.Tier, map[bool]string{true: "yes", false: "no"}[u.IsAdmin], u.CreatedAt.UTC().Format(time.DateOnly))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d accounts\n", len(users))
		return nil
	})
}

func cmdAPIKey(ctx context.Context, args []string, stdout io.Writer) error {
	fs, err := subcommandFlags(args, "apikey", "new", "apikey needs the subcommand new: ounce apikey new --email E [--name N]")
	if err != nil {
		return err
	}
	email := fs.String("email", "", "account email")
	name := fs.String("name", "cli", "a name to recognise the key by")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{flagError(err).Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
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
			return usageError{fmt.Sprintf("no account with email %s", db.NormalizeEmail(*email))}
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

// cliError is how a command reports a service error: a field problem or another domain error
// in its own words as bad input (exit 2), anything else (an outage, a bug) as it is (exit 1).
func cliError(err error) error {
	if fields := apperr.FieldsOf(err); len(fields) > 0 {
		return usageError{fieldLine(fields[0])}
	}
	if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
		return usageError{e.Msg}
	}
	return err
}
