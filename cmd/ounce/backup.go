package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ouncehq/ounce/db"
)

// pgBackupHint is the one line the SQLite-only commands answer on PostgreSQL.
const pgBackupHint = "on PostgreSQL, back up with pg_dump and restore with pg_restore (README, Backups): pg_dump --format=custom --file=FILE \"$DATABASE_URL\""

// sqliteFileArgs parses the flags and the one FILE of backup and restore, and the
// configuration, which must name the embedded database (usage says what one FILE means).
func sqliteFileArgs(fs *flag.FlagSet, args []string, usage string) (string, config, error) {
	if err := parseInterspersed(fs, args); err != nil {
		return "", config{}, usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return "", config{}, usageError{usage}
	}
	cfg, err := loadConfig(nil, nil)
	if err != nil {
		return "", config{}, usageError{err.Error()}
	}
	if cfg.DatabaseURL != "" {
		return "", config{}, usageError{pgBackupHint}
	}
	return fs.Arg(0), cfg, nil
}

// cmdBackup handles `ounce backup FILE`: a consistent copy of the embedded database, taken
// while the server runs.
func cmdBackup(ctx context.Context, args []string, stdout io.Writer) error {
	fs := quietFlags("backup")
	file, cfg, err := sqliteFileArgs(fs, args, "backup needs exactly one FILE to write: ounce backup FILE")
	if err != nil {
		return err
	}
	if _, err := os.Lstat(file); err == nil {
		return usageError{fmt.Sprintf("%s already exists: choose a new file name", file)}
	}
	src := cfg.sqlitePath()
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("no database at %s (OUNCE_DATA_DIR): %w", src, errors.Unwrap(err))
	}
	// Opened without migrating: a backup copies what is there, whichever version wrote it.
	s, err := db.Open(ctx, "", src)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.BackupTo(ctx, file); err != nil {
		return err
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d KiB)\n", src, file, (st.Size()+1023)/1024)
	return nil
}

// cmdRestore handles `ounce restore [--force] FILE`: the backup becomes the embedded database.
// Stop the server first; a database with anything in it is replaced only with --force.
func cmdRestore(ctx context.Context, args []string, stdout io.Writer) error {
	fs := quietFlags("restore")
	force := fs.Bool("force", false, "replace a database that is not empty")
	file, cfg, err := sqliteFileArgs(fs, args, "restore needs exactly one backup FILE: ounce restore [--force] FILE")
	if err != nil {
		return err
	}
	if _, err := os.Stat(file); err != nil {
		return usageError{fmt.Sprintf("%s: no such backup file", file)}
	}
	dst := cfg.sqlitePath()
	if _, err := os.Stat(dst); err == nil {
		empty, err := sqliteIsEmpty(ctx, dst)
		if err != nil {
			return err
		}
		if !empty && !*force {
			return usageError{fmt.Sprintf("%s is not empty: stop the server and add --force to replace it with %s", dst, file)}
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	// Copy beside the destination, check the copy, then move it into place: the backup file is
	// never modified, and the database is either the old one or the whole restored one.
	tmp, err := copyToTemp(file, filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer removeSQLite(tmp)
	if err := checkBackup(ctx, tmp); err != nil {
		return usageError{fmt.Sprintf("%s: %v", file, err)}
	}
	// A write-ahead log of the old database must not be replayed into the restored one.
	removeSQLite(dst)
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", dst, file)
	return nil
}

func sqliteIsEmpty(ctx context.Context, path string) (bool, error) {
	s, err := db.Open(ctx, "", path)
	if err != nil {
		return false, err
	}
	defer s.Close()
	return s.IsEmpty(ctx)
}

func checkBackup(ctx context.Context, path string) error {
	s, err := db.Open(ctx, "", path)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.CheckIntegrity(ctx)
}

func copyToTemp(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, ".ounce-restore-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		_ = os.Remove(out.Name())
		return "", err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		_ = os.Remove(out.Name())
		return "", err
	}
	return out.Name(), out.Close()
}

// removeSQLite removes a database file and the WAL and shared-memory files beside it.
func removeSQLite(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Remove(p)
	}
}
