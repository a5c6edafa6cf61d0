package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Set at build time by `make build`/`make run`:
//
//	go build -ldflags "-X main.version=1.2.3 -X main.commit=$(git rev-parse HEAD) -X main.buildDate=2026-11-27T20:00:00Z" ./cmd/ounce
//
// Without them the version comes from the module (a `go install …@v1.2.3`) or is "dev" plus
// the commit, and the commit is what Go recorded (vcs.revision, vcs.time), when it could.
var (
	version   = ""
	commit    = ""
	buildDate = ""
)

// build is what a binary knows about its making: the version it was given, the commit and
// build date Go recorded (vcs.* settings of debug.ReadBuildInfo), and the Go release.
type build struct {
	Version   string
	Commit    string // full hash, empty outside a VCS checkout
	Modified  bool   // the working tree had uncommitted changes
	Date      string // RFC 3339 build time, when the build stamped it
	Committed string // RFC 3339 time of the commit
	Go        string
}

func readBuild() build {
	b := build{Version: version, Commit: commit, Date: buildDate}
	stamped := commit != ""
	// make stamps "<hash>-dirty" for a tree with uncommitted changes.
	b.Commit, b.Modified = strings.CutSuffix(b.Commit, "-dirty")
	if info, ok := debug.ReadBuildInfo(); ok {
		b.Go = info.GoVersion
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" && !strings.Contains(info.Main.Version, "+dirty") {
			b.Version = strings.TrimPrefix(info.Main.Version, "v")
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if !stamped {
					b.Commit = s.Value
				}
			case "vcs.modified":
				b.Modified = !stamped && s.Value == "true"
			case "vcs.time":
				if !stamped {
					b.Committed = s.Value
				}
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
		if c := b.shortCommit(); c != "" {
			b.Version += "+" + c
		}
	}
	return b
}

func (b build) shortCommit() string {
	if len(b.Commit) > 12 {
		return b.Commit[:12]
	}
	return b.Commit
}

// String is what `ounce version` prints: one line per fact, unknown facts said so.
func (b build) String() string {
	commit, date := "unknown (not stamped: make build stamps it)", "unknown (not stamped: make build stamps it)"
	if b.Commit != "" {
		commit = b.Commit
		if b.Committed != "" {
			commit += " of " + b.Committed
		}
		if b.Modified {
			commit += " with uncommitted changes"
		}
	}
	if b.Date != "" {
		date = b.Date
	}
	return fmt.Sprintf("ounce %s\ncommit: %s\nbuilt:  %s\ngo:     %s\n", b.Version, commit, date, b.Go)
}
