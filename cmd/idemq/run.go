package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"time"
)

// subcommand is one of the command's verbs.
type subcommand struct {
	usage string // the arguments, after the name
	help  string
	run   func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int
}

var subcommands = map[string]subcommand{
	"inspect": {"KEY|--body JSON [--scope S] [--raw]", "show a record: status, owner, lease and expiry left, result size and where it is stored, fingerprint", runInspect},
	"list":    {"[--status in-progress|completed] [--older-than D] [--limit N] [--cursor C] [--all]", "list the namespace's records, a page at a time (--all: every namespace's)", runList},
	"stuck":   {"[--limit N] [--cursor C] [--all]", "list the namespace's IN_PROGRESS records whose lease has passed (--all: every namespace's)", runStuck},
	"release": {"KEY|--body JSON [--scope S] [--raw] [--force]", "delete an IN_PROGRESS record so that the next delivery runs the work", runRelease},
	"purge":   {"KEY|--body JSON [--scope S] [--raw] [--force]", "delete a record, whatever its status", runPurge},
	"redrive": {"--dlq URL|ARN [--to URL|ARN] [--max-per-second N]", "move a dead-letter queue's messages back to their source queue", runRedrive},
}

// run runs the command line args (without the program's name) and
// returns the exit code. Everything the command reads and writes goes
// through its arguments, so tests run it as a user would.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "idemq: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, now: time.Now}
	fs := flag.NewFlagSet("idemq "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: idemq %s %s\n\n%s.\n\nflags (each store setting defaults to its IDEMQ_* variable):\n", args[0], sub.usage, sub.help)
		fs.PrintDefaults()
	}
	e.register(fs)
	return sub.run(ctx, e, fs, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: idemq COMMAND [ARGS] [FLAGS]\n\nThe operator's command for idemq's records and dead letters; it reads the worker's IDEMQ_* settings.\n\ncommands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n           %s\n", n, subcommands[n].usage, subcommands[n].help)
	}
	fmt.Fprintln(w, "\nRun idemq COMMAND -h for a command's flags. See docs/cli.md.")
}
