package main

import (
	"flag"
	"fmt"
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

// runSubcommand runs the one of run that args[0] names with the rest of args; names lists
// them for the usage errors of a command (cmd) given none or an unknown one.
func runSubcommand(cmd, names string, args []string, run map[string]func(rest []string) error) error {
	if len(args) == 0 {
		return usageError{cmd + " needs a subcommand: " + names + " (try: ounce help " + cmd + ")"}
	}
	if f, ok := run[args[0]]; ok {
		return f(args[1:])
	}
	return usageError{fmt.Sprintf("unknown %s subcommand %q (%s)", cmd, args[0], names)}
}
