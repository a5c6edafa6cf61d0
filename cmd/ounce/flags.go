package main

import (
	"flag"
	"io"
)

// quietFlags is a flag set that reports its errors to the caller and prints nothing.
func quietFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// subcommandFlags checks that args begin with the one subcommand sub (usage says how to
// call it otherwise) and answers a quiet flag set, named "name sub", for what follows it.
func subcommandFlags(args []string, name, sub, usage string) (*flag.FlagSet, error) {
	if len(args) == 0 || args[0] != sub {
		return nil, usageError{usage}
	}
	return quietFlags(name + " " + sub), nil
}
